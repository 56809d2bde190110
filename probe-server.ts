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
import type { Readable, Writable } from 'node:stream';
import { compareWithFixture, fieldPresence, inferShape, check, schemaFor, isJsonMediaType, mediaTypeEssence } from './validate.ts';
import type { FieldPresence, FixtureDiff } from './validate.ts';
import { createDocumentSource, checkPathParams } from './openapi-document.ts';
import { findOperation, judge, operationKey, resolveOperation, summarize } from './contract.ts';
import { commandLine } from './cli.ts';
import type { DocumentSource, LoadedDocument } from './openapi-document.ts';

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

export type Config = {
  /** The API's base URL; its path prefix (such as `/v2`) is kept in every probe. */
  baseUrl: URL;
  apiKey?: string;
  /** Send the key raw in this header instead of `Authorization: Bearer <key>`. */
  apiKeyHeader?: string;
  /** Path or http(s) URL of the OpenAPI document, if any. */
  openapiDoc?: string;
  /** Body budget per probe, in bytes. */
  maxBytes: number;
  /** Time limit per probe (connect, headers and body), in ms. */
  timeoutMs: number;
  /** How long a document fetched from a URL is reused, in ms. */
  documentTtlMs: number;
};

/**
 * Reads the configuration from environment variables: `API_BASE_URL` (required, absolute http(s)
 * URL, may carry a path prefix), `API_KEY`, `API_KEY_HEADER`, `OPENAPI_DOC` (default `openapi.json`
 * in `cwd` when that file exists), `PROBE_MAX_BYTES` (default 16384, at most 524288),
 * `PROBE_TIMEOUT_MS` (default 15000), `OPENAPI_TTL_S` (default 60).
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
  return {
    baseUrl,
    apiKey: readKey(env.API_KEY),
    apiKeyHeader: header,
    openapiDoc,
    maxBytes: readInteger(env, 'PROBE_MAX_BYTES', 16384, 1, MAX_BODY_BUDGET),
    timeoutMs: readInteger(env, 'PROBE_TIMEOUT_MS', 15000, 1, 600000),
    documentTtlMs: readInteger(env, 'OPENAPI_TTL_S', 60, 0, 86400) * 1000,
  };
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
 * - a dot segment (`.`, `..`, `%2e%2e` in any case or mix), also hidden behind `%2F`;
 * - a result whose origin differs from the base, or whose path leaves the base's path prefix
 *   (compared by segment: `/v2-admin` is outside `/v2`).
 * A path without a leading `/` is read as if it had one (`meters/1` is `/meters/1`).
 * @param base The configured base URL.
 * @param path The agent's path, e.g. `/meters/mtr_1?status=active`.
 * @param query Extra query parameters, name to string value, appended in order.
 * @returns `{url}` or `{refusal}`; never throws, never touches the network.
 */
export function buildProbeUrl(base: URL, path: unknown, query?: unknown): UrlDecision {
  if (path === undefined) return { refusal: '`path` is required: the path after the base URL, such as "/meters/mtr_1".' };
  if (typeof path !== 'string') return { refusal: `\`path\` must be a string such as "/meters/mtr_1", got ${describeType(path)}.` };
  if (path === '') return { refusal: '`path` is empty; give the request path after the base URL, such as "/meters/mtr_1".' };
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    return { refusal: `\`path\` ${JSON.stringify(path)} holds a control character (tab, newline or similar); the URL parser would drop or reinterpret it. Remove it, or percent-encode data that needs it.` };
  }
  if (path !== path.trim()) return { refusal: `\`path\` ${JSON.stringify(path)} has leading or trailing spaces; remove them.` };
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
  for (const segment of pathname.split('/')) {
    if (isDotSegment(segment)) {
      return { refusal: `\`path\` ${JSON.stringify(path)} has the dot segment "${segment}", which would climb out of the API's base path; name the resource directly.` };
    }
  }
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
  const named = new Set(url.searchParams.keys());
  for (const pair of base.search.slice(1).split('&')) {
    if (pair && !named.has(new URLSearchParams(pair).keys().next().value ?? '')) extra.push(pair);
  }
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { refusal: `\`query.${name}\` must be a string (or number or boolean), got ${describeType(value)}.` };
    }
    extra.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  if (extra.length) url.search = [url.search.slice(1), ...extra].filter(Boolean).join('&');
  const inside = prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
  if (url.origin !== base.origin || url.username || url.password || !inside) {
    return { refusal: `\`path\` ${JSON.stringify(path)} resolves to ${url.origin}${url.pathname}, outside API_BASE_URL (${base.origin}${prefix}); it is refused.` };
  }
  return { url };
}

