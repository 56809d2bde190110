/**
 * `openapi-probe serve --http 127.0.0.1:0` spawned as a process, driven over Streamable HTTP by the official clients
 * against the stand-in API (issue 19): `@modelcontextprotocol/sdk` 1.x `StreamableHTTPClientTransport` (the
 * 2025-11-25 era, with a session), and `@modelcontextprotocol/client` 2.x in its default negotiation, probing
 * `server/discover` first, and pinned to 2026-07-28 (stateless). The server prints the port it bound on stderr
 * (`event=http.listen`); the test reads it there. A token-bearing Authorization sent by the client must never
 * appear on stderr.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';
import { TOOLS } from '../src/mcp/tools.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'http-clients-key-4471';
const TOKEN = 'client-token-Hq2Lw8Zp5Nv3Xr7T';

/** Spawns `serve --http 127.0.0.1:0` and resolves with its MCP URL once stderr names the bound port. */
async function spawnServer(
  api: StandIn,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [...nodeArgsFor(`${ROOT}probe-server.ts`), 'serve', '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: `${ROOT}openapi.json` },
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = / url=(http:\/\/127\.0\.0\.1:\d+\/mcp) port=\d+/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

type Probed = { structuredContent?: { status?: number; operation?: { operationId?: string } } };

describe('serve --http with the official MCP clients', () => {
  let api: StandIn;
  let server: Awaited<ReturnType<typeof spawnServer>>;

  before(async () => {
    api = await start({ key: KEY });
    server = await spawnServer(api);
  });

  after(async () => {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
    await api.close();
  });

  it('serves the SDK 1.x client in a session: lists the tools, probes a meter, ends the session', async () => {
    const transport = new LegacyTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const client = new LegacyClient({ name: 'http-legacy', version: '0' });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      const probed = (await client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_1' } })) as Probed;
      const session = transport.sessionId;
      await transport.terminateSession();
      assert.deepEqual(
        [
          client.getServerVersion()?.name,
          /^[0-9a-f]{32}$/.test(session ?? ''),
          listed.tools.length,
          probed.structuredContent?.status,
          probed.structuredContent?.operation?.operationId,
          transport.sessionId,
        ],
        ['openapi-probe', true, TOOLS.length, 200, 'getMeter', undefined],
      );
    } finally {
      await client.close();
    }
  });

  for (const [label, mode, version] of [
    ['in its default negotiation', undefined, '2025-11-25'],
    ['probing server/discover first (auto)', 'auto', '2026-07-28'],
    ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
  ] as const) {
    it(`serves the 2.x client ${label}: negotiates ${version}, lists the tools and probes a meter`, async () => {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      const client = new Client(
        { name: 'http-modern', version: '0' },
        mode === undefined ? {} : ({ versionNegotiation: { mode } } as object),
      );
      await client.connect(transport);
      try {
        const listed = await client.listTools();
        const probed = (await client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_2' } })) as Probed;
        assert.deepEqual(
          [
            (client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion(),
            listed.tools.length,
            probed.structuredContent?.status,
          ],
          [version, TOOLS.length, 200],
        );
      } finally {
        await client.close();
      }
    });
  }

  it('never writes the token a client sent in Authorization to stderr', () => {
    assert.deepEqual(
      [server.stderr().includes('event=http.request.done'), server.stderr().includes(TOKEN)],
      [true, false],
    );
  });
});
