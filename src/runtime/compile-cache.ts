/**
 * V8's compile cache for the check worker (issue 20): Node (>= 22.1) keeps the code it compiled for a module on disk
 * and reuses it when the same source is loaded again, so a worker that loads the 700 KB single-file build (or the
 * sources, under `node probe-server.ts`) skips compiling it on every start after the first. Node 20 has no compile
 * cache; there this is a no-op.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Whether this Node has a compile cache (`module.enableCompileCache`, Node >= 22.1). */
export function compileCacheAvailable(): boolean {
  const module = createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown };
  return typeof module.enableCompileCache === 'function';
}

/**
 * The compile cache's folder under the document cache's (`PROBE_CACHE_DIR`, `readCacheDir`): `<cacheDir>/compile`,
 * made with mode 0700. Node reads V8 code from it without checking who wrote it, and V8 code is not safe to read from
 * a hostile file, so the folder is used only when it is a real folder (not a link) owned by this user that nobody
 * else may write to, and so is the cache folder above it.
 * @param cacheDir The document cache's folder, absolute, or undefined when the cache is off.
 * @returns `{dir}` to use, or `{skipped}` with the reason it is not used (Node 20, the cache off, another owner,
 *   a folder others may write to, a folder that cannot be made). Never throws.
 */
export function compileCacheFolder(cacheDir: string | undefined): { dir: string } | { skipped: string } {
  if (cacheDir === undefined) return { skipped: 'PROBE_CACHE_DIR is off' };
  if (!compileCacheAvailable()) return { skipped: `Node ${process.version} has no compile cache` };
  const dir = join(cacheDir, 'compile');
  // Why a folder may not hold V8 code, or undefined when it may.
  const unsafe = (folder: string): string | undefined => {
    const stats = lstatSync(folder);
    if (!stats.isDirectory()) return `${folder} is not a folder`;
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) return `${folder} belongs to user ${stats.uid}`;
    if ((stats.mode & 0o022) !== 0) return `others may write to ${folder} (mode ${(stats.mode & 0o777).toString(8)})`;
    return undefined;
  };
  try {
    // The cache folder is checked before `compile/` is made in it: nothing is written into another user's folder.
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const above = unsafe(cacheDir);
    if (above !== undefined) return { skipped: above };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const own = unsafe(dir);
    return own === undefined ? { dir } : { skipped: own };
  } catch (error) {
    return { skipped: `not made: ${(error as { code?: string }).code ?? (error as Error).message}` };
  }
}
