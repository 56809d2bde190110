// Schema checks for openapi-probe: `$ref` resolution, findings. No MCP, no HTTP.
//
// Works on a parsed OpenAPI document (Swagger 2.0, OpenAPI 3.0.x, OpenAPI 3.1.x) whose `$ref`s resolve inside the
// same document: JSON Pointers (RFC 6901), and in 3.1 also `$id`s, `$anchor`s and `$dynamicAnchor`s of embedded schema
// resources (JSON Schema 2020-12 §8.2). A `$ref` that leaves the document yields an `unresolvedRef` finding; nothing
// is ever fetched.
import { compilePattern } from './src/schema/pattern.ts';
import { stringFormatProblem } from './src/schema/formats.ts';
import { equalsWrittenNumber, isWrittenInteger, numberProblems, shownText } from './src/schema/numbers.ts';
import { decimalOfParsed, formatDecimal } from './src/shared/decimal.ts';
import { escapePointerToken, lookupPointer, unescapePointerToken } from './src/shared/json-pointer.ts';
import {
  baseAt,
  follow,
  MAX_KEPT_BASES,
  MAX_REF_HOPS,
  resolveSchemaRef,
  responseForStatus,
  schemaIndex,
} from './src/document/refs.ts';
import type { SchemaIndex, SchemaRefLookup } from './src/document/refs.ts';
import { operationsOf } from './src/document/operations.ts';
import { pickMediaType } from './src/shared/media-type.ts';

import { MAX_PATH_SEGMENT, instancePath } from './src/shared/json-pointer.ts';
import { boundedText, codePoints } from './src/shared/text.ts';
import { isPlainObject } from './src/shared/values.ts';

/** How much a finding matters; the table is `SEVERITY`. */
export type Severity = 'error' | 'warning' | 'info';
/** What a finding is about; see `SEVERITY` for each kind's severity. */
export type FindingKind =
  | 'missing'
  | 'wrongType'
  | 'undocumented'
  | 'enum'
  | 'constraint'
  | 'format'
  | 'writeOnly'
  | 'readOnly'
  | 'undocumentedStatus'
  | 'unresolvedRef'
  | 'notChecked';
/** One reported discrepancy between a body and the document. */
export type Finding = {
  kind: FindingKind;
  severity: Severity;
  path: string; // instance path of the field itself: '$.lastReading', '$[0].title', "$['x-id']"
  schemaPath: string; // the rule after $ref resolution: '#/components/schemas/Meter/required'
  expected?: string; // wrongType: 'string or null', 'integer', 'array or null'
  actual?: string; // wrongType: 'integer' | 'number' | 'string' | 'boolean' | 'null' | 'object' | 'array'
  allowed?: unknown[]; // enum (and const, as a one-element list); at most SHOWN_VALUES values, the enum's first
  allowedMore?: number; // enum: how many further allowed values `allowed` leaves out (issue 8)
  keyword?: string; // constraint: 'maxLength', 'minimum', 'pattern', ...; format: 'date-time' etc
  message: string; // agent-facing sentence, e.g. 'is required but missing'
};
/** Options of `check` and `fieldPresence`. */
export type CheckOptions = {
  direction?: 'response' | 'request'; // default 'response': readOnly/writeOnly scoping (OAS 3.0.3 Schema Object)
  at?: string; // schema path of the `schema` argument, default '#'
  maxSteps?: number; // schema applications before the check stops, default DEFAULT_MAX_STEPS (measurePresence: declared fields listed)
  timeoutMs?: number; // milliseconds before the check stops, default DEFAULT_CHECK_TIMEOUT_MS
  spent?: { steps: number }; // the schema applications this check used are added here (a budget shared by several checks)
  inexactNumbers?: InexactNumbers; // numbers JSON parsing changed (RFC 8259 §6): checked as written, or not checked
  clean?: (text: string) => string; // applied to the document text a message quotes before it is cut (the key redactor's `text`)
};
/**
 * Where the body's JSON text held numbers that JSON parsing changed (RFC 8259 §6: past 2^53, out of range, more
 * digits than a double holds), as instance paths (`$.id`). `texts`: the number as written at each path
 * (`9223372036854775807`), checked exactly against `type`, `maximum`, `minimum`, `exclusiveMaximum`,
 * `exclusiveMinimum`, `multipleOf`, `enum`, `const` and `int32` / `int64` (src/schema/numbers.ts). `paths`: changed
 * numbers whose text is not known: those keywords are `notChecked` there (9007199254740993 parses as
 * 9007199254740992); `type` is `notChecked` there when only `integer` could decide it. `unlisted`: some were not
 * listed, so every number not listed counts as one whose text is unknown (any of them may have changed).
 */
export type InexactNumbers = { paths: ReadonlySet<string>; unlisted: boolean; texts?: ReadonlyMap<string, string> };

/** Default step budget of one check: schema applications (`$ref`, property, branch) before it stops. */
export const DEFAULT_MAX_STEPS = 200_000;
/**
 * Default time limit of one check, in milliseconds, and the last guard of every check budget in the contract layer:
 * only against a stalled thread, so the step budget always decides and the same input gives the same findings on a
 * busy machine and a quiet one (issue 15). Measured on the 10,000-`$id` web (tests/validate.test.ts) under tsx on
 * Node 20, two cores shared with load 13: 200,000 steps (`DEFAULT_MAX_STEPS`) took 3.3 to 4.3 s, 400,000 (the
 * largest budget, `SAMPLE_CHECK_STEPS` in src/contract/sample.ts) 6.7 to 8.4 s; the guard is about ten times that.
 * The check worker's deadline (src/jobs/check-worker.ts) sits above it.
 */
export const DEFAULT_CHECK_TIMEOUT_MS = 90_000;
/** The budget options of `checkResponse` / `checkRequestBody` (see `CheckOptions`). */
export type CheckBudget = {
  maxSteps?: number;
  timeoutMs?: number;
  inexactNumbers?: InexactNumbers;
  clean?: (text: string) => string;
};
/** Where a body schema was found in the document. */
export type ResponseTarget = {
  schema: unknown; // the schema object found (may be a {$ref})
  schemaPath: string; // its JSON Pointer, e.g. '#/paths/~1meters~1{id}/get/responses/200/content/application~1json/schema'
  statusKey: string; // the responses key used: '200' | '2XX' | 'default'; 'requestBody' for request bodies
  mediaType?: string; // the content key used (3.x)
};
/** Result of `checkResponse` / `checkRequestBody`. */
export type ResponseCheck = {
  validated: boolean; // false when there was nothing to check against
  reason?: string; // why not validated, agent-facing
  target?: ResponseTarget;
  findings: Finding[]; // includes {kind: 'undocumentedStatus'} when no exact/range/default entry covers the status
};
/** One row of `fieldPresence`: `text` reads 'present in 2 of 3'. */
export type FieldPresence = {
  path: string;
  required: boolean;
  documented: boolean;
  present: number;
  of: number;
  text: string;
};

/**
 * Severity of each finding kind. `error`: the body breaks an assertion the document makes about types,
 * presence, allowed values or lengths, ranges and patterns, or the status is not documented at all (an
 * undocumented field under `additionalProperties: false` is an error too). `warning`: worth a look but
 * often a document gap rather than an API bug (an undocumented field of an open object, a leaked
 * writeOnly / sent readOnly field, a `$ref` that could not be followed, a part the check could not
 * cover: `notChecked`, which also makes `checkResponse` answer `validated: false`). `info`: `format`, an annotation
 * by default in JSON Schema 2020-12 (section 7.2).
 */
export const SEVERITY = {
  missing: 'error',
  wrongType: 'error',
  enum: 'error',
  undocumentedStatus: 'error',
  constraint: 'error',
  undocumented: 'warning',
  writeOnly: 'warning',
  readOnly: 'warning',
  unresolvedRef: 'warning',
  notChecked: 'warning',
  format: 'info',
} as const satisfies Record<FindingKind, Severity>;

/** One step of an instance path: a property name or an array index. */
type Segment = string | number;
export type JsonObject = Record<string, unknown>;
/** The schema dialect of a document: Swagger 2.0, OpenAPI 3.0 (its Schema Object), or OpenAPI 3.1 / JSON Schema 2020-12. */
export type Dialect = '2.0' | '3.0' | '3.1';
type Direction = 'response' | 'request';
/**
 * One check's state. `active`: `$ref` + instance location pairs being evaluated (cycle cut); `depth`:
 * nested `$ref` entries; `steps` / `maxSteps` / `deadline` (performance.now() ms): the budget, and
 * `stopped` the reason once it ran out; `memo`: results per value, then per `$ref` + instance location +
 * mode, so the same subschema on the same value is evaluated once (issue 8: `anyOf: [S, S]` nesting).
 */
type Context = {
  doc: JsonObject;
  dialect: Dialect;
  direction: Direction;
  active: Set<string>;
  depth: number;
  steps: number;
  maxSteps: number;
  started: number;
  deadline: number;
  stopped?: string;
  memo: Map<unknown, Map<string, InternalFinding[]>>;
  ids: Map<object, number>;
  dispatching: Set<string>; // base schema + instance location whose discriminator already picked a subtype
  locations: Map<Segment[], string>; // instance locations as memo keys, per segments array
  quick?: Quick; // the quick pass's state, reused by each of its runs in this check
  enums?: Set<unknown[]>; // enums whose values were charged to this check's step budget (issue 8)
  inexact?: InexactNumbers; // numbers JSON parsing changed (issue 8)
  clean?: (text: string) => string; // the key redactor's `text`, for document text a message quotes (issue 18)
  quoted?: Map<unknown, string>; // document values as `quoted` showed them, each cleaned once
  index: SchemaIndex; // the document's `$id` resources and anchors (JSON Schema 2020-12 §8.2)
  refs: Map<string, SchemaRefLookup>; // each `$ref` resolved once per document (the index keeps them), by base URI and reference (an array of N items repeats it N times)
  scope?: string[]; // the dynamic scope (§7.1): resource URIs entered, outermost first; only where `$dynamicAnchor`s exist
  evaluating: Set<string>; // `$ref` target + instance location pairs `evaluatedOf` is inside (cycle cut)
};
/** A schema and its schema path (JSON Pointer after `$ref`). */
type SchemaLocation = { schema: unknown; schemaPath: string };
/** The union of what a schema and its allOf branches document about one object (see `collect`). */
type Documented = {
  names: Map<string, SchemaLocation[]>;
  patterns: { test: NameTest; loc: SchemaLocation }[];
  additional: SchemaLocation[]; // additionalProperties schemas (a documented map)
  open: boolean; // additionalProperties true or a schema: any key is documented
  declares: boolean; // properties/patternProperties/additionalProperties:false seen: keys are checked
  closedAt?: string; // schema path of an additionalProperties:false
  unevaluated?: boolean; // unevaluatedProperties seen: it judges the keys left, none is undocumented but by closedAt
  required: Set<string>;
  writeOnly?: Map<string, string | null>; // `scopedFlag` per name in responses, filled on first use
  readOnly?: Map<string, string | null>; // the same in requests
  tooDeep?: string; // schema path where allOf/oneOf/anyOf nest deeper than MAX_REF_DEPTH: left open there
  conditional?: boolean; // collected without the value: `if` or `dependentSchemas` decide what else is documented
};
/**
 * How a schema is applied at one instance location. `owner`: this schema owns the location and reports
 * its undocumented / writeOnly / readOnly fields (a property's schema, the root; not an allOf branch or a
 * `$ref` sibling, which only assert). `extra`: what enclosing schemas document beside oneOf/anyOf
 * branches, merged into each branch's own union. `union`: the documented union already computed by the
 * owner, passed to allOf branches so they check `required` scoping against the whole composition.
 */
type Mode = { owner: boolean; extra?: Documented; union?: Documented };
/** A finding with its instance path as segments, for sorting before `path` is printed. */
type InternalFinding = Finding & { segments: Segment[] };

// Nesting limits that keep the walk within the default stack: deeper parts are reported as `notChecked`.
const MAX_REF_DEPTH = 256;
const MAX_INSTANCE_DEPTH = 256;

// ---------------------------------------------------------------- small helpers

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** JSON type of a value as findings report it; integral numbers are 'integer' (JSON Schema 2020-12 §6.1.1). */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, boolean (undefined, function, bigint: not JSON)
}

/** Whether any of the type names admits the value (a loop, not a closure: this runs for every schema applied). */
function anyTypeMatches(types: string[], v: unknown, written?: string): boolean {
  for (const t of types) if (matchesType(t, v, written)) return true;
  return false;
}

/** Whether a name matches (or may match) one of the patternProperties tests of a documented union. */
function patternCovers(patterns: Documented['patterns'], name: string): boolean {
  for (const p of patterns) if (p.test(name) !== false) return true;
  return false;
}

function matchesType(t: string, v: unknown, written?: string): boolean {
  if (written !== undefined && (t === 'integer' || t === 'number'))
    return t === 'number' || isWrittenInteger(written) === true;
  switch (t) {
    case 'null':
      return v === null;
    case 'boolean':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true; // unknown type names (Swagger 2.0 'file') constrain nothing here
  }
}

