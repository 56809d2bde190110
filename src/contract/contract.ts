/**
 * The contract: what a probed response, a draft request or an intent means against the OpenAPI
 * document. No MCP, no HTTP: plain data in, plain data out. The server and the CLI sit on top of it;
 * it sits on the schema checks (`validate.ts`) and the document core (`openapi-document.ts`).
 */
import { boundedText } from '../shared/text.ts';
import { check, checkRequestBody, checkResponse, fieldPresence, inferShape, measurePresence, schemaFor } from '../../validate.ts';
import { resolvePointer } from '../shared/json-pointer.ts';
import type { FieldPresence, Finding, InexactNumbers } from '../../validate.ts';
import type { BodyWarning } from '../shared/json-text.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';
import { renderTypeScriptWithin, typeName } from './typescript.ts';
import type { Observed } from './typescript.ts';
import { editDistance } from '../shared/text.ts';
import { escapePointerToken, unescapePointerToken } from '../shared/json-pointer.ts';
import { follow, responseForStatus } from '../document/refs.ts';
import { matchOperation } from '../document/match.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import type { LoadedDocument, Operation, Parameter } from '../document/model.ts';
import type { PathMatch } from '../document/match.ts';

import { isPlainObject } from '../shared/values.ts';
/** What the contract needs of one GET's outcome (the server's `ProbeResult` has these fields). */
export type ProbedResponse = {
  status: number;
  /** The Content-Type header as sent, or null. */
  contentType: string | null;
  /** Body bytes after content decoding. */
  bytes: number;
  /** True when the body was cut at the budget. */
  truncated: boolean;
  /** Parsed JSON, text, or null for a binary body. */
  body: unknown;
  /** Set when the body could not be read as the media type says (binary, cut, unparsable JSON). */
  note?: string;
  /** Remarks about the JSON text itself (duplicate names, changed numbers, depth): added to the findings as they are. */
  warnings?: BodyWarning[];
  /** Line-framed JSON (NDJSON, JSON Lines, json-seq): each record parsed; checked one by one against the schema. */
  records?: { line: number; value?: unknown; problem?: string }[];
};

/** The operation's key in session memory: `GET /meters/{meterId}`. */
export function operationKey(operation: Operation): string {
  return `${operation.method} ${operation.pathTemplate}`;
}

/** The operation as results show it: method, path template, operationId when it has one (each at most `MAX_TEXT` characters). */
export function summarize(operation: Operation): { method: string; pathTemplate: string; operationId?: string } {
  return { method: operation.method, pathTemplate: boundedText(operation.pathTemplate, MAX_TEXT), ...(operation.operationId ? { operationId: boundedText(operation.operationId, MAX_TEXT) } : {}) };
}

/**
 * Longest string a document supplies that a result repeats (summary, description, title, enum value, pattern,
 * default, property or parameter name, operationId), in characters: past it, cut with `… (N more characters)`
 * (issue 8, attack round 3 F6: a 10 MiB summary made a 21 MB answer).
 */
export const MAX_TEXT = 1_000;

/**
 * A copy of JSON data with every string and every property name longer than `max` characters cut by
 * `boundedText`; a cut name that meets another gets ` #2`, ` #3`... after it. Never throws; cycles are not expected
 * (JSON data).
 */
function cutLongStrings(value: unknown, max = MAX_TEXT, depth = 0): unknown {
  if (typeof value === 'string') return boundedText(value, max);
  if (value === null || typeof value !== 'object' || depth > 256) return value;
  if (Array.isArray(value)) return value.map((item) => cutLongStrings(item, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    let name = boundedText(key, max);
    for (let counter = 2; name !== key && Object.hasOwn(out, name); counter++) name = `${boundedText(key, max)} #${counter}`;
    out[name] = cutLongStrings(item, max, depth + 1);
  }
  return out;
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
export function findOperation(loaded: LoadedDocument, basePrefix: string, requestPath: string, relativePath: string, method = 'GET'): PathMatch {
  const prefix = basePrefix;
  const whole = matchOperation(loaded, method, requestPath);
  if (whole.operation) {
    // Stripping the base URL's own prefix is the normal case, not worth a note.
    const note = whole.note?.split('; ').filter((part) => part !== `base path ${prefix} stripped`).join('; ');
    return { ...whole, note: note || undefined };
  }
  if (prefix === '') return whole;
  const relative = matchOperation(loaded, method, relativePath, { stripBasePaths: false });
  return relative.operation ? relative : whole;
}


/**
 * Checks a probe's body against the operation's documented response. A body that is cut, binary,
 * unparsable or too deep is not checked (`validated: false` and why). An empty body is judged by
 * what the document declares for the status: nothing (fine) or content (a `missing` finding at `$`).
 * `matchesContract` is given once there is a verdict: checked with no `error` finding.
 * Line-framed JSON (`records`) is checked record by record against the media type's schema, each
 * finding's path prefixed with the record's index (`$[2].id`); a record that does not parse is an
 * `error` finding of kind `wrongType` at `$[n]`. The body's own `warnings` (RFC 8259: duplicate
 * names, changed numbers, depth) follow the schema findings.
 */
export function judge(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse): Record<string, unknown> {
  const verdict = judgeBody(loaded, operation, probed);
  if (!probed.warnings?.length) return verdict;
  const findings = [...((verdict.findings as (Finding | BodyWarning)[] | undefined) ?? []), ...probed.warnings];
  return { ...verdict, findings };
}

function judgeBody(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse): Record<string, unknown> {
  if (probed.records && !probed.truncated) return judgeRecords(loaded, operation, probed, probed.records);
  if (probed.truncated) {
    return { validated: false, validationNote: 'The body was truncated, so it was not checked: a cut-off JSON text says nothing about the contract.' };
  }
  const unparsed = probed.body === null || (typeof probed.body === 'string' && isJsonMediaType(probed.contentType));
  if (probed.note && unparsed) return { validated: false, validationNote: probed.note };
  const empty = probed.bytes === 0;
  // An empty body has no media type worth the name: judge it against what the status declares at all.
  const checked = checkResponse(loaded.doc, 'GET', operation.pathTemplate, empty ? { status: probed.status, body: undefined } : { status: probed.status, contentType: probed.contentType ?? undefined, body: probed.body },
    inexactNumbersOf(probed.warnings));
  const findings: Finding[] = [...checked.findings];
  let validated = checked.validated;
  let validationNote = checked.validated ? undefined : checked.reason;
  if (empty && !findings.some((finding) => finding.kind === 'undocumentedStatus')) {
    validated = true;
    validationNote = undefined;
    if (checked.target) {
      findings.push({
        kind: 'missing',
        severity: 'error',
        path: '$',
        schemaPath: checked.target.schemaPath,
        message: `the body is empty, but the document declares ${checked.target.mediaType ?? 'a'} content for status ${checked.target.statusKey}`,
      });
    }
  }
  const declared = documentedResponse(operation, probed.status);
  if (!empty && declared && !hasContent(declared.response)) {
    // A body the document says this status never has: drift worth seeing, though nothing to check it against.
    findings.push({
      kind: 'undocumented',
      severity: 'warning',
      path: '$',
      schemaPath: `${operation.pointer}/responses/${escapePointerToken(declared.key)}`,
      message: `a ${probed.bytes}-byte body was sent, but the document declares no content for status ${declared.key}`,
    });
  }
  const errors = findings.some((finding) => finding.severity === 'error');
  return {
    validated,
    ...(validationNote ? { validationNote } : {}),
    ...(checked.target ? { schemaPath: checked.target.schemaPath } : {}),
    findings,
    ...(validated || errors ? { matchesContract: validated && !errors } : {}),
  };
}

/**
 * The numbers the body scan found changed by JSON parsing (RFC 8259, 6), for `checkResponse`: their numeric
 * constraints are not checked (issue 8 B13). A warning without `values` is the scan's "N more not listed".
 */
function inexactNumbersOf(warnings: BodyWarning[] | undefined): { inexactNumbers: InexactNumbers } | undefined {
  const inexact = warnings?.filter((warning) => warning.kind === 'inexactNumber') ?? [];
  if (inexact.length === 0) return undefined;
  return { inexactNumbers: { paths: new Set(inexact.filter((w) => w.values).map((w) => w.path)), unlisted: inexact.some((w) => !w.values) } };
}

/** Checks line-framed JSON record by record (NDJSON, JSON Lines, json-seq; case 40). */
function judgeRecords(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse, records: NonNullable<ProbedResponse['records']>): Record<string, unknown> {
  const findings: Finding[] = [];
  let schemaPath: string | undefined;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const at = `$[${index}]`;
    if (record.problem !== undefined) {
      findings.push({ kind: 'wrongType', severity: 'error', path: at, schemaPath: schemaPath ?? '', expected: 'one JSON text', actual: 'text that does not parse', message: `line ${record.line} is not JSON: ${record.problem}` });
      continue;
    }
    const checked = checkResponse(loaded.doc, 'GET', operation.pathTemplate, { status: probed.status, contentType: probed.contentType ?? undefined, body: record.value });
    if (!checked.validated) {
      return { validated: false, validationNote: `The records could not be checked: ${checked.reason}`, findings: checked.findings };
    }
    schemaPath ??= checked.target?.schemaPath;
    for (const finding of checked.findings) findings.push({ ...finding, path: finding.path.replace(/^\$/, at) });
  }
  const errors = findings.some((finding) => finding.severity === 'error');
  return { validated: true, ...(schemaPath ? { schemaPath } : {}), findings, matchesContract: !errors };
}

/** The response entry for a status: exact code, then `NXX`, then `default` (OpenAPI 3.0.3, Responses Object). */
export function documentedResponse(operation: Operation, status: number): { key: string; response: unknown } | undefined {
  return responseForStatus(operation.responses, status);
}

function hasContent(response: unknown): boolean {
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
  // The message repeats the agent's text and the document's templates: bounded like every other string (F6).
  return typeof resolved === 'string' ? boundedText(resolved, 2 * MAX_TEXT) : resolved;
}

function resolveOperationAt(loaded: LoadedDocument, basePrefix: string, operation: string): Operation | string {
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
      return `No ${method} operation matches ${path}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}.`;
    }
  }
  const near = spaced ? undefined : nearestName(operation.trim(), loaded.operations.flatMap((candidate) => (candidate.operationId ? [candidate.operationId] : [])));
  return `No operation \`${operation}\` in the document${near ? ` (did you mean ${near}?)` : ''}: give an operationId, "GET /path/{template}" or a concrete path such as /meters/mtr_1.`;
}