/** True for `.` and `..` in any spelling WHATWG URL treats as one (`%2e`, `.%2E`...), also inside a `%2F`-joined segment. */
function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, '.');
  if (decoded === '.' || decoded === '..') return true;
  // "..%2fadmin" stays one segment for WHATWG, but a server that decodes %2F before routing climbs.
  return /%2f/i.test(segment) && decoded.split(/%2f/i).some((part) => part === '.' || part === '..');
}

function trimSlash(pathname: string): string {
  return pathname.replace(/\/+$/, '');
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `a ${typeof value}`;
}

/** What one GET returned. */
export type ProbeResult = {
  /** The URL requested, query included (the key is never in it: it travels in a header). */
  url: string;
  status: number;
  /** The Content-Type header as sent, or null. */
  contentType: string | null;
  /** Body bytes received after content decoding; exact when `truncated` is false, a lower bound when true. */
  bytes: number;
  /** True when the body was longer than the budget and reading stopped. */
  truncated: boolean;
  /** Parsed JSON when the body is complete and parses; otherwise the text (cut at the budget); null for a binary body. */
  body: unknown;
  /** For a 3xx: where the API points. Redirects are never followed. */
  location?: string;
  /** Set when something about the body needs saying (binary, cut, JSON that does not parse). */
  note?: string;
};

/** A probe failure the agent can act on (timeout, refused connection, DNS); the message names URL and cause. */
export class ProbeError extends Error {}

/**
 * Sends one GET and reads at most `maxBytes` of the body (plus one network chunk, to know whether
 * it ended), counting decoded bytes as they stream: a chunked, gzip-inflated or endless body costs
 * no more than a few budgets of memory (RFC 9110, 8.4 and 8.6: Content-Length counts bytes on the
 * wire, not decoded ones, so it is never trusted). Redirects are not followed.
 * @param url The absolute URL from `buildProbeUrl`.
 * @param options.headers Request headers (the key among them).
 * @param options.timeoutMs Limit for the whole exchange, in ms.
 * @param options.maxBytes Body budget, in bytes.
 * @param options.fetch Injected fetch (tests); default the global one.
 * @param options.signal Aborts the probe (MCP cancellation).
 * @throws ProbeError naming the URL and the cause, on timeout, DNS or connection failure.
 */
export async function probe(
  url: URL,
  options: { headers: Record<string, string>; timeoutMs: number; maxBytes: number; fetch?: typeof fetch; signal?: AbortSignal },
): Promise<ProbeResult> {
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
    const response = await (options.fetch ?? fetch)(url, {
      method: 'GET',
      headers: options.headers,
      redirect: 'manual',
      signal: controller.signal,
    });
    const { held, bytes, truncated } = await readCapped(response, options.maxBytes);
    const contentType = response.headers.get('content-type');
    const result: ProbeResult = { url: shown, status: response.status, contentType, bytes, truncated, body: null };
    const location = response.headers.get('location');
    if (location !== null && response.status >= 300 && response.status < 400) result.location = location;
    Object.assign(result, decodeBody(held, contentType, truncated, options.maxBytes));
    return result;
  } catch (error) {
    if (timedOut) throw new ProbeError(`GET ${shown} timed out after ${options.timeoutMs} ms (PROBE_TIMEOUT_MS). The API may be slow or unreachable; try again, or raise PROBE_TIMEOUT_MS.`);
    if (options.signal?.aborted) throw new ProbeError(`GET ${shown} was cancelled.`);
    throw new ProbeError(`GET ${shown} failed: ${networkCause(error).replace(/\.$/, '')}. Check that API_BASE_URL is right and the API is up.`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ held: Uint8Array; bytes: number; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      chunks.push(value);
      if (bytes > maxBytes) {
        truncated = true;
        // Stop reading: the rest of the body is never pulled off the socket.
        await reader.cancel().catch(() => {});
        break;
      }
    }
  }
  const all = Buffer.concat(chunks);
  return { held: truncated ? cutAtCharBoundary(all, maxBytes) : all, bytes, truncated };
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

const TEXTUAL = /^(text\/|application\/(.*[+/])?(json|xml|javascript|x-www-form-urlencoded|yaml|x-yaml|graphql)$|application\/problem\+json$)/;