function canonicalOf(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalOf).join(',')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalOf(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** JSON text with sorted keys, for equality; data too deep for the stack gets a unique key (compares unequal). */
function canonical(v: unknown): string {
  try {
    return canonicalOf(v);
  } catch {
    return `\u0000deep${Math.random()}`;
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  return canonical(a) === canonical(b);
}

function orList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Most values of a schema's list (`enum`, discriminator names) a finding lists or quotes (issue 8). */
const SHOWN_VALUES = 20;

/**
 * A value as JSON for a message, at most 80 characters. Arrays past `SHOWN_VALUES` entries show the first ones
 * and `… N more`; only a bounded prefix of a long string or a big structure is stringified (issue 8).
 */
function show(v: unknown, clean?: (text: string) => string): string {
  // Cleaned, the text is read far past what is shown, so a key that begins in the shown part is whole when cleaned.
  const limit = clean ? QUOTED_TEXT : 200;
  let shown = v;
  if (typeof v === 'string' && v.length > limit) shown = v.slice(0, limit);
  else if (Array.isArray(v) && v.length > SHOWN_VALUES) shown = v.slice(0, SHOWN_VALUES);
  let s = boundedJson(shown, limit);
  if (clean) s = clean(s);
  if (Array.isArray(v) && v.length > SHOWN_VALUES) s = `${s.slice(0, -1)},… ${v.length - SHOWN_VALUES} more]`;
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** How much of a document value's JSON text `quoted` cleans before `show` cuts it to 80 characters. */
const QUOTED_TEXT = 4096;

/**
 * A document value (an enum, a const, a pattern, a discriminator's names) as `show` writes it in a message, the key
 * redactor's `clean` applied before the cut (issue 18: a cut after 77 characters left a prefix of a key written in
 * the document, which no later redaction can recognise). Each value is cleaned once per check.
 */
function quoted(ctx: Context, v: unknown): string {
  if (!ctx.clean) return show(v);
  const cache = (ctx.quoted ??= new Map());
  let text = cache.get(v);
  if (text === undefined) cache.set(v, (text = show(v, ctx.clean)));
  return text;
}

/** JSON text of a value, cut after about `limit` characters without stringifying the rest. */
function boundedJson(v: unknown, limit: number): string {
  if (Array.isArray(v) || isPlainObject(v)) {
    let out = Array.isArray(v) ? '[' : '{';
    let first = true;
    for (const key of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      if (out.length > limit) return `${out}...`;
      const item = (v as Record<string | number, unknown>)[key];
      out +=
        (first ? '' : ',') +
        (Array.isArray(v) ? '' : `${JSON.stringify(key)}:`) +
        boundedJson(item, limit - out.length);
      first = false;
    }
    return out + (Array.isArray(v) ? ']' : '}');
  }
  if (typeof v === 'string' && v.length > limit) return JSON.stringify(v.slice(0, limit));
  return JSON.stringify(v) ?? String(v);
}

const enumKeys = new WeakMap<unknown[], Set<string>>();

/** A key equal for deep-equal JSON values (`deepEqual`), for looking values up in an enum. */
function enumKey(v: unknown): string {
  if (typeof v === 'string') return `s${v}`;
  if (v !== null && typeof v === 'object') return `o${canonical(v)}`;
  return `${typeof v}${String(v)}`;
}

/**
 * Whether `value` is one of the enum's values (deep equality). Each enum costs its length in steps of the
 * check's budget the first time the check meets it (issue 8); lookups then cost
 * one step. @returns undefined when the budget ran out (`ctx.stopped` says so).
 */
function inEnum(ctx: Context, list: unknown[], value: unknown): boolean | undefined {
  const enums = (ctx.enums ??= new Set());
  if (!enums.has(list)) {
    enums.add(list);
    ctx.steps += list.length;
    if (ctx.steps > ctx.maxSteps) {
      ctx.stopped = `it ran out of its step budget (${ctx.maxSteps} schema applications; an enum of ${list.length} values counts one per value)`;
      return undefined;
    }
  }
  if (list.length <= SHOWN_VALUES) {
    for (const e of list) if (deepEqual(e, value)) return true;
    return false;
  }
  let keys = enumKeys.get(list);
  if (!keys) enumKeys.set(list, (keys = new Set(list.map(enumKey))));
  return keys.has(enumKey(value));
}

/** The `allowed` / `allowedMore` fields of an enum finding: the first `SHOWN_VALUES` values and how many more. */
function allowedOf(list: unknown[]): Partial<Finding> {
  return list.length > SHOWN_VALUES
    ? { allowed: list.slice(0, SHOWN_VALUES), allowedMore: list.length - SHOWN_VALUES }
    : { allowed: list };
}

export function compareSegments(a: Segment[], b: Segment[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The dialect a document's schemas are read in: `openapi: 3.0.x` is 3.0, any other `openapi` 3.1, `swagger: 2.x` 2.0,
 * anything else (plain JSON Schema, such as `inferShape` output) 3.1 (OpenAPI 3.0.3, 4.4; 3.1.0, 4.3.1).
 */
export function dialectOf(doc: JsonObject): Dialect {
  const oa = doc.openapi;
  if (typeof oa === 'string' && oa.startsWith('3.0')) return '3.0';
  if (typeof oa === 'string') return '3.1';
  if (typeof doc.swagger === 'string' && doc.swagger.startsWith('2')) return '2.0';
  return '3.1'; // plain JSON Schema (e.g. inferShape output) reads as 2020-12
}

function makeFinding(
  kind: FindingKind,
  segments: Segment[],
  schemaPath: string,
  message: string,
  extra?: Partial<Finding>,
): InternalFinding {
  // A schema path names the document's own keys, which may be as long as the document allows: cut like a path.
  return {
    kind,
    severity: SEVERITY[kind],
    path: instancePath(segments),
    schemaPath: boundedText(schemaPath, 2 * MAX_PATH_SEGMENT),
    ...extra,
    message,
    segments,
  };
}

/** `unique`'s key of each finding, made once. */
const findingKeys = new WeakMap<InternalFinding, string>();

/** Whether two findings are the same for `unique`: kind, instance path, schema path and message. */
function sameFinding(a: InternalFinding, b: InternalFinding): boolean {
  return (
    a === b || (a.kind === b.kind && a.path === b.path && a.schemaPath === b.schemaPath && a.message === b.message)
  );
}

function unique(list: InternalFinding[]): InternalFinding[] {
  if (list.length < 2) return list;
  if (list.length <= 16) {
    // Few findings (the usual case): compared field by field, no key strings built and hashed. The first
    // of equal findings is kept; equality is transitive, so comparing with every earlier one is enough.
    let kept: InternalFinding[] | undefined;
    for (let i = 1; i < list.length; i++) {
      let duplicate = false;
      for (let j = 0; j < i && !duplicate; j++) duplicate = sameFinding(list[j]!, list[i]!);
      if (duplicate) kept ??= list.slice(0, i);
      else if (kept !== undefined) kept.push(list[i]!);
    }
    return kept ?? list;
  }
  const seen = new Set<string>();
  const kept: InternalFinding[] = [];
  for (const finding of list) {
    // A finding met again at each enclosing level keeps its key string (and the string its hash).
    let key = findingKeys.get(finding);
    if (key === undefined)
      findingKeys.set(
        finding,
        (key = `${finding.kind}\u0000${finding.path}\u0000${finding.schemaPath}\u0000${finding.message}`),
      );
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(finding);
  }
  return kept.length === list.length ? list : kept;
}

function finish(list: InternalFinding[]): Finding[] {
  const seen = new Set<string>();
  const unique: InternalFinding[] = [];
  for (const f of list) {
    const key = `${f.kind}\u0000${f.path}\u0000${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(f);
  }
  unique.sort((a, b) => compareSegments(a.segments, b.segments) || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  return unique.map(({ segments: _segments, ...f }) => {
    void _segments;
    return f;
  });
}

/**
 * Whether a finding is a failed assertion (JSON Schema sense), used to decide whether a subschema matches
 * (not, if, contains, propertyNames, oneOf/anyOf branches). Annotations (format), writeOnly/readOnly
 * scoping and undocumented keys of an open object are reports, not failures.
 */
function fails(f: Finding): boolean {
  return (
    f.kind === 'missing' ||
    f.kind === 'wrongType' ||
    f.kind === 'enum' ||
    f.kind === 'constraint' ||
    (f.kind === 'undocumented' && /\/(additionalProperties|unevaluatedProperties)$/.test(f.schemaPath))
  );
}

/** Whether a finding says a part of the value could not be checked (a budget, a pattern, a `$ref` that could not be followed): it decides nothing. */
function undecided(f: Finding): boolean {
  return f.kind === 'notChecked' || f.kind === 'unresolvedRef';
}

/**
 * A subschema applied as an assertion of its own beside its parent (`then`, `else`, `dependentSchemas`:
 * JSON Schema 2020-12, 10.2.2): it owns the instance, so `additionalProperties: false` at its root judges
 * the keys it declares (10.3.2.3). Its reports about this location's own keys that are no failure
 * (undocumented keys of an open object, readOnly, writeOnly) stay the parent's, which judges the keys on
 * its own union.
 */
/** Whether a finding is a report about a key of this location that is no failure (undocumented, readOnly, writeOnly). */
function ownReport(f: InternalFinding, segments: Segment[]): boolean {
  return (
    f.segments.length === segments.length + 1 &&
    (f.kind === 'writeOnly' || f.kind === 'readOnly' || (f.kind === 'undocumented' && !fails(f)))
  );
}

function evalAssertion(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
): InternalFinding[] {
  const found = evalSchema(ctx, schema, schemaPath, value, segments, { owner: true });
  return found.filter((f) => !ownReport(f, segments));
}

function addHint(list: InternalFinding[], segments: Segment[], kind: FindingKind, hint: string): InternalFinding[] {
  const at = instancePath(segments);
  return list.map((f) =>
    f.kind === kind && f.path === at && !f.message.includes(hint) ? { ...f, message: f.message + hint } : f,
  );
}

// ---------------------------------------------------------------- documented union

function emptyDocumented(): Documented {
  return { names: new Map(), patterns: [], additional: [], open: false, declares: false, required: new Set() };
}

/** Merged unions by their two parts, so a oneOf/anyOf met again reuses its branches' unions. */
const mergedCache = new WeakMap<Documented, WeakMap<Documented, Documented>>();

function mergeDocumented(ctx: Context, schemaPath: string, a: Documented | undefined, b: Documented): Documented {
  if (!a) return b;
  let byB = mergedCache.get(a);
  if (!byB) mergedCache.set(a, (byB = new WeakMap()));
  let known = byB.get(b);
  if (!known) {
    // The copy costs its length: one step per 8 declarations copied, so a union of a 10,000-schema web is counted.
    spendStep(ctx, schemaPath, Math.ceil((sizeOf(a) + sizeOf(b)) / 8));
    byB.set(b, (known = mergeTwo(a, b)));
  }
  return known;
}

/** How many declarations a union holds: names' locations, patterns, additional schemas and required names. */
function sizeOf(documented: Documented): number {
  let size = documented.patterns.length + documented.additional.length + documented.required.size;
  for (const list of documented.names.values()) size += list.length;
  return size;
}

function mergeTwo(a: Documented, b: Documented): Documented {
  const names = new Map(a.names);
  for (const [k, v] of b.names) names.set(k, [...(names.get(k) ?? []), ...v]);
  return {
    names,
    patterns: [...a.patterns, ...b.patterns],
    additional: [...a.additional, ...b.additional],
    open: a.open || b.open,
    ...(a.unevaluated || b.unevaluated ? { unevaluated: true } : {}),
    declares: a.declares || b.declares,
    closedAt: a.closedAt ?? b.closedAt,
    ...((a.tooDeep ?? b.tooDeep) ? { tooDeep: a.tooDeep ?? b.tooDeep } : {}),
    ...(a.conditional || b.conditional ? { conditional: true } : {}),
    required: new Set([...a.required, ...b.required]),
  };
}

/**
 * A `patternProperties` key pattern as a name test (through `compilePattern`, so API names never meet a
 * backtracking engine): true / false, or a reason when the name cannot be tested safely. `undefined` for a
 * pattern that is not a valid regular expression (ignored).
 */
type NameTest = (name: string) => boolean | { notChecked: string };

function nameTest(pattern: string): NameTest | undefined {
  const compiled = compilePattern(pattern);
  if ('reason' in compiled) {
    if (compiled.reason.endsWith('not a valid ECMA-262 regular expression')) return undefined;
    const reason = compiled.reason;
    return () => ({ notChecked: reason });
  }
  return (name) => compiled.test(name);
}

/** The value at an instance location, for what a schema documents there through `if` and `dependentSchemas`. */
type At = { value: unknown; segments: Segment[] };

/**
 * Collects what a schema documents about an object: its own properties, patternProperties and
 * additionalProperties, and those of every allOf branch after `$ref` / `$dynamicRef` (case 22: the undocumented
 * check uses the union of the composition). oneOf/anyOf branches are included only when `alternatives`. With
 * `at`, the branch that applies to its value is included too: `then` (and `if`) when `if` passes, else `else`, and
 * each `dependentSchemas` entry whose property is present (JSON Schema 2020-12 §10.2.2: their annotations are the
 * schema's); an `if` that could not be decided leaves the object open. Without `at`, such a schema is marked
 * `conditional`.
 */
function collect(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  alternatives: boolean,
  acc: Documented,
  visited: Set<string>,
  seen: Set<object> = new Set(),
  depth = 0,
  at?: At,
  inBranch = false,
): void {
  if (!isPlainObject(schema)) return;
  // The same schema object met again through another branch adds nothing new: without this, `anyOf: [S, S]`
  // nested L levels would be walked 2^L times (issue 8).
  if (seen.has(schema)) return;
  seen.add(schema);
  // Each schema read costs a step, as in the walk: a web of 10,000 `$ref`s is read again for every object it checks.
  if (ctx.stopped || !spendStep(ctx, schemaPath)) {
    acc.open = true;
    return;
  }
  if (depth > MAX_REF_DEPTH) {
    // allOf nested far deeper than MAX_REF_DEPTH would overflow the stack. Past the bound nothing is read, and the
    // object is left open so no field is called undocumented on a guess.
    acc.open = true;
    acc.tooDeep ??= schemaPath;
    return;
  }
  if (typeof schema.$ref === 'string') {
    const hit = resolveRef(ctx, schema.$ref, schemaPath);
    if (hit.found && !visited.has(hit.pointer)) {
      visited.add(hit.pointer);
      collect(ctx, hit.value, hit.pointer, true, acc, visited, seen, depth + 1, at, inBranch);
    }
    if (ctx.dialect !== '3.1') return; // OAS 3.0.3 Reference Object: siblings of $ref are ignored
  }
  if (typeof schema.$dynamicRef === 'string') {
    const hit = dynamicTarget(ctx, schema.$dynamicRef, resolveRef(ctx, schema.$dynamicRef, schemaPath));
    if (hit.found && !visited.has(hit.pointer)) {
      visited.add(hit.pointer);
      collect(ctx, hit.value, hit.pointer, true, acc, visited, seen, depth + 1, at, inBranch);
    }
  }
  if (isPlainObject(schema.properties)) {
    acc.declares = true;
    for (const [k, v] of Object.entries(schema.properties)) {
      const list = acc.names.get(k) ?? [];
      list.push({ schema: v, schemaPath: `${schemaPath}/properties/${escapePointerToken(k)}` });
      acc.names.set(k, list);
    }
  }
  if (isPlainObject(schema.patternProperties)) {
    acc.declares = true;
    for (const [p, v] of Object.entries(schema.patternProperties)) {
      const test = nameTest(p);
      if (test)
        acc.patterns.push({
          test,
          loc: { schema: v, schemaPath: `${schemaPath}/patternProperties/${escapePointerToken(p)}` },
        });
    }
  }
  const ap = schema.additionalProperties;
  if (ap === false && !inBranch) {
    acc.declares = true;
    acc.closedAt ??= `${schemaPath}/additionalProperties`;
  } else if (ap === true || isPlainObject(ap)) {
    acc.open = true;
    if (isPlainObject(ap)) acc.additional.push({ schema: ap, schemaPath: `${schemaPath}/additionalProperties` });
  }
  // unevaluatedProperties judges every key no other keyword evaluated (§11.3, `checkUnevaluated`): whatever it
  // leaves is evaluated, so no key is called undocumented, and `false` reports its own findings. A closure in the
  // union still judges its keys: `additionalProperties: false` fails on them whatever else applies (§10.3.2.3).
  if (hasOwn(schema, 'unevaluatedProperties')) acc.unevaluated = true;
  if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string') acc.required.add(r);
  if (Array.isArray(schema.allOf))
    schema.allOf.forEach((b, i) =>
      collect(ctx, b, `${schemaPath}/allOf/${i}`, true, acc, visited, seen, depth + 1, undefined, inBranch),
    );
  if (alternatives) {
    for (const kw of ['oneOf', 'anyOf']) {
      const list = schema[kw];
      if (Array.isArray(list))
        list.forEach((b, i) =>
          collect(ctx, b, `${schemaPath}/${kw}/${i}`, true, acc, visited, seen, depth + 1, undefined, true),
        );
    }
  }
  const conditional = hasOwn(schema, 'if') && (hasOwn(schema, 'then') || hasOwn(schema, 'else'));
  const dependent = isPlainObject(schema.dependentSchemas);
  if (!conditional && !dependent) return;
  if (!at) {
    acc.conditional = true;
    return;
  }
  if (conditional) {
    const found = evalSchema(ctx, schema.if, `${schemaPath}/if`, at.value, at.segments, OWN);
    if (!found.some(fails) && found.some(undecided)) acc.open = true;
    else {
      const branch = found.some(fails) ? 'else' : 'then';
      if (branch === 'then') collect(ctx, schema.if, `${schemaPath}/if`, true, acc, visited, seen, depth + 1, at, true);
      collect(ctx, schema[branch], `${schemaPath}/${branch}`, true, acc, visited, seen, depth + 1, at, inBranch);
    }
  }
  if (dependent && isPlainObject(at.value)) {
    for (const [name, dependency] of Object.entries(schema.dependentSchemas as JsonObject)) {
      if (!hasOwn(at.value, name)) continue;
      const path = `${schemaPath}/dependentSchemas/${escapePointerToken(name)}`;
      collect(ctx, dependency, path, true, acc, visited, seen, depth + 1, at, inBranch);
    }
  }
}

/**
 * What a schema documents, per document, schema object, schema path and `alternatives`: the same schema
 * met again (every item of an array, every response of a steady probe) reuses it. Documents and schemas
 * are not changed once loaded, so the union stays right; results are never mutated after `collect`.
 */
const documentedCache = new WeakMap<object, WeakMap<object, Map<string, Documented>>>();

function documentedOf(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  alternatives: boolean,
  extra: SchemaLocation[] = [],
  at?: At,
): Documented {
  if (extra.length > 0 || !isPlainObject(schema) || ctx.scope)
    return collectDocumented(ctx, schema, schemaPath, alternatives, extra, at);
  let bySchema = documentedCache.get(ctx.doc);
  if (!bySchema) documentedCache.set(ctx.doc, (bySchema = new WeakMap()));
  let byPath = bySchema.get(schema);
  if (!byPath) bySchema.set(schema, (byPath = new Map()));
  const key = alternatives ? `1${schemaPath}` : `0${schemaPath}`;
  let known = byPath.get(key);
  if (!known) byPath.set(key, (known = collectDocumented(ctx, schema, schemaPath, alternatives, extra)));
  // What the applying `then` / `else` / `dependentSchemas` document depends on the value: collected for it.
  if (known.conditional && at && isPlainObject(at.value))
    return collectDocumented(ctx, schema, schemaPath, alternatives, extra, at);
  return known;
}

function collectDocumented(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  alternatives: boolean,
  extra: SchemaLocation[],
  at?: At,
): Documented {
  const acc = emptyDocumented();
  const visited = new Set<string>();
  const seen = new Set<object>();
  const object = at && isPlainObject(at.value) ? at : undefined;
  collect(ctx, schema, schemaPath, alternatives, acc, visited, seen, 0, object);
  for (const e of extra) collect(ctx, e.schema, e.schemaPath, true, acc, visited, seen, 0, object);
  return acc;
}

/** Schema path of the first `flag: true` (readOnly / writeOnly) on a property schema, following $ref and allOf. */
function flagAt(ctx: Context, schema: unknown, schemaPath: string, flag: string, depth = 0): string | undefined {
  // allOf: [S, S] nested 16 deep is 65,536 visits: each is a step.
  if (!isPlainObject(schema) || depth > 16 || ctx.stopped || !spendStep(ctx, schemaPath)) return undefined;
  if (schema[flag] === true) return `${schemaPath}/${flag}`;
  if (typeof schema.$ref === 'string') {
    // An unresolvable $ref is reported by the type walk, not here.
    const target = resolveRef(ctx, schema.$ref, schemaPath);
    const hit = target.found ? flagAt(ctx, target.value, target.pointer, flag, depth + 1) : undefined;
    if (hit) return hit;
  }
  if (Array.isArray(schema.allOf)) {
    for (let i = 0; i < schema.allOf.length; i++) {
      const hit = flagAt(ctx, schema.allOf[i], `${schemaPath}/allOf/${i}`, flag, depth + 1);
      if (hit) return hit;
    }
  }
  return undefined;
}

function scopedFlag(ctx: Context, documented: Documented, name: string): string | undefined {
  const flag = ctx.direction === 'response' ? 'writeOnly' : 'readOnly';
  const flags = (documented[flag] ??= new Map());
  const known = flags.get(name);
  if (known !== undefined) return known ?? undefined;
  let found: string | undefined;
  for (const loc of documented.names.get(name) ?? []) {
    found = flagAt(ctx, loc.schema, loc.schemaPath, flag);
    if (found) break;
  }
  flags.set(name, found ?? null);
  return found;
}

// ---------------------------------------------------------------- the walk

/** Modes and lists shared by every call that needs them (never mutated). */
const OWN: Mode = { owner: true };
const NOT_OWNER: Mode = { owner: false };
const NO_PARTS: SchemaLocation[] = [];

const ANNOTATIONS = new Set([
  'description',
  'summary',
  'title',
  '$comment',
  'example',
  'examples',
  'deprecated',
  'default',
]);

function evalSchema(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  mode: Mode,
): InternalFinding[] {
  if (!ctx.scope) return evalInScope(ctx, schema, schemaPath, value, segments, mode);
  // The dynamic scope (JSON Schema 2020-12 §7.1): the resource this schema belongs to, when it is a new one.
  const entered = enterScope(ctx, schemaPath);
  try {
    return evalInScope(ctx, schema, schemaPath, value, segments, mode);
  } finally {
    if (entered) ctx.scope.pop();
  }
}

/** Pushes the resource of `schemaPath` on the dynamic scope when it is not the innermost one; true when pushed. */
function enterScope(ctx: Context, schemaPath: string): boolean {
  const scope = ctx.scope!;
  const base = baseAt(ctx.index, schemaPath);
  if (scope[scope.length - 1] === base) return false;
  scope.push(base);
  return true;
}

/**
 * A `$ref` (or `$dynamicRef`) of the schema at `schemaPath`, resolved inside the document against the base URI there
 * (`resolveSchemaRef`), once per document for each base and reference (kept with the document's index).
 */
function resolveRef(ctx: Context, ref: string, schemaPath: string): SchemaRefLookup {
  const key = ctx.index.embedded ? `${baseAt(ctx.index, schemaPath)}\u0000${ref}` : ref;
  let hit = ctx.refs.get(key);
  if (hit === undefined) {
    hit = resolveSchemaRef(ctx.doc, ref, schemaPath, ctx.index);
    if (ctx.refs.size < MAX_KEPT_BASES) ctx.refs.set(key, hit);
  }
  return hit;
}

/**
 * Where a `$dynamicRef` leads (JSON Schema 2020-12 §8.2.3.2): its initial target, unless that schema declares a
 * `$dynamicAnchor` of the fragment's name; then the outermost resource of the dynamic scope that declares one.
 */
function dynamicTarget(ctx: Context, ref: string, initial: SchemaRefLookup): SchemaRefLookup {
  if (!initial.found || !ctx.scope) return initial;
  const name = ref.slice(ref.indexOf('#') + 1);
  if (!ref.includes('#') || name === '' || name.startsWith('/')) return initial;
  if (!isPlainObject(initial.value) || initial.value.$dynamicAnchor !== name) return initial;
  for (const uri of ctx.scope) {
    const pointer = ctx.index.dynamicAnchors.get(`${uri}#${name}`);
    if (pointer === undefined) continue;
    const hit = lookupPointer(ctx.doc, pointer);
    if (hit.found) return { found: true, value: hit.value, pointer };
  }
  return initial;
}

function evalInScope(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  mode: Mode,
): InternalFinding[] {
  if (ctx.stopped || !spendStep(ctx, schemaPath)) return [];
  if (schema === true || schema === undefined || schema === null) return [];
  if (schema === false) {
    return [
      makeFinding(
        'wrongType',
        segments,
        schemaPath,
        `is ${jsonType(value)}, but the schema is \`false\` and allows no value here`,
        { expected: 'nothing (schema false)', actual: jsonType(value) },
      ),
    ];
  }
  if (!isPlainObject(schema)) return [];
  if (segments.length > MAX_INSTANCE_DEPTH) {
    // Reported once, at the deepest location still checked (findings are unique by kind, path and message).
    return [
      makeFinding(
        'notChecked',
        segments.slice(0, MAX_INSTANCE_DEPTH),
        schemaPath,
        `was not checked below this point: the value nests deeper than ${MAX_INSTANCE_DEPTH} levels (too deep to check)`,
      ),
    ];
  }
  const ref = schema.$ref;
  if (typeof ref !== 'string') return evalNode(ctx, schema, schemaPath, value, segments, mode, NO_PARTS);
  if (!isPureRef(ctx, schema)) {
    // JSON Schema 2020-12 §8.2.3.1: $ref is an applicator beside its siblings, like one more allOf branch.
    const fromRef = enterRef(ctx, ref, schemaPath, value, segments, { owner: false, union: mode.union });
    const rest: JsonObject = { ...schema };
    delete rest.$ref;
    return [
      ...fromRef,
      ...evalNode(ctx, rest, schemaPath, value, segments, mode, [{ schema: { $ref: ref }, schemaPath }]),
    ];
  }
  let out = enterRef(ctx, ref, schemaPath, value, segments, mode);
  if (value === null && ctx.dialect === '3.0' && schema.nullable === true) {
    out = addHint(
      out,
      segments,
      'wrongType',
      ' (`nullable: true` beside `$ref` has no effect in OpenAPI 3.0.3: siblings of $ref are ignored; the document likely omits null here, the API may be right)',
    );
  }
  return out;
}

/**
 * Whether a `{$ref}` schema is nothing but the reference: OAS 3.0.3 and Swagger 2.0 ignore siblings of
 * `$ref`; in 2020-12 (§8.2.3.1) only annotation siblings leave it a pure reference.
 */
function isPureRef(ctx: Context, schema: JsonObject): boolean {
  return ctx.dialect !== '3.1' || !Object.keys(schema).some((k) => k !== '$ref' && !BESIDE_REF.has(k));
}

/** Keywords that change nothing beside `$ref` in 2020-12: annotations, identifiers of no resource, definitions. */
const BESIDE_REF = new Set([...ANNOTATIONS, '$anchor', '$dynamicAnchor', '$schema', '$defs', 'definitions']);

/** A small number naming an object for memo keys (`undefined` is 0). */
function idOf(ctx: Context, object: object | undefined): number {
  if (!object) return 0;
  let id = ctx.ids.get(object);
  if (id === undefined) {
    id = ctx.ids.size + 1;
    ctx.ids.set(object, id);
  }
  return id;
}

function enterRef(
  ctx: Context,
  ref: string,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  mode: Mode,
  dynamic = false,
): InternalFinding[] {
  let hit = resolveRef(ctx, ref, schemaPath);
  if (dynamic) hit = dynamicTarget(ctx, ref, hit);
  if (!hit.found) return [makeFinding('unresolvedRef', segments, schemaPath, `was not checked: ${hit.reason}`)];
  // A chain of schemas that are nothing but `$ref`s is followed here, in a loop, to its end whatever its
  // length (case 51); one that loops never reaches a schema.
  const chain = [ref];
  const seen = new Set([hit.pointer]);
  let current = hit.pointer;
  let target: unknown = hit.value;
  for (;;) {
    if (!isPlainObject(target) || typeof target.$ref !== 'string' || !isPureRef(ctx, target)) break;
    const next = target.$ref;
    const step = resolveRef(ctx, next, current);
    if (!step.found) return [makeFinding('unresolvedRef', segments, current, `was not checked: ${step.reason}`)];
    if (seen.has(step.pointer)) {
      return [
        makeFinding(
          'unresolvedRef',
          segments,
          schemaPath,
          `was not checked: the $ref chain ${[...chain, next].join(' -> ')} loops without reaching a schema`,
        ),
      ];
    }
    if (chain.length >= MAX_REF_HOPS) {
      return [
        makeFinding(
          'notChecked',
          segments,
          schemaPath,
          `was not checked: the $ref chain from ${ref} is longer than ${MAX_REF_HOPS} hops (too deep to check)`,
        ),
      ];
    }
    seen.add(step.pointer);
    chain.push(next);
    current = step.pointer;
    target = step.value;
  }
  let at = ctx.locations.get(segments);
  if (at === undefined) ctx.locations.set(segments, (at = JSON.stringify(segments)));
  const location = `${current}\u0000${at}`;
  // Same $ref at the same instance location again: a cycle that makes no progress (A -> B -> A).
  if (ctx.active.has(location)) return [];
  if (ctx.depth >= MAX_REF_DEPTH) {
    return [
      makeFinding(
        'notChecked',
        segments,
        current,
        `was not checked: the schema nests more than ${MAX_REF_DEPTH} \`$ref\`s deep here (too deep to check)`,
      ),
    ];
  }
  let key = `${location}\u0000${mode.owner ? 1 : 0}:${idOf(ctx, mode.extra)}:${idOf(ctx, mode.union)}`;
  // Where `$dynamicRef`s lead depends on the resources entered on the way here (§8.2.3.2).
  if (ctx.scope) key += `\u0000${ctx.scope.join(' ')}`;
  let byValue = ctx.memo.get(value);
  const known = byValue?.get(key);
  if (known) return known; // results are never changed once made: callers copy or map them
  ctx.active.add(location);
  ctx.depth++;
  try {
    const out = evalSchema(ctx, target, current, value, segments, mode);
    if (!ctx.stopped) {
      if (!byValue) {
        byValue = new Map();
        ctx.memo.set(value, byValue);
      }
      byValue.set(key, out);
    }
    return out;
  } finally {
    ctx.active.delete(location);
    ctx.depth--;
  }
}

function typeList(ctx: Context, schema: JsonObject): string[] | undefined {
  const t = schema.type;
  let list: string[];
  if (typeof t === 'string') list = [t];
  else if (Array.isArray(t)) list = t.filter((x): x is string => typeof x === 'string');
  else return undefined;
  // OAS 3.0.3 Schema Object: nullable adds null to `type` in the same Schema Object only.
  if (ctx.dialect === '3.0' && schema.nullable === true && !list.includes('null')) list = [...list, 'null'];
  if (ctx.dialect === '2.0' && schema['x-nullable'] === true && !list.includes('null')) list = [...list, 'null'];
  return list;
}

function evalNode(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  mode: Mode,
  refParts: SchemaLocation[],
): InternalFinding[] {
  if (
    isPlainObject(value) &&
    schema.discriminator !== undefined &&
    !Array.isArray(schema.oneOf) &&
    !Array.isArray(schema.anyOf)
  ) {
    const dispatched = dispatchDiscriminator(ctx, schema, schemaPath, value, segments, mode);
    if (dispatched) return dispatched;
  }
  let out: InternalFinding[] = [];

  // A number JSON parsing changed is checked as written (its text), or not at all when its text is unknown (null).
  const written = typeof value === 'number' ? inexactAt(ctx, segments) : undefined;
  const inexact = written === null;
  const text = written ?? undefined;

  // type (JSON Schema 2020-12 §6.1.1)
  // The common case, one type name that matches (no nullable to widen it), without building a list.
  const plain = !inexact && typeof schema.type === 'string' && matchesType(schema.type, value, text);
  const types = plain ? undefined : typeList(ctx, schema);
  let typeOk = true;
  const unsure = inexact && types ? inexactTypeVerdict(types, value as number) : undefined;
  if (unsure === 'notChecked')
    out.push(
      makeFinding(
        'notChecked',
        segments,
        `${schemaPath}/type`,
        'was not checked against `type`: the number in the body cannot be held exactly in a double and its text was not kept (RFC 8259, 6), so whether it is an integer is not known',
        { keyword: 'type' },
      ),
    );
  else if (unsure !== true && types && types.length > 0 && !anyTypeMatches(types, value, text)) {
    typeOk = false;
    const expected = orList(types);
    const actual = text !== undefined && isWrittenInteger(text) === false ? 'number' : jsonType(value);
    let message = `is ${actual}, expected ${expected}`;
    if (value === null && schema.nullable === true && ctx.dialect === '3.1') {
      message += ` (\`nullable\` is not an OpenAPI 3.1 keyword; use type: ${JSON.stringify([...types, 'null'])}; the document likely omits null, the API may be right)`;
    } else if (value === null && schema.nullable === true && ctx.dialect === '2.0') {
      message +=
        ' (Swagger 2.0 has no `nullable`; the vendor extension `x-nullable: true` is the usual spelling; the document likely omits null)';
    }
    out.push(makeFinding('wrongType', segments, `${schemaPath}/type`, message, { expected, actual }));
  }

  if ('$recursiveRef' in schema) unsupportedKeywords(schema, schemaPath, segments, out);
  // A changed number whose text is unknown is not the API's number: its value constraints are not checked.
  if (inexact) {
    for (const keyword of [
      'enum',
      'const',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'multipleOf',
      'format',
    ]) {
      if (!hasOwn(schema, keyword) || (keyword === 'format' && schema.format !== 'int32' && schema.format !== 'int64'))
        continue;
      out.push(
        makeFinding(
          'notChecked',
          segments,
          `${schemaPath}/${keyword}`,
          `was not checked against \`${keyword}\`: the number in the body cannot be held exactly in a double (RFC 8259, 6), so the check would compare a different number`,
          { keyword },
        ),
      );
    }
  }

  // enum / const: independent assertions (OAS 3.0.3 nullable does not extend enum; 2020-12 §6.1.2-3)
  // A number from 2^53 up that read exactly is compared as its text too: a document's number there stands for a range.
  const enumText = text ?? (typeof value === 'number' && !inexact ? largeNumberText(value) : undefined);
  if (enumText !== undefined) writtenInEnum(ctx, schema, schemaPath, enumText, segments, typeOk, out);
  else if (typeOk && !inexact && Array.isArray(schema.enum) && inEnum(ctx, schema.enum, value) === false) {
    const count = schema.enum.length > SHOWN_VALUES ? ` (${schema.enum.length} in all)` : '';
    let message = `is ${show(value)}, not one of the allowed values${count} ${quoted(ctx, schema.enum)}`;
    if (value === null) {
      message =
        `is null, but the enum ${quoted(ctx, schema.enum)} does not list null although the type allows null; ` +
        'the document probably omits null from the enum (nullable / a null type does not extend enum), so the API may be right';
    }
    out.push(makeFinding('enum', segments, `${schemaPath}/enum`, message, allowedOf(schema.enum)));
  }
  if (typeOk && !inexact && enumText === undefined && hasOwn(schema, 'const') && !deepEqual(schema.const, value)) {
    out.push(
      makeFinding(
        'enum',
        segments,
        `${schemaPath}/const`,
        `is ${show(value)}, but the schema requires the constant ${quoted(ctx, schema.const)}`,
        { allowed: [schema.const] },
      ),
    );
  }

  if (typeof value === 'string') {
    checkString(ctx, schema, schemaPath, value, segments, out);
    // A backtracking pattern test may cost up to MAX_BACKTRACKING_STEPS: look at the clock after each.
    if (typeof schema.pattern === 'string' && performance.now() > ctx.deadline)
      ctx.stopped ??= `it ran out of its time budget (${Math.round(ctx.deadline - ctx.started)} ms)`;
  }
  if (typeof value === 'number' && !inexact) checkNumber(schema, schemaPath, value, segments, out, text);
  if (Array.isArray(value)) checkArray(ctx, schema, schemaPath, value, segments, out);

  let union: Documented | undefined;
  if (isPlainObject(value)) {
    union =
      mode.union ??
      mergeDocumented(
        ctx,
        schemaPath,
        mode.extra,
        documentedOf(ctx, schema, schemaPath, true, refParts, { value, segments }),
      );
    checkObject(ctx, schema, schemaPath, value, segments, union, out);
  }

  // allOf: every branch applies to the same instance; the undocumented check is the owner's, on the union.
  const branchMode: Mode = { owner: false, union };
  if (Array.isArray(schema.allOf)) {
    for (let i = 0; i < schema.allOf.length; i++) {
      for (const f of evalSchema(ctx, schema.allOf[i], `${schemaPath}/allOf/${i}`, value, segments, branchMode))
        out.push(f);
    }
  }
  // $dynamicRef: one more in-place applicator, like `$ref` beside siblings (JSON Schema 2020-12 §8.2.3.2).
  if (typeof schema.$dynamicRef === 'string') {
    for (const f of enterRef(ctx, schema.$dynamicRef, schemaPath, value, segments, branchMode, true)) out.push(f);
  }
  const hasAlternatives = Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf);
  for (const kw of ['oneOf', 'anyOf'] as const) {
    if (!Array.isArray(schema[kw])) continue;
    // Each branch judges an object as its owner, so `additionalProperties: false` in a branch reads its own
    // schema object (2020-12 10.3.2.3), not the union of an enclosing allOf. Under an allOf branch or a `$ref`
    // sibling the reports that are no failure stay the owner's, which judges the keys on its own union.
    const altMode: Mode = isPlainObject(value)
      ? {
          owner: true,
          extra: mergeDocumented(
            ctx,
            schemaPath,
            mode.owner ? mode.extra : undefined,
            documentedOf(ctx, schema, schemaPath, false, refParts, { value, segments }),
          ),
        }
      : branchMode;
    const judged = evalAlternatives(ctx, schema, kw, schemaPath, value, segments, altMode);
    for (const f of mode.owner || !isPlainObject(value) ? judged : judged.filter((f) => !ownReport(f, segments)))
      out.push(f);
  }
  // `not` and `if` are assertions of their own (JSON Schema 2020-12, 10.2.1.4 and 10.2.2): their subschema owns
  // the instance, so `additionalProperties: false` at its root judges the keys it documents, not the parent's union.
  const assertionMode: Mode = { owner: true };
  if (hasOwn(schema, 'not')) {
    const sub = evalSchema(ctx, schema.not, `${schemaPath}/not`, value, segments, assertionMode);
    const open = sub.filter(undecided);
    // A subschema that could not be fully checked decides nothing: say so instead of guessing.
    if (!sub.some(fails) && open.length > 0) out.push(...open);
    else if (!sub.some(fails)) {
      out.push(
        makeFinding(
          'constraint',
          segments,
          `${schemaPath}/not`,
          'matches the schema under `not`, which it must not match',
          { keyword: 'not' },
        ),
      );
    }
  }
  if (hasOwn(schema, 'if') && (hasOwn(schema, 'then') || hasOwn(schema, 'else'))) {
    const cond = evalSchema(ctx, schema.if, `${schemaPath}/if`, value, segments, assertionMode);
    const branch = cond.some(fails) ? 'else' : 'then';
    const open = branch === 'then' ? cond.filter(undecided) : [];
    // An `if` that could not be fully checked picks no branch: say so instead of guessing one.
    if (open.length > 0) out.push(...open);
    else if (hasOwn(schema, branch))
      out.push(...evalAssertion(ctx, schema[branch], `${schemaPath}/${branch}`, value, segments));
  }

  if (isPlainObject(value) ? hasOwn(schema, 'unevaluatedProperties') : hasOwn(schema, 'unevaluatedItems'))
    checkUnevaluated(ctx, schema, schemaPath, value, segments, refParts, out);
  // The owner of this instance location reports undocumented / writeOnly / readOnly fields once.
  if (mode.owner && union && isPlainObject(value) && !hasAlternatives) {
    checkDocumented(ctx, schemaPath, value, segments, union, out);
  }
  // The same finding reached through several branches (allOf: [S, S]) is kept once, so nesting cannot double it.
  out = unique(out);
  if (value === null && ctx.dialect === '3.0' && schema.nullable === true && schema.type === undefined) {
    out = addHint(
      out,
      segments,
      'wrongType',
      ' (`nullable: true` only widens `type` in the same Schema Object, OAS 3.0.3; here it has no `type`, so the document likely omits null, the API may be right)',
    );
  }
  return out;
}

function checkString(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: string,
  segments: Segment[],
  out: InternalFinding[],
): void {
  const len = typeof schema.maxLength === 'number' || typeof schema.minLength === 'number' ? codePoints(value) : 0;
  if (typeof schema.maxLength === 'number' && len > schema.maxLength) {
    out.push(
      makeFinding(
        'constraint',
        segments,
        `${schemaPath}/maxLength`,
        `is ${len} characters long, more than maxLength ${schema.maxLength}`,
        { keyword: 'maxLength' },
      ),
    );
  }
  if (typeof schema.minLength === 'number' && len < schema.minLength) {
    out.push(
      makeFinding(
        'constraint',
        segments,
        `${schemaPath}/minLength`,
        `is ${len} characters long, fewer than minLength ${schema.minLength}`,
        { keyword: 'minLength' },
      ),
    );
  }
  if (typeof schema.pattern === 'string') {
    // Document patterns run through `compilePattern`: linear time, or not run at all (issue 8).
    const compiled = compilePattern(schema.pattern);
    const result = 'reason' in compiled ? { notChecked: compiled.reason } : compiled.test(value);
    if (result === false) {
      out.push(
        makeFinding(
          'constraint',
          segments,
          `${schemaPath}/pattern`,
          `is ${show(value)}, which does not match the pattern ${quoted(ctx, schema.pattern)}`,
          { keyword: 'pattern' },
        ),
      );
    } else if (result !== true) {
      out.push(
        makeFinding(
          'notChecked',
          segments,
          `${schemaPath}/pattern`,
          `was not checked against the pattern: ${result.notChecked}`,
          { keyword: 'pattern' },
        ),
      );
    }
  }
  if (typeof schema.format === 'string') {
    const problem = stringFormatProblem(schema.format, value);
    if (problem)
      out.push(
        makeFinding(
          'format',
          segments,
          `${schemaPath}/format`,
          `is ${show(value)}, not a valid ${schema.format} (${problem})`,
          { keyword: schema.format },
        ),
      );
  }
}

/**
 * `type` for a number JSON parsing changed whose text is unknown (RFC 8259, 6; JSON Schema 2020-12 Validation 6.1.1):
 * it is a JSON number whatever it read as (`1e400` reads as Infinity), so `number` matches; `integer` is decided only
 * by a finite double with a fraction, which no integer text parses to (one within 2^53 reads exactly, a larger one
 * reads as an integer or Infinity).
 * @returns true when a listed type matches, 'notChecked' when `integer` is the only numeric type and the double is an
 *   integer or infinite, undefined when the ordinary check decides (a fraction, or no numeric type).
 */
function inexactTypeVerdict(types: string[], value: number): true | 'notChecked' | undefined {
  if (types.includes('number')) return true;
  if (!types.includes('integer')) return undefined;
  return Number.isFinite(value) && !Number.isInteger(value) ? undefined : 'notChecked';
}

/**
 * How the number at this instance location was written when JSON parsing changed it (see `InexactNumbers`): its
 * text, null when its text is unknown, undefined when parsing did not change it.
 */
function inexactAt(ctx: Context, segments: Segment[]): string | null | undefined {
  if (!ctx.inexact) return undefined;
  const path = instancePath(segments);
  const text = ctx.inexact.texts?.get(path);
  if (text !== undefined) return text;
  if (ctx.inexact.paths.has(path)) return null;
  // The scan stopped listing: any number it did not list may have changed, whatever it reads as.
  if (ctx.inexact.unlisted) return null;
  return undefined;
}

/** The exact decimal text of a finite number of magnitude 2^53 or more (`decimalOfParsed`), else undefined. */
function largeNumberText(value: number): string | undefined {
  if (!Number.isFinite(value) || Math.abs(value) < 2 ** 53) return undefined;
  const decimal = decimalOfParsed(value);
  return decimal ? formatDecimal(decimal) : undefined;
}

/**
 * `enum` and `const` for a number JSON parsing changed, compared as written (`equalsWrittenNumber`): an `enum`
 * finding when no member equals it, `notChecked` when a member past 2^53 cannot be told apart from it.
 */
function writtenInEnum(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  text: string,
  segments: Segment[],
  typeOk: boolean,
  out: InternalFinding[],
): void {
  if (!typeOk) return;
  for (const keyword of ['enum', 'const'] as const) {
    if (keyword === 'enum' ? !Array.isArray(schema.enum) : !hasOwn(schema, 'const')) continue;
    const members = keyword === 'enum' ? (schema.enum as unknown[]) : [schema.const];
    let verdict: boolean | undefined = false;
    for (const member of members) {
      const equal = equalsWrittenNumber(text, member);
      if (equal) {
        verdict = true;
        break;
      }
      if (equal === undefined) verdict = undefined;
    }
    if (verdict === true) continue;
    if (verdict === undefined)
      out.push(
        makeFinding(
          'notChecked',
          segments,
          `${schemaPath}/${keyword}`,
          `was not checked against \`${keyword}\`: it lists a number past 2^53 that a double cannot tell apart from ${shownText(text)} (RFC 8259, 6)`,
          { keyword },
        ),
      );
    else if (keyword === 'enum')
      out.push(
        makeFinding(
          'enum',
          segments,
          `${schemaPath}/enum`,
          `is ${shownText(text)}, not one of the allowed values ${quoted(ctx, schema.enum)}`,
          allowedOf(schema.enum as unknown[]),
        ),
      );
    else
      out.push(
        makeFinding(
          'enum',
          segments,
          `${schemaPath}/const`,
          `is ${shownText(text)}, but the schema requires the constant ${quoted(ctx, schema.const)}`,
          { allowed: [schema.const] },
        ),
      );
  }
}

/**
 * Keywords this validator does not implement, where they could decide the result, as `notChecked` findings
 * (never a silent pass): `$recursiveRef` (JSON Schema 2019-09, replaced by `$dynamicRef` in 2020-12).
 */
function unsupportedKeywords(
  schema: JsonObject,
  schemaPath: string,
  segments: Segment[],
  out: InternalFinding[],
): void {
  if (typeof schema.$recursiveRef !== 'string') return;
  out.push(
    makeFinding(
      'notChecked',
      segments,
      `${schemaPath}/$recursiveRef`,
      'was not checked against `$recursiveRef`: the validator does not support `$recursiveRef` (JSON Schema 2019-09; 2020-12 has `$dynamicRef`), so what it refers to was not applied',
      { keyword: '$recursiveRef' },
    ),
  );
}

/** Adds a `constraint` finding for `keyword` of the schema at `schemaPath`. */
function constraint(
  out: InternalFinding[],
  segments: Segment[],
  schemaPath: string,
  keyword: string,
  message: string,
): void {
  out.push(makeFinding('constraint', segments, `${schemaPath}/${keyword}`, message, { keyword }));
}

/** The numeric keywords and int32/int64 (src/schema/numbers.ts), on the number as written when `text` is given. */
function checkNumber(
  schema: JsonObject,
  schemaPath: string,
  value: number,
  segments: Segment[],
  out: InternalFinding[],
  text?: string,
): void {
  for (const problem of numberProblems(schema, value, text))
    out.push(
      makeFinding(problem.kind, segments, `${schemaPath}/${problem.at}`, problem.message, { keyword: problem.keyword }),
    );
}

function checkArray(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: unknown[],
  segments: Segment[],
  out: InternalFinding[],
): void {
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
    constraint(
      out,
      segments,
      schemaPath,
      'maxItems',
      `has ${value.length} items, more than maxItems ${schema.maxItems}`,
    );
  if (typeof schema.minItems === 'number' && value.length < schema.minItems)
    constraint(
      out,
      segments,
      schemaPath,
      'minItems',
      `has ${value.length} items, fewer than minItems ${schema.minItems}`,
    );
  if (schema.uniqueItems === true) {
    const seen = new Map<string, number>();
    for (let i = 0; i < value.length; i++) {
      const k = canonical(value[i]);
      const first = seen.get(k);
      if (first !== undefined) {
        // Items that hold numbers JSON parsing changed may differ in the body's text: then not checked.
        const inside = `${instancePath(segments)}[`;
        const changed = (path: string) => path.startsWith(inside);
        if (
          ctx.inexact &&
          (ctx.inexact.unlisted ||
            [...ctx.inexact.paths].some(changed) ||
            [...(ctx.inexact.texts?.keys() ?? [])].some(changed))
        ) {
          out.push(
            makeFinding(
              'notChecked',
              segments,
              `${schemaPath}/uniqueItems`,
              `was not checked against \`uniqueItems\`: item ${i} equals item ${first} as parsed, but the items hold numbers that cannot be held exactly in a double (RFC 8259, 6)`,
              { keyword: 'uniqueItems' },
            ),
          );
        } else
          constraint(
            out,
            segments,
            schemaPath,
            'uniqueItems',
            `has item ${i} equal to item ${first}, but uniqueItems is true`,
          );
        break;
      }
      seen.set(k, i);
    }
  }
  const own = OWN;
  let start = 0;
  const tuple = Array.isArray(schema.prefixItems)
    ? { list: schema.prefixItems, kw: 'prefixItems' }
    : Array.isArray(schema.items)
      ? { list: schema.items, kw: 'items' }
      : undefined;
  if (tuple) {
    start = tuple.list.length;
    for (let i = 0; i < Math.min(tuple.list.length, value.length); i++) {
      for (const f of evalSchema(ctx, tuple.list[i], `${schemaPath}/${tuple.kw}/${i}`, value[i], [...segments, i], own))
        out.push(f);
    }
  }
  const rest = tuple?.kw === 'items' ? schema.additionalItems : schema.items;
  const restKw = tuple?.kw === 'items' ? 'additionalItems' : 'items';
  if (rest === false && value.length > start) {
    constraint(out, segments, schemaPath, restKw, `has ${value.length} items, but the schema allows only ${start}`);
  } else if (rest !== undefined && !Array.isArray(rest)) {
    for (let i = start; i < value.length; i++) {
      // Most items have no finding: the quick pass says so without paths (see `quickPass`).
      if (quickPass(ctx, rest, value[i], segments.length + 1)) continue;
      for (const f of evalSchema(ctx, rest, `${schemaPath}/${restKw}`, value[i], [...segments, i], own)) out.push(f);
    }
  }
  if (hasOwn(schema, 'contains')) {
    let n = 0;
    let unknown = 0;
    for (let i = 0; i < value.length; i++) {
      const result = evalSchema(ctx, schema.contains, `${schemaPath}/contains`, value[i], [...segments, i], own);
      if (result.some(fails)) continue;
      if (result.some(undecided)) unknown++;
      else n++;
    }
    if (unknown > 0) {
      // Items that could not be checked decide nothing: no count is reported rather than a wrong one.
      out.push(
        makeFinding(
          'notChecked',
          segments,
          `${schemaPath}/contains`,
          `was not checked against \`contains\`: ${unknown} item${unknown === 1 ? '' : 's'} could not be checked`,
          { keyword: 'contains' },
        ),
      );
      return;
    }
    const min = typeof schema.minContains === 'number' ? schema.minContains : 1;
    if (n < min)
      constraint(
        out,
        segments,
        schemaPath,
        typeof schema.minContains === 'number' ? 'minContains' : 'contains',
        `has ${n} items matching \`contains\`, fewer than ${min}`,
      );
    if (typeof schema.maxContains === 'number' && n > schema.maxContains)
      constraint(
        out,
        segments,
        schemaPath,
        'maxContains',
        `has ${n} items matching \`contains\`, more than maxContains ${schema.maxContains}`,
      );
  }
}

function checkObject(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: JsonObject,
  segments: Segment[],
  union: Documented,
  out: InternalFinding[],
): void {
  const keys = Object.keys(value);
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      if (typeof name !== 'string' || hasOwn(value, name)) continue;
      // OAS 3.0.3 Schema Object readOnly/writeOnly: a required writeOnly property is required in requests only.
      if (scopedFlag(ctx, union, name)) continue;
      out.push(makeFinding('missing', [...segments, name], `${schemaPath}/required`, 'is required but missing'));
    }
  }
  if (isPlainObject(schema.dependentRequired)) {
    for (const [trigger, deps] of Object.entries(schema.dependentRequired)) {
      if (!hasOwn(value, trigger) || !Array.isArray(deps)) continue;
      for (const d of deps) {
        if (typeof d === 'string' && !hasOwn(value, d)) {
          out.push(
            makeFinding(
              'missing',
              [...segments, d],
              `${schemaPath}/dependentRequired/${escapePointerToken(trigger)}`,
              `is required when ${quoted(ctx, trigger)} is present, but missing`,
            ),
          );
        }
      }
    }
  }
  if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
    out.push(
      makeFinding(
        'constraint',
        segments,
        `${schemaPath}/maxProperties`,
        `has ${keys.length} properties, more than maxProperties ${schema.maxProperties}`,
        { keyword: 'maxProperties' },
      ),
    );
  }
  if (typeof schema.minProperties === 'number' && keys.length < schema.minProperties) {
    out.push(
      makeFinding(
        'constraint',
        segments,
        `${schemaPath}/minProperties`,
        `has ${keys.length} properties, fewer than minProperties ${schema.minProperties}`,
        { keyword: 'minProperties' },
      ),
    );
  }
  const props = isPlainObject(schema.properties) ? schema.properties : undefined;
  const patterns: { test: NameTest; schema: unknown; schemaPath: string }[] = [];
  if (isPlainObject(schema.patternProperties)) {
    for (const [p, sch] of Object.entries(schema.patternProperties)) {
      const test = nameTest(p);
      if (test)
        patterns.push({ test, schema: sch, schemaPath: `${schemaPath}/patternProperties/${escapePointerToken(p)}` });
    }
  }
  const own = OWN;
  for (const k of keys) {
    const child = [...segments, k];
    let covered = false;
    if (props && hasOwn(props, k)) {
      covered = true;
      // Most fields have no finding: the quick pass says so without paths (see `quickPass`).
      if (!quickPass(ctx, props[k], value[k], child.length))
        for (const f of evalSchema(
          ctx,
          props[k],
          `${schemaPath}/properties/${escapePointerToken(k)}`,
          value[k],
          child,
          own,
        ))
          out.push(f);
    }
    for (const p of patterns) {
      const matched = p.test(k);
      if (matched === false) continue;
      covered = true;
      if (matched !== true) {
        out.push(
          makeFinding(
            'notChecked',
            child,
            p.schemaPath,
            `was not checked: whether its name matches the patternProperties pattern is unknown (${matched.notChecked})`,
          ),
        );
        continue;
      }
      for (const f of evalSchema(ctx, p.schema, p.schemaPath, value[k], child, own)) out.push(f);
    }
    // additionalProperties as a schema declares a map: its values are checked, its keys documented (case 26).
    if (
      !covered &&
      isPlainObject(schema.additionalProperties) &&
      !quickPass(ctx, schema.additionalProperties, value[k], child.length)
    ) {
      for (const f of evalSchema(
        ctx,
        schema.additionalProperties,
        `${schemaPath}/additionalProperties`,
        value[k],
        child,
        own,
      ))
        out.push(f);
    }
    if (hasOwn(schema, 'propertyNames')) {
      const bad = evalSchema(ctx, schema.propertyNames, `${schemaPath}/propertyNames`, k, child, NOT_OWNER);
      if (!bad.some(fails)) for (const f of bad) if (undecided(f)) out.push(f);
      if (bad.some(fails)) {
        out.push(
          makeFinding(
            'constraint',
            child,
            `${schemaPath}/propertyNames`,
            `has a name ${show(k)} that the propertyNames schema rejects`,
            { keyword: 'propertyNames' },
          ),
        );
      }
    }
  }
  if (isPlainObject(schema.dependentSchemas)) {
    for (const [trigger, dep] of Object.entries(schema.dependentSchemas)) {
      if (!hasOwn(value, trigger)) continue;
      for (const f of evalAssertion(
        ctx,
        dep,
        `${schemaPath}/dependentSchemas/${escapePointerToken(trigger)}`,
        value,
        segments,
      ))
        out.push(f);
    }
  }
}

/**
 * What the keywords at one instance location evaluated (JSON Schema 2020-12 §11: the annotations of `properties`,
 * `patternProperties`, `additionalProperties`, `prefixItems`, `items`, `contains` and of nested `unevaluated*`,
 * through every in-place applicator whose subschema applies). `names` / `allNames`: object members; `items` (a
 * prefix length), `indexes` / `allItems`: array items; `open`: why it could not be decided (a branch not checked).
 */
type Evaluated = {
  names: Set<string>;
  allNames: boolean;
  items: number;
  indexes: Set<number>;
  allItems: boolean;
  open?: string;
};

/** Whether the findings of a subschema are a pass (`yes`), a failed assertion (`no`), or undecided (`open`). */
function outcome(found: InternalFinding[]): 'yes' | 'no' | 'open' {
  if (found.some(fails)) return 'no';
  return found.some(undecided) ? 'open' : 'yes';
}

/**
 * The keyword that led to a schema path, as a budget note names it: `anyOf` for `.../anyOf/1`, `properties` for
 * `.../properties/id`, `items` for `.../items`, `discriminator` for its mapping and subtype scan, `$ref` for a path
 * that is a reference's target.
 */
function keywordOf(schemaPath: string): string {
  const tokens = schemaPath.split('/');
  const last = tokens[tokens.length - 1] ?? '';
  const parent = tokens[tokens.length - 2] ?? '';
  if (/^\d+$/.test(last) && LIST_KEYWORDS.has(parent)) return parent;
  if (MAP_KEYWORDS.has(parent)) return parent;
  if (SCHEMA_KEYWORDS.has(last) || last === 'discriminator') return last;
  return '$ref';
}
const LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);

