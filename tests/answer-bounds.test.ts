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

/** The hostile document: enum, const and discriminator values of 1 MB and 1.5 MB. */
const HOSTILE_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'hostile', version: '1' },
  paths: {
    '/items': listOperation({ type: 'object', properties: { status: { enum: [MEGABYTE_VALUE, 'b'] } } }),
    '/larger': listOperation({ type: 'object', properties: { status: { const: 'w'.repeat(1_500_000) } } }),
  },
};

let api: Server;
let port = 0;
let folder = '';
let client: StdioClient;

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'answer-bounds-'));
  writeFileSync(join(folder, 'hostile.json'), JSON.stringify(HOSTILE_DOCUMENT));
  // Every path answers a list of `n` records whose status the document does not allow.
  api = createServer((request, response) => {
    const count = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('n') ?? 1);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(Array.from({ length: count }, () => ({ status: 'zz' }))));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
  port = (api.address() as AddressInfo).port;
  client = spawnServer({
    API_BASE_URL: `http://127.0.0.1:${port}`,
    OPENAPI_DOC: join(folder, 'hostile.json'),
    PROBE_RATE_PER_MIN: '1000',
  });
  await client.initialize();
});

after(async () => {
  await client.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
});

/** The line the server wrote for the request `id`, its port written as PORT. */
function lineOf(id: number): string {
  const line = client.stdoutLines.find((written) => written.startsWith(`{"jsonrpc":"2.0","id":${id},`));
  assert.ok(line, `no line for id ${id}`);
  return line.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT');
}

/** Calls a tool; resolves with the request's id and its reply. */
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
