// Loading, bundling and indexing OpenAPI documents, and matching concrete paths to operations.
// No MCP, no probing: plain data in, plain data out. Only `node:` imports (plus the optional `yaml`
// package, imported dynamically when a YAML document is met).

import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lazyBuiltin } from '../shared/builtin.ts';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { readCappedStream } from '../shared/capped-read.ts';
import { escapePointerToken, lookupPointer } from '../shared/json-pointer.ts';
import { unquotedParseError } from '../shared/json-text.ts';
import type { PointerLookup } from '../shared/json-pointer.ts';
import { safeDecode } from '../shared/text.ts';
import { trimSlash } from '../shared/url-path.ts';
import { isPlainObject } from '../shared/values.ts';
import { DocumentError } from './model.ts';
import type { LoadedDocument } from './model.ts';
import { operationsOf } from './operations.ts';
import { DOCUMENT_BASE, indexDocument, resolveSchemaRef, sameDocument, schemaIndex } from './refs.ts';
// Loaded with the first document, not before the server answers `initialize` (issue 20).
const fileSystem = lazyBuiltin('node:fs/promises');

/**
 * Largest document accepted, in bytes (128 MiB): decoded bytes of an http(s) body (after fetch undoes
 * gzip/deflate/br), or the size of a local file and of each bundled sibling file. A larger source is a
 * DocumentError naming the limit; the default of the `maxBytes` option of `loadDocument` and
 * `createDocumentSource`.
 */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

/** Options of `loadDocument` (and, with `ttlMs`, of `createDocumentSource`). */
export type LoadOptions = {
  fetch?: typeof fetch; // default global fetch
  timeoutMs?: number; // whole download including redirects and body, or the read of each local file; default 15000 ms
  maxBytes?: number; // size limit in bytes, default MAX_DOCUMENT_BYTES
};

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
export const DEFAULT_TTL_MS = 60_000;
/**
 * A document file changed less than this long (ms) before it was read may change again within the same
 * file-system timestamp tick, unseen by size, mtime and ctime; its content hash is compared until then.
 */
export const RACY_MARGIN_MS = 2_000;
const YAML_MISSING =
  'install the optional `yaml` package beside the server (`npm install yaml`) or convert the document to JSON';

// Keys whose values are plain data (JSON Schema `const`/`enum`/`default`/`example`), so a `$ref`
// inside them is not a reference. They are only data when they are not names in a map such as
// `properties` or `responses` (`responses: {default: ...}` is a Response Object).
const DATA_KEYS = new Set(['example', 'const', 'default', 'enum']);
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'schemas',
  'parameters',
  'responses',
  'headers',
  'examples',
  'requestBodies',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
  'paths',
  'webhooks',
  'x-bundled',
  'securityDefinitions',
  'variables',
]);

// ---------------------------------------------------------------------------------------------
// Parsing

/**
 * Values made by `JSON.parse` here: trees, in which no object is reached twice, so the bundle walk
 * needs no visited set for them (YAML aliases may share nodes or form cycles, so YAML keeps one).
 */
const TREES = new WeakSet<object>();

/**
 * Parses document text as JSON or YAML. `.json` files are JSON; `.yaml`/`.yml` files, and other
 * text that does not start with `{` or `[`, are YAML (YAML 1.2 via the optional `yaml` package,
 * imported on demand by `importYaml`, default `import('yaml')`).
 * @returns The parsed value. Throws DocumentError (pointer `#`) on a syntax error or, for YAML,
 *   when the `yaml` package cannot be imported.
 */
