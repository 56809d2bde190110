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
  /** Size at which the audit file is rotated (`PROBE_AUDIT_MAX_MB`, default 64), in bytes. */
  auditMaxBytes?: number;
  /** Folder of the document cache (`PROBE_CACHE_DIR`), absolute; absent when it is `off` or no folder can be named. */
  cacheDir?: string;
};

/**
 * The OpenAPI document the server reads: `OPENAPI_DOC` as given (trimmed), else `openapi.json` in `cwd` when that file
 * exists (its absolute path), else `undefined`: without a document probes still work, unchecked.
 */
export function configuredDocument(env: Record<string, string | undefined>, cwd = process.cwd()): string | undefined {
  const given = env.OPENAPI_DOC?.trim() || undefined;
  if (given !== undefined) return given;
  return existsSync(join(cwd, 'openapi.json')) ? join(cwd, 'openapi.json') : undefined;
}

/**
 * Reads the configuration from environment variables: `API_BASE_URL` (required, absolute http(s)
 * URL, may carry a path prefix), `API_KEY`, `API_KEY_HEADER`, `OPENAPI_DOC` (default `openapi.json`
 * in `cwd` when that file exists), `PROBE_MAX_BYTES` (bytes returned to the agent, default 16384,
 * at most 524288), `PROBE_CHECK_MAX_BYTES` (bytes read and checked, default 8388608, at most
 * 67108864, at least `PROBE_MAX_BYTES`), `PROBE_TIMEOUT_MS` (default 15000), `OPENAPI_TTL_S` (default 60),
 * `PROBE_CONCURRENCY` (default 4, 1 to 64), `PROBE_RATE_PER_MIN` (default 60, 1 to 100000), `LOG_LEVEL`
 * (`error`, `info` or `debug`, default `info`), `PROBE_AUDIT_LOG` (a file path, default none), `PROBE_AUDIT_MAX_MB`
 * (default 64), `PROBE_CACHE_DIR` (`readCacheDir`).
 * @throws Error with a message naming the variable and what it must be; a value is shown only when it is too short to
 *   hold a key (`shownSetting`), else described by its shape.
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
    const why = !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw)
      ? ' (it lacks a scheme such as https://)'
      : /\s/.test(raw)
        ? ' (it holds a space)'
        : '';
    throw new Error(
      `API_BASE_URL must be an absolute http(s) URL such as https://api.example.com/v2, got ${shownSetting(raw)}${why}`,
    );
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new Error(`API_BASE_URL must use http or https, got the scheme ${shownSetting(baseUrl.protocol)}`);
  }
  if (baseUrl.username || baseUrl.password) {
    throw new Error('API_BASE_URL must not carry credentials (user:password@host); put the key in API_KEY instead');
  }
  if (baseUrl.hash) throw new Error('API_BASE_URL must not have a #fragment; remove the # and what follows it');
  const header = env.API_KEY_HEADER?.trim() || undefined;
  if (header !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
    throw new Error(headerNameProblem(header));
  }
  const openapiDoc = configuredDocument(env, cwd);
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
 * The document cache's folder from `PROBE_CACHE_DIR`: `off` turns the cache off; unset, empty or `on` names the usual
 * folder, `$XDG_CACHE_HOME/openapi-probe` when that is an absolute path (XDG Base Directory Specification: a relative
 * one is ignored), else `$HOME/.cache/openapi-probe`, else none; any other value is the folder (relative to `cwd`).
 * On since the cache holds the search index alone (issue 20): read back in a tenth of its build's time.
 * @returns `{cacheDir}` with an absolute path, or `{}`.
 */
export function readCacheDir(env: Record<string, string | undefined>, cwd = process.cwd()): Pick<Config, 'cacheDir'> {
  const set = env.PROBE_CACHE_DIR?.trim() || 'on';
  if (set.toLowerCase() === 'off') return {};
  if (set.toLowerCase() !== 'on') return { cacheDir: isAbsolute(set) ? set : join(cwd, set) };
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return { cacheDir: join(xdg, 'openapi-probe') };
  const home = env.HOME?.trim();
  return home && isAbsolute(home) ? { cacheDir: join(home, '.cache', 'openapi-probe') } : {};
}

