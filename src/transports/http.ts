/**
 * The Streamable HTTP transport (MCP 2025-11-25 and 2026-07-28, Transports, Streamable HTTP): one endpoint, `/mcp`,
 * serving both eras side by side through the same wire (`src/mcp/wire.ts`) and sessions (`src/mcp/session.ts`) as
 * stdio. Admission in front of it: `Host` and `Origin` checked (DNS rebinding, Transports, Security Warning), the
 * auth layer's decision (`http-auth.ts`, the seam), the runtime of the caller's tenant, rate limits per verified
 * subject and per tenant. `/healthz` and `/readyz` answer without authentication or detail. Moves bytes; the session
 * does the rest.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  ERROR_CODES,
  PROTOCOL_VERSIONS,
  META_KEYS,
  errorResponse,
  isModernVersion,
  missingMetaFields,
  missingMetaMessage,
} from '../mcp/codes.ts';
import type { JsonRpcResponse, RequestId } from '../mcp/codes.ts';
import { sharedBudget } from '../mcp/memory.ts';
import type { SharedBudget } from '../mcp/memory.ts';
import { createSession } from '../mcp/session.ts';
import type { Caller, ServerRuntime, Session } from '../mcp/session.ts';
import { MAX_LINE, decode, encode } from '../mcp/wire.ts';
import { chainRedactors, tokenRedactor } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { createKeyedRateLimit } from '../runtime/limits.ts';
import type { KeyedRateLimit } from '../runtime/limits.ts';
import { requestIdFrom } from '../runtime/log.ts';
import type { AuditRecord, Logger } from '../runtime/log.ts';
import { readCappedStream } from '../shared/capped-read.ts';
import type { HttpAuth, HttpCaller } from '../shared/http-auth.ts';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');
const http = lazyBuiltin('node:http');

/**
 * The refusal of a Host outside the allow list: it names the setting an operator lists more names in, not the Host
 * sent (a caller learns nothing of what passes).
 */
const HOST_REFUSED =
  'Host not allowed (DNS rebinding check); the server allows more names with PROBE_HTTP_ALLOWED_HOSTS (host:port as sent).';

/** The refusal of an Origin outside the allow list, naming its setting likewise. */
const ORIGIN_REFUSED = 'Origin not allowed; the server allows more origins with PROBE_HTTP_ALLOWED_ORIGINS.';

/** The one MCP endpoint (MCP Transports, Streamable HTTP: a single path for POST, GET and DELETE). */
export const MCP_PATH = '/mcp';

/** `JSON-RPC` code of a header that disagrees with the body (MCP 2026-07-28, Transports: `HeaderMismatch`). */
export const HEADER_MISMATCH = -32020;

/** The `_meta` key under which every HTTP answer names its request id (also sent as the `X-Request-Id` header). */
export const REQUEST_ID_META = 'openapi-probe/requestId';

/** The most token redactors kept for reuse. */
export const TOKEN_REDACTORS = 1024;

/**
 * Sockets past a connection cap held at once to be answered 503 with `Retry-After` (their request read within the
 * header limits); past this many a socket is closed unanswered, so refusing costs a bounded number of sockets too.
 */
export const REFUSED_CONNECTIONS = 64;

/** Bytes a body may have: every UTF-16 code unit of a `MAX_LINE` message takes at most 3 bytes of UTF-8. */
const MAX_BODY_BYTES = 3 * MAX_LINE;

/**
 * The HTTP transport's settings (`readHttpSettings`). Times in ms, sizes in bytes, rates per minute.
 * `allowedHosts` holds `host:port` values (lowercase); the loopback names of the bound port are added at listen time.
 */
export type HttpSettings = {
  host: string;
  port: number;
  allowedOrigins: string[];
  allowedHosts: string[];
  maxSessions: number;
  sessionIdleMs: number;
  /** Body memory all sessions of the legacy era share, as one budget (each session alone at most `MEMORY_LIMITS.maxBytes`). */
  sessionMemoryBytes: number;
  maxConnections: number;
  /**
   * Open sockets from one peer address (the socket's, never a header such as X-Forwarded-For); none: no such limit.
   * Behind a proxy every socket comes from the proxy's address, so the proxy limits per client (nginx `limit_conn`).
   */
  maxConnectionsPerAddress?: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
  callerPerMinute: number;
  tenantPerMinute: number;
  /** This instance's name, prefixed to its session ids (`<instance>.<hex>`) so a proxy routes a session back to it. */
  instance?: string;
};

/** Defaults of `readHttpSettings`, beside the variable each comes from. */
export const HTTP_DEFAULTS = {
  maxSessions: 64, // PROBE_HTTP_MAX_SESSIONS
  sessionIdleMs: 30 * 60_000, // PROBE_HTTP_SESSION_IDLE_S
  sessionMemoryBytes: 256 * 1024 * 1024, // PROBE_HTTP_SESSION_MEMORY_MB
  maxConnections: 256, // PROBE_HTTP_MAX_CONNECTIONS
  requestTimeoutMs: 30_000, // PROBE_HTTP_REQUEST_TIMEOUT_MS
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  callerPerMinute: 60, // PROBE_RATE_PER_CALLER_PER_MIN
  tenantPerMinute: 600, // PROBE_RATE_PER_TENANT_PER_MIN
} as const;

/**
 * Reads `host:port` (`127.0.0.1:8787`, `[::1]:8787`) or a bare port (loopback then) of `--http` / PROBE_HTTP_LISTEN.
 * @throws Error naming the value when it is neither, or the port is not 0 to 65535.
 */