/**
 * Steps of a check's budget (issue 8), for the walk, annotation collection, collecting what a schema documents and
 * merging those unions alike: steps always, the clock (the last guard) every 256 steps and on every bulk charge. Sets `ctx.stopped` with the reason once either runs out.
 * @returns Whether the step may be taken.
 */
function spendStep(ctx: Context, schemaPath: string, count = 1): boolean {
  const before = ctx.steps;
  ctx.steps += count;
  if (ctx.steps > ctx.maxSteps) {
    ctx.stopped = `the schema is too costly to check: it ran out of its step budget (${ctx.maxSteps} schema applications) at ${boundedText(schemaPath, 120)} (\`${keywordOf(schemaPath)}\`)`;
    return false;
  }
  if ((before >>> 8 !== ctx.steps >>> 8 || count > 1) && performance.now() > ctx.deadline) {
    ctx.stopped = `it ran out of its time budget (${Math.round(ctx.deadline - ctx.started)} ms)`;
    return false;
  }
  return true;
}

/**
 * Adds to `acc` what `schema` evaluates at this location, as annotation collection does (§7.7.1): `$ref`,
 * `$dynamicRef`, `allOf` and a present `dependentSchemas` entry always; an `anyOf` branch or the `oneOf` branch the
 * value passes; `if` with `then` when it passes, `else` when not; nothing from `not`. `self`: the schema whose own
 * `unevaluated*` asks, which are left out. Counts steps against the check's budget, like `evalSchema`.
 */
