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
import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'nginx-test-key-5512';
const NGINX = ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nginx'))].find(
  (path) => existsSync(path),
);

/** A port free on 127.0.0.1 now (for nginx's listen, which must be written into its configuration). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Instance = { child: ChildProcessWithoutNullStreams; port: number; stderr: () => string };

/** Spawns one instance on port 0 named `name`, allowing the Host clients send to nginx; resolves with its port. */
async function spawnInstance(api: StandIn, name: string, proxyHost: string): Promise<Instance> {
  const child = spawn(process.execPath, [...nodeArgsFor(`${ROOT}probe-server.ts`), 'serve', '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      API_BASE_URL: api.url,
      API_KEY: KEY,
      OPENAPI_DOC: `${ROOT}openapi.json`,
      PROBE_HTTP_INSTANCE: name,
      PROBE_HTTP_ALLOWED_HOSTS: proxyHost,
    },
  });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = / port=(\d+)/.exec(stderr);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`instance ${name} exited ${code}: ${stderr}`)));
  });
  return { child, port, stderr: () => stderr };
}

/** MCP requests an instance answered (its `http.request.done` lines for /mcp). */
function answered(instance: Instance): number {
  return instance.stderr().match(/event=http\.request\.done .*path=\/mcp /g)?.length ?? 0;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe(
  'two instances behind nginx',
  { skip: NGINX ? false : 'nginx is not installed (Debian package nginx)' },
  () => {
    let api: StandIn;
    let instances: Instance[];
    let nginx: ChildProcess;
    let nginxLog = '';
    let url: string;
    const prefix = mkdtempSync(join(tmpdir(), 'openapi-probe-nginx-'));

    before(async () => {
      api = await start({ key: KEY });
      const port = await freePort();
      const host = `127.0.0.1:${port}`;
      instances = [await spawnInstance(api, 'a', host), await spawnInstance(api, 'b', host)];
      const config = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8')
        .replaceAll('127.0.0.1:8787', `127.0.0.1:${instances[0]!.port}`)
        .replaceAll('127.0.0.1:8788', `127.0.0.1:${instances[1]!.port}`)
        .replaceAll('127.0.0.1:8080', host);
      mkdirSync(join(prefix, 'temp'));
      writeFileSync(join(prefix, 'nginx.conf'), config);
      nginx = spawn(NGINX!, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      nginx.stderr!.on('data', (chunk: Buffer) => (nginxLog += chunk.toString('utf8')));
      url = `http://${host}/mcp`;
      // nginx says nothing once it listens: ask until it answers (its exit fails the test instead).
      for (;;) {
        if (nginx.exitCode !== null) throw new Error(`nginx exited ${nginx.exitCode}: ${nginxLog}`);
        const ready = await fetch(`http://${host}/healthz`).then(
          (response) => response.ok,
          () => false,
        );
        if (ready) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    after(async () => {
      await stop(nginx);
      await Promise.all(instances.map((instance) => stop(instance.child)));
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
  },
);
