/**
 * The configuration, read from the environment once at start-up: the API's base URL and key, the document,
 * the budgets, limits and log settings. Every error names the variable and what it must be, never the key.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { LOG_LEVELS } from './log.ts';
import type { LogLevel } from './log.ts';
/** Upper bound for `PROBE_MAX_BYTES`, in bytes: keeps every stdout line far below the 10 MiB at which real clients drop the connection. */
export const MAX_BODY_BUDGET = 512 * 1024;

/** Default of `PROBE_CHECK_MAX_BYTES`, in bytes: a body up to this size is read whole and checked (issue 6). */
export const DEFAULT_CHECK_BUDGET = 8 * 1024 * 1024;

/** Upper bound for `PROBE_CHECK_MAX_BYTES`, in bytes: per-probe memory stays a few times this. */
export const MAX_CHECK_BUDGET = 64 * 1024 * 1024;

export type Config = {
  /** The API's base URL; its path prefix (such as `/v2`) is kept in every probe. */
  baseUrl: URL;
  apiKey?: string;
  /** Send the key raw in this header instead of `Authorization: Bearer <key>`. */
  apiKeyHeader?: string;
  /** Path or http(s) URL of the OpenAPI document, if any. */
  openapiDoc?: string;
  /** What of the body goes back to the agent, per probe, in bytes of JSON (`PROBE_MAX_BYTES`). */
  maxBytes: number;
  /** How much of the body is read and checked, per probe, in bytes (`PROBE_CHECK_MAX_BYTES`); memory is bounded by it. */
  checkMaxBytes: number;
  /** Time limit per probe (connect, headers and body), in ms. */
  timeoutMs: number;
  /** How long a document fetched from a URL is reused, in ms. */
  documentTtlMs: number;
  /** Tool calls that may run at once (`PROBE_CONCURRENCY`); more wait in a queue of `QUEUE_SIZE`. */
  concurrency: number;
  /** Requests to the API allowed in any 60 s (`PROBE_RATE_PER_MIN`). */
  ratePerMinute: number;
  /** Which log records reach stderr (`LOG_LEVEL`). */
  logLevel: LogLevel;
  /** File that every tool call is appended to as one JSON line (`PROBE_AUDIT_LOG`), if any. */
  auditLog?: string;
  /** Folder of the document cache (`PROBE_CACHE_DIR`), absolute; absent when it is `off` or no folder can be named. */
  cacheDir?: string;
};

/**
 * Reads the configuration from environment variables: `API_BASE_URL` (required, absolute http(s)
 * URL, may carry a path prefix), `API_KEY`, `API_KEY_HEADER`, `OPENAPI_DOC` (default `openapi.json`
 * in `cwd` when that file exists), `PROBE_MAX_BYTES` (bytes returned to the agent, default 16384,
 * at most 524288), `PROBE_CHECK_MAX_BYTES` (bytes read and checked, default 8388608, at most
 * 67108864, at least `PROBE_MAX_BYTES`), `PROBE_TIMEOUT_MS` (default 15000), `OPENAPI_TTL_S` (default 60),
 * `PROBE_CONCURRENCY` (default 4, 1 to 64), `PROBE_RATE_PER_MIN` (default 60, 1 to 100000), `LOG_LEVEL`
 * (`error`, `info` or `debug`, default `info`), `PROBE_AUDIT_LOG` (a file path, default none), `PROBE_CACHE_DIR`
 * (`readCacheDir`).
 * @throws Error with a message naming the variable, the value (never the key) and what it must be.
 */
export function readConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const raw = env.API_BASE_URL?.trim();
  if (!raw)
    throw new Error(
      "API_BASE_URL is not set. Set it to the API's base URL, e.g. API_BASE_URL=https://api.example.com/v2",
    );
  let baseUrl: URL;
  try {
    baseUrl = new URL(raw);
  } catch {
    throw new Error(`API_BASE_URL must be an absolute http(s) URL such as https://api.example.com/v2, got \`${raw}\``);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new Error(`API_BASE_URL must use http or https, got \`${baseUrl.protocol}\` in \`${raw}\``);
  }
  if (baseUrl.username || baseUrl.password) {
    throw new Error('API_BASE_URL must not carry credentials (user:password@host); put the key in API_KEY instead');
  }
  if (baseUrl.hash) throw new Error(`API_BASE_URL must not have a #fragment, got \`${raw}\``);
  const header = env.API_KEY_HEADER?.trim() || undefined;
  if (header !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
    throw new Error(`API_KEY_HEADER must be an HTTP header name such as X-API-Key (RFC 9110, 5.1), got \`${header}\``);
  }
  let openapiDoc = env.OPENAPI_DOC?.trim() || undefined;
  if (openapiDoc === undefined) {
    // Without a document probes still work, unchecked.
    if (existsSync(join(cwd, 'openapi.json'))) openapiDoc = join(cwd, 'openapi.json');
  }
  const maxBytes = readInteger(env, 'PROBE_MAX_BYTES', 16384, 1, MAX_BODY_BUDGET);
  const checkMaxBytes = readInteger(
    env,
    'PROBE_CHECK_MAX_BYTES',
    Math.max(DEFAULT_CHECK_BUDGET, maxBytes),
    1,
    MAX_CHECK_BUDGET,
  );
  if (checkMaxBytes < maxBytes) {
    throw new Error(
      `PROBE_CHECK_MAX_BYTES (${checkMaxBytes}) must be at least PROBE_MAX_BYTES (${maxBytes}): the body is read and checked before a view of it is returned`,
    );
  }
  return {
    baseUrl,
    apiKey: readKey(env.API_KEY),
    apiKeyHeader: header,
    openapiDoc,
    maxBytes,
    checkMaxBytes,
    timeoutMs: readInteger(env, 'PROBE_TIMEOUT_MS', 15000, 1, 600000),
    documentTtlMs: readInteger(env, 'OPENAPI_TTL_S', 60, 0, 86400) * 1000,
    ...readRuntimeConfig(env),
    ...readCacheDir(env, cwd),
  };
}

