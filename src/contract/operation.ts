/**
 * An operation and its parts as the other contract files name and read them: its key (`GET /pets/{petId}`) and
 * summary, the operation a name or path resolves to, its documented response for a status, the schema behind a
 * `$ref`, and the nearest of a list of names.
 */
import type { LoadedDocument, Operation } from '../document/model.ts';
import { responseForStatus } from '../document/refs.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import { boundedText, editDistance } from '../shared/text.ts';
import { isPlainObject } from '../shared/values.ts';
import { matchOperation } from '../document/match.ts';
import type { PathMatch } from '../document/match.ts';

import { followedValue } from '../document/refs.ts';
import { findOperations } from './search.ts';
import { repeatedPrefixHint } from '../shared/url-path.ts';
import { documentExamples } from '../document/examples.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';
/** The operation as results show it: method, path template, operationId when it has one (each at most `MAX_TEXT` characters). */
export function summarize(operation: Operation): { method: string; pathTemplate: string; operationId?: string } {
  return {
    method: operation.method,
    pathTemplate: boundedText(operation.pathTemplate, MAX_TEXT),
    ...(operation.operationId ? { operationId: boundedText(operation.operationId, MAX_TEXT) } : {}),
  };
}

/**
 * Longest string a document supplies that a result repeats (summary, description, title, enum value, pattern,
 * default, property or parameter name, operationId), in characters: past it, cut with `… (N more characters)`
 * (issue 8).
 */
export const MAX_TEXT = 1_000;

/**
 * A copy of JSON data with every string and every property name cleaned by `clean` (the key redactor's `text`:
 * before the cut, so a cut never leaves a prefix of the key) and, past `max` characters, cut by `boundedText`; a
 * name that meets another once cleaned or cut gets ` #2`, ` #3`... after it. Never throws; cycles are not expected
 * (JSON data).
 * @param clean Applied to every string and name first; default none.
 */
export function cutLongStrings(
  value: unknown,
  max = MAX_TEXT,
  clean: (text: string) => string = (text) => text,
  depth = 0,
): unknown {
  if (typeof value === 'string') return boundedText(clean(value), max);
  if (value === null || typeof value !== 'object' || depth > 256) return value;
  if (Array.isArray(value)) return value.map((item) => cutLongStrings(item, max, clean, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const short = boundedText(clean(key), max);
    let name = short;
    for (let counter = 2; name !== key && Object.hasOwn(out, name); counter++) name = `${short} #${counter}`;
    out[name] = cutLongStrings(item, max, clean, depth + 1);
  }
  return out;
}

/**
 * `clean` remembered for the texts it has seen, for one answer that meets the same document strings many times
 * (each rebuild of a description, each finding of an enum).
 */
export function cleanedOnce(clean: (text: string) => string): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    let done = seen.get(text);
    if (done === undefined) seen.set(text, (done = clean(text)));
    return done;
  };
}

/** Most characters of JSON text `cutValue` keeps of one value the document supplies (about; strings count their length). */
export const MAX_VALUE_TEXT = 2 * MAX_TEXT;

/**
 * A copy of a value the document supplies (an enum value, a `const`, a default, an example) that an answer repeats,
 * bounded whatever its size: each string and property name cleaned by `clean` first (the key redacted before any cut,
 * so a cut never leaves a prefix of it), then cut by `boundedText` to `MAX_TEXT` characters or less; arrays and
 * objects keep their first entries while about `budget` characters remain, then end in a string
 * `"… N more items"` or a member `"…": "N more members"` (as the body view marks a cut), and past 32 levels are
 * left out the same way. A cut name that meets another gets ` #2`, ` #3`... after it. Cost is bounded by `budget`,
 * not by the value's size (issue 18: a 1 MB enum value copied into every finding made 100 MB answers).
 * @param budget About how many characters of JSON text the copy may take; default `MAX_VALUE_TEXT`.
 * @param clean Applied to every string and name before it is cut (the key redactor's `text`); default none.
 */
