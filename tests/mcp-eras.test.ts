/**
 * Both live MCP revisions from one process (MCP 2026-07-28, Versioning, Backward Compatibility): a request naming
 * 2026-07-28 in `_meta` is served statelessly, `initialize` selects the legacy era. The oracles are the official
 * 2.x client (`@modelcontextprotocol/client`) in each of its negotiation modes over stdio, and its own schemas of the
 * 2026-07-28 result types.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, specTypeSchemas } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';
import { TOOLS } from '../src/mcp/tools.ts';
import { encode } from '../src/mcp/wire.ts';
import { errorResponse } from '../src/mcp/codes.ts';
import { redactor } from '../src/redaction/redaction.ts';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'sk-eras-test-key-0123';
const MODERN = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The issues the 2.x client's schema finds in `value` as the spec type `name`, or [] when it conforms. */
function issues(name: 'DiscoverResult' | 'ListToolsResult' | 'CallToolResult', value: unknown): unknown[] {
  const checked = specTypeSchemas[name]['~standard'].validate(value) as { issues?: unknown[] };
  return checked.issues ?? [];
}

describe('the stateless era (MCP 2026-07-28) beside the initialize era, in one session', () => {
  const handler = createHandler(
    readConfig({ API_BASE_URL: 'http://127.0.0.1:9/v2', OPENAPI_DOC: `${ROOT}openapi.json` }, ROOT),
  );
  const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
    handler.handle({ jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN } });

  it('answers server/discover with the revisions served, the tools capability and the server in _meta, as the 2.x schema reads it', async () => {
    const reply: any = await request(1, 'server/discover');
    assert.deepEqual(
      [
        reply.result.resultType,
        reply.result.supportedVersions,
        reply.result.capabilities,
        reply.result._meta,
        reply.result.ttlMs,
        reply.result.cacheScope,
        issues('DiscoverResult', reply.result),
      ],
      [
        'complete',
        ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        { tools: { listChanged: false } },
        { 'io.modelcontextprotocol/serverInfo': { name: 'openapi-probe', version: '0.1.0', title: 'OpenAPI Probe' } },
        3_600_000,
        'public',
        [],
      ],
    );
  });

  it('lists every tool in the table order, complete, with a time to live (0 while the document loads) and a public cache scope', async () => {
    const listed = async (id: number) => {
      const reply: any = await request(id, 'tools/list');
      return [
        reply.result.resultType,
        reply.result.tools.map((tool: { name: string }) => tool.name),
        reply.result.ttlMs,
        reply.result.cacheScope,
        issues('ListToolsResult', reply.result),
      ];
    };
    const before = await listed(2);
    // Any job loads the document (this handler runs the jobs on its own thread).
    await request(3, 'tools/call', { name: 'find_operation', arguments: { query: 'meter' } });
    assert.deepEqual(
      [before, await listed(4)],
      [
        ['complete', TOOLS.map((tool) => tool.name), 0, 'public', []],
        ['complete', TOOLS.map((tool) => tool.name), 3_600_000, 'public', []],
      ],
    );
  });

  it('marks a tool result complete and names the server in its _meta', async () => {
    const reply: any = await request(3, 'tools/call', {
      name: 'find_operation',
      arguments: { query: 'GET /meters/{meterId}' },
    });
    assert.deepEqual(
      [
        reply.result.resultType,
        reply.result._meta,
        typeof reply.result.structuredContent.requestId,
        issues('CallToolResult', reply.result),
      ],
      [
        'complete',
        { 'io.modelcontextprotocol/serverInfo': { name: 'openapi-probe', version: '0.1.0', title: 'OpenAPI Probe' } },
        'string',
        [],
      ],
    );
  });

  it('answers a revision it does not serve with -32022, listing the supported ones and the one requested', async () => {
    const reply = await handler.handle({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
    });
    assert.deepEqual(reply, {
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: {
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          requested: '1900-01-01',
        },
      },
    });
  });

  it('refuses a stateless-era request without client capabilities in _meta with -32602 (MCP 2026-07-28, _meta)', async () => {
    const replies = [];
    for (const capabilities of [undefined, null, 'all']) {
      replies.push(
        await handler.handle({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              ...(capabilities === undefined ? {} : { 'io.modelcontextprotocol/clientCapabilities': capabilities }),
            },
          },
        }),
      );
    }
    const refusal = {
      jsonrpc: '2.0',
      id: 5,
      error: {
        code: -32602,
        message:
          'Invalid params: _meta needs io.modelcontextprotocol/clientCapabilities (an object), which MCP 2026-07-28 requires on every request.',
      },
    };
    assert.deepEqual(replies, [refusal, refusal, refusal]);
  });

  it('answers initialize that names 2026-07-28 in _meta with -32601, as a method that revision does not have', async () => {
    const reply = await request(6, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '0' },
    });
    assert.deepEqual(reply, {
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32601, message: 'Method not found: initialize' },
    });
  });

  it('repeats a requested version of any size or type in -32022 cut to 64 characters', async () => {
    const replies: any[] = [];
    for (const requested of ['9'.repeat(100_000), { v: '2026-07-28' }]) {
      replies.push(
        await handler.handle({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': requested } },
        }),
      );
    }
    assert.deepEqual(
      replies.map((reply) => [reply.error.code, reply.error.data.requested]),
      [
        [-32022, `${'9'.repeat(64)}… (99936 more characters)`],
        [-32022, '{"v":"2026-07-28"}'],
      ],
    );
  });

  it("redacts the key from an error's data as written, where -32022 repeats the requested version", () => {
    const key = 'sk-CANARY-7f3a9d2e1b';
    const written = encode(
      errorResponse(9, -32022, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: key }),
      redactor(key),
    );
    assert.deepEqual([written.includes(key), JSON.parse(written).error.data.requested], [false, '[redacted]']);
  });

  it('has no ping in the stateless era: -32601', async () => {
    assert.deepEqual(await request(5, 'ping'), {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32601, message: 'Method not found: ping' },
    });
  });

  it('still answers initialize and a ping without _meta by the legacy rules in the same session', async () => {
    const initialized: any = await handler.handle({
      jsonrpc: '2.0',
      id: 6,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    const ping = await handler.handle({ jsonrpc: '2.0', id: 7, method: 'ping' });
    assert.deepEqual([initialized.result.protocolVersion, ping], ['2025-11-25', { jsonrpc: '2.0', id: 7, result: {} }]);
  });

  it('refuses initialize whose protocolVersion is not a string, or missing, with -32602 naming what it needs', async () => {
    const answers = await Promise.all(
      [{ protocolVersion: 20251125 }, {}].map((params, i) =>
        handler.handle({
          jsonrpc: '2.0',
          id: 30 + i,
          method: 'initialize',
          params: { ...params, capabilities: {}, clientInfo: { name: 't', version: '0' } },
        }),
      ),
    );
    assert.deepEqual(answers, [
      {
        jsonrpc: '2.0',
        id: 30,
        error: {
          code: -32602,
          message:
            'initialize needs params.protocolVersion, the revision the client speaks as a string (e.g. "2025-11-25"), got a number.',
        },
      },
      {
        jsonrpc: '2.0',
        id: 31,
        error: {
          code: -32602,
          message:
            'initialize needs params.protocolVersion, the revision the client speaks as a string (e.g. "2025-11-25"), got none.',
        },
      },
    ]);
  });
});

