/**
 * The Streamable HTTP transport (src/transports/http.ts) under the attacks of issue 19 that found a hole, each kept as
 * the test of its fix: in this process on 127.0.0.1 port 0, with a fake authorizer in the shape of the seam
 * (`src/shared/http-auth.ts`) that maps each bearer token to a verified subject, and the stand-in API as the
 * upstream. Requests are raw `node:http` or raw sockets, so headers are sent exactly as written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { readConfig } from '../src/runtime/config.ts';
import { createLogger } from '../src/runtime/log.ts';
import { inProcessRuntime } from '../src/mcp/in-process.ts';
import { readHttpSettings, startHttpTransport } from '../src/transports/http.ts';
import type { HttpTransport } from '../src/transports/http.ts';
import type { HttpAuth } from '../src/shared/http-auth.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'attack-upstream-key-5Rt8';

/** Bearer `token-<subject>` is that subject, of tenant acme; anything else is 401. */
const fakeAuth: HttpAuth = {
  async authorize({ headers }) {
    const subject = /^Bearer token-(.+)$/.exec(headers.authorization ?? '')?.[1];
    if (subject !== undefined) return { ok: true, caller: { subject, scopes: [], tenant: 'acme' } };
    return {
      ok: false,
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
      body: { error: 'invalid_token', error_description: 'No valid bearer token.' },
      check: 'identity',
    };
  },
  resourceMetadata: { paths: [], document: {} },
};

type Answer = { status: number; headers: IncomingHttpHeaders; text: string };

