#!/usr/bin/env node
/**
 * openapi-probe: an MCP server that lets a coding agent GET a real HTTP API, read-only, and checks every
 * response against the API's OpenAPI document. This file is the entry and the map; the territory is `src/`.
 *
 * Layers, top to bottom (an arrow points down only; `tests/layers.test.ts` holds the rules):
 * - this entry: flags and configuration, one process-wide runtime, a transport;
 * - `src/transports/`: stdio lines (`stdio.ts`) and Streamable HTTP (`http.ts`, with its seam to the auth layer in
 *   `src/shared/http-auth.ts`), through the one wire of `src/mcp/wire.ts`;
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
 * from worker-thread.ts; the single-file build carries that side (with the `check` and `doctor` commands) as text, its
 * deferred part, so the main thread compiles only its own (src/runtime/deferred.ts). stdout carries protocol messages
 * only; every log line goes to stderr.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { commandLine } from './src/cli/command-line.ts';
import { readConfig, readWorkerMemory } from './src/runtime/config.ts';
import type { Config } from './src/runtime/config.ts';
import { SERVER_INFO } from './src/runtime/server-info.ts';
import { createLogger, publicSource } from './src/runtime/log.ts';
import { QUEUE_SIZE } from './src/runtime/limits.ts';
import { redactor } from './src/redaction/redaction.ts';
import { createCheckWorker } from './src/jobs/check-worker.ts';
import { createServerRuntime, createSession } from './src/mcp/session.ts';
import type { Session } from './src/mcp/session.ts';
import { serve } from './src/transports/stdio.ts';
import { readHttpSettings, startHttpTransport } from './src/transports/http.ts';
import type { HttpSettings } from './src/transports/http.ts';
import type { HttpCaller } from './src/shared/http-auth.ts';
import { readAuthConfig } from './src/auth/settings.ts';
import type { AuthConfig } from './src/auth/settings.ts';
import { createAuthorizer } from './src/auth/authorizer.ts';
import { loadTenantCredentials, tenantKeys, tenantRedactor, tenantSettings } from './src/auth/tenants.ts';
import type { TenantCredential } from './src/auth/tenants.ts';
import type { ServerRuntime } from './src/mcp/session.ts';
import type { Redactor } from './src/redaction/redaction.ts';
import { trimSlash } from './src/shared/url-path.ts';
import { prepareGet } from './src/api/http-get.ts';

/**
 * Entry point: reads flags (`src/cli/command-line.ts` `commandLine`: `--help`, `--version` and `check` end there) and the
 * configuration, logs `key=value` records to stderr (start-up line with the settings, never a secret),
 * serves stdio, and exits 0 when stdin closes, on SIGINT, SIGTERM or SIGHUP, or when stdin or stdout fails
 * (2 on bad configuration or flags). With `serve --http HOST:PORT` (PROBE_HTTP_LISTEN) it serves Streamable HTTP
 * instead (`src/transports/http.ts`), logs `event=http.listen url=... port=...` once bound, and exits 0 on SIGINT,
 * SIGTERM or SIGHUP (2 when the address cannot be bound).
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
  let http: HttpSettings | undefined;
  let auth: AuthConfig | undefined;
  let tenants: Map<string, TenantCredential> | undefined;
  try {
    config = readConfig(start.env);
    workerMemory = readWorkerMemory(start.env);
    // `serve --http ADDR` or PROBE_HTTP_LISTEN: Streamable HTTP instead of stdio (issue 19).
    if (start.env.PROBE_HTTP_LISTEN?.trim()) {
      http = readHttpSettings(start.env);
      // Identity, entitlement and ownership (src/auth/): only over HTTP; stdio has one user, the one who started it.
      auth = readAuthConfig(start.env);
      if (auth?.tenantKeysFile) tenants = samePrefix(config, loadTenantCredentials(auth.tenantKeysFile));
    }
  } catch (error) {
    process.stderr.write(`openapi-probe: ${(error as Error).message}\n`);
    process.exit(2);
  }
  // A closed stderr must not kill the server through an unhandled 'error' event.
  process.stderr.on('error', () => {});
  const began = performance.now();
  // With tenants, one redactor hides every tenant's key and the server's own, in every answer and log line.
  const redact = tenants ? tenantRedactor(tenants, config.apiKey ? [config.apiKey] : []) : redactor(config.apiKey);
  const logger = createLogger({ level: config.logLevel, redact: redact.text });
  // The document lives in the check worker only, and every step that needs it runs there with a deadline, so
  // ping is answered whatever the API, the agent or the document hold (issue 8). It starts once `initialize` is answered.
  // With tenants, the worker is told every tenant's key, so what it makes is redacted there of every key, once.
  const contract = createCheckWorker(config, {
    logger,
    memoryMb: workerMemory,
    redact,
    ...(tenants ? { keys: tenantKeys(tenants) } : {}),
  });
  // One runtime for the process (gate, rate limit, audit, worker, redactor); the stdio transport carries one session.
  const runtime = createServerRuntime(config, { logger, redact, contract });
  const base = `${config.baseUrl.origin}${trimSlash(config.baseUrl.pathname)}`;
  // The start-up record, once the way to the first answer is clear on stdio (its first write makes stderr's stream).
  let announced = false;
  const announce = () => {
    if (announced) return;
    announced = true;
    logger.info('server.start', {
      summary: `serving ${base} (GET only) on ${http ? 'Streamable HTTP' : 'stdio'}`,
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
    // No document at all is said at start-up too, where the host's log shows it (doctor says the same).
    if (!config.openapiDoc)
      logger.error('document.load.error', {
        reason: `document not loaded, probes go unchecked: OPENAPI_DOC is not set and there is no openapi.json in the working directory ${process.cwd()}; set OPENAPI_DOC to the absolute path or URL of the OpenAPI document`,
      });
  };
  const stop = new AbortController();
  // SIGHUP too: the terminal or the host that started the server went away; it stops as cleanly as on SIGTERM.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort(signal));
  if (http) {
    announce();
    // A server for a team: the worker starts now, so /readyz says ready before the first caller comes.
    contract.warm();
    let transport: Awaited<ReturnType<typeof startHttpTransport>>;
    try {
      transport = await startHttpTransport({
        settings: http,
        runtime,
        ...(auth ? { auth: createAuthorizer({ config: auth, ...(tenants ? { tenants } : {}), logger }) } : {}),
        ...(tenants ? { runtimeFor: tenantRuntimes(config, tenants, runtime, redact) } : {}),
      });
    } catch (error) {
      logger.error('http.listen.error', { reason: (error as Error).message });
      process.exit(2);
    }
    // The bound port on stderr, so a caller that asked for port 0 (tests) can read it.
    logger.info('http.listen', { url: transport.url, port: transport.port });
    const reason = await new Promise<string>((resolve) =>
      stop.signal.addEventListener('abort', () => resolve(String(stop.signal.reason)), { once: true }),
    );
    await transport.close(reason);
    await contract.flush?.();
    logger.info('server.stop', { reason, uptime_ms: Math.round(performance.now() - began) });
    process.exit(0);
  }
  setImmediate(announce);
  const reason = await serve(
    warmAfterFirstAnswer(createSession(runtime), () => {
      contract.warm();
      prepareGet(config.baseUrl);
    }),
    {
      redact,
      logger,
      stop: stop.signal,
    },
  );
  // A document cache entry being written is finished first (bounded), so the next server on this document reads it.
  await contract.flush?.();
  announce();
  logger.info('server.stop', { reason, uptime_ms: Math.round(performance.now() - began) });
  // Exit even if a keep-alive socket or timer is still open (MCP stdio shutdown).
  process.exit(0);
}

/**
 * The tenants, when every one's base URL has the path of `API_BASE_URL`: the check worker matches probed paths to the
 * document's operations under that one prefix, so a tenant under another one would get answers for the wrong path.
 * @throws Error naming the first tenant whose path differs, and both paths.
 */
