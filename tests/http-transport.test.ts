/**
 * The Streamable HTTP transport in this process (`startHttpTransport`, src/transports/http.ts) on 127.0.0.1 port 0,
 * with a small fake authorizer in the shape of the seam (`src/shared/http-auth.ts`) and a recording upstream on
 * 127.0.0.1: admission (Host, Origin, the auth layer's refusal, the tenant's runtime), both eras' header and session
 * rules (MCP 2025-11-25 and 2026-07-28, Transports), hostile bodies and headers, the session cap and expiry, rate
 * limits per caller, the request id through log, audit, answer and upstream, and the caller's token kept out of every
 * output (issue 19). Requests are raw `node:http` (fetch may not set `Host`) or raw sockets for slow bodies.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METERS } from '../stand-in-api.ts';
import { readConfig } from '../src/runtime/config.ts';
import { createLogger } from '../src/runtime/log.ts';
import { inProcessRuntime } from '../src/mcp/in-process.ts';
import { MAX_LINE } from '../src/mcp/wire.ts';
import { readHttpSettings, startHttpTransport, REFUSED_CONNECTIONS, REQUEST_ID_META } from '../src/transports/http.ts';
import type { HttpTransport } from '../src/transports/http.ts';
import type { HttpAuth } from '../src/shared/http-auth.ts';
import { statelessProbe } from '../harness/http-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'upstream-key-7f3a9c21';
/** The token the fake authorizer accepts: a secret that must appear in no answer and no log line. */
const TOKEN = 'tok-Zq8vP2xL9mR4kW7nB3jH6sT1';

type Seen = { path: string; headers: IncomingHttpHeaders; closed: Promise<void> };

