/**
 * Every answer bounded (issue 18): document text is as hostile as the API's bytes. A document whose enum value is
 * 1 MB long, and list bodies of 50 and 200 items that miss it, once made 100 MB and 400 MB answers (ping held 19 s);
 * a 1.5 MB value ended in `-32603 Invalid string length`; four such probes at once ended the session. Here the
 * server is spawned over stdio against a 127.0.0.1 API this file starts and stops, and the size of each line it
 * writes is measured as written (the API's port, which varies, written as PORT).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';
import { encode } from '../src/mcp/wire.ts';
import { ERROR_CODES, errorResponse } from '../src/mcp/codes.ts';
import { NO_REDACTION } from '../src/redaction/redaction.ts';

/** A GET of `path` answering a JSON list of `items` schemas. */
function listOperation(item: unknown): Record<string, unknown> {
  return {
    get: {
      responses: {
        '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: item } } } },
      },
    },
  };
}

const MEGABYTE_VALUE = 'v'.repeat(1_000_000);

/** 900 property names of 1,000 characters each. */
const NAMES = Array.from({ length: 900 }, (_, index) => `${String(index).padStart(4, '0')}${'k'.repeat(996)}`);

/** An object schema of `NAMES`, each with a long description and enum value, under a 1 MB description. */
const WIDE_SCHEMA = {
  type: 'object',
  description: 'd'.repeat(1_000_000),
  properties: Object.fromEntries(
    NAMES.map((name) => [name, { type: 'string', description: 'e'.repeat(2000), enum: ['q'.repeat(5000)] }]),
  ),
};

/** The hostile document: enum and const values of 1 MB and 1.5 MB; 900 long names, a 1 MB summary and description. */
const HOSTILE_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'hostile', version: '1' },
  paths: {
    '/items': listOperation({ type: 'object', properties: { status: { enum: [MEGABYTE_VALUE, 'b'] } } }),
    '/larger': listOperation({ type: 'object', properties: { status: { const: 'w'.repeat(1_500_000) } } }),
    '/wide/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getWide',
        summary: 'wide '.repeat(200_000),
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: WIDE_SCHEMA } } } },
      },
      post: {
        operationId: 'postWide',
        requestBody: { content: { 'application/json': { schema: WIDE_SCHEMA } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

/** A body of the first `count` names, each holding 400 escape-dense pairs `"\` (a 300-name body is 780,101 bytes). */
function wideBody(count: number): Record<string, string> {
  return Object.fromEntries(NAMES.slice(0, count).map((name) => [name, '"\\'.repeat(400)]));
}

let api: Server;
let port = 0;
let folder = '';
let client: StdioClient;

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'answer-bounds-'));
  writeFileSync(join(folder, 'hostile.json'), JSON.stringify(HOSTILE_DOCUMENT));
  // /wide/… answers `wideBody(n)`; every other path a list of `n` records whose status the document does not allow.
  api = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const count = Number(url.searchParams.get('n') ?? 1);
    response.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname.startsWith('/wide/')) return response.end(JSON.stringify(wideBody(count)));
    response.end(JSON.stringify(Array.from({ length: count }, () => ({ status: 'zz' }))));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
  port = (api.address() as AddressInfo).port;
  client = spawnServer({
    API_BASE_URL: `http://127.0.0.1:${port}`,
    OPENAPI_DOC: join(folder, 'hostile.json'),
    PROBE_RATE_PER_MIN: '1000',
    // The largest view a probe may return: half a MiB of escape-dense JSON passes the answer cap as written.
    PROBE_MAX_BYTES: '524288',
  });
  await client.initialize();
});

after(async () => {
  await client.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
});

/** The line the server wrote for the request `id`, its port written as PORT and its id as 0 (ids count the calls before). */
function lineOf(id: number): string {
  const head = `{"jsonrpc":"2.0","id":${id},`;
  const line = client.stdoutLines.find((written) => written.startsWith(head));
  assert.ok(line, `no line for id ${id}`);
  return `{"jsonrpc":"2.0","id":0,${line.slice(head.length).replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT')}`;
}

/**
 * Calls a tool; resolves with the request's id and its reply. A note that gives the size of a cut answer counts the
 * id's digits: the expected sizes below add them.
 */
async function call(name: string, args: Record<string, unknown>): Promise<{ id: number; reply: Record<string, any> }> {
  const reply = await client.request('tools/call', { name, arguments: args }, 120_000);
  return { id: reply.id as number, reply };
}

const CUT_VALUE = `${'v'.repeat(1000)}… (999000 more characters)`;