export async function parseDocumentText(
  text: string,
  file: string,
  importYaml: () => Promise<any> = () => {
    const name = 'yaml'; // a variable, so type checkers and bundlers leave the optional import alone
    return import(name);
  },
): Promise<unknown> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const ext = extensionOf(file);
  const trimmed = text.trimStart();
  const asJson =
    ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && (trimmed.startsWith('{') || trimmed.startsWith('[')));
  if (asJson) {
    try {
      const value = JSON.parse(text);
      if (value !== null && typeof value === 'object') TREES.add(value);
      return value;
    } catch (error) {
      throw new DocumentError(file, '#', `invalid JSON: ${unquotedParseError(error)}`);
    }
  }
  let yaml: any;
  try {
    yaml = await importYaml();
  } catch {
    throw new DocumentError(file, '#', YAML_MISSING);
  }
  const parse = yaml?.parse ?? yaml?.default?.parse;
  if (typeof parse !== 'function') throw new DocumentError(file, '#', YAML_MISSING);
  try {
    return parse(text, { merge: true, maxAliasCount: 10_000 });
  } catch (error) {
    throw new DocumentError(file, '#', `invalid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

function extensionOf(file: string): string {
  let path = file;
  if (/^https?:\/\//i.test(file)) {
    try {
      path = new URL(file).pathname;
    } catch {
      // keep the raw text
    }
  }
  const match = /\.[A-Za-z0-9]+$/.exec(path);
  return match ? match[0].toLowerCase() : '';
}

// ---------------------------------------------------------------------------------------------
// Bundling external file refs

/** A file of the document: its absolute path (undefined from a URL), how it is named, its pointer prefix, and for the root the real path of the file as it was read. */
type FileContext = { abs: string | undefined; display: string; prefix: string; real?: string };
/** A node of the walk; `scoped`: it or an ancestor schema has an `$id`, so its `$ref`s resolve against that (JSON Schema 2020-12 §8.2.1). */
type Entry = { node: any; key: string; parent: Entry | undefined; scoped?: boolean };
type RefSite = { holder: Record<string, any>; original: string; file: FileContext; entry: Entry };

function pointerOf(entry: Entry): string {
  const tokens: string[] = [];
  for (let e: Entry | undefined = entry; e && e.parent; e = e.parent) tokens.push(escapePointerToken(e.key));
  return (
    '#' +
    tokens
      .reverse()
      .map((t) => '/' + t)
      .join('')
  );
}

function docPointer(site: { file: FileContext; entry: Entry }): string {
  return site.file.prefix + pointerOf(site.entry).slice(1);
}

/**
 * Walks `root` iteratively, rewriting `$ref`s to local pointers, loading sibling files on the way.
 * Returns every ref site (for verification) and the absolute paths of the bundled files.
 * With `identified` (the text names `$id`), a `$ref` inside a schema that has an `$id`, or in one of its subschemas,
 * is left as written: it resolves against that `$id`, inside the document, when the document is checked (JSON Schema
 * 2020-12 §8.2); one that resolves to nothing there, or leaves the document, is a problem, never a failed load. So
 * is any `$ref` that names an `$id` or anchor of the document: it is not read as a file nor fetched.
 */
async function bundle(
  root: any,
  rootFile: FileContext,
  problems: string[],
  maxBytes: number,
  identified = false,
  base = DOCUMENT_BASE,
): Promise<{ sites: RefSite[]; files: string[] }> {
  // The document as written (before any file is bundled into it), for references to its own `$id`s and anchors.
  const ownIndex = identified ? schemaIndex(root, base, false) : undefined;
  const scopedSites: Array<{ holder: Record<string, any>; entry: Entry; file: FileContext }> = [];
  const rootDir = rootFile.abs ? dirname(rootFile.abs) : undefined;
  const bundled: Record<string, unknown> = {};
  const contexts = new Map<string, FileContext>();
  if (rootFile.abs) contexts.set(rootFile.abs, rootFile);
  const jobs: Array<{ node: unknown; file: FileContext }> = [{ node: root, file: rootFile }];
  const visited = new Set<object>();
  const sites: RefSite[] = [];
  let realRootDir: string | undefined; // the document's folder with symbolic links resolved, on first use

  while (jobs.length > 0) {
    const job = jobs.pop()!;
    const tree = job.node !== null && typeof job.node === 'object' && TREES.has(job.node);
    const stack: Entry[] = [{ node: job.node, key: '', parent: undefined }];
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const node = entry.node;
      if (node === null || typeof node !== 'object') continue;
      if (!tree) {
        if (visited.has(node)) continue;
        visited.add(node);
      }
      const named = NAME_MAPS.has(entry.key) && !(entry.parent && NAME_MAPS.has(entry.parent.key));
      const scoped = identified && (entry.scoped || (!Array.isArray(node) && !named && typeof node.$id === 'string'));
      if (scoped) entry.scoped = true;
      if (!Array.isArray(node) && typeof node.$ref === 'string') {
        if (scoped) scopedSites.push({ holder: node, entry, file: job.file });
        else if (
          ownIndex &&
          !node.$ref.startsWith('#/') &&
          node.$ref !== '#' &&
          insideDocument(node, entry, job.file)
        ) {
          // names an `$id` or anchor of this document: resolved when checked
        } else if (!rewriteLocalRef(node, entry, job.file)) await rewriteRef(node, entry, job.file);
      }
      // Only objects and arrays are pushed: a string or number holds no `$ref` (most nodes are such leaves).
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) {
          const child = node[i];
          if (child !== null && typeof child === 'object')
            stack.push({ node: child, key: String(i), parent: entry, scoped: entry.scoped });
        }
      } else {
        const inMap = named;
        const keys = Object.keys(node);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const child = node[key];
          if (child === null || typeof child !== 'object') continue;
          if (key === '$ref') continue;
          if (DATA_KEYS.has(key) && !inMap) continue;
          if (key === 'value' && entry.parent?.key === 'examples') continue;
          stack.push({ node: child, key, parent: entry, scoped: entry.scoped });
        }
      }
    }
  }

  // Whether an unscoped `$ref` of the root file names a resource or anchor the document declares.
  function insideDocument(holder: Record<string, any>, entry: Entry, file: FileContext): boolean {
    if (file.prefix !== '#' || !ownIndex) return false;
    return resolveSchemaRef(root, holder.$ref, pointerOf(entry), ownIndex).found;
  }

  async function insideRealFolder(real: string): Promise<boolean> {
    realRootDir ??= (await realPathOf(rootDir!)) ?? rootDir!;
    const rel = relative(realRootDir, real);
    if (rel !== '' && rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel)) return true;
    // The document itself may be the target (a `$ref` back into the root file).
    // Compared with the root as it was read, never resolved again: a root swapped for a link to another file in
    // between must not make that file count as the root.
    return rootFile.real !== undefined && real === rootFile.real;
  }

  // The `rewriteRef` steps for a ref with no URI part, synchronously; false when the ref has a URI part.
  function rewriteLocalRef(holder: Record<string, any>, entry: Entry, file: FileContext): boolean {
    const original: string = holder.$ref;
    if (!original.startsWith('#') && original !== '') return false;
    const fragment = original.slice(1);
    if (file.prefix !== '#' && (fragment === '' || fragment.startsWith('/'))) holder.$ref = file.prefix + fragment;
    sites.push({ holder, original, file, entry });
    return true;
  }

  async function rewriteRef(holder: Record<string, any>, entry: Entry, file: FileContext): Promise<void> {
    const original: string = holder.$ref;
    const hash = original.indexOf('#');
    const uriPart = hash < 0 ? original : original.slice(0, hash);
    const fragment = hash < 0 ? '' : original.slice(hash + 1);
    const site: RefSite = { holder, original, file, entry };
    if (uriPart === '') {
      if (file.prefix !== '#' && (fragment === '' || fragment.startsWith('/'))) holder.$ref = file.prefix + fragment;
      sites.push(site);
      return;
    }
    // A URI that names the file itself (its file: URL, or for the root its base URI, absolute or relative) is a
    // reference inside it (RFC 3986, 5.1: resolved against the retrieval URI; JSON Schema 2020-12, 9.1.1).
    const own = file.abs ? pathToFileURL(file.abs).href : file.prefix === '#' ? base : undefined;
    const itself =
      own !== undefined && (sameDocument(uriPart, own) || (file.prefix === '#' && sameDocument(uriPart, base, own)));
    if (itself && (fragment === '' || fragment.startsWith('/'))) {
      holder.$ref = file.prefix + fragment;
      sites.push(site);
      return;
    }
    // A plain-name fragment of the document itself names an anchor: resolved by the index when checked.
    if (itself && file.prefix === '#') return;
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uriPart)) {
      // Never fetched: a document must not make the server request hosts of its choosing.
      const kind = /^https?:/i.test(uriPart) ? 'remote' : 'non-file';
      problems.push(`${kind} $ref ${original} at ${docPointer(site)} not fetched`);
      return;
    }
    if (!file.abs || !rootDir) {
      problems.push(
        `relative $ref ${original} at ${docPointer(site)} not fetched (the document was loaded from a URL)`,
      );
      return;
    }
    if (fragment !== '' && !fragment.startsWith('/')) {
      problems.push(`$ref ${original} at ${docPointer(site)} uses a plain-name fragment; not bundled`);
      return;
    }
    const target = resolve(dirname(file.abs), safeDecode(uriPart) ?? uriPart);
    const rel = relative(rootDir, target);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      if (target !== rootFile.abs) {
        problems.push(`$ref ${original} at ${docPointer(site)} points outside the document's directory; not read`);
        return;
      }
    }
    // The text check above is not enough: a symbolic link inside the folder may lead out of it
    // (case 53). Compare real paths, with every link on the way resolved, before reading anything.
    const real = await realPathOf(target);
    if (real !== undefined && target !== rootFile.abs && !(await insideRealFolder(real))) {
      problems.push(
        `$ref ${original} at ${docPointer(site)} points outside the document's directory through a symbolic link; not read`,
      );
      return;
    }
    let context = contexts.get(target);
    if (!context) {
      const name = rel.split(sep).join('/');
      let text: string;
      try {
        // The checked real path, not the link again; and the file opened is checked once more, by what the kernel
        // opened, so a link swapped in between the check and the open cannot lead out.
        text = await readCapped(
          real ?? target,
          maxBytes,
          DEFAULT_TIMEOUT_MS,
          async (opened) => target === rootFile.abs || (await insideRealFolder(opened)),
        );
      } catch (error) {
        throw new DocumentError(
          file.display,
          pointerOf(entry),
          `$ref ${original}: cannot read ${target}: ${(error as Error).message}`,
        );
      }
      const content = await parseDocumentText(text, target);
      context = { abs: target, display: target, prefix: '#/x-bundled/' + escapePointerToken(name) };
      contexts.set(target, context);
      bundled[name] = content;
      jobs.push({ node: content, file: context });
    }
    holder.$ref = context.prefix + fragment;
    sites.push(site);
  }

  const names = Object.keys(bundled);
  if (names.length > 0) {
    const existing = isPlainObject(root['x-bundled']) ? root['x-bundled'] : {};
    root['x-bundled'] = { ...existing, ...bundled };
  }
  if (scopedSites.length > 0) {
    const index = schemaIndex(root, base, false);
    for (const site of scopedSites) {
      const at = docPointer(site);
      const hit = resolveSchemaRef(root, site.holder.$ref, at, index);
      if (!hit.found)
        problems.push(`$ref ${site.holder.$ref} at ${at} is not followed: ${hit.reason}; that schema is not checked`);
    }
  }
  return { sites, files: [...contexts.keys()].filter((f) => f !== rootFile.abs) };
}