/**
 * The document cache's folder from `PROBE_CACHE_DIR`: `off` disables the cache; a path (relative to `cwd`) names the
 * folder; unset or empty, `$XDG_CACHE_HOME/openapi-probe` when that is an absolute path (XDG Base Directory
 * Specification: a relative one is ignored), else `$HOME/.cache/openapi-probe`, else no cache.
 * @returns `{cacheDir}` with an absolute path, or `{}`.
 */
export function readCacheDir(env: Record<string, string | undefined>, cwd = process.cwd()): Pick<Config, 'cacheDir'> {
  const set = env.PROBE_CACHE_DIR?.trim();
  if (set?.toLowerCase() === 'off') return {};
  if (set) return { cacheDir: isAbsolute(set) ? set : join(cwd, set) };
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return { cacheDir: join(xdg, 'openapi-probe') };
  const home = env.HOME?.trim();
  return home && isAbsolute(home) ? { cacheDir: join(home, '.cache', 'openapi-probe') } : {};
}

/** The runtime settings of `readConfig`: concurrency, rate, log level, audit file. */
function readRuntimeConfig(
  env: Record<string, string | undefined>,
): Pick<Config, 'concurrency' | 'ratePerMinute' | 'logLevel' | 'auditLog'> {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got \`${env.LOG_LEVEL}\``);
  return {
    concurrency: readInteger(env, 'PROBE_CONCURRENCY', 4, 1, 64),
    ratePerMinute: readInteger(env, 'PROBE_RATE_PER_MIN', 60, 1, 100000),
    logLevel: level as LogLevel,
    auditLog: env.PROBE_AUDIT_LOG?.trim() || undefined,
  };
}

/**
 * Default heap limit of the worker (`resourceLimits.maxOldGenerationSizeMb`, `PROBE_WORKER_MEMORY_MB`), in MiB.
 * Microsoft Graph beta (47 MB) loads, is searched and described within 256 MiB (slowly, collecting often)
 * and within 512 MiB as fast as in 1,024; the rest is room for an 8 MiB body (up to about 170 MiB
 * parsed) and the session's remembered bodies parsed back (32 MiB of estimated memory). A hostile document
 * or body past it ends the worker (the call answered with the reason), not the machine. Raise it with
 * PROBE_CHECK_MAX_BYTES above its default.
 */
export const WORKER_MEMORY_MB = 1024;

/**
 * The check worker's heap limit from `PROBE_WORKER_MEMORY_MB` (MiB, 64 to 65536, default `WORKER_MEMORY_MB`):
 * a document or body that needs more ends the worker (the call answered with the reason), never the machine.
 * @throws Error naming the variable and the value when it is not a whole number in range.
 */
export function readWorkerMemory(env: Record<string, string | undefined>): number {
  return readInteger(env, 'PROBE_WORKER_MEMORY_MB', WORKER_MEMORY_MB, 64, 65536);
}

/** The key as fetch will send it: trimmed (RFC 9110, 5.5: no leading or trailing whitespace in a field value). */
function readKey(raw: string | undefined): string | undefined {
  const key = raw?.trim();
  if (!key) return undefined;
  // A header value is a byte string without control characters (RFC 9110, 5.5); fetch rejects anything else.
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(key)) {
    throw new Error(
      'API_KEY holds a control character or a character outside Latin-1, which cannot travel in an HTTP header; check the value (it is not shown here)',
    );
  }
  // Redaction matches the key wherever it appears; a key this short would match ordinary text as well, so the last
  // pass over each answer could not both hide it and leave the answer readable (issue 18).
  if (key.length < MIN_KEY_LENGTH) {
    throw new Error(
      `API_KEY is ${key.length} characters long; openapi-probe needs at least ${MIN_KEY_LENGTH} to keep it out of every answer safely (a shorter string matches ordinary text). Use the API's full key; the value is not shown here`,
    );
  }
  return key;
}

/** The shortest API_KEY accepted, in characters: the redactor's last pass matches keys of this length and more. */
export const MIN_KEY_LENGTH = 8;

function readInteger(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got \`${raw}\``);
  }
  return value;
}

/**
 * The fix for a document named by a relative path: MCP hosts start servers in a working directory of their own choosing
 * (often `/` or the host's install folder), so `OPENAPI_DOC=openapi.json` is read from there, not from the project.
 * @param source `OPENAPI_DOC` as configured; `cwd` the directory it was resolved against.
 * @returns `. OPENAPI_DOC "x" is relative: read from <cwd> (the host chose it); set an absolute path`, or '' for an
 *   absolute path, a `file:` or http(s) URL, or no document.
 */
export function relativeSourceHint(source: string | undefined, cwd: string): string {
  if (!source || isAbsolute(source) || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(source)) return '';
  return `. OPENAPI_DOC "${source}" is a relative path, read from the working directory ${cwd} (an MCP host starts the server in a directory of its own choosing); set OPENAPI_DOC to an absolute path`;
}
