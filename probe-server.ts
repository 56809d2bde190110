#!/usr/bin/env node
/**
 * openapi-probe: an MCP server (stdio, newline-delimited JSON-RPC 2.0, MCP 2025-11-25) that lets a
 * coding agent GET a real HTTP API, read-only, and checks every response against the API's
 * OpenAPI document.
 *
 * Four layers, top to bottom: logic (configuration, URL building, the probe), the tool table,
 * dispatch (`createHandler`: one JSON-RPC message in, one response or nothing out), and the
 * transport (`serve`: lines on stdin, lines on stdout). stdout carries protocol messages only;
 * every log line goes to stderr.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import type { Readable, Writable } from 'node:stream';
import { check, instancePath } from './validate.ts';
import type { Finding } from './validate.ts';
import { createDocumentSource, readCappedStream } from './src/document/openapi-document.ts';
import { fetchGet, httpGet } from './src/api/http-get.ts';
import { commandLine } from './src/cli/command-line.ts';
import { SEARCH_LIMITS } from './src/contract/search.ts';
import type { DocumentSource } from './src/document/openapi-document.ts';
import { inProcessContract } from './src/jobs/jobs.ts';
import type { ContractService, Destination, JobAnswer, RecordText } from './src/jobs/jobs.ts';
import { MAX_BODY_DEPTH, measureJsonText } from './src/api/body.ts';
import type { MemberSpan } from './src/api/body.ts';
import { redactor, displaySource, NO_REDACTION } from './src/redaction/redaction.ts';
import type { Redactor } from './src/redaction/redaction.ts';
import { parseSelect } from './src/api/body-view.ts';
import { decodeProbe, memoryCost, REMEMBER_MAX_BYTES, structuredTexts, trimSlash } from './src/jobs/pipeline.ts';
import type { ProbeResult, RawResponse, Seen } from './src/jobs/pipeline.ts';
import { createCheckWorker, WORKER_MEMORY_MB } from './src/jobs/check-worker.ts';
import type { Selector } from './src/api/body-view.ts';
import { createGate, createRateLimit, QUEUE_SIZE } from './src/runtime/limits.ts';
import type { Gate, RateLimit } from './src/runtime/limits.ts';
import { canonicalName, MAX_URL_PART, pathProblem, shadowingName } from './src/api/url-policy.ts';
import { createAudit, createLogger, LOG_LEVELS, newRequestId, publicSource, publicUrl, SILENT } from './src/runtime/log.ts';
import type { Logger, LogLevel } from './src/runtime/log.ts';

export { redactor, displaySource, MAX_BODY_DEPTH, memoryCost };
export type { Redactor };

// ───────────────────────────── 1. Logic ─────────────────────────────

/** Server name and version, from `package.json` beside this file when there is one. */
export const SERVER_INFO = readServerInfo();

function readServerInfo(): { name: string; version: string } {
  // Beside the sources, or one folder up from the single-file build in an installed package (dist/).
  for (const where of ['./package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(where, import.meta.url), 'utf8'));
      if (pkg.name === 'openapi-probe' && typeof pkg.version === 'string') return { name: pkg.name, version: pkg.version };
    } catch {
      // Copied as a single file: no package.json beside it.
    }
  }
  return { name: 'openapi-probe', version: '0.1.0' };
}

/** Protocol revisions this server speaks, newest first (MCP 2025-11-25, Lifecycle, Version Negotiation). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

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
};

/**
 * Reads the configuration from environment variables: `API_BASE_URL` (required, absolute http(s)
 * URL, may carry a path prefix), `API_KEY`, `API_KEY_HEADER`, `OPENAPI_DOC` (default `openapi.json`
 * in `cwd` when that file exists), `PROBE_MAX_BYTES` (bytes returned to the agent, default 16384,
 * at most 524288), `PROBE_CHECK_MAX_BYTES` (bytes read and checked, default 8388608, at most
 * 67108864, at least `PROBE_MAX_BYTES`), `PROBE_TIMEOUT_MS` (default 15000), `OPENAPI_TTL_S` (default 60),
 * `PROBE_CONCURRENCY` (default 4, 1 to 64), `PROBE_RATE_PER_MIN` (default 60, 1 to 100000), `LOG_LEVEL`
 * (`error`, `info` or `debug`, default `info`), `PROBE_AUDIT_LOG` (a file path, default none).
 * @throws Error with a message naming the variable, the value (never the key) and what it must be.
 */
export function readConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const raw = env.API_BASE_URL?.trim();
  if (!raw) throw new Error('API_BASE_URL is not set. Set it to the API\'s base URL, e.g. API_BASE_URL=https://api.example.com/v2');
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
  const checkMaxBytes = readInteger(env, 'PROBE_CHECK_MAX_BYTES', Math.max(DEFAULT_CHECK_BUDGET, maxBytes), 1, MAX_CHECK_BUDGET);
  if (checkMaxBytes < maxBytes) {
    throw new Error(`PROBE_CHECK_MAX_BYTES (${checkMaxBytes}) must be at least PROBE_MAX_BYTES (${maxBytes}): the body is read and checked before a view of it is returned`);
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
  };
}

/** The runtime settings of `readConfig`: concurrency, rate, log level, audit file. */
function readRuntimeConfig(env: Record<string, string | undefined>): Pick<Config, 'concurrency' | 'ratePerMinute' | 'logLevel' | 'auditLog'> {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got \`${env.LOG_LEVEL}\``);
  return {
    concurrency: readInteger(env, 'PROBE_CONCURRENCY', 4, 1, 64),
    ratePerMinute: readInteger(env, 'PROBE_RATE_PER_MIN', 60, 1, 100000),
    logLevel: level as LogLevel,
    auditLog: env.PROBE_AUDIT_LOG?.trim() || undefined,
  };
}

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
    throw new Error('API_KEY holds a control character or a character outside Latin-1, which cannot travel in an HTTP header; check the value (it is not shown here)');
  }
  return key;
}

function readInteger(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got \`${raw}\``);
  }
  return value;
}

/** A probe URL, or the reason it is refused. */
export type UrlDecision = { url: URL } | { refusal: string };

/**
 * Builds the URL for a probe by appending `path` to the base URL as text, never by URL reference
 * resolution (which would drop a base prefix such as `/v2`), then checks what the WHATWG URL parser
 * made of it. Refuses, with a reason the agent can act on:
 * - a `path` that is not a non-empty string, or holds a control character, tab, newline, or
 *   leading/trailing space (the parser strips or drops those);
 * - any backslash, raw or percent-encoded (`%5C`, `%5c`): WHATWG URL reads `\` as `/` in http(s);
 * - an absolute URL (a scheme such as `https:` or `http:`), or an authority (`//host`);
 * - a `#` fragment (never sent, so never meant);
 * - what any lenient backend would read as leaving the base path (`pathProblem`, probe-url.ts),
 *   judged on every reading of each segment: percent-decoded 1 to 4 times (`%2e%2e`, `%252e`,
 *   `%25%32%65`), folded by NFKC or look-alikes (`．．`, `․․`, `∕`), with `;parameters` dropped
 *   (`..;x`): a dot segment, a backslash, a `/` that a second decoding or a fold creates, bytes
 *   that are not UTF-8 (overlong, 5/6-byte, surrogate), or encoding deeper than 4 levels;
 * - a query name (in `path`, `query`, or a `;name=` matrix parameter, also split at `;` and
 *   decoded) that a lenient binder reads as one API_BASE_URL's query fixes (`canonicalName`:
 *   `Tenant`, `tenant[]`, `tenant%00`). The fixed pairs are sent first, the agent's after them;
 * - a result whose origin differs from the base, or whose path leaves the base's path prefix
 *   (compared by segment: `/v2-admin` is outside `/v2`).
 * A path without a leading `/` is read as if it had one (`meters/1` is `/meters/1`).
 * @param base The configured base URL.
 * @param path The agent's path, e.g. `/meters/mtr_1?status=active`.
 * @param query Extra query parameters, name to string value, appended in order after the
 *   fixed pairs and the path's own query.
 * @returns `{url}` or `{refusal}`; never throws, never touches the network.
 */
export function buildProbeUrl(base: URL, path: unknown, query?: unknown): UrlDecision {
  if (path === undefined) return { refusal: '`path` is required: the path after the base URL, such as "/meters/mtr_1".' };
  if (typeof path !== 'string') return { refusal: `\`path\` must be a string such as "/meters/mtr_1", got ${describeType(path)}.` };
  if (path === '') return { refusal: '`path` is empty; give the request path after the base URL, such as "/meters/mtr_1".' };
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    return { refusal: `\`path\` ${JSON.stringify(path)} holds a control character (tab, newline or similar); the URL parser would drop or reinterpret it. Remove it, or percent-encode data that needs it.` };
  }
  if (path.length > MAX_URL_PART) return { refusal: `\`path\` is ${path.length} characters long, over the limit of ${MAX_URL_PART}; servers refuse URLs far shorter (414). Ask for less, or page through the resource.` };
  if (path !== path.trim()) return { refusal: `\`path\` ${JSON.stringify(path)} has leading or trailing spaces; remove them.` };
  // The URL parser would silently send U+FFFD instead (WHATWG URL, UTF-8 percent-encode).
  if (hasLoneSurrogate(path)) return { refusal: `\`path\` ${JSON.stringify(path)} holds a lone UTF-16 surrogate, which is not a character and has no UTF-8 form; remove it.` };
  if (path.includes('\\') || /%5c/i.test(path)) {
    return { refusal: `\`path\` ${JSON.stringify(path)} holds a backslash (raw or %5C); URL parsers read it as "/", so it is refused. Use "/" between segments.` };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) {
    return { refusal: `\`path\` ${JSON.stringify(path)} is an absolute URL; give only the path relative to API_BASE_URL (${base.origin}${trimSlash(base.pathname)}), such as "/meters/mtr_1". Other hosts are never probed.` };
  }
  if (path.startsWith('//')) {
    return { refusal: `\`path\` ${JSON.stringify(path)} starts with "//", which names another host; give a path with a single leading "/", such as "/meters/mtr_1".` };
  }
  if (path.includes('#')) return { refusal: `\`path\` ${JSON.stringify(path)} has a #fragment, which is never sent to a server; remove it (percent-encode a literal "#" as %23).` };
  const relative = path.startsWith('/') ? path : `/${path}`;
  const queryStart = relative.indexOf('?');
  const pathname = queryStart === -1 ? relative : relative.slice(0, queryStart);
  if (/%(?:c0|c1)|%e0%[89]|%f0%8/i.test(path)) {
    return { refusal: `\`path\` ${JSON.stringify(path)} holds an overlong UTF-8 percent-encoding (such as %c0%ae for "." or %c0%af for "/"), which lenient decoders read as a dot or slash; it is refused. Percent-encode characters as their shortest UTF-8 bytes.` };
  }
  // The base URL's query (`?tenant=acme`) is part of the configuration: sent first, never shadowed.
  const fixedPairs = base.search.slice(1).split('&').filter(Boolean);
  const rawFixed = new Set(fixedPairs.map((pair) => pair.split('=')[0]!));
  const fixedNames = new Set([...rawFixed].map(canonicalName).filter(Boolean));
  const problem = pathProblem(path, pathname, fixedNames);
  if (problem) return { refusal: problem };
  if (query !== undefined && (query === null || typeof query !== 'object' || Array.isArray(query))) {
    return { refusal: `\`query\` must be an object of name to string value, such as {"status": "active"}, got ${describeType(query)}.` };
  }
  const prefix = trimSlash(base.pathname);
  let url: URL;
  try {
    url = new URL(`${base.origin}${prefix}${relative}`);
  } catch {
    return { refusal: `\`path\` ${JSON.stringify(path)} does not form a valid URL with API_BASE_URL.` };
  }
  // Query text is appended, never re-serialized: the path's own query goes out as the agent wrote it
  // (URLSearchParams would turn `?flag` into `?flag=` and %20 into +).
  const extra: string[] = [];
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { refusal: `\`query.${name}\` must be a string (or number or boolean), got ${describeType(value)}.` };
    }
    if (fixedNames.has(canonicalName(name))) {
      return { refusal: rawFixed.has(name) ? `\`query.${name}\` is fixed by API_BASE_URL and cannot be overridden; leave it out.` : `\`query\` has the parameter ${JSON.stringify(name)}, which servers that ignore case, brackets, encoding or punctuation in names read as "${canonicalName(name)}", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.` };
    }
    // encodeURIComponent throws URIError on a lone surrogate (ECMA-262, Encode); refuse it by name instead.
    if (hasLoneSurrogate(name)) return { refusal: `\`query\` has the parameter name ${JSON.stringify(name)}, which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.` };
    if (typeof value === 'string' && hasLoneSurrogate(value)) {
      return { refusal: `\`query.${name}\` is ${JSON.stringify(value)}, which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.` };
    }
    extra.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  const agentSearch = [url.search.slice(1), ...extra].filter(Boolean).join('&');
  if (agentSearch.length > MAX_URL_PART) return { refusal: `\`query\` and the path's query come to ${agentSearch.length} characters encoded, over the limit of ${MAX_URL_PART}; servers refuse URLs far shorter (414). Send fewer or shorter parameters.` };
  // Names compared on every reading (decoded, case-folded, `[]`/NUL stripped, split at `;` too), so
  // no binder, first-wins or last-wins, case-sensitive or not, sees a second value (issue 8, B4).
  const shadow = shadowingName(agentSearch, fixedNames);
  if (shadow) {
    const where = url.search && shadowingName(url.search.slice(1), fixedNames) ? `\`path\` ${JSON.stringify(path)}` : `\`query\` (sent as ${JSON.stringify(extra.join('&'))})`;
    if (rawFixed.has(shadow.name)) return { refusal: `${where} sets the query parameter "${shadow.name}", which API_BASE_URL fixes; it cannot be overridden. Leave it out.` };
    return { refusal: `${where} sets the query parameter ${JSON.stringify(shadow.name)}, which servers that ignore case, brackets, encoding or punctuation in names, or split pairs at ";", read as "${canonicalName(shadow.name)}", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.` };
  }
  const search = [...fixedPairs, agentSearch].filter(Boolean).join('&');
  if (search) url.search = search;
  const inside = prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
  if (url.origin !== base.origin || url.username || url.password || !inside) {
    return { refusal: `\`path\` ${JSON.stringify(path)} resolves to ${url.origin}${url.pathname}, outside API_BASE_URL (${base.origin}${prefix}); it is refused.` };
  }
  return { url };
}

