/**
 * The code the main thread loads only when it needs it (issue 20): the check worker's loop with the jobs, the contract
 * and the document, and the `check` and `doctor` commands. In the single-file build (`scripts/build.ts`) they are
 * bundled apart and carried at the end of the file as base64 in a comment (`DEFERRED_MARK`), which the main thread's
 * parse skips at the cost of a scan: the module it compiles on its way to `initialize` is the server's part alone.
 *
 * To load it, the part is written out as a module file (`materialize`) and imported from there: Node loads a 570 KB
 * `data:` module about 30 ms slower than the same file, and only a file gets V8's compile cache. With the compile
 * cache's folder (src/runtime/compile-cache.ts: this user's own, nobody else may write to it) the file is kept there
 * under its content's hash, so later starts reuse it and its cached code; else it goes to a fresh private folder
 * (`mkdtemp`, mode 0700) that is removed once the module is loaded. The check worker does this itself, from a small
 * `eval` script (`deferredWorker`), so not a byte of the part crosses the main thread. Run from source, the deferred
 * code is the modules themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyBuiltin } from '../shared/builtin.ts';

// Loaded when a worker first needs a temporary folder, not on the way to `initialize`.
const os = lazyBuiltin('node:os');

// Set by the single-file build (esbuild `define`): true, and the SHA-256 (hex) of the deferred part it carries;
// undeclared from source, where `typeof` reads them as undefined.
declare const PROBE_SINGLE_FILE: boolean | undefined;
declare const PROBE_DEFERRED_SHA256: string | undefined;

/** The SHA-256 the single-file build gave its deferred part, or '' from source. */
function expectedDigest(): string {
  return typeof PROBE_DEFERRED_SHA256 === 'string' ? PROBE_DEFERRED_SHA256 : '';
}

/** What opens the deferred part's comment in the single-file build; the base64 text follows, then the comment's end. */
export const DEFERRED_MARK = '/* openapi-probe deferred part, base64: ';

/** Whether this is the single-file build, which carries the deferred part. */
function singleFile(): boolean {
  return typeof PROBE_SINGLE_FILE === 'boolean' && PROBE_SINGLE_FILE;
}

/**
 * Writes the deferred part that the single file `file` carries (its last comment: `mark`, base64) as a module file,
 * and returns its URL and what to do once it is imported (`remove()`: a temporary folder goes). With `place.cache` (the
 * compile cache's folder, already checked) as `deferred-<sha256 prefix>.mjs` there, written only when no regular file
 * of the part's bytes is there (through a temporary name and a rename, so two servers starting at once never read half
 * a file); with `place.temporary` (a private folder the caller made and removes) as `deferred.mjs` in it; without a
 * place, in a new private temporary folder; where it cannot be written, as a `data:` URL. Self-contained (it is also
 * sent as text to the check worker, `deferredWorker`): it reaches Node's modules only through `load`, a `require`.
 * @throws Error naming `file` when it carries no deferred part, or not the part whose SHA-256 is `digest` (the file was
 *   replaced since the server started), or when `file` cannot be read.
 */