function evaluatedOf(
  ctx: Context,
  schema: unknown,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  acc: Evaluated,
  self: boolean,
  depth: number,
): void {
  if (ctx.stopped || !isPlainObject(schema)) return;
  const object = isPlainObject(value);
  if (object ? acc.allNames : acc.allItems) return;
  if (!spendStep(ctx, schemaPath)) return;
  if (depth > MAX_REF_DEPTH) {
    acc.open ??= `the schema nests more than ${MAX_REF_DEPTH} applicators deep here (too deep to check)`;
    return;
  }
  const entered = ctx.scope ? enterScope(ctx, schemaPath) : false;
  try {
    evaluatedHere(ctx, schema, schemaPath, value, segments, acc, self, depth);
  } finally {
    if (entered) ctx.scope!.pop();
  }
}

function evaluatedHere(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  acc: Evaluated,
  self: boolean,
  depth: number,
): void {
  const follow = (ref: string, dynamic: boolean): void => {
    let hit = resolveRef(ctx, ref, schemaPath);
    if (dynamic) hit = dynamicTarget(ctx, ref, hit);
    if (!hit.found) {
      acc.open ??= hit.reason;
      return;
    }
    let at = ctx.locations.get(segments);
    if (at === undefined) ctx.locations.set(segments, (at = JSON.stringify(segments)));
    const location = `${hit.pointer}\u0000${at}`;
    if (ctx.evaluating.has(location)) return; // a cycle at the same location evaluates nothing more
    ctx.evaluating.add(location);
    try {
      evaluatedOf(ctx, hit.value, hit.pointer, value, segments, acc, false, depth + 1);
    } finally {
      ctx.evaluating.delete(location);
    }
  };
  if (typeof schema.$ref === 'string') {
    follow(schema.$ref, false);
    if (ctx.dialect !== '3.1') return; // OAS 3.0.3 Reference Object: siblings of $ref are ignored
  }
  if (typeof schema.$dynamicRef === 'string') follow(schema.$dynamicRef, true);
  if (isPlainObject(value)) {
    if (hasOwn(schema, 'additionalProperties') || (!self && hasOwn(schema, 'unevaluatedProperties'))) {
      acc.allNames = true;
      return;
    }
    const props = isPlainObject(schema.properties) ? schema.properties : undefined;
    const patterns = isPlainObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
    const tests = patterns.map(nameTest);
    for (const k of Object.keys(value)) {
      if (props && hasOwn(props, k)) acc.names.add(k);
      for (const test of tests) {
        const matched = test?.(k);
        if (matched === true) acc.names.add(k);
        else if (matched !== undefined && matched !== false) acc.open ??= matched.notChecked;
      }
    }
  } else if (Array.isArray(value)) {
    if (
      (!Array.isArray(schema.items) && hasOwn(schema, 'items')) ||
      (Array.isArray(schema.items) && hasOwn(schema, 'additionalItems')) ||
      (!self && hasOwn(schema, 'unevaluatedItems'))
    ) {
      acc.allItems = true;
      return;
    }
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
    if (Array.isArray(tuple)) acc.items = Math.max(acc.items, Math.min(tuple.length, value.length));
    if (hasOwn(schema, 'contains')) {
      for (let i = 0; i < value.length; i++) {
        const result = outcome(
          evalSchema(ctx, schema.contains, `${schemaPath}/contains`, value[i], [...segments, i], OWN),
        );
        if (result === 'yes') acc.indexes.add(i);
        else if (result === 'open') acc.open ??= `whether item ${i} matches \`contains\` is unknown`;
      }
    }
  } else return; // other values have no members or items to evaluate
  const into = (sub: unknown, path: string): void =>
    evaluatedOf(ctx, sub, path, value, segments, acc, false, depth + 1);
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((branch, i) => into(branch, `${schemaPath}/allOf/${i}`));
  for (const kw of ['anyOf', 'oneOf'] as const) {
    const branches = schema[kw];
    if (!Array.isArray(branches)) continue;
    const passed: number[] = [];
    for (let i = 0; i < branches.length; i++) {
      const result = outcome(evalSchema(ctx, branches[i], `${schemaPath}/${kw}/${i}`, value, segments, OWN));
      if (result === 'open') acc.open ??= `whether the value matches ${schemaPath}/${kw}/${i} is unknown`;
      if (result === 'yes') passed.push(i);
    }
    // A oneOf that two branches pass fails, and a failing schema's annotations are dropped.
    if (kw === 'anyOf' || passed.length === 1) for (const i of passed) into(branches[i], `${schemaPath}/${kw}/${i}`);
  }
  if (hasOwn(schema, 'if') && (hasOwn(schema, 'then') || hasOwn(schema, 'else'))) {
    const result = outcome(evalSchema(ctx, schema.if, `${schemaPath}/if`, value, segments, OWN));
    if (result === 'open') acc.open ??= `whether the value matches ${schemaPath}/if is unknown`;
    else if (result === 'yes') {
      into(schema.if, `${schemaPath}/if`);
      into(schema.then, `${schemaPath}/then`);
    } else into(schema.else, `${schemaPath}/else`);
  } else if (
    hasOwn(schema, 'if') &&
    outcome(evalSchema(ctx, schema.if, `${schemaPath}/if`, value, segments, OWN)) === 'yes'
  ) {
    into(schema.if, `${schemaPath}/if`); // `if` alone still annotates when it passes
  }
  if (isPlainObject(schema.dependentSchemas) && isPlainObject(value)) {
    for (const [name, dependency] of Object.entries(schema.dependentSchemas)) {
      if (hasOwn(value, name)) into(dependency, `${schemaPath}/dependentSchemas/${escapePointerToken(name)}`);
    }
  }
}

