/**
 * The check worker's side (check-worker.ts is the server's): the loop that takes jobs, the document source with its
 * cache, and what each answer carries back. It runs only in the worker thread that check-worker.ts starts, which
 * loads this module (from source) or the single-file build's deferred part (`src/runtime/deferred.ts`), so the main
 * thread never compiles the jobs, the contract or the document (issue 20).
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createDocumentSource } from '../document/source.ts';
import type { DocumentSource } from '../document/source.ts';
import { createDocumentCache } from '../document/cache.ts';
import { adoptSearchIndex, searchIndexSnapshot } from '../contract/search.ts';
import type { LoadedDocument } from '../document/model.ts';
import { codeIdentity } from '../runtime/server-info.ts';
import { hideSourceSecrets, redactorForKeys } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { relativeSourceHint } from '../runtime/config.ts';
import type { Config } from '../runtime/config.ts';
import { boundedAnswer, JOBS, warmMatcher, watchingExamples } from './jobs.ts';
import type { JobContext, JobInputs, JobName, JobOutputs } from './jobs.ts';
import { exampleTracker, redactedAnswer } from './answers.ts';
import { ROLE, UNLOADED } from './check-worker.ts';
import type { SentConfig } from './check-worker.ts';

/**
 * The worker loop: `{id, name, input}` in; `{id, started}` once the document is ready, then
 * `{id, output}` (or `{id, error}`) out. The document starts loading at once; its outcome is sent as a
 * log record (`document.load.done` or `document.load.error`).
 */
function runWorker(sent: SentConfig, keys: readonly string[]): void {
  const config: Config = { ...sent, baseUrl: new URL(sent.baseUrl) };
  const redact: Redactor = redactorForKeys([config.apiKey, ...keys]);
  const post = (message: unknown) => parentPort!.postMessage(message);
  // Each newly loaded document's examples go to the main thread, for tool descriptions and refusals (issue 17).
  const examples = exampleTracker(true);
  examples.listen(() => post({ examples: examples.state().examples ?? null }));
  const documents = config.openapiDoc
    ? watchingExamples(examples, cachedDocuments(config, config.openapiDoc, post))
    : undefined;
  const context: JobContext = { config, redact, documents };
  post({ ready: true });
  if (documents) {
    const loading = performance.now();
    documents
      .get()
      .then((loaded) => {
        post({
          log: 'info',
          event: 'document.load.done',
          fields: {
            title: loaded.title,
            version: loaded.infoVersion,
            openapi: loaded.version,
            operations: loaded.operations.length,
            problems: loaded.problems.length,
            first_problems: loaded.problems.slice(0, 3).join('; ') || undefined,
            took_ms: Math.round(performance.now() - loading),
          },
        });
        // The path matcher too (GitHub's description: about 20 to 40 ms), before any probe needs it. Should it
        // throw, the first job that matches a path meets (and reports) the same failure.
        try {
          warmMatcher(loaded);
        } catch {
          // reported by that job
        }
      })
      .catch((error: Error) =>
        post({
          log: 'error',
          event: 'document.load.error',
          fields: {
            reason: `${UNLOADED}${hideSourceSecrets(error.message, config.openapiDoc)}${relativeSourceHint(config.openapiDoc, process.cwd())}`,
            took_ms: Math.round(performance.now() - loading),
          },
        }),
      );
  }
  parentPort!.on('message', async (message: { id: number; name: JobName; input: JobInputs[JobName] }) => {
    try {
      const job = JOBS[message.name] as (
        input: JobInputs[JobName],
        context: JobContext,
        begin: () => void,
      ) => Promise<JobOutputs[JobName]>;
      // Bounded here, so an answer past MAX_ANSWER never reaches the main thread's redaction and transport.
      const output = boundedAnswer(
        message.name,
        await job(message.input, context, () => post({ id: message.id, started: true })),
      );
      // Redacted once here, where the answer is made, so the main thread only guards what it adds (issue 18).
      let sent: unknown = output;
      let text: string | undefined;
      const structured = (output as { structured?: unknown } | null)?.structured;
      if (structured !== null && typeof structured === 'object') {
        const redacted = redactedAnswer(structured as Record<string, unknown>, redact);
        if ('withheld' in redacted)
          sent =
            message.name === 'probe'
              ? { structured: { body: null, validated: false, note: redacted.withheld }, isError: true }
              : { failure: redacted.withheld };
        else {
          sent = { ...(output as object), structured: redacted.structured };
          text = redacted.text;
        }
      }
      post({
        id: message.id,
        output: sent,
        ...(text !== undefined ? { text } : {}),
        ...(documents?.persist ? { writing: true } : {}),
      });
      // The cache entry is written once the answer is on its way (serializing Graph beta takes a second), with the
      // search index once a find built it; the next job waits for it, the answer just sent does not.
      if (documents?.persist)
        setImmediate(async () => {
          await documents.persist?.((loaded) => ({ search: searchIndexSnapshot(loaded) }));
          post({ writing: false });
        });
    } catch (error) {
      post({ id: message.id, error: redact.text(String((error as Error)?.message ?? error)) });
    }
  });
}

/**
 * The worker's document source: through the document cache in `config.cacheDir` (src/document/cache.ts) when one is
 * set, its outcomes posted as debug log records (`document.cache`); a document read back from the cache brings its
 * search index along when the entry held one (`adoptSearchIndex` checks it first).
 */
function cachedDocuments(config: Config, source: string, post: (message: unknown) => void): DocumentSource {
  const cache = config.cacheDir ? createDocumentCache({ dir: config.cacheDir, version: codeIdentity() }) : undefined;
  const inner = createDocumentSource(source, {
    ttlMs: config.documentTtlMs,
    ...(cache ? { cache } : {}),
    onCache: (event) =>
      post({
        log: event.outcome === 'unwritten' ? 'error' : 'debug',
        event: 'document.cache',
        fields: { outcome: event.outcome, reason: event.reason, dir: config.cacheDir },
      }),
  });
  const tried = new WeakSet<LoadedDocument>();
  return {
    ...inner,
    async get() {
      const loaded = await inner.get();
      if (!tried.has(loaded)) {
        tried.add(loaded);
        const search = inner.cachedExtras?.(loaded)?.search;
        if (search !== undefined) adoptSearchIndex(loaded, search);
      }
      return loaded;
    },
  };
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE)
  runWorker((workerData as { config: SentConfig }).config, (workerData as { keys?: string[] }).keys ?? []);
