// Loading, bundling and indexing OpenAPI documents, and matching concrete paths to operations.
// No MCP, no probing: plain data in, plain data out. Only `node:` imports (plus the optional `yaml`
// package, imported dynamically when a YAML document is met).

import { constants } from 'node:fs';
import type { BigIntStats, Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { readCappedStream } from '../shared/capped-read.ts';
import { escapePointerToken, lookupPointer } from '../shared/json-pointer.ts';
import type { PointerLookup } from '../shared/json-pointer.ts';
import { editDistance, safeDecode } from '../shared/text.ts';
import { isPlainObject } from '../shared/values.ts';
/**
 * A parameter of an operation after `$ref` resolution. `schema` is the Schema Object (3.x `schema`,
 * the first `content` entry's schema, or for Swagger 2.0 non-body parameters the inline keywords
 * gathered into one). `pointer` is where the resolved Parameter Object lives (RFC 6901 fragment).
 */
export type Parameter = {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';
  required: boolean;
  schema?: unknown;
  description?: string;
  pointer: string;
};

/**
 * One method + path template of the document (OpenAPI 3.1.0, Operation Object). `method` is upper
 * case; `pathTemplate` the `paths` key as written; `pointer` the RFC 6901 fragment of the Operation
 * Object (`#/paths/~1pets~1{petId}/get`). `responses` maps status codes to Response Objects with
 * one `$ref` level resolved (Swagger 2.0 responses gain `content[<produces>].schema`).
 */
export type Operation = {
  method: string;
  pathTemplate: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  parameters: Parameter[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  pointer: string;
};

/**
 * A loaded document. `doc` has sibling-file `$ref`s bundled under `x-bundled` (every followed
 * `$ref` is local); `basePaths` are path prefixes from the document's `servers[].url` (variables'
 * defaults substituted) or 2.0 `basePath` (`''` left out), for display: matchOperation reads every
 * value a server URL can take, and path- and operation-level `servers` too, from `doc`; `problems`
 * lists non-fatal issues such as remote `$ref`s that were not fetched.
 */
export type LoadedDocument = {
  source: string;
  doc: any;
  version: '2.0' | '3.0' | '3.1';
  title: string;
  infoVersion: string;
  loadedAt: string;
  basePaths: string[];
  operations: Operation[];
  problems: string[];
};

/**
 * Thrown when a document cannot be used: it cannot be read or parsed, it is not OpenAPI 3.x or
 * Swagger 2.0, or a local `$ref` points nowhere (RFC 6901 pointer that resolves to nothing).
 * `file` is the file path or URL, `pointer` the JSON Pointer in URI fragment form (`#/paths/~1pets/get`,
 * `#` for the whole document), `reason` what went wrong; the message names all three.
 */
export class DocumentError extends Error {
  file: string;
  pointer: string;
  reason: string;
  constructor(file: string, pointer: string, reason: string) {
    super(`Cannot load OpenAPI document ${file} at ${pointer}: ${reason}`);
    this.name = 'DocumentError';
    this.file = file;
    this.pointer = pointer;
    this.reason = reason;
  }
}

/**
 * Largest document accepted, in bytes (128 MiB): decoded bytes of an http(s) body (after fetch undoes
 * gzip/deflate/br), or the size of a local file and of each bundled sibling file. A larger source is a
 * DocumentError naming the limit; the default of the `maxBytes` option of `loadDocument` and
 * `createDocumentSource`.
 */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

/** Options of `loadDocument` (and, with `ttlMs`, of `createDocumentSource`). */
export type LoadOptions = {
  fetch?: typeof fetch;   // default global fetch
  timeoutMs?: number;     // whole download including redirects and body, or the read of each local file; default 15000 ms
  maxBytes?: number;      // size limit in bytes, default MAX_DOCUMENT_BYTES
};

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_TTL_MS = 60_000;
/**
 * A document file changed less than this long (ms) before it was read may change again within the same
 * file-system timestamp tick, unseen by size, mtime and ctime; its content hash is compared until then.
 */
const RACY_MARGIN_MS = 2_000;
/**
 * Most `$ref` hops `follow` takes through a chain of references before it reports the chain as too long
 * (a finite chain shorter than this is always followed to its end; issue 8, case 51).
 */
export const MAX_REF_HOPS = 10_000;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const YAML_MISSING =
  'install the optional `yaml` package beside the server (`npm install yaml`) or convert the document to JSON';

// Keys whose values are plain data (JSON Schema `const`/`enum`/`default`/`example`), so a `$ref`
// inside them is not a reference. They are only data when they are not names in a map such as
// `properties` or `responses` (`responses: {default: ...}` is a Response Object).
const DATA_KEYS = new Set(['example', 'const', 'default', 'enum']);
const NAME_MAPS = new Set([
  'properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'schemas', 'parameters',
  'responses', 'headers', 'examples', 'requestBodies', 'securitySchemes', 'links', 'callbacks', 'pathItems',
  'content', 'encoding', 'paths', 'webhooks', 'x-bundled', 'securityDefinitions', 'variables',
]);

// ---------------------------------------------------------------------------------------------
// `$ref` following and status lookup

/**
 * Follows a chain of local `$ref`s (a Response, Request Body, Parameter, Path Item or Schema that is
 * only a reference) to the value it names. A finite chain is followed to its end however long it is,
 * up to `MAX_REF_HOPS` hops; a chain that comes back to a pointer already in it is a loop.
 * @returns `value`: the target (or, on error, the last value reached, still a `{$ref}`); `pointer`: the
 *   last `$ref` resolved (undefined when `value` was not a reference); `error` with `looped: true` for a
 *   chain that loops (A -> B -> A), or the reason a pointer resolves to nothing, or that the chain is
 *   longer than `MAX_REF_HOPS`. Never throws.
 */
export function follow(doc: unknown, value: unknown): { value: unknown; pointer?: string; error?: string; looped?: boolean } {
  return followWith(doc, value, lookupPointer);
}

/** A `lookupPointer` that remembers each pointer's result, for one pass over an unchanging document. */
function memoLookup(): (root: unknown, ref: string) => PointerLookup {
  const hits = new Map<string, PointerLookup>();
  return (root, ref) => {
    let hit = hits.get(ref);
    if (hit === undefined) {
      hit = lookupPointer(root, ref);
      hits.set(ref, hit);
    }
    return hit;
  };
}

/** `follow` with the pointer lookup given (`memoLookup()` for a pass that follows the same `$ref`s often). */
function followWith(doc: unknown, value: unknown, lookup: (root: unknown, ref: string) => PointerLookup): { value: unknown; pointer?: string; error?: string; looped?: boolean } {
  if (!isPlainObject(value) || typeof value.$ref !== 'string') return { value }; // most values: no chain to allocate
  let pointer: string | undefined;
  const chain: string[] = [];
  const seen = new Set<string>();
  while (isPlainObject(value) && typeof value.$ref === 'string') {
    const ref: string = value.$ref;
    if (seen.has(ref)) {
      return { value, pointer, looped: true, error: `the $ref chain ${[...chain, ref].join(' -> ')} loops without reaching an object` };
    }
    if (chain.length >= MAX_REF_HOPS) {
      return { value, pointer, error: `the $ref chain from ${chain[0]} is longer than ${MAX_REF_HOPS} hops` };
    }
    seen.add(ref);
    chain.push(ref);
    const target = lookup(doc, ref);
    if (!target.found) return { value, pointer, error: target.reason };
    pointer = ref;
    value = target.value;
  }
  return { value, pointer };
}

/**
 * The Responses Object key that covers a status: the exact code, then the range `NXX` (also `Nxx`),
 * then `default` (OpenAPI 3.0.3 / 3.1.0 Responses Object; Swagger 2.0 has codes and `default`).
 * @param responses The operation's `responses` map (raw or from `Operation.responses`).
 * @param status HTTP status code.
 * @returns The key used and the entry as stored (not followed), or undefined. Never throws.
 */
export function responseForStatus(responses: unknown, status: number): { key: string; response: unknown } | undefined {
  if (!isPlainObject(responses)) return undefined;
  const range = String(Math.trunc(status / 100));
  for (const key of [String(status), `${range}XX`, `${range}xx`, 'default']) {
    if (Object.prototype.hasOwnProperty.call(responses, key)) return { key, response: responses[key] };
  }
  return undefined;
}

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
  const asJson = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && (trimmed.startsWith('{') || trimmed.startsWith('[')));
  if (asJson) {
    try {
      const value = JSON.parse(text);
      if (value !== null && typeof value === 'object') TREES.add(value);
      return value;
    } catch (error) {
      throw new DocumentError(file, '#', `invalid JSON: ${(error as Error).message}`);
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
type Entry = { node: any; key: string; parent: Entry | undefined };
type RefSite = { holder: Record<string, any>; original: string; file: FileContext; entry: Entry };

function pointerOf(entry: Entry): string {
  const tokens: string[] = [];
  for (let e: Entry | undefined = entry; e && e.parent; e = e.parent) tokens.push(escapePointerToken(e.key));
  return '#' + tokens.reverse().map((t) => '/' + t).join('');
}

function docPointer(site: { file: FileContext; entry: Entry }): string {
  return site.file.prefix + pointerOf(site.entry).slice(1);
}

/**
 * Walks `root` iteratively, rewriting `$ref`s to local pointers, loading sibling files on the way.
 * Returns every ref site (for verification) and the absolute paths of the bundled files.
 */
async function bundle(
  root: any,
  rootFile: FileContext,
  problems: string[],
  maxBytes: number,
): Promise<{ sites: RefSite[]; files: string[] }> {
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
      if (!Array.isArray(node) && typeof node.$ref === 'string') {
        // A local `#...` ref (nearly all of them) is rewritten without an await per ref.
        if (!rewriteLocalRef(node, entry, job.file)) await rewriteRef(node, entry, job.file);
      }
      // Only objects and arrays are pushed: a string or number holds no `$ref` (most nodes are such leaves).
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) {
          const child = node[i];
          if (child !== null && typeof child === 'object') stack.push({ node: child, key: String(i), parent: entry });
        }
      } else {
        const inMap = NAME_MAPS.has(entry.key) && !(entry.parent && NAME_MAPS.has(entry.parent.key));
        const keys = Object.keys(node);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const child = node[key];
          if (child === null || typeof child !== 'object') continue;
          if (key === '$ref') continue;
          if (DATA_KEYS.has(key) && !inMap) continue;
          if (key === 'value' && entry.parent?.key === 'examples') continue;
          stack.push({ node: child, key, parent: entry });
        }
      }
    }
  }

  async function insideRealFolder(real: string): Promise<boolean> {
    realRootDir ??= (await realPathOf(rootDir!)) ?? rootDir!;
    const rel = relative(realRootDir, real);
    if (rel !== '' && rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel)) return true;
    // The document itself may be the target (a `$ref` back into the root file).
    // Compared with the root as it was read, never resolved again: a root swapped for a link to another file in
    // between must not make that file count as the root (attack round 6, B5-6).
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
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uriPart)) {
      // Never fetched: a document must not make the server request hosts of its choosing.
      const kind = /^https?:/i.test(uriPart) ? 'remote' : 'non-file';
      problems.push(`${kind} $ref ${original} at ${docPointer(site)} not fetched`);
      return;
    }
    if (!file.abs || !rootDir) {
      problems.push(`relative $ref ${original} at ${docPointer(site)} not fetched (the document was loaded from a URL)`);
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
      problems.push(`$ref ${original} at ${docPointer(site)} points outside the document's directory through a symbolic link; not read`);
      return;
    }
    let context = contexts.get(target);
    if (!context) {
      const name = rel.split(sep).join('/');
      let text: string;
      try {
        // The checked real path, not the link again; and the file opened is checked once more, by what the kernel
        // opened, so a link swapped in between the check and the open cannot lead out (attack round 5, B5).
        text = await readCapped(real ?? target, maxBytes, DEFAULT_TIMEOUT_MS, async (opened) => target === rootFile.abs || (await insideRealFolder(opened)));
      } catch (error) {
        throw new DocumentError(file.display, pointerOf(entry), `$ref ${original}: cannot read ${target}: ${(error as Error).message}`);
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
  return { sites, files: [...contexts.keys()].filter((f) => f !== rootFile.abs) };
}

/** The path with every symbolic link resolved, or undefined when it cannot be (missing file: reading it fails later). */
async function realPathOf(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
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

type LoadResult = { loaded: LoadedDocument; files: string[] };

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
 * Only a regular file is opened (issue 8, B11): the path is `stat`ed BEFORE it is opened, and a FIFO,
 * socket, device or directory is refused with an Error naming its kind, since opening a FIFO waits for
 * a writer forever and ties up a libuv thread. The open is non-blocking and checked again (same file,
 * still regular), so a swap between the two is refused too. The whole read has a deadline of
 * `timeoutMs` (default 15000 ms), past which it fails with "not read within N ms". With `allowed`, the real
 * path of the file actually opened (`openedPath`) must pass it, or the read fails naming that: a link changed
 * between a caller's check and the open cannot lead elsewhere.
 */
export async function readCapped(path: string, maxBytes: number, timeoutMs = DEFAULT_TIMEOUT_MS, allowed?: (openedPath: string) => Promise<boolean>): Promise<string> {
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

async function readCappedBefore(path: string, maxBytes: number, late: Promise<never>, allowed?: (openedPath: string) => Promise<boolean>): Promise<string> {
  const beforeDeadline = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, late]);
  const before = await beforeDeadline(stat(path));
  if (!before.isFile()) throw new Error(`${fileKind(before)}, not a regular file; only regular files are read`);
  if (before.size > maxBytes) throw new Error(tooLarge(maxBytes));
  // O_NONBLOCK: should a FIFO take the file's place after the stat, opening it returns at once instead of waiting.
  const opening = open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
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
    if (opened.ino !== before.ino || opened.dev !== before.dev) throw new Error('the file was replaced while it was being opened; try again');
    if (allowed && !(await allowed(await beforeDeadline(openedPath(handle, path, opened))))) {
      throw new Error('the file opened is outside the document\'s directory (a symbolic link changed while it was opened); not read');
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
      return await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // /proc not mounted: the check below
    }
  }
  const again = await realPathOf(path);
  if (again === undefined) return '';
  const now = await lstat(again).catch(() => undefined);
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
function sourceKind(source: string): { url: true } | { url: false; path: string } {
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
    throw new DocumentError(source, '#', `unsupported URL scheme ${scheme[1]}: only http(s) URLs and file paths (or file: URLs) are supported`);
  }
  return { url: false, path: resolve(source) };
}