export function parseListen(text: string): { host: string; port: number } {
  const value = text.trim();
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535)
    throw new Error(`PROBE_HTTP_LISTEN (--http) must be host:port or a port, e.g. 127.0.0.1:8787, got \`${value}\``);
  const host = match[1] ? match[1].replace(/^\[|\]$/g, '') : '127.0.0.1';
  return { host, port };
}

/** A whole number from the environment, within bounds, or the default. */
function whole(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number) {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got \`${text}\``);
  return value;
}

/** A comma-separated list from the environment, entries trimmed and lowercased, empty ones dropped. */
function list(env: Record<string, string | undefined>, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * The HTTP transport's settings from the environment: PROBE_HTTP_LISTEN (required), PROBE_HTTP_ALLOWED_ORIGINS
 * (origins such as `https://app.example.com`; none by default, so only clients that send no `Origin` get in),
 * PROBE_HTTP_ALLOWED_HOSTS (`host:port` values a proxy sends; the bound port's loopback names always pass),
 * PROBE_HTTP_MAX_SESSIONS, PROBE_HTTP_SESSION_IDLE_S, PROBE_HTTP_SESSION_MEMORY_MB, PROBE_HTTP_MAX_CONNECTIONS,
 * PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS (1 to 100000, none by default), PROBE_HTTP_REQUEST_TIMEOUT_MS, PROBE_RATE_PER_CALLER_PER_MIN, PROBE_RATE_PER_TENANT_PER_MIN (`HTTP_DEFAULTS`), and
 * PROBE_HTTP_INSTANCE (1 to 16 of `[a-z0-9]`, none by default), the prefix of this instance's session ids.
 * @throws Error naming the variable and the value on any bad value.
 */
export function readHttpSettings(env: Record<string, string | undefined>): HttpSettings {
  const listen = parseListen(env.PROBE_HTTP_LISTEN ?? '');
  const requestTimeoutMs = whole(env, 'PROBE_HTTP_REQUEST_TIMEOUT_MS', HTTP_DEFAULTS.requestTimeoutMs, 100, 600_000);
  const instance = env.PROBE_HTTP_INSTANCE?.trim();
  if (instance !== undefined && instance !== '' && !/^[a-z0-9]{1,16}$/.test(instance))
    throw new Error(`PROBE_HTTP_INSTANCE must be 1 to 16 lowercase letters or digits, got \`${instance}\``);
  return {
    ...listen,
    ...(instance ? { instance } : {}),
    allowedOrigins: list(env, 'PROBE_HTTP_ALLOWED_ORIGINS'),
    allowedHosts: list(env, 'PROBE_HTTP_ALLOWED_HOSTS'),
    maxSessions: whole(env, 'PROBE_HTTP_MAX_SESSIONS', HTTP_DEFAULTS.maxSessions, 1, 100_000),
    sessionIdleMs: whole(env, 'PROBE_HTTP_SESSION_IDLE_S', HTTP_DEFAULTS.sessionIdleMs / 1000, 1, 86_400) * 1000,
    sessionMemoryBytes:
      whole(env, 'PROBE_HTTP_SESSION_MEMORY_MB', HTTP_DEFAULTS.sessionMemoryBytes / 1024 / 1024, 1, 65_536) *
      1024 *
      1024,
    maxConnections: whole(env, 'PROBE_HTTP_MAX_CONNECTIONS', HTTP_DEFAULTS.maxConnections, 1, 100_000),
    ...(env.PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS?.trim()
      ? { maxConnectionsPerAddress: whole(env, 'PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS', 0, 1, 100_000) }
      : {}),
    requestTimeoutMs,
    headersTimeoutMs: Math.min(HTTP_DEFAULTS.headersTimeoutMs, requestTimeoutMs),
    keepAliveTimeoutMs: HTTP_DEFAULTS.keepAliveTimeoutMs,
    maxHeaderBytes: HTTP_DEFAULTS.maxHeaderBytes,
    callerPerMinute: whole(env, 'PROBE_RATE_PER_CALLER_PER_MIN', HTTP_DEFAULTS.callerPerMinute, 1, 1_000_000),
    tenantPerMinute: whole(env, 'PROBE_RATE_PER_TENANT_PER_MIN', HTTP_DEFAULTS.tenantPerMinute, 1, 1_000_000),
  };
}

/** A legacy-era session (MCP 2025-11-25, Session Management): its dispatcher, owner, runtime and last use. */
type Held = {
  session: Session;
  subject: string;
  runtime: ServerRuntime;
  usedAt: number;
  inFlight: number;
  /** The redactor of the token of the session's latest request, which its log and audit records also pass through. */
  token: TokenBox;
};

/** The redactor of a caller's token, as the latest request carried it (none: the runtime's redaction only). */
type TokenBox = { redact?: Redactor };

/** A running HTTP transport. */
export type HttpTransport = {
  /** `http://<host>:<port>/mcp` as bound (the port chosen when 0 was asked). */
  url: string;
  port: number;
  /** Legacy-era sessions open now. */
  sessions(): number;
  /** Token redactors held (one per admitted caller's token, at most `TOKEN_REDACTORS`). */
  tokenRedactors(): number;
  /** Bytes of body memory all sessions hold now (at most `sessionMemoryBytes`). */
  sessionMemoryBytes(): number;
  /** Stops listening, ends every session (calls in flight answered as cancelled) and closes every connection. */
  close(reason?: string): Promise<void>;
};

/** One refusal or answer, as the response writer takes it. */
type Reply = {
  status: number;
  headers?: Record<string, string>;
  /** A JSON-RPC message (serialized through the wire) or a plain JSON body (`raw`). */
  message?: JsonRpcResponse | JsonRpcResponse[];
  raw?: Record<string, unknown>;
  text?: string;
  /** For the request's log line: the verified subject, and the check that refused it. */
  caller?: string;
  check?: string;
};

/**
 * Starts the Streamable HTTP transport on `settings.host:settings.port` and resolves once it listens.
 *
 * Admission, in this order: a request sending `Host` or `Authorization` twice is 400; the host (the authority of an
 * absolute-form target, else `Host`; RFC 9112, 3.2.2) must be one of the bound port's loopback names or `settings.allowedHosts` (403
 * otherwise); an `Origin`, when sent, must be in `settings.allowedOrigins` (403; MCP 2025-11-25, Transports,
 * Security Warning); `/healthz`, `/readyz` and the Protected Resource Metadata paths are then answered without
 * authentication; on `/mcp` the auth layer decides (`options.auth`, its refusal sent as it is), then
 * `runtimeFor(caller)` picks the runtime (undefined: 403, no upstream for the tenant), then the body is read.
 *
 * The body: `Content-Length` over `3 × MAX_LINE` bytes is 413 unread; a body is read up to that and measured again as
 * text against `MAX_LINE` (the stdio line limit) before `decode` (the wire) parses it; an array is 400 (one message
 * per POST); slow or endless bodies end at `requestTimeoutMs` (node:http answers 408), headers at `headersTimeoutMs`,
 * headers over `maxHeaderBytes` get 431, idle keep-alive sockets close after `keepAliveTimeoutMs`. At most
 * `maxConnections` sockets are served, and at most `maxConnectionsPerAddress` from one peer address (the socket's own;
 * X-Forwarded-For is never read): a socket past either is answered 503 with `Retry-After: 1` and `Connection: close`
 * when its request arrives, before any other check; past `REFUSED_CONNECTIONS` such sockets, one is closed unanswered.
 *
 * Eras: a POST with `Mcp-Session-Id`, or an `initialize`, is the 2025-11-25 era (a session per `initialize`, bound to
 * the caller's subject; missing id 400, unknown or expired 404, DELETE ends it, an unsupported
 * `MCP-Protocol-Version` 400; at most `maxSessions`: past it an `initialize` ends the least recently used idle session
 * of the subject holding the most, when that subject holds two more than the caller, else gets 503; idle ones expire
 * after `sessionIdleMs`). Anything
 * else is the 2026-07-28 era, served statelessly: `MCP-Protocol-Version` must equal the `_meta` version and
 * `Mcp-Method` the method (and `Mcp-Name` the tool for `tools/call`), else 400 with -32020 `HeaderMismatch`; GET and
 * DELETE get 405. Answers are `application/json` (this server sends no notifications); a notification gets 202.
 * Closing the response before the answer cancels the call (`notifications/cancelled`).
 *
 * Every request gets a request id (`requestIdFrom`: a valid `X-Request-Id`, else 12 new hex characters): in the
 * `X-Request-Id` response header, the answer's `_meta[REQUEST_ID_META]`, the tool call's log and audit records and
 * upstream, with a W3C `traceparent`. One `event=http.request.done` log line per request, with `took_ms`; refusals by
 * the auth layer, the tenant or a rate limit also get an audit record (`decision: denied`, `check`). The raw
 * `Authorization` value of each admitted request is redacted from its answer, log and audit records, beside the API key;
 * its redactor is built only once the caller is admitted, and reused for the same token (`TOKEN_REDACTORS`).
 * @param options.runtime The process's runtime: its logger and audit are the transport's; the default `runtimeFor`.
 * @param options.runtimeFor The runtime of a caller's tenant (default: `runtime` for everyone); undefined refuses.
 * @param options.auth The auth layer (src/auth/, wired by the entry); without it every caller is anonymous.
 * @param options.now Clock in ms for session expiry and the per-caller and per-tenant rate limits (tests).
 */
export async function startHttpTransport(options: {
  settings: HttpSettings;
  runtime: ServerRuntime;
  runtimeFor?: (caller: HttpCaller | undefined) => ServerRuntime | undefined;
  auth?: HttpAuth;
  now?: () => number;
}): Promise<HttpTransport> {
  const { settings, runtime, auth } = options;
  const logger: Logger = runtime.logger;
  const now = options.now ?? Date.now;
  const runtimeFor = options.runtimeFor ?? (() => runtime);
  const sessions = new Map<string, Held>();
  const callerRate: KeyedRateLimit = createKeyedRateLimit(settings.callerPerMinute, now);
  const tenantRate: KeyedRateLimit = createKeyedRateLimit(settings.tenantPerMinute, now);
  // Every session's kept bodies count against one budget; one session alone keeps at most MEMORY_LIMITS.maxBytes.
  const sharedMemory: SharedBudget = sharedBudget(settings.sessionMemoryBytes);
  const origins = new Set(settings.allowedOrigins);
  const hosts = new Set(settings.allowedHosts);
  let stopping: string | undefined;

  const server: Server = http().createServer({
    maxHeaderSize: settings.maxHeaderBytes,
    requestTimeout: settings.requestTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // How often node:http looks for requests past their timeouts: often enough for the shortest one.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.requestTimeoutMs / 4))),
  });
  // Counted here rather than by node:http's `maxConnections`, which closes a socket past it unanswered: a socket past
  // a cap is kept (at most REFUSED_CONNECTIONS of them) until its request arrives, and answered 503.
  let connections = 0;
  let refusing = 0;
  const byAddress = new Map<string, number>();
  const refusedSockets = new WeakMap<Socket, 'connections' | 'address'>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const fromAddress = byAddress.get(address) ?? 0;
    const over =
      connections >= settings.maxConnections
        ? 'connections'
        : settings.maxConnectionsPerAddress !== undefined && fromAddress >= settings.maxConnectionsPerAddress
          ? 'address'
          : undefined;
    if (over !== undefined) {
      if (refusing >= REFUSED_CONNECTIONS) {
        logger.info('http.connection.dropped', { reason: over });
        socket.destroy();
        return;
      }
      refusing++;
      refusedSockets.set(socket, over);
      socket.once('close', () => refusing--);
      return;
    }
    connections++;
    byAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      connections--;
      const left = byAddress.get(address)! - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // node:http's own refusals (431 header too large, 400 malformed): said once, in a line of its own.
    logger.info('http.client.error', { reason: error.code ?? error.message });
    if (socket.writable && !socket.destroyed) {
      const status =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    } else socket.destroy();
  });

  /**
   * The session under `<subject>:<session id>` when `subject` owns it. The key alone is not enough: a subject may hold
   * a colon, so subject `a` sending the id `x:<hex>` would name the key of subject `a:x`'s session `<hex>`.
   */
  const sessionOf = (key: string | undefined, subject: string): Held | undefined => {
    const held = key === undefined ? undefined : sessions.get(key);
    return held?.subject === subject ? held : undefined;
  };

  /**
   * At the cap, one subject must not hold every session: ends the least recently used idle session of the subject
   * holding the most, when that is not `subject` and holds at least two more than `subject` (so two callers never take
   * turns evicting each other). One pass over the sessions; nothing when no such session is idle.
   */
  const evictForShare = (subject: string) => {
    const held = new Map<string, number>();
    for (const entry of sessions.values()) held.set(entry.subject, (held.get(entry.subject) ?? 0) + 1);
    let most = '';
    for (const [owner, count] of held) if (count > (held.get(most) ?? 0)) most = owner;
    if (most === subject || (held.get(most) ?? 0) < (held.get(subject) ?? 0) + 2) return;
    let oldest: [string, Held] | undefined;
    for (const entry of sessions)
      if (entry[1].subject === most && entry[1].inFlight === 0 && (!oldest || entry[1].usedAt < oldest[1].usedAt))
        oldest = entry;
    if (!oldest) return;
    sessions.delete(oldest[0]);
    oldest[1].session.close('the session was ended to share the session cap');
    logger.info('http.session.evicted', { session_owner: most || undefined, sessions: sessions.size });
  };

  const expire = (at: number) => {
    for (const [key, held] of sessions)
      if (held.inFlight === 0 && at - held.usedAt > settings.sessionIdleMs) {
        sessions.delete(key);
        held.session.close('the session expired');
        logger.info('http.session.expired', { session_owner: held.subject || undefined });
      }
  };
  // Idle sessions are swept once a minute at most, and on every `initialize` that finds the cap reached.
  const sweep = setInterval(() => expire(now()), Math.min(60_000, settings.sessionIdleMs));
  sweep.unref();

  /** The redactors of admitted callers' tokens, least recently used first: a client sends one token many times. */
  const tokenRedactors = new Map<string, Redactor>();
  const tokenRedactorOf = (token: string): Redactor => {
    let found = tokenRedactors.get(token);
    if (found) tokenRedactors.delete(token);
    else found = tokenRedactor(token);
    tokenRedactors.set(token, found);
    if (tokenRedactors.size > TOKEN_REDACTORS) tokenRedactors.delete(tokenRedactors.keys().next().value!);
    return found;
  };

  /**
   * The path for the log: one this server serves, else `other`. Any other path is the client's text, logged before
   * any token redactor exists for it (a client that puts its token in the URL path would have it on stderr).
   */
  const servedPath = (pathname: string): string =>
    pathname === MCP_PATH ||
    pathname === '/healthz' ||
    pathname === '/readyz' ||
    (auth !== undefined && auth.resourceMetadata.paths.includes(pathname))
      ? pathname
      : 'other';

  const write = (response: ServerResponse, reply: Reply, redact: Redactor, rid: string) => {
    if (response.headersSent || response.destroyed) return;
    const headers: Record<string, string> = { 'x-request-id': rid, ...reply.headers };
    let body: string | undefined;
    if (reply.message !== undefined) {
      headers['content-type'] = 'application/json';
      body = encode(reply.message, redact);
    } else if (reply.raw !== undefined) {
      headers['content-type'] = 'application/json';
      body = redact.text(JSON.stringify(reply.raw));
    } else if (reply.text !== undefined) {
      headers['content-type'] = 'text/plain; charset=utf-8';
      body = reply.text;
    }
    response.writeHead(reply.status, { ...headers, 'content-length': String(body ? Buffer.byteLength(body) : 0) });
    response.end(body);
  };

  const denied = async (
    rid: string,
    began: number,
    check: string,
    status: number,
    caller: HttpCaller | undefined,
    method: string,
    audit = runtime.audit,
  ) => {
    const record: AuditRecord = {
      time: new Date().toISOString(),
      rid,
      ...(caller ? { caller: caller.subject, ...(caller.clientId ? { client_id: caller.clientId } : {}) } : {}),
      ...(caller?.tenant ? { tenant: caller.tenant } : {}),
      ...(caller?.keyId ? { key_id: caller.keyId } : {}),
      decision: 'denied',
      check,
      tool: method,
      method: null,
      url: null,
      status,
      bytes: null,
      findings: null,
      isError: true,
      took_ms: Math.round(performance.now() - began),
    };
    await audit?.write(record);
  };

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    rid: string,
    admit: () => Redactor | undefined,
  ): Promise<Reply> => {
    const began = performance.now();
    const url = targetOf(request);
    const repeated = repeatedField(request);
    if (repeated !== undefined)
      return {
        status: 400,
        raw: {
          error: 'invalid_request',
          error_description: `The request has more than one ${repeated} header field; send it once (${repeated === 'Host' ? 'RFC 9112, 3.2' : 'RFC 9110, 11.6.2'}).`,
        },
      };
    const host = authorityOf(request).toLowerCase();
    if (!hosts.has(host)) return { status: 403, raw: { error: 'forbidden', error_description: HOST_REFUSED } };
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase()))
      return { status: 403, raw: { error: 'forbidden', error_description: ORIGIN_REFUSED } };
    if (url.pathname === '/healthz') return { status: 200, text: 'ok' };
    if (url.pathname === '/readyz') {
      // Ready: the check worker takes jobs and the document did not fail to load.
      const ready =
        stopping === undefined && runtime.contract.started() && runtime.contract.documentProblem() === undefined;
      return ready ? { status: 200, text: 'ready' } : { status: 503, text: 'not ready' };
    }
    if (auth && auth.resourceMetadata.paths.includes(url.pathname) && request.method === 'GET')
      return { status: 200, raw: auth.resourceMetadata.document };
    if (url.pathname !== MCP_PATH) return { status: 404, text: 'not found' };
    if (stopping !== undefined) return { status: 503, text: 'shutting down', headers: { connection: 'close' } };
    const sessionId = header(request, 'mcp-session-id');
    if (request.method === 'GET' || (request.method === 'DELETE' && sessionId === undefined))
      return { status: 405, headers: { allow: sessionId === undefined ? 'POST' : 'POST, DELETE' } };
    if (request.method !== 'POST' && request.method !== 'DELETE')
      return { status: 405, headers: { allow: 'POST, DELETE' } };

    let caller: HttpCaller | undefined;
    if (auth) {
      const decision = await auth.authorize({ method: request.method, url, headers: request.headers });
      if (!decision.ok) {
        await denied(rid, began, decision.check, decision.status, undefined, '-');
        return { status: decision.status, headers: decision.headers, raw: decision.body, check: decision.check };
      }
      caller = decision.caller;
    }
    const tokenRedact = admit();
    const chosen = runtimeFor(caller);
    if (!chosen) {
      await denied(rid, began, 'tenant', 403, caller, '-');
      return {
        status: 403,
        check: 'tenant',
        ...(caller ? { caller: caller.subject } : {}),
        raw: { error: 'forbidden', error_description: 'No upstream is configured for this tenant.' },
      };
    }
    const subject = caller?.subject ?? '';
    const sessionKey = sessionId === undefined ? undefined : `${subject}:${sessionId}`;

    if (request.method === 'DELETE') {
      const held = sessionOf(sessionKey, subject);
      if (!held) return rpcRefusal(404, null, ERROR_CODES.invalidRequest, 'Session not found.');
      sessions.delete(sessionKey!);
      held.session.close('the client ended the session');
      return { status: 204 };
    }

    const type = header(request, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type))
      return rpcRefusal(415, null, ERROR_CODES.invalidRequest, 'Content-Type must be application/json.');
    const declared = Number(header(request, 'content-length') ?? NaN);
    if (declared > MAX_BODY_BYTES) {
      response.shouldKeepAlive = false;
      return rpcRefusal(413, null, ERROR_CODES.invalidRequest, tooLarge());
    }
    const read = await readCappedStream(request, MAX_BODY_BYTES);
    if (read.failure) return { status: 400, text: 'the request body broke off' };
    if (read.truncated) {
      response.shouldKeepAlive = false;
      return rpcRefusal(413, null, ERROR_CODES.invalidRequest, tooLarge());
    }
    let text = read.all.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length > MAX_LINE) return rpcRefusal(413, null, ERROR_CODES.invalidRequest, tooLarge());
    const decoded = decode(text);
    if ('error' in decoded) return { status: 400, message: decoded.error };
    const message = decoded.message;
    if (Array.isArray(message))
      return rpcRefusal(
        400,
        null,
        ERROR_CODES.invalidRequest,
        'Invalid Request: one JSON-RPC message per POST; batches are not part of Streamable HTTP (MCP 2025-06-18 removed them).',
      );
    if (message === null || typeof message !== 'object')
      return rpcRefusal(
        400,
        null,
        ERROR_CODES.invalidRequest,
        'Invalid Request: a JSON-RPC message must be an object.',
      );
    const record = message as Record<string, unknown>;
    const method = typeof record.method === 'string' ? record.method : undefined;
    const id = typeof record.id === 'string' || Number.isSafeInteger(record.id) ? (record.id as RequestId) : null;
    const isRequest = method !== undefined && 'id' in record;
    const params =
      record.params !== null && typeof record.params === 'object' ? (record.params as Record<string, unknown>) : {};
    const meta =
      params._meta !== null && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : undefined;
    const named = meta?.[META_KEYS.protocolVersion];
    const versionHeader = header(request, 'mcp-protocol-version');

    // Which era: a session id or `initialize` is 2025-11-25; the rest is served statelessly (MCP 2026-07-28, Versioning).
    // A request whose `_meta` names a stateless-era revision is that era's, `initialize` too (where it is no method).
    const modernNamed = isModernVersion(named);
    let session: Session;
    let held: Held | undefined;
    let minted: string | undefined;
    let token: TokenBox = {};
    if (sessionKey !== undefined) {
      held = sessionOf(sessionKey, subject);
      if (held && held.inFlight === 0 && now() - held.usedAt > settings.sessionIdleMs) {
        sessions.delete(sessionKey);
        held.session.close('the session expired');
        held = undefined;
      }
      if (!held)
        return rpcRefusal(404, id, ERROR_CODES.invalidRequest, 'Session not found: start a new one with initialize.');
      if (held.runtime !== chosen)
        return rpcRefusal(403, id, ERROR_CODES.invalidRequest, 'This session belongs to another tenant.');
      if (versionHeader !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(versionHeader))
        return rpcRefusal(
          400,
          id,
          ERROR_CODES.invalidRequest,
          `Unsupported MCP-Protocol-Version for a session: ${versionHeader.slice(0, 64)}; supported: ${PROTOCOL_VERSIONS.join(', ')}.`,
        );
      if (method === 'initialize')
        return rpcRefusal(400, id, ERROR_CODES.invalidRequest, 'This session is already initialized.');
      held.token.redact = tokenRedact;
      session = held.session;
    } else if (method === 'initialize' && !modernNamed) {
      if (sessions.size >= settings.maxSessions) expire(now());
      if (sessions.size >= settings.maxSessions) evictForShare(subject);
      if (sessions.size >= settings.maxSessions)
        return {
          ...rpcRefusal(
            503,
            id,
            ERROR_CODES.invalidRequest,
            `Too many sessions: ${settings.maxSessions} are open (PROBE_HTTP_MAX_SESSIONS). End one with DELETE, or use protocol 2026-07-28, which needs none.`,
          ),
          headers: { 'retry-after': '60' },
        };
      minted = `${settings.instance ? `${settings.instance}.` : ''}${crypto().randomBytes(16).toString('hex')}`;
      token = { redact: tokenRedact };
      session = createSession(withTokenRedaction(chosen, token), { sharedMemory });
    } else if (named !== undefined || isModernVersion(versionHeader)) {
      if (isRequest) {
        // In the order the suite's stateless server checks them: the header, the required `_meta` fields, agreement.
        if (versionHeader === undefined)
          return rpcRefusal(400, id, HEADER_MISMATCH, 'HeaderMismatch: the MCP-Protocol-Version header is missing.');
        const missing = missingMetaFields(meta);
        if (missing.length > 0) return rpcRefusal(400, id, ERROR_CODES.invalidParams, missingMetaMessage(missing));
        const mismatch = headerMismatch(request, method!, params, named, versionHeader);
        if (mismatch) return rpcRefusal(400, id, HEADER_MISMATCH, mismatch);
      }
      session = createSession(withTokenRedaction(chosen, { redact: tokenRedact }));
    } else if (isRequest || method !== undefined) {
      return rpcRefusal(
        400,
        id,
        ERROR_CODES.invalidRequest,
        'Bad Request: no Mcp-Session-Id. Send initialize first (protocol 2025-11-25), or name protocol 2026-07-28 in _meta.',
      );
    } else {
      // A client's response to a request of ours (we send none): accepted, nothing to do.
      return { status: 202 };
    }

    if (isRequest && method === 'tools/call') {
      const byCaller = caller ? callerRate.take(caller.subject) : undefined;
      const byTenant = byCaller === undefined && caller?.tenant ? tenantRate.take(caller.tenant) : undefined;
      const wait = byCaller ?? byTenant;
      if (wait !== undefined) {
        await denied(
          rid,
          began,
          'rate',
          429,
          caller,
          typeof params.name === 'string' ? params.name : method,
          chosen.audit,
        );
        return {
          ...rpcRefusal(
            429,
            id,
            ERROR_CODES.invalidRequest,
            `Rate limit reached: ${byCaller !== undefined ? `${settings.callerPerMinute} calls per minute per caller (PROBE_RATE_PER_CALLER_PER_MIN)` : `${settings.tenantPerMinute} calls per minute per tenant (PROBE_RATE_PER_TENANT_PER_MIN)`}; nothing was sent. Try again in ${wait} s.`,
          ),
          headers: { 'retry-after': String(wait) },
          check: 'rate',
          caller: subject,
        };
      }
    }

    const inbound = {
      ...(caller ? { caller: sessionCaller(caller) } : {}),
      requestId: rid,
      ...(header(request, 'traceparent') !== undefined ? { traceparent: header(request, 'traceparent')! } : {}),
    };
    // Closing the response before the answer cancels the call (MCP 2026-07-28, Transports; Cancellation).
    let answered = false;
    const onClose = () => {
      if (!answered && isRequest && id !== null)
        void session.handle(
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'response closed' } },
          inbound,
        );
    };
    response.once('close', onClose);
    if (held) {
      held.inFlight++;
      held.usedAt = now();
    }
    let answer: JsonRpcResponse | JsonRpcResponse[] | undefined;
    try {
      answer = await session.handle(message, inbound);
    } finally {
      answered = true;
      response.off('close', onClose);
      if (held) {
        held.inFlight--;
        held.usedAt = now();
      }
    }
    if (minted !== undefined) {
      if (answer && !Array.isArray(answer) && 'result' in answer && stopping === undefined) {
        sessions.set(`${subject}:${minted}`, { session, subject, runtime: chosen, usedAt: now(), inFlight: 0, token });
        logger.info('http.session.open', { rid, sessions: sessions.size });
      } else minted = undefined;
    }
    if (answer === undefined) return { status: 202 };
    // A tool call's answer names its request id in `_meta`; other results keep their exact shape (ping's is `{}`).
    if (!Array.isArray(answer) && 'result' in answer && method === 'tools/call')
      answer = {
        ...answer,
        result: { ...answer.result, _meta: { ...(answer.result._meta as object | undefined), [REQUEST_ID_META]: rid } },
      };
    // Refusals of the revision itself are HTTP 400 too (MCP 2026-07-28, Versioning); a stateless-era request for a
    // method this server does not implement is 404 with -32601 (MCP 2026-07-28, Transports, Protocol Version Header).
    const code = !Array.isArray(answer) && 'error' in answer ? answer.error.code : undefined;
    const status =
      code === ERROR_CODES.unsupportedProtocolVersion
        ? 400
        : code === ERROR_CODES.methodNotFound && held === undefined && minted === undefined
          ? 404
          : 200;
    return {
      status,
      message: answer,
      ...(caller ? { caller: caller.subject } : {}),
      ...(minted !== undefined ? { headers: { 'mcp-session-id': minted } } : {}),
    };
  };

  /** The request's one log line, `event=http.request.done`, with `took_ms` since `began` (performance.now()). */
  const logDone = (request: IncomingMessage, rid: string, reply: Reply, began: number) =>
    logger.info('http.request.done', {
      rid,
      method: request.method,
      path: servedPath(targetOf(request).pathname),
      status: reply.status,
      caller: reply.caller,
      check: reply.check,
      took_ms: Math.round(performance.now() - began),
    });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const began = performance.now();
    const rid = requestIdFrom(request.headers['x-request-id']);
    const over = refusedSockets.get(request.socket);
    if (over !== undefined) {
      // Past a cap: answered before anything else is looked at, and the socket closes after the answer.
      response.shouldKeepAlive = false;
      const reply: Reply = {
        status: 503,
        headers: { 'retry-after': '1', connection: 'close' },
        text:
          over === 'connections'
            ? `Too many open connections: ${settings.maxConnections} (PROBE_HTTP_MAX_CONNECTIONS). Try again in 1 s.`
            : `Too many open connections from your address: ${settings.maxConnectionsPerAddress} (PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS). Close one, or try again in 1 s.`,
        check: over === 'connections' ? 'connections' : 'address',
      };
      write(response, reply, runtime.redact, rid);
      logDone(request, rid, reply, began);
      return;
    }
    // The caller's token is a secret of this request: out of its answer, beside the API key (issue 19).
    const authorization = header(request, 'authorization');
    // The credentials after the scheme (`Bearer`, `Basic`, any other), or the whole value when it names none.
    const token = authorization?.trim().replace(/^[A-Za-z][A-Za-z0-9._~+/-]*\s+/, '');
    // Its redactor is had once the caller is admitted: no refusal before that quotes the request, and building one
    // costs time linear in the token's length, which no unverified header may buy.
    const box: TokenBox = {};
    const admit = () => (box.redact ??= token && token.length >= 8 ? tokenRedactorOf(token) : undefined);
    handle(request, response, rid, admit)
      .catch((error: unknown): Reply => {
        logger.error('http.request.error', {
          rid,
          reason: String((error as Error)?.stack ?? error)
            .replace(/\s+/g, ' ')
            .slice(0, 2000),
        });
        return rpcRefusal(500, null, ERROR_CODES.internalError, 'Internal error.');
      })
      .then((reply) => {
        write(response, reply, box.redact ? chainRedactors([runtime.redact, box.redact]) : runtime.redact, rid);
        logDone(request, rid, reply, began);
      })
      .catch((error: unknown) => {
        // A reply that cannot be written (a header value the HTTP layer refuses): the connection goes, the server stays.
        logger.error('http.response.error', { rid, reason: String((error as Error)?.message ?? error).slice(0, 300) });
        response.destroy();
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // The bound port's own names, as Host and as the same origin (a page served by this server itself).
  const shown = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  for (const name of new Set(['127.0.0.1', 'localhost', '[::1]', shown.toLowerCase()])) {
    hosts.add(`${name}:${port}`);
    origins.add(`http://${name}:${port}`);
  }
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    port,
    sessions: () => sessions.size,
    tokenRedactors: () => tokenRedactors.size,
    sessionMemoryBytes: () => sharedMemory.usedBytes,
    async close(reason = 'stopped') {
      if (stopping !== undefined) return;
      stopping = reason;
      clearInterval(sweep);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const held of sessions.values()) held.session.close(reason);
      await Promise.race([
        Promise.allSettled([...sessions.values()].map((held) => held.session.idle())),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      sessions.clear();
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 500).unref();
      await closed;
    },
  };
}

