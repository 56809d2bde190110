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
  sourceKind,
} from './openapi-document.ts';
import type { LoadOptions, LoadResult } from './openapi-document.ts';
import type { LoadedDocument } from './model.ts';
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * A cached document. For a file, `get()` re-reads when the device, inode, size, mtime or ctime of the
 * document or of a bundled file changes (a rewrite that keeps size and mtime, `cp -p`, still changes
 * ctime), or, for a file changed within `RACY_MARGIN_MS` of when it was read (a second change could
 * land on the same timestamp), when its content's SHA-256 changes. For an http(s) URL, a download is reused for `options.ttlMs` (default 60000
 * ms) and concurrent `get()`s share one download; a failed download is remembered for the same
 * time (its error is thrown again without a request), so a huge or stalled URL is not fetched per probe.
 * `get()` rejects with DocumentError as `loadDocument` does.
 */
export type DocumentSource = { get(): Promise<LoadedDocument> };

/**
 * Creates a DocumentSource for `source` (file path, `file:` URL or http(s) URL); `timeoutMs`, `fetch`
 * and `maxBytes` are passed to `loadDocument`. Nothing is read until the first `get()`, which also
 * rejects an unsupported scheme with DocumentError.
 */
export function createDocumentSource(source: string, options: LoadOptions & { ttlMs?: number } = {}): DocumentSource {
  const isUrl = /^https?:\/\//i.test(source);
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
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
        s = await stat(file, { bigint: true });
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
            createHash('sha256')
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
    const result = await loadInternal(source, options);
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