async function readSource(source: string, options: LoadOptions): Promise<{ text: string; abs: string | undefined; real?: string }> {
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
          if (location === null) throw new DocumentError(source, '#', `HTTP ${response.status} redirect without a Location header from ${url}`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new DocumentError(source, '#', `HTTP ${response.status} redirect to an invalid Location ${JSON.stringify(location)}`);
          }
          if (next.origin !== origin) {
            throw new DocumentError(source, '#',
              `redirected to another origin (${next.origin}); cross-origin redirects are not followed: set OPENAPI_DOC to the final URL`);
          }
          if (redirects >= MAX_REDIRECTS) {
            throw new DocumentError(source, '#', `more than ${MAX_REDIRECTS} redirects; set OPENAPI_DOC to the final URL`);
          }
          url = next.href;
          continue;
        }
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          throw new DocumentError(source, '#', `HTTP ${response.status} ${response.statusText}`.trim());
        }
        return { text: await readBody(response, source, maxBytes), abs: undefined };
      }
    } catch (error) {
      if (error instanceof DocumentError) throw error;
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError' || signal.aborted) {
        throw new DocumentError(source, '#', `no complete response within ${timeoutMs} ms`);
      }
      // fetch says only "fetch failed"; the socket's reason is its `cause` (ECONNREFUSED, a certificate, "bad port").
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const reason = typeof cause?.message === 'string' ? `${cause.message}${typeof cause.code === 'string' && !cause.message.includes(cause.code) ? ` (${cause.code})` : ''}` : (error as Error).message;
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

