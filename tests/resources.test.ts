// Resource bounds (issue 8; attack report B10, B11 and the stale document): session memory bounded in bytes
// overall, document files that are not regular files refused, a rewritten document noticed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHandler } from '../src/mcp/in-process.ts';
import { memoryCost } from '../src/jobs/pipeline.ts';
import { ProbeLog } from '../src/mcp/memory.ts';
import { readConfig } from '../src/runtime/config.ts';
import type { MemoryLimits } from '../src/mcp/memory.ts';
import { createDocumentSource } from '../src/document/source.ts';
import { DocumentError } from '../src/document/model.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { withoutRequestId } from '../harness/stdio-client.ts';
import { start as startStandIn, METERS } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';

const KEY = 'sk-resources-test-key-0123456789';
const DOCUMENT = 'openapi.json';

/** A kept body as `ProbeLog.add` receives it. */
const seen = (path: string) => ({ path, status: 200, body: { path }, at: '2026-11-30T00:00:00.000Z' });

/** What a log holds: paths per operation, paths by path, total cost, drops per operation. */
const contents = (log: ProbeLog) => ({
  byOperation: [...log.byOperation].map(([key, list]) => [key, list.map((entry) => entry.path)]),
  byPath: [...log.byPath.keys()],
  heldBytes: log.heldBytes,
  dropped: [...log.dropped],
});

const limits = (overrides: Partial<MemoryLimits>): MemoryLimits => ({
  maxBytes: 300,
  maxOperations: 10,
  perOperation: 50,
  perPath: 200,
  ...overrides,
});

describe('memoryCost', () => {
  it('counts the text bytes plus 64 bytes per JSON value', () => {
    // [{},{"a":"x"}]: the array, two objects and one string are 4 values.
    assert.equal(memoryCost([{}, { a: 'x' }], 14), 14 + 4 * 64);
  });

  it('prices 1 MiB of empty objects far above its byte count (B10: 1 MiB of [{},{},...] held about 25 MB)', () => {
    const body = Array.from({ length: 349_000 }, () => ({}));
    assert.equal(memoryCost(body, 1_046_999), 1_046_999 + 349_001 * 64);
  });
});