/**
 * `unevaluatedProperties` and `unevaluatedItems` (JSON Schema 2020-12 §11.2, §11.3): each member or item that no
 * other keyword of this schema, nor of a subschema applied in place to this location, evaluated is checked against
 * the keyword's schema; under `false` an unevaluated member is an `undocumented` error, unevaluated items one
 * `constraint`. When what was evaluated cannot be decided, a `notChecked` finding says why.
 */
function checkUnevaluated(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  refParts: SchemaLocation[],
  out: InternalFinding[],
): void {
  const object = isPlainObject(value);
  const keyword = object ? 'unevaluatedProperties' : 'unevaluatedItems';
  const rule = schema[keyword];
  if (rule === true || (!object && !Array.isArray(value))) return;
  const acc: Evaluated = { names: new Set(), allNames: false, items: 0, indexes: new Set(), allItems: false };
  evaluatedOf(ctx, schema, schemaPath, value, segments, acc, true, 0);
  for (const part of refParts) evaluatedOf(ctx, part.schema, part.schemaPath, value, segments, acc, false, 0);
  if (ctx.stopped) return;
  const path = `${schemaPath}/${keyword}`;
  const left: Segment[] = [];
  if (object) {
    if (acc.allNames) return;
    for (const k of Object.keys(value)) if (!acc.names.has(k)) left.push(k);
  } else {
    if (acc.allItems) return;
    const items = value as unknown[];
    for (let i = acc.items; i < items.length; i++) if (!acc.indexes.has(i)) left.push(i);
  }
  if (left.length === 0) return;
  if (acc.open !== undefined) {
    out.push(
      makeFinding('notChecked', segments, path, `was not checked against \`${keyword}\`: ${acc.open}`, { keyword }),
    );
    return;
  }
  if (rule === false && !object) {
    constraint(
      out,
      segments,
      schemaPath,
      keyword,
      `has ${left.length} item${left.length === 1 ? '' : 's'} (from index ${left[0]}) that no keyword evaluated, but unevaluatedItems is false`,
    );
    return;
  }
  for (const k of left) {
    const child = [...segments, k];
    if (rule === false) {
      out.push(
        makeFinding(
          'undocumented',
          child,
          path,
          'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
          { severity: 'error' },
        ),
      );
      continue;
    }
    const member = object ? (value as JsonObject)[k as string] : (value as unknown[])[k as number];
    for (const f of evalSchema(ctx, rule, path, member, child, OWN)) out.push(f);
  }
}

function checkDocumented(
  ctx: Context,
  schemaPath: string,
  value: JsonObject,
  segments: Segment[],
  documented: Documented,
  out: InternalFinding[],
): void {
  for (const k of Object.keys(value)) {
    if (documented.names.has(k)) {
      const hit = scopedFlag(ctx, documented, k);
      if (hit && ctx.direction === 'response') {
        out.push(
          makeFinding(
            'writeOnly',
            [...segments, k],
            hit,
            'is writeOnly but appears in a response: a write-only value (such as a password) is leaking',
          ),
        );
      } else if (hit) {
        out.push(
          makeFinding(
            'readOnly',
            [...segments, k],
            hit,
            'is readOnly but is sent in a request; the server should ignore or reject it',
          ),
        );
      }
      continue;
    }
    if (!documented.declares || documented.open || patternCovers(documented.patterns, k)) continue;
    if (documented.unevaluated && !documented.closedAt) continue;
    // Under additionalProperties: false an extra field breaks an assertion the document makes: an error.
    out.push(
      documented.closedAt
        ? makeFinding(
            'undocumented',
            [...segments, k],
            documented.closedAt,
            'is present but not documented, and the schema closes the object with additionalProperties: false',
            { severity: 'error' },
          )
        : makeFinding(
            'undocumented',
            [...segments, k],
            `${schemaPath}/properties`,
            'is present but not documented in the schema',
          ),
    );
  }
}

/** A Discriminator Object read in either form: OAS 3.x `{propertyName, mapping}` or Swagger 2.0's plain property name. */
function discriminatorOf(schema: JsonObject): { propertyName: string; mapping: Record<string, string> } | undefined {
  const raw = schema.discriminator;
  if (typeof raw === 'string') return { propertyName: raw, mapping: {} };
  if (!isPlainObject(raw) || typeof raw.propertyName !== 'string') return undefined;
  const mapping: Record<string, string> = {};
  if (isPlainObject(raw.mapping))
    for (const [key, target] of Object.entries(raw.mapping)) if (typeof target === 'string') mapping[key] = target;
  return { propertyName: raw.propertyName, mapping };
}

/** Where named schemas live: `#/components/schemas` (3.x) or `#/definitions` (2.0). */
function schemaContainer(ctx: Context): { pointer: string; schemas: JsonObject } | undefined {
  if (ctx.dialect === '2.0')
    return isPlainObject(ctx.doc.definitions) ? { pointer: '#/definitions', schemas: ctx.doc.definitions } : undefined;
  const components = ctx.doc.components;
  return isPlainObject(components) && isPlainObject(components.schemas)
    ? { pointer: '#/components/schemas', schemas: components.schemas }
    : undefined;
}

/** A mapping value as a pointer: a bare schema name names a schema of the container (OAS 3.0.3 Discriminator Object). */
function mappingTarget(ctx: Context, target: string): string {
  if (target.startsWith('#')) return target;
  const container = schemaContainer(ctx);
  return `${container?.pointer ?? '#/components/schemas'}/${escapePointerToken(target)}`;
}

/**
 * The values a discriminator permits and the schema each picks: every mapping key, then the name of each
 * named schema that extends the base with `allOf: [{$ref: base}, ...]` (found by scanning the container),
 * by schema name (OAS 3.0.3 Discriminator Object; Swagger 2.0 Schema Object `discriminator`). The mapping and the
 * scan are document-sized and run for every value the discriminator dispatches: they spend the check's steps (one
 * per mapping entry and schema scanned, one per 8 parts of a long allOf), and once the budget is out `ctx.stopped` says so
 * (naming `<base>/discriminator`) and the values found so far are returned, never judged.
 */
function discriminatorValues(ctx: Context, basePath: string, mapping: Record<string, string>): Map<string, string> {
  const values = new Map<string, string>();
  const at = `${basePath}/discriminator`;
  for (const [key, target] of Object.entries(mapping)) {
    if (!spendStep(ctx, at)) return values;
    values.set(key, mappingTarget(ctx, target));
  }
  const container = schemaContainer(ctx);
  if (!container) return values;
  const named = new Set(values.values());
  for (const [name, candidate] of Object.entries(container.schemas)) {
    if (!spendStep(ctx, at)) return values;
    if (!isPlainObject(candidate) || !Array.isArray(candidate.allOf)) continue;
    if (candidate.allOf.length > 8 && !spendStep(ctx, at, candidate.allOf.length >>> 3)) return values;
    if (!candidate.allOf.some((part) => isPlainObject(part) && part.$ref === basePath)) continue;
    const pointer = `${container.pointer}/${escapePointerToken(name)}`;
    // A subtype the mapping already names under another key keeps that key only (explicit mapping wins).
    if (!values.has(name) && !named.has(pointer)) {
      values.set(name, pointer);
      named.add(pointer);
    }
  }
  return values;
}

/**
 * The inheritance style of polymorphism: a base schema with a `discriminator` (and no oneOf/anyOf) that
 * subtypes extend with `allOf: [{$ref: base}, {...}]`. The value of the discriminator property picks the
 * subtype, which is then checked in the base's place: its fields are documented, and its own constraints
 * apply too. Reading chosen: OAS 3.0.3 says the discriminator "is used to determine which schema
 * should be used to validate" the value, so the subtype's constraints add findings; 3.0.4/3.1.1 call the
 * discriminator a hint that must not change the outcome, under which only the base would assert. Either
 * way no subtype field is reported as undocumented.
 * @returns The findings, or undefined when the discriminator does not apply (no such property, not a
 *   string, or the value names the base itself) and the base is checked as usual.
 */
function dispatchDiscriminator(
  ctx: Context,
  schema: JsonObject,
  schemaPath: string,
  value: JsonObject,
  segments: Segment[],
  mode: Mode,
): InternalFinding[] | undefined {
  const discriminator = discriminatorOf(schema);
  if (!discriminator) return undefined;
  const chosen = value[discriminator.propertyName];
  if (typeof chosen !== 'string') return undefined;
  const location = `${schemaPath}\u0000${JSON.stringify(segments)}`;
  if (ctx.dispatching.has(location)) return undefined; // the base again, inside the subtype's allOf
  const values = discriminatorValues(ctx, schemaPath, discriminator.mapping);
  if (values.size === 0) return undefined; // nothing to choose from: the base is all there is
  const target = values.get(chosen);
  if (target === schemaPath) return undefined;
  ctx.dispatching.add(location);
  try {
    if (target === undefined) {
      const baseName = schemaPath.startsWith(`${schemaContainer(ctx)?.pointer}/`)
        ? schemaPath.slice(schemaPath.lastIndexOf('/') + 1)
        : undefined;
      if (
        baseName !== undefined &&
        Object.keys(discriminator.mapping).length === 0 &&
        chosen === unescapePointerToken(baseName)
      )
        return undefined;
      const allowed = [...values.keys()];
      const unknown = makeFinding(
        'enum',
        [...segments, discriminator.propertyName],
        `${schemaPath}/discriminator`,
        `is ${show(chosen)}, which names no schema of the discriminator: allowed values are ${quoted(ctx, allowed)}`,
        allowedOf(allowed),
      );
      return [unknown, ...evalNode(ctx, schema, schemaPath, value, segments, mode, [])];
    }
    const suffix = ` (subtype chosen by discriminator ${discriminator.propertyName}=${JSON.stringify(chosen)}: ${target})`;
    return evalSchema(ctx, { $ref: target }, schemaPath, value, segments, mode).map((f) =>
      f.message.includes(' (subtype chosen by ') ? f : { ...f, message: f.message + suffix },
    );
  } finally {
    ctx.dispatching.delete(location);
  }
}

/** How a finding names a oneOf/anyOf branch: its `$ref`, or its schema path. */
function branchLabel(branches: unknown[], schemaPath: string, kw: string, i: number): string {
  const b = branches[i];
  return isPlainObject(b) && typeof b.$ref === 'string' ? b.$ref : `${schemaPath}/${kw}/${i}`;
}