/** The path with every symbolic link resolved, or undefined when it cannot be (missing file: reading it fails later). */
async function realPathOf(path: string): Promise<string | undefined> {
  try {
    return await fileSystem().realpath(path);
  } catch {
    return undefined;
  }
}

/** Throws DocumentError for a local ref that points nowhere; notes pure `$ref` cycles as problems. */
function verifyRefs(doc: unknown, sites: RefSite[], problems: string[]): void {
  const status = new Map<string, 'ok' | 'cycle' | 'broken'>();
  // Most sites share a few targets (`#/components/schemas/X`): each pointer is looked up once.
  const lookups = new Map<string, PointerLookup>();
  const lookup = (pointer: string): PointerLookup => {
    let hit = lookups.get(pointer);
    if (hit === undefined) {
      hit = lookupPointer(doc, pointer);
      lookups.set(pointer, hit);
    }
    return hit;
  };
  for (const site of sites) {
    const ref: string = site.holder.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#') || (ref !== '#' && !ref.startsWith('#/'))) continue;
    if (!lookup(ref).found) {
      throw new DocumentError(site.file.display, pointerOf(site.entry), `$ref ${site.original} points nowhere`);
    }
    if (status.has(ref)) continue; // this pointer and its whole chain were judged at an earlier site
    // Follow ref-to-ref chains; a chain that loops never reaches a schema (validators would spin).
    const chain: string[] = [];
    let current = ref;
    let outcome: 'ok' | 'cycle' | 'broken' = 'ok';
    let newCycle = false;
    const seen = new Set<string>();
    for (;;) {
      const known = status.get(current);
      if (known) {
        outcome = known;
        break;
      }
      if (seen.has(current)) {
        outcome = 'cycle';
        newCycle = true;
        break;
      }
      seen.add(current);
      chain.push(current);
      const target = lookup(current);
      if (!target.found) {
        outcome = 'broken';
        break;
      }
      if (isPlainObject(target.value) && typeof target.value.$ref === 'string' && target.value.$ref.startsWith('#/')) {
        current = target.value.$ref;
      } else {
        break;
      }
    }
    for (const pointer of chain) status.set(pointer, outcome);
    // Reported once per cycle, at the first site that leads into it.
    if (newCycle) {
      problems.push(`$ref ${ref} at ${docPointer(site)} is part of a $ref cycle that never reaches a value`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Loading

export type LoadResult = { loaded: LoadedDocument; files: string[] };

/** The size-limit failure text, shared by URL bodies and files. */
function tooLarge(maxBytes: number): string {
  return `the document is larger than the limit of ${maxBytes} bytes`;
}

/** What a `stat` result is, for a file that is not a regular file: "a FIFO (named pipe)", "a directory", ... */
function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * Reads a local file as UTF-8, failing (plain Error) when it holds more than `maxBytes` bytes: the size
 * from stat first, then a bounded read, so a device or a growing file cannot fill the memory either.
 * Only a regular file is opened (issue 8): the path is `stat`ed BEFORE it is opened, and a FIFO,
 * socket, device or directory is refused with an Error naming its kind, since opening a FIFO waits for
 * a writer forever and ties up a libuv thread. The open is non-blocking and checked again (same file,
 * still regular), so a swap between the two is refused too. The whole read has a deadline of
 * `timeoutMs` (default 15000 ms), past which it fails with "not read within N ms". With `allowed`, the real
 * path of the file actually opened (`openedPath`) must pass it, or the read fails naming that: a link changed
 * between a caller's check and the open cannot lead elsewhere.
 */
export async function readCapped(
  path: string,
  maxBytes: number,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  allowed?: (openedPath: string) => Promise<boolean>,
): Promise<string> {
  // One timer for the whole read (not one per step): each step races it.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not read within ${timeoutMs} ms`)), timeoutMs);
  });
  late.catch(ignoreError); // observed by each race; no unhandled rejection once the read is over
  try {
    return await readCappedBefore(path, maxBytes, late, allowed);
  } finally {
    clearTimeout(timer);
  }
}

function ignoreError(): void {}

/**
 * Closes a file without waiting. A module-level function on purpose: a closure made inside the reader
 * would keep the reader's scope (its deadline race, and through it the bytes read) alive until the
 * close completes, which is after the caller parsed the text: a whole document's bytes held longer.
 */
function closeQuietly(handle: FileHandle): void {
  void handle.close().catch(ignoreError);
}

async function readCappedBefore(
  path: string,
  maxBytes: number,
  late: Promise<never>,
  allowed?: (openedPath: string) => Promise<boolean>,
): Promise<string> {
  const beforeDeadline = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, late]);
  const before = await beforeDeadline(fileSystem().stat(path));
  if (!before.isFile()) throw new Error(`${fileKind(before)}, not a regular file; only regular files are read`);
  if (before.size > maxBytes) throw new Error(tooLarge(maxBytes));
  // O_NONBLOCK: should a FIFO take the file's place after the stat, opening it returns at once instead of waiting.
  const opening = fileSystem().open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  let handle: FileHandle;
  try {
    handle = await beforeDeadline(opening);
  } catch (error) {
    void opening.then((lateHandle) => lateHandle.close()).catch(() => undefined); // an open that ends after the deadline is closed then
    throw error;
  }
  try {
    const opened = await beforeDeadline(handle.stat());
    if (!opened.isFile()) throw new Error(`${fileKind(opened)}, not a regular file; only regular files are read`);
    if (opened.ino !== before.ino || opened.dev !== before.dev)
      throw new Error('the file was replaced while it was being opened; try again');
    if (allowed && !(await allowed(await beforeDeadline(openedPath(handle, path, opened))))) {
      throw new Error(
        "the file opened is outside the document's directory (a symbolic link changed while it was opened); not read",
      );
    }
    if (opened.size > maxBytes) throw new Error(tooLarge(maxBytes));
    const size = opened.size;
    // One buffer of the stated size plus one byte, so a regular file is read in one call without zeroing
    // or joining chunks; a file that grew keeps being read, in 1 MiB steps, up to the cap.
    const chunks: Buffer[] = [];
    let total = 0;
    let room = Math.min(size + 1, maxBytes + 1);
    for (;;) {
      const buffer = Buffer.allocUnsafe(room);
      const { bytesRead } = await beforeDeadline(handle.read(buffer, 0, buffer.length, null));
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new Error(tooLarge(maxBytes));
      chunks.push(buffer.subarray(0, bytesRead));
      // A regular file reads short only at its end: no further read (and round trip) to learn that.
      if (bytesRead < buffer.length) break;
      room = Math.min(1024 * 1024, maxBytes + 1 - total);
    }
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
    return bytes.toString('utf8');
  } finally {
    // Closing is not waited for (a read still running past the deadline would hold it; otherwise it is
    // one more round trip through the thread pool for nothing the caller needs).
    closeQuietly(handle);
  }
}

