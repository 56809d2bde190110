/**
 * Path matching: which operation of the document a concrete request path belongs to, through the server URLs'
 * base paths and the path templates (OpenAPI 3.x Paths Object: literal templates before templated ones), with the
 * path parameters it binds, or the nearest templates when none matches.
 */
import { editDistance, safeDecode } from '../shared/text.ts';
import { isPlainObject } from '../shared/values.ts';
import type { LoadedDocument, Operation } from './model.ts';
import { followWith, memoLookup } from './refs.ts';
import { trimSlash } from '../shared/url-path.ts';

// One segment of a path template (or, with only `literal` and `mixed`, of a server URL's path).
// `mixed` holds literal text and parameters in one segment (`{name}.json`, `{from}-{to}`): `literals`
// has one entry more than `names` (the text before, between and after the parameters, possibly '').
// `multi` is a whole-segment parameter marked `x-multi-segment: true` (GitHub's extension).
// `marks` gives, per parameter of a mixed segment, the text its value starts with in its style: `.` for `label`,
// `;name` for `matrix` (RFC 6570 §3.2.5, §3.2.7), so `{x}{y}` splits `;x=1;y=2` where `;y` begins.
type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  | { kind: 'multi'; name: string }
  | { kind: 'mixed'; literals: string[]; names: string[]; literalChars: number; marks?: (string | undefined)[] };

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
function matchPieces(literals: string[], raw: string, marks?: (string | undefined)[]): string[] | undefined {
  const slots = literals.length - 1;
  const head = literals[0];
  const tail = literals[slots];
  if (!raw.startsWith(head) || !raw.endsWith(tail)) return undefined;
  const end = raw.length - tail.length;
  const captures: string[] = [];
  let position = head.length;
  for (let k = 0; k < slots; k++) {
    // A label or matrix value starts with its mark (`.`, `;name`).
    if (marks?.[k] !== undefined && !raw.startsWith(marks[k]!, position)) return undefined;
    if (k === slots - 1) {
      if (end - position < 1) return undefined;
      captures.push(raw.slice(position, end));
      break;
    }
    const next = literals[k + 1];
    const mark = next === '' ? marks?.[k + 1] : undefined;
    const stop =
      mark !== undefined
        ? raw.indexOf(mark, position + 1)
        : next === ''
          ? position + 1
          : raw.indexOf(next, position + 1);
    if (stop < 0 || stop + next.length > end) return undefined;
    captures.push(raw.slice(position, stop));
    position = stop + next.length;
  }
  return captures;
}