function evalAlternatives(
  ctx: Context,
  schema: JsonObject,
  kw: 'oneOf' | 'anyOf',
  schemaPath: string,
  value: unknown,
  segments: Segment[],
  mode: Mode,
): InternalFinding[] {
  const branches = schema[kw] as unknown[];
  const label = (i: number): string => branchLabel(branches, schemaPath, kw, i);
  // OAS 3.0.3 Discriminator Object: the property value picks the branch through mapping, or the schema name.
  const disc = schema.discriminator;
  if (
    isPlainObject(disc) &&
    typeof disc.propertyName === 'string' &&
    isPlainObject(value) &&
    typeof value[disc.propertyName] === 'string'
  ) {
    const dv = value[disc.propertyName] as string;
    const mapped =
      isPlainObject(disc.mapping) && typeof disc.mapping[dv] === 'string' ? (disc.mapping[dv] as string) : undefined;
    const idx = branches.findIndex((b) => {
      if (!isPlainObject(b) || typeof b.$ref !== 'string') return false;
      if (mapped === undefined) return b.$ref.endsWith(`/${escapePointerToken(dv)}`);
      return mapped.includes('/') ? b.$ref === mapped : b.$ref.endsWith(`/${mapped}`);
    });
    if (idx >= 0) {
      const suffix = ` (${kw} branch chosen by discriminator ${disc.propertyName}=${JSON.stringify(dv)}: ${label(idx)})`;
      return evalSchema(ctx, branches[idx], `${schemaPath}/${kw}/${idx}`, value, segments, mode).map((f) => ({
        ...f,
        message: f.message + suffix,
      }));
    }
    // A value no mapping key or branch name permits: one enum finding listing every permitted value (issue 7).
    const mappingKeys = isPlainObject(disc.mapping) ? Object.keys(disc.mapping) : [];
    const mappedTargets = new Set(
      mappingKeys.map((key) => mappingTarget(ctx, String((disc.mapping as JsonObject)[key]))),
    );
    const names = branches
      .filter(
        (b): b is JsonObject => isPlainObject(b) && typeof b.$ref === 'string' && !mappedTargets.has(b.$ref as string),
      )
      .map((b) => unescapePointerToken((b.$ref as string).slice((b.$ref as string).lastIndexOf('/') + 1)));
    const allowed = [...mappingKeys, ...names.filter((name) => !mappingKeys.includes(name))];
    // A mapping key whose schema is no branch is permitted by the mapping: the branches judge it, as without one.
    if (allowed.length > 0 && mapped === undefined) {
      return [
        makeFinding(
          'enum',
          [...segments, disc.propertyName],
          `${schemaPath}/discriminator`,
          `is ${show(dv)}, which names no schema of the discriminator: allowed values are ${quoted(ctx, allowed)}`,
          allowedOf(allowed),
        ),
      ];
    }
  }
  const results: InternalFinding[][] = [];
  let passed = branches.length === 0;
  for (let i = 0; i < branches.length; i++) {
    const result = evalSchema(ctx, branches[i], `${schemaPath}/${kw}/${i}`, value, segments, mode);
    results.push(result);
    if (result.length === 0) passed = true;
  }
  if (kw === 'oneOf') {
    const exclusive = checkOneOfExclusive(results, label, schemaPath, segments);
    if (exclusive) return exclusive;
  }
  if (passed) return [];
  if (kw === 'anyOf' && mode.owner && isPlainObject(value)) {
    // JSON Schema 2020-12 §10.2.1.2: annotations come from EVERY successful anyOf branch, so a field is
    // documented when any branch the value satisfies declares it. Each branch judged its own
    // fields only; the undocumented check at this location is redone on the union of the satisfied ones.
    const satisfied = results.map((r, i) => (r.some(fails) ? -1 : i)).filter((i) => i >= 0);
    if (satisfied.length > 0) {
      let union = mode.extra ?? emptyDocumented();
      for (const i of satisfied)
        union = mergeDocumented(
          ctx,
          `${schemaPath}/${kw}/${i}`,
          union,
          documentedOf(ctx, branches[i], `${schemaPath}/${kw}/${i}`, true, [], { value, segments }),
        );
      const own = (f: InternalFinding): boolean =>
        (f.kind === 'undocumented' || f.kind === 'writeOnly' || f.kind === 'readOnly') &&
        f.segments.length === segments.length + 1 &&
        f.path.startsWith(instancePath(segments));
      const kept: InternalFinding[] = [];
      checkDocumented(ctx, schemaPath, value, segments, union, kept);
      // Of the satisfied branches, the one with fewest remaining findings speaks for the rest of the value.
      const rest = satisfied.map((i) => results[i]!.filter((f) => !own(f)));
      rest.sort((a, b) => a.length - b.length);
      return [...kept, ...rest[0]!];
    }
  }
  // Closest: a branch whose type admits the value's JSON type at this instance location (no wrongType
  // here), then fewest error findings, then fewest findings; the first in document order on a tie.
  const at = instancePath(segments);
  const rank = (r: InternalFinding[]): number[] => [
    r.some((f) => f.kind === 'wrongType' && f.path === at) ? 1 : 0,
    r.filter((f) => f.severity === 'error').length,
    r.length,
  ];
  let best = 0;
  for (let i = 1; i < results.length; i++) {
    const a = rank(results[i]);
    const b = rank(results[best]);
    const d = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    if (d < 0) best = i;
  }
  const suffix = ` (closest of ${branches.length} ${kw} branches: ${label(best)})`;
  // Nested alternatives name the innermost branch only, so 40 levels do not make a 2 KB message.
  return results[best].map((f) => (f.message.includes(' (closest of ') ? f : { ...f, message: f.message + suffix }));
}

/**
 * oneOf's "exactly one" (JSON Schema Validation Wright draft 00 §5.24, whose oneOf the OAS 3.0.3 Schema
 * Object keeps; 2020-12 §10.2.1.3): a branch matches when it has no failed assertion and nothing left
 * unchecked (no notChecked or unresolvedRef finding). Two or more matching branches are one `constraint`
 * finding (keyword oneOf) at the instance, plus the other findings of the matching branch with fewest;
 * exactly one matching branch beside branches that could not be checked leaves the verdict open, said as
 * `notChecked` beside those branches' reasons. Otherwise undefined: the caller judges the branches.
 */
function checkOneOfExclusive(
  results: InternalFinding[][],
  label: (i: number) => string,
  schemaPath: string,
  segments: Segment[],
): InternalFinding[] | undefined {
  // The common case first, without closures: at most one branch without findings, none undecided-only.
  let clean = 0;
  let quiet = true;
  for (const r of results) {
    if (r.length === 0) clean++;
    else if (!r.some(fails)) quiet = false;
  }
  if (quiet && clean <= 1) return undefined;
  // A branch with a part not checked or a $ref not followed neither matches nor fails: it is undecided.
  const unchecked = (r: InternalFinding[]): boolean => r.some(undecided);
  const matching = results.map((r, i) => (r.some(fails) || unchecked(r) ? -1 : i)).filter((i) => i >= 0);
  const open = results.map((r, i) => (!r.some(fails) && unchecked(r) ? i : -1)).filter((i) => i >= 0);
  if (matching.length === 0 || (matching.length === 1 && open.length === 0)) return undefined;
  const names = (list: number[]): string => {
    const shown = list.length > 4 ? [...list.slice(0, 3).map(label), `${list.length - 3} more`] : list.map(label);
    return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  };
  // The matching branch with fewest findings speaks for the rest of the value (its warnings, e.g. undocumented fields).
  const best = matching.reduce((a, i) => (results[i]!.length < results[a]!.length ? i : a));
  const suffix = ` (matching oneOf branch: ${label(best)})`;
  const rest = results[best]!.map((f) =>
    f.message.includes(' (closest of ') || f.message.includes(' (matching oneOf branch: ')
      ? f
      : { ...f, message: f.message + suffix },
  );
  if (matching.length === 1) {
    return [
      makeFinding(
        'notChecked',
        segments,
        `${schemaPath}/oneOf`,
        `was not checked against oneOf: it matches ${label(matching[0]!)}, and whether it also matches ${names(open)} (which could not be checked) decides whether exactly one branch matches`,
        { keyword: 'oneOf' },
      ),
      ...rest,
      ...open.flatMap((i) => results[i]!.filter(undecided)),
    ];
  }
  return [
    makeFinding(
      'constraint',
      segments,
      `${schemaPath}/oneOf`,
      `matches ${matching.length} oneOf branches (${names(matching)}), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart`,
      { keyword: 'oneOf' },
    ),
    ...rest,
  ];
}

// ---------------------------------------------------------------- the quick pass

/**
 * The quick pass: most bodies have no finding, and proving that needs no instance paths, schema paths,
 * findings or memo keys. `quickPass` walks the same schema applications as `evalSchema` (no memo, so it
 * counts at least the walk's steps and enum charges against the same budget) and answers true only when
 * the walk would return no finding at all. Anything it does not model (oneOf, not, if, discriminators,
 * patternProperties, tuples, contains, `$ref` siblings, unsupported keywords, inexact numbers, a cycle,
 * the budget) aborts it with `QUICK_ABORT`; then, and whenever it met a finding, the full walk runs from
 * a fresh budget. It never reports anything itself.
 */
type Quick = {
  ctx: Context;
  plans: WeakMap<object, Plan>;
  alternatives: number; // anyOf branches being evaluated: inside one a finding must not end the pass early
  charged: unknown[][]; // enums this pass charged to the budget, given back if it does not decide
  active: string[]; // `$ref` targets being evaluated, outermost first (the walk's `active`)
  activeDepth: number[]; // the instance depth each was entered at
  counts: number[]; // schema applications per instance depth on the current path
  scratch: InternalFinding[];
};

/**
 * What the quick pass needs of one schema object, read once per document (schemas are not changed once
 * loaded): a fixed shape, so the pass reads fields instead of probing the schema for absent keywords.
 */
type Plan = {
  abort: number; // ABORT_* bits: what the quick pass leaves to the walk
  typeMask: number; // TYPE_* bits the type list admits; TYPE_ANY: no constraint (any value, even NaN)
  enumList: unknown[] | undefined;
  hasConst: boolean;
  string: boolean; // maxLength, minLength, pattern or format
  number: boolean; // a keyword `checkNumber` reads
  array: boolean; // maxItems, minItems, uniqueItems or items
  items: unknown;
  props: JsonObject | undefined;
  additional: JsonObject | undefined;
  required: unknown[] | undefined;
  counts: boolean; // maxProperties or minProperties
  allOf: unknown[] | undefined;
  anyOf: unknown[] | undefined;
  oneOf: unknown[] | undefined;
  ref: string | undefined; // a pure `$ref`: the chain's last pointer, with its target in `target`
  target: unknown;
  refFinding: boolean; // a `$ref` the walk reports (remote, dangling, looping, too long)
  documented: Documented | undefined; // the union, on first use
};

// JSON types as bits, so a type check is one AND (`typeBits` of the value, `Plan.typeMask` of the schema).
const TYPE_NULL = 1;
const TYPE_BOOLEAN = 2;
const TYPE_STRING = 4;
const TYPE_ARRAY = 8;
const TYPE_OBJECT = 16;
const TYPE_INTEGER = 32;
const TYPE_NUMBER = 64;
const TYPE_ANY = 127;

/** `matchesType` as bits: an integral number is both integer and number; NaN and Infinity neither. */
function typeBits(v: unknown): number {
  if (v === null) return TYPE_NULL;
  switch (typeof v) {
    case 'boolean':
      return TYPE_BOOLEAN;
    case 'string':
      return TYPE_STRING;
    case 'number':
      return Number.isInteger(v) ? TYPE_INTEGER | TYPE_NUMBER : Number.isFinite(v) ? TYPE_NUMBER : 0;
    case 'object':
      return Array.isArray(v) ? TYPE_ARRAY : TYPE_OBJECT;
    default:
      return 0;
  }
}

/** The bits of the values a type list admits; an unknown name (Swagger 2.0 `file`) admits any value, as in `matchesType`. */
function typeMaskOf(types: string[] | undefined): number {
  if (types === undefined || types.length === 0) return TYPE_ANY;
  let mask = 0;
  for (const t of types) {
    switch (t) {
      case 'null':
        mask |= TYPE_NULL;
        break;
      case 'boolean':
        mask |= TYPE_BOOLEAN;
        break;
      case 'string':
        mask |= TYPE_STRING;
        break;
      case 'integer':
        mask |= TYPE_INTEGER;
        break;
      case 'number':
        mask |= TYPE_NUMBER;
        break;
      case 'object':
        mask |= TYPE_OBJECT;
        break;
      case 'array':
        mask |= TYPE_ARRAY;
        break;
      default:
        return TYPE_ANY;
    }
  }
  return mask;
}

const ABORT_ALWAYS = 1;
const ABORT_OBJECT = 2;
const ABORT_ARRAY = 4;

/** Thrown (never escapes `quickPass`) when the quick pass cannot decide; the full walk runs instead. */
const QUICK_ABORT = new Error('quick pass cannot decide');
/** Schema applications at one instance location before the quick pass leaves it to the memoised walk. */
const QUICK_PER_LOCATION = 64;
/** Instance depth past which the quick pass leaves the value to the walk (its limit is 256). */
const QUICK_MAX_DEPTH = 128;
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

const quickPlans = new WeakMap<object, WeakMap<object, Plan>>();

/**
 * Whether the walk would find nothing applying `schema` to `value` at an instance location `depth`
 * levels deep, as its owner, inside `ctx.depth` nested `$ref`s. When it cannot say so, the steps and
 * enum charges it spent are given back, so the walk that follows counts exactly as it would alone.
 */
function quickPass(ctx: Context, schema: unknown, value: unknown, depth: number): boolean {
  if (
    ctx.stopped ||
    (ctx.inexact && (ctx.inexact.paths.size > 0 || ctx.inexact.unlisted || (ctx.inexact.texts?.size ?? 0) > 0))
  )
    return false;
  // A document with `$id`s resolves `#/...` from each resource's root, not the document's: the walk does that.
  if (ctx.index.embedded) return false;
  let plans = quickPlans.get(ctx.doc);
  if (!plans) quickPlans.set(ctx.doc, (plans = new WeakMap()));
  const q = (ctx.quick ??= {
    ctx,
    plans,
    alternatives: 0,
    charged: [],
    active: [],
    activeDepth: [],
    counts: [],
    scratch: [],
  });
  q.alternatives = 0;
  q.charged.length = 0;
  q.active.length = 0;
  q.activeDepth.length = 0;
  q.counts[depth] = 0;
  const steps = ctx.steps;
  let ok = false;
  try {
    ok = quickSchema(q, schema, value, depth, true, undefined);
  } catch (error) {
    if (error !== QUICK_ABORT && !(error instanceof RangeError)) throw error;
  }
  if (ok) return true;
  ctx.steps = steps;
  ctx.stopped = undefined;
  for (const list of q.charged) ctx.enums?.delete(list);
  return false;
}

function planOf(q: Quick, schema: JsonObject): Plan {
  let plan = q.plans.get(schema);
  if (!plan) q.plans.set(schema, (plan = makePlan(q.ctx, schema)));
  return plan;
}

function makePlan(ctx: Context, schema: JsonObject): Plan {
  let abort = 0;
  if (
    ['$dynamicRef', '$recursiveRef', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if'].some((k) =>
      hasOwn(schema, k),
    )
  )
    abort |= ABORT_ALWAYS;
  if (hasOwn(schema, 'oneOf') && !Array.isArray(schema.oneOf)) abort |= ABORT_ALWAYS;
  if (
    ['discriminator', 'dependentRequired', 'patternProperties', 'propertyNames', 'dependentSchemas'].some((k) =>
      hasOwn(schema, k),
    )
  )
    abort |= ABORT_OBJECT;
  if (Array.isArray(schema.prefixItems) || Array.isArray(schema.items) || hasOwn(schema, 'contains'))
    abort |= ABORT_ARRAY;
  const plan: Plan = {
    abort,
    typeMask: typeMaskOf(typeList(ctx, schema)),
    enumList: Array.isArray(schema.enum) ? schema.enum : undefined,
    hasConst: hasOwn(schema, 'const'),
    string:
      typeof schema.maxLength === 'number' ||
      typeof schema.minLength === 'number' ||
      typeof schema.pattern === 'string' ||
      typeof schema.format === 'string',
    number:
      NUMBER_KEYWORDS.some((k) => schema[k] !== undefined) || schema.format === 'int32' || schema.format === 'int64',
    array:
      typeof schema.maxItems === 'number' ||
      typeof schema.minItems === 'number' ||
      schema.uniqueItems === true ||
      schema.items !== undefined,
    items: schema.items,
    props: isPlainObject(schema.properties) ? schema.properties : undefined,
    additional: isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined,
    required: Array.isArray(schema.required) && schema.required.length > 0 ? schema.required : undefined,
    counts: typeof schema.maxProperties === 'number' || typeof schema.minProperties === 'number',
    allOf: Array.isArray(schema.allOf) ? schema.allOf : undefined,
    anyOf: Array.isArray(schema.anyOf) ? schema.anyOf : undefined,
    oneOf: Array.isArray(schema.oneOf) ? schema.oneOf : undefined,
    ref: undefined,
    target: undefined,
    refFinding: false,
    documented: undefined,
  };
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    if (!isPureRef(ctx, schema)) plan.abort |= ABORT_ALWAYS;
    else followForPlan(ctx, ref, plan);
  }
  return plan;
}

/** The end of a chain of pure `$ref`s as `enterRef` follows it; `refFinding` where the walk reports one. */
function followForPlan(ctx: Context, ref: string, plan: Plan): void {
  plan.refFinding = true;
  if (!ref.startsWith('#')) return;
  const seen = new Set([ref]);
  let current = ref;
  for (;;) {
    const hit = lookupPointer(ctx.doc, current);
    if (!hit.found) return;
    const target = hit.value;
    if (
      !isPlainObject(target) ||
      typeof target.$ref !== 'string' ||
      !isPureRef(ctx, target) ||
      !target.$ref.startsWith('#')
    ) {
      plan.refFinding = false;
      plan.ref = current;
      plan.target = target;
      return;
    }
    const next = target.$ref;
    if (seen.has(next) || seen.size >= MAX_REF_HOPS) return;
    seen.add(next);
    current = next;
  }
}

