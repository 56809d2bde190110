import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';
import { readCacheDir } from '../src/runtime/config.ts';
import { compileCacheAvailable } from '../src/runtime/compile-cache.ts';
import { codeIdentity, SERVER_INFO, sourceDigest } from '../src/runtime/server-info.ts';

const ROOT = join(import.meta.dirname, '..');
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '0' } };

/** Waits (in 20 ms turns, at most 30 s) until the server's stderr has a line matching `pattern`. */
async function logged(client: StdioClient, pattern: RegExp): Promise<string> {
  for (let turn = 0; turn < 1500; turn++) {
    const line = client
      .stderr()
      .split('\n')
      .find((text) => pattern.test(text));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no line matching ${pattern} in:\n${client.stderr()}`);
}

describe('document cache across servers (issue 20)', () => {
  let scratch = '';
  let document = '';
  let cacheDir = '';

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'openapi-probe-cache-servers-'));
    // openapi.json grown past the smallest cached size (1 MiB) by a long description.
    const text = JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8'));
    text.info.description = 'A meter. '.repeat(130_000);
    document = join(scratch, 'openapi.json');
    await writeFile(document, JSON.stringify(text));
    cacheDir = join(scratch, 'cache');
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  const server = () =>
    spawnServer({
      API_BASE_URL: 'http://127.0.0.1:9',
      OPENAPI_DOC: document,
      PROBE_CACHE_DIR: cacheDir,
      LOG_LEVEL: 'debug',
    });
  const find = async (client: StdioClient) => {
    await client.request('initialize', INITIALIZE);
    const reply = await client.request('tools/call', { name: 'find_operation', arguments: { query: 'meter note' } });
    return reply.result.structuredContent.hits.map(
      (hit: { method: string; path: string }) => `${hit.method} ${hit.path}`,
    );
  };

  test('two servers starting at once on one document both answer, and leave one whole entry a third reads', async () => {
    const first = server();
    const second = server();
    const [firstHits, secondHits] = await Promise.all([find(first), find(second)]);
    assert.deepEqual(secondHits, firstHits);
    assert.ok(firstHits.includes('PATCH /meters/{meterId}'), firstHits.join(', '));
    // Each either loaded the document and wrote the entry, or read the entry the other had written by then.
    await Promise.all([first, second].map((client) => logged(client, /event=document\.cache outcome=(written|hit)/)));
    assert.deepEqual(await Promise.all([first.close(), second.close()]), [0, 0]);
    // Entries only: the folder may hold V8's compile cache too (compile/).
    const names = (await readdir(cacheDir)).filter((name) => name !== 'compile');
    assert.equal(names.length, 1, names.join(', '));
    assert.match(names[0]!, /^[0-9a-f]{64}\.v8$/);

    const third = server();
    assert.deepEqual(await find(third), firstHits);
    assert.match(await logged(third, /event=document\.cache /), /outcome=hit/);
    assert.equal(await third.close(), 0);
  });

  test('a server whose stdin closes right after its first answer still leaves the entry', async () => {
    cacheDir = join(scratch, 'closed-at-once');
    const client = server();
    await find(client);
    assert.equal(await client.close(), 0);
    // Entries only: the folder may hold V8's compile cache too (compile/).
    const names = (await readdir(cacheDir)).filter((name) => name !== 'compile');
    assert.equal(names.length, 1, names.join(', '));
    assert.match(names[0]!, /^[0-9a-f]{64}\.v8$/);
  });

  test('an entry read back is not written again when the call adds nothing to it', async () => {
    cacheDir = join(scratch, 'read-back');
    const logs: string[] = [];
    for (const call of ['find_operation', 'describe_operation']) {
      const client = server();
      await client.request('initialize', INITIALIZE);
      await client.request('tools/call', {
        name: call,
        arguments: call === 'find_operation' ? { query: 'meter note' } : { operation: 'GET /meters/{meterId}' },
      });
      assert.equal(await client.close(), 0);
      logs.push(client.stderr());
    }
    const outcomes = logs.map((log) =>
      log
        .split('\n')
        .filter((line) => line.includes('event=document.cache '))
        .map((line) => /outcome=(\w+)/.exec(line)?.[1]),
    );
    assert.deepEqual(outcomes, [['miss', 'written'], ['hit']]);
  });

  test("the check worker keeps V8's compile cache in PROBE_CACHE_DIR/compile where Node has one, and says so", async () => {
    cacheDir = join(scratch, 'compile-cache');
    const client = server();
    await find(client);
    const started = await logged(client, /event=check\.worker\.start\.done /);
    assert.equal(await client.close(), 0);
    if (!compileCacheAvailable()) {
      assert.match(started, new RegExp(`compile_cache="off: Node ${process.version} has no compile cache"`));
      return;
    }
    assert.match(started, new RegExp(`compile_cache=${join(cacheDir, 'compile')}( |$)`));
    // Node writes one folder per Node version and V8 flags, holding one file per module compiled.
    const [versionFolder, ...others] = await readdir(join(cacheDir, 'compile'));
    assert.deepEqual(others, []);
    assert.ok((await readdir(join(cacheDir, 'compile', versionFolder!))).length > 0);
  });
});

describe('PROBE_CACHE_DIR (issue 20)', () => {
  const rows: [string, Record<string, string>, { cacheDir?: string }][] = [
    ['off disables the cache', { PROBE_CACHE_DIR: 'off', HOME: '/home/a' }, {}],
    ['OFF in capitals too', { PROBE_CACHE_DIR: 'OFF', HOME: '/home/a' }, {}],
    [
      'an absolute path is the folder',
      { PROBE_CACHE_DIR: '/var/cache/p', HOME: '/home/a' },
      { cacheDir: '/var/cache/p' },
    ],
    ['a relative path is taken from the working directory', { PROBE_CACHE_DIR: 'c' }, { cacheDir: '/work/c' }],
    ['unset: on, XDG_CACHE_HOME first', { XDG_CACHE_HOME: '/x', HOME: '/home/a' }, { cacheDir: '/x/openapi-probe' }],
    ['empty: on, ~/.cache', { PROBE_CACHE_DIR: ' ', HOME: '/home/a' }, { cacheDir: '/home/a/.cache/openapi-probe' }],
    ['unset without HOME: no cache', {}, {}],
    [
      'on: XDG_CACHE_HOME first',
      { PROBE_CACHE_DIR: 'on', XDG_CACHE_HOME: '/x', HOME: '/home/a' },
      { cacheDir: '/x/openapi-probe' },
    ],
    [
      'on: a relative XDG_CACHE_HOME is ignored',
      { PROBE_CACHE_DIR: 'on', XDG_CACHE_HOME: 'x', HOME: '/home/a' },
      { cacheDir: '/home/a/.cache/openapi-probe' },
    ],
    ['on: ~/.cache', { PROBE_CACHE_DIR: 'on', HOME: '/home/a' }, { cacheDir: '/home/a/.cache/openapi-probe' }],
    ['on without HOME: no cache', { PROBE_CACHE_DIR: 'on' }, {}],
  ];
  for (const [behaviour, env, expected] of rows)
    test(behaviour, () => assert.deepEqual(readCacheDir(env, '/work'), expected));
});

describe('the code a cache entry was derived by (issue 20)', () => {
  test("keys entries by the sources' digest beside the version, which any change to a source file changes", async () => {
    const root = await mkdtemp(join(tmpdir(), 'openapi-probe-sources-'));
    try {
      await mkdir(join(root, 'src', 'contract'), { recursive: true });
      await writeFile(join(root, 'probe-server.ts'), 'export {};\n');
      await writeFile(join(root, 'src', 'contract', 'search.ts'), 'export const weight = 2;\n');
      await writeFile(join(root, 'README.md'), 'not a source\n');
      const first = sourceDigest(root);
      await writeFile(join(root, 'README.md'), 'still not a source\n');
      assert.equal(sourceDigest(root), first);
      await writeFile(join(root, 'src', 'contract', 'search.ts'), 'export const weight = 3;\n');
      assert.notEqual(sourceDigest(root), first);
      assert.match(first, /^[0-9a-f]{64}$/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    // Run from the sources, the identity is this checkout's.
    assert.equal(codeIdentity(), `${SERVER_INFO.version}+${sourceDigest(ROOT)}`);
  });
});
