#!/usr/bin/env node
/**
 * openapi-probe: an MCP server that lets a coding agent GET a real HTTP API, read-only, and checks every
 * response against the API's OpenAPI document. This file is the entry and the map; the territory is `src/`.
 *
 * Layers, top to bottom (an arrow points down only; `tests/layers.test.ts` holds the rules):
 * - this entry: flags and configuration, one process-wide runtime, a transport;
 * - `src/transports/`: stdio lines (`stdio.ts`), through the one wire of `src/mcp/wire.ts`;
 * - `src/cli/`: the command line (`--help`, `--version`, `check`);
 * - `src/mcp/`: protocol codes, the wire (measure, hold, parse; redact, serialize once), the session
 *   (`createSession`: one message in, its reply out), session memory, argument checks, one file per tool;
 * - `src/jobs/`: the probe pipeline and the jobs that need the document, and the check worker, the only door
 *   into the worker thread;
 * - `src/contract/`: judge, parameters, sample, draft, describe, TypeScript, operation search (no I/O);
 * - `validate.ts`, `src/schema/`: a value against a schema: findings, patterns, formats;
 * - `src/document/`: loading, `$ref`s, the operation index, path matching, the document source;
 * - beside the contract: `src/api/` (the API under test: URL policy, the GET, body decoding, the view),
 *   `src/runtime/` (configuration, log and audit, limits), `src/redaction/` (the key out of everything);
 * - `src/shared/`: small pure helpers (JSON Pointer, instance paths, JSON text, media types, Unicode).
 *
 * Threads: the main thread reads stdin, answers ping and runs the GETs; every step that needs the document
 * (matching, checking, describing, searching) runs in the check worker (`src/jobs/check-worker.ts`), started
 * from the same module so the single-file build stays one file. stdout carries protocol messages only; every
 * log line goes to stderr.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { commandLine } from './src/cli/command-line.ts';
import { readConfig, readWorkerMemory } from './src/runtime/config.ts';
import type { Config } from './src/runtime/config.ts';
import { SERVER_INFO } from './src/runtime/server-info.ts';
import { createLogger, publicSource } from './src/runtime/log.ts';
import { QUEUE_SIZE } from './src/runtime/limits.ts';
import { redactor } from './src/redaction/redaction.ts';
import { createCheckWorker } from './src/jobs/check-worker.ts';
import type { BodyChecker } from './src/jobs/check-worker.ts';
import { createServerRuntime, createSession } from './src/mcp/session.ts';
import type { Session } from './src/mcp/session.ts';
import { serve } from './src/transports/stdio.ts';
import { trimSlash } from './src/shared/url-path.ts';

/**
 * Entry point: reads flags (`src/cli/command-line.ts` `commandLine`: `--help`, `--version` and `check` end there) and the
 * configuration, logs `key=value` records to stderr (start-up line with the settings, never a secret),
 * serves stdio, and exits 0 when stdin closes, on SIGINT or SIGTERM, or when stdin or stdout fails
 * (2 on bad configuration or flags).
 */
export async function main(): Promise<void> {
  // Flags, --help, --version and the `check` command: src/cli/. It returns the environment to serve with, or an exit code.
  const start = await commandLine(process.argv.slice(2), process.env);
  if ('exitCode' in start) {
    await new Promise((resolve) => process.stdout.write('', resolve));
    process.exit(start.exitCode);
  }
  let config: Config;
  let workerMemory: number;
  try {
    config = readConfig(start.env);
    workerMemory = readWorkerMemory(start.env);
  } catch (error) {
    process.stderr.write(`openapi-probe: ${(error as Error).message}\n`);
    process.exit(2);
  }
  // A closed stderr must not kill the server through an unhandled 'error' event.
  process.stderr.on('error', () => {});
  const began = performance.now();
  const redact = redactor(config.apiKey);
  const logger = createLogger({ level: config.logLevel, redact: redact.text });
  // The document lives in the check worker only, and every step that needs it runs there with a deadline, so
  // ping is answered whatever the API, the agent or the document hold (issue 8). It starts once `initialize` is answered.
  const contract = createCheckWorker(config, { logger, memoryMb: workerMemory });
  // One runtime for the process (gate, rate limit, audit, worker, redactor); the stdio transport carries one session.
  const runtime = createServerRuntime(config, { logger, redact, contract });
  const base = `${config.baseUrl.origin}${trimSlash(config.baseUrl.pathname)}`;
  logger.info('server.start', {
    summary: `serving ${base} (GET only) on stdio`,
    version: SERVER_INFO.version,
    base,
    // Names only: a base query value may be a tenant id or a token.
    base_query: [...config.baseUrl.searchParams.keys()].join(',') || undefined,
    document: publicSource(config.openapiDoc),
    key: config.apiKey ? (config.apiKeyHeader ?? 'authorization') : 'none',
    max_bytes: config.maxBytes,
    check_max_bytes: config.checkMaxBytes,
    timeout_ms: config.timeoutMs,
    document_ttl_s: config.documentTtlMs / 1000,
    concurrency: config.concurrency,
    queue: QUEUE_SIZE,
    rate_per_min: config.ratePerMinute,
    log_level: config.logLevel,
    audit: config.auditLog ?? 'none',
    worker_memory_mb: workerMemory,
  });
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort(signal));
  const reason = await serve(warmAfterFirstAnswer(createSession(runtime), contract), {
    redact,
    logger,
    stop: stop.signal,
  });
  // A document cache entry being written is finished first (bounded), so the next server on this document reads it.
  await contract.flush?.();
  logger.info('server.stop', { reason, uptime_ms: Math.round(performance.now() - began) });
  // Exit even if a keep-alive socket or timer is still open (MCP stdio shutdown).
  process.exit(0);
}

/**
 * The session, with the check worker started (`warm`: it begins loading the document) once the first message has been
 * answered and its answer written, rather than before: starting the worker (a thread that evaluates this whole module)
 * on the way to `initialize` doubled the time to answer it (issue 20). A first job starts the worker itself anyway.
 * @returns A session that answers as `session` does.
 */
function warmAfterFirstAnswer(session: Session, contract: BodyChecker): Session {
  let warming = false;
  return {
    ...session,
    handle(message, inbound) {
      const answer = session.handle(message, inbound);
      if (!warming) {
        warming = true;
        // After the transport's write of the answer, which runs when `answer` settles, before the next turn.
        void answer.finally(() => setImmediate(() => contract.warm()));
      }
      return answer;
    },
  };
}

// Not in the check worker, which loads this same file in the single-file build (check-worker.ts).
if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