function decodeBody(held: Uint8Array, contentType: string | null, truncated: boolean, maxBytes: number): { body: unknown; note?: string } {
  const type = mediaTypeEssence(contentType);
  if (type && !TEXTUAL.test(type)) {
    return { body: null, note: `Binary body (${type}), not shown.` };
  }
  const text = new TextDecoder().decode(held);
  if (truncated) {
    return { body: text, note: `Body longer than ${maxBytes} bytes (PROBE_MAX_BYTES); cut there and not parsed or checked. Probe a smaller resource (a page size or filter parameter) to see it whole.` };
  }
  if (held.length === 0) return { body: '' };
  if (isJsonMediaType(contentType) || type === '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (nestingDepth(parsed) > MAX_BODY_DEPTH) {
        return { body: text, note: `The JSON body nests deeper than ${MAX_BODY_DEPTH} levels; shown as text and not checked.` };
      }
      const inexact = inexactNumbers(text);
      return inexact.length ? { body: parsed, note: `${inexact.length} number(s) cannot be held exactly in a double and are shown changed (${inexact.slice(0, 3).join(', ')}): read such ids as strings or BigInt.` } : { body: parsed };
    } catch (error) {
      if (isJsonMediaType(contentType)) return { body: text, note: `Content-Type says JSON but the body does not parse: ${(error as Error).message}.` };
    }
  }
  return { body: text };
}

/** How deep parsed JSON may nest before it is returned as text: deeper values overflow the stack of JSON.stringify and the checks. */
export const MAX_BODY_DEPTH = 256;

/** Depth of nested arrays and objects, counted without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

/**
 * Number literals of a JSON text that JSON.parse changes: integers beyond 2^53 (rounded) and values
 * beyond the double range (Infinity, shown as null). Returns `"9007199254740993 -> 9007199254740992"` rows.
 */
function inexactNumbers(text: string): string[] {
  const rows: string[] = [];
  // Numbers outside strings: skip string literals, then look at each number token (RFC 8259, 6).
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let match = token.exec(text); match; match = token.exec(text)) {
    const literal = match[0];
    if (literal.startsWith('"')) continue;
    const parsed = Number(literal);
    if (!Number.isFinite(parsed)) rows.push(`${literal} -> null`);
    else if (/^-?\d{16,}$/.test(literal) && BigInt(literal) !== BigInt(parsed)) rows.push(`${literal} -> ${parsed}`);
  }
  return rows;
}

function networkCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused (ECONNREFUSED)',
    ENOTFOUND: 'host name not found (DNS, ENOTFOUND)',
    EAI_AGAIN: 'DNS lookup failed for now (EAI_AGAIN)',
    ECONNRESET: 'connection reset by the server (ECONNRESET)',
    EHOSTUNREACH: 'host unreachable (EHOSTUNREACH)',
    ENETUNREACH: 'network unreachable (ENETUNREACH)',
    UND_ERR_SOCKET: 'the server closed the connection (UND_ERR_SOCKET)',
  };
  if (code && known[code]) return known[code];
  if ((error as Error)?.message === 'bad port' || cause?.message === 'bad port') {
    return 'fetch will not connect to this port (WHATWG Fetch, "bad port" list: ports such as 9, 25 and 6000 are blocked); serve the API on another port';
  }
  if (code) return `${cause?.message ?? 'network error'} (${code})`;
  return cause?.message ?? (error as Error)?.message ?? String(error);
}

/** Removes the API key from data that came from the API, and from what the server writes; see `redactor`. */
export type Redactor = {
  /** Every occurrence of the key, in any of the forms `redactor` lists, replaced by `[redacted]`. */
  text(text: string): string;
  /**
   * A copy of a JSON value with `text` applied to every string value, and a number that spells the
   * key replaced; booleans and null untouched. With `keys`, object keys too: for data from the API.
   */
  value<T>(value: T, keys?: boolean): T;
  /** `text`, then a cut-off start of the key (4 characters or more, in any form) at the very end replaced too. */
  tail(text: string): string;
  /**
   * A JSON-RPC message with `text` applied to the strings of a tool result's `content` and
   * `structuredContent` and of an error's `message`, never to protocol fields (`jsonrpc`, `id`,
   * `type`...). Defence in depth behind the redaction of API data at its source; skipped for keys
   * shorter than 8 characters, which would match ordinary words of the server's own text.
   */
  message<T>(message: T): T;
};

const NO_REDACTION: Redactor = { text: (input) => input, value: (input) => input, tail: (input) => input, message: (input) => input };

