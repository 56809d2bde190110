/**
 * One GET to the API under test, read within a byte budget, and its body decoded: `fetchResponse` is the network
 * half (cheap on the thread), `decodeProbe` the decoding half (charset, JSON, warnings), `probe` both. Failures
 * before the status line are `ProbeError`s that name the URL, the cause and what to do.
 */
import { readCappedStream } from '../shared/capped-read.ts';
import type { Redactor } from '../redaction/redaction.ts';
import type { Config } from '../runtime/config.ts';
import { SERVER_INFO } from '../runtime/server-info.ts';
import { fetchGet, httpGet } from './http-get.ts';
import { decodeBody } from './body.ts';
import type { BodyWarning } from '../shared/json-text.ts';
import type { DecodedBody } from './body.ts';

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
  /** Set when something about the body needs saying (binary, cut, JSON that does not parse, a broken content coding). */
  note?: string;
  /** Remarks about the JSON text itself (duplicate names, changed numbers, depth), each at an instance path. */
  warnings?: BodyWarning[];
  /** Line-framed JSON (NDJSON, JSON Lines): each record parsed, for the record-by-record check; never shown. */
  records?: DecodedBody['records'];
  /** Every number JSON parsing changed, as written, for the checks (the warnings list 20); never shown. */
  numbers?: DecodedBody['numbers'];
};

/**
 * A response as read off the wire, before decoding: what `probe` hands to `decodeProbe`, and what the
 * server sends to the check worker (structured-clone safe: no class instances).
 */
export type RawResponse = {
  /** The URL requested (origin, path and query). */
  url: string;
  status: number;
  contentType: string | null;
  /** The Content-Encoding header, or null. */
  contentEncoding: string | null;
  /** The Location header of a 3xx, if any. */
  location?: string;
  /** Body bytes received after content decoding (a lower bound when `truncated`). */
  bytes: number;
  truncated: boolean;
  /** The body bytes held, at most the read budget, cut at a UTF-8 character boundary. */
  held: Uint8Array;
  /** Set when reading the body failed after the status line: the note to show instead of the body. */
  failureNote?: string;
};

/**
 * What a probe's answer says of a response before its body is read: URL, status, Content-Type, byte count, whether it
 * was cut, and `body: null` (`decodeProbe` fills the body in; an unfinished check answers with this much).
 */
export function responseHead(raw: RawResponse): ProbeResult {
  return {
    url: raw.url,
    status: raw.status,
    contentType: raw.contentType,
    bytes: raw.bytes,
    truncated: raw.truncated,
    body: null,
  };
}

/**
 * Turns a response read off the wire into a `ProbeResult`: the body decoded by `decodeBody`
 * (src/api/body.ts: charset, JSON always UTF-8, warnings about the JSON text), or, when reading broke,
 * `body: null` and the failure note. Synchronous; CPU time grows with `held` (about linear).
 * @param options.maxBytes The read budget, in bytes, named in notes.
 * @param options.cutNote The note of a body cut at the budget.
 * @param options.redact Applied to values quoted in warnings before they are shortened.
 */
export function decodeProbe(
  raw: RawResponse,
  options: { maxBytes: number; cutNote?: string; redact?: Redactor },
): ProbeResult {
  const result: ProbeResult = responseHead(raw);
  if (raw.location !== undefined) result.location = raw.location;
  if (raw.failureNote !== undefined) {
    result.note = raw.failureNote;
    return result;
  }
  const decoded = decodeBody(raw.held, raw.contentType, {
    truncated: raw.truncated,
    maxBytes: options.maxBytes,
    cutNote: options.cutNote,
    redact: options.redact?.text,
    contentEncoding: raw.contentEncoding,
  });
  result.body = decoded.body;
  if (decoded.note) result.note = decoded.note;
  if (decoded.warnings?.length) result.warnings = decoded.warnings;
  if (decoded.numbers) result.numbers = decoded.numbers;
  if (decoded.records) result.records = decoded.records;
  return result;
}

/** A probe failure the agent can act on (timeout, refused connection, DNS); the message names URL and cause. */
/** Why a probe failed before the status line, one stable word per cause. */
export type ProbeFailure =
  'timeout' | 'cancelled' | 'refused' | 'dns' | 'reset' | 'unreachable' | 'tls' | 'bad-port' | 'network';

/**
 * A probe failure the agent can act on: `message` names the URL, the cause and what to do; `code` says which cause
 * it is (`ProbeFailure`), for callers that branch on it.
 */
export class ProbeError extends Error {
  code: ProbeFailure;
  constructor(code: ProbeFailure, message: string) {
    super(message);
    this.name = 'ProbeError';
    this.code = code;
  }
}

/**
 * Sends one GET and reads at most `maxBytes` of the body (plus one network chunk, to know whether
 * it ended), counting decoded bytes as they stream: a chunked, gzip-inflated or endless body costs
 * no more than a few budgets of memory (RFC 9110, 8.4 and 8.6: Content-Length counts bytes on the
 * wire, not decoded ones, so it is never trusted). Redirects are not followed. The body is decoded
 * by `decodeBody` (src/api/body.ts): charset, JSON always UTF-8, warnings about the JSON text. A body
 * whose content coding breaks while it is read (`Content-Encoding: gzip` over plain bytes) is a
 * result with the status, the content type, `body: null` and a note naming the coding problem: the
 * API answered (RFC 9110, 8.4).
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
  options: {
    headers: Record<string, string>;
    timeoutMs: number;
    maxBytes: number;
    cutNote?: string;
    redact?: Redactor;
    fetch?: typeof fetch;
    signal?: AbortSignal;
  },
): Promise<ProbeResult> {
  return decodeProbe(await fetchResponse(url, options), options);
}

/**
 * The network half of `probe`: sends the GET and reads at most `maxBytes` of the body (plus one
 * chunk), undecoded. Cheap on the thread: no parse, no scan, no check.
 * @returns The response as read (`RawResponse`, src/jobs/pipeline.ts); a body whose reading broke carries `failureNote`.
 * @throws ProbeError as `probe` does.
 */
