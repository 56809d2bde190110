/**
 * probe-server.ts against a real client: the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`
 * 1.32.2, dev dependency only) spawns the server over stdio as an editor would, negotiates, lists
 * the tools, calls them, and validates `structuredContent` against each tool's `outputSchema`
 * (MCP 2025-11-25, Tools, Output Schema: clients SHOULD validate; this client does, and throws).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { start, METERS } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const SERVER = `${HERE}probe-server.ts`;
const DOCUMENT = `${HERE}openapi.json`;
const KEY = 'sdk-test-key';
const PACKAGE = JSON.parse(readFileSync(`${HERE}package.json`, 'utf8')) as { name: string; version: string };

/**
 * The SDK's stdio transport, recording what the SDK tells it: the negotiated protocol version
 * (the SDK calls `setProtocolVersion` after `initialize` when the transport has it) and every
 * message sent. The child process is read from the SDK's private `_process` (SDK pinned at 1.32.2)
 * only to observe its exit code.
 */
class RecordingTransport extends StdioClientTransport {
  negotiated: string | undefined = undefined;
  sent: JSONRPCMessage[] = [];
  child: ChildProcess | undefined = undefined;
  stderrText = '';

  setProtocolVersion(version: string): void {
    this.negotiated = version;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    return super.send(message);
  }

  override async start(): Promise<void> {
    this.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8');
    });
    await super.start();
    this.child = (this as unknown as { _process?: ChildProcess })._process;
  }
}

type Session = { client: Client; transport: RecordingTransport };