/**
 * The real path of the file `handle` holds open. On Linux the kernel's own name for it (`/proc/self/fd/N`), so no
 * link changed after the open can disguise it. Elsewhere the real path of `path` resolved again after the open,
 * accepted only when it names the same file (device and inode) as the handle; otherwise an empty string, which no
 * folder check accepts.
 */
async function openedPath(handle: FileHandle, path: string, opened: { dev: number; ino: number }): Promise<string> {
  if (process.platform === 'linux') {
    try {
      return await fileSystem().readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // /proc not mounted: the check below
    }
  }
  const again = await realPathOf(path);
  if (again === undefined) return '';
  const now = await fileSystem()
    .lstat(again)
    .catch(() => undefined);
  return now && now.dev === opened.dev && now.ino === opened.ino ? again : '';
}

/** Reads a response body up to `maxBytes` decoded bytes; throws DocumentError past it, and the stream's own error when it breaks. */
async function readBody(response: Response, source: string, maxBytes: number): Promise<string> {
  const read = await readCappedStream(response.body as unknown as AsyncIterable<Uint8Array> | null, maxBytes);
  if (read.truncated) throw new DocumentError(source, '#', tooLarge(maxBytes));
  if (read.failure !== undefined) throw read.failure;
  return read.all.toString('utf8');
}