function detectVersion(doc: unknown, source: string, problems: string[]): '2.0' | '3.0' | '3.1' {
  if (!isPlainObject(doc)) throw new DocumentError(source, '#', 'not an OpenAPI document: the top level is not an object');
  if (typeof doc.openapi === 'string' && /^3\.\d+(\.\d+)?/.test(doc.openapi)) {
    if (/^3\.0(\.|$)/.test(doc.openapi)) return '3.0';
    if (!/^3\.1(\.|$)/.test(doc.openapi)) problems.push(`openapi ${doc.openapi} read as 3.1`);
    return '3.1';
  }
  if (doc.swagger === '2.0') return '2.0';
  const found = 'openapi' in doc ? `openapi: ${JSON.stringify(doc.openapi)}` : 'swagger' in doc ? `swagger: ${JSON.stringify(doc.swagger)}` : 'neither field';
  throw new DocumentError(
    source,
    'openapi' in doc ? '#/openapi' : 'swagger' in doc ? '#/swagger' : '#',
    `not an OpenAPI document: expected \`openapi: 3.x\` or \`swagger: "2.0"\`, found ${found}`,
  );
}

/** Path prefixes from `servers[].url` (3.x, variables' defaults substituted) or `basePath` (2.0). */
function basePathsOf(doc: any, version: '2.0' | '3.0' | '3.1'): string[] {
  const prefixes: string[] = [];
  const add = (path: string) => {
    let p = trimTrailingSlashes(path);
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

async function loadInternal(source: string, options: LoadOptions): Promise<LoadResult> {
  const read = await readSource(source, options);
  const { text, real } = read;
  // Relative `$ref`s are resolved from where the root was read, not through the given path again: a folder on that
  // path swapped for a link to another folder between reads made a `$ref` read that folder's files (attack round 7,
  // B4-7). A root that is itself a link keeps the link's folder (where its `$ref`s were written to point).
  const abs = read.abs && real && !(await lstat(read.abs).catch(() => undefined))?.isSymbolicLink() ? real : read.abs;
  const doc: any = await parseDocumentText(text, source);
  const problems: string[] = [];
  const version = detectVersion(doc, source, problems);
  const { sites, files } = await bundle(doc, { abs, display: source, prefix: '#', ...(real ? { real } : {}) }, problems, options.maxBytes ?? MAX_DOCUMENT_BYTES);
  verifyRefs(doc, sites, problems);
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

// ---------------------------------------------------------------------------------------------
// Indexing

const SWAGGER_SCHEMA_KEYS = [
  'type', 'format', 'items', 'enum', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf',
] as const;
const PARAMETER_LOCATIONS = ['path', 'query', 'header', 'cookie', 'body', 'formData'] as const;

function readParameter(doc: any, raw: unknown, pointer: string, version: '2.0' | '3.0' | '3.1', lookup: (root: unknown, ref: string) => PointerLookup): Parameter | undefined {
  const resolved = followWith(doc, raw, lookup);
  const p = resolved.value;
  if (!isPlainObject(p) || typeof p.name !== 'string' || typeof p.$ref === 'string') return undefined;
  const location = PARAMETER_LOCATIONS.find((l) => l === p.in);
  if (!location) return undefined;
  const parameter: Parameter = {
    name: p.name,
    in: location,
    required: p.required === true || location === 'path',
    pointer: resolved.pointer ?? pointer,
  };
  if (p.schema !== undefined) {
    parameter.schema = p.schema;
  } else if (isPlainObject(p.content)) {
    const first = Object.values(p.content)[0];
    if (isPlainObject(first) && first.schema !== undefined) parameter.schema = first.schema;
  } else if (version === '2.0') {
    // Swagger 2.0 non-body parameters carry their schema keywords inline (Swagger 2.0, Parameter Object).
    const schema: Record<string, unknown> = {};
    for (const key of SWAGGER_SCHEMA_KEYS) if (p[key] !== undefined) schema[key] = p[key];
    if (Object.keys(schema).length > 0) parameter.schema = schema;
  }
  if (typeof p.description === 'string') parameter.description = p.description;
  return parameter;
}

function mediaTypes(value: unknown, fallback: unknown): string[] {
  const list = Array.isArray(value) ? value : Array.isArray(fallback) ? fallback : [];
  const types = list.filter((t): t is string => typeof t === 'string');
  return types.length > 0 ? types : ['application/json'];
}

/**
 * Lists the operations of a document in document order: for each path template (keys of `paths`,
 * path item `$ref`s followed) the methods get, put, post, delete, options, head, patch, trace.
 * Path-level `parameters` are merged with the operation's (operation wins on the same name + in;
 * path-level ones first, then the operation's in their order), parameter `$ref`s are resolved and
 * `Parameter.pointer` names the resolved definition. `requestBody` and each response are resolved
 * one `$ref` level. Swagger 2.0 is read natively: the `in: body` parameter becomes
 * `requestBody.content[<consumes>].schema`, responses get `content[<produces>].schema`
 * (default media type `application/json`), inline parameter keywords become `schema`.
 * @returns Operations; never throws on malformed parts (they are skipped). OpenAPI 3.1.0 Paths,
 *   Path Item and Operation Objects; Swagger 2.0 Paths Object.
 */
export function indexOperations(doc: any, version: '2.0' | '3.0' | '3.1'): Operation[] {
  const operations: Operation[] = [];
  if (!isPlainObject(doc) || !isPlainObject(doc.paths)) return operations;
  const lookup = memoLookup(); // parameters and responses are mostly `$ref`s to a few shared components
  for (const pathTemplate of Object.keys(doc.paths)) {
    if (pathTemplate.startsWith('x-')) continue;
    const itemPointer = '#/paths/' + escapePointerToken(pathTemplate);
    const item = followWith(doc, doc.paths[pathTemplate], lookup).value;
    if (!isPlainObject(item)) continue;
    const pathParameters = (Array.isArray(item.parameters) ? item.parameters : [])
      .map((raw: unknown, i: number) => readParameter(doc, raw, `${itemPointer}/parameters/${i}`, version, lookup))
      .filter((p: Parameter | undefined): p is Parameter => p !== undefined);
    for (const method of METHODS) {
      const op = item[method];
      if (!isPlainObject(op)) continue;
      const pointer = `${itemPointer}/${method}`;
      const own = (Array.isArray(op.parameters) ? op.parameters : [])
        .map((raw: unknown, i: number) => readParameter(doc, raw, `${pointer}/parameters/${i}`, version, lookup))
        .filter((p: Parameter | undefined): p is Parameter => p !== undefined);
      const parameters = [
        ...pathParameters.filter((p: Parameter) => !own.some((o: Parameter) => o.name === p.name && o.in === p.in)),
        ...own,
      ];
      const operation: Operation = {
        method: method.toUpperCase(),
        pathTemplate,
        tags: Array.isArray(op.tags) ? op.tags.filter((t: unknown): t is string => typeof t === 'string') : [],
        deprecated: op.deprecated === true,
        parameters,
        responses: {},
        pointer,
      };
      if (typeof op.operationId === 'string') operation.operationId = op.operationId;
      if (typeof op.summary === 'string') operation.summary = op.summary;
      if (typeof op.description === 'string') operation.description = op.description;
      const responses = isPlainObject(op.responses) ? op.responses : {};
      if (version === '2.0') {
        const body = parameters.find((p) => p.in === 'body');
        if (body) {
          const requestBody: Record<string, unknown> = { content: {} };
          for (const type of mediaTypes(op.consumes, doc.consumes)) {
            (requestBody.content as Record<string, unknown>)[type] = { schema: body.schema };
          }
          if (body.description !== undefined) requestBody.description = body.description;
          requestBody.required = body.required;
          operation.requestBody = requestBody;
        }
        const produces = mediaTypes(op.produces, doc.produces);
        for (const status of Object.keys(responses)) {
          const response = followWith(doc, responses[status], lookup).value;
          if (!isPlainObject(response)) continue;
          const shaped: Record<string, unknown> = { ...response };
          if (response.schema !== undefined) {
            const content: Record<string, unknown> = {};
            for (const type of produces) content[type] = { schema: response.schema };
            shaped.content = content;
          }
          operation.responses[status] = shaped;
        }
      } else {
        if (op.requestBody !== undefined) operation.requestBody = followWith(doc, op.requestBody, lookup).value;
        for (const status of Object.keys(responses)) operation.responses[status] = followWith(doc, responses[status], lookup).value;
      }
      operations.push(operation);
    }
  }
  return operations;
}

// Indexes made by `operationsOf`, per document object; only Swagger 2.0 or not changes an index.
const operationIndexes = new WeakMap<object, { swagger: boolean; operations: Operation[] }>();

/**
 * `indexOperations`, computed once per document object and version family (2.0 or 3.x): the loader
 * and the schema checks share one index instead of building it twice (issue 9).
 * @returns The same array for the same document object; do not modify it. Never throws.
 */
export function operationsOf(doc: any, version: '2.0' | '3.0' | '3.1'): Operation[] {
  if (doc === null || typeof doc !== 'object') return indexOperations(doc, version);
  const swagger = version === '2.0';
  const cached = operationIndexes.get(doc);
  if (cached && cached.swagger === swagger) return cached.operations;
  const operations = indexOperations(doc, version);
  operationIndexes.set(doc, { swagger, operations });
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Document source with caching

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
          part += ':' + createHash('sha256').update(await readCapped(file, options.maxBytes ?? MAX_DOCUMENT_BYTES, options.timeoutMs)).digest('hex');
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
    cached = { result, at: Date.now(), stamp: `${before.stamp}|${after.stamp}`, cutoff, racy: before.racy || after.racy };
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
      if (!settledFirst.racy && !settledRest.racy) Object.assign(cached, { stamp: `${settledFirst.stamp}|${settledRest.stamp}`, cutoff: later, racy: false });
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

// ---------------------------------------------------------------------------------------------
// Path matching

// One segment of a path template (or, with only `literal` and `mixed`, of a server URL's path).
// `mixed` holds literal text and parameters in one segment (`{name}.json`, `{from}-{to}`): `literals`
// has one entry more than `names` (the text before, between and after the parameters, possibly '').
// `multi` is a whole-segment parameter marked `x-multi-segment: true` (GitHub's extension).
type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  | { kind: 'multi'; name: string }
  | { kind: 'mixed'; literals: string[]; names: string[]; literalChars: number };

// A path template with the operations that share it. Templates whose operations mark different
// parameters as multi-segment are separate routes. `bases` gives, per method, the keys of the base
// paths the operation's effective `servers` allow (OpenAPI 3.1.0, Operation Object `servers`).
type Route = {
  template: string;
  segments: Segment[];
  multiAt: number; // index of the multi-segment parameter, -1 without one
  literalCount: number;
  literalChars: number;
  ops: Map<string, Operation>;
  bases: Map<string, Set<string>>;
};

// A base path from a server URL, one entry per path segment. `literals` has one entry more than
// `defaults`: each gap between two literals is a server variable with no `enum`, which takes any
// non-empty text in its segment; `defaults[k]` is that variable's default (OpenAPI 3.1.0, Server
// Variable Object). A segment with no gap is literal text.
type BaseSegment = { literals: string[]; defaults: Array<string | undefined> };
type BasePath = { key: string; segments: BaseSegment[] };

type Matcher = {
  routes: Route[]; // most specific first (compareRoutes)
  bases: BasePath[]; // most segments first
  longest: number; // most segments of any route
  bySegmentCount: Map<number, Route[]>;
};

// Enum values of server variables multiply; past this many URLs per server, the remaining variables
// keep their first value (the default when it is listed), so a hostile document cannot blow up.
const MAX_SERVER_URLS = 256;
// A variable without `enum` stands in the expanded URL as one private-use code point.
const WILDCARD_FIRST = 0xe000;
const MAX_WILDCARDS = 256;
const PRIVATE_USE = /[\ue000-\uf8ff]/g;

const matchers = new WeakMap<LoadedDocument, { operations: Operation[]; doc: unknown; matcher: Matcher }>();

/** `text` without its trailing slashes; a loop, since `/\/+$/` is quadratic on long runs of slashes. */
function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

function compileSegment(text: string): Segment {
  if (!text.includes('{')) return { kind: 'literal', text: safeDecode(text) ?? text };
  const parts = text.split(/\{([^{}]+)\}/); // even indexes: literal text; odd: parameter names
  if (parts.length === 1) return { kind: 'literal', text: safeDecode(text) ?? text };
  if (parts.length === 3 && parts[0] === '' && parts[2] === '') return { kind: 'param', name: parts[1] };
  const literals = parts.filter((_, i) => i % 2 === 0);
  const names = parts.filter((_, i) => i % 2 === 1);
  return { kind: 'mixed', literals, names, literalChars: literals.reduce((n, l) => n + l.length, 0) };
}

/**
 * Matches one raw segment against literal pieces with a parameter between each two, without
 * regular expressions, in time linear in the segment per piece: the first and last pieces are
 * anchored at the ends; each middle piece is found leftmost after a non-empty capture, so each
 * parameter before the last takes the shortest non-empty value (adjacent parameters, `{a}{b}`, give
 * the first one character) and the last takes the rest. Returns the raw captures, or undefined.
 */
function matchPieces(literals: string[], raw: string): string[] | undefined {
  const slots = literals.length - 1;
  const head = literals[0];
  const tail = literals[slots];
  if (!raw.startsWith(head) || !raw.endsWith(tail)) return undefined;
  const end = raw.length - tail.length;
  const captures: string[] = [];
  let position = head.length;
  for (let k = 0; k < slots; k++) {
    if (k === slots - 1) {
      if (end - position < 1) return undefined;
      captures.push(raw.slice(position, end));
      break;
    }
    const next = literals[k + 1];
    const stop = next === '' ? position + 1 : raw.indexOf(next, position + 1);
    if (stop < 0 || stop + next.length > end) return undefined;
    captures.push(raw.slice(position, stop));
    position = stop + next.length;
  }
  return captures;
}

const SEGMENT_SCORE = { literal: 3, mixed: 2, param: 1, multi: 0 } as const;

/**
 * Higher rank first: more literal segments, then the leftmost more specific segment (literal, mixed,
 * parameter, multi-segment parameter), then more literal text, then the template text. A total order.
 */
function compareRoutes(a: Route, b: Route): number {
  if (a.literalCount !== b.literalCount) return b.literalCount - a.literalCount;
  const shorter = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < shorter; i++) {
    const d = SEGMENT_SCORE[b.segments[i].kind] - SEGMENT_SCORE[a.segments[i].kind];
    if (d !== 0) return d;
  }
  if (a.segments.length !== b.segments.length) return a.segments.length - b.segments.length;
  if (a.literalChars !== b.literalChars) return b.literalChars - a.literalChars;
  if (a.template !== b.template) return a.template < b.template ? -1 : 1;
  const am = a.multiAt < 0 ? '' : a.template + a.multiAt;
  const bm = b.multiAt < 0 ? '' : b.template + b.multiAt;
  return am < bm ? -1 : am > bm ? 1 : 0;
}

function splitPath(path: string): string[] {
  return (path.startsWith('/') ? path.slice(1) : path).split('/');
}

/** Base paths of a Server Object list (3.x), or undefined when it is not a non-empty array. */
function basesOfServers(servers: unknown): BasePath[] | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const bases: BasePath[] = [];
  for (const server of servers) {
    if (isPlainObject(server) && typeof server.url === 'string') bases.push(...expandServerUrl(server.url, server.variables));
  }
  return bases;
}

/**
 * Every base path a server URL can take (OpenAPI 3.1.0, Server Object): each `enum` value of a
 * variable (the default first), and for a variable without `enum` any one segment (its default
 * remembered as the tie-breaker). A default containing '/' or empty is used as it is.
 */
function expandServerUrl(url: string, rawVariables: unknown): BasePath[] {
  const variables = isPlainObject(rawVariables) ? rawVariables : {};
  const parts = url.split(/\{([^{}]*)\}/);
  const wildcardDefaults: Array<string | undefined> = [];
  const choices: string[][] = [];
  let combinations = 1;
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) {
      choices.push([parts[i].replace(PRIVATE_USE, '\ufffd')]);
      continue;
    }
    const variable = Object.prototype.hasOwnProperty.call(variables, parts[i]) ? variables[parts[i]] : undefined;
    const plain = (v: unknown) => typeof v === 'string' || typeof v === 'number';
    const fallback = isPlainObject(variable) && plain(variable.default) ? String(variable.default) : undefined;
    const listed = isPlainObject(variable) && Array.isArray(variable.enum) ? variable.enum.filter(plain).map(String) : [];
    let values: string[];
    if (listed.length > 0) {
      values = [...new Set(fallback === undefined ? listed : [fallback, ...listed])];
    } else if ((fallback === undefined || (fallback !== '' && !fallback.includes('/'))) && wildcardDefaults.length < MAX_WILDCARDS) {
      values = [String.fromCharCode(WILDCARD_FIRST + wildcardDefaults.length)];
      wildcardDefaults.push(fallback);
    } else {
      values = [fallback ?? ''];
    }
    if (combinations * values.length > MAX_SERVER_URLS) values = values.slice(0, 1);
    combinations *= values.length;
    choices.push(values);
  }
  let texts = [''];
  for (const values of choices) texts = values.length === 1 ? texts.map((t) => t + values[0]) : texts.flatMap((t) => values.map((v) => t + v));
  const bases: BasePath[] = [];
  for (const text of texts) {
    const cut = text.search(/[?#]/);
    const withoutQuery = cut < 0 ? text : text.slice(0, cut);
    const authority = /^(?:[A-Za-z\ue000-\uf8ff][A-Za-z0-9+.\ue000-\uf8ff-]*:)?\/\/[^/]*/.exec(withoutQuery);
    const path = trimTrailingSlashes(authority ? withoutQuery.slice(authority[0].length) : withoutQuery);
    if (path === '' || path === '/') continue;
    const segments = splitPath(path.startsWith('/') ? path : '/' + path).map((segment): BaseSegment => {
      const literals = segment.split(PRIVATE_USE);
      const defaults = [...segment.matchAll(PRIVATE_USE)].map((m) => wildcardDefaults[m[0].charCodeAt(0) - WILDCARD_FIRST]);
      return defaults.length === 0 ? { literals: [safeDecode(segment) ?? segment], defaults } : { literals, defaults };
    });
    bases.push({ key: JSON.stringify(segments), segments });
  }
  return bases;
}

/** The operations' templates compiled and ranked, and every base path their `servers` allow. */
function matcherFor(doc: LoadedDocument): Matcher {
  const cached = matchers.get(doc);
  if (cached && cached.operations === doc.operations && cached.doc === doc.doc) return cached.matcher;
  const root: any = doc.doc;
  const paths = isPlainObject(root) && isPlainObject(root.paths) ? root.paths : {};
  const rootBases = doc.version === '2.0'
    ? (isPlainObject(root) && typeof root.basePath === 'string' ? expandServerUrl(root.basePath.replace(/[{}]/g, ''), {}) : [])
    : isPlainObject(root) ? basesOfServers(root.servers) ?? [] : [];
  const allBases = new Map<string, BasePath>();
  const lookup = memoLookup();
  const byKey = new Map<string, Route>();
  for (const op of doc.operations) {
    const item = Object.prototype.hasOwnProperty.call(paths, op.pathTemplate) ? followWith(root, paths[op.pathTemplate], lookup).value : undefined;
    const raw = isPlainObject(item) ? item[op.method.toLowerCase()] : undefined;
    // Multi-segment path parameters: the path item's, then the operation's own (same name wins).
    const multi = new Map<string, boolean>();
    for (const list of [isPlainObject(item) ? item.parameters : undefined, isPlainObject(raw) ? raw.parameters : undefined]) {
      for (const entry of Array.isArray(list) ? list : []) {
        const parameter = followWith(root, entry, lookup).value;
        if (isPlainObject(parameter) && parameter.in === 'path' && typeof parameter.name === 'string') {
          multi.set(parameter.name, parameter['x-multi-segment'] === true);
        }
      }
    }
    const segments = splitPath(op.pathTemplate).map(compileSegment);
    let multiAt = -1;
    // One multi-segment parameter per template: the last one, so a template may end in an empty one.
    for (let i = segments.length - 1; i >= 0 && multiAt < 0; i--) {
      const segment = segments[i];
      if (segment.kind === 'param' && multi.get(segment.name) === true) {
        segments[i] = { kind: 'multi', name: segment.name };
        multiAt = i;
      }
    }
    const key = `${multiAt} ${op.pathTemplate}`;
    let route = byKey.get(key);
    if (!route) {
      route = {
        template: op.pathTemplate,
        segments,
        multiAt,
        literalCount: segments.filter((s) => s.kind === 'literal').length,
        literalChars: segments.reduce((n, s) => n + (s.kind === 'mixed' ? s.literalChars : 0), 0),
        ops: new Map(),
        bases: new Map(),
      };
      byKey.set(key, route);
    }
    const method = op.method.toUpperCase();
    route.ops.set(method, op);
    // The operation's own servers, else its path item's, else the document's (OpenAPI 3.1.0, 4.8.9-10).
    const bases = (doc.version === '2.0' ? undefined : basesOfServers(isPlainObject(raw) ? raw.servers : undefined) ?? basesOfServers(isPlainObject(item) ? item.servers : undefined)) ?? rootBases;
    for (const base of bases) allBases.set(base.key, base);
    route.bases.set(method, new Set(bases.map((b) => b.key)));
  }
  const routes = [...byKey.values()].sort(compareRoutes);
  const bases = [...allBases.values()].sort((a, b) => b.segments.length - a.segments.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const matcher: Matcher = { routes, bases, longest: routes.reduce((n, r) => Math.max(n, r.segments.length), 0), bySegmentCount: new Map() };
  matchers.set(doc, { operations: doc.operations, doc: doc.doc, matcher });
  return matcher;
}

/** Routes that can match a path of `count` segments, most specific first (memoised per count). */
function routesFor(matcher: Matcher, count: number): Route[] {
  const key = Math.min(count, matcher.longest + 1);
  let list = matcher.bySegmentCount.get(key);
  if (!list) {
    list = matcher.routes.filter((r) => (r.multiAt < 0 ? r.segments.length === count : r.segments.length <= count));
    matcher.bySegmentCount.set(key, list);
  }
  return list;
}

type SegmentValue = { raw: string; decoded: string | undefined };
type RouteMatch = { params: Record<string, string>; malformed: string[]; notes: string[] };

function matchRoute(route: Route, values: SegmentValue[]): RouteMatch | undefined {
  const segments = route.segments;
  let span = 1; // how many segments the multi-segment parameter takes
  if (route.multiAt < 0) {
    if (values.length !== segments.length) return undefined;
  } else {
    if (values.length < segments.length) return undefined;
    span = values.length - segments.length + 1;
  }
  const params: Record<string, string> = {};
  const malformed: string[] = [];
  const notes: string[] = [];
  for (let i = 0, j = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.kind === 'multi') {
      const taken = values.slice(j, j + span);
      j += span;
      if (span === 1 && taken[0].raw === '') {
        // Empty only where the template ends in it: `/contents/` is the root folder (case 47).
        if (i !== segments.length - 1) return undefined;
        params[segment.name] = '';
        notes.push(`path parameter ${JSON.stringify(segment.name)} is empty`);
        continue;
      }
      // One or more non-empty segments, slashes kept; each segment decoded on its own.
      if (taken.some((v) => v.raw === '')) return undefined;
      params[segment.name] = taken.map((v) => v.decoded ?? v.raw).join('/');
      for (const v of taken) if (v.decoded === undefined) malformed.push(v.raw);
      continue;
    }
    const value = values[j++];
    if (segment.kind === 'literal') {
      if ((value.decoded ?? value.raw) !== segment.text && value.raw !== segment.text) return undefined;
    } else if (segment.kind === 'param') {
      // A path parameter fills exactly one non-empty segment (OAS 3.1.0, Path Templating).
      if (value.raw === '') return undefined;
      params[segment.name] = value.decoded ?? value.raw;
      if (value.decoded === undefined) malformed.push(value.raw);
    } else {
      // Match the raw segment, so an encoded delimiter (%2D for '-') stays data; decode each capture.
      const captures = matchPieces(segment.literals, value.raw);
      if (!captures) return undefined;
      segment.names.forEach((name, k) => {
        const decoded = safeDecode(captures[k]);
        params[name] = decoded ?? captures[k];
        if (decoded === undefined) malformed.push(captures[k]);
      });
    }
  }
  return { params, malformed, notes };
}

/**
 * Whether the first segments of `values` are a base path. `strong` is false when a variable without
 * `enum` took a value other than its default: such a strip must earn its place (see matchOperation).
 */
function stripBase(base: BasePath, values: SegmentValue[]): { strong: boolean } | undefined {
  if (values.length < base.segments.length) return undefined;
  let strong = true;
  for (let i = 0; i < base.segments.length; i++) {
    const segment = base.segments[i];
    const value = values[i];
    if (segment.defaults.length === 0) {
      if ((value.decoded ?? value.raw) !== segment.literals[0] && value.raw !== segment.literals[0]) return undefined;
      continue;
    }
    const captures = matchPieces(segment.literals, value.raw);
    if (!captures) return undefined;
    captures.forEach((capture, k) => {
      if ((safeDecode(capture) ?? capture) !== segment.defaults[k]) strong = false;
    });
  }
  return { strong };
}

function segmentValues(path: string): SegmentValue[] {
  // Split on literal '/' first, then percent-decode each segment (RFC 3986 section 2.4).
  return splitPath(path).map((raw) => ({ raw, decoded: safeDecode(raw) }));
}


/**
 * Similarity key, larger is nearer: more literal segments equal to the path's at the same position
 * (a template made only of parameters fits anything, so it must not win on fit alone), then fewer
 * character edits over all positions (a parameter fits any non-empty segment), then a closer segment
 * count, then leading fitting segments, then more fitting segments.
 */
function similarity(route: Route, values: SegmentValue[]): number[] {
  const text = (v: SegmentValue) => v.decoded ?? v.raw;
  const fits = (i: number) => {
    const s = route.segments[i];
    const v = values[i];
    if (!s || !v) return false;
    if (s.kind === 'literal') return text(v) === s.text;
    if (s.kind === 'param' || s.kind === 'multi') return v.raw !== '';
    return matchPieces(s.literals, v.raw) !== undefined;
  };
  let leading = 0;
  while (leading < values.length && fits(leading)) leading++;
  let positional = 0;
  let edits = 0;
  for (let i = 0; i < Math.max(values.length, route.segments.length); i++) {
    if (fits(i)) {
      positional++;
      continue;
    }
    const s = route.segments[i];
    const v = values[i];
    const literal = !s ? '' : s.kind === 'literal' ? s.text : s.kind === 'mixed' ? s.literals.join('') : '';
    edits += v ? editDistance(literal.slice(0, 64), text(v).slice(0, 64)) : Math.max(literal.length, 1);
  }
  let literals = 0;
  route.segments.forEach((segment, i) => {
    if (segment.kind === 'literal' && values[i] && text(values[i]) === segment.text) literals++;
  });
  return [literals, -edits, -Math.abs(route.segments.length - values.length), leading, positional];
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i] - a[i];
  return 0;
}

function nearestOperations(matcher: Matcher, method: string, paths: string[]): string[] {
  const valueLists = paths.map(segmentValues);
  const scored = matcher.routes.map((route) => {
    let best: number[] | undefined;
    for (const values of valueLists) {
      const key = similarity(route, values);
      if (!best || compareKeys(key, best) < 0) best = key;
    }
    return { route, best: best! };
  });
  scored.sort((a, b) => {
    const k = compareKeys(a.best, b.best);
    if (k !== 0) return k;
    const am = a.route.ops.has(method) ? 0 : 1;
    const bm = b.route.ops.has(method) ? 0 : 1;
    if (am !== bm) return am - bm;
    return a.route.template < b.route.template ? -1 : a.route.template > b.route.template ? 1 : 0;
  });
  const labels = scored.map(({ route }) => `${route.ops.has(method) ? method : [...route.ops.keys()][0]} ${route.template}`);
  return [...new Set(labels)].slice(0, 3);
}

/**
 * Result of matchOperation: the operation with decoded path parameters, or `operation: undefined`
 * with up to 3 nearest `METHOD /template` (all of the path's methods when only the method differs).
 * `note` explains a fallback (trailing slash, base path stripped, malformed percent-encoding, an empty
 * multi-segment parameter).
 */
export type PathMatch =
  | { operation: Operation; params: Record<string, string>; note?: string }
  | { operation: undefined; nearest: string[]; note?: string };

// A way to read the request path: with a base path stripped (`keys` names the base paths that give
// it; an operation must allow one of them) or as given (`keys` undefined: every operation).
type Reading = { path: string; keys: Set<string> | undefined; note?: string };
type Found = { route: Route; operation: Operation; match: RouteMatch; reading: Reading; slashNote?: string };

/**
 * Finds the operation for a request. `concretePath` is the request path (an absolute URL's origin,
 * the query string and the fragment are dropped), e.g. `/v1/pets/42?x=1`.
 *
 * Base paths come from `servers` (OpenAPI 3.x; the operation's own, else its path item's, else the
 * document's) or `basePath` (Swagger 2.0). A server URL gives every path it can take: each `enum`
 * value of a variable, and for a variable without `enum` any one non-empty segment. The path is read,
 * in order: with a base path stripped at a segment boundary whose variables all take listed or
 * default values (longest first), only for operations whose servers allow that base; then the path
 * as given, unless stripping a base whose variable took a non-default value leaves a template with
 * more literal segments (the default decides a tie). If none matches exactly, the same again with the
 * trailing slash toggled once.
 *
 * Matching is segment by segment; segments are split on '/' and then percent-decoded (RFC 3986
 * section 2.4), so `%2F` is data. Literal templates beat templated ones regardless of document order
 * (OpenAPI 3.1.0, Paths Object): more literal segments first, then the leftmost more specific segment.
 * A `{param}` fills one non-empty segment. Text around braces (`{name}.json`, `{from}-{to}`) is
 * matched without regular expressions in time linear in the segment: literal pieces left to right,
 * each parameter before the last taking the shortest non-empty value. A whole-segment parameter that
 * the operation or its path item marks `x-multi-segment: true` (GitHub's extension; also through a
 * `$ref` to `components/parameters`) takes one or more non-empty segments, slashes kept, or an empty
 * value where the template ends in it (note `path parameter "path" is empty`); one per template, the
 * last. The method is compared case-insensitively.
 * @returns The operation with decoded path parameters (`{petId: '42'}`) and a note for fallbacks
 *   (trailing slash, base path stripped, malformed percent-encoding kept raw, empty multi-segment
 *   parameter); or `operation: undefined` with `nearest` — the path's documented methods when only the
 *   method differs (explained in `note`), otherwise up to 3 `METHOD /template` by similarity. Never throws.
 * @param options `stripBasePaths` (default true): false tries the path as given only, for a path that is
 *   already relative to the base path.
 */
export function matchOperation(
  doc: LoadedDocument,
  method: string,
  concretePath: string,
  options: { stripBasePaths?: boolean } = {},
): PathMatch {
  const matcher = matcherFor(doc);
  const wanted = method.toUpperCase();
  let path = concretePath;
  const origin = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(path);
  if (origin) path = path.slice(origin[0].length);
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  if (!path.startsWith('/')) path = '/' + path;

  // The document's paths are relative to its base path, so a path under it is matched without it
  // first (longest base first). Trying it as given first would let `/v2/meters/1` fit a template
  // such as `/{org}/{project}/{item}`.
  const strong: Reading[] = [];
  const weak: Reading[] = [];
  if (options.stripBasePaths !== false) {
    const values = segmentValues(path);
    const byDepth = new Map<string, Reading>();
    for (const base of matcher.bases) {
      const stripped = stripBase(base, values);
      if (!stripped) continue;
      const depth = base.segments.length;
      const id = `${depth} ${stripped.strong}`;
      let reading = byDepth.get(id);
      if (!reading) {
        const prefix = '/' + values.slice(0, depth).map((v) => v.raw).join('/');
        reading = { path: path.slice(prefix.length) || '/', keys: new Set(), note: `base path ${prefix} stripped` };
        byDepth.set(id, reading);
        (stripped.strong ? strong : weak).push(reading);
      }
      reading.keys!.add(base.key);
    }
  }
  const asGiven: Reading = { path, keys: undefined };

  let methodMiss: Route | undefined;
  const find = (reading: Reading, toggled: boolean): Found | undefined => {
    let tried = reading.path;
    let slashNote: string | undefined;
    if (toggled) {
      if (tried === '/') return undefined;
      if (tried.endsWith('/')) {
        tried = tried.slice(0, -1);
        slashNote = 'matched without the trailing slash';
      } else {
        tried = tried + '/';
        slashNote = 'matched with a trailing slash added';
      }
    }
    const values = segmentValues(tried);
    for (const route of routesFor(matcher, values.length)) {
      const match = matchRoute(route, values);
      if (!match) continue;
      const operation = route.ops.get(wanted);
      if (!operation) {
        methodMiss ??= route;
        continue;
      }
      const allowed = route.bases.get(wanted);
      if (reading.keys && !(allowed && [...reading.keys].some((k) => allowed.has(k)))) continue;
      return { route, operation, match, reading, slashNote };
    }
    return undefined;
  };

  for (const toggled of [false, true]) {
    let found: Found | undefined;
    for (const reading of strong) {
      found = find(reading, toggled);
      if (found) break;
    }
    if (!found) {
      found = find(asGiven, toggled);
      for (const reading of weak) {
        const other = find(reading, toggled);
        if (other && (!found || other.route.literalCount > found.route.literalCount)) found = other;
      }
    }
    if (found) {
      const notes = [found.reading.note, found.slashNote, ...found.match.notes];
      if (found.match.malformed.length > 0) {
        notes.push(`malformed percent-encoding in ${[...new Set(found.match.malformed)].map((m) => JSON.stringify(m)).join(', ')}; raw value kept`);
      }
      const note = notes.filter((n) => n !== undefined).join('; ');
      return note ? { operation: found.operation, params: found.match.params, note } : { operation: found.operation, params: found.match.params };
    }
  }
  if (methodMiss) {
    const template = methodMiss.template;
    const methods = [...new Set(matcher.routes.filter((r) => r.template === template).flatMap((r) => [...r.ops.keys()]))];
    return {
      operation: undefined,
      nearest: methods.map((m) => `${m} ${template}`),
      note: `${template} matches the path but documents no ${wanted}; it documents ${methods.join(', ')}`,
    };
  }
  // A base stripped through a variable's non-default value fits nearly any path: it would only add noise.
  return { operation: undefined, nearest: nearestOperations(matcher, wanted, [...strong, asGiven].map((r) => r.path)) };
}