describe('the official 2.x client over stdio, in each negotiation mode (spawned probe-server.ts, stand-in API)', () => {
  let api: StandIn;
  before(async () => {
    api = await start({ key: KEY });
  });
  after(async () => {
    await api.close();
  });

  for (const [label, mode, version] of [
    ['legacy (the default)', undefined, '2025-11-25'],
    ['auto (probes server/discover first)', 'auto', '2026-07-28'],
    ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
  ] as const) {
    it(`connects ${label}, negotiates ${version}, lists the tools and probes a meter`, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: nodeArgsFor(`${ROOT}probe-server.ts`),
        env: { PATH: process.env.PATH ?? '', API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: `${ROOT}openapi.json` },
        cwd: ROOT,
        stderr: 'pipe',
      });
      const client = new Client(
        { name: 'eras-test', version: '0' },
        mode === undefined ? {} : ({ versionNegotiation: { mode } } as object),
      );
      try {
        await client.connect(transport);
        const listed = await client.listTools();
        const called = (await client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_1' } })) as {
          structuredContent?: { status?: number };
        };
        assert.deepEqual(
          [
            (client as unknown as { getNegotiatedProtocolVersion(): string }).getNegotiatedProtocolVersion(),
            listed.tools.length,
            called.structuredContent?.status,
          ],
          [version, TOOLS.length, 200],
        );
      } finally {
        await client.close();
      }
    });
  }
});