/** True when `text` holds a high surrogate not followed by a low one, or a low one not after a high one. */
function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}


function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `a ${typeof value}`;
}

export type { ProbeResult };

/** A probe failure the agent can act on (timeout, refused connection, DNS); the message names URL and cause. */
export class ProbeError extends Error {}

/**
 * Sends one GET and reads at most `maxBytes` of the body (plus one network chunk, to know whether
 * it ended), counting decoded bytes as they stream: a chunked, gzip-inflated or endless body costs
 * no more than a few budgets of memory (RFC 9110, 8.4 and 8.6: Content-Length counts bytes on the
 * wire, not decoded ones, so it is never trusted). Redirects are not followed. The body is decoded
 * by `decodeBody` (http-body.ts): charset, JSON always UTF-8, warnings about the JSON text. A body
 * whose content coding breaks while it is read (`Content-Encoding: gzip` over plain bytes) is a
 * result with the status, the content type, `body: null` and a note naming the coding problem: the
 * API answered (RFC 9110, 8.4; case 41).
 * @param url The absolute URL from `buildProbeUrl`.
 * @param options.headers Request headers (the key among them).
 * @param options.timeoutMs Limit for the whole exchange, in ms.
 * @param options.maxBytes Read budget, in bytes (the server passes `PROBE_CHECK_MAX_BYTES`).
 * @param options.cutNote The note of a body cut at the budget; default names `maxBytes`.
 * @param options.redact Applied to values quoted in warnings before they are shortened.
 * @param options.fetch Injected fetch (tests); default the global one.
 * @param options.signal Aborts the probe (MCP cancellation).
 * @throws ProbeError naming the URL and the cause, on timeout, DNS or connection failure before the status line.
 */
export async function probe(
  url: URL,
  options: { headers: Record<string, string>; timeoutMs: number; maxBytes: number; cutNote?: string; redact?: Redactor; fetch?: typeof fetch; signal?: AbortSignal },
): Promise<ProbeResult> {
  return decodeProbe(await fetchResponse(url, options), options);
}

/**
 * The network half of `probe`: sends the GET and reads at most `maxBytes` of the body (plus one
 * chunk), undecoded. Cheap on the thread: no parse, no scan, no check.
 * @returns The response as read (`RawResponse`, probe-pipeline.ts); a body whose reading broke carries `failureNote`.
 * @throws ProbeError as `probe` does.
 */