/** One record of a sample: a complete JSON 2xx response of one operation. */
export type SampleRecord = {
  /** The concrete path probed, query included, relative to API_BASE_URL: `/meters/mtr_1`. */
  path: string;
  status: number;
  /** The parsed JSON body. */
  body: unknown;
};

/** What several records of one operation show together; see `analyzeSample`. */
export type SampleAnalysis = {
  /** The concrete paths analysed, in probe order. */
  probes: string[];
  /** Every field seen or declared, with how often it was present: `present in 2 of 3`. */
  fields: FieldPresence[];
  /** Fields the document declares but does not require, as `$.location: present in 2 of 3`. */
  optionalFields: string[];
  /** Fields the document never mentions, same form. */
  undocumentedFields: string[];
  /** The shape a client would infer from the first record alone, and what each later record breaks in it. */
  inferredFromFirst: {
    from: string;
    note: string;
    /** JSON Schema 2020-12 written from the first body (`inferShape`). */
    shape: unknown;
    against: { path: string; findings: Finding[]; findingsMore?: number }[];
  };
  /** How many rows `fields` would have had, when it was cut to `MAX_LISTED_FIELDS`. */
  fieldsTotal?: number;
  /** What was left out or not compared, and why (lists cut at the source, the presence walk's budget); absent when nothing was. */
  cut?: string;
};

/**
 * Rows each list of `analyzeSample` holds at most (`fields`, `optionalFields`, `undocumentedFields`), first by
 * path order; findings per later record at most `MAX_LISTED_FINDINGS`; the inferred shape at most
 * `MAX_SHAPE_CHARS` characters of JSON (issue 8, attack round 3 F3: 90,000 distinct fields gave a 31.7 MB answer).
 */
export const MAX_LISTED_FIELDS = 500;
export const MAX_LISTED_FINDINGS = 100;
export const MAX_SHAPE_CHARS = 20_000;
/** Time budget (ms) shared by the checks of all later records against the first one's shape in `analyzeSample`. */
export const SAMPLE_CHECKS_MS = 2_000;
/** Time budget (ms) shared by the null checks of all bodies in `observeBodies`. */
export const OBSERVE_CHECKS_MS = 1_000;

/**
 * Analyses several records of ONE operation: field presence against the response schema the document
 * gives for the first record's status (`application/json`), the fields it never mentions, and the
 * findings a shape inferred from the first record alone (every field seen required, types as seen)
 * yields on each later record. Those findings are not API faults: the document is the contract.
 * Used by `probe_sample` (records probed in one call) and `field_presence` (records of the session).
 * @param records At least one record, in probe order.
 * @returns The analysis; never throws on data.
 * @throws RangeError when `records` is empty (a caller's mistake, not data).
 */