/** The text a path parameter's value starts with in its style: `.` (label), `;name` (matrix); undefined for simple. */
function markOf(name: string, style: string | undefined): string | undefined {
  if (style === 'label') return '.';
  if (style === 'matrix') return `;${encodeURIComponent(name)}`;
  return undefined;
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
    if (isPlainObject(server) && typeof server.url === 'string')
      bases.push(...expandServerUrl(server.url, server.variables));
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
    const listed =
      isPlainObject(variable) && Array.isArray(variable.enum) ? variable.enum.filter(plain).map(String) : [];
    let values: string[];
    if (listed.length > 0) {
      values = [...new Set(fallback === undefined ? listed : [fallback, ...listed])];
    } else if (
      (fallback === undefined || (fallback !== '' && !fallback.includes('/'))) &&
      wildcardDefaults.length < MAX_WILDCARDS
    ) {
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
  for (const values of choices)
    texts = values.length === 1 ? texts.map((t) => t + values[0]) : texts.flatMap((t) => values.map((v) => t + v));
  const bases: BasePath[] = [];
  for (const text of texts) {
    const cut = text.search(/[?#]/);
    const withoutQuery = cut < 0 ? text : text.slice(0, cut);
    const authority = /^(?:[A-Za-z\ue000-\uf8ff][A-Za-z0-9+.\ue000-\uf8ff-]*:)?\/\/[^/]*/.exec(withoutQuery);
    const path = trimSlash(authority ? withoutQuery.slice(authority[0].length) : withoutQuery);
    if (path === '' || path === '/') continue;
    const segments = splitPath(path.startsWith('/') ? path : '/' + path).map((segment): BaseSegment => {
      const literals = segment.split(PRIVATE_USE);
      const defaults = [...segment.matchAll(PRIVATE_USE)].map(
        (m) => wildcardDefaults[m[0].charCodeAt(0) - WILDCARD_FIRST],
      );
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
  const rootBases =
    doc.version === '2.0'
      ? isPlainObject(root) && typeof root.basePath === 'string'
        ? expandServerUrl(root.basePath.replace(/[{}]/g, ''), {})
        : []
      : isPlainObject(root)
        ? (basesOfServers(root.servers) ?? [])
        : [];
  const allBases = new Map<string, BasePath>();
  const lookup = memoLookup();
  const byKey = new Map<string, Route>();
  for (const op of doc.operations) {
    const item = Object.prototype.hasOwnProperty.call(paths, op.pathTemplate)
      ? followWith(root, paths[op.pathTemplate], lookup).value
      : undefined;
    const raw = isPlainObject(item) ? item[op.method.toLowerCase()] : undefined;
    // Multi-segment path parameters: the path item's, then the operation's own (same name wins).
    const multi = new Map<string, boolean>();
    const styles = new Map<string, string>();
    for (const list of [
      isPlainObject(item) ? item.parameters : undefined,
      isPlainObject(raw) ? raw.parameters : undefined,
    ]) {
      for (const entry of Array.isArray(list) ? list : []) {
        const parameter = followWith(root, entry, lookup).value;
        if (isPlainObject(parameter) && parameter.in === 'path' && typeof parameter.name === 'string') {
          multi.set(parameter.name, parameter['x-multi-segment'] === true);
          if (typeof parameter.style === 'string') styles.set(parameter.name, parameter.style);
        }
      }
    }
    const segments = splitPath(op.pathTemplate).map(compileSegment);
    let marked = '';
    for (const segment of segments) {
      if (segment.kind !== 'mixed') continue;
      const marks = segment.names.map((name) => markOf(name, styles.get(name)));
      if (marks.some((mark) => mark !== undefined)) {
        segment.marks = marks;
        marked += ` ${marks.join(',')}`;
      }
    }
    let multiAt = -1;
    // One multi-segment parameter per template: the last one, so a template may end in an empty one.
    for (let i = segments.length - 1; i >= 0 && multiAt < 0; i--) {
      const segment = segments[i];
      if (segment.kind === 'param' && multi.get(segment.name) === true) {
        segments[i] = { kind: 'multi', name: segment.name };
        multiAt = i;
      }
    }
    const key = `${multiAt}${marked} ${op.pathTemplate}`;
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
    const bases =
      (doc.version === '2.0'
        ? undefined
        : (basesOfServers(isPlainObject(raw) ? raw.servers : undefined) ??
          basesOfServers(isPlainObject(item) ? item.servers : undefined))) ?? rootBases;
    for (const base of bases) allBases.set(base.key, base);
    route.bases.set(method, new Set(bases.map((b) => b.key)));
  }
  const routes = [...byKey.values()].sort(compareRoutes);
  const bases = [...allBases.values()].sort(
    (a, b) => b.segments.length - a.segments.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const matcher: Matcher = {
    routes,
    bases,
    longest: routes.reduce((n, r) => Math.max(n, r.segments.length), 0),
    bySegmentCount: new Map(),
  };
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
type RouteMatch = {
  params: Record<string, string>;
  raw: Record<string, string>;
  malformed: string[];
  notes: string[];
};

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
  const raw: Record<string, string> = {};
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
        raw[segment.name] = '';
        notes.push(`path parameter ${JSON.stringify(segment.name)} is empty`);
        continue;
      }
      // One or more non-empty segments, slashes kept; each segment decoded on its own.
      if (taken.some((v) => v.raw === '')) return undefined;
      params[segment.name] = taken.map((v) => v.decoded ?? v.raw).join('/');
      raw[segment.name] = taken.map((v) => v.raw).join('/');
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
      raw[segment.name] = value.raw;
      if (value.decoded === undefined) malformed.push(value.raw);
    } else {
      // Match the raw segment, so an encoded delimiter (%2D for '-') stays data; decode each capture.
      const captures = matchPieces(segment.literals, value.raw, segment.marks);
      if (!captures) return undefined;
      segment.names.forEach((name, k) => {
        const decoded = safeDecode(captures[k]);
        params[name] = decoded ?? captures[k];
        raw[name] = captures[k];
        if (decoded === undefined) malformed.push(captures[k]);
      });
    }
  }
  return { params, raw, malformed, notes };
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
    // From '' the distance is the length: no table for each of a long path's segments past the template's.
    const value = v ? text(v).slice(0, 64) : undefined;
    edits +=
      value === undefined
        ? Math.max(literal.length, 1)
        : literal === ''
          ? value.length
          : editDistance(literal.slice(0, 64), value);
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
  const labels = scored.map(
    ({ route }) => `${route.ops.has(method) ? method : [...route.ops.keys()][0]} ${route.template}`,
  );
  return [...new Set(labels)].slice(0, 3);
}

/**
 * Result of matchOperation: the operation with decoded path parameters (`params`) and the same values as
 * written in the path, still percent-encoded (`rawParams`, for reading them by style), or `operation: undefined`
 * with up to 3 nearest `METHOD /template` (all of the path's methods when only the method differs).
 * `note` explains a fallback (trailing slash, base path stripped, malformed percent-encoding, an empty
 * multi-segment parameter).
 */
export type PathMatch =
  | { operation: Operation; params: Record<string, string>; rawParams: Record<string, string>; note?: string }
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
 * each parameter before the last taking the shortest non-empty value, or for a `label` or `matrix` parameter
 * (OpenAPI 3.x `style`) the text from its mark (`.`, `;name`) to the next one, so `{x}{y}` in matrix style reads
 * `;x=1;y=2` as `;x=1` and `;y=2` (RFC 6570 §3.2.5, §3.2.7). A whole-segment parameter that
 * the operation or its path item marks `x-multi-segment: true` (GitHub's extension; also through a
 * `$ref` to `components/parameters`) takes one or more non-empty segments, slashes kept, or an empty
 * value where the template ends in it (note `path parameter "path" is empty`); one per template, the
 * last. The method is compared case-insensitively; `*` takes the most specific template that matches whatever
 * its methods (its GET if it has one, else its first method in document order), as a path without a method asks.
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
        const prefix =
          '/' +
          values
            .slice(0, depth)
            .map((v) => v.raw)
            .join('/');
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
      const method = wanted === '*' ? (route.ops.has('GET') ? 'GET' : route.ops.keys().next().value) : wanted;
      const operation = method === undefined ? undefined : route.ops.get(method);
      if (!operation) {
        methodMiss ??= route;
        continue;
      }
      const allowed = route.bases.get(method!);
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
        notes.push(
          `malformed percent-encoding in ${[...new Set(found.match.malformed)].map((m) => JSON.stringify(m)).join(', ')}; raw value kept`,
        );
      }
      const note = notes.filter((n) => n !== undefined).join('; ');
      const { params, raw } = found.match;
      return note
        ? { operation: found.operation, params, rawParams: raw, note }
        : { operation: found.operation, params, rawParams: raw };
    }
  }
  if (methodMiss) {
    const template = methodMiss.template;
    const methods = [
      ...new Set(matcher.routes.filter((r) => r.template === template).flatMap((r) => [...r.ops.keys()])),
    ];
    return {
      operation: undefined,
      nearest: methods.map((m) => `${m} ${template}`),
      note: `${template} matches the path but documents no ${wanted}; it documents ${methods.join(', ')}`,
    };
  }
  // A base stripped through a variable's non-default value fits nearly any path: it would only add noise.
  return {
    operation: undefined,
    nearest: nearestOperations(
      matcher,
      wanted,
      [...strong, asGiven].map((r) => r.path),
    ),
  };
}