export async function fetchResponse(
  url: URL,
  options: { headers: Record<string, string>; timeoutMs: number; maxBytes: number; fetch?: typeof fetch; signal?: AbortSignal },
): Promise<RawResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const shown = `${url.origin}${url.pathname}${url.search}`;
  try {
    // node:http, not fetch, unless a test injects one (http-get.ts: fetch's first load held ping 20 to 60 ms).
    const response = await (options.fetch ? fetchGet(options.fetch) : httpGet)(url, { headers: options.headers, signal: controller.signal });
    const { held, bytes, truncated, failure } = await readBodyCapped(response.body, options.maxBytes);
    if (failure && (timedOut || options.signal?.aborted)) throw failure;
    const contentType = response.header('content-type');
    const contentEncoding = response.header('content-encoding');
    const raw: RawResponse = { url: shown, status: response.status, contentType, contentEncoding, bytes, truncated, held };
    const location = response.header('location');
    if (location !== null && response.status >= 300 && response.status < 400) raw.location = location;
    if (failure) {
      const cause = networkCause(failure).replace(/\.$/, '');
      raw.held = new Uint8Array(0);
      raw.failureNote = contentEncoding
        ? `The body could not be decoded: it is labelled Content-Encoding ${contentEncoding}, but decoding failed after ${bytes} byte(s) (${cause}). The API sent a wrong Content-Encoding header or a broken stream; the raw bytes cannot be recovered through the decoder, so the body is not shown or checked.`
        : `The connection broke after ${bytes} byte(s) of the body (${cause}); the status and headers above are what the API sent, the body is not shown or checked.`;
    }
    return raw;
  } catch (error) {
    if (timedOut) throw new ProbeError(`GET ${shown} timed out after ${options.timeoutMs} ms (PROBE_TIMEOUT_MS). The API may be slow or unreachable; try again, or raise PROBE_TIMEOUT_MS.`);
    if (options.signal?.aborted) throw new ProbeError(`GET ${shown} was cancelled.`);
    throw new ProbeError(`GET ${shown} failed: ${networkCause(error).replace(/\.$/, '')}. ${failureAdvice(error)}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Reads at most `maxBytes` (plus one chunk, `readCappedStream`); a cut body is cut again at a character boundary.
 * `held` fills its own ArrayBuffer exactly (not a slice of Node's shared pool or of a longer read), so the check
 * worker can take it by transfer instead of a copy (check-worker.ts).
 */
async function readBodyCapped(body: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<{ held: Uint8Array; bytes: number; truncated: boolean; failure?: unknown }> {
  const { all, ...read } = await readCappedStream(body, maxBytes);
  const held = read.truncated ? cutAtCharBoundary(all, maxBytes) : all;
  return { held: held.byteOffset === 0 && held.byteLength === held.buffer.byteLength ? held : new Uint8Array(held), ...read };
}

/** Cuts a UTF-8 buffer at `limit` bytes without splitting a character. */
function cutAtCharBoundary(buffer: Uint8Array, limit: number): Uint8Array {
  let end = Math.min(limit, buffer.length);
  // Step back over continuation bytes (10xxxxxx) to the start of the character that straddles the cut.
  let start = end;
  while (start > 0 && end - start < 4 && (buffer[start - 1]! & 0xc0) === 0x80) start--;
  if (start > 0 && start < end + 1) {
    const lead = buffer[start - 1]!;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (start - 1 + length > end) end = start - 1;
  }
  return buffer.subarray(0, end);
}

/** Depth of nested arrays and objects, counted without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    // Only containers are pushed: a value of 150,000 leaves costs no pair per leaf (issue 8, F2).
    for (const inner of Object.values(current)) if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
  }
  return deepest;
}

/**
 * The socket's side of a failed GET: fetch (a test's injected one) wraps it as `cause`, node:http (http-get.ts)
 * throws it as it is. `badPort` for the WHATWG bad-port refusal of either.
 */
function socketError(error: unknown): { code?: string; message?: string; badPort: boolean } {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause ?? (error as { code?: string; message?: string } | undefined);
  return { code: cause?.code, message: cause?.message, badPort: (error as Error)?.message === 'bad port' || cause?.message === 'bad port' };
}

function networkCause(error: unknown): string {
  const cause = socketError(error);
  const code = cause.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused (ECONNREFUSED)',
    ENOTFOUND: 'host name not found (DNS, ENOTFOUND)',
    EAI_AGAIN: 'DNS lookup failed for now (EAI_AGAIN)',
    ECONNRESET: 'connection reset by the server (ECONNRESET)',
    EHOSTUNREACH: 'host unreachable (EHOSTUNREACH)',
    ENETUNREACH: 'network unreachable (ENETUNREACH)',
  };
  if (code && known[code]) return known[code];
  if (cause.badPort) {
    return 'the probe will not connect to this port, as fetch would not (WHATWG Fetch, "bad port" list: ports such as 9, 25 and 6000 are blocked)';
  }
  // OpenSSL's texts can hold line breaks ("...:wrong version number:../deps/openssl/..."): one line, and no source paths.
  const message = (cause.message ?? 'network error').replace(/\s+/g, ' ').replace(/:\.\.\/deps\/\S*/g, '').trim();
  if (code) return message.includes(code) ? message : `${message} (${code})`;
  return cause.message !== undefined ? message : (error as Error)?.message ?? String(error);
}

/** Certificate checks Node reports by code (node:tls): the API's certificate is not trusted or does not fit. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_UNTRUSTED',
]);

/**
 * What to do about a GET that failed before the status line, for the probe's error text: the port, the
 * certificate or the scheme when those are the cause, else the base URL and the API's health.
 */
function failureAdvice(error: unknown): string {
  const cause = socketError(error);
  if (cause.badPort) return 'Serve the API on another port.';
  if (CERTIFICATE_CODES.has(cause.code ?? '')) {
    return 'Node does not trust the API\'s certificate: if you do, give the server NODE_EXTRA_CA_CERTS=/path/to/ca.pem in its environment (in an editor, the server entry\'s env).';
  }
  if (/wrong version number|packet length too long|unknown protocol/i.test(cause.message ?? '')) {
    return 'The server did not answer TLS: API_BASE_URL may say https:// for a server that speaks plain http://.';
  }
  return 'Check that API_BASE_URL is right and the API is up.';
}


/**
 * Limits of a session's memory of bodies (issue 8, B10: memory is bounded overall).
 * `maxBytes`: the memory cost of all bodies held, in bytes, as `memoryCost` estimates it; the oldest
 * body goes first past it, and a body costing more is not kept at all. `maxOperations`: operations
 * with bodies kept; the one probed least recently is forgotten past it. `perOperation` and `perPath`:
 * newest bodies kept per operation and concrete paths kept.
 */
export type MemoryLimits = { maxBytes: number; maxOperations: number; perOperation: number; perPath: number };

/** The session memory limits of the server: 32 MiB of estimated body memory, 100 operations, 50 bodies each, 200 paths. */
export const MEMORY_LIMITS: MemoryLimits = { maxBytes: 32 * 1024 * 1024, maxOperations: 100, perOperation: 50, perPath: 200 };

/** What the log holds about one kept body: its cost, the operation list it is in (if any), and how many of the two maps hold it. */
type Held = { cost: number; operationKey?: string; holders: number };

/** A probe in flight, as `ProbeLog` tracks it: where it goes, and a promise settled when it has answered. */
type InFlight = Destination & { done: Promise<void> };

/**
 * Per-session memory of probes, bounded by `MemoryLimits` (newest 50 per operation, 200 concrete
 * paths, 100 operations, 32 MiB of estimated memory across all of them, a body held by both maps
 * counted once); and the probes in flight, so `field_presence` can wait for those of the operation it
 * is asked about (issue 6: a `field_presence` sent in the same burst as a probe must not answer
 * "nothing probed yet"). The server keeps each body as `Seen` (its JSON text, probe-pipeline.ts), so the
 * main thread holds strings, never the parsed graphs; `Entry` is whatever is kept, identified by its `path`.
 */
export class ProbeLog<Entry extends { path: string } = { path: string }> {
  byOperation = new Map<string, Entry[]>();
  byPath = new Map<string, Entry>();
  inFlight = new Set<InFlight>();
  /** Every body either map holds, oldest first. */
  held = new Map<Entry, Held>();
  /** Sum of the `cost` of the bodies in `held`, in bytes. */
  heldBytes = 0;
  /** Bodies of each operation dropped to stay within `maxBytes` or `maxOperations`, so tools can say records are missing. */
  dropped = new Map<string, number>();
  /** Complete JSON 2xx bodies too large to keep (`REMEMBER_MAX_BYTES`): size in bytes by path, the newest `perPath`. */
  tooLargeByPath = new Map<string, number>();
  /** How many such bodies each operation had, for the newest `maxOperations` operations. */
  tooLargeByOperation = new Map<string, number>();
  limits: MemoryLimits;

  constructor(limits: MemoryLimits = MEMORY_LIMITS) {
    this.limits = limits;
  }

  /** Marks probes to these destinations as in flight; call the returned function once they have all settled. */
  begin(destinations: Destination[]): () => void {
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entries = destinations.map((destination) => ({ ...destination, done }));
    for (const entry of entries) this.inFlight.add(entry);
    return () => {
      for (const entry of entries) this.inFlight.delete(entry);
      finish();
    };
  }

  /**
   * Waits until no probe in flight that `concerns` selects is left, probes started meanwhile included.
   * @param concerns Given the probes in flight, says for each whether to wait for it (it may ask the check
   *   worker which operation each one's destination belongs to).
   * @param timeoutMs Upper bound on the wait, in ms.
   * @param signal Stops the wait early (the call was cancelled).
   * @returns How many selected probes are still in flight when it stops: 0, or more after `timeoutMs` or cancellation.
   */
  async settle(concerns: (entries: InFlight[]) => Promise<boolean[]> | boolean[], timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entries = [...this.inFlight];
      const selected = await concerns(entries);
      const waiting = entries.filter((entry, index) => selected[index] && this.inFlight.has(entry));
      const left = deadline - Date.now();
      if (waiting.length === 0 || left <= 0 || signal?.aborted) return waiting.length;
      let timer: NodeJS.Timeout | undefined;
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
        timer = setTimeout(resolve, left);
        signal?.addEventListener('abort', stop, { once: true });
      });
      await Promise.race([Promise.all(waiting.map((entry) => entry.done)), stopped]);
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Keeps a body, newest last, then drops what the limits no longer allow: the oldest body of its
   * operation or the oldest path past `perOperation`/`perPath`, the least recently probed operation past
   * `maxOperations`, and the oldest bodies anywhere until the total cost is within `maxBytes`.
   * @param operationKey The operation the body belongs to, or undefined when none matched (kept by path only).
   * @param cost The body's `memoryCost`, in bytes; a body costing more than `maxBytes` is not kept.
   * @returns Whether the body was kept.
   */
  add(operationKey: string | undefined, seen: Entry, cost: number): boolean {
    if (cost > this.limits.maxBytes) return false;
    this.held.set(seen, { cost, operationKey, holders: operationKey ? 2 : 1 });
    this.heldBytes += cost;
    if (operationKey) {
      const list = this.byOperation.get(operationKey) ?? [];
      this.byOperation.delete(operationKey); // re-inserted last: the most recently probed operation
      this.byOperation.set(operationKey, list);
      // One record per path: probing the same path again replaces its body, so presence counts records, not probes.
      const again = list.findIndex((entry) => entry.path === seen.path);
      if (again >= 0) this.release(list.splice(again, 1)[0]!);
      list.push(seen);
      if (list.length > this.limits.perOperation) this.release(list.shift()!);
      while (this.byOperation.size > this.limits.maxOperations) {
        const [oldest, bodies] = this.byOperation.entries().next().value!;
        this.byOperation.delete(oldest);
        this.dropped.set(oldest, (this.dropped.get(oldest) ?? 0) + bodies.length);
        for (const body of bodies) this.release(body);
      }
    }
    this.tooLargeByPath.delete(seen.path);
    const previous = this.byPath.get(seen.path);
    this.byPath.delete(seen.path);
    if (previous) this.release(previous);
    this.byPath.set(seen.path, seen);
    if (this.byPath.size > this.limits.perPath) {
      const oldest = this.byPath.values().next().value!;
      this.byPath.delete(oldest.path);
      this.release(oldest);
    }
    while (this.heldBytes > this.limits.maxBytes) this.evict(this.held.keys().next().value!);
    return true;
  }

  /**
   * Notes a complete JSON 2xx body that was not kept because it was too large, so `compare_fixture` and
   * `field_presence` can give that reason. Bounded like the bodies: `perPath` paths, `maxOperations` operations.
   */
  addTooLarge(operationKey: string | undefined, path: string, bytes: number): void {
    this.tooLargeByPath.delete(path);
    this.tooLargeByPath.set(path, bytes);
    if (this.tooLargeByPath.size > this.limits.perPath) this.tooLargeByPath.delete(this.tooLargeByPath.keys().next().value!);
    if (operationKey === undefined) return;
    const count = (this.tooLargeByOperation.get(operationKey) ?? 0) + 1;
    this.tooLargeByOperation.delete(operationKey);
    this.tooLargeByOperation.set(operationKey, count);
    if (this.tooLargeByOperation.size > this.limits.maxOperations) this.tooLargeByOperation.delete(this.tooLargeByOperation.keys().next().value!);
  }

  /** One of the maps let go of `seen`: forgets it once neither holds it. */
  private release(seen: Entry): void {
    const held = this.held.get(seen);
    if (!held) return;
    held.holders--;
    if (held.holders > 0) return;
    this.held.delete(seen);
    this.heldBytes -= held.cost;
  }

  /** Takes `seen` out of both maps (its operation's list and its path), counting it as dropped for its operation. */
  private evict(seen: Entry): void {
    const held = this.held.get(seen)!;
    const key = held.operationKey;
    const list = key === undefined ? undefined : this.byOperation.get(key);
    const index = list ? list.indexOf(seen) : -1;
    if (list && index >= 0) {
      list.splice(index, 1);
      if (list.length === 0) this.byOperation.delete(key!);
      this.dropped.set(key!, (this.dropped.get(key!) ?? 0) + 1);
      this.release(seen);
    }
    if (this.byPath.get(seen.path) === seen) {
      this.byPath.delete(seen.path);
      this.release(seen);
    }
    // Not in either map any more (already released by both): make sure the books balance.
    if (this.held.has(seen)) {
      this.held.delete(seen);
      this.heldBytes -= held.cost;
    }
  }
}

// ───────────────────────────── 2. Tool table ─────────────────────────────

/** What a tool handler returns: an MCP CallToolResult (MCP 2025-11-25, Tools). */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** What a tool that sends a request records for the audit line: the method and the URL sent (shown without secrets there). */
type Trace = { method?: string; url?: URL };

type ToolContext = {
  config: Config;
  redact: Redactor;
  log: ProbeLog<Seen>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** The tool call's request id, sent as `X-Request-Id`. */
  requestId?: string;
  /** Counts each request sent to the API (`PROBE_RATE_PER_MIN`). */
  rate?: RateLimit;
  /** Filled by tools that send a request: method and URL, for the audit file (which shows the URL without secrets). */
  trace?: Trace;
  /** Runs every step that needs the document: in the check worker (check-worker.ts) or on this thread (contract-jobs.ts). */
  contract: ContractService;
};

type Tool = {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Record<string, unknown>;
  handler: (args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;
};

/**
 * A tool result of `structured`, its text block the JSON text of `structured`: the one the probe pipeline made
 * (`structuredTexts`, probe-pipeline.ts), else made here and registered, so `withRequestId` recognises that block
 * and the transport writes the structured content as that text (`serializeMessage`), without serializing a result
 * (up to PROBE_MAX_BYTES of body) once more. `structured` is never changed afterwards.
 */
function result(structured: Record<string, unknown>, isError = false): ToolResult {
  let text = structuredTexts.get(structured);
  if (text === undefined) {
    text = JSON.stringify(structured);
    structuredTexts.set(structured, text);
  }
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

async function probeTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const decision = buildProbeUrl(context.config.baseUrl, args.path, args.query);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  const selector = args.select === undefined ? undefined : typeof args.select === 'string' ? parseSelect(args.select) : { problem: `\`select\` must be a string such as "$.items[0]" or "/items/0", got ${describeType(args.select)}.` };
  if (selector && 'problem' in selector) return failure(`Refused, nothing was sent: ${selector.problem}`);
  // Marked in flight before the first await, so a field_presence handled right after this call waits for it.
  const finish = context.log.begin([destinationOf(decision.url, context.config)]);
  try {
    return await sendProbe(decision, context, selector);
  } finally {
    finish();
  }
}

/** Where a probe URL goes, as `ProbeLog` tracks it. */
function destinationOf(url: URL, config: Config): Destination {
  return { requestPath: url.pathname, relativePath: url.pathname.slice(trimSlash(config.baseUrl.pathname).length) || '/' };
}

/**
 * The request headers of every probe: `Accept` preferring JSON, `User-Agent` naming this server, and
 * the key as `Authorization: Bearer <key>` or raw in `API_KEY_HEADER` (RFC 9110, 11.6.2), and the call's
 * request id as `X-Request-Id` when there is one.
 * @returns Header name to value; holds the key, so never log it.
 */
export function probeHeaders(config: Config, requestId?: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', 'user-agent': `${SERVER_INFO.name}/${SERVER_INFO.version}` };
  // One id per tool call, so the API's own logs can be joined with ours (issue 8, Traces).
  if (requestId) headers['x-request-id'] = requestId;
  if (config.apiKey) {
    if (config.apiKeyHeader) headers[config.apiKeyHeader] = config.apiKey;
    else headers.authorization = `Bearer ${config.apiKey}`;
  }
  return headers;
}

/**
 * The probe behind the `probe` tool (and `probe_sample`, one URL after another), once the URL is
 * accepted: sends the GET and reads the bytes here (`fetchResponse`), then runs the body pipeline
 * (probe-pipeline.ts `checkProbe`: decode, redact, view, judge against the document) in the check
 * worker when `context.checker` is set (check-worker.ts; a body past its budget comes back unchecked
 * with a note), else on this thread; remembers a complete JSON 2xx body. Returns the tool result:
 * isError for a network failure or an HTTP status >= 400.
 */