export function analyzeSample(loaded: LoadedDocument, operation: Operation, records: SampleRecord[]): SampleAnalysis {
  const first = records[0];
  if (!first) throw new RangeError('analyzeSample needs at least one record');
  const target = schemaFor(loaded.doc, operation.method, operation.pathTemplate, first.status, 'application/json');
  const bodies = records.map((record) => record.body);
  const presence = measurePresence(loaded.doc, target?.schema ?? {}, bodies, target ? { at: target.schemaPath } : undefined);
  const all = presence.fields;
  const notes = [...presence.notes];
  const listed = (rows: FieldPresence[], what: string): string[] => {
    if (rows.length > MAX_LISTED_FIELDS) notes.push(`${what} lists the first ${MAX_LISTED_FIELDS} of ${rows.length} (by path).`);
    return rows.slice(0, MAX_LISTED_FIELDS).map((field) => `${field.path}: ${field.text}`);
  };
  if (all.length > MAX_LISTED_FIELDS) notes.unshift(`fields lists the first ${MAX_LISTED_FIELDS} of ${all.length} (by path; fieldsTotal counts them all).`);
  const optionalFields = listed(all.filter((field) => field.documented && !field.required), 'optionalFields');
  const undocumentedFields = listed(all.filter((field) => !field.documented), 'undocumentedFields');
  const inferred = inferShape(first.body);
  const shapeChars = JSON.stringify(inferred).length;
  let shape = inferred;
  if (shapeChars > MAX_SHAPE_CHARS) {
    shape = { $comment: `not shown: ${shapeChars} characters of JSON, past ${MAX_SHAPE_CHARS}` };
    notes.push(`inferredFromFirst.shape is ${shapeChars} characters of JSON, past ${MAX_SHAPE_CHARS}, so it is not shown; the later records were still checked against it.`);
  }
  // One time budget for all the later records (issue 8): a check past it says `notChecked`, never passes.
  const deadline = performance.now() + SAMPLE_CHECKS_MS;
  // One document for every record: validate.ts caches its plans per document object.
  const shapeDocument = {};
  const against = records.slice(1).map((record) => {
    const findings = check(shapeDocument, inferred, record.body, { timeoutMs: Math.max(0, deadline - performance.now()) });
    if (findings.length <= MAX_LISTED_FINDINGS) return { path: record.path, findings };
    return { path: record.path, findings: findings.slice(0, MAX_LISTED_FINDINGS), findingsMore: findings.length - MAX_LISTED_FINDINGS };
  });
  if (against.some((entry) => entry.findingsMore !== undefined)) notes.push(`inferredFromFirst.against lists the first ${MAX_LISTED_FINDINGS} findings per record; findingsMore counts the rest.`);
  const listsCut = notes.length > presence.notes.length;
  return {
    probes: records.map((record) => record.path),
    fields: all.slice(0, MAX_LISTED_FIELDS),
    optionalFields,
    undocumentedFields,
    inferredFromFirst: {
      from: first.path,
      note: 'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.',
      shape,
      against,
    },
    ...(all.length > MAX_LISTED_FIELDS ? { fieldsTotal: all.length } : {}),
    ...(notes.length ? { cut: `Not all listed or compared (issue 8): ${notes.join(' ')}${listsCut ? ' Compare fewer or smaller records, or a part of them with probe\'s `select`.' : ''}` } : {}),
  };
}

// ───────────────────────────── Request parameters ─────────────────────────────

/** One parameter value that breaks the operation's contract: `problem` reads after the name ("is required but missing"). */
export type ParameterProblem = { in: 'path' | 'query' | 'header'; name: string; kind: 'missing' | 'unknown' | 'invalid' | 'notChecked'; value: string; problem: string };

/** The values of a request's parameters, as text: path values decoded, a repeated query name as a list. */
export type ParameterValues = {
  path?: Record<string, string>;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
};

