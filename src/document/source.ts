/**
 * The document source: the document loaded once and reused, reloaded when its file changes or, for a URL, after
 * its time to live; concurrent callers share one load.
 */
import {
  DEFAULT_TTL_MS,
  MAX_DOCUMENT_BYTES,
  RACY_MARGIN_MS,
  loadInternal,
  readCapped,
  readSource,
  sourceKind,
} from './openapi-document.ts';
import { MIN_CACHED_DOCUMENT_BYTES, textDigest } from './cache.ts';
import type { CacheIdentity, DocumentCache } from './cache.ts';
import type { LoadOptions, LoadResult } from './openapi-document.ts';
import type { LoadedDocument } from './model.ts';
import type { BigIntStats } from 'node:fs';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');

// Loaded with the first document, not before the server answers `initialize` (issue 20).
const fileSystem = lazyBuiltin('node:fs/promises');

/**
 * A cached document. For a file, `get()` re-reads when the device, inode, size, mtime or ctime of the
 * document or of a bundled file changes (a rewrite that keeps size and mtime, `cp -p`, still changes
 * ctime), or, for a file changed within `RACY_MARGIN_MS` of when it was read (a second change could
 * land on the same timestamp), when its content's SHA-256 changes. For an http(s) URL, a download is reused for `options.ttlMs` (default 60000
 * ms) and concurrent `get()`s share one download; a failed download is remembered for the same
 * time (its error is thrown again without a request), so a huge or stalled URL is not fetched per probe.
 * `get()` rejects with DocumentError as `loadDocument` does.
 */
export type DocumentSource = {
  get(): Promise<LoadedDocument>;
  /** What the cache entry read with `loaded` held (the search index), or undefined. */
  cachedExtras?(loaded: LoadedDocument): Record<string, unknown> | undefined;
  /**
   * Writes the cache entry of the document last loaded, with `extras(loaded)` (values `v8.serialize` takes; undefined
   * ones left out), unless there are none or the entry read with it or an earlier write already held extras of these
   * names. Resolves with undefined when written or not needed, else with the reason it was not written; never rejects.
   * Without a cache, does nothing.
   */
  persist?(extras?: (loaded: LoadedDocument) => Record<string, unknown>): Promise<string | undefined>;
};

/** What a document source says of its cache: a hit, a miss (with its reason) or a write (with why it failed). */
export type CacheEvent = { outcome: 'hit' | 'miss' | 'written' | 'unwritten'; reason?: string };

/**
 * Creates a DocumentSource for `source` (file path, `file:` URL or http(s) URL); `timeoutMs`, `fetch`
 * and `maxBytes` are passed to `loadDocument`. Nothing is read until the first `get()`, which also
 * rejects an unsupported scheme with DocumentError.
 */