async function sendProbe(decision: { url: URL }, context: ToolContext, selector?: Exclude<Selector, { problem: string }>): Promise<ToolResult> {
  const { config } = context;
  const limited = context.rate?.take();
  if (limited) return failure(limited);
  // Traced only once a request will be sent: a call refused by the rate limit sent nothing (audit: method and url null).
  if (context.trace) Object.assign(context.trace, { method: 'GET', url: decision.url });
  const headers = probeHeaders(config, context.requestId);
  let raw: RawResponse;
  try {
    raw = await fetchResponse(decision.url, { headers, timeoutMs: config.timeoutMs, maxBytes: config.checkMaxBytes, fetch: context.fetch, signal: context.signal });
  } catch (error) {
    if (error instanceof ProbeError) return failure(error.message);
    throw error;
  }
  // Decode, redact, view and judge: in the check worker (the server's main) or on this thread (tests); the first
  // probe waits for the worker, which started loading the document at start-up.
  const request = { url: decision.url.href, ...(selector ? { selector } : {}) };
  // The body's bytes are not read here again: the worker takes them without a copy.
  const checked = await context.contract.check(raw, request, { move: true });
  // Kept as the JSON text the pipeline made, accounted by the memory cost it measured there.
  if (checked.remember) context.log.add(checked.remember.operationKey, checked.remember.seen, checked.remember.seen.cost);
  if (checked.tooLarge) context.log.addTooLarge(checked.tooLarge.operationKey, checked.tooLarge.path, checked.tooLarge.bytes);
  // Its text block is the text the pipeline made of the structured content (the body serialized once, in the worker).
  return result(checked.structured, checked.isError);
}

/** The answer of a job as a tool result. */
function answered(answer: JobAnswer): ToolResult {
  if ('failure' in answer && answer.invalidJson) throw new RpcError(ERROR_CODES.parseError, `Parse error: ${answer.failure}`);
  return 'failure' in answer ? failure(answer.failure) : result(answer.structured, answer.isError);
}

/** Remembered bodies as the jobs take them: path, status and JSON text. */
function recordTexts(seen: Seen[]): RecordText[] {
  return seen.map((entry) => ({ path: entry.path, status: entry.status, text: entry.text }));
}

/**
 * Waits for the probes in flight that belong to the operation `key` (sent in the same burst, or by
 * probe_sample), asking the check worker which operation each destination belongs to, once per probe.
 * @returns How many are still running after `PROBE_TIMEOUT_MS` (or cancellation).
 */
function settleOperation(key: string, context: ToolContext): Promise<number> {
  const known = new WeakMap<object, string | null>();
  return context.log.settle(async (entries) => {
    const unknown = entries.filter((entry) => !known.has(entry));
    if (unknown.length) {
      const keys = await context.contract.run('operationKeys', { destinations: unknown.map(({ requestPath, relativePath }) => ({ requestPath, relativePath })) });
      unknown.forEach((entry, index) => known.set(entry, keys[index] ?? null));
    }
    return entries.map((entry) => known.get(entry) === key);
  }, context.config.timeoutMs, context.signal);
}

async function fieldPresenceTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const resolved = await context.contract.run('resolve', { tool: 'field_presence', operation: String(args.operation) });
  if ('failure' in resolved) return failure(resolved.failure);
  const { key, summary } = resolved;
  // Probes of this operation still in flight (sent in the same burst, or by probe_sample) count: wait for them.
  const unfinished = await settleOperation(key, context);
  const stillRunning = unfinished ? `${unfinished} probe(s) of ${key} still running after ${context.config.timeoutMs} ms (PROBE_TIMEOUT_MS) are not counted.` : undefined;
  const seen = context.log.byOperation.get(key) ?? [];
  if (seen.length === 0) {
    const tooLarge = context.log.tooLargeByOperation.get(key);
    if (tooLarge) {
      return failure(`${tooLarge === 1 ? '1 complete JSON 2xx response' : `${tooLarge} complete JSON 2xx responses`} of ${key} ${tooLarge === 1 ? 'was' : 'were'} probed but not kept: each was over the ${REMEMBER_MAX_BYTES} bytes a session keeps per body. Probe smaller records (a page size or filter parameter), or call probe_sample with their paths, which compares the records it probes itself.`);
    }
    return failure(`No complete JSON 2xx response of ${key} has been probed in this session. ${stillRunning ? `${stillRunning} ` : ''}Probe it first (several records, e.g. different ids), or call probe_sample with their paths.`);
  }
  const analyzed = await context.contract.run('analyze', { tool: 'field_presence', key, records: recordTexts(seen) });
  if ('failure' in analyzed) return failure(analyzed.failure);
  const { probes, ...analysis } = analyzed.structured as { probes: string[] } & Record<string, unknown>;
  const dropped = context.log.dropped.get(key);
  const forgotten = dropped ? `${dropped} earlier record(s) of ${key} were dropped from session memory to keep it within ${context.log.limits.maxBytes} bytes and ${context.log.limits.maxOperations} operations; these ${probes.length} are counted.` : undefined;
  const note = [stillRunning, forgotten].filter(Boolean).join(' ');
  return result({ operation: summary, probes, ...analysis, ...(note ? { note } : {}) });
}

/** One probe of a `probe_sample` call as the result lists it: the body left out, the verdict kept. */
type SampleProbe = { path: string; status?: number; bytes?: number; validated?: boolean; matchesContract?: boolean; findings?: Finding[]; note?: string; error?: string };

async function probeSampleTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const paths = args.paths as string[];
  const urls: URL[] = [];
  for (const [index, path] of paths.entries()) {
    const decision = buildProbeUrl(context.config.baseUrl, path, args.query);
    // The refusal names `path`; here the argument is an element of `paths`.
    if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal.replace(/^`path`/, `\`paths[${index}]\``)}`);
    urls.push(decision.url);
  }
  // In flight from before the first await, so a field_presence in the same burst waits for the whole sample.
  const finish = context.log.begin(urls.map((url) => destinationOf(url, context.config)));
  try {
    return await sampleOperation(paths, urls, context);
  } finally {
    finish();
  }
}

/** `probe_sample` once every URL is accepted: one operation for all, then the probes one after another, then the analysis. */
async function sampleOperation(paths: string[], urls: URL[], context: ToolContext): Promise<ToolResult> {
  const matched = await context.contract.run('matchSample', { paths, destinations: urls.map((url) => destinationOf(url, context.config)) });
  if ('failure' in matched) return failure(matched.failure);
  const probes: SampleProbe[] = [];
  const records: RecordText[] = [];
  const skipped: string[] = [];
  for (const url of urls) {
    if (context.signal?.aborted) break;
    const probed = await sendProbe({ url }, context);
    const structured = probed.structuredContent;
    const path = destinationOf(url, context.config).relativePath + url.search;
    if (!structured) {
      probes.push({ path, error: probed.content[0]!.text });
      skipped.push(`${path} (no response)`);
      continue;
    }
    const entry: SampleProbe = { path, status: structured.status as number, bytes: structured.bytes as number };
    for (const name of ['validated', 'matchesContract', 'findings', 'note'] as const) {
      if (structured[name] !== undefined) Object.assign(entry, { [name]: structured[name] });
    }
    if (typeof structured.validationNote === 'string') entry.note = [entry.note, structured.validationNote].filter(Boolean).join(' ');
    probes.push(entry);
    const status = structured.status as number;
    const body = structured.body;
    // The body shown (at most PROBE_MAX_BYTES of JSON) goes to the analysis as text.
    if (!structured.truncated && status >= 200 && status < 300 && body !== null && typeof body === 'object') records.push({ path, status, text: JSON.stringify(body) });
    else skipped.push(`${path} (status ${status}${structured.truncated ? ', cut at PROBE_MAX_BYTES' : ''})`);
  }
  const summary = matched.summary;
  if (records.length === 0) {
    return result({ operation: summary, probes, note: `None of the ${probes.length} probes returned a complete JSON 2xx body, so there is nothing to compare. Check the paths (ids of existing records) and each probe's status or error.` }, true);
  }
  const analyzed = await context.contract.run('analyze', { tool: 'probe_sample', key: matched.key, records });
  if ('failure' in analyzed) return failure(analyzed.failure);
  const { probes: compared, ...analysis } = analyzed.structured as { probes: string[] } & Record<string, unknown>;
  return result({
    operation: summary,
    probes,
    ...analysis,
    ...(skipped.length ? { note: `${compared.length} of ${probes.length} probes returned a complete JSON 2xx body and are compared; not compared: ${skipped.join(', ')}.` } : {}),
  });
}

async function compareFixtureTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (!('fixture' in args) || args.fixture === undefined) {
    return failure('`fixture` is required: the saved JSON body of the same record (an object or array as it was recorded).');
  }
  const fixture = args.fixture;
  // A fixture given as a string of JSON text is parsed and measured in the check worker, never here: a 2 MB string
  // of nested arrays held ping 347 ms (attack round 5, B3).
  const fixtureString = typeof fixture === 'string';
  const held = fixtureString ? undefined : heldArgument(args, 'fixture');
  if (!fixtureString && (held ? held.depth : nestingDepth(fixture)) > MAX_BODY_DEPTH) return failure(`\`fixture\` nests deeper than ${MAX_BODY_DEPTH} levels; compare a smaller part of the record.`);
  const decision = buildProbeUrl(context.config.baseUrl, args.path);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  const relativePath = (decision.url.pathname.slice(trimSlash(context.config.baseUrl.pathname).length) || '/') + decision.url.search;
  let seen = context.log.byPath.get(relativePath);
  let probedNow = false;
  if (!seen) {
    const probed = await probeTool({ path: args.path }, context);
    // A refusal or a network failure is the probe's own answer; an HTTP error status falls through to the message below.
    if (probed.isError && !probed.structuredContent) return probed;
    seen = context.log.byPath.get(relativePath);
    probedNow = true;
    const tooLarge = context.log.tooLargeByPath.get(relativePath);
    if (!seen && tooLarge !== undefined) {
      return failure(`GET ${relativePath} returned a complete JSON 2xx body of ${tooLarge} bytes, over the ${REMEMBER_MAX_BYTES} bytes a session keeps per body, so it cannot be compared. Compare a smaller record (a page size or filter parameter).`);
    }
    if (!seen) return failure(`GET ${relativePath} did not return a complete JSON 2xx body, so there is nothing to compare: ${probed.content[0]!.text.slice(0, 500)}`);
  }
  // The comparison runs in the check worker with the remembered JSON text (at most 1 MiB, or PROBE_MAX_BYTES when larger),
  // under its deadline, its lists capped (issue 8, F2): nothing of it holds this thread.
  // Both sides go as JSON text: a string crosses to the worker as one copy, far cheaper than cloning a large object.
  const fixtureText = fixtureString ? fixture : held?.text ?? JSON.stringify(fixture);
  const compared = await context.contract.run('compare', { fixtureText, text: seen.text, ...(fixtureString ? { fixtureString } : {}) });
  if ('failure' in compared) return answered(compared);
  return result({ path: relativePath, live: { at: seen.at, probedNow }, ...compared.structured }, compared.isError);
}

