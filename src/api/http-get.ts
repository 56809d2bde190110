/**
 * The probe's GET on `node:http` / `node:https` instead of `fetch`: Node loads `fetch` (undici) on first use,
 * which holds the thread that answers `ping` for 20 to 60 ms (more on a busy machine), and each
 * fetch costs about twice the CPU of a plain request. This module gives what the probe reads of a response
 * (status, header fields, the decoded body as it arrives) and keeps what it relied on in fetch: no redirect
 * is followed, the WHATWG "bad port" list is refused, and the body is decoded as fetch decodes it.
 */
import type { Agent as HttpAgent, IncomingMessage, RequestOptions } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import type { ZlibOptions } from 'node:zlib';
import { lazyBuiltin } from '../shared/builtin.ts';
import { headerText } from './body.ts';

// Loaded by the first probe, not before the server answers `initialize` (issue 20).
const http = lazyBuiltin('node:http');
const stream = lazyBuiltin('node:stream');
const zlib = lazyBuiltin('node:zlib');

/** What the probe reads of a response: the status, a header field by name, and the body (decoded content codings) as it arrives. */
export type HttpAnswer = {
  status: number;
  /** The field value by case-insensitive name, repeated fields joined with `, ` (RFC 9110, 5.3), or null when absent. */
  header(name: string): string | null;
  /** The body's bytes as they arrive, content codings removed; breaking out of the iteration closes the connection. */
  body: AsyncIterable<Uint8Array> | null;
};

/** A GET as the probe sends it; `fetchGet` and `httpGet` are the two. */
export type HttpGetter = (
  url: URL,
  options: { headers: Record<string, string>; signal: AbortSignal },
) => Promise<HttpAnswer>;

/**
 * Ports fetch never connects to (WHATWG Fetch, 2.9 "Port blocking", the "bad port" list): ports of other
 * protocols, so a request cannot be made to speak to a mail or X11 server.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The content codings decoded, as fetch does (RFC 9110, 8.4.1); a body with any other coding is returned as sent. */
const CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** Most content codings one response may list, as fetch allows (undici: "maximum allowed is 5"); more fail the body. */
const MAX_CODINGS = 5;

const https = lazyBuiltin('node:https');
let plainAgent: HttpAgent | undefined;
let secureAgent: HttpAgent | undefined;

/**
 * The agents' options: kept-alive connections, and, when Node is told to use the environment's proxy
 * (`NODE_USE_ENV_PROXY=1` or `--use-env-proxy`, Node >= 24.5), `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` as
 * fetch honours them there (Node's agents take them only through `proxyEnv`; older Node ignores the option).
 */
function agentOptions(): { keepAlive: true; proxyEnv?: NodeJS.ProcessEnv } {
  const useProxy = process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy');
  return useProxy ? { keepAlive: true, proxyEnv: process.env } : { keepAlive: true };
}

/**
 * Loads the built-in modules a GET to `base` needs (`node:http`, with `node:https` for an `https:` base), so the first
 * probe does not wait for them; the entry calls it once the way to `tools/list` is clear (issue 20). Never throws.
 */
export function prepareGet(base: URL): void {
  http();
  stream();
  if (base.protocol === 'https:') https();
}

/**
 * Sends one GET (RFC 9110, 9.3.1) with `headers` plus `Accept-Encoding: gzip, deflate, br`, over a kept-alive
 * connection, and resolves at the status line and header fields; redirects are returned, never followed.
 * `node:https` is loaded on the first `https:` URL, with Node's default certificate checks.
 * @param url An absolute `http:` or `https:` URL (WHATWG URL).
 * @param options.signal Aborting it ends the exchange: before the header fields the promise rejects, after them the body's iteration throws.
 * @returns The response (`HttpAnswer`); its body is decoded from gzip, deflate or br as it is read.
 * @throws TypeError `bad port` for a port of the WHATWG list, `unsupported scheme` for another scheme; the socket's
 *   own error (with `code`: ECONNREFUSED, ENOTFOUND, ECONNRESET...) when no response arrives; the abort reason.
 */