describe('ProbeLog bounds (issue 8, B10: session memory bounded overall)', () => {
  it('keeps bodies too large to remember as sizes, the newest perPath paths and maxOperations operations, and forgets a path once its body is kept', () => {
    const log = new ProbeLog(limits({ perPath: 2, maxOperations: 1 }));
    log.addTooLarge('GET /a', '/a/1', 2_000_000);
    log.addTooLarge('GET /b', '/b/1', 3_000_000);
    log.addTooLarge(undefined, '/x', 4_000_000);
    log.add('GET /b', seen('/b/1'), 100);
    assert.deepEqual([[...log.tooLargeByPath], [...log.tooLargeByOperation]], [[['/x', 4_000_000]], [['GET /b', 1]]]);
  });

  it('drops the oldest body of any operation once the total cost passes maxBytes', () => {
    const log = new ProbeLog(limits({}));
    log.add('GET /a', seen('/a/1'), 100);
    log.add('GET /b', seen('/b/1'), 100);
    log.add('GET /a', seen('/a/2'), 100);
    log.add('GET /c', seen('/c/1'), 100);
    assert.deepEqual(contents(log), {
      byOperation: [
        ['GET /b', ['/b/1']],
        ['GET /a', ['/a/2']],
        ['GET /c', ['/c/1']],
      ],
      byPath: ['/b/1', '/a/2', '/c/1'],
      heldBytes: 300,
      dropped: [['GET /a', 1]],
    });
  });

  it('counts a body held by both the operation list and the path map once', () => {
    const log = new ProbeLog(limits({}));
    for (const path of ['/a/1', '/a/2', '/a/3']) log.add('GET /a', seen(path), 100);
    assert.deepEqual(contents(log), {
      byOperation: [['GET /a', ['/a/1', '/a/2', '/a/3']]],
      byPath: ['/a/1', '/a/2', '/a/3'],
      heldBytes: 300,
      dropped: [],
    });
  });

  it('forgets the least recently probed operation past maxOperations, keeping its body by path', () => {
    const log = new ProbeLog(limits({ maxOperations: 2, maxBytes: 1000 }));
    log.add('GET /a', seen('/a/1'), 100);
    log.add('GET /b', seen('/b/1'), 100);
    log.add('GET /a', seen('/a/2'), 100);
    log.add('GET /c', seen('/c/1'), 100);
    assert.deepEqual(contents(log), {
      byOperation: [
        ['GET /a', ['/a/1', '/a/2']],
        ['GET /c', ['/c/1']],
      ],
      byPath: ['/a/1', '/b/1', '/a/2', '/c/1'],
      heldBytes: 400,
      dropped: [['GET /b', 1]],
    });
  });

  it('frees a body once neither the operation list nor the path map holds it', () => {
    const log = new ProbeLog(limits({ perOperation: 1, perPath: 1, maxBytes: 1000 }));
    log.add('GET /a', seen('/a/1'), 100);
    log.add('GET /a', seen('/a/2'), 100);
    log.add(undefined, seen('/x'), 50);
    assert.deepEqual(
      [contents(log), log.held.size],
      [{ byOperation: [['GET /a', ['/a/2']]], byPath: ['/x'], heldBytes: 150, dropped: [] }, 2],
    );
  });

  it('replaces the body of a path probed again, freeing the old one when no operation list holds it', () => {
    const log = new ProbeLog(limits({}));
    log.add(undefined, seen('/x'), 100);
    log.add(undefined, seen('/x'), 120);
    assert.deepEqual(contents(log), { byOperation: [], byPath: ['/x'], heldBytes: 120, dropped: [] });
  });

  it('keeps one record per path in an operation list: a path probed again replaces its body there too (new-user trial)', () => {
    const log = new ProbeLog(limits({}));
    log.add('GET /a', seen('/a/1'), 100);
    log.add('GET /a', seen('/a/2'), 100);
    log.add('GET /a', seen('/a/1'), 90);
    assert.deepEqual(
      [contents(log), log.held.size],
      [{ byOperation: [['GET /a', ['/a/2', '/a/1']]], byPath: ['/a/2', '/a/1'], heldBytes: 190, dropped: [] }, 2],
    );
  });

  it('does not keep a body costing more than maxBytes, and drops nothing for it', () => {
    const log = new ProbeLog(limits({}));
    log.add('GET /a', seen('/a/1'), 100);
    assert.deepEqual(
      [log.add('GET /a', seen('/a/2'), 301), contents(log)],
      [false, { byOperation: [['GET /a', ['/a/1']]], byPath: ['/a/1'], heldBytes: 100, dropped: [] }],
    );
  });

  it('stays within maxBytes and maxOperations over 2,500 probes of 250 operations (the memory.mjs pattern)', () => {
    const log = new ProbeLog(limits({ maxBytes: 10_000, maxOperations: 100 }));
    for (let operation = 0; operation < 250; operation++) {
      for (let record = 0; record < 10; record++)
        log.add(`GET /o${operation}/{id}`, seen(`/o${operation}/r${record}`), 333);
    }
    const kept = [...log.byOperation.values()].reduce((sum, list) => sum + list.length, 0);
    assert.deepEqual(
      [log.heldBytes, log.held.size, kept, log.byPath.size, log.byOperation.size],
      [333 * 30, 30, 30, 30, 3],
    );
  });
});

describe('field_presence after session memory dropped records (issue 8, B10)', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn({ key: KEY });
  });
  after(async () => {
    await api.close();
  });

  it('counts the records it still has and says how many were dropped', async () => {
    const cost = (meter: unknown) => memoryCost(meter, Buffer.byteLength(JSON.stringify(meter)));
    // Room for one meter, not two.
    const maxBytes = Math.max(cost(METERS.mtr_1), cost(METERS.mtr_2)) + 100;
    const handler = createHandler(readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT }), {
      memory: { maxBytes, maxOperations: 100, perOperation: 50, perPath: 200 },
    });
    let id = 0;
    const call = async (name: string, args: unknown): Promise<any> =>
      withoutRequestId(
        (
          (await handler.handle({
            jsonrpc: '2.0',
            id: ++id,
            method: 'tools/call',
            params: { name, arguments: args },
          })) as any
        ).result,
      );
    await call('probe', { path: '/meters/mtr_1' });
    await call('probe', { path: '/meters/mtr_2' });
    const presence = await call('field_presence', { operation: 'getMeter' });
    assert.deepEqual(
      [presence.isError, presence.structuredContent.probes, presence.structuredContent.note],
      [
        undefined,
        ['/meters/mtr_2'],
        `1 earlier record(s) of GET /meters/{meterId} were dropped from session memory to keep it within ${maxBytes} bytes and 100 operations; these 1 are counted.`,
      ],
    );
  });
});