/** The ways one character of the key can be written in text that has been escaped or encoded. */
function characterForms(character: string): string[] {
  const literal = character.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const hex = (value: number, width: number) => [...value.toString(16).padStart(width, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
  const forms = new Set([literal]);
  // Percent-encoding of its UTF-8 bytes, either case of hex (RFC 3986, 2.1); a space as '+' (forms).
  forms.add([...Buffer.from(character, 'utf8')].map((byte) => `%${hex(byte, 2)}`).join(''));
  if (character === ' ') forms.add('\\+');
  // JSON: \uXXXX for any character (RFC 8259, 7); quote, backslash and solidus escaped once or twice.
  forms.add([...character].map((unit) => `\\\\u${hex(unit.charCodeAt(0), 4)}`).join(''));
  if (character === '"' || character === '/') forms.add(`\\\\${literal}`).add(`\\\\\\\\\\\\${literal}`);
  if (character === '\\') forms.add('\\\\\\\\').add('\\\\\\\\\\\\\\\\');
  return [...forms];
}

/**
 * Builds the redactor for the API key. The key is never put into output on purpose; this catches an
 * API that echoes it. It matches the key written in any mix of these forms: plain; percent-encoded
 * with either case of hex, or `+` for a space; JSON-escaped once or twice (`\"`, `\\`, `\/`, `\uXXXX`).
 * It works on string values, never on serialized JSON, so no key, however short, can corrupt a message.
 * @param secret The key, already trimmed; undefined or empty gives a redactor that changes nothing.
 */
export function redactor(secret: string | undefined): Redactor {
  if (!secret) return NO_REDACTION;
  const characters = [...secret].map((character) => `(?:${characterForms(character).join('|')})`);
  const whole = new RegExp(characters.join(''), 'g');
  // A start of the key at the end of a text: 4 characters (fewer for a shorter key), then optionally more.
  const minimum = Math.min(4, characters.length - 1);
  let optional = '';
  for (let index = characters.length - 2; index >= minimum; index--) optional = `(?:${characters[index]}${optional})?`;
  const cut = minimum > 0 ? new RegExp(`${characters.slice(0, minimum).join('')}${optional}$`) : undefined;
  const text = (input: string) => input.replace(whole, '[redacted]');
  const value = <T,>(input: T, keys = false): T => {
    if (typeof input === 'string') return text(input) as T;
    if (typeof input === 'number' && String(input) === secret) return '[redacted]' as T;
    if (Array.isArray(input)) return input.map((inner) => value(inner, keys)) as T;
    if (input !== null && typeof input === 'object') {
      // fromEntries defines own properties, so a body key "__proto__" stays a key.
      return Object.fromEntries(Object.entries(input).map(([key, inner]) => [keys ? text(key) : key, value(inner, keys)])) as T;
    }
    return input;
  };
  const tail = (input: string) => {
    const out = text(input);
    return cut ? out.replace(cut, '[redacted]') : out;
  };
  const message = <T,>(input: T): T => {
    if (secret.length < 8 || input === null || typeof input !== 'object') return input;
    const copy = { ...(input as Record<string, any>) };
    if (copy.result && typeof copy.result === 'object') {
      copy.result = { ...copy.result };
      if (Array.isArray(copy.result.content)) copy.result.content = copy.result.content.map((block: Record<string, unknown>) => (typeof block?.text === 'string' ? { ...block, text: text(block.text) } : block));
      if (copy.result.structuredContent) copy.result.structuredContent = value(copy.result.structuredContent);
    }
    if (copy.error && typeof copy.error.message === 'string') copy.error = { ...copy.error, message: text(copy.error.message) };
    return copy as T;
  };
  return { text, value, tail, message };
}

/** A complete JSON 2xx body seen by a probe in this session, kept for `field_presence` and `compare_fixture`. */
type Seen = { path: string; status: number; body: unknown; at: string };

/** Per-session memory of probes, bounded: the newest 50 per operation and 200 per concrete path. */
class ProbeLog {
  byOperation = new Map<string, Seen[]>();
  byPath = new Map<string, Seen>();
  add(operationKey: string | undefined, seen: Seen): void {
    if (operationKey) {
      const list = this.byOperation.get(operationKey) ?? [];
      list.push(seen);
      if (list.length > 50) list.shift();
      this.byOperation.set(operationKey, list);
    }
    this.byPath.delete(seen.path);
    this.byPath.set(seen.path, seen);
    if (this.byPath.size > 200) this.byPath.delete(this.byPath.keys().next().value!);
  }
}

// ───────────────────────────── 2. Tool table ─────────────────────────────

/** What a tool handler returns: an MCP CallToolResult (MCP 2025-11-25, Tools). */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

type ToolContext = {
  config: Config;
  redact: Redactor;
  documents?: DocumentSource;
  log: ProbeLog;
  fetch?: typeof fetch;
  signal?: AbortSignal;
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

function result(structured: Record<string, unknown>, isError = false): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

type DocumentState = { loaded?: LoadedDocument; problem?: string };

async function loadDocumentState(context: ToolContext): Promise<DocumentState> {
  if (!context.documents) return { problem: 'No OpenAPI document configured (set OPENAPI_DOC), so the response was not checked.' };
  try {
    return { loaded: await context.documents.get() };
  } catch (error) {
    return { problem: `The OpenAPI document could not be loaded, so the response was not checked: ${(error as Error).message}` };
  }
}

/**
 * The request headers of every probe: `Accept` preferring JSON, `User-Agent` naming this server, and
 * the key as `Authorization: Bearer <key>` or raw in `API_KEY_HEADER` (RFC 9110, 11.6.2).
 * @returns Header name to value; holds the key, so never log it.
 */
export function probeHeaders(config: Config): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', 'user-agent': `${SERVER_INFO.name}/${SERVER_INFO.version}` };
  if (config.apiKey) {
    if (config.apiKeyHeader) headers[config.apiKeyHeader] = config.apiKey;
    else headers.authorization = `Bearer ${config.apiKey}`;
  }
  return headers;
}

async function probeTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const decision = buildProbeUrl(context.config.baseUrl, args.path, args.query);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  const { config } = context;
  const headers = probeHeaders(config);
  let probed: ProbeResult;
  try {
    probed = await probe(decision.url, { headers, timeoutMs: config.timeoutMs, maxBytes: config.maxBytes, fetch: context.fetch, signal: context.signal });
  } catch (error) {
    if (error instanceof ProbeError) return failure(error.message);
    throw error;
  }
  // Whatever the API sent is cleaned of the key here, before anything (findings, session memory) derives from it;
  // a body cut at the budget may also end in the first characters of an echoed key.
  probed = context.redact.value(probed, true);
  if (probed.truncated && typeof probed.body === 'string') probed.body = context.redact.tail(probed.body);
  const structured: Record<string, unknown> = { ...probed };
  const relativePath = decision.url.pathname.slice(trimSlash(config.baseUrl.pathname).length) || '/';
  const seen: Seen = { path: relativePath + decision.url.search, status: probed.status, body: probed.body, at: new Date().toISOString() };
  const remember = !probed.truncated && probed.status >= 200 && probed.status < 300 && probed.body !== null && typeof probed.body === 'object';
  const state = await loadDocumentState(context);
  if (!state.loaded) {
    structured.validated = false;
    structured.validationNote = state.problem;
    if (remember) context.log.add(undefined, seen);
    return result(structured, probed.status >= 400);
  }
  const loaded = state.loaded;
  structured.document = { title: loaded.title, version: loaded.infoVersion, loadedAt: loaded.loadedAt };
  const match = findOperation(loaded, trimSlash(config.baseUrl.pathname), decision.url.pathname, relativePath);
  if (!match.operation) {
    structured.operation = null;
    structured.validated = false;
    structured.validationNote = `No GET operation in the document matches ${relativePath}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}${match.note ? `. ${match.note}` : ''}.`;
    if (remember) context.log.add(undefined, seen);
    return result(structured, probed.status >= 400);
  }
  structured.operation = summarize(match.operation);
  if (match.note) structured.matchNote = match.note;
  const parameterProblems = checkPathParams(loaded, match);
  if (parameterProblems.length) structured.parameterProblems = parameterProblems;
  Object.assign(structured, judge(loaded, match.operation, probed));
  if (remember) context.log.add(operationKey(match.operation), seen);
  return result(structured, probed.status >= 400);
}

async function fieldPresenceTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.operation !== 'string' || !args.operation.trim()) {
    return failure('`operation` must be a string: an operationId ("getMeter"), "GET /meters/{meterId}", or a concrete path probed before ("/meters/mtr_1").');
  }
  const state = await loadDocumentState(context);
  if (!state.loaded) return failure(`field_presence needs the OpenAPI document. ${state.problem}`);
  const operation = resolveOperation(state.loaded, trimSlash(context.config.baseUrl.pathname), args.operation);
  if (typeof operation === 'string') return failure(operation);
  const seen = context.log.byOperation.get(operationKey(operation)) ?? [];
  if (seen.length === 0) {
    return failure(`No complete JSON 2xx response of ${operationKey(operation)} has been probed in this session. Probe it first (several records, e.g. different ids), then ask again.`);
  }
  const status = seen[0]!.status;
  const target = schemaFor(state.loaded.doc, operation.method, operation.pathTemplate, status, 'application/json');
  const bodies = seen.map((entry) => entry.body);
  const fields: FieldPresence[] = fieldPresence(state.loaded.doc, target?.schema ?? {}, bodies, target ? { at: target.schemaPath } : undefined);
  const shape = inferShape(bodies[0]);
  const inferred = seen.slice(1).map((entry) => ({ path: entry.path, findings: check({}, shape, entry.body) }));
  return result({
    operation: summarize(operation),
    probes: seen.map((entry) => entry.path),
    fields,
    optionalFields: fields.filter((field) => field.documented && !field.required).map((field) => `${field.path}: ${field.text}`),
    undocumentedFields: fields.filter((field) => !field.documented).map((field) => `${field.path}: ${field.text}`),
    inferredFromFirst: {
      from: seen[0]!.path,
      note: 'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.',
      shape,
      against: inferred,
    },
  });
}