export async function httpGet(
  url: URL,
  options: { headers: Record<string, string>; signal: AbortSignal },
): Promise<HttpAnswer> {
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') throw new TypeError(`unsupported scheme ${url.protocol}`);
  if (url.port !== '' && BAD_PORTS.has(Number(url.port))) throw new TypeError('bad port');
  let send = http().request;
  let agent: HttpAgent;
  if (secure) {
    send = https().request;
    agent = secureAgent ??= new (https().Agent)(agentOptions());
  } else {
    agent = plainAgent ??= new (http().Agent)(agentOptions());
  }
  options.signal.throwIfAborted();
  const requestOptions: RequestOptions = {
    method: 'GET',
    headers: { 'accept-encoding': 'gzip, deflate, br', ...options.headers },
    agent,
    signal: options.signal,
  };
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(url, requestOptions);
    let settled = false;
    // Every error is rejected or, once the response has come, surfaces through the body: never an unhandled event.
    request.on('error', (error: Error) => {
      settled = true;
      reject(error);
    });
    request.once('response', (answer: IncomingMessage) => {
      settled = true;
      resolve(answer);
    });
    // A 101 (or a CONNECT-style answer) hands the socket over instead of giving a response: refused and closed,
    // or the call would wait forever and hold its concurrency slot.
    request.once('upgrade', (answer: IncomingMessage, socket: { destroy(): void }) => {
      settled = true;
      socket.destroy();
      reject(
        Object.assign(
          new Error(
            `the API answered ${answer.statusCode} ${headerText(answer.statusMessage ?? '')}`.trim() +
              ', a protocol switch the probe does not take',
          ),
          { code: 'UPGRADE' },
        ),
      );
    });
    // Whatever else ends the request without a response (a socket taken over, destroyed) settles the call too.
    // Every request closes: the error is made only when nothing settled it first (no stack trace per probe).
    request.once('close', () => {
      if (!settled)
        reject(Object.assign(new Error('the connection closed before a response arrived'), { code: 'ECONNRESET' }));
    });
    request.end();
  });
  // The body's iteration sees a broken connection as its own error; this listener only keeps the event handled.
  response.on('error', () => {});
  const header = (name: string): string | null => {
    const value = response.headers[name.toLowerCase()];
    return value === undefined ? null : headerText(Array.isArray(value) ? value.join(', ') : value);
  };
  return { status: response.statusCode ?? 0, header, body: decoded(response, header('content-encoding')) };
}

/**
 * The body with its content codings removed, last applied first (RFC 9110, 8.4). Decoding is as lenient as
 * fetch's at the end of a stream (a gzip stream cut short gives what it held, not an error). A coding other
 * than gzip, deflate and br leaves the body as sent.
 */
function decoded(response: IncomingMessage, contentEncoding: string | null): AsyncIterable<Uint8Array> {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > MAX_CODINGS) {
    // One decoder per coding, each working through what the one before gave: a list of thousands would hold the thread
    // and run past the timeout. Refused before any is built; the connection is closed.
    response.destroy();
    return failing(
      Object.assign(new Error(`too many content codings: ${codings.length}, at most ${MAX_CODINGS} are decoded`), {
        code: 'TOO_MANY_CODINGS',
      }),
    );
  }
  if (codings.length === 0 || !codings.every((coding) => CODINGS.has(coding))) return response;
  const { constants } = zlib();
  const lenient = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  const decoders = codings.reverse().map((coding) =>
    coding === 'br'
      ? zlib().createBrotliDecompress({
          flush: constants.BROTLI_OPERATION_FLUSH,
          finishFlush: constants.BROTLI_OPERATION_FLUSH,
        })
      : coding === 'deflate'
        ? deflateDecoder(lenient)
        : zlib().createGunzip(lenient),
  );
  // An error anywhere ends every stream of the chain and is thrown by the iteration of the last one.
  return stream().pipeline(
    [response, ...decoders] as unknown as [Readable, ...NodeJS.ReadWriteStream[]],
    () => {},
  ) as unknown as AsyncIterable<Uint8Array>;
}

/** A body whose reading fails at once with `error`. */
function failing(error: Error): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}

let deflateClass: ReturnType<typeof defineDeflateDecoder> | undefined;

/** A new `deflate` decoder (`defineDeflateDecoder`), its class defined at the first use, when `node:stream` loads. */
function deflateDecoder(options: ZlibOptions): Transform {
  deflateClass ??= defineDeflateDecoder();
  return new deflateClass(options);
}

/**
 * `deflate` as fetch reads it: the zlib format RFC 9110 (8.4.1.2) names, or raw deflate, which some servers
 * send under that name; told apart by the first byte (a zlib header's low nibble is 8, the deflate method).
 */
const defineDeflateDecoder = () =>
  class DeflateDecoder extends stream().Transform {
    options: ZlibOptions;
    inner: Transform | undefined;

    constructor(options: ZlibOptions) {
      super();
      this.options = options;
    }

    override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      if (!this.inner) {
        const inner: Transform =
          (chunk[0]! & 0x0f) === 0x08 ? zlib().createInflate(this.options) : zlib().createInflateRaw(this.options);
        // Backpressure: a bomb's few bytes inflate to megabytes; the inner decoder waits while this one is full.
        inner.on('data', (data: Buffer) => {
          if (!this.push(data)) inner.pause();
        });
        inner.on('error', (error: Error) => this.destroy(error));
        this.inner = inner;
      }
      this.inner.write(chunk, () => callback());
    }

    override _read(size: number): void {
      this.inner?.resume();
      super._read(size);
    }

    override _flush(callback: (error?: Error | null) => void): void {
      if (!this.inner) return callback();
      this.inner.once('end', () => callback());
      this.inner.end();
    }

    override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
      this.inner?.destroy();
      callback(error);
    }
  };

/**
 * A `fetch` (tests inject one) as an `HttpGetter`: `redirect: 'manual'`, the body as fetch decoded it.
 * @throws What `fetchImpl` throws.
 */
export function fetchGet(fetchImpl: typeof fetch): HttpGetter {
  return async (url, options) => {
    const response = await fetchImpl(url, {
      method: 'GET',
      headers: options.headers,
      redirect: 'manual',
      signal: options.signal,
    });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: response.body as unknown as AsyncIterable<Uint8Array> | null,
    };
  };
}