/**
 * What a source names: an http(s) URL, or a local file (a path, or a `file:` URL turned into a path).
 * Any other `scheme://` is a DocumentError rather than being read as a relative path.
 */
export function sourceKind(source: string): { url: true } | { url: false; path: string } {
  if (/^https?:\/\//i.test(source)) return { url: true };
  if (/^file:/i.test(source)) {
    try {
      return { url: false, path: fileURLToPath(source) };
    } catch (error) {
      throw new DocumentError(source, '#', `not a usable file URL: ${(error as Error).message}`);
    }
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(source);
  if (scheme) {
    throw new DocumentError(
      source,
      '#',
      `unsupported URL scheme ${scheme[1]}: only http(s) URLs and file paths (or file: URLs) are supported`,
    );
  }
  return { url: false, path: resolve(source) };
}

/** A document's text as read, with the absolute path it was read from and the real path opened (a file) or the
 * last URL after redirects (http), for `loadInternal`. */
export type SourceRead = { text: string; abs: string | undefined; real?: string; url?: string };

/**
 * Reads a document's text from a file path, `file:` URL or http(s) URL as `loadDocument` does (limits, redirects).
 * @throws DocumentError as `loadDocument` does for a source it cannot read.
 */
export async function readSource(source: string, options: LoadOptions): Promise<SourceRead> {
  const kind = sourceKind(source);
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  if (kind.url) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const fetchFn = options.fetch ?? globalThis.fetch;
    const signal = AbortSignal.timeout(timeoutMs);
    const origin = new URL(source).origin;
    try {
      let url = source;
      for (let redirects = 0; ; redirects++) {
        // Redirects are followed by hand, and only within the configured origin: a document URL must
        // not send the server to hosts of someone else's choosing (RFC 9110 section 15.4).
        const response = await fetchFn(url, { signal, redirect: 'manual' });
        if (REDIRECT_STATUSES.has(response.status)) {
          await response.body?.cancel().catch(() => undefined);
          const location = response.headers.get('location');
          if (location === null)
            throw new DocumentError(
              source,
              '#',
              `HTTP ${response.status} redirect without a Location header from ${url}`,
            );
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new DocumentError(
              source,
              '#',
              `HTTP ${response.status} redirect to an invalid Location ${JSON.stringify(location)}`,
            );
          }
          if (next.origin !== origin) {
            throw new DocumentError(
              source,
              '#',
              `redirected to another origin (${next.origin}); cross-origin redirects are not followed: set OPENAPI_DOC to the final URL`,
            );
          }
          if (redirects >= MAX_REDIRECTS) {
            throw new DocumentError(
              source,
              '#',
              `more than ${MAX_REDIRECTS} redirects; set OPENAPI_DOC to the final URL`,
            );
          }
          url = next.href;
          continue;
        }
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          const refused = response.status === 401 || response.status === 403;
          throw new DocumentError(
            source,
            '#',
            `HTTP ${response.status} ${response.statusText}`.trim() +
              (refused
                ? ': the document is fetched without API_KEY, so a URL that needs the key cannot be read; download the document and set OPENAPI_DOC to its absolute path'
                : ''),
          );
        }
        return { text: await readBody(response, source, maxBytes), abs: undefined, url };
      }
    } catch (error) {
      if (error instanceof DocumentError) throw error;
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError' || signal.aborted) {
        throw new DocumentError(source, '#', `no complete response within ${timeoutMs} ms`);
      }
      // fetch says only "fetch failed"; the socket's reason is its `cause` (ECONNREFUSED, a certificate, "bad port").
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const reason =
        typeof cause?.message === 'string'
          ? `${cause.message}${typeof cause.code === 'string' && !cause.message.includes(cause.code) ? ` (${cause.code})` : ''}`
          : (error as Error).message;
      throw new DocumentError(source, '#', `download failed: ${reason.replace(/\s+/g, ' ')}`);
    }
  }
  try {
    // The real path of the file actually opened, kept for the `$ref` folder checks (`bundle`).
    let real: string | undefined;
    const text = await readCapped(kind.path, maxBytes, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (opened) => {
      real = opened;
      return true;
    });
    return { text, abs: kind.path, ...(real ? { real } : {}) };
  } catch (error) {
    const message = (error as Error).message;
    throw new DocumentError(source, '#', message === tooLarge(maxBytes) ? message : `cannot read file: ${message}`);
  }
}

