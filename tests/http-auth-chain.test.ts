/**
 * The three checks of issue 19 end to end, as the entry wires them: `serve --http` spawned with a real authorization
 * server (oidc-provider, harness/authorization-server.ts) as AUTH_ISSUER, an entitlements file, and a tenant
 * credentials file naming two stand-in APIs with their own keys. The official 2.x client connects with an access
 * token from that server. Identity (no or bad token: 401 with the challenge), entitlement (a tenant the caller is
 * not entitled to: 403, nothing sent upstream) and ownership (the upstream gets its tenant's key, never the caller's
 * token, and no key of any tenant reaches an answer or stderr) are each asserted on their own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';
import { spawnHttpServer, teamEnvironment } from '../harness/http-server.ts';
import type { HttpServerProcess } from '../harness/http-server.ts';
import { startAuthorizationServer } from '../harness/authorization-server.ts';
import type { AuthorizationServer } from '../harness/authorization-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The resource the tokens are for: this server's endpoint as its operators name it (RFC 8707). */
const AUDIENCE = 'http://127.0.0.1:8787/mcp';
const KEY_A = 'tenant-a-upstream-key-7Qm2';
const KEY_B = 'tenant-b-upstream-key-9Zx4';
const KEY_C = 'tenant-c-upstream-key-3Vn8';

type Probed = { isError?: boolean; structuredContent?: { status?: number }; content?: { text?: string }[] };

