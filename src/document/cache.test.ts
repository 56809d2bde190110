import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, chown, copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { createDocumentCache, MAX_CACHE_ENTRIES } from './cache.ts';
import type { DocumentCache } from './cache.ts';
import { createDocumentSource } from './source.ts';
import type { CacheEvent } from './source.ts';
import { loadDocument } from './openapi-document.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** A source on `file` through `cache`, caching any size, recording what it says of the cache. */
function sourceOf(file: string, cache: DocumentCache) {
  const events: CacheEvent[] = [];
  const source = createDocumentSource(file, { cache, minCachedBytes: 0, onCache: (event) => events.push(event) });
  return { source, events };
}

/** What the jobs layer would derive from a document and keep with it (the search index, in the server). */
const derived = () => ({ search: { terms: ['meter', 'reading'] } });

/** The one cache entry in `dir` (its path), failing when there is not exactly one. */
async function onlyEntry(dir: string): Promise<string> {
  const names = await readdir(dir);
  assert.equal(names.length, 1, `entries: ${names.join(', ')}`);
  return join(dir, names[0]!);
}

describe('document cache (issue 20)', () => {
  let scratch = '';
  let file = '';
  let dir = '';
  let cache: DocumentCache;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'openapi-probe-cache-'));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** A fresh copy of openapi.json and an empty cache folder (not made yet). */
  const fresh = async (name: string) => {
    file = join(scratch, `${name}.json`);
    await copyFile(join(ROOT, 'openapi.json'), file);
    dir = join(scratch, `${name}-cache`);
    cache = createDocumentCache({ dir, version: '0.1.0' });
  };

  /** A first source loads the document and writes its entry. */
  const filled = async () => {
    const first = sourceOf(file, cache);
    await first.source.get();
    assert.equal(await first.source.persist!(derived), undefined);
    return first;
  };

  test('writes what was derived after a load and gives it back with the document loaded again in a new source', async () => {
    await fresh('hit');
    const first = await filled();
    assert.deepEqual(first.events, [{ outcome: 'miss', reason: 'absent' }, { outcome: 'written' }]);
    const second = sourceOf(file, cache);
    const read = await second.source.get();
    assert.deepEqual(second.events, [{ outcome: 'hit' }]);
    assert.deepEqual(second.source.cachedExtras!(read), derived());
    const loaded = await loadDocument(file);
    assert.deepEqual({ ...read, loadedAt: '' }, { ...loaded, loadedAt: '' });
    // The entry holds what it was asked to: written again only for something it lacks.
    assert.equal(await second.source.persist!(derived), undefined);
    assert.deepEqual(second.events, [{ outcome: 'hit' }]);
  });

  test('writes nothing when nothing was derived: the entry would hold no more than the document itself', async () => {
    await fresh('nothing');
    const first = sourceOf(file, cache);
    await first.source.get();
    assert.equal(await first.source.persist!(() => ({ search: undefined })), undefined);
    assert.deepEqual(first.events, [{ outcome: 'miss', reason: 'absent' }]);
    await assert.rejects(readdir(dir), { code: 'ENOENT' });
  });

  test('writes the entry with mode 0600 in a folder made with mode 0700', async () => {
    await fresh('modes');
    await filled();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal((await stat(await onlyEntry(dir))).mode & 0o777, 0o600);
  });

  test('misses after the document changed, and keeps the new entry beside the old', async () => {
    await fresh('changed');
    await filled();
    const text = JSON.parse(await readFile(file, 'utf8'));
    text.info.title = 'Changed title';
    await writeFile(file, JSON.stringify(text));
    const second = sourceOf(file, cache);
    assert.equal((await second.source.get()).title, 'Changed title');
    await second.source.persist!(derived);
    assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'absent' }, { outcome: 'written' }]);
    assert.equal((await readdir(dir)).length, 2);
  });

  test('misses on a truncated file and replaces it', async () => {
    await fresh('truncated');
    await filled();
    const entry = await onlyEntry(dir);
    const bytes = await readFile(entry);
    await writeFile(entry, bytes.subarray(0, bytes.length - 10), { mode: 0o600 });
    const second = sourceOf(file, cache);
    await second.source.get();
    await second.source.persist!(derived);
    assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'truncated payload' }, { outcome: 'written' }]);
    const third = sourceOf(file, cache);
    await third.source.get();
    assert.deepEqual(third.events, [{ outcome: 'hit' }]);
  });

  test('misses on a file of random bytes', async () => {
    await fresh('random');
    await filled();
    await writeFile(await onlyEntry(dir), randomBytes(4096), { mode: 0o600 });
    const second = sourceOf(file, cache);
    await second.source.get();
    assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'not a cache file' }]);
  });

  test('misses on a valid v8 payload of the wrong shape under the right header', async () => {
    await fresh('shape');
    await filled();
    const entry = await onlyEntry(dir);
    const bytes = await readFile(entry);
    const mark = bytes.indexOf('\n') + 1;
    const headerBytes = bytes.readUInt32LE(mark);
    const header = JSON.parse(bytes.toString('utf8', mark + 4, mark + 4 + headerBytes));
    const payload = serialize({ extras: 'all of them' });
    const newHeader = Buffer.from(JSON.stringify({ ...header, payloadBytes: payload.length }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(newHeader.length);
    await writeFile(entry, Buffer.concat([bytes.subarray(0, mark), length, newHeader, payload]), { mode: 0o600 });
    const second = sourceOf(file, cache);
    assert.equal((await second.source.get()).operations.length, (await loadDocument(file)).operations.length);
    assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'a payload of the wrong shape' }]);
  });

  test('misses on a file others may write', async () => {
    await fresh('mode');
    await filled();
    await chmod(await onlyEntry(dir), 0o666);
    const second = sourceOf(file, cache);
    await second.source.get();
    assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'readable or writable by others (mode 666)' }]);
  });

  test(
    'misses on a file owned by another user',
    { skip: process.getuid?.() !== 0 && 'needs root, to give the file to user 65534 (chown)' },
    async () => {
      await fresh('owner');
      await filled();
      await chown(await onlyEntry(dir), 65534, 65534);
      const second = sourceOf(file, cache);
      await second.source.get();
      assert.deepEqual(second.events, [{ outcome: 'miss', reason: 'owned by user 65534, not by this user' }]);
    },
  );

  test('loads the document when the cache folder cannot be made (a path under a file)', async () => {
    await fresh('under-file');
    const blocker = join(scratch, 'a-file');
    await writeFile(blocker, 'not a folder');
    const blocked = createDocumentCache({ dir: join(blocker, 'cache'), version: '0.1.0' });
    const first = sourceOf(file, blocked);
    assert.equal((await first.source.get()).title, (await loadDocument(file)).title);
    const failed = await first.source.persist!(derived);
    assert.match(failed ?? '', /^not written: ENOTDIR/);
    assert.deepEqual(first.events[0], { outcome: 'miss', reason: 'not opened: ENOTDIR' });
    assert.equal(first.events[1]?.outcome, 'unwritten');
  });

  test('leaves no file behind when the disk is full (ENOSPC from the write)', async () => {
    await fresh('full');
    const full = createDocumentCache({
      dir,
      version: '0.1.0',
      writeNewFile: async (path) => {
        await writeFile(path, 'partial', { mode: 0o600 });
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    });
    const first = sourceOf(file, full);
    await first.source.get();
    assert.equal(await first.source.persist!(derived), 'not written: ENOSPC: no space left on device, write');
    assert.deepEqual(await readdir(dir), []);
  });

  test('misses for another product version', async () => {
    await fresh('version');
    await filled();
    const other = sourceOf(file, createDocumentCache({ dir, version: '0.2.0' }));
    await other.source.get();
    assert.deepEqual(other.events, [{ outcome: 'miss', reason: 'absent' }]);
  });

  test(`keeps at most ${MAX_CACHE_ENTRIES} entries, the oldest removed`, async () => {
    await fresh('bounded');
    for (let i = 0; i < MAX_CACHE_ENTRIES + 2; i++) {
      const text = JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8'));
      text.info.title = `Title ${i}`;
      await writeFile(file, JSON.stringify(text));
      const { source } = sourceOf(file, cache);
      await source.get();
      await source.persist!(derived);
    }
    assert.equal((await readdir(dir)).length, MAX_CACHE_ENTRIES);
  });

  test('writes nothing for a document under the smallest cached size', async () => {
    await fresh('small');
    const events: CacheEvent[] = [];
    const source = createDocumentSource(file, { cache, onCache: (event) => events.push(event) });
    await source.get();
    assert.equal(await source.persist!(derived), undefined);
    assert.deepEqual(events, []);
    await assert.rejects(readdir(dir), { code: 'ENOENT' });
  });
});