/** Spawns probe-server.ts through the SDK with only the configured variables, as SDK-based hosts do. */
async function connect(standIn: StandIn): Promise<Session> {
  const transport = new RecordingTransport({
    command: process.execPath,
    args: nodeArgsFor(SERVER),
    env: { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
    cwd: HERE,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-client-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('probe-server.ts driven by the official MCP SDK client', () => {
  let standIn: StandIn;
  let session: Session;

  before(async () => {
    standIn = await start({ key: KEY });
    session = await connect(standIn);
  });

  after(async () => {
    await session?.client.close();
    await standIn?.close();
  });

  test("negotiates the SDK's latest protocol version and gets the server info", () => {
    const initialize = session.transport.sent.find((message) => 'method' in message && message.method === 'initialize');
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
    assert.equal(
      (initialize as unknown as { params: { protocolVersion: string } }).params.protocolVersion,
      LATEST_PROTOCOL_VERSION,
    );
    assert.equal(session.transport.negotiated, LATEST_PROTOCOL_VERSION);
    assert.deepEqual(session.client.getServerVersion(), {
      name: 'openapi-probe',
      version: PACKAGE.version,
      title: 'OpenAPI Probe',
    });
    assert.deepEqual(session.client.getServerCapabilities(), { tools: { listChanged: true } });
    assert.equal(typeof session.client.getInstructions(), 'string');
  });

  test('lists the tools with their titles, annotations and output schemas', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(
      tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        annotations: tool.annotations,
        hasOutputSchema: tool.outputSchema !== undefined,
      })),
      [
        {
          name: 'probe',
          title: 'Probe the API (read-only GET)',
          annotations: { readOnlyHint: true, openWorldHint: true },
          hasOutputSchema: true,
        },
        {
          name: 'field_presence',
          title: 'Optional fields across probes',
          annotations: { readOnlyHint: true, openWorldHint: false },
          hasOutputSchema: false,
        },
        {
          name: 'compare_fixture',
          title: 'Compare a saved fixture with the live record',
          annotations: { readOnlyHint: true, openWorldHint: true },
          hasOutputSchema: false,
        },
        {
          name: 'probe_sample',
          title: 'Sample records of one operation',
          annotations: { readOnlyHint: true, openWorldHint: true },
          hasOutputSchema: true,
        },
        {
          name: 'describe_operation',
          title: "Read one operation's contract",
          annotations: { readOnlyHint: true, openWorldHint: false },
          hasOutputSchema: true,
        },
        {
          name: 'draft_request',
          title: 'Check a request without sending it',
          annotations: { readOnlyHint: true, openWorldHint: false },
          hasOutputSchema: true,
        },
        {
          name: 'find_operation',
          title: 'Find operations',
          annotations: { readOnlyHint: true, openWorldHint: false },
          hasOutputSchema: true,
        },
      ],
    );
  });

  test("returns a find_operation result whose structuredContent passes the SDK's outputSchema check", async () => {
    await session.client.listTools();
    const called = await session.client.callTool({ name: 'find_operation', arguments: { query: 'list meters' } });
    assert.deepEqual(
      (called.structuredContent as { hits: { method: string; path: string; confidence: string }[] }).hits.map((hit) => [
        hit.method,
        hit.path,
        hit.confidence,
      ]),
      [
        ['GET', '/meters', 'high'],
        ['GET', '/meters/{meterId}/readings', 'high'],
        ['GET', '/meters/{meterId}', 'high'],
      ],
    );
  });

  test("returns a probe of /meters/mtr_1 whose structuredContent passes the SDK's outputSchema check", async () => {
    // listTools caches the output validators; callTool validates only after it.
    await session.client.listTools();
    const called = await session.client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_1' } });
    const structured = called.structuredContent as Record<string, any>;
    assert.match(structured.document?.loadedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(structured.requestId, /^[0-9a-f]{12}$/);
    assert.deepEqual(structured, {
      url: `${standIn.url}/meters/mtr_1`,
      status: 200,
      contentType: 'application/json; charset=utf-8',
      bytes: Buffer.byteLength(JSON.stringify(METERS.mtr_1)),
      truncated: false,
      body: METERS.mtr_1,
      document: { title: 'Meter Readings API', version: '2.3.0', loadedAt: structured.document.loadedAt },
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      validated: true,
      schemaPath: '#/paths/~1meters~1{meterId}/get/responses/200/content/application~1json/schema',
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.firmwareVersion',
          schemaPath: '#/components/schemas/Meter/properties',
          message: 'is present but not documented in the schema',
        },
      ],
      matchesContract: true,
      requestId: structured.requestId,
    });
    assert.equal(called.isError, undefined);
    assert.deepEqual(called.content, [{ type: 'text', text: JSON.stringify(structured) }]);
  });

  test('rejects structuredContent that breaks the outputSchema, so the check above is live', async () => {
    await session.client.listTools();
    const transport = session.transport;
    const deliver = transport.onmessage!;
    // Turn `status` into a string on the way in: outputSchema says integer.
    transport.onmessage = (message: JSONRPCMessage) => {
      const result = (message as { result?: { structuredContent?: Record<string, unknown> } }).result;
      if (result?.structuredContent) result.structuredContent.status = String(result.structuredContent.status);
      deliver(message);
    };
    try {
      await assert.rejects(
        session.client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_2' } }),
        (error: unknown) => {
          assert.ok(error instanceof McpError);
          assert.equal(error.code, -32602);
          assert.match(
            error.message,
            /^MCP error -32602: Structured content does not match the tool's output schema: /,
          );
          return true;
        },
      );
    } finally {
      transport.onmessage = deliver;
    }
  });

  test('returns isError true and sends nothing for a path with a dot segment', async () => {
    const before = standIn.requests.length;
    const called = await session.client.callTool({ name: 'probe', arguments: { path: '/../admin' } });
    const requestId = String((called.content as { text: string }[])[1]?.text).slice('requestId: '.length);
    assert.match(requestId, /^[0-9a-f]{12}$/);
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: 'Refused, nothing was sent: `path` "/../admin" has the dot segment "..", which would climb out of the API\'s base path; name the resource directly.',
        },
        { type: 'text', text: `requestId: ${requestId}` },
      ],
      isError: true,
    });
    assert.equal(standIn.requests.length, before);
  });

  test('rejects an unknown tool name with McpError -32602', async () => {
    await assert.rejects(session.client.callTool({ name: 'delete_meter', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.equal(
        error.message,
        'MCP error -32602: Unknown tool: delete_meter. Available: probe, field_presence, compare_fixture, probe_sample, describe_operation, draft_request, find_operation.',
      );
      return true;
    });
  });

  test('reports $.location present in 2 of 3 after probing mtr_1, mtr_2 and mtr_3', async () => {
    const fresh = await connect(standIn);
    try {
      for (const id of ['mtr_1', 'mtr_2', 'mtr_3']) {
        const probed = await fresh.client.callTool({ name: 'probe', arguments: { path: `/meters/${id}` } });
        assert.equal((probed.structuredContent as { status: number }).status, 200);
      }
      const called = await fresh.client.callTool({
        name: 'field_presence',
        arguments: { operation: 'getMeter', detail: 'full' },
      });
      const structured = called.structuredContent as Record<string, any>;
      assert.deepEqual(structured.probes, ['/meters/mtr_1', '/meters/mtr_2', '/meters/mtr_3']);
      assert.deepEqual(
        structured.fields.find((field: { path: string }) => field.path === '$.location'),
        { path: '$.location', required: false, documented: true, present: 2, of: 3, text: 'present in 2 of 3' },
      );
      assert.deepEqual(structured.optionalFields, [
        '$.lastReading.source: present in 2 of 2',
        '$.location: present in 2 of 3',
        '$.location.floor: present in 2 of 2',
        '$.note: present in 0 of 3',
      ]);
      assert.deepEqual(structured.undocumentedFields, ['$.firmwareVersion: present in 3 of 3']);
    } finally {
      await fresh.client.close();
    }
  });

  test('exits with code 0 on its own when the client closes, leaving no orphan', async () => {
    const fresh = await connect(standIn);
    const child = fresh.transport.child!;
    const pid = fresh.transport.pid!;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    await fresh.client.close();
    // The SDK closes stdin, waits 2000 ms, then sends SIGTERM: code 0 and no signal means the server left by itself.
    assert.deepEqual(await exited, { code: 0, signal: null }, `server stderr:\n${fresh.transport.stderrText}`);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});
