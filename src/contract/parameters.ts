/**
 * Request parameters checked against the operation: missing, unknown and invalid path, query, header and cookie
 * parameters, each read by its style first (OpenAPI 3.x, Parameter Object; Swagger 2.0 `collectionFormat`).
 */
import { check, DEFAULT_CHECK_TIMEOUT_MS } from '../../validate.ts';
import type { Finding } from '../../validate.ts';
import type { LoadedDocument, Operation, Parameter } from '../document/model.ts';
import { pairsNamed, parse, serializationOf, splitCookies, splitQuery } from '../document/parameter-style.ts';
import type { QueryPair } from '../document/parameter-style.ts';

import { operationKey } from '../document/model.ts';
import { nearestName, resolveSchema } from './operation.ts';
/** One parameter value that breaks the operation's contract: `problem` reads after the name ("is required but missing"). */
export type ParameterProblem = {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  kind: 'missing' | 'unknown' | 'invalid' | 'notChecked';
  value: string;
  problem: string;
};

/**
 * The values of a request's parameters as sent. `pathRaw`: each path parameter's segment text still
 * percent-encoded (`;id=5`, `a%2Cb`), as `matchOperation` gives it; `path`: the same values decoded (read as if
 * no delimiter in them had been encoded). `queryPairs`: the query's pairs still percent-encoded (`splitQuery`);
 * `query`: decoded values by name, a repeated name as a list (`queryValues`), read the same way. `headers` by
 * name; the `Cookie` header among them gives the cookie parameters.
 */
export type ParameterValues = {
  path?: Record<string, string>;
  pathRaw?: Record<string, string>;
  query?: Record<string, string | string[]>;
  queryPairs?: readonly QueryPair[];
  headers?: Record<string, string>;
};

// OpenAPI 3.0.3, Parameter Object: header parameters with these names are ignored (they have their own fields).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * Schema applications (validate.ts steps) all the parameter values of one request share: the same input gives
 * the same findings on any machine. A document may declare thousands of parameters with costly schemas, and
 * these checks run for every probe.
 */
export const PARAMETER_CHECK_STEPS = 20_000;

/**
 * A last guard in ms over all the parameter checks of one request, only against a stalled thread: the checks' own
 * guard (`DEFAULT_CHECK_TIMEOUT_MS` in validate.ts, measured there), so `PARAMETER_CHECK_STEPS` decides.
 */
export const PARAMETER_CHECKS_GUARD_MS = DEFAULT_CHECK_TIMEOUT_MS;

/** Re-encodes a decoded value so `parse` reads it back: `%` and `+` escaped, delimiters left as delimiters. */
function asSent(text: string): string {
  return text.replace(/[%+]/g, (c) => encodeURIComponent(c));
}

/**
 * Checks a request's path, query, header and cookie parameter values against the operation's Parameter Objects
 * (OpenAPI 3.0.3 §4.7.12 / 3.1.0 §4.8.12, Parameter Object; Swagger 2.0 Parameter Object). Each value is first
 * read by its `style` and `explode` (defaults by location) or `content` media type, with `parse` from
 * parameter-style.ts: `;id=5` (matrix), `filter[name]=x` (deepObject), `R=100&G=200` (an exploded form object),
 * `R,100,G,200`, `a|b`, JSON text; text is converted to the schema's primitive types (`"42"` to 42 for an
 * integer, a 3.1 type list included; items and properties by their own subschemas) and then checked with
 * `check` from validate.ts, so every keyword the validator knows applies.
 * Reports: a required parameter that is missing ("is required but missing"; a path parameter the template
 * lacks: "is not a segment of /x"), a value its style cannot read ("does not start with ';' (matrix style)"), a
 * value that fails its schema (the validator's message, a failed type as "is not of type integer", inside an
 * array or object "at filter.edition: ..."), a style the specification leaves undefined (`notChecked`), and,
 * when query values are given, a query name no parameter takes ("is not a query parameter of GET /x", with
 * "did you mean" for a near name). Header names are compared case-insensitively; `Accept`, `Content-Type` and
 * `Authorization` parameters are ignored; cookie parameters are read from a `Cookie` header when headers are given.
 * All the values share one step budget (`PARAMETER_CHECK_STEPS`): a value reached after it ran out is
 * `notChecked`, never passed.
 * @param options.maxSteps The shared step budget, default `PARAMETER_CHECK_STEPS`; `options.timeoutMs` the
 *   last guard in ms, default `PARAMETER_CHECKS_GUARD_MS`; `options.clean` the key redactor's `text`, applied to the
 *   document values a problem quotes before they are cut.
 * @returns Problems in parameter order (unknown query names last); `[]` when all pass. Never throws.
 */