function samePrefix(config: Config, tenants: Map<string, TenantCredential>): Map<string, TenantCredential> {
  const prefix = trimSlash(config.baseUrl.pathname);
  for (const [name, tenant] of tenants)
    if (trimSlash(tenant.baseUrl.pathname) !== prefix)
      throw new Error(
        `TENANT_KEYS_FILE: tenant ${name}'s baseUrl has the path ${trimSlash(tenant.baseUrl.pathname) || '/'}, API_BASE_URL has ${prefix || '/'}; every tenant's API must be served under API_BASE_URL's path, since the document's operations are matched under one prefix`,
      );
  return tenants;
}

/**
 * Ownership (issue 19): one runtime per tenant of `TENANT_KEYS_FILE`, each with its tenant's base URL and key, sharing
 * the process's gate, rate limit, audit, check worker, logger and `redact` (every tenant's key). A caller is served by
 * its verified tenant's runtime; a caller without a tenant, or with one the file does not name, gets none (the
 * transport answers 403), so no request reaches an upstream with a key that is not its tenant's.
 */
function tenantRuntimes(
  config: Config,
  tenants: ReadonlyMap<string, TenantCredential>,
  shared: ServerRuntime,
  redact: Redactor,
): (caller: HttpCaller | undefined) => ServerRuntime | undefined {
  const runtimes = new Map<string, ServerRuntime>();
  for (const [name, settings] of tenantSettings(config, tenants, redact)) {
    // The process's one audit writer, not a second one on the same file.
    const { auditLog: _shared, ...own } = settings.config;
    runtimes.set(name, {
      ...createServerRuntime(own, {
        logger: shared.logger,
        redact,
        gate: shared.gate,
        rate: shared.rate,
        contract: shared.contract,
        requestId: shared.requestId,
      }),
      ...(shared.audit ? { audit: shared.audit } : {}),
    });
  }
  return (caller) => (caller?.tenant !== undefined ? runtimes.get(caller.tenant) : undefined);
}