async function describeOperationTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.operation !== 'string' || !args.operation.trim()) {
    return failure('`operation` must be a string: an operationId ("getMeter"), "PATCH /meters/{meterId}", or a concrete path ("/meters/mtr_1").');
  }
  if (args.as !== undefined && args.as !== 'text' && args.as !== 'typescript') return failure('`as` must be "text" (default) or "typescript".');
  if (args.part !== undefined && args.part !== 'request' && args.part !== 'responses') return failure('`part` must be "request" or "responses".');
  if (args.status !== undefined && (typeof args.status !== 'string' || !/^([1-5][0-9][0-9]|[1-5]XX|default)$/i.test(args.status))) {
    return failure('`status` must be a responses key as a string: "200", "4XX" or "default".');
  }
  if (args.depth !== undefined && (typeof args.depth !== 'number' || !Number.isInteger(args.depth) || args.depth < 0 || args.depth > 10)) {
    return failure('`depth` must be a whole number from 0 to 10: how many $ref levels to expand (default 3).');
  }
  const options = { operation: args.operation, as: args.as as 'text' | 'typescript' | undefined, part: args.part as 'request' | 'responses' | undefined, status: args.status === undefined ? undefined : (args.status as string).toUpperCase().replace('DEFAULT', 'default'), depth: args.depth as number | undefined };
  if (args.as !== 'typescript') return answered(await context.contract.run('describe', options));
  // As TypeScript, the bodies remembered for the operation go along (as text) to show undocumented fields.
  const resolved = await context.contract.run('resolve', { tool: 'describe_operation', operation: args.operation });
  if ('failure' in resolved) return failure(resolved.failure);
  return answered(await context.contract.run('describe', { ...options, records: recordTexts(context.log.byOperation.get(resolved.key) ?? []) }));
}

async function draftRequestTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.method !== 'string' || !/^[A-Za-z]{3,7}$/.test(args.method)) return failure('`method` must be an HTTP method such as "POST", "PATCH" or "DELETE".');
  const decision = buildProbeUrl(context.config.baseUrl, args.path, args.query);
  if ('refusal' in decision) return failure(`Not drafted: ${decision.refusal}`);
  const headers: Record<string, string> = {};
  if (args.headers !== undefined) {
    if (args.headers === null || typeof args.headers !== 'object' || Array.isArray(args.headers)) return failure('`headers` must be an object of header name to string value, such as {"If-Match": "W/\"1\""}.');
    for (const [name, value] of Object.entries(args.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return failure(`\`headers\` has \`${name.slice(0, 80)}\`, which is not an HTTP header name (RFC 9110, 5.1).`);
      if (typeof value !== 'string' || /[\u0000-\u001f\u007f]/.test(value)) return failure(`\`headers.${name}\` must be a string without control characters or newlines.`);
      headers[name] = value;
    }
  }
  const held = heldArgument(args, 'body');
  if (args.body !== undefined && (held ? held.depth : nestingDepth(args.body)) > MAX_BODY_DEPTH) return failure(`\`body\` nests deeper than ${MAX_BODY_DEPTH} levels.`);
  // The body goes as JSON text, as compare_fixture's fixture does: one string copy to the worker.
  return answered(await context.contract.run('draft', { method: args.method, url: decision.url.href, headers, ...(args.body !== undefined ? { bodyText: held?.text ?? JSON.stringify(args.body) } : {}) }));
}

async function findOperationTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.query !== 'string' || !args.query.trim()) {
    return failure('`query` must be a non-empty string: an intent ("list the stargazers of a repo"), a path or URL, an operationId, or a docs URL or anchor.');
  }
  if (args.method !== undefined && (typeof args.method !== 'string' || !/^(get|put|post|delete|options|head|patch|trace)$/i.test(args.method))) {
    return failure(`\`method\` must be an HTTP method such as "GET" or "POST", got ${JSON.stringify(args.method)}.`);
  }
  // The dispatch has already checked `limit` against the inputSchema (an integer from 1 to maxLimit).
  const limit = (args.limit as number | undefined) ?? SEARCH_LIMITS.defaultLimit;
  return answered(await context.contract.run('find', { query: args.query, ...(args.method !== undefined ? { method: args.method as string } : {}), limit }));
}

/** Most query parameters a call may name (`query` of probe, probe_sample and draft_request). */
export const MAX_QUERY_PARAMETERS = 100;

/** Longest `select` of a probe, in characters: an instance path or JSON Pointer into one body. */
export const MAX_SELECT = 1024;

/** Most headers a draft may carry, and the longest value of one, in characters (draft_request `headers`). */
export const MAX_HEADERS = 64;
export const MAX_HEADER_VALUE = 8192;

/** The tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [
  {
    name: 'probe',
    title: 'Probe the API (read-only GET)',
    description:
      'One GET to the API (the only method; the key is added, never shown). Returns status, content type, bytes and the body ' +
      '(a large one as a view cut to fit; `select` returns one part). With a document, `findings` lists where the whole body ' +
      'breaks the operation\'s schema (missing, wrong type, enum, undocumented) at instance paths like $.items[0].id. A field ' +
      'absent in one record may be optional: compare records with probe_sample.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path after the base URL, e.g. "/meters/mtr_1" or "/meters?status=active".' },
        query: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, maxProperties: MAX_QUERY_PARAMETERS, description: 'Query parameters, e.g. {"limit": 5}.' },
        select: { type: 'string', maxLength: MAX_SELECT, description: 'Part of the JSON body to return: "$.items[0]" or "/items/0".' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        status: { type: 'integer' },
        bytes: { type: 'integer' },
        findings: { type: 'array' },
        matchesContract: { type: 'boolean' },
      },
      required: ['url', 'status', 'contentType', 'bytes', 'truncated', 'body'],
    },
    // destructiveHint and idempotentHint only mean something when readOnlyHint is false (MCP 2025-11-25, ToolAnnotations).
    annotations: { readOnlyHint: true, openWorldHint: true },
    handler: probeTool,
  },
  {
    name: 'field_presence',
    title: 'Optional fields across probes',
    description:
      'Sends nothing. For an operation probed this session: each field\'s presence ("present in 2 of 3"), whether the document ' +
      'requires it, undocumented fields, and what a shape inferred from the first probe gets wrong.',
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', minLength: 1, description: 'operationId, "GET /meters/{meterId}" or a path probed' },
      },
      required: ['operation'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: fieldPresenceTool,
  },
  {
    name: 'compare_fixture',
    title: 'Compare a saved fixture with the live record',
    description:
      'Compares a saved body (a fixture) with the live record of the same path: fields only live, only in the fixture, and ' +
      'changed values. Uses this session\'s newest probe of that path, or probes it now.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'after the base URL' },
        fixture: { description: 'the saved JSON body' },
      },
      required: ['path', 'fixture'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    handler: compareFixtureTool,
  },
  {
    name: 'probe_sample',
    title: 'Sample records of one operation',
    description:
      'Probes 2-10 records of ONE GET operation in turn, as probe does: per probe status and findings (no bodies), each ' +
      'field\'s presence and whether it is required, undocumented fields, and what a shape inferred from the first gets wrong.',
    inputSchema: {
      type: 'object',
      properties: {
        paths: {
          type: 'array',
          items: { type: 'string' },
          minItems: 2,
          maxItems: 10,
          uniqueItems: true,
          description: 'e.g. ["/meters/mtr_1", "/meters/mtr_2"]',
        },
        query: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, maxProperties: MAX_QUERY_PARAMETERS, description: 'added to every path' },
      },
      required: ['paths'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { operation: { type: 'object' }, probes: { type: 'array' } },
      required: ['operation', 'probes'],
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    handler: probeSampleTool,
  },
  {
    name: 'describe_operation',
    title: 'Read one operation\'s contract',
    description:
      'An operation\'s contract from the document: parameters, body and response schemas by status ($refs expanded to `depth`). ' +
      'as: "typescript" gives the response type (part: "request": the body type) for a client. At most 20,000 characters.',
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', description: 'operationId, "PATCH /a/{id}" or a path' },
        as: { enum: ['text', 'typescript'] },
        part: { enum: ['request', 'responses'] },
        status: { type: 'string' },
        depth: { type: 'integer', minimum: 0, maximum: 10 },
      },
      required: ['operation'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { operation: { type: 'object' }, typescript: { type: 'string' }, cut: { type: 'string' } }, required: ['operation'] },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: describeOperationTool,
  },
  {
    name: 'draft_request',
    title: 'Check a request without sending it',
    description:
      'Checks a request of any method against the contract without sending it: parameters, body fields ("did you mean", readOnly). ' +
      'Returns problems and the request as curl, the key as $API_KEY, for a person to run.',
    inputSchema: {
      type: 'object',
      properties: {
        method: { type: 'string' },
        path: { type: 'string', description: 'after the base URL' },
        query: { type: 'object', maxProperties: MAX_QUERY_PARAMETERS },
        headers: { type: 'object', additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE }, maxProperties: MAX_HEADERS },
        body: {},
      },
      required: ['method', 'path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { matchesContract: { type: 'boolean' }, problems: { type: 'array' }, request: { type: 'object' } },
      required: ['matchesContract', 'problems', 'request'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: draftRequestTool,
  },
  {
    name: 'find_operation',
    title: 'Find operations',
    description: 'Finds operations for an intent, path, URL, operationId or docs anchor; each hit says why and how sure, a miss suggests. Sends nothing.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        method: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMITS.maxLimit, default: SEARCH_LIMITS.defaultLimit },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { hits: { type: 'array' }, suggestions: { type: 'array' } },
      required: ['query', 'kind', 'hits', 'suggestions'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: findOperationTool,
  },
];

const INSTRUCTIONS =
  'openapi-probe lets you look at a real HTTP API while you write a client for it, without changing anything. ' +
  'Find the operation behind an intent, path or operationId with `find_operation`, and read its contract with ' +
  '`describe_operation` (as: "typescript" gives the type to paste; required fields as the document says, not as one example shows). ' +
  'Use `probe` to GET a path (relative to the configured base URL; GET is the only method, the API key is added for you and never shown). ' +
  'Each response is checked against the OpenAPI document: trust `findings` over a single example. A field absent in one record may be ' +
  'optional: probe several records with `probe_sample` (or `probe` each, then `field_presence`) before making any field required. ' +
  'Fields marked undocumented are not in the contract: do not rely on them. `compare_fixture` shows how a saved test fixture differs ' +
  'from the live record. Writes are never sent: check them with `draft_request`, which returns a curl command for a person to run.';

// ───────────────────────────── 3. Dispatch ─────────────────────────────

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0, 5.1; MCP 2025-11-25 schema.ts). */
export const ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

type RequestId = string | number;
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