export function createDocumentSource(
  source: string,
  options: LoadOptions & {
    ttlMs?: number;
    cache?: DocumentCache;
    /** Smallest document (bytes of text) the cache holds; default `MIN_CACHED_DOCUMENT_BYTES`. */
    minCachedBytes?: number;
    onCache?: (event: CacheEvent) => void;
  } = {},
): DocumentSource {
  const isUrl = /^https?:\/\//i.test(source);
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const { cache } = options;
  // The document last loaded, for `persist`: its cache identity, and the extras names its entry already holds.
  let cachable: { loaded: LoadedDocument; identity: CacheIdentity; files: string[]; held: Set<string> } | undefined;
  const extrasOf = new WeakMap<LoadedDocument, Record<string, unknown>>();
  let cached: { result: LoadResult; at: number; stamp: string; cutoff: number; racy: boolean } | undefined;
  // A URL that failed is not fetched again until the TTL has passed: a huge or stalled document
  // would otherwise cost its full download or timeout on every probe. A file is cheap to re-read.
  let failed: { error: unknown; at: number } | undefined;
  let inFlight: Promise<LoadedDocument> | undefined;

  /**
   * What identifies the files' contents: device, inode, size, mtime and ctime (ns) of each; a file whose
   * ctime is at or after `cutoff` (ms since the epoch) is "racy" (a change in the same clock tick would
   * leave all of these alone), so its SHA-256 is added when `hash` is true. With `hash` false a racy file
   * makes the stamp undefined.
   */
  async function stampOf(files: string[], cutoff: number, hash: boolean): Promise<{ stamp?: string; racy: boolean }> {
    const parts: string[] = [];
    let racy = false;
    for (const file of files) {
      let s: BigIntStats;
      try {
        s = await fileSystem().stat(file, { bigint: true });
      } catch {
        parts.push(`${file}:missing`);
        continue;
      }
      let part = `${file}:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      if (Number(s.ctimeNs / 1_000_000n) >= cutoff) {
        racy = true;
        if (!hash) return { racy };
        try {
          part +=
            ':' +
            crypto()
              .createHash('sha256')
              .update(await readCapped(file, options.maxBytes ?? MAX_DOCUMENT_BYTES, options.timeoutMs))
              .digest('hex');
        } catch (error) {
          part += `:unreadable ${(error as Error).message}`;
        }
      }
      parts.push(part);
    }
    return { stamp: parts.join('|'), racy };
  }

  // A local path, or undefined for a URL; throws DocumentError for an unsupported scheme.
  const localPath = (): string | undefined => {
    const kind = sourceKind(source);
    return kind.url ? undefined : kind.path;
  };

  async function reload(): Promise<LoadedDocument> {
    const root = localPath();
    const cutoff = Date.now() - RACY_MARGIN_MS;
    // Stamp before reading, so a change during the read triggers another read next time.
    const before = root === undefined ? { stamp: '', racy: false } : await stampOf([root], cutoff, true);
    const result = cache ? await loadThroughCache(cache) : await loadInternal(source, options);
    const after = root === undefined ? { stamp: '', racy: false } : await stampOf(result.files, cutoff, true);
    cached = {
      result,
      at: Date.now(),
      stamp: `${before.stamp}|${after.stamp}`,
      cutoff,
      racy: before.racy || after.racy,
    };
    return result.loaded;
  }

  /**
   * The document loaded, with what its cache entry holds (`cachedExtras`) when one matches its text and its bundled
   * files; noted for `persist` either way.
   */
  async function loadThroughCache(documentCache: DocumentCache): Promise<LoadResult> {
    const read = await readSource(source, options);
    cachable = undefined;
    if (read.text.length < (options.minCachedBytes ?? MIN_CACHED_DOCUMENT_BYTES))
      return loadInternal(source, options, read);
    const identity = { source, digest: textDigest(read.text) };
    const found = await documentCache.read(identity);
    const result = await loadInternal(source, options, read);
    if ('entry' in found) {
      const changed = await changedFile(found.entry.files);
      if (changed === undefined) {
        extrasOf.set(result.loaded, found.entry.extras);
        // The entry holds these extras: a call that adds nothing to them writes nothing.
        cachable = {
          loaded: result.loaded,
          identity,
          files: result.files,
          held: new Set(Object.keys(found.entry.extras)),
        };
        options.onCache?.({ outcome: 'hit' });
        return result;
      }
      options.onCache?.({ outcome: 'miss', reason: `bundled file ${changed} changed` });
    } else options.onCache?.({ outcome: 'miss', reason: found.miss });
    cachable = { loaded: result.loaded, identity, files: result.files, held: new Set() };
    return result;
  }

  /** The first of `files` whose text's SHA-256 is not the one recorded, or undefined when none changed. */
  async function changedFile(files: { path: string; sha256: string }[]): Promise<string | undefined> {
    for (const file of files) {
      const text = await readCapped(file.path, options.maxBytes ?? MAX_DOCUMENT_BYTES, options.timeoutMs).catch(
        () => undefined,
      );
      if (text === undefined || textDigest(text) !== file.sha256) return file.path;
    }
    return undefined;
  }

  async function persist(
    extrasFor: (loaded: LoadedDocument) => Record<string, unknown> = () => ({}),
  ): Promise<string | undefined> {
    const entry = cachable;
    if (!cache || !entry) return undefined;
    const extras = Object.fromEntries(
      Object.entries(extrasFor(entry.loaded)).filter(([, value]) => value !== undefined),
    );
    const names = Object.keys(extras);
    // Nothing derived yet, or nothing the entry does not hold already: nothing worth writing.
    if (names.every((name) => entry.held.has(name))) return undefined;
    for (const name of names) entry.held.add(name);
    const files: { path: string; sha256: string }[] = [];
    for (const path of entry.files) {
      const text = await readCapped(path, options.maxBytes ?? MAX_DOCUMENT_BYTES, options.timeoutMs).catch(
        () => undefined,
      );
      // A bundled file that cannot be read again is not vouched for: no entry.
      if (text === undefined) return `bundled file ${path} unreadable`;
      files.push({ path, sha256: textDigest(text) });
    }
    const failed = await cache.write(entry.identity, { files, extras });
    options.onCache?.(failed === undefined ? { outcome: 'written' } : { outcome: 'unwritten', reason: failed });
    return failed;
  }

  async function fresh(): Promise<boolean> {
    if (!cached) return false;
    const root = localPath();
    if (isUrl || root === undefined) return Date.now() - cached.at < ttlMs;
    const later = Date.now() - RACY_MARGIN_MS;
    const first = await stampOf([root], cached.cutoff, true);
    const rest = await stampOf(cached.result.files, cached.cutoff, true);
    if (`${first.stamp}|${rest.stamp}` !== cached.stamp) return false;
    if (cached.racy && later > cached.cutoff) {
      // Unchanged, and no longer racy once `later` is the cutoff: stamp by metadata alone from now on. A
      // file changed since the check above has a ctime past `later`, so it stays racy and nothing is restamped.
      const settledFirst = await stampOf([root], later, false);
      const settledRest = await stampOf(cached.result.files, later, false);
      if (!settledFirst.racy && !settledRest.racy)
        Object.assign(cached, { stamp: `${settledFirst.stamp}|${settledRest.stamp}`, cutoff: later, racy: false });
    }
    return true;
  }

  return {
    cachedExtras: (loaded) => extrasOf.get(loaded),
    persist,
    get(): Promise<LoadedDocument> {
      if (inFlight) return inFlight;
      inFlight = (async () => {
        try {
          if (await fresh()) return cached!.result.loaded;
          if (isUrl && failed && Date.now() - failed.at < ttlMs) throw failed.error;
          try {
            const loaded = await reload();
            failed = undefined;
            return loaded;
          } catch (error) {
            failed = { error, at: Date.now() };
            throw error;
          }
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    },
  };
}
