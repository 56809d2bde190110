/**
 * Request parameters checked against the operation: missing, unknown and invalid path, query and header
 * parameters (OpenAPI 3.x, Parameter Object).
 */
import { check } from '../../validate.ts';
import type { Finding } from '../../validate.ts';
import type { LoadedDocument, Operation, Parameter } from '../document/model.ts';

import { resolveSchema } from './operation.ts';
import { operationKey } from '../document/model.ts';
import { nearestName } from './operation.ts';
/** One parameter value that breaks the operation's contract: `problem` reads after the name ("is required but missing"). */
export type ParameterProblem = {
  in: 'path' | 'query' | 'header';
  name: string;
  kind: 'missing' | 'unknown' | 'invalid' | 'notChecked';
  value: string;
  problem: string;
};

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
 * All the values share one time budget (a document may declare many parameters with costly
 * patterns, and these checks run on the server's main thread): a value reached after it ran out is
 * `notChecked`, never passed.
 * @param options.timeoutMs The shared budget in ms, default `PARAMETER_CHECKS_MS` (250).
 * @returns Problems in parameter order (unknown query names last); `[]` when all pass. Never throws.
 */
export function checkParameters(
  loaded: LoadedDocument,
  operation: Operation,
  values: ParameterValues,
  options: { timeoutMs?: number } = {},
): ParameterProblem[] {
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
    const raw =
      where === 'path'
        ? values.path![parameter.name]
        : where === 'query'
          ? Object.hasOwn(values.query!, parameter.name)
            ? values.query![parameter.name]
            : undefined
          : headers.get(parameter.name.toLowerCase());
    if (raw === undefined) {
      if (where === 'path')
        problems.push({
          in: where,
          name: parameter.name,
          kind: 'missing',
          value: '',
          problem: `is not a segment of ${operation.pathTemplate}`,
        });
      else if (parameter.required)
        problems.push({
          in: where,
          name: parameter.name,
          kind: 'missing',
          value: '',
          problem: 'is required but missing',
        });
      continue;
    }
    const shown = Array.isArray(raw) ? raw.join(',') : raw;
    const left = deadline - performance.now();
    if (left <= 0) {
      problems.push({
        in: where,
        name: parameter.name,
        kind: 'notChecked',
        value: shown,
        problem: `was not checked: the parameter checks' time budget (${budgetMs} ms) ran out`,
      });
      continue;
    }
    for (const { problem, unchecked } of checkParameterValue(loaded, parameter, raw, left)) {
      // A value the check could not test (an unsafe pattern: issue 8) is `notChecked`, never `invalid`.
      problems.push({
        in: where,
        name: parameter.name,
        kind: unchecked ? 'notChecked' : 'invalid',
        value: shown,
        problem,
      });
    }
  }
  if (values.query) {
    const declared = operation.parameters
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name);
    let suggestions = 0;
    for (const [name, raw] of Object.entries(values.query)) {
      if (declared.includes(name)) continue;
      const near = suggestions++ < 20 ? nearestName(name, declared) : undefined;
      problems.push({
        in: 'query',
        name,
        kind: 'unknown',
        value: Array.isArray(raw) ? raw.join(',') : raw,
        problem: `is not a query parameter of ${operationKey(operation)}${near ? `; did you mean ${near}?` : declared.length ? `; it takes ${declared.join(', ')}` : '; it takes none'}`,
      });
    }
  }
  return problems;
}

/** Time budget (ms) shared by all the parameter values of one request, checked on the main thread. */
export const PARAMETER_CHECKS_MS = 250;

function checkParameterValue(
  loaded: LoadedDocument,
  parameter: Parameter,
  raw: string | string[],
  timeoutMs: number,
): { problem: string; unchecked: boolean }[] {
  if (parameter.schema === undefined) return [];
  const value = convertParameter(loaded.doc, parameter.schema, raw);
  let findings: Finding[];
  try {
    findings = check(loaded.doc, parameter.schema, value, {
      at: `${parameter.pointer}/schema`,
      direction: 'request',
      timeoutMs,
    });
  } catch {
    return [];
  }
  return findings
    .filter((finding) => finding.severity !== 'info')
    .map((finding) => {
      const text = finding.kind === 'wrongType' ? `is not of type ${finding.expected}` : finding.message;
      const problem =
        finding.path === '$' ? text : `at ${finding.path.replace(/^\$/, 'item ')}: ${text}`.replace('item [', '[');
      return { problem, unchecked: finding.kind === 'notChecked' };
    });
}

/** The schema's JSON types after following `$ref`s (`resolveSchema`); `[]` for none. */
function schemaTypes(
  doc: unknown,
  schema: unknown,
): { types: string[]; resolved: Record<string, unknown> | undefined } {
  const resolved = resolveSchema(doc, schema).node;
  if (resolved === undefined) return { types: [], resolved: undefined };
  const type = resolved.type;
  const types =
    typeof type === 'string'
      ? [type]
      : Array.isArray(type)
        ? type.filter((t): t is string => typeof t === 'string')
        : [];
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
  if (
    types.length === 0 &&
    Array.isArray(resolved?.enum) &&
    resolved.enum.some((entry) => typeof entry === 'number') &&
    raw !== '' &&
    !Number.isNaN(Number(raw))
  )
    return Number(raw);
  return raw;
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