describe('document values in findings (issue 18)', () => {
  it('cuts a 1 MB enum value in every finding of a 50-item list to 1,000 characters: a 139,486-character line', async () => {
    const { id, reply } = await call('probe', { path: '/items?n=50' });
    const findings = reply.result.structuredContent.findings;
    assert.equal(findings.length, 50);
    assert.deepEqual(findings[49], {
      kind: 'enum',
      severity: 'error',
      path: '$[49].status',
      schemaPath: '#/paths/~1items/get/responses/200/content/application~1json/schema/items/properties/status/enum',
      allowed: [CUT_VALUE, 'b'],
      message: `is "zz", not one of the allowed values ["${'v'.repeat(75)}...`,
    });
    assert.equal(lineOf(id).length, 139_486);
  });

  it('answers a 200-item list against the same enum in one line of 554,292 characters, listing 200 findings', async () => {
    const { id, reply } = await call('probe', { path: '/items?n=200' });
    assert.equal(reply.result.structuredContent.findings.length, 200);
    assert.equal(lineOf(id).length, 554_292);
  });

  it('answers a const of 1.5 MB cut like an enum value, instead of -32603 Invalid string length', async () => {
    const { id, reply } = await call('probe', { path: '/larger?n=50' });
    assert.deepEqual(reply.result.structuredContent.findings[0].allowed, [
      `${'w'.repeat(1000)}… (1499000 more characters)`,
    ]);
    assert.equal(lineOf(id).length, 139_994);
  });

  it('answers four such probes sent at once, each in a line of 139,486 characters', async () => {
    const calls = await Promise.all([1, 2, 3, 4].map(() => call('probe', { path: '/items?n=50' })));
    assert.deepEqual(
      calls.map(({ id }) => lineOf(id).length),
      [139_486, 139_486, 139_486, 139_486],
    );
  });

  it('answers probe_sample over two such paths in one line of 277,268 characters', async () => {
    const { id, reply } = await call('probe_sample', { paths: ['/items?n=50', '/items?n=51'] });
    assert.equal(reply.result.isError, undefined);
    assert.equal(lineOf(id).length, 277_268);
  });
});

const CAP_NOTE = (size: number, members: string) =>
  `Cut: the answer was ${size} characters as written, more than the answer cap of 1048576 (1 MiB). Written empty or shortened: ${members}. Narrow the call (a smaller body, \`select\`, fewer paths, \`part\` or \`status\`, a lower \`limit\`) to see them.`;

describe('every answer within the answer cap, measured as written (issue 18)', () => {
  it('probe: a 512 KiB view of an escape-dense body is cut with a note, its findings and body written empty', async () => {
    const { id, reply } = await call('probe', { path: '/wide/a?n=300' });
    const structured = reply.result.structuredContent;
    assert.deepEqual(
      [structured.body, structured.findings, structured.cut],
      [{}, [], CAP_NOTE(2_772_915 + String(id).length, 'body, findings')],
    );
    assert.equal(lineOf(id).length, 2580);
  });

  it('probe_sample: two such records are cut with a note', async () => {
    const { id, reply } = await call('probe_sample', { paths: ['/wide/c?n=300', '/wide/d?n=300'] });
    assert.equal(reply.result.structuredContent.cut, CAP_NOTE(3_845_907 + String(id).length, 'probes, optionalFields'));
    assert.equal(lineOf(id).length, 2014);
  });

  it('compare_fixture: 300 changed values of 900 characters under 1,000-character names are cut with a note', async () => {
    const fixture = Object.fromEntries(NAMES.slice(0, 300).map((name) => [name, 'y'.repeat(900)]));
    const { id, reply } = await call('compare_fixture', { path: '/wide/a?n=300', fixture });
    assert.equal(reply.result.structuredContent.cut, CAP_NOTE(1_745_801 + String(id).length, 'changed'));
    assert.equal(lineOf(id).length, 1502);
  });

  it('field_presence: 900 long field paths over two records are answered by a failure naming the limit', async () => {
    const { id, reply } = await call('field_presence', { operation: 'getWide', detail: 'full' });
    assert.equal(reply.result.isError, true);
    assert.equal(lineOf(id).length, 372);
  });

  it('describe_operation: a 1 MB description and summary and 900 long names fit its 20,000 characters, as text and TypeScript', async () => {
    const lines = [];
    for (const args of [
      { operation: 'getWide' },
      { operation: 'getWide', as: 'typescript' },
      { operation: 'postWide' },
    ])
      lines.push(lineOf((await call('describe_operation', args)).id).length);
    assert.deepEqual(lines, [3248, 34_104, 1240]);
  });

  it('find_operation: a 1 MB summary is cut in the hit', async () => {
    const { id } = await call('find_operation', { query: 'wide' });
    assert.equal(lineOf(id).length, 1230);
  });

  it('draft_request: a 780 KB body under 900 long documented names is answered within the cap', async () => {
    const { id } = await call('draft_request', { method: 'POST', path: '/wide/a', body: wideBody(300) });
    assert.equal(lineOf(id).length, 582_356);
  });
});

describe('encode past the answer cap (issue 18)', () => {
  it('cuts a JSON-RPC error whose message passes the cap to its first 64 KiB and a note, under its own id', () => {
    const written = encode(
      errorResponse(7, ERROR_CODES.invalidParams, `Unknown tool: ${'t'.repeat(2_000_000)}`),
      NO_REDACTION,
    );
    assert.deepEqual(JSON.parse(written), {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message: `Unknown tool: ${'t'.repeat(65_536 - 14)}… (1934478 more characters) (Cut: the answer was 2000075 characters as written, more than the answer cap of 1048576 (1 MiB).)`,
      },
    });
  });

  it('answers a result longer than V8 can write as one string with the cut result, not -32603 Invalid string length', () => {
    const piece = 'x'.repeat(2 ** 27);
    const structured = { status: 200, pieces: [piece, piece, piece, piece] };
    const written = encode(
      { jsonrpc: '2.0', id: 'big', result: { content: [], structuredContent: structured } },
      NO_REDACTION,
    );
    const cut = `Cut: the answer was ${2 ** 29} characters as written, more than the answer cap of 1048576 (1 MiB). Written empty or shortened: pieces. Narrow the call (a smaller body, \`select\`, fewer paths, \`part\` or \`status\`, a lower \`limit\`) to see them.`;
    const kept = { status: 200, pieces: null, cut };
    assert.deepEqual(JSON.parse(written), {
      jsonrpc: '2.0',
      id: 'big',
      result: { content: [{ type: 'text', text: JSON.stringify(kept) }], structuredContent: kept },
    });
  });
});