export function checkParameters(
  loaded: LoadedDocument,
  operation: Operation,
  values: ParameterValues,
  options: { maxSteps?: number; timeoutMs?: number; clean?: (text: string) => string } = {},
): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  const maxSteps = options.maxSteps ?? PARAMETER_CHECK_STEPS;
  const guardMs = options.timeoutMs ?? PARAMETER_CHECKS_GUARD_MS;
  const deadline = performance.now() + guardMs;
  const spent = { steps: 0 };
  // A name given twice in different case is read in its first spelling, as draft_request's `repeated` problem says.
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(values.headers ?? {}))
    if (!headers.has(name.toLowerCase())) headers.set(name.toLowerCase(), value);
  const pathRaw =
    values.pathRaw ??
    (values.path
      ? Object.fromEntries(Object.entries(values.path).map(([name, text]) => [name, asSent(text)]))
      : undefined);
  const pairs: readonly QueryPair[] | undefined =
    values.queryPairs ??
    (values.query
      ? Object.entries(values.query).flatMap(([name, value]) =>
          (Array.isArray(value) ? value : [value]).map((one): QueryPair => [asSent(name), asSent(one)]),
        )
      : undefined);
  const cookieHeader = headers.get('cookie');
  const cookies = values.headers ? splitCookies(cookieHeader ?? '') : undefined;
  const claimed = new Set<number>();
  // Exploded form objects take the pairs no named parameter took, so they are read last (their problems keep
  // parameter order below).
  const order = operation.parameters
    .map((parameter, index) => ({ parameter, index, late: takesLoosePairs(loaded.doc, parameter) }))
    .sort((a, b) => Number(a.late) - Number(b.late) || a.index - b.index);
  const found: { index: number; problems: ParameterProblem[] }[] = [];
  for (const { parameter, index } of order) {
    const serialization = serializationOf(parameter);
    if (!serialization) continue;
    const where = serialization.location;
    if (where === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
    const input =
      where === 'path'
        ? pathRaw && (Object.hasOwn(pathRaw, parameter.name) ? pathRaw[parameter.name] : undefined)
        : where === 'query'
          ? pairs
          : where === 'header'
            ? values.headers && headers.get(parameter.name.toLowerCase())
            : cookies;
    if (where === 'path' && !pathRaw) continue;
    if (where === 'query' && !pairs) continue;
    if ((where === 'header' || where === 'cookie') && !values.headers) continue;
    const own: ParameterProblem[] = [];
    found.push({ index, problems: own });
    const missing = (problem: string) =>
      own.push({ in: where, name: parameter.name, kind: 'missing', value: '', problem });
    if (input === undefined) {
      if (where === 'path') missing(`is not a segment of ${operation.pathTemplate}`);
      else if (parameter.required) missing('is required but missing');
      continue;
    }
    const read = parse(input, { ...serialization, schema: parameter.schema, doc: loaded.doc, claimed });
    if ('absent' in read) {
      if (parameter.required) missing('is required but missing');
      continue;
    }
    // A value its style cannot read is shown as the pairs that carry its name.
    const used = 'used' in read ? read.used : typeof input === 'string' ? [] : pairsNamed(input, parameter.name);
    for (const i of used) claimed.add(i);
    const shown = shownValue(input, used, parameter.name);
    const report = (kind: ParameterProblem['kind'], problem: string) =>
      own.push({ in: where, name: parameter.name, kind, value: shown, problem });
    if ('problem' in read) {
      report('invalid', read.problem);
      continue;
    }
    if ('refused' in read) {
      report('notChecked', `was not checked: ${read.refused}`);
      continue;
    }
    const left = maxSteps - spent.steps;
    const guardLeft = deadline - performance.now();
    if (left <= 0 || guardLeft <= 0) {
      report(
        'notChecked',
        left <= 0
          ? `was not checked: the parameter checks' step budget (${maxSteps} schema applications) ran out`
          : `was not checked: the parameter checks' time guard (${guardMs} ms) ran out`,
      );
      continue;
    }
    for (const { problem, unchecked } of checkParameterValue(loaded, parameter, read.value, {
      maxSteps: left,
      timeoutMs: guardLeft,
      spent,
      ...(options.clean ? { clean: options.clean } : {}),
    }))
      // A value the check could not test (an unsafe pattern: issue 8) is `notChecked`, never `invalid`.
      report(unchecked ? 'notChecked' : 'invalid', problem);
  }
  found.sort((a, b) => a.index - b.index);
  for (const entry of found) problems.push(...entry.problems);
  if (pairs) {
    const declared = operation.parameters
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name);
    const known = new Set(declared);
    // A document may declare thousands: the message lists the first ones.
    const takes =
      declared.length > MAX_LISTED_NAMES
        ? `${declared.slice(0, MAX_LISTED_NAMES).join(', ')} and ${declared.length - MAX_LISTED_NAMES} more`
        : declared.join(', ');
    let suggestions = 0;
    const unknown = new Map<string, string[]>();
    pairs.forEach(([rawName, rawValue], i) => {
      if (claimed.has(i)) return;
      const name = decodeText(rawName);
      const list = unknown.get(name) ?? [];
      list.push(decodeText(rawValue));
      unknown.set(name, list);
    });
    for (const [name, list] of unknown) {
      if (known.has(name)) continue;
      // A bracketed name (`filtr[status]`) is compared by what comes before its brackets.
      const base = /^([^[\]]+)\[/.exec(name)?.[1] ?? name;
      const near = suggestions++ < 20 ? nearestName(base, declared) : undefined;
      problems.push({
        in: 'query',
        name,
        kind: 'unknown',
        value: list.join(','),
        problem: `is not a query parameter of ${operationKey(operation)}${near ? `; did you mean ${near}?` : declared.length ? `; it takes ${takes}` : '; it takes none'}`,
      });
    }
  }
  return problems;
}