describe('serve --http with identity, entitlement and ownership wired by the entry', () => {
  let issuer: AuthorizationServer;
  let apiA: StandIn;
  let apiB: StandIn;
  /** Tenant c's upstream: answers every GET with a meter whose note repeats the Authorization it received. */
  let echo: Server;
  let dir: string;
  let server: HttpServerProcess;
  let url: string;
  const answers: string[] = [];

  before(async () => {
    issuer = await startAuthorizationServer({ audience: AUDIENCE, clients: ['agent-a', 'agent-b'] });
    apiA = await start({ key: KEY_A });
    apiB = await start({ key: KEY_B });
    echo = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'mtr_1', note: `seen: ${request.headers.authorization}` }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    // Under the same path as the others: every tenant is served under API_BASE_URL's path.
    const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}${new URL(apiA.url).pathname}`;
    dir = mkdtempSync(join(tmpdir(), 'probe-chain-'));
    server = await spawnHttpServer(
      teamEnvironment(dir, issuer.issuer, AUDIENCE, {
        tenants: {
          a: { baseUrl: apiA.url, apiKey: KEY_A },
          b: { baseUrl: apiB.url, apiKey: KEY_B },
          c: { baseUrl: echoUrl, apiKey: KEY_C },
        },
        entitlements: { 'agent-a': ['a', 'c'], 'agent-b': ['b'] },
      }),
    );
    url = server.url;
  });

  after(async () => {
    await server.stop();
    await Promise.all([apiA.close(), apiB.close(), issuer.stop(), new Promise((resolve) => echo.close(resolve))]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Connects the 2.x client with `headers`, probes `path`, and returns the result (its text kept in `answers`). */
  async function probeAs(headers: Record<string, string>, path: string): Promise<Probed> {
    const client = new Client({ name: 'chain', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    try {
      const result = (await client.callTool({ name: 'probe', arguments: { path } })) as Probed;
      answers.push(JSON.stringify(result));
      return result;
    } finally {
      await client.close();
    }
  }

  it('serves an entitled caller from its own tenant, with that tenant key upstream', async () => {
    const token = await issuer.token([], { client: 'agent-a' });
    const before = [apiA.requests.length, apiB.requests.length];
    const probed = await probeAs({ authorization: `Bearer ${token}`, 'x-tenant': 'a' }, '/meters/mtr_1');
    assert.deepEqual(
      [probed.structuredContent?.status, apiA.requests.length - before[0]!, apiB.requests.length - before[1]!],
      [200, 1, 0],
    );
    assert.equal(apiA.requests.at(-1)?.authorized, true);
  });

  it('serves the other tenant with its own key', async () => {
    const token = await issuer.token([], { client: 'agent-b' });
    const probed = await probeAs({ authorization: `Bearer ${token}`, 'x-tenant': 'b' }, '/meters/mtr_2');
    assert.deepEqual([probed.structuredContent?.status, apiB.requests.at(-1)?.authorized], [200, true]);
  });

  it('refuses a tenant the caller is not entitled to with 403, and sends nothing upstream', async () => {
    const token = await issuer.token([], { client: 'agent-a' });
    const sent = apiB.requests.length;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'x-tenant': 'b',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    const body = (await response.json()) as { error?: string };
    assert.deepEqual([response.status, body.error, apiB.requests.length - sent], [403, 'forbidden', 0]);
  });

  it('answers a request without a token 401 with the challenge naming the resource metadata', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    await response.arrayBuffer();
    assert.deepEqual(
      [response.status, response.headers.get('www-authenticate')],
      [401, 'Bearer resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp"'],
    );
  });

  it('serves the Protected Resource Metadata naming the authorization server, without a token', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    const document = (await response.json()) as { resource?: string; authorization_servers?: string[] };
    assert.deepEqual(
      [response.status, document.resource, document.authorization_servers],
      [200, AUDIENCE, [issuer.issuer]],
    );
  });

  it("redacts the key a tenant's upstream echoes in its body, in the check worker, which is told every tenant's key", async () => {
    const token = await issuer.token([], { client: 'agent-a' });
    const probed = await probeAs({ authorization: `Bearer ${token}`, 'x-tenant': 'c' }, '/meters/mtr_1');
    const text = JSON.stringify(probed);
    assert.deepEqual(
      [probed.structuredContent?.status, text.includes(KEY_C), text.includes('seen: ')],
      [200, false, true],
    );
  });

  it('lets no tenant key and no token reach an answer or stderr', async () => {
    const token = await issuer.token([], { client: 'agent-a' });
    await probeAs({ authorization: `Bearer ${token}`, 'x-tenant': 'a' }, '/meters/mtr_3');
    const seen = answers.join('\n') + server.stderr();
    assert.deepEqual(
      [seen.includes(KEY_A), seen.includes(KEY_B), seen.includes(KEY_C), seen.includes(token), answers.length >= 4],
      [false, false, false, false, true],
    );
  });
});

describe('serve --http with tenants under another path than API_BASE_URL', () => {
  it('refuses to start, naming the tenant and both paths, since operations are matched under one prefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-chain-prefix-'));
    try {
      writeFileSync(
        join(dir, 'tenants.json'),
        JSON.stringify({ acme: { baseUrl: 'http://127.0.0.1:9/v3', apiKey: 'acme-upstream-key-1234' } }),
      );
      writeFileSync(join(dir, 'entitlements.json'), JSON.stringify({ alice: ['acme'] }));
      const child = spawn(
        process.execPath,
        [...nodeArgsFor(`${ROOT}probe-server.ts`), 'serve', '--http', '127.0.0.1:0'],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            API_BASE_URL: 'http://127.0.0.1:9/v2',
            OPENAPI_DOC: `${ROOT}openapi.json`,
            AUTH_ISSUER: 'http://127.0.0.1:9',
            AUTH_AUDIENCE: AUDIENCE,
            TENANT_KEYS_FILE: join(dir, 'tenants.json'),
            ENTITLEMENTS_FILE: join(dir, 'entitlements.json'),
          },
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.deepEqual(
        [code, stderr.trim()],
        [
          2,
          "openapi-probe: TENANT_KEYS_FILE: tenant acme's baseUrl has the path /v3, API_BASE_URL has /v2; every tenant's API must be served under API_BASE_URL's path, since the document's operations are matched under one prefix",
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
