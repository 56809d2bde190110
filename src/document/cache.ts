/**
 * The document cache (`PROBE_CACHE_DIR`, issue 20): what is derived from a loaded document at a cost, kept on disk as
 * `v8.serialize` output (the search index: on GitHub's description its build takes twice what loading the document
 * does, and reading it back a quarter of that), so a server started again on the same document skips deriving it.
 * The document itself is not kept: `v8.deserialize` of a loaded document measured slower than reading and parsing it
 * again (GitHub's description: 217 ms against 200 ms).
 *
 * An entry is one file, `<key>.v8`, the key a SHA-256 of the product's version, the document's source and its bytes:
 * a changed document or another version of openapi-probe never finds an old entry. The file holds a fixed mark, a
 * JSON header (format, key, payload length, each bundled file's SHA-256) and the payload. Everything read back is
 * untrusted input: a file that is not a regular file owned by this user with no group or other permissions, larger
 * than `MAX_CACHE_FILE_BYTES`, with another mark, key or length, a payload that does not deserialize or has the wrong
 * shape, or a bundled file that changed, is a miss (with its reason), and the next write replaces it; what the payload
 * holds is checked again by whoever takes it (`adoptSearchIndex`). Writes go to a temporary file (mode 0600) renamed
 * over the entry, in a folder made with mode 0700, so a reader (another server on the same document) sees a whole
 * entry or none; at most `MAX_CACHE_ENTRIES` entries are kept, the oldest removed.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { lazyBuiltin } from '../shared/builtin.ts';
import { isPlainObject } from '../shared/values.ts';

const crypto = lazyBuiltin('node:crypto');

const fileSystem = lazyBuiltin('node:fs/promises');
const v8 = lazyBuiltin('node:v8');

/** Largest cache file read or written, in bytes (512 MiB, four times the largest document `loadDocument` reads). */
export const MAX_CACHE_FILE_BYTES = 512 * 1024 * 1024;

/** Entries kept in one cache folder; the least recently written past this are removed after a write. */
export const MAX_CACHE_ENTRIES = 4;

/** Documents smaller than this (bytes) are not cached: they load in about the time a cache entry takes to check. */
export const MIN_CACHED_DOCUMENT_BYTES = 1024 * 1024;

/** The mark every cache file begins with; its last digit is the format, changed whenever the payload's shape is. */
const MARK = 'openapi-probe document cache 3\n';

/** Longest header read, in bytes. */
const MAX_HEADER_BYTES = 1024 * 1024;

/** What an entry holds: the files bundled into the document, and what the jobs layer derived from it (the search index). */
export type CacheEntry = {
  /** The bundled files (not the root) with the SHA-256 of their text as loaded. */
  files: { path: string; sha256: string }[];
  /** Opaque to this layer; checked by whoever reads it back (`src/contract/search.ts` `adoptSearchIndex`). */
  extras: Record<string, unknown>;
};

/** A cache read: the entry, or why there is none (`absent` when no file was there). */
export type CacheRead = { entry: CacheEntry } | { miss: string };

/** The document a cache entry is for: its source as configured and the SHA-256 of the text read from it (`textDigest`). */
export type CacheIdentity = { source: string; digest: string };

/** Writes `data` to a new file at `path` with `mode`; failing when the file exists. Injected by tests (a full disk). */
export type WriteNewFile = (path: string, data: Uint8Array, mode: number) => Promise<void>;

/** The cache of one folder. `read` and `write` never throw: a failure is a miss or a write not made, with its reason. */
export type DocumentCache = {
  /** The folder, absolute. */
  dir: string;
  read(identity: CacheIdentity): Promise<CacheRead>;
  /** Resolves with undefined once written, or with the reason it was not. */
  write(identity: CacheIdentity, entry: CacheEntry): Promise<string | undefined>;
};

/**
 * The cache in `dir` for this product version.
 * @param options.dir An absolute folder, made (mode 0700) at the first write.
 * @param options.version The product's version, part of every key.
 * @param options.writeNewFile How a temporary file is written; default `writeFile` with flag `wx`.
 * @param options.maxFileBytes Largest file read or written; default `MAX_CACHE_FILE_BYTES`.
 */
export function createDocumentCache(options: {
  dir: string;
  version: string;
  writeNewFile?: WriteNewFile;
  maxFileBytes?: number;
}): DocumentCache {
  const { dir, version } = options;
  const maxFileBytes = options.maxFileBytes ?? MAX_CACHE_FILE_BYTES;
  const writeNewFile: WriteNewFile =
    options.writeNewFile ?? ((path, data, mode) => fileSystem().writeFile(path, data, { flag: 'wx', mode }));
  const keyOf = (identity: CacheIdentity): string =>
    crypto().createHash('sha256').update(`${MARK}${version}\0${identity.source}\0${identity.digest}`).digest('hex');

  return {
    dir,
    async read(identity) {
      const key = keyOf(identity);
      try {
        const bytes = await readOwnFile(join(dir, `${key}.v8`), maxFileBytes);
        if (typeof bytes === 'string') return { miss: bytes };
        return decodeEntry(bytes, key);
      } catch (error) {
        return { miss: `unreadable: ${(error as Error).message}` };
      }
    },
    async write(identity, entry) {
      const key = keyOf(identity);
      let temporary: string | undefined;
      try {
        const payload = v8().serialize({ extras: entry.extras });
        const header = Buffer.from(
          JSON.stringify({ format: 1, key, payloadBytes: payload.byteLength, files: entry.files }),
          'utf8',
        );
        const length = Buffer.alloc(4);
        length.writeUInt32LE(header.byteLength);
        const data = Buffer.concat([Buffer.from(MARK, 'utf8'), length, header, payload]);
        if (data.byteLength > maxFileBytes)
          return `the entry (${data.byteLength} bytes) is larger than the limit of ${maxFileBytes} bytes`;
        await fileSystem().mkdir(dir, { recursive: true, mode: 0o700 });
        const folder = await fileSystem().stat(dir);
        if (!ownedByMe(folder)) return `the folder ${dir} belongs to another user`;
        temporary = join(dir, `.${key}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`);
        await writeNewFile(temporary, data, 0o600);
        await fileSystem().rename(temporary, join(dir, `${key}.v8`));
        temporary = undefined;
        await prune(dir);
        return undefined;
      } catch (error) {
        return `not written: ${(error as Error).message}`;
      } finally {
        if (temporary !== undefined)
          await fileSystem()
            .rm(temporary, { force: true })
            .catch(() => undefined);
      }
    },
  };
}