/** The refusal of `-32600`-style problems: an HTTP status with a JSON-RPC error body. */
function rpcRefusal(status: number, id: RequestId | null, code: number, message: string): Reply {
  return { status, message: errorResponse(id, code, message) };
}

function tooLarge(): string {
  return `Invalid Request: message longer than ${MAX_LINE} characters (the line limit), dropped unparsed. Send smaller arguments: a fixture or request body of at most 1 MiB.`;
}

/**
 * The request target as a URL (RFC 9112, 3.2): origin-form or absolute-form read against this server; a target that
 * does not parse (`http://[`) is read as a path no endpoint has, so it gets 404; never throws.
 */
function targetOf(request: IncomingMessage): URL {
  try {
    return new URL(request.url ?? '/', 'http://localhost');
  } catch {
    return new URL('http://localhost/\u0000unreadable');
  }
}

/** Fields that must come once (RFC 9112, 3.2; RFC 9110, 11.6.2), by lowercase name; node:http keeps only the first. */
const SINGLE_FIELDS: Readonly<Record<string, string>> = { host: 'Host', authorization: 'Authorization' };

/**
 * The name of the first of `SINGLE_FIELDS` that the request sends twice, or undefined. node:http would read the first
 * and drop the second, while a proxy in front may have read the second: the Host checked against DNS rebinding or the
 * token verified would not be the one the proxy acted on.
 */
