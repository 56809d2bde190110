/**
 * The server's runtime with its jobs on the calling thread (`inProcessContract`) rather than in the check worker: what
 * tests, the demo's checks and the `check` command use. Apart from session.ts, so the server's main thread, which
 * passes the check worker, never loads the jobs (issue 20).
 */
import type { Config } from '../runtime/config.ts';
import type { DocumentSource } from '../document/source.ts';
import { createDocumentSource } from '../document/source.ts';
import { inProcessContract } from '../jobs/jobs.ts';
import { redactor } from '../redaction/redaction.ts';
import type { MemoryLimits } from './memory.ts';
import { createServerRuntime, createSession } from './session.ts';
import type { ServerRuntime, Session } from './session.ts';

/** Options of `createServerRuntime`, with `contract` optional and the document source it defaults to. */
export type InProcessOptions = Omit<Parameters<typeof createServerRuntime>[1], 'contract'> & {
  contract?: Parameters<typeof createServerRuntime>[1]['contract'];
  documents?: DocumentSource;
};

/**
 * `createServerRuntime` with, unless `options.contract` is given, the contract service `inProcessContract` over
 * `options.documents` (default: a document source for `config.openapiDoc`, `config.documentTtlMs`) and the runtime's
 * redactor, on this thread: no deadline, and a job that throws rejects.
 */
export function inProcessRuntime(config: Config, options: InProcessOptions = {}): ServerRuntime {
  const redact = options.redact ?? redactor(config.apiKey);
  const { documents: given, contract: passed, ...rest } = options;
  const documents =
    given ?? (config.openapiDoc ? createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs }) : undefined);
  return createServerRuntime(config, {
    ...rest,
    redact,
    contract: passed ?? inProcessContract({ config, redact, documents }),
  });
}

/**
 * One in-process runtime and one session over it (`inProcessRuntime`, then `createSession`): what a single-session
 * caller such as a test needs. Options as those two take them.
 */
export function createHandler(config: Config, options: InProcessOptions & { memory?: MemoryLimits } = {}): Session {
  const { memory, ...rest } = options;
  return createSession(inProcessRuntime(config, rest), { memory });
}