/**
 * The session, with `prepare` run (the entry's: the check worker started, which begins loading the document, and the
 * GET's built-in modules loaded) once the way to the tool list is clear: right after the answer to the first request
 * that is not `initialize` has been written (usually `tools/list`), or `WARM_AFTER_INITIALIZE_MS` after
 * `initialize`'s, whichever comes first. Starting a worker blocks this thread for a few ms (it makes the thread's
 * isolate), which the answers on the way to `tools/list` need not wait for (issue 20). A first job starts the worker
 * itself anyway.
 * @returns A session that answers as `session` does.
 */
function warmAfterFirstAnswer(session: Session, prepare: () => void): Session {
  let warming = false;
  let timer: NodeJS.Timeout | undefined;
  const warm = () => {
    if (warming) return;
    warming = true;
    clearTimeout(timer);
    prepare();
  };
  return {
    ...session,
    handle(message, inbound) {
      const answer = session.handle(message, inbound);
      const fields = message as { method?: unknown; id?: unknown } | null;
      // A notification (no id) is answered with nothing and says nothing of what comes next.
      if (!warming && (Array.isArray(message) || (fields !== null && typeof fields === 'object' && 'id' in fields))) {
        const initialize = fields?.method === 'initialize';
        // After the transport's write of the answer, which runs when `answer` settles.
        void answer.finally(() => {
          if (!initialize) setImmediate(warm);
          else timer ??= setTimeout(warm, WARM_AFTER_INITIALIZE_MS);
        });
      }
      return answer;
    },
  };
}

/** How long after answering `initialize` the check worker starts when no other request has come, in ms. */
const WARM_AFTER_INITIALIZE_MS = 25;

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