export async function fetchResponse(
  url: URL,
  options: {
    headers: Record<string, string>;
    timeoutMs: number;
    maxBytes: number;
    fetch?: typeof fetch;
    signal?: AbortSignal;
  },
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
    // node:http, not fetch, unless a test injects one (http-get.ts: fetch's first load holds up ping).
    const response = await (options.fetch ? fetchGet(options.fetch) : httpGet)(url, {
      headers: options.headers,
      signal: controller.signal,
    });
    const { held, bytes, truncated, failure } = await readBodyCapped(response.body, options.maxBytes);
    if (failure && (timedOut || options.signal?.aborted)) throw failure;
    const contentType = response.header('content-type');
    const contentEncoding = response.header('content-encoding');
    const raw: RawResponse = {
      url: shown,
      status: response.status,
      contentType,
      contentEncoding,
      bytes,
      truncated,
      held,
    };
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
    if (timedOut)
      throw new ProbeError(
        'timeout',
        `GET ${shown} timed out after ${options.timeoutMs} ms (PROBE_TIMEOUT_MS). The API may be slow or unreachable; try again, or raise PROBE_TIMEOUT_MS.`,
      );
    if (options.signal?.aborted) throw new ProbeError('cancelled', `GET ${shown} was cancelled.`);
    throw new ProbeError(
      failureCode(error),
      `GET ${shown} failed: ${networkCause(error).replace(/\.$/, '')}. ${failureAdvice(error)}`,
    );
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
async function readBodyCapped(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
): Promise<{ held: Uint8Array; bytes: number; truncated: boolean; failure?: unknown }> {
  const { all, ...read } = await readCappedStream(body, maxBytes);
  const held = read.truncated ? cutAtCharBoundary(all, maxBytes) : all;
  return {
    held: held.byteOffset === 0 && held.byteLength === held.buffer.byteLength ? held : new Uint8Array(held),
    ...read,
  };
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

/**
 * The socket's side of a failed GET: fetch (a test's injected one) wraps it as `cause`, node:http (http-get.ts)
 * throws it as it is. `badPort` for the WHATWG bad-port refusal of either.
 */
function socketError(error: unknown): { code?: string; message?: string; badPort: boolean } {
  const cause =
    (error as { cause?: { code?: string; message?: string } })?.cause ??
    (error as { code?: string; message?: string } | undefined);
  return {
    code: cause?.code,
    message: cause?.message,
    badPort: (error as Error)?.message === 'bad port' || cause?.message === 'bad port',
  };
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
  const message = (cause.message ?? 'network error')
    .replace(/\s+/g, ' ')
    .replace(/:\.\.\/deps\/\S*/g, '')
    .trim();
  if (code) return message.includes(code) ? message : `${message} (${code})`;
  return cause.message !== undefined ? message : ((error as Error)?.message ?? String(error));
}

/** The `ProbeFailure` of a GET that failed before the status line, from the socket's error code or message. */
function failureCode(error: unknown): ProbeFailure {
  const cause = socketError(error);
  if (cause.badPort) return 'bad-port';
  const code = cause.code ?? '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ECONNRESET') return 'reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'unreachable';
  if (
    CERTIFICATE_CODES.has(code) ||
    /^ERR_(TLS|SSL)_|^ERR_OSSL/.test(code) ||
    /wrong version number|packet length too long|unknown protocol/i.test(cause.message ?? '')
  )
    return 'tls';
  return 'network';
}

/** Certificate checks Node reports by code (node:tls): the API's certificate is not trusted or does not fit. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);

/**
 * What to do about a GET that failed before the status line, for the probe's error text: the port, the
 * certificate or the scheme when those are the cause, else the base URL and the API's health.
 */
function failureAdvice(error: unknown): string {
  const cause = socketError(error);
  if (cause.badPort) return 'Serve the API on another port.';
  if (CERTIFICATE_CODES.has(cause.code ?? '')) {
    return "Node does not trust the API's certificate: if you do, give the server NODE_EXTRA_CA_CERTS=/path/to/ca.pem in its environment (in an editor, the server entry's env).";
  }
  if (/wrong version number|packet length too long|unknown protocol/i.test(cause.message ?? '')) {
    return 'The server did not answer TLS: API_BASE_URL may say https:// for a server that speaks plain http://.';
  }
  return 'Check that API_BASE_URL is right and the API is up.';
}

/**
 * The request headers of every probe: `Accept` preferring JSON, `User-Agent` naming this server, and
 * the key as `Authorization: Bearer <key>` or raw in `API_KEY_HEADER` (RFC 9110, 11.6.2), and the call's
 * request id as `X-Request-Id` when there is one, with its W3C `traceparent` (W3C Trace Context, 3.2) when given.
 * @returns Header name to value; holds the key, so never log it.
 */
export function probeHeaders(config: Config, requestId?: string, traceparent?: string): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json, */*;q=0.5',
    'user-agent': `${SERVER_INFO.name}/${SERVER_INFO.version}`,
  };
  // One id per tool call, so the API's own logs can be joined with ours (issue 8, Traces).
  if (requestId) headers['x-request-id'] = requestId;
  if (traceparent) headers.traceparent = traceparent;
  if (config.apiKey) {
    if (config.apiKeyHeader) headers[config.apiKeyHeader] = config.apiKey;
    else headers.authorization = `Bearer ${config.apiKey}`;
  }
  return headers;
}