async function compareFixtureTool(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (!('fixture' in args) || args.fixture === undefined) {
    return failure('`fixture` is required: the saved JSON body of the same record (an object or array as it was recorded).');
  }
  let fixture = args.fixture;
  if (typeof fixture === 'string') {
    try {
      fixture = JSON.parse(fixture);
    } catch {
      return failure('`fixture` is a string that does not parse as JSON; pass the recorded body itself (an object or array).');
    }
  }
  if (nestingDepth(fixture) > MAX_BODY_DEPTH) return failure(`\`fixture\` nests deeper than ${MAX_BODY_DEPTH} levels; compare a smaller part of the record.`);
  const decision = buildProbeUrl(context.config.baseUrl, args.path);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  const relativePath = (decision.url.pathname.slice(trimSlash(context.config.baseUrl.pathname).length) || '/') + decision.url.search;
  let seen = context.log.byPath.get(relativePath);
  let probedNow = false;
  if (!seen) {
    const probed = await probeTool({ path: args.path }, context);
    if (probed.isError) return probed;
    seen = context.log.byPath.get(relativePath);
    probedNow = true;
    if (!seen) return failure(`GET ${relativePath} did not return a complete JSON 2xx body, so there is nothing to compare: ${probed.content[0]!.text.slice(0, 500)}`);
  }
  const diff: FixtureDiff = compareWithFixture(fixture, seen.body);
  return result({ path: relativePath, live: { at: seen.at, probedNow }, ...diff, same: diff.onlyLive.length + diff.onlyFixture.length + diff.changed.length === 0 });
}