function errorResponse(id: RequestId | null, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Revision-dependent fields to leave out (MCP Lifecycle: respect the negotiated version). */
function olderThan(version: string, than: string): boolean {
  return version < than;
}

export type Handler = {
  /** Answers one parsed JSON-RPC message: a response, or undefined for a notification or a client response. Never rejects. */
  handleMessage(message: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;
  /** Settles when every call in flight has answered. */
  idle(): Promise<void>;
  /** Starts no further tool call until `resume` (the transport's output is full); waiting calls stay queued. */
  pause(): void;
  /** Starts queued tool calls again after `pause`. */
  resume(): void;
  /**
   * Ends the session: queued calls and every later tool call are refused, calls in flight are
   * aborted (their probes cancelled) and answered with an `isError` result naming `reason`.
   */
  shutdown(reason: string): void;
};

/** Marks an abort that comes from `shutdown`, not from the client's `notifications/cancelled`. */
const SHUTDOWN = Symbol('shutdown');

/**
 * Creates the dispatcher for one session (one stdio connection). Implements `initialize`, `ping`,
 * `tools/list`, `tools/call` and the notifications `notifications/initialized` and
 * `notifications/cancelled` (MCP 2025-11-25: Lifecycle, Tools, Utilities/Ping, Utilities/Cancellation).
 * Unknown methods get -32601, before `initialize` too; ids keep their JSON type (`20` and `"20"`
 * differ); a request whose id is null or not a string/integer gets -32600 with id null; a batch
 * (JSON-RPC 2.0, 6) is answered element by element.
 *
 * Each tool call gets a request id (12 hex characters): it is sent to the API as `X-Request-Id`,
 * returned as `structuredContent.requestId` (and in the text; an error result without structured
 * content gets a second text block `requestId: ...`), and on every log line and the audit line of
 * the call. Tool calls run at most `config.concurrency` at once, up to `QUEUE_SIZE` more wait and
 * further ones get an `isError` result; `ping`, `initialize` and `tools/list` never wait.
 * Requests sent to the API are limited to `config.ratePerMinute` (an `isError` result with the
 * seconds to wait); tools that send nothing are not counted.
 * @param config From `readConfig`.
 * @param options.fetch Injected fetch for tests.
 * @param options.documents Document source; default built from `config.openapiDoc`.
 * @param options.logger Log records (default: none).
 * @param options.redact The key redactor; default built from `config.apiKey` (pass the one the transport uses, to build it once).
 * @param options.gate The concurrency gate; default `createGate(config.concurrency)`.
 * @param options.rate The rate limit; default `createRateLimit(config.ratePerMinute)`.
 * @param options.requestId Makes request ids (tests); default `newRequestId`.
 * @param options.memory Session memory limits (tests); default `MEMORY_LIMITS`.
 * @param options.contract Runs every step that needs the document (contract-jobs.ts): the check worker
 *   (check-worker.ts `createCheckWorker`, as `main` does) or, by default, `inProcessContract` on this thread
 *   with `documents`.
 */
export function createHandler(
  config: Config,
  options: { fetch?: typeof fetch; documents?: DocumentSource; logger?: Logger; redact?: Redactor; gate?: Gate; rate?: RateLimit; requestId?: () => string; memory?: MemoryLimits; contract?: ContractService } = {},
): Handler {
  const probeLog = new ProbeLog<Seen>(options.memory);
  const redact = options.redact ?? redactor(config.apiKey);
  const contract = options.contract ?? inProcessContract({ config, redact, documents: options.documents ?? (config.openapiDoc ? createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs }) : undefined) });
  const logger = options.logger ?? SILENT;
  const gate = options.gate ?? createGate(config.concurrency ?? 4);
  const rate = options.rate ?? createRateLimit(config.ratePerMinute ?? 60);
  const makeRequestId = options.requestId ?? newRequestId;
  const audit = config.auditLog ? createAudit(config.auditLog, logger, redact.text) : undefined;
  let negotiated: string = PROTOCOL_VERSIONS[0];
  const inFlight = new Map<string, AbortController>();
  const pending = new Set<Promise<unknown>>();
  let stopping: string | undefined;

  /** Runs one tools/call: request id, queue, the tool, then the log record and the audit line. */
  async function callTool(name: string, params: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const tool = TOOLS.find((candidate) => candidate.name === name)!;
    const rid = makeRequestId();
    const began = performance.now();
    const trace: Trace = {};
    let called: ToolResult;
    // At shutdown a call is answered as cancelled at once, even when its work cannot notice the abort (a body
    // being checked in the worker): the process exits after the grace, and no call may go unanswered.
    const stopped = new Promise<ToolResult>((resolve) => {
      signal.addEventListener('abort', () => {
        if (signal.reason === SHUTDOWN) resolve(failure(`Cancelled: the server is shutting down (${stopping}); the call did not finish.`));
      }, { once: true });
    });
    try {
      called = await Promise.race([runTool(tool, name, params, signal, rid, trace), stopped]);
    } catch (error) {
      // A large argument that turned out not to be JSON when the worker parsed it: -32700 under the call's id (handleOne).
      if (error instanceof RpcError) {
        logger.error('tool.call.error', { rid, tool: name, reason: error.message.slice(0, 300), took_ms: Math.round(performance.now() - began) });
        throw error;
      }
      // Answered with -32603 by handleOne; logged here so the record carries the call's id.
      logger.error('tool.call.error', { rid, tool: name, reason: `internal: ${String((error as Error)?.stack ?? error).replace(/\s+/g, ' ').slice(0, 2000)}`, took_ms: Math.round(performance.now() - began) });
      throw new LoggedError(error);
    }
    if (signal.aborted && signal.reason === SHUTDOWN) called = failure(`Cancelled: the server is shutting down (${stopping}); the call did not finish.`);
    const tookMs = Math.round(performance.now() - began);
    const structured = called.structuredContent;
    const status = typeof structured?.status === 'number' ? structured.status : null;
    const bytes = typeof structured?.bytes === 'number' ? structured.bytes : null;
    const findings = Array.isArray(structured?.findings) ? structured.findings.length : null;
    if (structured || !called.isError) {
      logger.info('tool.call.done', { rid, tool: name, status: status ?? undefined, bytes: bytes ?? undefined, findings: findings ?? undefined, is_error: called.isError ? true : undefined, took_ms: tookMs });
    } else {
      // Redacted whole before it is shortened, so a cut can never leave the start of the key, and a short reason stays whole.
      const reason = redact.text(called.content[0]?.text ?? '');
      logger.error('tool.call.error', { rid, tool: name, reason: reason.length > 300 ? `${reason.slice(0, 300)}…` : reason, took_ms: tookMs });
    }
    // The URL without secrets is made only for the audit line (nothing else reads it).
    await audit?.write({ time: new Date().toISOString(), rid, tool: name, method: trace.method ?? null, url: trace.url ? publicUrl(trace.url, config.baseUrl) : null, status, bytes, findings, isError: called.isError === true, took_ms: tookMs });
    return withRequestId(called, rid);
  }

  async function runTool(tool: Tool, name: string, params: Record<string, unknown>, signal: AbortSignal, rid: string, trace: Trace): Promise<ToolResult> {
    const args = params.arguments ?? {};
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return { ...failure(`\`arguments\` for ${name} must be an object, got ${describeType(args)}.`) };
    }
    const problem = argumentProblem(tool, args as Record<string, unknown>);
    if (problem) return { ...failure(problem) };
    const waited = performance.now();
    const admitted = await gate.enter(signal);
    if ('refusal' in admitted) return failure(admitted.refusal);
    logger.debug('queue.wait.done', { rid, tool: name, took_ms: Math.round(performance.now() - waited) });
    try {
      return await tool.handler(args as Record<string, unknown>, { config, redact, log: probeLog, fetch: options.fetch, signal, requestId: rid, rate, trace, contract });
    } finally {
      admitted.slot.release();
    }
  }

  async function dispatch(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    switch (method) {
      case 'initialize': {
        const requested = params.protocolVersion;
        negotiated = typeof requested === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : PROTOCOL_VERSIONS[0];
        const serverInfo: Record<string, unknown> = { name: SERVER_INFO.name, version: SERVER_INFO.version };
        if (!olderThan(negotiated, '2025-06-18')) serverInfo.title = 'OpenAPI Probe';
        return { protocolVersion: negotiated, capabilities: { tools: { listChanged: false } }, serverInfo, instructions: INSTRUCTIONS };
      }
      case 'ping':
        return {};
      case 'tools/list': {
        if (params.cursor !== undefined && params.cursor !== null) throw new RpcError(ERROR_CODES.invalidParams, 'Invalid cursor: this server lists every tool on one page and issues no cursors.');
        return {
          tools: TOOLS.map((tool) => {
            const listed: Record<string, unknown> = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
            if (!olderThan(negotiated, '2025-06-18')) {
              listed.title = tool.title;
              if (tool.outputSchema) listed.outputSchema = tool.outputSchema;
            }
            if (!olderThan(negotiated, '2025-03-26')) listed.annotations = tool.annotations;
            return listed;
          }),
        };
      }
      case 'tools/call': {
        const name = params.name;
        if (typeof name !== 'string') throw new RpcError(ERROR_CODES.invalidParams, '`params.name` must be the name of a tool: ' + TOOLS.map((tool) => tool.name).join(', '));
        const tool = TOOLS.find((candidate) => candidate.name === name);
        if (!tool) throw new RpcError(ERROR_CODES.invalidParams, `Unknown tool: ${name}. Available: ${TOOLS.map((candidate) => candidate.name).join(', ')}.`);
        const called = await callTool(name, params, signal);
        if (olderThan(negotiated, '2025-06-18')) delete called.structuredContent;
        return { ...called };
      }
      default:
        throw new RpcError(ERROR_CODES.methodNotFound, `Method not found: ${method}`);
    }
  }

  async function handleOne(message: unknown): Promise<JsonRpcResponse | undefined> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return errorResponse(null, ERROR_CODES.invalidRequest, 'Invalid Request: a JSON-RPC message must be an object.');
    }
    const record = message as Record<string, unknown>;
    const hasId = 'id' in record;
    const id = record.id;
    // MCP 2025-11-25, Base Protocol: a request id is a string or an integer.
    const validId = typeof id === 'string' || Number.isSafeInteger(id);
    if (typeof record.method !== 'string') {
      // A response from the client (we send no requests) or junk.
      if (!('result' in record) && !('error' in record)) {
        return errorResponse(validId ? (id as RequestId) : null, ERROR_CODES.invalidRequest, 'Invalid Request: `method` must be a string.');
      }
      return undefined;
    }
    if (record.jsonrpc !== '2.0') {
      return hasId ? errorResponse(validId ? (id as RequestId) : null, ERROR_CODES.invalidRequest, 'Invalid Request: `jsonrpc` must be "2.0".') : undefined;
    }
    const method = record.method;
    const params = record.params;
    if (!hasId) {
      // A notification: never answered (JSON-RPC 2.0, 4.1).
      if (method === 'notifications/cancelled' && params && typeof params === 'object') {
        const target = (params as Record<string, unknown>).requestId;
        inFlight.get(idKey(target))?.abort();
      }
      return undefined;
    }
    if (!validId) return errorResponse(null, ERROR_CODES.invalidRequest, `Invalid Request: \`id\` must be a string or an integer, got ${describeType(id)} (MCP 2025-11-25, Base Protocol).`);
    const requestId = id as RequestId;
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
      return errorResponse(requestId, ERROR_CODES.invalidParams, 'Invalid params: `params` must be an object.');
    }
    const controller = new AbortController();
    const key = idKey(requestId);
    if (method !== 'initialize') inFlight.set(key, controller);
    // An abort by the client means "no answer" (MCP Cancellation); an abort by shutdown is answered.
    const cancelled = () => controller.signal.aborted && controller.signal.reason !== SHUTDOWN;
    try {
      const outcome = await dispatch(method, (params ?? {}) as Record<string, unknown>, controller.signal);
      if (cancelled()) return undefined;
      return { jsonrpc: '2.0', id: requestId, result: outcome };
    } catch (error) {
      if (cancelled()) return undefined;
      if (error instanceof RpcError) return errorResponse(requestId, error.code, error.message);
      if (error instanceof LoggedError) return errorResponse(requestId, ERROR_CODES.internalError, `Internal error: ${(error.cause as Error)?.message ?? String(error.cause)}`);
      logger.error('rpc.internal.error', { method, reason: String((error as Error)?.stack ?? error).replace(/\s+/g, ' ').slice(0, 2000) });
      return errorResponse(requestId, ERROR_CODES.internalError, `Internal error: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      if (inFlight.get(key) === controller) inFlight.delete(key);
    }
  }

  return {
    handleMessage(message) {
      const work = (async () => {
        if (Array.isArray(message)) {
          if (message.length === 0) return errorResponse(null, ERROR_CODES.invalidRequest, 'Invalid Request: empty batch.');
          const answers = (await Promise.all(message.map(handleOne))).filter((answer): answer is JsonRpcResponse => answer !== undefined);
          return answers.length ? answers : undefined;
        }
        return handleOne(message);
      })();
      pending.add(work);
      work.finally(() => pending.delete(work)).catch(() => {});
      return work;
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    pause: () => gate.pause(),
    resume: () => gate.resume(),
    shutdown(reason) {
      if (stopping !== undefined) return;
      stopping = reason;
      gate.close(`Refused: the server is shutting down (${reason}); nothing was sent.`);
      for (const controller of inFlight.values()) controller.abort(SHUTDOWN);
    },
  };
}

/**
 * The size of a tool call's arguments, in characters of JSON, past which the call is refused before its
 * arguments are checked: every argument but the recorded or drafted body (`LARGE_ARGUMENTS`), which only the
 * line limit (`MAX_LINE`) bounds. Paths, queries, selectors and headers are far smaller; the cap keeps what
 * the main thread checks and what a reply echoes small (issue 8: ping within 100 ms).
 */
export const MAX_ARGUMENTS = 64 * 1024;

/** The document the tools' inputSchemas are checked in: one object, so validate.ts's per-document caches serve every call. */
const ARGUMENT_SCHEMAS_DOCUMENT = {};

/** The one argument of a tool that may be large (a JSON body, up to the line limit), by tool name. */
const LARGE_ARGUMENTS: Readonly<Record<string, string>> = { compare_fixture: 'fixture', draft_request: 'body' };

/** Where a large argument sits in a message: `params.arguments.<name>`, for each name of `LARGE_ARGUMENTS`. */
const LARGE_MEMBER_PATHS: readonly (readonly string[])[] = [...new Set(Object.values(LARGE_ARGUMENTS))].map((name) => ['params', 'arguments', name]);

/**
 * The JSON text of a large argument as the client wrote it, and how deep it nests, by the `arguments` object that
 * holds it: kept by the transport for a measured line (`measureJsonText` finds it in the pass it makes anyway), so
 * the tool passes that text to the check worker instead of serializing the value again, and needs no walk to know
 * its depth (issue 8, attack round 4 B7).
 */
const heldArguments = new WeakMap<object, Record<string, { text: string; depth: number }>>();

/** The held JSON text and depth of `args[name]` (`heldArguments`), or undefined when the line was not measured. */
function heldArgument(args: Record<string, unknown>, name: string): { text: string; depth: number } | undefined {
  return heldArguments.get(args)?.[name];
}

/** How many unknown argument names a failure lists; past that many the call is refused before any value is read. */
const LISTED_NAMES = 5;

/**
 * Checks a tool's arguments against that tool's own `inputSchema` with the schema checks of
 * `validate.ts` (JSON Schema 2020-12), so what `tools/list` declares and what is accepted cannot
 * disagree (issue 6). Every inputSchema closes its object (`additionalProperties: false`), so unknown
 * names are caught by the same check. Bad arguments are tool failures (MCP 2025-11-25, Tools, Error Handling).
 *
 * Linear in the size of the call, and it stops early (issue 8): unknown names are found in one pass (more than
 * `LISTED_NAMES` of them refuse the call at once, naming the first few and the count); an argument past its
 * schema's `maxItems`, `maxProperties` or `maxLength` is refused from its count, before its items are walked;
 * arguments other than `LARGE_ARGUMENTS` past `MAX_ARGUMENTS` characters of JSON are refused naming the limit.
 * @param args The call's `arguments`, already known to be an object.
 * @returns `undefined` when the arguments conform; else the failure text, in words: unknown names as
 *   `Unknown argument for probe: method. It takes: path, query.`, other problems after
 *   `Refused, nothing was sent:` one sentence each, naming the argument (`paths[0]`), what is wrong, and
 *   the first time an argument is named, its description from the schema.
 */
function argumentProblem(tool: Tool, args: Record<string, unknown>): string | undefined {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string; maxItems?: number; maxProperties?: number; maxLength?: number }>;
  const names = Object.keys(args);
  // Unknown names in the order the client wrote them, the first few listed.
  const unknown: string[] = [];
  let unknownCount = 0;
  for (const name of names) {
    if (Object.hasOwn(properties, name)) continue;
    unknownCount++;
    if (unknown.length < LISTED_NAMES) unknown.push(name);
  }
  const more = unknownCount > unknown.length ? ` and ${unknownCount - unknown.length} more` : '';
  const unknownText = unknownCount ? `Unknown argument${unknownCount > 1 ? 's' : ''} for ${tool.name}: ${unknown.map((name) => name.slice(0, 80)).join(', ')}${more}. It takes: ${Object.keys(properties).join(', ')}.` : '';
  if (unknownCount > LISTED_NAMES) return unknownText;
  const refused = (sentence: string) => `Refused, nothing was sent: ${sentence}${unknownText ? ` ${unknownText}` : ''}`;
  // Counts first: an argument past its schema's natural size is refused before its items or keys are walked.
  for (const name of names) {
    const schema = Object.hasOwn(properties, name) ? properties[name]! : undefined;
    const over = schema ? sizeProblem(args[name], schema) : undefined;
    if (over) return refused(`\`${name}\` ${over}${schema!.description ? ` (${name}: ${schema!.description.replace(/\.$/, '')})` : ''}.`);
  }
  const large = LARGE_ARGUMENTS[tool.name];
  // The JSON text of those members as an object: braces, `"name":value` each, commas between.
  let size = 1;
  for (const name of names) if (name !== large) size += JSON.stringify(name).length + 2 + (JSON.stringify(args[name])?.length ?? 0);
  if (size > MAX_ARGUMENTS) {
    return refused(`the arguments${large ? ` other than \`${large}\`` : ''} take ${size} characters of JSON, more than the limit of ${MAX_ARGUMENTS} (64 KiB); send a shorter path, query, selector or header values.`);
  }
  const findings = check(ARGUMENT_SCHEMAS_DOCUMENT, tool.inputSchema, args).filter((finding) => finding.severity === 'error');
  if (findings.length === 0) return undefined;
  const unknownPaths = new Set(unknown.map((key) => instancePath([key])));
  const sentences: string[] = [];
  const described = new Set<string>();
  for (const finding of findings) {
    if (finding.kind === 'undocumented' && unknownPaths.has(finding.path)) continue;
    const shown = finding.path.startsWith('$.') ? finding.path.slice(2) : finding.path.slice(1);
    const top = /^[A-Za-z_][A-Za-z0-9_]*/.exec(shown)?.[0] ?? '';
    let sentence = `\`${shown}\` `;
    if (finding.kind === 'missing') sentence += 'is required';
    else if (finding.kind === 'wrongType') sentence += `must be ${withArticle(finding.expected ?? 'another type')}, got ${withArticle(finding.actual ?? 'another type')}`;
    else sentence += finding.message;
    const description = Object.hasOwn(properties, top) ? properties[top]!.description : undefined;
    if (description && !described.has(top)) {
      described.add(top);
      sentence += ` (${top}: ${description.replace(/\.$/, '')})`;
    }
    sentences.push(`${sentence}.`);
  }
  if (sentences.length === 0) return unknownText;
  return `Refused, nothing was sent: ${[...sentences, unknownText].filter(Boolean).join(' ')}`;
}

