/**
 * Two `serve --http` instances behind nginx (the Debian package, started by the test on 127.0.0.1 with
 * `deploy/nginx.conf`, its addresses replaced), both eras driven through it by the official clients (issue 19,
 * Scale): 2026-07-28 requests spread over both instances, and each 2025-11-25 session stays on the instance its
 * `Mcp-Session-Id` names (`PROBE_HTTP_INSTANCE`), which nginx routes by. nginx round-robins the rest, so without the
 * sticky route a session's second request would reach the other instance and get 404. Skipped, saying so, when
 * nginx is not installed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { NGINX, freePort, spawnHttpServer, startNginx } from '../harness/http-server.ts';
import type { HttpServerProcess, NginxProcess } from '../harness/http-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'nginx-test-key-5512';

/** Spawns one instance on port 0 named `name`, allowing the Host clients send to nginx. */
function spawnInstance(api: StandIn, name: string, proxyHost: string): Promise<HttpServerProcess> {
  return spawnHttpServer({
    PATH: process.env.PATH ?? '',
    API_BASE_URL: api.url,
    API_KEY: KEY,
    OPENAPI_DOC: `${ROOT}openapi.json`,
    PROBE_HTTP_INSTANCE: name,
    PROBE_HTTP_ALLOWED_HOSTS: proxyHost,
  });
}

/** MCP requests an instance answered (its `http.request.done` lines for /mcp). */
function answered(instance: HttpServerProcess): number {
  return instance.stderr().match(/event=http\.request\.done .*path=\/mcp /g)?.length ?? 0;
}

/**
 * A connection to nginx at `host` holding one request whose body never finishes. The request that readiness asked
 * may still hold the address's one slot for a moment after its answer was read (seen: the held request answered
 * 503 at once, in three runs of five), so a held request answered within 250 ms is closed and sent again.
 */
async function holdRequest(host: string): Promise<Socket> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const held = connect(Number(host.split(':')[1]), '127.0.0.1');
    await new Promise((resolve) => held.once('connect', resolve));
    held.write(`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`);
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 250);
      held.once('data', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!answered) return held;
    held.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx at ${host} answered every held request at once, in 40 tries`);
}

describe(
  'two instances behind nginx',
  { skip: NGINX ? false : 'nginx is not installed (Debian package nginx)' },
  () => {
    let api: StandIn;
    let instances: HttpServerProcess[];
    let nginx: NginxProcess;
    let url: string;
    /** The Host clients send to the first nginx, which the instances allow. */
    let proxyHost: string;
    const prefix = mkdtempSync(join(tmpdir(), 'openapi-probe-nginx-'));

    before(async () => {
      api = await start({ key: KEY });
      const host = `127.0.0.1:${await freePort()}`;
      proxyHost = host;
      instances = [await spawnInstance(api, 'a', host), await spawnInstance(api, 'b', host)];
      nginx = await startNginx({ prefix, ports: [instances[0]!.port, instances[1]!.port], host });
      url = `http://${host}/mcp`;
    });

    after(async () => {
      await nginx.stop();
      await Promise.all(instances.map((instance) => instance.stop()));
      await api.close();
      rmSync(prefix, { recursive: true, force: true });
    });

    it('spreads 2026-07-28 calls over both instances', async () => {
      const before = instances.map(answered);
      const client = new Client({ name: 'nginx-modern', version: '0' }, {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      } as object);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const statuses: (number | undefined)[] = [];
      try {
        for (const meter of ['mtr_1', 'mtr_2', 'mtr_3', 'mtr_1']) {
          const called = (await client.callTool({ name: 'probe', arguments: { path: `/meters/${meter}` } })) as {
            structuredContent?: { status?: number };
          };
          statuses.push(called.structuredContent?.status);
        }
      } finally {
        await client.close();
      }
      const served = instances.map((instance, index) => answered(instance) - before[index]!);
      // Round robin alternates, so each instance answers two of the four; the total is not asserted, since a client
      // or the proxy may add a request of its own under load (seen once in many runs: five).
      assert.deepEqual(
        [statuses, served.map((count) => count >= 2)],
        [
          [200, 200, 200, 200],
          [true, true],
        ],
      );
    });

    it('keeps each 2025-11-25 session on the instance its Mcp-Session-Id names, for sessions opened on both', async () => {
      const seen: string[] = [];
      for (let index = 0; index < 2; index++) {
        const transport = new LegacyTransport(new URL(url));
        const client = new LegacyClient({ name: 'nginx-legacy', version: '0' });
        await client.connect(transport);
        try {
          const listed = await client.listTools();
          const probed = (await client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_2' } })) as {
            structuredContent?: { status?: number };
          };
          seen.push(`${transport.sessionId?.split('.')[0]} ${listed.tools.length} ${probed.structuredContent?.status}`);
          await transport.terminateSession();
        } finally {
          await client.close();
        }
      }
      assert.deepEqual(seen.sort(), ['a 7 200', 'b 7 200']);
    });

    it("answers a client past deploy/nginx.conf's limit_conn 503 with Retry-After, and serves it again once under", async () => {
      // The same file with a limit of 1: one request held in nginx (its body never finishes) takes the client's one.
      const limited = mkdtempSync(join(tmpdir(), 'openapi-probe-nginx-limit-'));
      const host = `127.0.0.1:${await freePort()}`;
      const proxy = await startNginx({
        prefix: limited,
        ports: [instances[0]!.port, instances[1]!.port],
        host,
        replace: [
          ['limit_conn probe_per_address 32;', 'limit_conn probe_per_address 1;'],
          // The instances allow only the first nginx's Host.
          ['proxy_set_header Host $http_host;', `proxy_set_header Host ${proxyHost};`],
        ],
      });
      const held = await holdRequest(host);
      try {
        // nginx counts the held request once it has read its header: ask until the second one is refused.
        let refused: Response | undefined;
        // Paced, so the attempts span seconds however fast they run (a loaded machine reads the held header late).
        for (let attempt = 0; attempt < 200 && refused?.status !== 503; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25));
          refused = await fetch(`http://${host}/healthz`);
          await refused.arrayBuffer();
        }
        held.destroy();
        let again: Response | undefined;
        for (let attempt = 0; attempt < 200 && again?.status !== 200; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25));
          again = await fetch(`http://${host}/healthz`);
          await again.arrayBuffer();
        }
        assert.deepEqual([refused?.status, refused?.headers.get('retry-after'), again?.status], [503, '1', 200]);
      } finally {
        held.destroy();
        await proxy.stop();
        rmSync(limited, { recursive: true, force: true });
      }
    });
  },
);