const FINDING_SCHEMA = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    severity: { type: 'string' },
    path: { type: 'string' },
    schemaPath: { type: 'string' },
    message: { type: 'string' },
  },
} as const;

/** The tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [
  {
    name: 'probe',
    title: 'Probe the API (read-only GET)',
    description:
      'Sends one GET to the configured API (there is no other method) and returns status, content type, body size in bytes, ' +
      'whether the body was cut at the byte budget, and the body (parsed JSON when complete). When an OpenAPI document is configured, ' +
      'the response is checked against the operation the path matches: `findings` lists missing required fields, wrong types, enum ' +
      'violations and fields the document never mentions, each at an instance path such as $.items[0].id. The API key is added by ' +
      'the server and never shown. `path` is relative to the base URL, e.g. "/meters/mtr_1"; absolute URLs, "//host", backslashes ' +
      'and ".." are refused. Probe several records of one operation, then call field_presence to see which fields are really optional.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path after the base URL, with a single leading "/", e.g. "/meters/mtr_1" or "/meters?status=active".' },
        query: { type: 'object', additionalProperties: { type: 'string' }, description: 'Query parameters to add, name to value, e.g. {"limit": "5"}.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        status: { type: 'integer' },
        contentType: { type: ['string', 'null'] },
        bytes: { type: 'integer' },
        truncated: { type: 'boolean' },
        body: {},
        findings: { type: 'array', items: FINDING_SCHEMA },
        matchesContract: { type: 'boolean' },
      },
      required: ['url', 'status', 'contentType', 'bytes', 'truncated', 'body'],
    },
    annotations: { title: 'Probe the API (read-only GET)', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: probeTool,
  },
  {
    name: 'field_presence',
    title: 'Optional fields across probes',
    description:
      'For one operation probed several times in this session, lists every field with how often it was present ("present in 2 of 3"), ' +
      'whether the document requires it, and fields the document never mentions; then shows what a client would get wrong if it ' +
      'inferred the shape from the first probe alone (every field seen made required). Sends no request. `operation` is an ' +
      'operationId, "GET /path/{template}", or a concrete path probed before.',
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', description: 'operationId ("getMeter"), "GET /meters/{meterId}", or a concrete path ("/meters/mtr_1").' },
      },
      required: ['operation'],
      additionalProperties: false,
    },
    annotations: { title: 'Optional fields across probes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: fieldPresenceTool,
  },
  {
    name: 'compare_fixture',
    title: 'Compare a saved fixture with the live record',
    description:
      'Compares a saved response body (a test fixture recorded earlier) with the live response of the same path: fields only the ' +
      'live response has, fields only the fixture has, and values that moved, each at an instance path. Uses the newest probe of that ' +
      'exact path in this session, or probes it now (GET, same rules as probe).',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The record\'s path after the base URL, e.g. "/meters/mtr_1".' },
        fixture: { description: 'The saved body: the JSON object or array as it was recorded.' },
      },
      required: ['path', 'fixture'],
      additionalProperties: false,
    },
    annotations: { title: 'Compare a saved fixture with the live record', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: compareFixtureTool,
  },
];

const INSTRUCTIONS =
  'openapi-probe lets you look at a real HTTP API while you write a client for it, without changing anything. ' +
  'Use `probe` to GET a path (relative to the configured base URL; GET is the only method, the API key is added for you and never shown). ' +
  'Each response is checked against the OpenAPI document: trust `findings` over a single example. A field that is absent in one ' +
  'record may be optional: probe several records of the same operation and call `field_presence` before making any field required. ' +
  'Fields marked undocumented are not in the contract: do not rely on them. Use `compare_fixture` to see how a saved test fixture ' +
  'differs from the live record. Writes are never sent by this server; draft them for a human to run.';

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
};

/**
 * Creates the dispatcher for one session (one stdio connection). Implements `initialize`, `ping`,
 * `tools/list`, `tools/call` and the notifications `notifications/initialized` and
 * `notifications/cancelled` (MCP 2025-11-25: Lifecycle, Tools, Utilities/Ping, Utilities/Cancellation).
 * Unknown methods get -32601, before `initialize` too; ids keep their JSON type (`20` and `"20"`
 * differ); a request whose id is null or not a string/integer gets -32600 with id null; a batch
 * (JSON-RPC 2.0, 6) is answered element by element.
 * @param config From `readConfig`.
 * @param options.fetch Injected fetch for tests.
 * @param options.documents Document source; default built from `config.openapiDoc`.
 * @param options.redact The key redactor; default built from `config.apiKey` (pass the one the transport uses, to build it once).
 */