/** `evalSchema` in the quick pass: true when the walk would find nothing here. */
function quickSchema(
  q: Quick,
  schema: unknown,
  value: unknown,
  depth: number,
  owner: boolean,
  union: Documented | undefined,
): boolean {
  const ctx = q.ctx;
  ctx.steps++;
  if (ctx.steps > ctx.maxSteps) throw QUICK_ABORT;
  if ((ctx.steps & 255) === 0 && performance.now() > ctx.deadline) throw QUICK_ABORT;
  if (++q.counts[depth]! > QUICK_PER_LOCATION) throw QUICK_ABORT;
  if (schema === true || schema === undefined || schema === null) return true;
  if (schema === false) return false;
  if (!isPlainObject(schema)) return true;
  if (depth > QUICK_MAX_DEPTH) throw QUICK_ABORT;
  const plan = planOf(q, schema);
  if (plan.abort & ABORT_ALWAYS) throw QUICK_ABORT;
  if (plan.ref === undefined) {
    if (plan.refFinding) return false;
    return quickNode(q, plan, schema, value, depth, owner, union);
  }
  // The same $ref at the same location again: the walk cuts the cycle there; leave that to it.
  for (let i = q.active.length - 1; i >= 0 && q.activeDepth[i] === depth; i--)
    if (q.active[i] === plan.ref) throw QUICK_ABORT;
  if (ctx.depth + q.active.length >= MAX_REF_DEPTH) throw QUICK_ABORT;
  q.active.push(plan.ref);
  q.activeDepth.push(depth);
  const ok = quickSchema(q, plan.target, value, depth, owner, owner ? undefined : union);
  q.active.pop();
  q.activeDepth.pop();
  return ok;
}

/** A child location (property value or item): its own count of schema applications. */
function quickChild(q: Quick, schema: unknown, value: unknown, depth: number): boolean {
  q.counts[depth + 1] = 0;
  return quickSchema(q, schema, value, depth + 1, true, undefined);
}

/** `evalNode` in the quick pass. Evaluates every part, as the walk does, so no step is left uncounted. */
function quickNode(
  q: Quick,
  plan: Plan,
  schema: JsonObject,
  value: unknown,
  depth: number,
  owner: boolean,
  passed: Documented | undefined,
): boolean {
  const ctx = q.ctx;
  const object = isPlainObject(value);
  if (object && plan.abort & ABORT_OBJECT) throw QUICK_ABORT;
  let ok = true;
  const typeOk = plan.typeMask === TYPE_ANY || (plan.typeMask & typeBits(value)) !== 0;
  if (!typeOk) ok = false;
  // A number from 2^53 up is compared as its text (`largeNumberText`) by the walk, not by value here.
  if (typeOk && (plan.enumList || plan.hasConst) && typeof value === 'number' && largeNumberText(value) !== undefined)
    throw QUICK_ABORT;
  if (typeOk && plan.enumList) {
    const charged = ctx.enums?.has(plan.enumList) === true;
    const known = inEnum(ctx, plan.enumList, value);
    if (!charged) q.charged.push(plan.enumList);
    if (known === undefined) throw QUICK_ABORT;
    if (!known) ok = false;
  }
  if (typeOk && plan.hasConst && !deepEqual(schema.const, value)) ok = false;
  if (typeof value === 'string') {
    if (plan.string) {
      if (!quickString(schema, value)) ok = false;
      if (typeof schema.pattern === 'string' && performance.now() > ctx.deadline) throw QUICK_ABORT;
    }
  } else if (typeof value === 'number') {
    if (plan.number) {
      q.scratch.length = 0;
      checkNumber(schema, '', value, [], q.scratch);
      if (q.scratch.length > 0) ok = false;
    }
  } else if (Array.isArray(value)) {
    if (plan.abort & ABORT_ARRAY) throw QUICK_ABORT;
    if (plan.array && !quickArray(q, plan, schema, value, depth)) ok = false;
  }
  let union: Documented | undefined;
  if (object) {
    union = passed ?? (plan.documented ??= documentedOf(ctx, schema, '#', true));
    if (union.conditional) throw QUICK_ABORT; // what `then` / `dependentSchemas` document depends on the value
    if (!quickObject(q, plan, schema, value, depth, union)) ok = false;
  }
  if (plan.allOf) {
    for (const branch of plan.allOf) if (!quickSchema(q, branch, value, depth, false, union)) ok = false;
  }
  // oneOf / anyOf only where branches judge no undocumented field: each branch owns an object and judges its
  // keys on its own union (the walk does that). Every branch is evaluated fully, as the walk does.
  if ((plan.anyOf || plan.oneOf) && object) throw QUICK_ABORT;
  if (plan.oneOf) {
    // Exactly one branch without findings, every other one failing at its root (wrong type, enum, const,
    // a missing required field): then `checkOneOfExclusive` finds one match and none open, and it passes.
    const branches = plan.oneOf;
    let clean = 0;
    let cleanAt = -1;
    q.alternatives++;
    for (let i = 0; i < branches.length; i++) {
      if (quickSchema(q, branches[i], value, depth, false, union)) {
        clean++;
        cleanAt = i;
      }
    }
    q.alternatives--;
    if (clean !== 1) ok = false;
    else {
      for (let i = 0; i < branches.length; i++) {
        if (i !== cleanAt && !rootFails(q, branches[i], value, union, 0)) {
          ok = false;
          break;
        }
      }
    }
  }
  if (plan.anyOf) {
    let some = plan.anyOf.length === 0;
    q.alternatives++;
    for (const branch of plan.anyOf) if (quickSchema(q, branch, value, depth, false, union)) some = true;
    q.alternatives--;
    if (!some) ok = false;
  } else if (!plan.oneOf && owner && object && !quickDocumented(ctx, value, union!)) ok = false;
  // A finding outside any anyOf branch decides: the walk runs, so the rest need not be counted.
  if (!ok && q.alternatives === 0) throw QUICK_ABORT;
  return ok;
}

/**
 * Whether applying `schema` to `value` surely yields a failed assertion (`fails`) at this location: a
 * type the value does not have, an enum or const it misses, a required field it lacks (not excused as
 * writeOnly / readOnly by `union`), through pure `$ref`s and allOf. False when unsure.
 */
function rootFails(q: Quick, schema: unknown, value: unknown, union: Documented | undefined, depth: number): boolean {
  if (schema === false) return true;
  if (!isPlainObject(schema) || depth > 16) return false;
  const plan = planOf(q, schema);
  if (plan.abort & ABORT_ALWAYS) return false;
  if (plan.ref !== undefined) return rootFails(q, plan.target, value, union, depth + 1);
  if (plan.refFinding) return false;
  if (plan.typeMask !== TYPE_ANY && (plan.typeMask & typeBits(value)) === 0) return true;
  // The quick pass evaluated the branch, so its enum is charged already: this lookup costs no budget.
  if (plan.enumList && q.ctx.enums?.has(plan.enumList) && inEnum(q.ctx, plan.enumList, value) === false) return true;
  if (plan.hasConst && !deepEqual(schema.const, value)) return true;
  if (plan.required && union && isPlainObject(value)) {
    for (const name of plan.required)
      if (typeof name === 'string' && !hasOwn(value, name) && !scopedFlag(q.ctx, union, name)) return true;
  }
  if (plan.allOf) for (const branch of plan.allOf) if (rootFails(q, branch, value, union, depth + 1)) return true;
  return false;
}

function quickString(schema: JsonObject, value: string): boolean {
  if (typeof schema.maxLength === 'number' || typeof schema.minLength === 'number') {
    const len = codePoints(value);
    if (typeof schema.maxLength === 'number' && len > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && len < schema.minLength) return false;
  }
  if (typeof schema.pattern === 'string') {
    const compiled = compilePattern(schema.pattern);
    if ('reason' in compiled || compiled.test(value) !== true) return false;
  }
  return typeof schema.format !== 'string' || stringFormatProblem(schema.format, value) === undefined;
}

function quickArray(q: Quick, plan: Plan, schema: JsonObject, value: unknown[], depth: number): boolean {
  let ok = true;
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) ok = false;
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) ok = false;
  if (schema.uniqueItems === true) {
    const seen = new Set<string>();
    for (const item of value) {
      const key = canonical(item);
      if (seen.has(key)) {
        ok = false;
        break;
      }
      seen.add(key);
    }
  }
  const rest = plan.items;
  if (rest === false && value.length > 0) ok = false;
  else if (rest !== undefined) {
    for (let i = 0; i < value.length; i++) if (!quickChild(q, rest, value[i], depth)) ok = false;
  }
  return ok;
}

function quickObject(
  q: Quick,
  plan: Plan,
  schema: JsonObject,
  value: JsonObject,
  depth: number,
  union: Documented,
): boolean {
  let ok = true;
  if (plan.required) {
    for (const name of plan.required) {
      if (typeof name === 'string' && !hasOwn(value, name) && !scopedFlag(q.ctx, union, name)) ok = false;
    }
  }
  if (plan.counts) {
    const count = Object.keys(value).length;
    if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) ok = false;
    if (typeof schema.minProperties === 'number' && count < schema.minProperties) ok = false;
  }
  const props = plan.props;
  const additional = plan.additional;
  if (!props && !additional) return ok;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (props && hasOwn(props, k)) {
      if (!quickChild(q, props[k], value[k], depth)) ok = false;
    } else if (additional) {
      if (!quickChild(q, additional, value[k], depth)) ok = false;
    }
  }
  return ok;
}

/** `checkDocumented` in the quick pass: true when no key is undocumented, writeOnly (response) or readOnly (request). */
function quickDocumented(ctx: Context, value: JsonObject, documented: Documented): boolean {
  const checked = documented.declares && !documented.open && (!documented.unevaluated || !!documented.closedAt);
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (documented.names.has(k)) {
      if (scopedFlag(ctx, documented, k)) return false;
      continue;
    }
    if (checked && !patternCovers(documented.patterns, k)) return false;
  }
  return true;
}

function makeCtx(doc: unknown, direction: Direction | undefined, options?: CheckOptions): Context {
  if (!isPlainObject(doc))
    throw new TypeError(`Expected \`doc\` to be a parsed OpenAPI document object, got ${jsonType(doc)}`);
  const started = performance.now();
  const maxSteps = options?.maxSteps ?? DEFAULT_MAX_STEPS;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const index = schemaIndex(doc);
  return {
    doc,
    index,
    refs: (index.resolved ??= new Map()),
    evaluating: new Set(),
    ...(index.dynamicAnchors.size > 0 ? { scope: [] } : {}),
    dialect: dialectOf(doc),
    direction: direction ?? 'response',
    active: new Set(),
    depth: 0,
    steps: 0,
    maxSteps,
    started,
    deadline: started + timeoutMs,
    memo: new Map(),
    ids: new Map(),
    dispatching: new Set(),
    locations: new Map(),
    ...(options?.inexactNumbers ? { inexact: options.inexactNumbers } : {}),
    ...(options?.clean ? { clean: options.clean } : {}),
  };
}

/**
 * Validates a value against a schema of the document and lists what is wrong.
 *
 * Dialect from the document: `openapi: 3.1.x` reads schemas as JSON Schema 2020-12 (type arrays, `const`,
 * `$ref` siblings apply, no `nullable`); `3.0.x` as the OAS 3.0.3 Schema Object (`nullable` widens `type` in
 * the same object only, `$ref` siblings ignored); `swagger: 2.0` likewise with `x-nullable`. A document with
 * neither (e.g. `{}`) reads as 2020-12.
 *
 * Severities (the `SEVERITY` table): missing, wrongType, enum, constraint, undocumentedStatus = error;
 * undocumented (an error under `additionalProperties: false`), writeOnly (in a response), readOnly (in a
 * request), unresolvedRef = warning; format = info.
 *
 * Composition: allOf branches all apply, and a field declared in ANY branch is documented (the union).
 * oneOf/anyOf: if some branch yields no finding, none are reported; otherwise the findings of the closest
 * branch, each message naming it, e.g. `(closest of 3 oneOf branches: #/components/schemas/Cat)`: the
 * branch a discriminator's propertyName + mapping picks; else a branch whose type admits the value's JSON
 * type at its root (one that rejects it is farthest), then fewest error findings, then fewest findings,
 * then document order. oneOf also asserts "exactly one": a value that two or more branches match is a
 * `constraint` finding (keyword oneOf) naming them (JSON Schema Validation Wright draft 00 §5.24 for
 * OAS 3.0.3; 2020-12 §10.2.1.3), except where a discriminator picked the branch.
 * not / if / contains / propertyNames judge a subschema as matching when it has no failed assertion
 * (missing, wrongType, enum, constraint, or an undocumented key under additionalProperties: false).
 * `$ref` resolves against the base URI where it stands (`$id`, §8.2.1), to a JSON Pointer from that resource or an
 * `$anchor`; `$dynamicRef` through the dynamic scope (§8.2.3.2). unevaluatedProperties / unevaluatedItems judge what
 * no keyword evaluated, collected through $ref, allOf, the anyOf / oneOf branches that pass, if + then / else and
 * present dependentSchemas (§11); a field the applying then / else / dependentSchemas branch declares is documented.
 *
 * @param schema A Schema Object, `{$ref}`, or a boolean schema.
 * @param value The parsed JSON value to check.
 * @param options `direction` (default 'response') scopes readOnly/writeOnly (OAS 3.0.3 Schema Object);
 *   `at` is the schema path of `schema` (default `#`), the prefix of every finding's `schemaPath`;
 *   `maxSteps` (default `DEFAULT_MAX_STEPS`) and `timeoutMs` (default `DEFAULT_CHECK_TIMEOUT_MS`, ms) bound
 *   the work; `spent.steps` grows by the steps used, so several checks can share one step budget. Results
 *   are memoised per `$ref` target, instance location and value, so `anyOf: [S, S]` nested 40 deep costs 40
 *   evaluations, not 2^40.
 * @returns Findings sorted by instance path (parents first, indexes numerically), then kind; `[]` when valid.
 *   Never throws on data. A remote or dangling `$ref` is an `unresolvedRef` finding, and so is a chain of
 *   nothing but `$ref`s that loops (A -> B -> A) and never reaches a schema; a finite chain is followed to
 *   its end (up to `MAX_REF_HOPS`); any other `$ref` cycle that comes back to the same instance location
 *   is cut there. What could not be checked is a `notChecked` finding (severity warning) saying why:
 *   values nested deeper than 256 levels, schemas nested more than 256 `$ref`s or too deep for the stack,
 *   a pattern that cannot run in linear time (see `compilePattern`); when the budget runs out, the result
 *   is that one `notChecked` finding at `$` (partial branch decisions are not reported).
 * @throws TypeError when `doc` is not an object (unusable input).
 */
export function check(doc: unknown, schema: unknown, value: unknown, options?: CheckOptions): Finding[] {
  const ctx = makeCtx(doc, options?.direction, options);
  try {
    return checkIn(ctx, schema, value, options);
  } finally {
    if (options?.spent) options.spent.steps += ctx.steps;
  }
}

function checkIn(ctx: Context, schema: unknown, value: unknown, options?: CheckOptions): Finding[] {
  const at = options?.at ?? '#';
  // Most bodies have no finding: the quick pass proves that without building paths; otherwise the walk runs.
  if (quickPass(ctx, schema, value, 0)) return [];
  let found: InternalFinding[];
  try {
    found = evalSchema(ctx, schema, at, value, [], OWN);
  } catch (error) {
    // A schema whose nesting still exhausts the stack (allOf inside allOf thousands deep): too deep, never a crash.
    if (!(error instanceof RangeError)) throw error;
    return finish([
      makeFinding(
        'notChecked',
        [],
        at,
        'was not checked: the schema nests too deeply for the stack (too deep to check)',
      ),
    ]);
  }
  if (ctx.stopped) {
    // Past the budget the branch decisions (anyOf, not, if) rest on partial results: report only the stop.
    return finish([
      makeFinding(
        'notChecked',
        [],
        at,
        `was not checked completely: the check stopped because ${ctx.stopped}; no finding is reported, since the parts checked so far cannot be judged alone`,
      ),
    ]);
  }
  return finish(found);
}

// ---------------------------------------------------------------- operations, responses, media types

type OpInfo = { op: JsonObject; opPath: string; item: JsonObject; itemPath: string };

/**
 * Follows a chain of `$ref`s from `path` with the core's `follow`, keeping where the target lives for
 * schema paths. `error` says why there is none: a pointer that resolves to nothing (`path`: where that
 * `$ref` sits), or a chain that loops (A -> B -> A; `path`: where the chain starts).
 */
function followAt(doc: JsonObject, node: unknown, path: string): { node: unknown; path: string; error?: string } {
  const hit = follow(doc, node);
  if (hit.error) return { node: undefined, path: hit.looped ? path : (hit.pointer ?? path), error: hit.error };
  return { node: hit.value, path: hit.pointer ?? path };
}

function findOp(doc: JsonObject, method: string, pathTemplate: string): OpInfo | undefined {
  // The core's operation index, built once per document object and shared with the loader.
  const operations = operationsOf(doc, dialectOf(doc));
  const upper = method.toUpperCase();
  const operation = operations.find(
    (candidate) => candidate.method === upper && candidate.pathTemplate === pathTemplate,
  );
  if (!operation) return undefined;
  // The index keeps the Operation Object's location; its raw objects give schema paths after `$ref`.
  const item = followAt(doc, (doc.paths as JsonObject)[pathTemplate], `#/paths/${escapePointerToken(pathTemplate)}`);
  const lower = method.toLowerCase();
  if (!isPlainObject(item.node) || !isPlainObject(item.node[lower])) return undefined;
  return { op: item.node[lower] as JsonObject, opPath: `${item.path}/${lower}`, item: item.node, itemPath: item.path };
}

type ResponseEntry = { statusKey: string; response: unknown; path: string; error?: string };

function findResponse(doc: JsonObject, info: OpInfo, status: number): ResponseEntry | undefined {
  const entry = responseForStatus(info.op.responses, status);
  if (!entry) return undefined;
  const hit = followAt(doc, entry.response, `${info.opPath}/responses/${escapePointerToken(entry.key)}`);
  return { statusKey: entry.key, response: hit.node, path: hit.path, error: hit.error };
}