/**
 * An argument past its schema's `maxItems`, `maxProperties` or `maxLength` (JSON Schema 2020-12, 6.3 and 6.4), found
 * from its length or key count without walking its items, in the words of validate.ts: `has 11 items, more than maxItems 10`.
 * @returns The clause, or `undefined` when the value is within those three (or of another type).
 */
function sizeProblem(value: unknown, schema: { maxItems?: number; maxProperties?: number; maxLength?: number }): string | undefined {
  if (Array.isArray(value)) return schema.maxItems !== undefined && value.length > schema.maxItems ? `has ${value.length} items, more than maxItems ${schema.maxItems}` : undefined;
  if (typeof value === 'string' && schema.maxLength !== undefined && value.length > schema.maxLength) {
    // maxLength counts characters (code points): a surrogate pair is one.
    let characters = value.length;
    for (let index = 0; index < value.length; index++) {
      const code = value.charCodeAt(index);
      if (code >= 0xd800 && code <= 0xdbff && index + 1 < value.length && (value.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
        characters--;
        index++;
      }
    }
    return characters > schema.maxLength ? `is ${characters} characters long, more than maxLength ${schema.maxLength}` : undefined;
  }
  if (value !== null && typeof value === 'object' && schema.maxProperties !== undefined) {
    const count = Object.keys(value).length;
    return count > schema.maxProperties ? `has ${count} properties, more than maxProperties ${schema.maxProperties}` : undefined;
  }
  return undefined;
}

/** `string` -> `a string`, `integer` -> `an integer`, `null` -> `null`; a JSON type name as a noun phrase. */
function withArticle(type: string): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * A tool result carrying its request id: in `structuredContent.requestId` (and its JSON text block),
 * or, for an error result without structured content, as a second text block `requestId: <id>`.
 */
function withRequestId(called: ToolResult, rid: string): ToolResult {
  if (called.structuredContent) {
    const structured = { ...called.structuredContent, requestId: rid };
    const before = structuredTexts.get(called.structuredContent) ?? JSON.stringify(called.structuredContent);
    // `requestId` goes last in `structured`, so its JSON is `before` with the member appended (not serialized again).
    const after = Object.hasOwn(called.structuredContent, 'requestId') || !before.endsWith('}')
      ? JSON.stringify(structured)
      : `${before.length > 2 ? before.slice(0, -1) + ',' : '{'}"requestId":${JSON.stringify(rid)}}`;
    const content = called.content.map((block) => (block.text === before ? { ...block, text: after } : block));
    structuredTexts.set(structured, after);
    return { ...called, content, structuredContent: structured };
  }
  if (called.isError) return { ...called, content: [...called.content, { type: 'text', text: `requestId: ${rid}` }] };
  return called;
}

/** A tool's own throw, already logged with its request id; answered with -32603 and the original message. */
class LoggedError extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

class RpcError extends Error {
  code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

// ───────────────────────────── 4. Transport ─────────────────────────────

/**
 * Lines longer than this (in UTF-16 code units, 2 MiB) are dropped unparsed with one -32600 error naming
 * the limit, so memory stays bounded and no line holds the thread: parsing a line and walking its
 * arguments costs about 15 ms per MiB here (a 22 MB line held `ping` for 0.8 to 1.9 s). The largest
 * arguments a tool needs are `compare_fixture`'s fixture (a record kept in session memory is at most
 * 1 MiB, or PROBE_MAX_BYTES when larger, 512 KiB at most) and `draft_request`'s body.
 */
export const MAX_LINE = 2 * 1024 * 1024;

/** Lines longer than this (characters) have their large arguments found as text (`measureJsonText` spans, `heldArguments`). */
const HOLD_ARGUMENTS_FROM = 64 * 1024;

/** Deepest nesting a message may have: arguments nest at most `MAX_BODY_DEPTH`, plus the envelope (`params.arguments.fixture`). */
export const MAX_MESSAGE_DEPTH = MAX_BODY_DEPTH + 8;

/** Most JSON values a message may hold: about 0.03 s of `JSON.parse`; a 1 MiB fixture of real API data holds 20,000 to 40,000. */
export const MAX_MESSAGE_VALUES = 100_000;

/** When stdin closes, calls in flight get this long to finish before they are aborted, in ms. */
export const SHUTDOWN_GRACE_MS = 1000;

/** How long the transport waits for aborted calls to answer, and then for stdout to drain, each in ms. */
const SHUTDOWN_STEP_MS = 400;

/**
 * A serialized message as one stdout line: U+2028, U+2029 and U+0085, which JSON allows raw inside
 * strings (RFC 8259, 7), written as `\u` escapes, so a client that splits lines on Unicode line
 * boundaries (Node's readline, Python's `splitlines`) still reads one message (case 46). The
 * characters occur only inside JSON strings, where the escape means the same character.
 */
export function escapeLineSeparators(json: string): string {
  return json.replace(/[\u0085\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `JSON.stringify(message)` for a tool call's response whose text block is the JSON text of its structured
 * content (`structuredTexts`, probe-pipeline.ts): that text is written as the structured content instead of serializing it again, so
 * a result's body is serialized once, not twice. Any other shape (an error, a redacted copy, a result without
 * structured content) gets `JSON.stringify` itself; the line is the same either way.
 */
function serializeMessage(message: unknown): string {
  const response = message as { jsonrpc?: unknown; id?: unknown; result?: { content?: unknown; structuredContent?: unknown; isError?: unknown } } | null;
  const result = response?.result;
  const structured = result?.structuredContent;
  const text = structured !== null && typeof structured === 'object' ? structuredTexts.get(structured) : undefined;
  const block = Array.isArray(result?.content) && result.content.length === 1 ? (result.content[0] as { type?: unknown; text?: unknown }) : undefined;
  const shaped = text !== undefined && block?.type === 'text' && block.text === text && response!.jsonrpc === '2.0' && (typeof response!.id === 'string' || typeof response!.id === 'number')
    && sameKeys(response!, ['jsonrpc', 'id', 'result']) && sameKeys(block, ['type', 'text'])
    && (result!.isError === true ? sameKeys(result!, ['content', 'structuredContent', 'isError']) : sameKeys(result!, ['content', 'structuredContent']));
  if (!shaped) return JSON.stringify(message);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(response!.id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${result!.isError === true ? ',"isError":true' : ''}}}`;
}

/** True when `value`'s own enumerable keys are exactly `keys`, in that order. */
function sameKeys(value: object, keys: string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, index) => key === keys[index]);
}

/** `line` with each span's value written as `{}` or `[]` (the same type), spans in any order, none overlapping. */
function withoutSpans(line: string, spans: (MemberSpan | undefined)[]): string {
  const found = spans.filter((span): span is MemberSpan => span !== undefined).sort((first, second) => first.start - second.start);
  let text = '';
  let from = 0;
  for (const span of found) {
    text += line.slice(from, span.start) + (line.charCodeAt(span.start) === 0x7b ? '{}' : '[]');
    from = span.end;
  }
  return text + line.slice(from);
}

/** Keeps the text of each large argument `measureJsonText` found in `line` (`heldArguments`), by the message's `arguments` object. */
function holdArguments(message: unknown, line: string, spans: (MemberSpan | undefined)[]): void {
  const args = (message as { params?: { arguments?: unknown } } | null)?.params?.arguments;
  if (args === null || typeof args !== 'object') return;
  const held: Record<string, { text: string; depth: number }> = {};
  spans.forEach((span, which) => {
    if (span) held[LARGE_MEMBER_PATHS[which]![2]!] = { text: line.slice(span.start, span.end), depth: span.depth };
  });
  heldArguments.set(args, held);
}

/** Resolves when `promise` settles or after `ms`, whichever is first; never rejects. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Runs the stdio transport (MCP 2025-11-25, Transports, stdio): reads newline-delimited JSON-RPC
 * from `input` (UTF-8, characters split across chunks reassembled, a trailing CR and a leading BOM
 * dropped, blank lines ignored), hands each message to `handler` without waiting for earlier ones,
 * and writes each response as one line of `JSON.stringify` plus LF to `output`, with line
 * separators escaped (`escapeLineSeparators`). A line that is not JSON gets -32700 with id null.
 *
 * Backpressure: when `output.write` returns false, reading `input` and starting queued tool calls
 * pause until `drain`, so answers waiting for the client stay few (case 52).
 *
 * Ending: when `input` ends, calls in flight get `graceMs` to answer, then are aborted and answered
 * as cancelled; when `stop` aborts (SIGINT, SIGTERM), they are aborted at once. An `error` on
 * `input` or `output` is logged and ends the session the same way, never as an unhandled event.
 * Each step waits at most 400 ms, so the promise settles within `graceMs` + 800 ms.
 * @param options.redact Applied to every message before it is serialized (removes the API key should the API echo it).
 * @param options.logger Where transport errors go.
 * @param options.stop Aborting it ends the session without a grace period; its `reason` names the cause.
 * @param options.graceMs Default `SHUTDOWN_GRACE_MS`.
 * @returns A promise of why the session ended (`stdin closed`, `SIGTERM`, `stdout error: EPIPE`...),
 *   settled once the last response has been flushed or the flush limit passed. Never rejects.
 */
export function serve(
  handler: Handler,
  options: { input?: Readable; output?: Writable; redact?: Redactor; logger?: Logger; stop?: AbortSignal; graceMs?: number } = {},
): Promise<string> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const redact = options.redact ?? NO_REDACTION;
  const logger = options.logger ?? SILENT;
  const graceMs = options.graceMs ?? SHUTDOWN_GRACE_MS;
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let dropping = false;
  let blocked = false;
  let outputBroken = false;
  let ending: string | undefined;
  let unflushed = 0;
  let onFlushed: (() => void) | undefined;

  const write = (message: unknown) => {
    if (outputBroken) return;
    let line: string;
    try {
      line = (Array.isArray(message) ? JSON.stringify(message.map(redact.message)) : serializeMessage(redact.message(message))) + '\n';
    } catch (error) {
      // Never let one unserializable answer take the server down: answer its id with -32603.
      const id = (message as { id?: RequestId | null }).id ?? null;
      line = JSON.stringify(errorResponse(id, ERROR_CODES.internalError, `Internal error: the answer could not be serialized (${(error as Error).message}).`)) + '\n';
    }
    unflushed++;
    const accepted = output.write(escapeLineSeparators(line), () => {
      if (--unflushed === 0) onFlushed?.();
    });
    if (!accepted && !blocked) {
      blocked = true;
      handler.pause();
      input.pause();
      output.once('drain', () => {
        blocked = false;
        handler.resume();
        if (ending === undefined) input.resume();
      });
    }
  };

  const handleLine = (raw: string) => {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1); // RFC 8259, 8.1: parsers may ignore a BOM
    if (line.trim() === '') return;
    // Every line is measured before it is parsed (one pass, about 7 ms per MB): a tree too deep or too large for
    // any tool's arguments is refused unread, so neither its parse nor a walk of it holds the thread that answers
    // ping (issue 8, attack round 3 F9; round 6: lines under 64 KiB of 32,000 levels were parsed unmeasured).
    const size = measureJsonText(line, line.length > HOLD_ARGUMENTS_FROM ? LARGE_MEMBER_PATHS : []);
    const spans = size.spans;
    if (size.depth > MAX_MESSAGE_DEPTH || size.values > MAX_MESSAGE_VALUES) {
      // Answered under the request's own id when the text names one, so the client's call does not wait forever.
      write(errorResponse(size.id ?? null, ERROR_CODES.invalidRequest, size.depth > MAX_MESSAGE_DEPTH
        ? `Invalid Request: message nests ${size.depth} levels deep, more than ${MAX_MESSAGE_DEPTH} (arguments may nest at most ${MAX_BODY_DEPTH}); dropped unparsed.`
        : `Invalid Request: message holds ${size.values} JSON values, more than ${MAX_MESSAGE_VALUES}; dropped unparsed. Send fewer or smaller arguments.`));
      return;
    }
    let message: unknown;
    try {
      // A large argument is parsed in the check worker, from its text (`heldArguments`): here it is read as an empty
      // object or array of its own type, so this thread parses only the envelope (issue 8, attack round 4 B7).
      message = JSON.parse(spans?.some(Boolean) ? withoutSpans(line, spans) : line);
    } catch (error) {
      write(errorResponse(null, ERROR_CODES.parseError, `Parse error: ${(error as Error).message}`));
      return;
    }
    if (spans?.some(Boolean)) holdArguments(message, line, spans);
    handler.handleMessage(message).then((answer) => {
      if (answer !== undefined) write(answer);
    });
  };

  const tooLong = () => {
    // Answered with id null (the id is never read), so a client waits for its own id until it times out: the host log says why.
    logger.error('transport.line.dropped', { reason: `message longer than ${MAX_LINE} characters (the line limit), dropped unread; its request goes unanswered under its own id` });
    write(errorResponse(null, ERROR_CODES.invalidRequest, `Invalid Request: message longer than ${MAX_LINE} characters (the line limit), dropped unread. Send smaller arguments: a fixture or request body of at most 1 MiB.`));
  };

  // Each chunk is searched once for newlines, and a line's pieces are joined once, when it ends (no rescans).
  const take = (text: string) => {
    if (ending !== undefined) return;
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      if (dropping) dropping = false;
      else if (buffer.length + newline - start > MAX_LINE) tooLong();
      else handleLine(buffer + text.slice(start, newline));
      buffer = '';
      start = newline + 1;
    }
    if (!dropping) buffer += text.slice(start);
    if (buffer.length > MAX_LINE) {
      buffer = '';
      dropping = true;
      tooLong();
    }
  };

  const flushed = () => new Promise<void>((resolve) => {
    if (unflushed === 0 || outputBroken) resolve();
    else onFlushed = resolve;
  });

  return new Promise<string>((resolve) => {
    let cutGrace = () => {};
    const finish = async (reason: string, grace: number) => {
      if (ending !== undefined) {
        // A signal or a stream error during the grace after stdin closed ends it now.
        if (grace === 0) cutGrace();
        return;
      }
      ending = reason;
      input.pause();
      if (grace > 0) await within(Promise.race([handler.idle(), new Promise<void>((resolve) => (cutGrace = resolve))]), grace);
      handler.shutdown(reason);
      await within(handler.idle(), SHUTDOWN_STEP_MS);
      // A write blocked on a full pipe must not hold the exit: the client stopped reading.
      if (blocked) handler.resume();
      await within(flushed(), SHUTDOWN_STEP_MS);
      resolve(reason);
    };
    input.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    input.on('end', () => {
      if (ending === undefined) {
        const rest = buffer + decoder.end();
        buffer = '';
        if (!dropping && rest.trim() !== '') handleLine(rest);
      }
      void finish('stdin closed', graceMs);
    });
    input.on('error', (error: Error) => {
      logger.error('transport.error', { stream: 'stdin', reason: error.message });
      void finish(`stdin error: ${(error as NodeJS.ErrnoException).code ?? error.message}`, 0);
    });
    output.on('error', (error: Error) => {
      outputBroken = true;
      logger.error('transport.error', { stream: 'stdout', reason: error.message });
      void finish(`stdout error: ${(error as NodeJS.ErrnoException).code ?? error.message}`, 0);
    });
    const stop = options.stop;
    if (stop) {
      const onStop = () => void finish(String(stop.reason ?? 'stopped'), 0);
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    }
  });
}

/**
 * Entry point: reads flags (cli.ts `commandLine`: `--help`, `--version` and `check` end there) and the
 * configuration, logs `key=value` records to stderr (start-up line with the settings, never a secret),
 * serves stdio, and exits 0 when stdin closes, on SIGINT or SIGTERM, or when stdin or stdout fails
 * (2 on bad configuration or flags).
 */
export async function main(): Promise<void> {
  // Flags, --help, --version and the `check` command: cli.ts. It returns the environment to serve with, or an exit code.
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
  // ping is answered whatever the API, the agent or the document hold (issue 8). It starts loading now (issue 9).
  const contract = createCheckWorker(config, { logger, memoryMb: workerMemory });
  contract.warm();
  const handler = createHandler(config, { logger, redact, contract });
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
  const reason = await serve(handler, { redact, logger, stop: stop.signal });
  logger.info('server.stop', { reason, uptime_ms: Math.round(performance.now() - began) });
  // Exit even if a keep-alive socket or timer is still open (MCP stdio shutdown).
  process.exit(0);
}

// Not in the check worker, which loads this same file in the single-file build (check-worker.ts).
if (isMainThread && process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