/** True when this process's user owns `stats` (always where users have no numbers, as on Windows). */
function ownedByMe(stats: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || stats.uid === uid;
}

/**
 * The bytes of `path` when it is a regular file (not followed through a link) owned by this user, with no group or
 * other permission bits, of at most `maxBytes` bytes; otherwise the reason it is not read.
 */
async function readOwnFile(path: string, maxBytes: number): Promise<Buffer | string> {
  let handle;
  try {
    handle = await fileSystem().open(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT' ? 'absent' : `not opened: ${code ?? (error as Error).message}`;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return 'not a regular file';
    if (!ownedByMe(stats)) return `owned by user ${stats.uid}, not by this user`;
    if ((stats.mode & 0o077) !== 0) return `readable or writable by others (mode ${(stats.mode & 0o777).toString(8)})`;
    if (stats.size > maxBytes) return `larger than the limit of ${maxBytes} bytes`;
    const bytes = Buffer.alloc(stats.size);
    let at = 0;
    while (at < bytes.byteLength) {
      const { bytesRead } = await handle.read(bytes, at, bytes.byteLength - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === bytes.byteLength ? bytes : 'shorter than its size';
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The entry in `bytes`, checked against the expected key (which names the source), or why it is not one. */
function decodeEntry(bytes: Buffer, key: string): CacheRead {
  const mark = Buffer.byteLength(MARK);
  if (bytes.byteLength < mark + 4 || bytes.toString('utf8', 0, mark) !== MARK) return { miss: 'not a cache file' };
  const headerBytes = bytes.readUInt32LE(mark);
  if (headerBytes > MAX_HEADER_BYTES || mark + 4 + headerBytes > bytes.byteLength) return { miss: 'truncated header' };
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', mark + 4, mark + 4 + headerBytes));
  } catch {
    return { miss: 'unreadable header' };
  }
  if (!isPlainObject(header) || header.format !== 1 || header.key !== key) return { miss: 'another key' };
  const start = mark + 4 + headerBytes;
  if (header.payloadBytes !== bytes.byteLength - start) return { miss: 'truncated payload' };
  const files = header.files;
  if (
    !Array.isArray(files) ||
    !files.every(
      (file) => isPlainObject(file) && typeof file.path === 'string' && /^[0-9a-f]{64}$/.test(String(file.sha256)),
    )
  )
    return { miss: 'unreadable header' };
  let payload: unknown;
  try {
    payload = v8().deserialize(bytes.subarray(start));
  } catch (error) {
    return { miss: `unreadable payload: ${(error as Error).message}` };
  }
  if (!isPlainObject(payload) || !isPlainObject(payload.extras)) return { miss: 'a payload of the wrong shape' };
  return { entry: { files, extras: payload.extras } };
}

/**
 * Removes the entries of `dir` past the `MAX_CACHE_ENTRIES` most recently written, and the temporary files of writers
 * that are no longer running (a server stopped in the middle of a write leaves its temporary file).
 */
async function prune(dir: string): Promise<void> {
  const all = await fileSystem().readdir(dir);
  for (const name of all) {
    const writer = /^\.[0-9a-f]{64}\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name);
    if (writer && !running(Number(writer[1])))
      await fileSystem()
        .rm(join(dir, name), { force: true })
        .catch(() => undefined);
  }
  const names = all.filter((name) => /^[0-9a-f]{64}\.v8$/.test(name));
  if (names.length <= MAX_CACHE_ENTRIES) return;
  const dated = await Promise.all(
    names.map(async (name) => ({
      name,
      at: await fileSystem()
        .lstat(join(dir, name))
        .then((stats) => stats.mtimeMs)
        .catch(() => 0),
    })),
  );
  dated.sort((a, b) => b.at - a.at);
  for (const { name } of dated.slice(MAX_CACHE_ENTRIES))
    await fileSystem()
      .rm(join(dir, name), { force: true })
      .catch(() => undefined);
}

/** Whether a process `pid` runs (signal 0 reaches it, or it exists under another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** The SHA-256 of a text as hex, for a bundled file's entry in the header. */
export function textDigest(text: string): string {
  return crypto().createHash('sha256').update(text).digest('hex');
}