export function createHandler(config: Config, options: { fetch?: typeof fetch; documents?: DocumentSource; log?: (line: string) => void; redact?: Redactor } = {}): Handler {
  const documents = options.documents ?? (config.openapiDoc ? createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs }) : undefined);
  const probeLog = new ProbeLog();
  const redact = options.redact ?? redactor(config.apiKey);
  const log = options.log ?? (() => {});
  let negotiated: string = PROTOCOL_VERSIONS[0];
  const inFlight = new Map<string, AbortController>();
  const pending = new Set<Promise<unknown>>();

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
        const args = params.arguments ?? {};
        if (args === null || typeof args !== 'object' || Array.isArray(args)) {
          return { ...failure(`\`arguments\` for ${name} must be an object, got ${describeType(args)}.`) };
        }
        const unknown = Object.keys(args).filter((key) => !Object.hasOwn(tool.inputSchema.properties as object, key));
        if (unknown.length) {
          return { ...failure(`Unknown argument${unknown.length > 1 ? 's' : ''} for ${name}: ${unknown.join(', ')}. It takes: ${Object.keys(tool.inputSchema.properties as object).join(', ')}.`) };
        }
        const called = await tool.handler(args as Record<string, unknown>, { config, redact, documents, log: probeLog, fetch: options.fetch, signal });
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
    try {
      const outcome = await dispatch(method, (params ?? {}) as Record<string, unknown>, controller.signal);
      if (controller.signal.aborted) return undefined; // cancelled: no response (MCP Cancellation)
      return { jsonrpc: '2.0', id: requestId, result: outcome };
    } catch (error) {
      if (controller.signal.aborted) return undefined;
      if (error instanceof RpcError) return errorResponse(requestId, error.code, error.message);
      log(`internal error in ${method}: ${(error as Error)?.stack ?? String(error)}`);
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
  };
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