/** An upstream on 127.0.0.1 that records each request's headers: meters as the stand-in serves them; `/v2/meters/hang` never answers. */
async function startUpstream(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    seen.push({ path: req.url ?? '', headers: req.headers, closed });
    const id = (req.url ?? '').split('/').pop() ?? '';
    if (id === 'hang') return;
    const meter = (METERS as Record<string, unknown>)[id];
    res.writeHead(meter ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(meter ?? { code: 'not_found', message: `no meter ${id}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`, seen, server };
}

/** The fake authorizer: `Bearer TOKEN` is alice and `Bearer carol-token-0000` carol, both of tenant acme; `Bearer other-tenant-token` names tenant nowhere; else 401. */
const fakeAuth: HttpAuth = {
  async authorize({ headers }) {
    if (headers.authorization === `Bearer ${TOKEN}`)
      return {
        ok: true,
        caller: { subject: 'alice', clientId: 'cli-1', scopes: ['probe'], tenant: 'acme', keyId: 'a1b2c3d4' },
      };
    if (headers.authorization === 'Bearer carol-token-0000')
      return { ok: true, caller: { subject: 'carol', scopes: ['probe'], tenant: 'acme' } };
    if (headers.authorization === 'Bearer broken-header-token')
      return {
        ok: false,
        status: 401,
        headers: { 'www-authenticate': 'Bearer\r\nSet-Cookie: x=1' },
        body: { error: 'invalid_token', error_description: 'A header value no HTTP layer may send.' },
        check: 'identity',
      };
    if (headers.authorization === 'Bearer other-tenant-token')
      return { ok: true, caller: { subject: 'bob', scopes: ['probe'], tenant: 'nowhere' } };
    return {
      ok: false,
      status: 401,
      headers: {
        'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
      },
      body: { error: 'invalid_token', error_description: 'No valid bearer token.' },
      check: 'identity',
    };
  },
  resourceMetadata: {
    paths: ['/.well-known/oauth-protected-resource'],
    document: { resource: 'http://127.0.0.1/mcp', authorization_servers: ['http://127.0.0.1:1'] },
  },
};

type Answer = { status: number; headers: IncomingHttpHeaders; text: string; json?: any };

/** One HTTP request to the transport; the body as given, JSON-parsed when it parses. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const MODERN = '2026-07-28';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function initializeBody(id: number | string = 0): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '0' } },
  });
}

/** A stateless-era tools/call of probe (`statelessProbe`), with `extra` in its `_meta`. */
const modernCall = (path: string, extra: Record<string, unknown> = {}) => statelessProbe(path, { meta: extra });

describe('Streamable HTTP transport, in process, with a fake authorizer', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let transport: HttpTransport;
  let url: string;
  let clock = 1_000_000;
  const lines: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'openapi-probe-http-'));
  const auditPath = join(scratch, 'audit.jsonl');
  const lastAudit = () => JSON.parse(readFileSync(auditPath, 'utf8').trim().split('\n').at(-1)!);
  const auth = (extra: Record<string, string> = {}) => ({
    ...JSON_HEADERS,
    authorization: `Bearer ${TOKEN}`,
    ...extra,
  });

  before(async () => {
    upstream = await startUpstream();
    const config = readConfig(
      {
        API_BASE_URL: upstream.url,
        API_KEY: KEY,
        OPENAPI_DOC: join(ROOT, 'openapi.json'),
        PROBE_AUDIT_LOG: auditPath,
      },
      ROOT,
    );
    const logger = createLogger({ level: 'info', write: (line) => void lines.push(line) });
    const runtime = inProcessRuntime(config, { logger });
    const settings = readHttpSettings({
      PROBE_HTTP_LISTEN: '127.0.0.1:0',
      PROBE_HTTP_ALLOWED_ORIGINS: 'https://app.example.com',
      PROBE_HTTP_MAX_SESSIONS: '100',
      PROBE_HTTP_SESSION_IDLE_S: '60',
      PROBE_HTTP_REQUEST_TIMEOUT_MS: '400',
      PROBE_RATE_PER_CALLER_PER_MIN: '1000',
    });
    transport = await startHttpTransport({
      settings,
      runtime,
      auth: fakeAuth,
      runtimeFor: (caller) => (caller?.tenant === 'acme' ? runtime : undefined),
      now: () => clock,
    });
    url = transport.url;
  });

  after(async () => {
    await transport.close();
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a request whose Host is not this server (DNS rebinding) with 403', async () => {
    const answer = await send(url, { headers: auth({ host: 'evil.example.com' }), body: initializeBody() });
    assert.deepEqual(
      [answer.status, answer.json],
      [
        403,
        {
          error: 'forbidden',
          error_description:
            'Host not allowed (DNS rebinding check); the server allows more names with PROBE_HTTP_ALLOWED_HOSTS (host:port as sent).',
        },
      ],
    );
  });

  it('refuses an Origin outside the allow list with 403 and admits a listed one', async () => {
    const wrong = await send(url, { headers: auth({ origin: 'https://evil.example.com' }), body: initializeBody() });
    const listed = await send(url, { headers: auth({ origin: 'https://app.example.com' }), body: initializeBody() });
    assert.deepEqual(
      [wrong.status, wrong.json, listed.status],
      [
        403,
        {
          error: 'forbidden',
          error_description: 'Origin not allowed; the server allows more origins with PROBE_HTTP_ALLOWED_ORIGINS.',
        },
        200,
      ],
    );
  });

  it("sends the auth layer's refusal as it is: status, WWW-Authenticate and body", async () => {
    const answer = await send(url, { headers: JSON_HEADERS, body: initializeBody() });
    assert.deepEqual(
      [answer.status, answer.headers['www-authenticate'], answer.json],
      [
        401,
        'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        { error: 'invalid_token', error_description: 'No valid bearer token.' },
      ],
    );
  });

  it('serves /healthz, /readyz and the Protected Resource Metadata without authentication', async () => {
    const health = await send(url.replace('/mcp', '/healthz'), { method: 'GET' });
    const ready = await send(url.replace('/mcp', '/readyz'), { method: 'GET' });
    const metadata = await send(url.replace('/mcp', '/.well-known/oauth-protected-resource'), { method: 'GET' });
    assert.deepEqual(
      [health.status, health.text, ready.status, ready.text, metadata.status, metadata.json],
      [200, 'ok', 200, 'ready', 200, fakeAuth.resourceMetadata.document],
    );
  });

  it('refuses a caller whose tenant has no upstream with 403, nothing sent upstream', async () => {
    const before = upstream.seen.length;
    const call = modernCall('/meters/mtr_1');
    const answer = await send(url, {
      headers: { ...call.headers, authorization: 'Bearer other-tenant-token' },
      body: call.body,
    });
    assert.deepEqual(
      [answer.status, answer.json, upstream.seen.length - before],
      [403, { error: 'forbidden', error_description: 'No upstream is configured for this tenant.' }, 0],
    );
  });

  it('refuses a JSON-RPC batch (an array) with 400 and -32600', async () => {
    const answer = await send(url, {
      headers: auth(),
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]),
    });
    assert.deepEqual([answer.status, answer.json?.id, answer.json?.error?.code], [400, null, -32600]);
  });

  it('refuses a body declared longer than the limit with 413, unread', async () => {
    const answer = await send(url, {
      headers: auth({ 'content-length': String(3 * MAX_LINE + 1) }),
      body: 'x'.repeat(10),
    }).catch((error: Error) => ({ status: -1, text: error.message }) as Answer);
    assert.equal(answer.status, 413);
  });

  it('refuses a body of more than MAX_LINE characters with 413 and -32600', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'a'.repeat(MAX_LINE)}"}}`;
    const answer = await send(url, { headers: auth(), body });
    assert.deepEqual([answer.status, answer.json?.error?.code], [413, -32600]);
  });

  it('answers 408 and closes a connection whose body stops arriving (slowloris)', async () => {
    const port = new URL(url).port;
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 500\r\n\r\n{"jsonrpc"`,
      );
    });
    assert.equal(reply.split('\r\n')[0], 'HTTP/1.1 408 Request Timeout');
  });

  it('answers 404 to a request target that is no URL, and stays up', async () => {
    const port = new URL(url).port;
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.write(`GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    const health = await send(url.replace('/mcp', '/healthz'), { method: 'GET' });
    assert.deepEqual([reply.split('\r\n')[0], health.status], ['HTTP/1.1 404 Not Found', 200]);
  });

  it('drops the connection, and stays up, when a refusal carries a header value HTTP cannot send', async () => {
    const broken = await send(url, {
      headers: { ...JSON_HEADERS, authorization: 'Bearer broken-header-token' },
      body: initializeBody(),
    }).then(
      (answer) => `status ${answer.status}`,
      (error: NodeJS.ErrnoException) => error.code,
    );
    const health = await send(url.replace('/mcp', '/healthz'), { method: 'GET' });
    assert.deepEqual([broken, health.status], ['ECONNRESET', 200]);
  });

  it('answers 431 to headers larger than the limit', async () => {
    const answer = await send(url, { headers: auth({ 'x-padding': 'p'.repeat(20_000) }), body: initializeBody() });
    assert.equal(answer.status, 431);
  });

  it('answers 405 to GET, and to DELETE without a session', async () => {
    const get = await send(url, { method: 'GET', headers: auth() });
    const del = await send(url, { method: 'DELETE', headers: auth() });
    assert.deepEqual([get.status, del.status], [405, 405]);
  });

  describe('2026-07-28, stateless', () => {
    it('refuses an MCP-Protocol-Version header that differs from the _meta version with 400 and -32020', async () => {
      const call = modernCall('/meters/mtr_1');
      const answer = await send(url, {
        headers: { ...call.headers, ...auth(), 'mcp-protocol-version': '2025-11-25' },
        body: call.body,
      });
      assert.deepEqual([answer.status, answer.json?.id, answer.json?.error?.code], [400, 1, -32020]);
    });

    it('refuses a request whose _meta lacks the protocol version or the client capabilities, or holds one of another type, with 400 and -32602', async () => {
      // MCP 2026-07-28, Base Protocol, _meta: both are required on every request; the header alone is not the era's word.
      const request = (meta: Record<string, unknown> | undefined) => ({
        headers: { ...JSON_HEADERS, ...auth(), 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: meta ? { _meta: meta } : {} }),
      });
      const answers = await Promise.all(
        [
          undefined,
          { 'io.modelcontextprotocol/clientCapabilities': {} },
          { 'io.modelcontextprotocol/protocolVersion': MODERN },
          { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': [] },
          { 'io.modelcontextprotocol/protocolVersion': 5, 'io.modelcontextprotocol/clientCapabilities': {} },
        ].map((meta) => send(url, request(meta))),
      );
      assert.deepEqual(
        answers.map((answer) => [
          answer.status,
          answer.json?.id,
          answer.json?.error?.code,
          answer.json?.error?.message,
        ]),
        [
          [
            400,
            7,
            -32602,
            'Invalid params: _meta needs io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object), which MCP 2026-07-28 requires on every request.',
          ],
          [
            400,
            7,
            -32602,
            'Invalid params: _meta needs io.modelcontextprotocol/protocolVersion (a string), which MCP 2026-07-28 requires on every request.',
          ],
          [
            400,
            7,
            -32602,
            'Invalid params: _meta needs io.modelcontextprotocol/clientCapabilities (an object), which MCP 2026-07-28 requires on every request.',
          ],
          [
            400,
            7,
            -32602,
            'Invalid params: _meta needs io.modelcontextprotocol/clientCapabilities (an object), which MCP 2026-07-28 requires on every request.',
          ],
          [
            400,
            7,
            -32602,
            'Invalid params: _meta needs io.modelcontextprotocol/protocolVersion (a string), which MCP 2026-07-28 requires on every request.',
          ],
        ],
      );
    });

    it('answers 404 and -32601 to a method the revision does not have: ping, initialize, logging/setLevel', async () => {
      // MCP 2026-07-28, Transports, Protocol Version Header: a method the server does not implement is 404 Not Found.
      const request = (method: string) => ({
        headers: { ...JSON_HEADERS, ...auth(), 'mcp-protocol-version': MODERN, 'mcp-method': method },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: method,
          method,
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
            ...(method === 'initialize'
              ? { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } }
              : {}),
          },
        }),
      });
      const answers = await Promise.all(
        ['ping', 'initialize', 'logging/setLevel'].map((method) => send(url, request(method))),
      );
      assert.deepEqual(
        answers.map((answer) => [
          answer.status,
          answer.json?.id,
          answer.json?.error?.code,
          answer.headers['mcp-session-id'] ?? null,
        ]),
        [
          [404, 'ping', -32601, null],
          [404, 'initialize', -32601, null],
          [404, 'logging/setLevel', -32601, null],
        ],
      );
    });

    it('refuses a missing or wrong Mcp-Method with 400 and -32020', async () => {
      const call = modernCall('/meters/mtr_1');
      const { 'mcp-method': _dropped, ...without } = call.headers;
      const missing = await send(url, { headers: { ...without, authorization: `Bearer ${TOKEN}` }, body: call.body });
      const wrong = await send(url, {
        headers: { ...call.headers, ...auth(), 'mcp-method': 'tools/list' },
        body: call.body,
      });
      assert.deepEqual(
        [missing.status, missing.json?.error?.code, wrong.status, wrong.json?.error?.code],
        [400, -32020, 400, -32020],
      );
    });

    it('refuses an Mcp-Name that is not the tool called with 400 and -32020, and reads a base64 one', async () => {
      const call = modernCall('/meters/mtr_1');
      const wrong = await send(url, {
        headers: { ...call.headers, ...auth(), 'mcp-name': 'draft_request' },
        body: call.body,
      });
      const encoded = await send(url, {
        headers: { ...call.headers, ...auth(), 'mcp-name': `=?base64?${Buffer.from('probe').toString('base64')}?=` },
        body: call.body,
      });
      assert.deepEqual(
        [wrong.status, wrong.json?.error?.code, encoded.status, encoded.json?.result?.structuredContent?.status],
        [400, -32020, 200, 200],
      );
    });

    it('carries one request id from the X-Request-Id header to the answer, the log, the audit and upstream, with the client trace', async () => {
      const trace = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const call = modernCall('/meters/mtr_2', { traceparent: trace });
      const answer = await send(url, {
        headers: { ...call.headers, ...auth(), 'x-request-id': 'req-0123456789' },
        body: call.body,
      });
      const sent = upstream.seen.at(-1)!;
      const audit = lastAudit();
      assert.deepEqual(
        {
          header: answer.headers['x-request-id'],
          meta: answer.json?.result?._meta?.[REQUEST_ID_META],
          structured: answer.json?.result?.structuredContent?.requestId,
          upstream: sent.headers['x-request-id'],
          traceId: String(sent.headers.traceparent).split('-')[1],
          parentChanged: String(sent.headers.traceparent).split('-')[2] !== '00f067aa0ba902b7',
          upstreamAuthorization: sent.headers.authorization,
          logged: lines.filter((line) => line.includes('rid=req-0123456789')).map((line) => line.split(' ')[0]),
          audit: [audit.rid, audit.caller, audit.client_id, audit.tenant, audit.key_id, audit.decision],
        },
        {
          header: 'req-0123456789',
          meta: 'req-0123456789',
          structured: 'req-0123456789',
          upstream: 'req-0123456789',
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          parentChanged: true,
          upstreamAuthorization: `Bearer ${KEY}`,
          logged: ['event=tool.call.done', 'event=http.request.done'],
          audit: ['req-0123456789', 'alice', 'cli-1', 'acme', 'a1b2c3d4', 'allowed'],
        },
      );
    });

    it('records a refusal by the auth layer in the audit file as denied by identity', async () => {
      const answer = await send(url, {
        headers: { ...JSON_HEADERS, 'x-request-id': 'denied-000001' },
        body: initializeBody(),
      });
      const audit = lastAudit();
      const logged = lines
        .filter((line) => line.includes('rid=denied-000001'))
        .map((line) => line.replace(/took_ms=\d+/, 'took_ms=N'));
      assert.deepEqual(
        [answer.status, audit.rid, audit.decision, audit.check, audit.status, logged],
        [
          401,
          'denied-000001',
          'denied',
          'identity',
          401,
          ['event=http.request.done rid=denied-000001 method=POST path=/mcp status=401 check=identity took_ms=N\n'],
        ],
      );
    });

    it('keeps the caller token out of the answer, every log line and the audit file, even when the agent puts it in a probe path', async () => {
      const call = modernCall(`/meters/${TOKEN}`);
      const answer = await send(url, { headers: { ...call.headers, ...auth() }, body: call.body });
      assert.deepEqual(
        [
          answer.status,
          answer.text.includes(TOKEN),
          answer.text.includes('[redacted]'),
          lines.some((line) => line.includes(TOKEN)),
          readFileSync(auditPath, 'utf8').includes(TOKEN),
        ],
        [200, false, true, false, false],
      );
    });

    it('cancels the call and its upstream GET when the client closes the response stream', async () => {
      const call = modernCall('/meters/hang');
      const before = upstream.seen.length;
      const req = request(url, { method: 'POST', headers: { ...call.headers, ...auth() } });
      req.on('error', () => {});
      req.end(call.body);
      while (upstream.seen.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      req.destroy();
      // The upstream sees its request closed: the GET was aborted, not left to its timeout.
      await upstream.seen.at(-1)!.closed;
      assert.equal(upstream.seen.at(-1)!.path, '/v2/meters/hang');
    });
  });

  describe('2025-11-25, sessions', () => {
    async function open(): Promise<string> {
      const answer = await send(url, { headers: auth(), body: initializeBody() });
      assert.equal(answer.status, 200);
      return String(answer.headers['mcp-session-id']);
    }
    const list = (session: string, version = '2025-11-25') =>
      send(url, {
        headers: auth({ 'mcp-session-id': session, 'mcp-protocol-version': version }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });

    it('mints a session id on initialize and serves requests under it', async () => {
      const session = await open();
      const listed = await list(session);
      assert.deepEqual(
        [/^[0-9a-f]{32}$/.test(session), listed.status, listed.json?.result?.tools?.length],
        [true, 200, 7],
      );
    });

    it('answers 400 to a request with neither a session id nor a stateless-era _meta', async () => {
      const answer = await send(url, {
        headers: auth(),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      assert.deepEqual([answer.status, answer.json?.error?.code], [400, -32600]);
    });

    it('answers 404 to an unknown session id, and to a session of another subject', async () => {
      const unknown = await list('0123456789abcdef0123456789abcdef');
      const session = await open();
      const carol = await send(url, {
        headers: {
          ...JSON_HEADERS,
          authorization: 'Bearer carol-token-0000',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      const alice = await list(session);
      assert.deepEqual(
        [unknown.status, unknown.json?.error?.code, carol.status, alice.status],
        [404, -32600, 404, 200],
      );
    });

    it('answers 400 to an unsupported MCP-Protocol-Version within a session', async () => {
      const session = await open();
      const answer = await list(session, '1999-01-01');
      assert.deepEqual([answer.status, answer.json?.error?.code], [400, -32600]);
    });

    it('ends a session on DELETE: 204, then 404', async () => {
      const session = await open();
      const deleted = await send(url, { method: 'DELETE', headers: auth({ 'mcp-session-id': session }) });
      const after = await list(session);
      assert.deepEqual([deleted.status, after.status], [204, 404]);
    });

    it('expires a session idle longer than the setting', async () => {
      const session = await open();
      clock += 61_000;
      const answer = await list(session);
      assert.equal(answer.status, 404);
    });

    it('caps sessions: of 1,000 initializes, those past the cap of 100 get 503 with Retry-After', async () => {
      clock += 61_000; // every earlier session idle past its expiry
      const answers = [];
      for (let index = 0; index < 1000; index++)
        answers.push(await send(url, { headers: auth(), body: initializeBody(index) }));
      const counts: Record<string, number> = {};
      for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
      assert.deepEqual(
        [counts, answers.at(-1)!.headers['retry-after'], transport.sessions()],
        [{ 200: 100, 503: 900 }, '60', 100],
      );
    });
  });
});

describe('Streamable HTTP transport: rate limits per verified caller and per tenant', () => {
  let clock = 5_000_000;
  /** A transport on `env`'s limits before a recording upstream; `run` gets a caller of `token` at `at` ms. */
  async function withLimits(
    env: Record<string, string>,
    run: (callAs: (token: string, at: number) => Promise<Answer>, seen: Seen[]) => Promise<void>,
  ) {
    const upstream = await startUpstream();
    const config = readConfig(
      { API_BASE_URL: upstream.url, API_KEY: KEY, OPENAPI_DOC: join(ROOT, 'openapi.json') },
      ROOT,
    );
    const transport = await startHttpTransport({
      settings: readHttpSettings({ PROBE_HTTP_LISTEN: '127.0.0.1:0', ...env }),
      runtime: inProcessRuntime(config),
      auth: fakeAuth,
      now: () => clock,
    });
    const callAs = async (token: string, at: number) => {
      clock = 5_000_000 + at;
      const call = modernCall('/meters/mtr_1');
      return send(transport.url, { headers: { ...call.headers, authorization: `Bearer ${token}` }, body: call.body });
    };
    try {
      await run(callAs, upstream.seen);
    } finally {
      await transport.close();
      upstream.server.closeAllConnections();
      await new Promise((resolve) => upstream.server.close(resolve));
    }
  }

  it('answers 429 with Retry-After past the per-caller limit, nothing sent upstream', async () => {
    await withLimits({ PROBE_RATE_PER_CALLER_PER_MIN: '2' }, async (callAs, seen) => {
      const answers = [await callAs(TOKEN, 0), await callAs(TOKEN, 0), await callAs(TOKEN, 0)];
      const last = answers.at(-1)!;
      assert.deepEqual(
        [answers.map((answer) => answer.status), last.headers['retry-after'], last.json?.error?.code, seen.length],
        [[200, 200, 429], '60', -32600, 2],
      );
    });
  });

  it("stops a second caller of a tenant at the tenant's limit with 429 and Retry-After, and leaves another tenant served", async () => {
    await withLimits({ PROBE_RATE_PER_TENANT_PER_MIN: '2' }, async (callAs, seen) => {
      // alice and carol are both of tenant acme; bob is of another tenant.
      const answers = [
        await callAs(TOKEN, 0),
        await callAs('carol-token-0000', 15_000),
        await callAs('carol-token-0000', 20_000),
        await callAs('other-tenant-token', 20_000),
        await callAs('carol-token-0000', 60_000),
      ];
      const refused = answers[2]!;
      assert.deepEqual(
        [answers.map((answer) => answer.status), refused.headers['retry-after'], refused.json?.error, seen.length],
        [
          [200, 200, 429, 200, 200],
          '40',
          {
            code: -32600,
            message:
              'Rate limit reached: 2 calls per minute per tenant (PROBE_RATE_PER_TENANT_PER_MIN); nothing was sent. Try again in 40 s.',
          },
          4,
        ],
      );
    });
  });
});

describe('Streamable HTTP transport: open connections', () => {
  /** A transport on `env`'s connection settings, and raw sockets to it; `run` gets `open`. */
  async function withSockets(
    env: Record<string, string>,
    run: (open: (from?: string) => { socket: Socket; reply: (headers?: string) => Promise<string> }) => Promise<void>,
  ) {
    const config = readConfig({ API_BASE_URL: 'http://127.0.0.1:9/v2', OPENAPI_DOC: join(ROOT, 'openapi.json') }, ROOT);
    const transport = await startHttpTransport({
      settings: readHttpSettings({ PROBE_HTTP_LISTEN: '127.0.0.1:0', ...env }),
      runtime: inProcessRuntime(config),
    });
    const sockets: Socket[] = [];
    /**
     * One keep-alive socket from `from` (another loopback address stands for another client): `reply` sends
     * GET /healthz and resolves with the status line and `Retry-After` once the answer or the close arrives ('' when
     * the socket closed without a byte).
     */
    const open = (from = '127.0.0.1') => {
      const socket = connect({ port: transport.port, host: '127.0.0.1', localAddress: from });
      socket.on('error', () => {});
      sockets.push(socket);
      const reply = (headers = ''): Promise<string> =>
        new Promise((resolve) => {
          let text = '';
          const done = () => {
            socket.off('data', onData);
            const retry = /\r\nretry-after: ([^\r]*)/i.exec(text)?.[1];
            resolve(`${text.split('\r\n')[0] ?? ''}${retry === undefined ? '' : ` retry-after=${retry}`}`);
          };
          const onData = (chunk: Buffer) => {
            text += chunk.toString('utf8');
            if (text.includes('\r\n\r\nok')) done();
          };
          socket.on('data', onData);
          socket.once('close', done);
          socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${transport.port}\r\n${headers}\r\n`);
        });
      return { socket, reply };
    };
    try {
      await run(open);
    } finally {
      for (const socket of sockets) socket.destroy();
      await transport.close();
    }
  }

  it('answers a connection past PROBE_HTTP_MAX_CONNECTIONS 503 with Retry-After and closes it; the others stay served', async () => {
    await withSockets({ PROBE_HTTP_MAX_CONNECTIONS: '2' }, async (open) => {
      const first = open();
      const second = open();
      const served = [await first.reply(), await second.reply()];
      const third = open();
      const refused = await third.reply();
      const again = await first.reply();
      assert.deepEqual(
        [...served, refused, third.socket.destroyed || third.socket.readyState === 'closed', again],
        [
          'HTTP/1.1 200 OK',
          'HTTP/1.1 200 OK',
          'HTTP/1.1 503 Service Unavailable retry-after=1',
          true,
          'HTTP/1.1 200 OK',
        ],
      );
    });
  });

  it('serves a new connection once one under the cap has closed', async () => {
    await withSockets({ PROBE_HTTP_MAX_CONNECTIONS: '1' }, async (open) => {
      const first = open();
      const served = await first.reply();
      const closed = new Promise((resolve) => first.socket.once('close', resolve));
      first.socket.end();
      await closed;
      // The server counts the socket closed when its own side has closed too: ask until that has happened.
      let next = '';
      for (let attempt = 0; attempt < 100 && next !== 'HTTP/1.1 200 OK'; attempt++) next = await open().reply();
      assert.deepEqual([served, next], ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    });
  });

  it('answers a second connection from one address 503 past PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS, whatever X-Forwarded-For says, and serves another address', async () => {
    await withSockets({ PROBE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1' }, async (open) => {
      const first = open('127.0.0.1');
      const served = await first.reply();
      const sameAddress = await open('127.0.0.1').reply('X-Forwarded-For: 10.0.0.9\r\n');
      const otherAddress = await open('127.0.0.2').reply();
      assert.deepEqual(
        [served, sameAddress, otherAddress],
        ['HTTP/1.1 200 OK', 'HTTP/1.1 503 Service Unavailable retry-after=1', 'HTTP/1.1 200 OK'],
      );
    });
  });

  it(`holds at most ${REFUSED_CONNECTIONS} sockets past the cap to answer; the next is closed unanswered`, async () => {
    await withSockets({ PROBE_HTTP_MAX_CONNECTIONS: '1' }, async (open) => {
      const first = open();
      await first.reply();
      const held = Array.from({ length: REFUSED_CONNECTIONS }, () => open());
      await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
      const dropped = open();
      const droppedReply = await dropped.reply();
      const answers = new Set(await Promise.all(held.map(({ reply }) => reply())));
      assert.deepEqual([droppedReply, [...answers]], ['', ['HTTP/1.1 503 Service Unavailable retry-after=1']]);
    });
  });
});