// OpenAPI 3.0.3, Parameter Object: header parameters with these names are ignored (they have their own fields).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * Checks a request's path, query and header parameter values against the operation's Parameter Objects
 * (OpenAPI 3.0.3/3.1.0, Parameter Object). Each value is text on the wire, so it is first converted to
 * the type its schema asks for (`"42"` to 42 for an integer, `"true"` for a boolean, `a,b` split for an
 * array in the default `form`/`simple` style) and then checked with `check` from validate.ts, so every
 * keyword the validator knows applies (type, enum, pattern, lengths, ranges).
 * Reports: a required parameter that is missing ("is required but missing"; a path parameter the template
 * lacks: "is not a segment of /x"), a value that fails its schema (the validator's message, a failed type
 * as "is not of type integer"), and, when `values.query` is given, a query name the operation does not
 * declare ("is not a query parameter of GET /x", with "did you mean" for a near name). Header names are
 * compared case-insensitively; `Accept`, `Content-Type` and `Authorization` parameters are ignored.
 * All the values share one time budget (issue 8: a document may declare many parameters with costly
 * patterns, and these checks run on the server's main thread): a value reached after it ran out is
 * `notChecked`, never passed.
 * @param options.timeoutMs The shared budget in ms, default `PARAMETER_CHECKS_MS` (250).
 * @returns Problems in parameter order (unknown query names last); `[]` when all pass. Never throws.
 */
export function checkParameters(loaded: LoadedDocument, operation: Operation, values: ParameterValues, options: { timeoutMs?: number } = {}): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  const budgetMs = options.timeoutMs ?? PARAMETER_CHECKS_MS;
  const deadline = performance.now() + budgetMs;
  const headers = new Map(Object.entries(values.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header') continue;
    if (parameter.in === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
    const where = parameter.in;
    if (where === 'path' && !values.path) continue;
    if (where === 'query' && !values.query) continue;
    if (where === 'header' && !values.headers) continue;
    const raw = where === 'path' ? values.path![parameter.name] : where === 'query' ? (Object.hasOwn(values.query!, parameter.name) ? values.query![parameter.name] : undefined) : headers.get(parameter.name.toLowerCase());
    if (raw === undefined) {
      if (where === 'path') problems.push({ in: where, name: parameter.name, kind: 'missing', value: '', problem: `is not a segment of ${operation.pathTemplate}` });
      else if (parameter.required) problems.push({ in: where, name: parameter.name, kind: 'missing', value: '', problem: 'is required but missing' });
      continue;
    }
    const shown = Array.isArray(raw) ? raw.join(',') : raw;
    const left = deadline - performance.now();
    if (left <= 0) {
      problems.push({ in: where, name: parameter.name, kind: 'notChecked', value: shown, problem: `was not checked: the parameter checks' time budget (${budgetMs} ms) ran out` });
      continue;
    }
    for (const { problem, unchecked } of checkParameterValue(loaded, parameter, raw, left)) {
      // A value the check could not test (an unsafe pattern: issue 8 B5) is `notChecked`, never `invalid`.
      problems.push({ in: where, name: parameter.name, kind: unchecked ? 'notChecked' : 'invalid', value: shown, problem });
    }
  }
  if (values.query) {
    const declared = operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
    let suggestions = 0;
    for (const [name, raw] of Object.entries(values.query)) {
      if (declared.includes(name)) continue;
      const near = suggestions++ < 20 ? nearestName(name, declared) : undefined;
      problems.push({ in: 'query', name, kind: 'unknown', value: Array.isArray(raw) ? raw.join(',') : raw, problem: `is not a query parameter of ${operationKey(operation)}${near ? `; did you mean ${near}?` : declared.length ? `; it takes ${declared.join(', ')}` : '; it takes none'}` });
    }
  }
  return problems;
}

/** Time budget (ms) shared by all the parameter values of one request, checked on the main thread. */
export const PARAMETER_CHECKS_MS = 250;

function checkParameterValue(loaded: LoadedDocument, parameter: Parameter, raw: string | string[], timeoutMs: number): { problem: string; unchecked: boolean }[] {
  if (parameter.schema === undefined) return [];
  const value = convertParameter(loaded.doc, parameter.schema, raw);
  let findings: Finding[];
  try {
    findings = check(loaded.doc, parameter.schema, value, { at: `${parameter.pointer}/schema`, direction: 'request', timeoutMs });
  } catch {
    return [];
  }
  return findings
    .filter((finding) => finding.severity !== 'info')
    .map((finding) => {
      const text = finding.kind === 'wrongType' ? `is not of type ${finding.expected}` : finding.message;
      const problem = finding.path === '$' ? text : `at ${finding.path.replace(/^\$/, 'item ')}: ${text}`.replace('item [', '[');
      return { problem, unchecked: finding.kind === 'notChecked' };
    });
}

/** The schema's JSON types after following `$ref`s (`resolveSchema`); `[]` for none. */
function schemaTypes(doc: unknown, schema: unknown): { types: string[]; resolved: Record<string, unknown> | undefined } {
  const resolved = resolveSchema(doc, schema).node;
  if (resolved === undefined) return { types: [], resolved: undefined };
  const type = resolved.type;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  return { types, resolved };
}

/** Text from the wire to the JSON value the schema describes; text that fits no declared type stays text, so `check` names the mismatch. */
function convertParameter(doc: unknown, schema: unknown, raw: string | string[]): unknown {
  const { types, resolved } = schemaTypes(doc, schema);
  if (types.includes('array')) {
    const items = Array.isArray(raw) ? raw : raw === '' ? [] : raw.split(',');
    return items.map((item) => convertParameter(doc, resolved?.items, item));
  }
  if (Array.isArray(raw)) return raw.map((item) => convertParameter(doc, schema, item));
  if (types.includes('integer') && /^-?(0|[1-9][0-9]*)$/.test(raw)) return Number(raw);
  if (types.includes('number') && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (types.length === 0 && Array.isArray(resolved?.enum) && resolved.enum.some((entry) => typeof entry === 'number') && raw !== '' && !Number.isNaN(Number(raw))) return Number(raw);
  return raw;
}

/** Folds a name for "did you mean": lower case, without `_`, `-` and `.`. */
function foldName(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, '');
}

/**
 * The closest of `candidates` to `name`: equal once folded (`first_name`, `firstName`), else within 2
 * edits of the folded names (`photoUrl`, `photoUrls`), for names of 4 to 64 characters (the first 500 candidates).
 * @returns The candidate as written, or undefined. Never throws.
 */
export function nearestName(name: string, candidates: string[]): string | undefined {
  const folded = foldName(name);
  const same = candidates.find((candidate) => candidate !== name && foldName(candidate) === folded);
  if (same) return same;
  if (folded.length < 4 || name.length > 64) return undefined;
  let best: { candidate: string; distance: number } | undefined;
  // Bounded work whatever the body or document: names past 64 characters and candidates past 500 are not compared.
  for (const candidate of candidates.slice(0, 500)) {
    if (candidate === name || candidate.length > 64) continue;
    const distance = editDistance(folded, foldName(candidate), 2);
    if (distance <= 2 && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/**
 * The query of a URL as parameter values: names in order, a name given twice as a list of its values
 * (WHATWG URL, URLSearchParams: `+` is a space, percent-escapes decoded).
 * @param except Names to leave out, e.g. those API_BASE_URL itself carries (`?api-version=2`).
 */
export function queryValues(url: URL, except: Iterable<string> = []): Record<string, string | string[]> {
  const skip = new Set(except);
  const values: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    if (skip.has(name)) continue;
    const before = Object.hasOwn(values, name) ? values[name] : undefined;
    values[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return values;
}

// ───────────────────────────── draft_request ─────────────────────────────

/** One way a draft request breaks the contract. `name` is the parameter name, or for the body the instance path (`$.photoUrls`). */
export type DraftProblem = {
  in: 'operation' | 'path' | 'query' | 'header' | 'body';
  name: string;
  kind: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
};

/**
 * A request as a person would run it: the key is the placeholder `$API_KEY`, never its value. A body whose text is
 * longer than `MAX_ECHOED_BODY` is not repeated: `bodyFile` names the file `curl` reads it from and `bodyLength` gives
 * its length in characters.
 */
export type RequestEnvelope = { method: string; url: string; headers: Record<string, string>; body?: unknown; bodyFile?: string; bodyLength?: number; curl: string };

/**
 * Longest body text (in characters) a draft's envelope repeats, in `body` and in `curl`: the caller sent it, and a
 * large body repeated in the answer costs the server's main thread to redact and write it again (issue 8, attack round
 * 4 B7: 36 drafts of 349 KB held ping 3.2 s). Past it `curl` reads the body from `BODY_FILE`.
 */
const MAX_ECHOED_BODY = 16 * 1024;

/** The file `curl` reads a body longer than `MAX_ECHOED_BODY` from (`--data-binary @request-body.json`). */
const BODY_FILE = 'request-body.json';

/** What `draftRequest` checks: the full URL already built from API_BASE_URL (so its path prefix is `basePrefix`). */
export type Draft = {
  method: string;
  url: URL;
  /** The path prefix of API_BASE_URL without a trailing slash (`/v2`, or `''`). */
  basePrefix: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Query names API_BASE_URL itself carries: not the operation's to declare. */
  baseQuery?: string[];
  /** Where the key goes: a header name such as `X-API-Key` (raw key), `Authorization` (Bearer), or undefined for no key. */
  keyHeader?: string;
};

const KEY_PLACEHOLDER = '$API_KEY';

/**
 * Quotes a word for a POSIX shell: in single quotes, each `'` written as `'\''` (POSIX.1-2017, Shell
 * Command Language 2.2.2). Nothing inside is expanded.
 */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Builds the runnable envelope of a draft: the headers as given, `Content-Type: application/json` when
 * there is a body and none was given, and the key header with the placeholder `$API_KEY` (any value the
 * caller put in that header is replaced). `curl` quotes every word with `shellQuote`; the placeholder is
 * left outside the quotes, in double quotes, so the shell fills it in from the environment. A body text longer
 * than `MAX_ECHOED_BODY` characters is left out: `curl` reads it with `--data-binary @request-body.json`.
 */
function requestEnvelope(draft: Draft): RequestEnvelope {
  const method = draft.method.toUpperCase();
  const headers: Record<string, string> = {};
  const keyHeader = draft.keyHeader?.toLowerCase();
  for (const [name, value] of Object.entries(draft.headers ?? {})) {
    if (keyHeader !== undefined && name.toLowerCase() === keyHeader) continue;
    headers[name] = value;
  }
  const hasBody = draft.body !== undefined;
  if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  let keyPrefix = '';
  if (draft.keyHeader !== undefined) {
    keyPrefix = keyHeader === 'authorization' ? 'Bearer ' : '';
    headers[draft.keyHeader] = `${keyPrefix}${KEY_PLACEHOLDER}`;
  }
  const words = ['curl'];
  if (method !== 'GET' || hasBody) words.push('-X', shellQuote(method));
  words.push(shellQuote(draft.url.href));
  for (const [name, value] of Object.entries(headers)) {
    if (draft.keyHeader !== undefined && name === draft.keyHeader) words.push('-H', `${shellQuote(`${name}: ${keyPrefix}`)}"${KEY_PLACEHOLDER}"`);
    else words.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (!hasBody) return { method, url: draft.url.href, headers, curl: words.join(' ') };
  const bodyText = typeof draft.body === 'string' ? draft.body : JSON.stringify(draft.body);
  if (bodyText.length > MAX_ECHOED_BODY) {
    words.push('--data-binary', `@${BODY_FILE}`);
    return { method, url: draft.url.href, headers, bodyFile: BODY_FILE, bodyLength: bodyText.length, curl: words.join(' ') };
  }
  words.push('--data-raw', shellQuote(bodyText));
  return { method, url: draft.url.href, headers, body: draft.body, curl: words.join(' ') };
}

/**
 * Checks a request against the contract without sending it: the operation (method + path, with
 * suggestions when there is none), its path, query and header parameters (`checkParameters`), and the
 * JSON body (`checkRequestBody` from validate.ts, request direction: a readOnly field sent is reported),
 * each body field the schema lacks with "did you mean" for a near documented name.
 * @returns `matchesContract` (no problem above `info`, over all of them), the problems (operation, then parameters in
 *   parameter order, then body findings by instance path; the first `MAX_LISTED_PROBLEMS` (200), `problemsMore`
 *   counting the rest, names past 1,000 characters cut), the operation when one matched, and the
 *   runnable envelope (`requestEnvelope`). Never throws on input.
 */
export function draftRequest(loaded: LoadedDocument, draft: Draft): { matchesContract: boolean; operation?: ReturnType<typeof summarize>; problems: DraftProblem[]; problemsMore?: number; request: RequestEnvelope } {
  const method = draft.method.toUpperCase();
  const request = requestEnvelope(draft);
  const relativePath = draft.url.pathname.slice(draft.basePrefix.length) || '/';
  const match = findOperation(loaded, draft.basePrefix, draft.url.pathname, relativePath, method);
  if (!match.operation) {
    const message = match.note
      ? `${match.note}: use one of ${match.nearest.join(', ')}`
      : `no ${method} operation matches ${relativePath}${match.nearest.length ? `; nearest: ${match.nearest.join(', ')}` : ''}`;
    return { matchesContract: false, problems: [{ in: 'operation', name: `${method} ${relativePath}`, kind: 'noOperation', severity: 'error', message }], request };
  }
  const operation = match.operation;
  const problems: DraftProblem[] = checkParameters(loaded, operation, { path: match.params, query: queryValues(draft.url, draft.baseQuery), headers: draft.headers ?? {} })
    .map((problem) => ({ in: problem.in, name: problem.name, kind: problem.kind, severity: problem.kind === 'notChecked' ? 'warning' as const : 'error' as const, message: problem.problem }));
  problems.push(...bodyProblems(loaded, operation, draft));
  const matchesContract = !problems.some((problem) => problem.severity !== 'info');
  // Issue 8 (attack round 3 F3): a body of 90,000 unknown fields must not give 90,000 problems; names are bounded too.
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => (problem.name.length > MAX_TEXT ? { ...problem, name: boundedText(problem.name, MAX_TEXT) } : problem));
  return { matchesContract, operation: summarize(operation), problems: listed, ...(problems.length > MAX_LISTED_PROBLEMS ? { problemsMore: problems.length - MAX_LISTED_PROBLEMS } : {}), request };
}

/** Problems `draftRequest` lists at most (in their order); `problemsMore` counts the rest. */
export const MAX_LISTED_PROBLEMS = 200;

function bodyProblems(loaded: LoadedDocument, operation: Operation, draft: Draft): DraftProblem[] {
  const declared = operation.requestBody as { required?: unknown } | undefined;
  const key = operationKey(operation);
  if (draft.body === undefined) {
    return declared?.required === true ? [{ in: 'body', name: '$', kind: 'missing', severity: 'error', message: `is required: ${key} declares a required request body` }] : [];
  }
  if (declared === undefined) return [{ in: 'body', name: '$', kind: 'undocumented', severity: 'error', message: `is sent, but ${key} declares no request body` }];
  const contentType = Object.entries(draft.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  // A string body is sent as written (`curl --data-raw`): under a JSON content type it is checked as the JSON text it holds.
  let body = draft.body;
  if (typeof body === 'string' && (contentType === undefined || isJsonMediaType(contentType))) {
    // Never measured by the transport (it is a string there): measured before it is parsed and walked.
    if (measureJsonText(body).depth > MAX_BODY_DEPTH) {
      return [{ in: 'body', name: '$', kind: 'tooDeep', severity: 'error', message: `is a string of JSON text nesting deeper than ${MAX_BODY_DEPTH} levels; not checked` }];
    }
    try {
      body = JSON.parse(body);
    } catch {
      return [{ in: 'body', name: '$', kind: 'invalidJson', severity: 'error', message: `is a string that is not JSON text, and it is sent as written under Content-Type ${contentType ?? 'application/json'}: pass the body as a JSON value (an object, an array...), or its JSON text` }];
    }
  }
  const checked = checkRequestBody(loaded.doc, operation.method, operation.pathTemplate, body, contentType);
  if (!checked.validated) return [{ in: 'body', name: '$', kind: 'unchecked', severity: 'warning', message: `was not checked: ${checked.reason ?? 'no schema'}` }];
  const missing = checked.findings.filter((finding) => finding.kind === 'missing');
  let suggestions = 0;
  // Looked up once per draft, at the first undocumented top-level field (a hostile body can hold thousands).
  let readOnly: ((name: string) => string | undefined) | undefined;
  return checked.findings.map((finding): DraftProblem => {
    let message = finding.message;
    const copied = finding.kind === 'undocumented' && parentPath(finding.path) === '$' ? (readOnly ??= readOnlyInResponse(loaded, operation))(lastName(finding.path)) : undefined;
    if (copied) return { in: 'body', name: finding.path, kind: 'readOnly', severity: finding.severity, message: `is not in the request schema and is readOnly in the response of ${copied}: copied from a GET? Leave it out` };
    if (finding.kind === 'undocumented' && suggestions++ < MAX_SUGGESTIONS) {
      const near = nearestName(lastName(finding.path), documentedNames(loaded.doc, finding.schemaPath, missing, finding.path));
      if (near) message += `; did you mean ${near}?`;
    }
    return { in: 'body', name: finding.path, kind: finding.kind, severity: finding.severity, message };
  });
}

/**
 * For a field name, the GET of the same path template whose first 2xx response has it as a readOnly
 * top-level property (a field such as `id` copied from a GET into a write), as "GET /template"; else
 * undefined. The GET and its response schema are found once, when this is called.
 */
function readOnlyInResponse(loaded: LoadedDocument, operation: Operation): (name: string) => string | undefined {
  const read = loaded.operations.find((candidate) => candidate.method === 'GET' && candidate.pathTemplate === operation.pathTemplate);
  const key = read === undefined ? undefined : Object.keys(read.responses).find((candidate) => /^2/.test(candidate));
  const schema = read === undefined || key === undefined ? undefined : resolveSchema(loaded.doc, pickContent(read.responses[key])?.schema).node;
  const properties = schema?.properties;
  return (name) => {
    if (!read || name === '' || !isPlainObject(properties) || !Object.hasOwn(properties, name)) return undefined;
    return resolveSchema(loaded.doc, properties[name]).node?.readOnly === true ? operationKey(read) : undefined;
  };
}

/** "Did you mean" is offered for this many unknown body fields at most (bounded work on a hostile body). */
const MAX_SUGGESTIONS = 20;

/** The last property name of an instance path: `$.a['x-id']` gives `x-id`. */
function lastName(path: string): string {
  const quoted = /\['((?:[^'\\]|\\.)*)'\]$/.exec(path);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const dotted = /\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
  return dotted ? dotted[1]! : '';
}

/** The instance path of a field's parent: `$.a['x-id']` gives `$.a`. */
function parentPath(path: string): string {
  const quoted = /\['(?:[^'\\]|\\.)*'\]$/.exec(path);
  if (quoted) return path.slice(0, quoted.index);
  const dotted = /\.[A-Za-z_][A-Za-z0-9_]*$/.exec(path);
  return dotted ? path.slice(0, dotted.index) : path;
}

/** Property names the schema documents beside an undocumented field, and the missing fields of the same parent. */
function documentedNames(doc: unknown, schemaPath: string, missing: Finding[], path: string): string[] {
  const names = new Set<string>();
  const parent = parentPath(path);
  for (const finding of missing) {
    const name = lastName(finding.path);
    if (name && parentPath(finding.path) === parent) names.add(name);
  }
  try {
    const schema = resolvePointer(doc, schemaPath.replace(/\/(properties|additionalProperties)$/, '')) as { properties?: unknown };
    if (schema && typeof schema.properties === 'object' && schema.properties !== null) for (const name of Object.keys(schema.properties)) names.add(name);
  } catch {
    // No schema to read names from: the missing siblings are all there is.
  }
  return [...names];
}

// ───────────────────────────── describe_operation ─────────────────────────────

/** Longest `describe_operation` answer, in characters of JSON (or of TypeScript). */
export const MAX_DESCRIBE_CHARS = 20_000;

/** Options of `describeOperation` and `describeTypeScript`. */
export type DescribeOptions = {
  /** Only the request (parameters and body) or only the responses; default both (TypeScript: the response). */
  part?: 'request' | 'responses';
  /** One responses key: `200`, `4XX`, `default`; a status code also finds its `NXX` or `default` entry. */
  status?: string;
  /** How many `$ref` levels are expanded (default 3); deeper ones are shown by name. */
  depth?: number;
  /** Size limit in characters, default `MAX_DESCRIBE_CHARS`. */
  maxChars?: number;
};

type Resolved = { node: Record<string, unknown> | undefined };


/** Follows `$ref`s (at most 16 hops); `node` is undefined when one points nowhere. */
function resolveSchema(doc: unknown, schema: unknown): Resolved {
  // A chain that loops, dangles, leaves the document or runs past the hop limit gives no node.
  const followed = follow(doc, schema);
  return { node: followed.error === undefined && isPlainObject(followed.value) ? followed.value : undefined };
}

function refName(ref: string): string {
  return unescapePointerToken(ref.slice(ref.lastIndexOf('/') + 1));
}

const KEPT_KEYWORDS = [
  'type', 'format', 'nullable', 'enum', 'const', 'default', 'readOnly', 'writeOnly', 'deprecated', 'required', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems', 'multipleOf',
  'minProperties', 'maxProperties',
] as const;
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'] as const;
const MAX_DESCRIPTION = 160;
/** At most this many enum values are shown; the rest are counted in `enumMore` (a document's enum may hold a million). */
const MAX_ENUM_SHOWN = 50;

/** `enum` as described: all values, or the first `MAX_ENUM_SHOWN` plus `enumMore` with how many were left out. */
function shownEnum(values: unknown[]): { enum: unknown[]; enumMore?: number } {
  return values.length > MAX_ENUM_SHOWN ? { enum: values.slice(0, MAX_ENUM_SHOWN), enumMore: values.length - MAX_ENUM_SHOWN } : { enum: values };
}

/**
 * A schema made readable: `$ref`s expanded up to `refsLeft` levels (the expansion carries `ref: "Name"`),
 * deeper ones left as `{$ref}` with `notExpanded: true`, a `$ref` back into one being expanded as
 * `{$ref, cycle: true}`; examples and `x-` extensions dropped, descriptions cut to 160 characters.
 */
function readableSchema(doc: unknown, schema: unknown, refsLeft: number, active: string[], nesting: number, budget: { nodes: number }): unknown {
  if (!isPlainObject(schema)) return schema;
  // A document whose $refs fan out (100 properties of 100 properties...) must not stall the thread: past
  // the node budget nothing more is expanded, and the size check below cuts the answer.
  if (nesting > 40 || --budget.nodes < 0) return typeof schema.$ref === 'string' ? { $ref: schema.$ref, notExpanded: true } : { notExpanded: true };
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    if (active.includes(ref)) return { $ref: ref, cycle: true };
    if (refsLeft <= 0) return { $ref: ref, notExpanded: true };
    const { node } = resolveSchema(doc, { $ref: ref });
    if (!node) return { $ref: ref, unresolved: true };
    const expanded = readableSchema(doc, node, refsLeft - 1, [...active, ref], nesting + 1, budget);
    return isPlainObject(expanded) ? { ref: refName(ref), ...expanded } : expanded;
  }
  const out: Record<string, unknown> = {};
  if (typeof schema.title === 'string') out.title = schema.title;
  if (typeof schema.description === 'string') out.description = schema.description.length > MAX_DESCRIPTION ? `${schema.description.slice(0, MAX_DESCRIPTION - 1)}…` : schema.description;
  for (const key of KEPT_KEYWORDS) if (Object.hasOwn(schema, key)) out[key] = schema[key];
  if (Array.isArray(schema.enum)) Object.assign(out, shownEnum(schema.enum));
  if (isPlainObject(schema.properties)) {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) properties[name] = readableSchema(doc, property, refsLeft, active, nesting + 1, budget);
    out.properties = properties;
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    if (schema[key] !== undefined) out[key] = readableSchema(doc, schema[key], refsLeft, active, nesting + 1, budget);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((part) => readableSchema(doc, part, refsLeft, active, nesting + 1, budget));
  }
  if (isPlainObject(schema.discriminator) && typeof schema.discriminator.propertyName === 'string') out.discriminator = { propertyName: schema.discriminator.propertyName };
  return out;
}

/** The content entry to show: the first JSON media type, else the first. */
function pickContent(container: unknown): { mediaType: string; schema: unknown } | undefined {
  const content = isPlainObject(container) ? container.content : undefined;
  if (!isPlainObject(content)) return undefined;
  const keys = Object.keys(content);
  const key = keys.find((candidate) => isJsonMediaType(candidate)) ?? keys[0];
  if (key === undefined) return undefined;
  const entry = content[key];
  return { mediaType: key, schema: isPlainObject(entry) ? entry.schema : undefined };
}

/** The parameter's type in one word or two (`integer`, `string (date-time)`, `array of string`), from its schema. */
function parameterSummary(doc: unknown, parameter: Parameter): Record<string, unknown> {
  const out: Record<string, unknown> = { name: parameter.name, in: parameter.in, required: parameter.required };
  const { node } = resolveSchema(doc, parameter.schema);
  if (node) {
    const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : [];
    let type = types.join(' | ');
    if (type.includes('array')) {
      const items = resolveSchema(doc, node.items).node;
      if (items && typeof items.type === 'string') type = type.replace('array', `array of ${items.type}`);
      if (items && Array.isArray(items.enum)) Object.assign(out, shownEnum(items.enum));
    }
    if (typeof node.format === 'string') type += ` (${node.format})`;
    if (type) out.type = type;
    if (Array.isArray(node.enum)) Object.assign(out, shownEnum(node.enum));
    if (Object.hasOwn(node, 'default')) out.default = node.default;
    if (typeof node.pattern === 'string') out.pattern = node.pattern;
    for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) if (typeof node[key] === 'number') out[key] = node[key];
  }
  if (parameter.description) out.description = parameter.description.length > MAX_DESCRIPTION ? `${parameter.description.slice(0, MAX_DESCRIPTION - 1)}…` : parameter.description;
  return out;
}

/** The responses keys `status` selects: the key itself, or for a code its exact, `NXX` and `default` entries in that order (first found). */
function selectStatuses(operation: Operation, status: string | undefined): string[] | string {
  const keys = Object.keys(operation.responses);
  if (status === undefined) return keys;
  if (Object.hasOwn(operation.responses, status)) return [status];
  if (/^[1-5][0-9][0-9]$/.test(status)) {
    const found = documentedResponse(operation, Number(status));
    if (found) return [found.key];
  }
  return boundedText(`${operationKey(operation)} documents no response for status \`${status}\`; it documents ${keys.join(', ') || 'none'}.`, 2 * MAX_TEXT);
}

function size(value: unknown): number {
  return JSON.stringify(value).length;
}

/**
 * The contract of one operation as data: the operation, its parameters (in, required, type, enum,
 * default, pattern, bounds), the request body (required, media type, schema) and the responses by status
 * (description, media type, schema), each schema made readable: `$ref`s expanded `depth` levels deep
 * (default 3; the expansion names its component as `ref`), deeper ones kept as `{$ref, notExpanded}`,
 * cycles as `{$ref, cycle: true}`, `readOnly`/`writeOnly` kept as keywords (OpenAPI 3.0.3/3.1.0).
 * At most `maxChars` characters of JSON (default 20,000): past that, responses are left out (non-2xx
 * last first, then extra 2xx), then schemas are shown less deep, then left out, and `cut` says what
 * went and how to ask for less (`status`, `part`, `depth`).
 * @returns The description, or a message when `status` names no documented response. Never throws.
 */
export function describeOperation(loaded: LoadedDocument, operation: Operation, options: DescribeOptions = {}): Record<string, unknown> | string {
  const limit = options.maxChars ?? MAX_DESCRIBE_CHARS;
  const statuses = options.part === 'request' ? [] : selectStatuses(operation, options.status);
  if (typeof statuses === 'string') return statuses;
  const requested = Math.max(0, Math.min(options.depth ?? 3, 10));
  const head: Record<string, unknown> = { operation: { ...summarize(operation), ...(operation.summary ? { summary: boundedText(operation.summary, MAX_TEXT) } : {}), ...(operation.deprecated ? { deprecated: true } : {}) } };
  const build = (depth: number, kept: string[], schemas: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const budget = { nodes: 20_000 };
    if (options.part !== 'responses') {
      out.parameters = operation.parameters.filter((parameter) => parameter.in !== 'body').map((parameter) => parameterSummary(loaded.doc, parameter));
      const body = operation.requestBody;
      if (body !== undefined) {
        const picked = pickContent(body);
        out.requestBody = {
          required: isPlainObject(body) && body.required === true,
          ...(picked ? { mediaType: picked.mediaType } : {}),
          ...(picked && picked.schema !== undefined ? { schema: schemas ? readableSchema(loaded.doc, picked.schema, depth, [], 0, budget) : { notShown: true } } : {}),
        };
      }
    }
    if (options.part !== 'request') {
      const responses: Record<string, unknown> = {};
      for (const key of kept) {
        const response = operation.responses[key];
        const picked = pickContent(response);
        responses[key] = {
          ...(isPlainObject(response) && typeof response.description === 'string' ? { description: response.description.slice(0, MAX_DESCRIPTION) } : {}),
          ...(picked ? { mediaType: picked.mediaType } : {}),
          ...(picked && picked.schema !== undefined ? { schema: schemas ? readableSchema(loaded.doc, picked.schema, depth, [], 0, budget) : { notShown: true } } : {}),
        };
      }
      out.responses = responses;
    }
    out.depth = depth;
    // Every string the document supplies is cut to MAX_TEXT here, once, whatever keyword it sits under (F6); the
    // head is cut already.
    return { ...head, ...(cutLongStrings(out) as Record<string, unknown>) };
  };
  let kept = [...statuses];
  let depth = requested;
  let described = build(depth, kept, true);
  // Each build is measured once (its JSON text), not again at every test below.
  let chars = size(described);
  if (chars <= limit) return described;
  const rebuild = (schemas: boolean) => {
    described = build(depth, kept, schemas);
    chars = size(described);
  };
  // Cut: responses the agent least likely needs first (non-2xx from the end), then extra 2xx ones.
  const success = kept.filter((key) => /^2/.test(key));
  const dropOrder = [...kept.filter((key) => !/^2/.test(key)).reverse(), ...success.slice(1).reverse()];
  const dropped: string[] = [];
  for (const key of dropOrder) {
    if (chars <= limit) break;
    kept = kept.filter((candidate) => candidate !== key);
    dropped.push(key);
    rebuild(true);
  }
  while (chars > limit && depth > 0) {
    depth--;
    rebuild(true);
  }
  let schemasLeftOut = false;
  if (chars > limit) {
    schemasLeftOut = true;
    rebuild(false);
  }
  const notes: string[] = [];
  if (dropped.length) notes.push(`responses ${dropped.join(', ')} left out`);
  if (depth < requested) notes.push(`$refs expanded ${depth} level${depth === 1 ? '' : 's'} deep instead of ${requested}`);
  if (schemasLeftOut) notes.push('schemas left out');
  described.cut = `Cut to fit ${limit} characters: ${boundedText(notes.join('; '), MAX_TEXT)}. Ask for less: \`status\` (one response, e.g. "${boundedText(success[0] ?? dropped[0] ?? '200', 40)}"), \`part\`: "request" or "responses", or a smaller \`depth\`.`;
  if (size(described) > limit) {
    // Even the bare lists do not fit (thousands of parameters): keep the operation and the note.
    return { ...head, depth, cut: `${described.cut as string} The parameter list alone is longer than ${limit} characters.` };
  }
  return described;
}

/** A complete JSON body seen by a probe of the operation, with its status. */
export type SeenBody = { status: number; body: unknown };

/**
 * What the bodies seen show beside the document: fields it does not mention (from `fieldPresence`, with
 * how often they appeared) and fields sent as null where the schema does not allow null (a `wrongType`
 * finding with `actual: null`, counted once per body; array indexes folded to `[]`). The null checks share
 * `OBSERVE_CHECKS_MS`; bodies reached after it are counted in `notCheckedForNulls`.
 * @param at Schema path of `schema` in the document, for `check`.
 */
function observeBodies(doc: unknown, schema: unknown, at: string, bodies: unknown[]): Observed {
  const rows = fieldPresence(doc, schema, bodies, { at });
  const nulls = new Map<string, number>();
  const deadline = performance.now() + OBSERVE_CHECKS_MS;
  let unchecked = 0;
  for (const body of bodies) {
    const left = deadline - performance.now();
    if (left <= 0) {
      unchecked++;
      continue;
    }
    const paths = new Set(check(doc, schema, body, { at, timeoutMs: left }).filter((finding) => finding.kind === 'wrongType' && finding.actual === 'null').map((finding) => finding.path.replace(/\[[0-9]+\]/g, '[]')));
    for (const path of paths) nulls.set(path, (nulls.get(path) ?? 0) + 1);
  }
  return {
    probes: bodies.length,
    undocumented: rows.filter((row) => !row.documented).map((row) => ({ path: row.path, present: row.present, of: row.of })),
    unexpectedNull: [...nulls].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, count]) => ({ path, bodies: count })),
    ...(unchecked > 0 ? { notCheckedForNulls: unchecked } : {}),
  };
}