function materialize(
  load: (name: string) => unknown,
  file: string,
  mark: string,
  digest: string,
  place: { cache: string } | { temporary: string } | undefined,
): { url: string; remove: () => void } {
  const fs = load('node:fs') as typeof import('node:fs');
  const { join } = load('node:path') as typeof import('node:path');
  const text = fs.readFileSync(file, 'latin1');
  // The part closes the file: the last comment, of base64 alone (the mark's text also stands in the code, quoted).
  const end = text.lastIndexOf(' *' + '/');
  const at = end < 0 ? -1 : text.lastIndexOf(mark, end);
  const part = at < 0 ? '' : text.slice(at + mark.length, end);
  if (!part || text.slice(end + 3).trim() !== '' || !/^[A-Za-z0-9+/]+=*$/.test(part))
    throw new Error(`${file} carries no deferred part; build it with npm run build`);
  const code = Buffer.from(part, 'base64');
  const { createHash } = load('node:crypto') as typeof import('node:crypto');
  const hash = createHash('sha256').update(code).digest('hex');
  // The file replaced while the server ran (an upgrade): its part would not speak this server's messages.
  if (hash !== digest)
    throw new Error(
      `${file} changed since this server started (its deferred part is another build's); restart the server`,
    );
  const { pathToFileURL } = load('node:url') as typeof import('node:url');
  try {
    if (place === undefined || 'temporary' in place) {
      const os = load('node:os') as typeof import('node:os');
      const own = place?.temporary ?? fs.mkdtempSync(join(os.tmpdir(), 'openapi-probe-'));
      const path = join(own, 'deferred.mjs');
      fs.writeFileSync(path, code, { mode: 0o600, flag: 'wx' });
      return { url: pathToFileURL(path).href, remove: () => fs.rmSync(own, { recursive: true, force: true }) };
    }
    const path = join(place.cache, `deferred-${hash.slice(0, 32)}.mjs`);
    let same = false;
    try {
      // Read only a regular file of the part's size: a FIFO planted at the name would block this thread in read(2)
      // for good (and with it the process's exit, which waits for the thread), /dev/zero behind a link would not end.
      const stats = fs.lstatSync(path);
      same = stats.isFile() && stats.size === code.length && fs.readFileSync(path).equals(code);
    } catch {
      // not written yet
    }
    if (!same) {
      const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
      try {
        fs.writeFileSync(partial, code, { mode: 0o600 });
        fs.renameSync(partial, path);
      } catch (error) {
        // E.g. a folder at the name: no 570 KB partial file left behind at every start.
        fs.rmSync(partial, { force: true });
        throw error;
      }
    }
    return { url: pathToFileURL(path).href, remove: () => {} };
  } catch {
    // Nowhere to write (a read-only file system): the part as a `data:` module, slower to load but the same code.
    return { url: `data:text/javascript;base64,${part}`, remove: () => {} };
  }
}

/**
 * The deferred code as a module namespace on this thread: from source `fromSource` imported (e.g.
 * `new URL('./deferred.ts', import.meta.url)` of src/cli/); in the single-file build the part it carries, written out
 * (`materialize`, in a private temporary folder) and imported.
 * @throws Error when the single file carries no deferred part, or the part cannot be written or loaded.
 */
export async function importDeferred(fromSource: URL): Promise<unknown> {
  if (!singleFile()) return import(fromSource.href);
  const written = materialize(
    createRequire(import.meta.url),
    fileURLToPath(import.meta.url),
    DEFERRED_MARK,
    expectedDigest(),
    undefined,
  );
  try {
    return await import(written.url);
  } finally {
    written.remove();
  }
}

/** Temporary folders made for workers and not yet removed: the process's exit removes what is left. */
const temporaryFolders = new Set<string>();
let exitHooked = false;

/**
 * How to start the check worker in the single-file build: the script of an `eval` worker that writes out this file's
 * deferred part (`materialize`) and imports it, which starts worker-thread.ts's loop, and `done`, to call once the
 * worker is ready or gone. The part goes to `cacheFolder` (the compile cache's) when given; else to a private folder
 * made here (`mkdtemp` in `TMPDIR`), which `done` removes, and so does the process's exit: a worker terminated while it
 * loads never removes it itself. Undefined from source, where the worker runs worker-thread.ts. A file without the
 * part, or a part that cannot be written, makes the worker fail with the reason.
 */
export function deferredWorker(cacheFolder: string | undefined): { script: string; done: () => void } | undefined {
  if (!singleFile()) return undefined;
  let place: { cache: string } | { temporary: string } | undefined;
  if (cacheFolder !== undefined) place = { cache: cacheFolder };
  else {
    try {
      const folder = mkdtempSync(join(os().tmpdir(), 'openapi-probe-'));
      if (!exitHooked) process.once('exit', removeTemporaryFolders);
      exitHooked = true;
      temporaryFolders.add(folder);
      place = { temporary: folder };
    } catch {
      // No temporary folder: the worker tries its own, then a `data:` URL.
    }
  }
  const folder = place && 'temporary' in place ? place.temporary : undefined;
  const written = `(${materialize.toString()})(require, ${JSON.stringify(fileURLToPath(import.meta.url))}, ${JSON.stringify(DEFERRED_MARK)}, ${JSON.stringify(expectedDigest())}, ${JSON.stringify(place)})`;
  return {
    script: `const written = ${written};\nimport(written.url).finally(() => written.remove());`,
    done: () => {
      if (folder === undefined || !temporaryFolders.delete(folder)) return;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Removes every temporary folder still listed (at the process's exit). Never throws. */
function removeTemporaryFolders(): void {
  for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
  temporaryFolders.clear();
}