/** The runtime settings of `readConfig`: concurrency, rate, log level, audit file and its rotation size. */
function readRuntimeConfig(
  env: Record<string, string | undefined>,
): Pick<Config, 'concurrency' | 'ratePerMinute' | 'logLevel' | 'auditLog' | 'auditMaxBytes'> {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${shownSetting(env.LOG_LEVEL ?? '')}`);
  return {
    concurrency: readInteger(env, 'PROBE_CONCURRENCY', 4, 1, 64),
    ratePerMinute: readInteger(env, 'PROBE_RATE_PER_MIN', 60, 1, 100000),
    logLevel: level as LogLevel,
    auditLog: env.PROBE_AUDIT_LOG?.trim() || undefined,
    auditMaxBytes: readInteger(env, 'PROBE_AUDIT_MAX_MB', 64, 1, 65536) * 1024 * 1024,
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

/**
 * The key as fetch will send it: trimmed (RFC 9110, 5.5: no leading or trailing whitespace in a field value).
 * @param name How errors name the value (`API_KEY`, or a tenant's key in `TENANT_KEYS_FILE`).
 * @returns The key, or undefined when `raw` is unset or blank.
 * @throws Error naming `name` (never the key) for a control character, a character outside Latin-1, or fewer than `MIN_KEY_LENGTH` characters.
 */
export function readKey(raw: string | undefined, name = 'API_KEY'): string | undefined {
  const key = raw?.trim();
  if (!key) return undefined;
  // A header value is a byte string without control characters (RFC 9110, 5.5); fetch rejects anything else.
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(key)) {
    throw new Error(
      `${name} holds a control character or a character outside Latin-1, which cannot travel in an HTTP header; check the value (it is not shown here)`,
    );
  }
  // Redaction matches the key wherever it appears; a key this short would match ordinary text as well, so the last
  // pass over each answer could not both hide it and leave the answer readable (issue 18).
  if (key.length < MIN_KEY_LENGTH) {
    throw new Error(
      `${name} is ${key.length} characters long; openapi-probe needs at least ${MIN_KEY_LENGTH} to keep it out of every answer safely (a shorter string matches ordinary text). Use the API's full key; the value is not shown here`,
    );
  }
  return key;
}

/** The shortest API_KEY accepted, in characters: the redactor's last pass matches keys of this length and more. */
export const MIN_KEY_LENGTH = 8;

/**
 * A setting's value as an error text may show it (issue 18: a key pasted into the wrong variable was repeated
 * verbatim): quoted when shorter than `MIN_KEY_LENGTH` characters and free of control characters, since it then
 * cannot hold a key the server accepts; otherwise only its length.
 * @returns `` `verbose` `` or `a value of 24 characters (not shown: it may hold a key)`. Never throws.
 */
export function shownSetting(raw: string): string {
  if ([...raw].length < MIN_KEY_LENGTH && !/[\u0000-\u001f\u007f]/.test(raw)) return `\`${raw}\``;
  return `a value of ${raw.length} characters (not shown: it may hold a key)`;
}

/**
 * Why `API_KEY_HEADER` is not a header name (RFC 9110, 5.1: a token), in a sentence that never repeats the value: a
 * whole header line pasted (`X-Key: <key>`) is told apart from a name with a space or another character a token
 * lacks, and the name before the colon is shown only when it is letters and hyphens (a header name, not a key).
 */
function headerNameProblem(header: string): string {
  const expected = 'API_KEY_HEADER must be an HTTP header name only, such as X-API-Key (RFC 9110, 5.1)';
  const colon = header.indexOf(':');
  if (colon === -1)
    return `${expected}; the value given holds a space, a quote or another character a header name cannot (it is not shown: it may hold a key)`;
  const name = header.slice(0, colon).trim();
  const shown = /^[A-Za-z]+(-[A-Za-z]+)*$/.test(name) && name.length <= 64 ? ` (${name})` : '';
  return `${expected}; the value given looks like a whole header line (name: value, not shown: it may hold a key). Set API_KEY_HEADER to the name before the colon${shown} and API_KEY to the value after it`;
}

/**
 * A whole-number setting from `env[name]`: plain digits, `fallback` when unset or blank.
 * @throws Error naming the variable, the range and the value (`shownSetting`) when it is not a whole number from `min` to `max`.
 */
export function readInteger(
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
    const got = value > max && raw.length >= MIN_KEY_LENGTH ? `a number above ${max}` : shownSetting(raw);
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${got}`);
  }
  return value;
}

/**
 * A slip in how the key was configured that explains a 401 or 403: `unexpanded` when API_KEY is a variable reference
 * (`$NAME`, `${NAME}`) that a host passed on as written, `bearer` when it starts with "Bearer " and the key goes in
 * `Authorization: Bearer <API_KEY>` (no API_KEY_HEADER), so the header says Bearer twice; else undefined.
 */
export function apiKeySlip(config: Pick<Config, 'apiKey' | 'apiKeyHeader'>): 'unexpanded' | 'bearer' | undefined {
  if (!config.apiKey) return undefined;
  if (/^\$\{?[A-Za-z_][A-Za-z0-9_:-]*\}?$/.test(config.apiKey)) return 'unexpanded';
  if (!config.apiKeyHeader && /^bearer\s/i.test(config.apiKey)) return 'bearer';
  return undefined;
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
