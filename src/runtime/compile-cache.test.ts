import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCacheAvailable, compileCacheFolder } from './compile-cache.ts';

describe('compileCacheFolder (issue 20)', () => {
  let scratch = '';
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'openapi-probe-compile-cache-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('is off when the document cache is off', () => {
    assert.deepEqual(compileCacheFolder(undefined), { skipped: 'PROBE_CACHE_DIR is off' });
  });

  test('names <cacheDir>/compile, made with mode 0700, where Node has a compile cache', () => {
    const cacheDir = join(scratch, 'own');
    if (!compileCacheAvailable()) {
      assert.deepEqual(compileCacheFolder(cacheDir), { skipped: `Node ${process.version} has no compile cache` });
      return;
    }
    assert.deepEqual(compileCacheFolder(cacheDir), { dir: join(cacheDir, 'compile') });
    assert.equal(statSync(join(cacheDir, 'compile')).mode & 0o777, 0o700);
  });

  test('refuses a cache folder others may write to', { skip: !compileCacheAvailable() && 'no compile cache' }, () => {
    const cacheDir = join(scratch, 'shared');
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    assert.deepEqual(compileCacheFolder(cacheDir), { skipped: `others may write to ${cacheDir} (mode 777)` });
    // Nothing was made in it.
    assert.deepEqual(readdirSync(cacheDir), []);
  });

  test('refuses a compile folder that is a link', { skip: !compileCacheAvailable() && 'no compile cache' }, () => {
    const cacheDir = join(scratch, 'linked');
    mkdirSync(cacheDir, { mode: 0o700 });
    mkdirSync(join(scratch, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(scratch, 'elsewhere'), join(cacheDir, 'compile'));
    assert.deepEqual(compileCacheFolder(cacheDir), { skipped: `${join(cacheDir, 'compile')} is not a folder` });
  });
});