/** Declared query names an unknown name's problem lists at most. */
const MAX_LISTED_NAMES = 20;

/** Query text decoded as forms are (`+` is a space), malformed escapes left as written. */
function decodeText(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Whether a parameter is an exploded form object, which reads the query's pairs named by its properties. */
function takesLoosePairs(doc: unknown, parameter: Parameter): boolean {
  if (parameter.in !== 'query' && parameter.in !== 'cookie') return false;
  if (parameter.contentType !== undefined || parameter.collectionFormat !== undefined) return false;
  if ((parameter.style ?? 'form') !== 'form' || parameter.explode === false) return false;
  const node = resolveSchema(doc, parameter.schema).node;
  const type = node?.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object') && !type.includes('array'));
}

/**
 * The value as the problem shows it: a path segment or header decoded; a parameter's own pairs' values joined by
 * `,`, others as `name=value&...`.
 */
function shownValue(input: string | readonly QueryPair[], used: number[], name: string): string {
  if (typeof input === 'string') return decodeText(input.replace(/\+/g, '%2B'));
  const taken = used.map((i) => input[i]!);
  if (taken.every(([key]) => decodeText(key) === name)) return taken.map(([, value]) => decodeText(value)).join(',');
  return taken.map(([key, value]) => `${decodeText(key)}=${decodeText(value)}`).join('&');
}

function checkParameterValue(
  loaded: LoadedDocument,
  parameter: Parameter,
  value: unknown,
  budget: { maxSteps: number; timeoutMs: number; spent: { steps: number }; clean?: (text: string) => string },
): { problem: string; unchecked: boolean }[] {
  if (parameter.schema === undefined) return [];
  let findings: Finding[];
  try {
    findings = check(loaded.doc, parameter.schema, value, {
      at: `${parameter.pointer}/schema`,
      direction: 'request',
      ...budget,
    });
  } catch (error) {
    // Never a pass: a check that could not run says so.
    return [{ problem: `was not checked: the schema check failed (${(error as Error).message})`, unchecked: true }];
  }
  return findings
    .filter((finding) => finding.severity !== 'info')
    .map((finding) => {
      const text = finding.kind === 'wrongType' ? `is not of type ${finding.expected}` : finding.message;
      const problem = finding.path === '$' ? text : `at ${parameter.name}${finding.path.slice(1)}: ${text}`;
      return { problem, unchecked: finding.kind === 'notChecked' };
    });
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

/**
 * The query of a URL as pairs still percent-encoded as sent (`splitQuery` of `url.search`), for `checkParameters`'s
 * `queryPairs`: delimiters written encoded (`%2C`) stay data.
 * @param except Names to leave out (compared decoded), e.g. those API_BASE_URL itself carries (`?api-version=2`).
 */
export function queryPairsOf(url: URL, except: Iterable<string> = []): QueryPair[] {
  const skip = new Set(except);
  return splitQuery(url.search.slice(1)).filter(([name]) => !skip.has(decodeText(name)));
}