/**
 * The request body type (`part: "request"`) or a response type (default: the first 2xx response with
 * content, or `status`) of an operation as TypeScript declarations (`renderTypeScript`), named from the
 * operationId (`getMeter` gives `GetMeterResponse`; a non-first-2xx status is appended: `GetMeterResponse404`).
 * When `seen` holds bodies probed with a status this response covers, their undocumented fields and
 * unexpected nulls are listed in a comment (`observeBodies`). Past `maxChars` (default 20,000) the last
 * declarations become `unknown` and `cut` says which.
 * @returns `{operation, part, status?, mediaType, typeName, typescript, cut?}`, or a message when the
 *   operation has no such body. Never throws.
 */
export function describeTypeScript(loaded: LoadedDocument, operation: Operation, options: DescribeOptions = {}, seen: SeenBody[] = []): Record<string, unknown> | string {
  const limit = options.maxChars ?? MAX_DESCRIBE_CHARS;
  const base = typeName(operation.operationId ?? `${operation.method.toLowerCase()} ${operation.pathTemplate}`);
  let schema: unknown;
  let mediaType: string;
  let name: string;
  let statusKey: string | undefined;
  let observed: Observed | undefined;
  if (options.part === 'request') {
    const picked = pickContent(operation.requestBody);
    if (!picked || picked.schema === undefined) return `${boundedText(operationKey(operation), MAX_TEXT)} declares no request body schema, so there is no request type; ask for the response type instead.`;
    ({ schema, mediaType } = picked);
    name = `${base}Request`;
  } else {
    const keys = Object.keys(operation.responses);
    const withContent = keys.filter((key) => pickContent(operation.responses[key])?.schema !== undefined);
    const firstSuccess = withContent.find((key) => /^2/.test(key));
    if (options.status !== undefined) {
      const selected = selectStatuses(operation, options.status);
      if (typeof selected === 'string') return selected;
      statusKey = selected[0]!;
    } else {
      statusKey = firstSuccess;
    }
    const picked = statusKey === undefined ? undefined : pickContent(operation.responses[statusKey]);
    if (statusKey === undefined || !picked || picked.schema === undefined) {
      return boundedText(`${operationKey(operation)} declares no response body schema${statusKey ? ` for status ${statusKey}` : ' for a 2xx status'}; it has bodies for ${withContent.join(', ') || 'no status'}.`, 2 * MAX_TEXT);
    }
    ({ schema, mediaType } = picked);
    name = statusKey === firstSuccess ? `${base}Response` : `${base}Response${typeName(statusKey).replace(/^T/, '')}`;
    const key = statusKey;
    const bodies = seen.filter((entry) => documentedResponse(operation, entry.status)?.key === key);
    const target = bodies.length ? schemaFor(loaded.doc, operation.method, operation.pathTemplate, bodies[0]!.status, mediaType) : undefined;
    if (target) observed = observeBodies(loaded.doc, target.schema, target.schemaPath, bodies.map((entry) => entry.body));
  }
  // The renderer stops expanding near the limit (less room for the comment above the type and the cut lines).
  const rendered = renderTypeScriptWithin(loaded.doc, schema, name, options.part === 'request' ? 'request' : 'response', observed, Math.max(0, limit - 4_000));
  let typescript = rendered.typescript;
  let cut: string | undefined;
  if (rendered.cut.length > 0) {
    cut = `Cut to fit ${limit} characters: not expanded: ${boundedText(rendered.cut.join(', '), MAX_TEXT)} (written as unknown, or counted in a comment). Ask for less: \`status\` or \`part\`, or read it as text with a smaller \`depth\`.`;
  }
  if (typescript.length > limit) {
    const blocks = typescript.split(/\n\n(?=export type )/);
    const kept: string[] = [];
    const leftOut: string[] = [];
    let used = 0;
    for (const block of blocks) {
      const declared = /^export type ([A-Za-z0-9_$]+)/m.exec(block)?.[1];
      if (leftOut.length === 0 && used + block.length + 2 <= limit - 2_000) {
        kept.push(block);
        used += block.length + 2;
      } else if (declared) leftOut.push(declared);
    }
    typescript = `${kept.join('\n\n').trimEnd()}\n\n${leftOut.map((left) => `export type ${left} = unknown; // cut`).join('\n')}\n`;
    cut = `Cut to fit ${limit} characters: ${leftOut.length} declaration${leftOut.length === 1 ? '' : 's'} (${leftOut.slice(0, 5).join(', ')}${leftOut.length > 5 ? ', …' : ''}) left as unknown. Ask for less: \`status\` or \`part\`.`;
    if (typescript.length > limit) return `The ${name} type alone is longer than ${limit} characters; read it with describe_operation as text, which can be cut by \`depth\`.`;
  }
  return {
    operation: summarize(operation),
    part: options.part === 'request' ? 'request' : 'responses',
    ...(statusKey !== undefined ? { status: boundedText(statusKey, MAX_TEXT) } : {}),
    mediaType: boundedText(mediaType, MAX_TEXT),
    typeName: name,
    typescript,
    ...(cut ? { cut } : {}),
  };
}