/** One request to the transport as `subject`, with `headers` added. */
function send(url: string, subject: string, headers: Record<string, string>, body?: string, method = 'POST') {
  return new Promise<Answer>((resolve, reject) => {
    const all = { 'content-type': 'application/json', authorization: `Bearer token-${subject}`, ...headers };
    const req = request(url, { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'attack', version: '0' } },
});
// A stateless-era tools/list (MCP 2026-07-28 has no ping), with both required `_meta` fields.
const MODERN_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('Streamable HTTP transport under attack', () => {
  let api: StandIn;
  let transport: HttpTransport;
  let url: string;
  const lines: string[] = [];

  before(async () => {
    api = await start({ key: KEY });
    const config = readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: join(ROOT, 'openapi.json') }, ROOT);
    const logger = createLogger({ level: 'info', write: (line) => void lines.push(line) });
    const runtime = inProcessRuntime(config, { logger });
    const settings = readHttpSettings({ PROBE_HTTP_LISTEN: '127.0.0.1:0', PROBE_HTTP_MAX_SESSIONS: '8' });
    // A clock that moves by 1 ms at each reading: which session was used least recently never depends on speed.
    let clock = 0;
    transport = await startHttpTransport({ settings, runtime, auth: fakeAuth, now: () => ++clock });
    url = transport.url;
  });

  after(async () => {
    await transport.close();
    await api.close();
  });

  /** The status line of the answer to `lines` (a request head) and a stateless-era tools/list, sent as written. */
  function raw(lines: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text.split('\r\n')[0]!));
      socket.on('error', reject);
      const head = [
        ...lines,
        'Content-Type: application/json',
        'MCP-Protocol-Version: 2026-07-28',
        'Mcp-Method: tools/list',
        `Content-Length: ${MODERN_LIST.length}`,
        'Connection: close',
      ];
      socket.end(`${head.join('\r\n')}\r\n\r\n${MODERN_LIST}`);
    });
  }

  /** A new session of `subject`: its `Mcp-Session-Id`. */
  async function open(subject: string): Promise<string> {
    const answer = await send(url, subject, {}, INITIALIZE);
    assert.equal(answer.status, 200);
    return String(answer.headers['mcp-session-id']);
  }

  const inSession = (session: string) => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });

  it('refuses a second Host or Authorization field with 400, where node:http would read only the first', async () => {
    const host = `Host: 127.0.0.1:${new URL(url).port}`;
    const answers = [
      await raw(['POST /mcp HTTP/1.1', host, 'Authorization: Bearer token-alice']),
      await raw(['POST /mcp HTTP/1.1', host, 'Host: rebound.example', 'Authorization: Bearer token-alice']),
      await raw(['POST /mcp HTTP/1.1', host, 'Authorization: Bearer token-alice', 'authorization: Bearer token-bob']),
    ];
    assert.deepEqual(answers, ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request', 'HTTP/1.1 400 Bad Request']);
  });

  it('checks the authority of an absolute-form target against DNS rebinding, not the Host beside it', async () => {
    const ours = `127.0.0.1:${new URL(url).port}`;
    const answers = [
      await raw([`POST http://${ours}/mcp HTTP/1.1`, `Host: ${ours}`, 'Authorization: Bearer token-alice']),
      await raw(['POST http://rebound.example/mcp HTTP/1.1', `Host: ${ours}`, 'Authorization: Bearer token-alice']),
    ];
    assert.deepEqual(answers, ['HTTP/1.1 200 OK', 'HTTP/1.1 403 Forbidden']);
  });

  it('logs a path the server does not serve as other, so a token put in the URL path stays off stderr', async () => {
    // The caller's own token, in its Authorization header and in the URL path.
    const subject = 'alice.path-token-7Hq2';
    const before = lines.length;
    const answer = await send(url.replace('/mcp', `/mcp/token-${subject}`), subject, {}, INITIALIZE);
    const logged = lines.slice(before).filter((line) => line.startsWith('event=http.request.done'));
    assert.deepEqual(
      [answer.status, logged.length, logged.some((line) => line.includes('path-token-7Hq2'))],
      [404, 1, false],
    );
  });

  it('builds no token redactor for a request the auth layer refuses, however long its Authorization', async () => {
    const before = transport.tokenRedactors();
    const statuses = new Set<number>();
    for (let index = 0; index < 20; index++)
      statuses.add(
        (await send(url, 'x', { authorization: `Bearer refused-${index}-${'q'.repeat(12_000)}` }, LIST)).status,
      );
    assert.deepEqual([[...statuses], transport.tokenRedactors() - before], [[401], 0]);
  });

  it('reuses one redactor for a token sent again, which still keeps that token out of each answer', async () => {
    const before = transport.tokenRedactors();
    const token = 'token-dora.reuse-4Kp9';
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'probe',
        arguments: { path: `/meters/${token}` },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'probe' };
    const answers = [];
    for (let index = 0; index < 3; index++) answers.push(await send(url, 'dora.reuse-4Kp9', headers, call));
    assert.deepEqual(
      [
        answers.map((answer) => [answer.status, answer.text.includes('reuse-4Kp9')]),
        transport.tokenRedactors() - before,
      ],
      [
        [
          [200, false],
          [200, false],
          [200, false],
        ],
        1,
      ],
    );
  });

  it('keeps subject alice out of the session of subject alice:x sent as x:<its id>', async () => {
    const session = await open('alice:x');
    const used = await send(url, 'alice', inSession(`x:${session}`), LIST);
    const ended = await send(url, 'alice', inSession(`x:${session}`), undefined, 'DELETE');
    const owner = await send(url, 'alice:x', inSession(session), LIST);
    assert.deepEqual([used.status, ended.status, owner.status], [404, 404, 200]);
    await send(url, 'alice:x', inSession(session), undefined, 'DELETE');
  });

  it("lets a second subject in at the session cap by ending the first subject's least recently used idle session", async () => {
    const alice: string[] = [];
    for (let index = 0; index < 8; index++) alice.push(await open('alice'));
    await send(url, 'alice', inSession(alice[0]!), LIST); // alice[1] is now the least recently used
    const refused = await send(url, 'alice', {}, INITIALIZE);
    const carol = await send(url, 'carol', {}, INITIALIZE);
    const statuses = [];
    for (const session of alice) statuses.push((await send(url, 'alice', inSession(session), LIST)).status);
    assert.deepEqual(
      [refused.status, carol.status, statuses, transport.sessions()],
      [503, 200, [200, 404, 200, 200, 200, 200, 200, 200], 8],
    );
  });
});