/** Lines longer than this (in UTF-16 code units) are dropped with one -32600 error, so memory stays bounded. */
export const MAX_LINE = 32 * 1024 * 1024;

/**
 * Runs the stdio transport (MCP 2025-11-25, Transports, stdio): reads newline-delimited JSON-RPC
 * from `input` (UTF-8, characters split across chunks reassembled, a trailing CR and a leading BOM
 * dropped, blank lines ignored), hands each message to `handler` without waiting for earlier ones,
 * and writes each response as one line of `JSON.stringify` plus LF to `output`. A line that is not
 * JSON gets -32700 with id null.
 * @param redact Applied to every message before it is serialized (removes the API key should the API echo it).
 * @returns A promise that settles when `input` has ended, every call in flight has answered and
 *   the last response has been flushed.
 */
export function serve(handler: Handler, options: { input?: Readable; output?: Writable; redact?: Redactor } = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const redact = options.redact ?? NO_REDACTION;
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let dropping = false;
  let lastWrite: Promise<void> = Promise.resolve();

  const write = (message: unknown) => {
    let line: string;
    try {
      line = JSON.stringify(Array.isArray(message) ? message.map(redact.message) : redact.message(message)) + '\n';
    } catch (error) {
      // Never let one unserializable answer take the server down: answer its id with -32603.
      const id = (message as { id?: RequestId | null }).id ?? null;
      line = JSON.stringify(errorResponse(id, ERROR_CODES.internalError, `Internal error: the answer could not be serialized (${(error as Error).message}).`)) + '\n';
    }
    lastWrite = new Promise<void>((resolve) => {
      output.write(line, () => resolve());
    });
  };

  const handleLine = (raw: string) => {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1); // RFC 8259, 8.1: parsers may ignore a BOM
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      write(errorResponse(null, ERROR_CODES.parseError, `Parse error: ${(error as Error).message}`));
      return;
    }
    handler.handleMessage(message).then((answer) => {
      if (answer !== undefined) write(answer);
    });
  };

  const take = (text: string) => {
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      const piece = text.slice(start, newline);
      if (dropping) dropping = false;
      else handleLine(buffer + piece);
      buffer = '';
      start = newline + 1;
    }
    if (!dropping) buffer += text.slice(start);
    if (buffer.length > MAX_LINE) {
      buffer = '';
      dropping = true;
      write(errorResponse(null, ERROR_CODES.invalidRequest, `Invalid Request: message longer than ${MAX_LINE} characters, dropped.`));
    }
  };

  return new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    input.on('end', async () => {
      const rest = buffer + decoder.end();
      buffer = '';
      if (!dropping && rest.trim() !== '') handleLine(rest);
      await handler.idle();
      await lastWrite;
      resolve();
    });
  });
}

/**
 * Entry point: reads flags (cli.ts `commandLine`: `--help`, `--version` and `check` end there) and the
 * configuration, logs to stderr, serves stdio, exits 0 when stdin closes (2 on bad configuration or flags).
 */
export async function main(): Promise<void> {
  // Flags, --help, --version and the `check` command: cli.ts. It returns the environment to serve with, or an exit code.
  const start = await commandLine(process.argv.slice(2), process.env);
  if ('exitCode' in start) {
    await new Promise((resolve) => process.stdout.write('', resolve));
    process.exit(start.exitCode);
  }
  let config: Config;
  try {
    config = readConfig(start.env);
  } catch (error) {
    process.stderr.write(`openapi-probe: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const redact = redactor(config.apiKey);
  const log = (line: string) => process.stderr.write(redact.text(`openapi-probe: ${line}\n`));
  const documents = config.openapiDoc ? createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs }) : undefined;
  const handler = createHandler(config, { log, documents, redact });
  log(`serving ${config.baseUrl.origin}${trimSlash(config.baseUrl.pathname)} (GET only) on stdio; document: ${config.openapiDoc ?? 'none'}`);
  if (documents) {
    documents
      .get()
      .then((loaded) => log(`document "${loaded.title}" ${loaded.infoVersion} (${loaded.version}): ${loaded.operations.length} operations${loaded.problems.length ? `, ${loaded.problems.length} problems: ${loaded.problems.slice(0, 3).join('; ')}` : ''}`))
      .catch((error: Error) => log(`document not loaded, probes go unchecked: ${error.message}`));
  }
  await serve(handler, { redact });
  // stdin closed (MCP stdio shutdown): exit even if a keep-alive socket or timer is still open.
  process.exit(0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