function repeatedField(request: IncomingMessage): string | undefined {
  const seen = new Set<string>();
  for (let at = 0; at < request.rawHeaders.length; at += 2) {
    const name = request.rawHeaders[at]!.toLowerCase();
    if (!Object.hasOwn(SINGLE_FIELDS, name)) continue;
    if (seen.has(name)) return SINGLE_FIELDS[name];
    seen.add(name);
  }
  return undefined;
}

/**
 * The host the request is for: the authority of an absolute-form target (`POST http://host:port/mcp`), which RFC 9112,
 * 3.2.2 puts before `Host`, else the `Host` field ('' when absent). As sent: no port is added or dropped. Never throws.
 */
function authorityOf(request: IncomingMessage): string {
  const target = request.url ?? '';
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(target);
  // A target that does not parse is no endpoint's (`targetOf`): it is left to get its 404.
  return absolute && URL.canParse(target) ? absolute[1]! : (request.headers.host ?? '');
}

/** A header's value: the first of a repeated one, undefined when absent. */
function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The session's view of a verified caller (`Caller`, src/mcp/session.ts). */
function sessionCaller(caller: HttpCaller): Caller {
  return {
    subject: caller.subject,
    ...(caller.clientId ? { clientId: caller.clientId } : {}),
    ...(caller.tenant ? { tenant: caller.tenant } : {}),
    ...(caller.keyId ? { keyId: caller.keyId } : {}),
  };
}