/** The dialects an OpenAPI 3.1 document's schemas are checked in (OAS 3.1.0 §4.8.24.2; JSON Schema 2020-12). */
const DIALECTS_2020 = new Set([
  'https://spec.openapis.org/oas/3.1/dialect/base',
  'https://json-schema.org/draft/2020-12/schema',
]);

function detectVersion(doc: unknown, source: string, problems: string[]): '2.0' | '3.0' | '3.1' {
  if (!isPlainObject(doc))
    throw new DocumentError(source, '#', 'not an OpenAPI document: the top level is not an object');
  if (typeof doc.openapi === 'string' && /^3\.\d+(\.\d+)?/.test(doc.openapi)) {
    if (/^3\.0(\.|$)/.test(doc.openapi)) return '3.0';
    if (!/^3\.1(\.|$)/.test(doc.openapi)) problems.push(`openapi ${doc.openapi} read as 3.1`);
    // OAS 3.1.0 §4.8.1: jsonSchemaDialect names the schemas' default dialect; only 2020-12 (or OAS's base, built on
    // it) is implemented, so another is said once rather than read silently as if it were 2020-12.
    const dialect = doc.jsonSchemaDialect;
    if (dialect !== undefined && !DIALECTS_2020.has(String(dialect)))
      problems.push(
        `jsonSchemaDialect ${JSON.stringify(dialect)} is not JSON Schema 2020-12; schemas are read as 2020-12`,
      );
    return '3.1';
  }
  if (doc.swagger === '2.0') return '2.0';
  const found =
    'openapi' in doc
      ? `openapi: ${JSON.stringify(doc.openapi)}`
      : 'swagger' in doc
        ? `swagger: ${JSON.stringify(doc.swagger)}`
        : 'neither field';
  throw new DocumentError(
    source,
    'openapi' in doc ? '#/openapi' : 'swagger' in doc ? '#/swagger' : '#',
    `not an OpenAPI document: expected \`openapi: 3.x\` or \`swagger: "2.0"\`, found ${found}`,
  );
}