describe('document files that are not regular files (issue 8, B11)', () => {
  let folder: string;
  let fifo: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'resources-'));
    fifo = join(folder, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const FIFO_REASON = 'a FIFO (named pipe), not a regular file; only regular files are read';

  it('refuses a FIFO as the document without opening it', { timeout: 5000 }, async () => {
    const error = await loadDocument(fifo).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof DocumentError);
    assert.deepEqual([error.file, error.pointer, error.reason], [fifo, '#', `cannot read file: ${FIFO_REASON}`]);
  });

  it('refuses a character device as the document (/dev/zero would never end)', { timeout: 5000 }, async () => {
    const error = await loadDocument('/dev/zero').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof DocumentError);
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      ['/dev/zero', '#', 'cannot read file: a character device, not a regular file; only regular files are read'],
    );
  });

  it('refuses a $ref to a FIFO, naming the document and the pointer (fifo.mjs)', { timeout: 5000 }, async () => {
    const root = join(folder, 'api.json');
    await writeFile(
      root,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'f', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: './fifo.json#/S' } } },
      }),
    );
    const error = await loadDocument(root).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof DocumentError);
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [root, '#/components/schemas/A', `$ref ./fifo.json#/S: cannot read ${fifo}: ${FIFO_REASON}`],
    );
  });

  it('refuses a $ref to a directory', { timeout: 5000 }, async () => {
    const root = join(folder, 'dir-ref.json');
    await mkdir(join(folder, 'sub.json'), { recursive: true });
    await writeFile(
      root,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'd', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: 'sub.json' } } },
      }),
    );
    const error = await loadDocument(root).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof DocumentError);
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [
        root,
        '#/components/schemas/A',
        `$ref sub.json: cannot read ${join(folder, 'sub.json')}: a directory, not a regular file; only regular files are read`,
      ],
    );
  });

  it(
    'answers a probe whose operation $refs a FIFO, saying the document could not be loaded',
    { timeout: 10_000 },
    async () => {
      const api = await startStandIn({ key: KEY });
      try {
        const root = join(folder, 'meters.json');
        await writeFile(
          root,
          JSON.stringify({
            openapi: '3.0.3',
            info: { title: 'f', version: '1' },
            paths: {
              '/meters/{id}': {
                get: {
                  responses: {
                    200: { description: 'ok', content: { 'application/json': { schema: { $ref: './fifo.json#/S' } } } },
                  },
                },
              },
            },
          }),
        );
        const handler = createHandler(readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: root }));
        const called: any = withoutRequestId(
          (
            (await handler.handle({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'probe', arguments: { path: '/meters/mtr_1' } },
            })) as any
          ).result,
        );
        assert.deepEqual(
          [
            called.structuredContent.status,
            called.structuredContent.validated,
            called.structuredContent.validationNote,
          ],
          [
            200,
            false,
            `The OpenAPI document could not be loaded, so the response was not checked: Cannot load OpenAPI document ${root} at #/paths/~1meters~1{id}/get/responses/200/content/application~1json/schema: $ref ./fifo.json#/S: cannot read ${fifo}: ${FIFO_REASON}`,
          ],
        );
      } finally {
        await api.close();
      }
    },
  );
});

describe('a rewritten document is noticed (issue 8, stale document, docswap.mjs)', () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'resources-'));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const strict = JSON.stringify({ openapi: '3.0.3', info: { title: 'strict', version: '1' }, paths: {} });
  const loose = JSON.stringify({ openapi: '3.0.3', info: { title: 'loose', version: '1' }, paths: {} }).padEnd(
    strict.length,
    ' ',
  );
  const stamp = new Date('2026-01-01T00:00:00Z');

  it('sees same-size rewrites with the mtime put back, each right after the last read', async () => {
    const file = join(folder, 'swap.json');
    await writeFile(file, strict);
    await utimes(file, stamp, stamp);
    const source = createDocumentSource(file);
    const titles: string[] = [];
    for (let round = 0; round < 10; round++) {
      await writeFile(file, round % 2 ? strict : loose);
      await utimes(file, stamp, stamp);
      titles.push((await source.get()).title);
    }
    assert.deepEqual(titles, [
      'loose',
      'strict',
      'loose',
      'strict',
      'loose',
      'strict',
      'loose',
      'strict',
      'loose',
      'strict',
    ]);
  });

  it('sees a `cp -p` copy over a document read long after its last change (ctime and inode, not the content hash)', async () => {
    const file = join(folder, 'settled.json');
    const copy = join(folder, 'copy.json');
    await writeFile(file, strict);
    await writeFile(copy, loose);
    await utimes(file, stamp, stamp);
    await utimes(copy, stamp, stamp);
    // Past the racy margin, the stamp is metadata alone.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const source = createDocumentSource(file);
    const first = await source.get();
    const again = await source.get();
    await copyFile(copy, file); // same size, same inode
    await utimes(file, stamp, stamp); // `cp -p` puts the mtime back
    const copied = await source.get();
    await rename(copy, file); // another inode, same size and mtime
    const renamed = await source.get();
    assert.deepEqual(
      [first.title, again === first, copied.title, renamed === copied, renamed.title],
      ['strict', true, 'loose', false, 'loose'],
    );
  });
});