/** A header value as the client encoded it: plain ASCII, or `=?base64?<UTF-8 as base64>?=` (MCP 2026-07-28, Transports). */
function headerValue(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return match ? Buffer.from(match[1]!, 'base64').toString('utf8') : value;
}

/** The body field `Mcp-Name` mirrors, by method (MCP 2026-07-28, Transports, Standard Request Headers). */
const NAME_SOURCES: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * Why the headers of a stateless-era request disagree with its body (MCP 2026-07-28, Transports): `MCP-Protocol-Version`
 * (present, as the caller has checked) not the `_meta` version, `Mcp-Method` missing or not the method, `Mcp-Name`
 * missing or not the tool (for the methods that mirror a name); undefined when they agree.
 */
function headerMismatch(
  request: IncomingMessage,
  method: string,
  params: Record<string, unknown>,
  named: unknown,
  versionHeader: string,
): string | undefined {
  if (named !== versionHeader)
    return `HeaderMismatch: MCP-Protocol-Version ${versionHeader.slice(0, 64)} differs from the _meta protocol version ${typeof named === 'string' ? named.slice(0, 64) : 'absent'}.`;
  const methodHeader = headerValue(header(request, 'mcp-method'));
  if (methodHeader === undefined) return 'HeaderMismatch: the Mcp-Method header is missing.';
  if (methodHeader !== method)
    return `HeaderMismatch: Mcp-Method ${methodHeader.slice(0, 100)} differs from the method.`;
  const source = Object.hasOwn(NAME_SOURCES, method) ? NAME_SOURCES[method]! : undefined;
  if (source !== undefined && typeof params[source] === 'string') {
    const name = headerValue(header(request, 'mcp-name'));
    if (name === undefined) return 'HeaderMismatch: the Mcp-Name header is missing.';
    if (name !== params[source]) return `HeaderMismatch: Mcp-Name ${name.slice(0, 100)} differs from params.${source}.`;
  }
  return undefined;
}

/**
 * `runtime` with its log records and audit lines also passed through the caller's token redactor (`box.redact`, read
 * at each record): a token the agent copies into an argument (a probe path) is quoted by neither.
 */
function withTokenRedaction(runtime: ServerRuntime, box: TokenBox): ServerRuntime {
  const clean = <T extends object | undefined>(fields: T): T => {
    const redact = box.redact;
    if (!redact || !fields) return fields;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields))
      out[key] = typeof value === 'string' ? redact.text(value) : value;
    return out as T;
  };
  const { logger, audit } = runtime;
  return {
    ...runtime,
    logger: {
      error: (event, fields) => logger.error(event, clean(fields)),
      info: (event, fields) => logger.info(event, clean(fields)),
      debug: (event, fields) => logger.debug(event, clean(fields)),
    },
    ...(audit ? { audit: { write: (record: AuditRecord) => audit.write(clean(record)) } } : {}),
  };
}