/**
 * The base URI of a document's references (RFC 3986, 5.1; JSON Schema 2020-12, 9.1.1 initial base URI): the URL it
 * was retrieved from (a `file:` URL for a file, the last URL of the redirects for HTTP), or `DOCUMENT_BASE` when it
 * has none (a document given as text); a string `$self` (OpenAPI 3.2) resolved against that one takes its place.
 * Nothing is fetched from it. @returns An absolute URI without fragment.
 */
function baseUriOf(doc: unknown, abs: string | undefined, url: string | undefined): string {
  const retrieval = abs ? pathToFileURL(abs).href : url ? url.replace(/#.*$/, '') : DOCUMENT_BASE;
  const self = isPlainObject(doc) ? doc.$self : undefined;
  if (typeof self !== 'string') return retrieval;
  try {
    const resolved = new URL(self, retrieval);
    resolved.hash = '';
    return resolved.href;
  } catch {
    return retrieval;
  }
}

/** Path prefixes from `servers[].url` (3.x, variables' defaults substituted) or `basePath` (2.0). */
function basePathsOf(doc: any, version: '2.0' | '3.0' | '3.1'): string[] {
  const prefixes: string[] = [];
  const add = (path: string) => {
    let p = trimSlash(path);
    if (p !== '' && !p.startsWith('/')) p = '/' + p;
    if (p !== '' && !prefixes.includes(p)) prefixes.push(p);
  };
  if (version === '2.0') {
    if (typeof doc.basePath === 'string') add(doc.basePath);
    return prefixes;
  }
  for (const server of Array.isArray(doc.servers) ? doc.servers : []) {
    if (!isPlainObject(server) || typeof server.url !== 'string') continue;
    const variables = isPlainObject(server.variables) ? server.variables : {};
    const url = server.url.replace(/\{([^}]*)\}/g, (whole: string, name: string) => {
      const v = variables[name];
      return isPlainObject(v) && v.default !== undefined ? String(v.default) : whole;
    });
    const withoutQuery = url.replace(/[?#].*$/, '');
    const authority = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/]*/.exec(withoutQuery);
    add(authority ? withoutQuery.slice(authority[0].length) : withoutQuery);
  }
  return prefixes;
}

/**
 * Indexes the schema resources of a parsed and bundled document (refs.ts `indexDocument`), as loading does: again for a
 * document read back from the cache, whose index (kept beside it, not in it) did not come with it.
 * @param files The bundled files; `read` the root document as read (its text, and where from: the base URI).
 */
export function indexSchemas(doc: object, version: '2.0' | '3.0' | '3.1', files: string[], read: SourceRead): void {
  // Only a 3.1 document can declare schema resources (JSON Schema 2020-12 §8.2); a bundled file may declare them too.
  indexDocument(
    doc,
    version === '3.1' && (files.length > 0 || /\$(id|anchor|dynamicAnchor)\b/.test(read.text)),
    baseUriOf(doc, read.abs, read.url),
  );
}

/**
 * `loadDocument`, with the files bundled into the document; `read` is the source's text when the caller has read it
 * already (`readSource`, the document source does to look in its cache), else it is read here.
 */
export async function loadInternal(source: string, options: LoadOptions, read?: SourceRead): Promise<LoadResult> {
  read ??= await readSource(source, options);
  const { text, real } = read;
  // Relative `$ref`s are resolved from where the root was read, not through the given path again: a folder on that
  // path swapped for a link to another folder between reads must not make a `$ref` read that folder's files. A root
  // that is itself a link keeps the link's folder (where its `$ref`s were written to point).
  const abs =
    read.abs &&
    real &&
    !(
      await fileSystem()
        .lstat(read.abs)
        .catch(() => undefined)
    )?.isSymbolicLink()
      ? real
      : read.abs;
  const doc: any = await parseDocumentText(text, source);
  const problems: string[] = [];
  const version = detectVersion(doc, source, problems);
  const base = baseUriOf(doc, abs, read.url);
  const { sites, files } = await bundle(
    doc,
    { abs, display: source, prefix: '#', ...(real ? { real } : {}) },
    problems,
    options.maxBytes ?? MAX_DOCUMENT_BYTES,
    version === '3.1' && text.includes('$id'),
    base,
  );
  verifyRefs(doc, sites, problems);
  indexSchemas(doc, version, files, read);
  const info = isPlainObject(doc.info) ? doc.info : {};
  const loaded: LoadedDocument = {
    source,
    doc,
    version,
    title: typeof info.title === 'string' ? info.title : '',
    infoVersion: info.version === undefined ? '' : String(info.version),
    loadedAt: new Date().toISOString(),
    basePaths: basePathsOf(doc, version),
    operations: operationsOf(doc, version),
    problems,
  };
  return { loaded, files };
}

/**
 * Loads an OpenAPI 3.0.x / 3.1.x or Swagger 2.0 document (JSON, or YAML through the optional
 * `yaml` package) from a file path, `file:` URL or http(s) URL; any other `scheme://` is refused.
 * URLs are fetched with `options.fetch` (default global fetch) and abort after `options.timeoutMs`
 * (default 15000 ms, for all redirects and the body together). Up to 5 redirects are followed while
 * they stay on the origin (scheme, host, port) of `source`; a redirect elsewhere is refused. The body
 * is streamed and refused past `options.maxBytes` decoded bytes (default MAX_DOCUMENT_BYTES, 128 MiB);
 * files, and each bundled file, past that many bytes. `$ref`s to files beside the document are bundled under `doc['x-bundled'][name]`
 * (name: path relative to the document's directory) and rewritten to local pointers, so every
 * followed `$ref` in `doc` is local (`#/...`). Remote `$ref`s are never fetched; each is listed in
 * `problems`, as are refs outside the document's directory and `$ref` cycles that never reach a value.
 * @returns The document, its version, title, base paths and indexed operations.
 * @throws DocumentError when the source cannot be read or parsed, is not OpenAPI/Swagger, or a
 *   local `$ref` points nowhere (RFC 6901); when its scheme is not http, https or file; when it is
 *   larger than `maxBytes` (the reason names the limit in bytes); when a redirect leaves the origin
 *   (the reason names the Location's origin) or there are more than 5.
 */
export async function loadDocument(source: string, options: LoadOptions = {}): Promise<LoadedDocument> {
  return (await loadInternal(source, options)).loaded;
}