export function cutValue(
  value: unknown,
  budget = MAX_VALUE_TEXT,
  clean: (text: string) => string = (text) => text,
): unknown {
  const room = { left: budget };
  const within = (inner: unknown, depth: number): unknown => {
    if (typeof inner === 'string') {
      const cut = boundedText(clean(inner), Math.max(16, Math.min(MAX_TEXT, room.left)));
      room.left -= cut.length + 2;
      return cut;
    }
    room.left -= 8;
    if (inner === null || typeof inner !== 'object') return inner;
    if (Array.isArray(inner)) {
      const out: unknown[] = [];
      for (let index = 0; index < inner.length; index++) {
        if (room.left <= 0 || depth >= 32) {
          out.push(`… ${inner.length - index} more items`);
          break;
        }
        out.push(within(inner[index], depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    const names = Object.keys(inner);
    for (let index = 0; index < names.length; index++) {
      if (room.left <= 0 || depth >= 32) {
        out['…'] = `${names.length - index} more members`;
        break;
      }
      const key = names[index]!;
      const short = boundedText(clean(key), Math.max(16, Math.min(MAX_TEXT, room.left)));
      let name = short;
      for (let counter = 2; name !== key && Object.hasOwn(out, name); counter++) name = `${short} #${counter}`;
      room.left -= name.length + 3;
      out[name] = within((inner as Record<string, unknown>)[key], depth + 1);
    }
    return out;
  };
  return within(value, 0);
}

/** The response entry for a status: exact code, then `NXX`, then `default` (OpenAPI 3.0.3, Responses Object). */
export function documentedResponse(
  operation: Operation,
  status: number,
): { key: string; response: unknown } | undefined {
  return responseForStatus(operation.responses, status);
}

export function hasContent(response: unknown): boolean {
  const content = (response as { content?: unknown } | null)?.content;
  return content !== null && typeof content === 'object' && Object.keys(content).length > 0;
}

/**
 * Resolves `operation` (operationId, "METHOD /template", "METHOD /concrete/path" or a concrete path,
 * which means GET) to an operation of the document. The method is compared case-insensitively.
 * @returns The operation, or a message saying what was not found and what to give instead. Never throws.
 */
export function resolveOperation(loaded: LoadedDocument, basePrefix: string, operation: string): Operation | string {
  const resolved = resolveOperationAt(loaded, basePrefix, operation);
  // The message repeats the agent's text and the document's templates: bounded like every other string.
  return typeof resolved === 'string' ? boundedText(resolved, 2 * MAX_TEXT) : resolved;
}

export function resolveOperationAt(loaded: LoadedDocument, basePrefix: string, operation: string): Operation | string {
  const byId = loaded.operations.find((candidate) => candidate.operationId === operation);
  if (byId) return byId;
  const spaced = /^([A-Za-z]+)\s+(\/.*)$/.exec(operation.trim());
  const method = spaced ? spaced[1]!.toUpperCase() : 'GET';
  const path = spaced ? spaced[2]! : operation.trim();
  const exact = loaded.operations.find((candidate) => candidate.method === method && candidate.pathTemplate === path);
  if (exact) return exact;
  if (path.startsWith('/')) {
    const match = findOperation(loaded, basePrefix, basePrefix + path, path, method);
    if (match.operation) return match.operation;
    if (method === 'GET' || match.note) {
      const hint = repeatedPrefixHint(basePrefix, path);
      return `No ${method} operation matches ${path}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}.${hint ? ` ${hint}` : ''}`;
    }
  }
  const near = spaced
    ? undefined
    : nearestName(
        operation.trim(),
        loaded.operations.flatMap((candidate) => (candidate.operationId ? [candidate.operationId] : [])),
        MAX_NAMED_OPERATIONS,
      );
  // An SDK method name (`octokit.rest.issues.listForRepo`) or another spelling of a name resolves as find_operation
  // reads it, when that reading is sure; otherwise its best hits are the suggestions.
  const found = near ? undefined : findOperations(loaded, operation, { limit: 3 });
  const sure = found && found.kind !== 'text' && found.hits[0]?.confidence === 'high' ? found.hits[0] : undefined;
  if (sure) {
    const hit = loaded.operations.find(
      (candidate) => candidate.method === sure.method && candidate.pathTemplate === sure.path,
    );
    if (hit) return hit;
  }
  const suggested = found?.hits.map((hit) => hit.operationId ?? `${hit.method} ${hit.path}`) ?? [];
  return `No operation \`${operation}\` in the document${near ? ` (did you mean ${near}?)` : suggested.length ? ` (closest: ${suggested.join(', ')})` : ''}: ${nameExamples(documentExamples(loaded))}.`;
}

/** What a name may be, with the document's own examples when it has them (issue 17). */
function nameExamples(examples: DocumentExamples | undefined): string {
  if (!examples) return 'give an operationId, "METHOD /path/{template}" or a concrete path';
  return `give an operationId such as ${examples.operationId}, "${examples.key}" or a concrete path such as ${examples.paths[0]}`;
}

/** Operation ids compared for "did you mean": a real document has a few thousand at most (GitHub: about 1,100). */
const MAX_NAMED_OPERATIONS = 5000;

/** Folds a name for "did you mean": lower case, without `_`, `-` and `.`. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, '');
}

/**
 * The closest of `candidates` to `name`: equal once folded (`first_name`, `firstName`), else within 2
 * edits of the folded names (`photoUrl`, `photoUrls`), for names of 4 to 64 characters (the first `limit` candidates,
 * default 500).
 * @returns The candidate as written, or undefined. Never throws.
 */
export function nearestName(name: string, candidates: string[], limit = 500): string | undefined {
  const folded = foldName(name);
  const same = candidates.find((candidate) => candidate !== name && foldName(candidate) === folded);
  if (same) return same;
  if (folded.length < 4 || name.length > 64) return undefined;
  let best: { candidate: string; distance: number } | undefined;
  // Bounded work whatever the body or document: names past 64 characters and candidates past `limit` are not compared.
  for (const candidate of candidates.slice(0, limit)) {
    if (candidate === name || candidate.length > 64) continue;
    const distance = editDistance(folded, foldName(candidate), 2);
    if (distance <= 2 && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

export type Resolved = { node: Record<string, unknown> | undefined };

/** Follows `$ref`s (at most 16 hops); `node` is undefined when one points nowhere. */
export function resolveSchema(doc: unknown, schema: unknown): Resolved {
  // A chain that loops, dangles, leaves the document or runs past the hop limit gives no node.
  const target = followedValue(doc, schema);
  return { node: isPlainObject(target) ? target : undefined };
}

/** The content entry to show: the first JSON media type, else the first. */
export function pickContent(container: unknown): { mediaType: string; schema: unknown } | undefined {
  const content = isPlainObject(container) ? container.content : undefined;
  if (!isPlainObject(content)) return undefined;
  const keys = Object.keys(content);
  const key = keys.find((candidate) => isJsonMediaType(candidate)) ?? keys[0];
  if (key === undefined) return undefined;
  const entry = content[key];
  return { mediaType: key, schema: isPlainObject(entry) ? entry.schema : undefined };
}

/**
 * Matches a probed GET to an operation: the whole request path first (the document's base path, from
 * `servers` or `basePath`, stripped), then the path relative to API_BASE_URL as it is, for a document
 * without a matching base path. Never strips twice: `/v1` + `/v1/x` is `/v1/v1/x`, not `/x`.
 * @param basePrefix The path prefix of API_BASE_URL without a trailing slash (`/v2`, or `''`).
 * @param requestPath The whole path requested (`/v2/meters/1`); `relativePath` the part after the prefix (`/meters/1`).
 * @param method The request method, default `GET` (compared case-insensitively).
 * @returns The path match; never throws.
 */
export function findOperation(
  loaded: LoadedDocument,
  basePrefix: string,
  requestPath: string,
  relativePath: string,
  method = 'GET',
): PathMatch {
  const prefix = basePrefix;
  const whole = matchOperation(loaded, method, requestPath);
  if (whole.operation) {
    // Stripping the base URL's own prefix is the normal case, not worth a note.
    const note = whole.note
      ?.split('; ')
      .filter((part) => part !== `base path ${prefix} stripped`)
      .join('; ');
    return { ...whole, note: note || undefined };
  }
  if (prefix === '') return whole;
  const relative = matchOperation(loaded, method, relativePath, { stripBasePaths: false });
  return relative.operation ? relative : whole;
}