type Located = { target?: ResponseTarget; reason?: string; finding?: Finding };

function locateInContainer(
  doc: JsonObject,
  container: JsonObject,
  containerPath: string,
  key: string,
  contentType: string | undefined,
  what: string,
): Located {
  if (dialectOf(doc) === '2.0') {
    if (container.schema === undefined)
      return { reason: `${what} declares no schema, so there is nothing to check the body against.` };
    return { target: { schema: container.schema, schemaPath: `${containerPath}/schema`, statusKey: key } };
  }
  const content = container.content;
  if (!isPlainObject(content) || Object.keys(content).length === 0) {
    return { reason: `${what} declares no content, so there is no body schema to check against.` };
  }
  const mediaKey = pickMediaType(content, contentType);
  const listed = Object.keys(content).join(', ');
  if (mediaKey === undefined) {
    return {
      reason: contentType
        ? `Content-Type ${contentType} is not documented for ${what} (documented: ${listed}); the body was not checked.`
        : `${what} documents no JSON media type (documented: ${listed}); the body was not checked.`,
    };
  }
  const media = content[mediaKey];
  if (!isPlainObject(media) || media.schema === undefined) {
    return { reason: `${what} declares ${mediaKey} without a schema, so there is nothing to check the body against.` };
  }
  return {
    target: {
      schema: media.schema,
      schemaPath: `${containerPath}/content/${escapePointerToken(mediaKey)}/schema`,
      statusKey: key,
      mediaType: mediaKey,
    },
  };
}

function locateResponse(
  doc: JsonObject,
  method: string,
  pathTemplate: string,
  status: number,
  contentType: string | undefined,
): Located {
  const upperMethod = method.toUpperCase();
  const info = findOp(doc, method, pathTemplate);
  if (!info) return { reason: `The document has no operation ${upperMethod} ${pathTemplate}.` };
  const entry = findResponse(doc, info, status);
  if (!entry) {
    const c = String(Math.trunc(status / 100));
    const message = `status ${status} is not documented for ${upperMethod} ${pathTemplate}: responses has no '${status}', '${c}XX' or 'default' entry`;
    return {
      reason: `Status ${status} is not documented for ${upperMethod} ${pathTemplate}, so the body was not checked.`,
      finding: {
        kind: 'undocumentedStatus',
        severity: SEVERITY.undocumentedStatus,
        path: '$',
        schemaPath: `${info.opPath}/responses`,
        message,
      },
    };
  }
  if (entry.error || !isPlainObject(entry.response)) {
    const message = `was not checked: the '${entry.statusKey}' response could not be resolved (${entry.error ?? 'not an object'})`;
    return {
      reason: `The '${entry.statusKey}' response of ${upperMethod} ${pathTemplate} could not be resolved: ${entry.error ?? 'not an object'}.`,
      finding: { kind: 'unresolvedRef', severity: SEVERITY.unresolvedRef, path: '$', schemaPath: entry.path, message },
    };
  }
  return locateInContainer(
    doc,
    entry.response,
    entry.path,
    entry.statusKey,
    contentType,
    `the '${entry.statusKey}' response of ${upperMethod} ${pathTemplate}`,
  );
}

/**
 * Finds the schema of the response an operation documents for a status (OAS 3.0.3 / 3.1.0 Responses
 * Object): the exact code, then the range `NXX` (also `Nxx`), then `default`. Response `$ref`s are followed
 * (`#/components/responses/...`, `#/responses/...`). For 3.x the content entry is picked by media-type
 * essence (type/subtype, case-insensitive, parameters ignored; RFC 9110 §8.3.1): with `contentType`
 * exact, then `type/*`, then `*\/*`; without it `application/json`, then any `application/*+json`, then
 * `*\/*`. Swagger 2.0: `responses[code].schema`.
 * @param method HTTP method, any case. @param pathTemplate The Paths Object key, e.g. `/meters/{id}`.
 * @param status HTTP status code. @param contentType The response Content-Type header, if any.
 * @returns The schema and its JSON Pointer, or `undefined` when there is no such operation, no entry covers
 *   the status, no content entry matches, or the entry has no schema. Never throws on a usable document.
 * @throws TypeError when `doc` is not an object.
 */
export function schemaFor(
  doc: unknown,
  method: string,
  pathTemplate: string,
  status: number,
  contentType?: string,
): ResponseTarget | undefined {
  makeCtx(doc, 'response');
  return locateResponse(doc as JsonObject, method, pathTemplate, status, contentType).target;
}

/**
 * Checks a response against the document: finds its schema with `schemaFor` and runs `check` with
 * direction 'response' (a writeOnly field present is a finding; a required writeOnly field is not required).
 * @param response `status`, the Content-Type header if any, and the parsed body (`undefined`: no body).
 * @returns `validated: false` with an agent-facing `reason` when there is nothing to check against (no such
 *   operation, undocumented status, no matching media type, no schema, no body); an undocumented status also
 *   yields one `undocumentedStatus` finding at `$`, and a response `$ref` that points nowhere or whose chain
 *   loops (the reason names the pointers) one `unresolvedRef` finding at `$`. When a part of the body could
 *   not be checked (the budget ran out, the schema or value is too deep, a pattern cannot run safely, a `$ref`
 *   could not be followed) the findings include `notChecked` or `unresolvedRef` ones and the result is
 *   `validated: false` with a reason naming the first.
 *   Never throws on data.
 * @param budget `maxSteps` and `timeoutMs` (ms) of the check, defaults as in `check`.
 * @throws TypeError when `doc` is not an object.
 */
export function checkResponse(
  doc: unknown,
  method: string,
  pathTemplate: string,
  response: { status: number; contentType?: string; body: unknown },
  budget?: CheckBudget,
): ResponseCheck {
  makeCtx(doc, 'response');
  const loc = locateResponse(doc as JsonObject, method, pathTemplate, response.status, response.contentType);
  return finishCheck(doc, loc, response.body, 'response', budget);
}

function finishCheck(
  doc: unknown,
  loc: Located,
  body: unknown,
  direction: Direction,
  budget?: CheckBudget,
): ResponseCheck {
  if (!loc.target) return { validated: false, reason: loc.reason, findings: loc.finding ? [loc.finding] : [] };
  if (body === undefined) {
    return {
      validated: false,
      reason: 'There is no body to check (empty, or not parsed as JSON).',
      target: loc.target,
      findings: [],
    };
  }
  const findings = check(doc, loc.target.schema, body, { ...budget, direction, at: loc.target.schemaPath });
  // A part that could not be checked (budget, depth, an unsafe pattern) means no verdict: never a false pass.
  // A `$ref` that could not be followed left its part unchecked just the same.
  const skipped = findings.filter(undecided);
  if (skipped.length > 0) {
    const first = skipped[0]!;
    const more = skipped.length > 1 ? ` (and ${skipped.length - 1} more part${skipped.length > 2 ? 's' : ''})` : '';
    const reason =
      first.kind === 'unresolvedRef' && first.path === '$'
        ? `The ${direction} schema could not be followed, so the body was not checked: ${first.message}${more}.`
        : `Part of the body was not checked: ${first.path} ${first.message}${more}.`;
    return { validated: false, reason, target: loc.target, findings };
  }
  return { validated: true, target: loc.target, findings };
}

/**
 * Checks a request body against the operation's requestBody (OAS 3.x, `$ref` to
 * `#/components/requestBodies/...` followed; media type picked as in `schemaFor`) or its `in: body`
 * parameter (Swagger 2.0), with direction 'request' (a readOnly field sent is a finding; a required
 * readOnly field is not required). The target's `statusKey` is `'requestBody'`.
 * @param budget As `checkResponse`'s (`clean` included).
 * @returns As `checkResponse`; `validated: false` with a reason when the operation declares no body schema.
 * @throws TypeError when `doc` is not an object.
 */
export function checkRequestBody(
  doc: unknown,
  method: string,
  pathTemplate: string,
  body: unknown,
  contentType?: string,
  budget?: CheckBudget,
): ResponseCheck {
  const ctx = makeCtx(doc, 'request');
  const upperMethod = method.toUpperCase();
  const info = findOp(ctx.doc, method, pathTemplate);
  if (!info)
    return { validated: false, reason: `The document has no operation ${upperMethod} ${pathTemplate}.`, findings: [] };
  const what = `the request body of ${upperMethod} ${pathTemplate}`;
  if (ctx.dialect === '2.0') {
    const params: { p: unknown; path: string }[] = [];
    if (Array.isArray(info.item.parameters))
      info.item.parameters.forEach((p, i) => params.push({ p, path: `${info.itemPath}/parameters/${i}` }));
    if (Array.isArray(info.op.parameters))
      info.op.parameters.forEach((p, i) => params.push({ p, path: `${info.opPath}/parameters/${i}` }));
    for (const { p, path } of params) {
      const f = followAt(ctx.doc, p, path);
      if (isPlainObject(f.node) && f.node.in === 'body') {
        return finishCheck(
          doc,
          locateInContainer(ctx.doc, f.node, f.path, 'requestBody', contentType, what),
          body,
          'request',
          budget,
        );
      }
    }
    return { validated: false, reason: `${upperMethod} ${pathTemplate} declares no body parameter.`, findings: [] };
  }
  if (info.op.requestBody === undefined)
    return { validated: false, reason: `${upperMethod} ${pathTemplate} declares no requestBody.`, findings: [] };
  const f = followAt(ctx.doc, info.op.requestBody, `${info.opPath}/requestBody`);
  if (!isPlainObject(f.node)) {
    return {
      validated: false,
      reason: `The requestBody of ${upperMethod} ${pathTemplate} could not be resolved: ${f.error ?? 'not an object'}.`,
      findings: [
        {
          kind: 'unresolvedRef',
          severity: SEVERITY.unresolvedRef,
          path: '$',
          schemaPath: f.path,
          message: `was not checked: the requestBody could not be resolved (${f.error ?? 'not an object'})`,
        },
      ],
    };
  }
  return finishCheck(
    doc,
    locateInContainer(ctx.doc, f.node, f.path, 'requestBody', contentType, what),
    body,
    'request',
    budget,
  );
}

// ---------------------------------------------------------------- across probes

function pathStep(base: string, key: string | '[]'): string {
  if (key === '[]') return `${base}[]`;
  return instancePath([key]).replace(/^\$/, base);
}

/**
 * The `items` schema of an array schema, looked for through `$ref`s and `allOf` / `oneOf` / `anyOf` up to 16 levels.
 * Each schema is searched once per call (again only when reached at a shallower level, where the cut-off is later):
 * a web of `$ref`s that fans out (6 `allOf` refs a level, 12 levels) is not searched along all 6^12 paths.
 */
function itemsOf(
  ctx: Context,
  schema: unknown,
  depth = 0,
  searched = new Map<object, number>(),
): { schema: unknown; schemaPath?: string } | undefined {
  if (!isPlainObject(schema) || depth > 16) return undefined;
  const before = searched.get(schema);
  if (before !== undefined && before <= depth) return undefined;
  searched.set(schema, depth);
  if (typeof schema.$ref === 'string') {
    // No schema path is known here: the reference is resolved from the document's base (a pointer, `$id` or anchor).
    const target = resolveRef(ctx, schema.$ref, '#');
    if (!target.found) return undefined;
    const hit = itemsOf(ctx, target.value, depth + 1, searched);
    if (hit) return hit;
  }
  if (schema.items !== undefined && !Array.isArray(schema.items)) return { schema: schema.items };
  for (const kw of ['allOf', 'oneOf', 'anyOf']) {
    const list = schema[kw];
    if (!Array.isArray(list)) continue;
    for (const b of list) {
      const hit = itemsOf(ctx, b, depth + 1, searched);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** What `measurePresence` found: the rows, and what it did not compare and why (empty when nothing was left out). */
export type PresenceReport = { fields: FieldPresence[]; notes: string[] };

/**
 * Declared fields `measurePresence` lists at most (issue 8: every walk has a step budget). The document's declared
 * fields are walked without the bodies, so a document whose `$ref`s fan out (30 properties per level, 12 levels:
 * 30^12 paths) must not take the walk past the worker's deadline.
 */
export const MAX_DECLARED_FIELDS = 5_000;

/**
 * Counts how often each field appears across several bodies of ONE operation.
 * @param schema The body schema (may be `{$ref}`), or `undefined` to count fields only.
 * @param bodies Parsed bodies, one per probe.
 * @param options `direction` scopes `required` as in `check` (a required writeOnly field is not required in
 *   a response); `maxSteps` bounds the declared fields walked (default `MAX_DECLARED_FIELDS`).
 * @returns `fields`: one row per field seen in any body or declared in the schema (also nested object fields,
 *   and fields of array elements as `$.items[].name`, counted per element); `of` is how many times the parent
 *   object was seen; `documented` means a property, patternProperties or additionalProperties covers it;
 *   `text` reads `present in 2 of 3`. Sorted by path. `notes`: what was not compared (declared fields past the
 *   budget, a schema nested deeper than MAX_REF_DEPTH, a body deeper than 64 levels). Never throws on data.
 * @throws TypeError when `doc` is not an object.
 */
export function measurePresence(
  doc: unknown,
  schema: unknown,
  bodies: unknown[],
  options?: CheckOptions,
): PresenceReport {
  const ctx = makeCtx(doc, options?.direction);
  const rows = new Map<string, { parent: string; documented: boolean; required: boolean; present: number }>();
  const parents = new Map<string, number>();
  const row = (path: string, parent: string) => {
    let r = rows.get(path);
    if (!r) {
      r = { parent, documented: false, required: false, present: 0 };
      rows.set(path, r);
    }
    return r;
  };
  const maxDeclared = options?.maxSteps ?? MAX_DECLARED_FIELDS;
  let declaredLeft = maxDeclared;
  let declaredCut = false;
  let tooDeep: string | undefined;
  let bodyTooDeep = false;
  const noteDepth = (documented: Documented) => {
    tooDeep ??= documented.tooDeep;
  };
  // Declared fields, without unrolling recursive schemas: a schema already being declared above stops the walk.
  const declaring = new Set<unknown>();
  const declare = (schemaNode: unknown, schemaPath: string, parentPath: string, depth: number): void => {
    const resolved = followAt(ctx.doc, schemaNode, schemaPath).node;
    if (depth > 16 || resolved === undefined || declaring.has(resolved)) return;
    declaring.add(resolved);
    const documented = documentedOf(ctx, schemaNode, schemaPath, true);
    noteDepth(documented);
    for (const [name, locs] of documented.names) {
      const fieldPath = pathStep(parentPath, name);
      if (!rows.has(fieldPath) && --declaredLeft < 0) {
        declaredCut = true;
        break;
      }
      const r = row(fieldPath, parentPath);
      r.documented = true;
      if (documented.required.has(name) && !scopedFlag(ctx, documented, name)) r.required = true;
      declare(locs[0].schema, locs[0].schemaPath, fieldPath, depth + 1);
    }
    const items = declaredCut ? undefined : itemsOf(ctx, schemaNode);
    if (items) declare(items.schema, '#', `${parentPath}[]`, depth + 1);
    declaring.delete(resolved);
  };
  const walk = (value: unknown, schemaNode: unknown, parentPath: string, depth: number): void => {
    if (depth > 64) {
      bodyTooDeep = true;
      return;
    }
    if (Array.isArray(value)) {
      const items = schemaNode === undefined ? undefined : itemsOf(ctx, schemaNode);
      for (const el of value) walk(el, items?.schema, `${parentPath}[]`, depth + 1);
      return;
    }
    if (!isPlainObject(value)) return;
    parents.set(parentPath, (parents.get(parentPath) ?? 0) + 1);
    const documented = schemaNode === undefined ? undefined : documentedOf(ctx, schemaNode, '#', true);
    if (documented) noteDepth(documented);
    for (const k of Object.keys(value)) {
      const fieldPath = pathStep(parentPath, k);
      const r = row(fieldPath, parentPath);
      r.present++;
      let child: unknown;
      if (documented) {
        const locs = documented.names.get(k);
        const pat = documented.patterns.find((p) => p.test(k) === true);
        if (locs || pat || documented.open || documented.unevaluated) r.documented = true;
        if (documented.required.has(k) && !scopedFlag(ctx, documented, k)) r.required = true;
        child = locs?.[0].schema ?? pat?.loc.schema ?? documented.additional[0]?.schema;
      }
      walk(value[k], child, fieldPath, depth + 1);
    }
  };
  if (schema !== undefined) declare(schema, options?.at ?? '#', '$', 0);
  for (const b of bodies) walk(b, schema, '$', 0);
  const fields = [...rows]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, r]) => {
      const of = parents.get(r.parent) ?? 0;
      return {
        path,
        required: r.required,
        documented: r.documented,
        present: r.present,
        of,
        text: `present in ${r.present} of ${of}`,
      };
    });
  const notes: string[] = [];
  if (declaredCut)
    notes.push(
      `The schema declares more than ${maxDeclared} fields (its $refs fan out), so declared fields past the first ${maxDeclared} are not listed; every field seen in the bodies is.`,
    );
  if (tooDeep !== undefined)
    notes.push(
      `The schema nests allOf/oneOf/anyOf/$ref more than ${MAX_REF_DEPTH} levels deep at ${boundedText(tooDeep, 200)}: what it declares below that was not compared, and no field there is called undocumented.`,
    );
  if (bodyTooDeep) notes.push('Fields nested deeper than 64 levels in a body were not counted.');
  return { fields, notes };
}

/**
 * Counts how often each field appears across several bodies of ONE operation: the rows of `measurePresence`
 * (see there), without its notes.
 */
export function fieldPresence(
  doc: unknown,
  schema: unknown,
  bodies: unknown[],
  options?: CheckOptions,
): FieldPresence[] {
  return measurePresence(doc, schema, bodies, options).fields;
}
