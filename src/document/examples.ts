/**
 * Example values taken from a loaded document, for the texts an agent reads before it knows the API: tool
 * descriptions, refusals and errors name an operationId and a path the document has, never the demo's on another API
 * (issue 17). Picked the same way every time, so one document always gives the same examples.
 */
import type { LoadedDocument, Operation, Parameter } from './model.ts';
import { matchOperation } from './match.ts';
import { followedValue } from './refs.ts';
import type { DocumentExamples } from './demo-examples.ts';

/** Most operations looked at, in document order, so a document of any size is read in bounded steps. */
export const MAX_EXAMINED_OPERATIONS = 2_000;

/** Longest operationId or path template quoted, in characters: the texts are read by every client, in its prompt. */
const MAX_NAME = 80;

/** Longest parameter value quoted, in characters. */
const MAX_VALUE = 40;

/** What an operationId or a template may hold to be quoted: no spaces, quotes or line breaks from a hostile document. */
const QUOTABLE = /^[A-Za-z0-9_.\/{}~:@$+-]+$/;

const quotable = (text: string | undefined): text is string =>
  text !== undefined && text.length > 0 && text.length <= MAX_NAME && QUOTABLE.test(text);

/**
 * The documented example value of a parameter, in order: the parameter's `example`, its `examples` (the first entry's
 * `value`), the schema's `example`, its `examples` (the first item), `enum[0]`, `default`. Only a string, a number or
 * a boolean of at most `MAX_VALUE` characters counts (OpenAPI 3.1, Parameter Object: `example`, `examples`; JSON Schema
 * 2020-12 Validation 9.5 `examples`, 6.1.2 `enum`, 9.2 `default`).
 * @returns The value as text, or undefined when the document gives none.
 */
export function documentedValue(doc: unknown, parameter: Parameter): string | undefined {
  const resolved = followedValue(doc, resolveParameter(doc, parameter));
  const own = resolved !== null && typeof resolved === 'object' ? (resolved as Record<string, unknown>) : {};
  const schema = followedValue(doc, parameter.schema);
  const keywords = schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>) : {};
  const firstEntry = (examples: unknown): unknown => {
    if (examples === null || typeof examples !== 'object' || Array.isArray(examples)) return undefined;
    const first = Object.values(examples)[0];
    const entry = followedValue(doc, first);
    return entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).value : undefined;
  };
  const candidates = [
    own.example,
    firstEntry(own.examples),
    keywords.example,
    Array.isArray(keywords.examples) ? keywords.examples[0] : undefined,
    Array.isArray(keywords.enum) ? keywords.enum[0] : undefined,
    keywords.default,
  ];
  for (const value of candidates) {
    const text =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
    if (text.length > 0 && text.length <= MAX_VALUE) return text;
  }
  return undefined;
}

/** Every documented value of `examples` (Parameter Object) after the first, as text: where a second path comes from. */
function laterValues(doc: unknown, parameter: Parameter): string[] {
  const resolved = followedValue(doc, resolveParameter(doc, parameter));
  const examples =
    resolved !== null && typeof resolved === 'object' ? (resolved as Record<string, unknown>).examples : undefined;
  if (examples === null || typeof examples !== 'object' || Array.isArray(examples)) return [];
  return Object.values(examples)
    .slice(1, 2)
    .map((entry) => {
      const value = (followedValue(doc, entry) as Record<string, unknown> | null)?.value;
      return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    })
    .filter((text) => text.length > 0 && text.length <= MAX_VALUE);
}

/** The Parameter Object a parameter came from (its `pointer`), for the keywords the index does not keep (`example`). */
function resolveParameter(doc: unknown, parameter: Parameter): unknown {
  return followedValue(doc, { $ref: parameter.pointer });
}

/** `template` with each `{name}` replaced by `fill(name)`, percent-encoded (RFC 3986, 3.3: a segment's characters). */
function filled(template: string, fill: (name: string) => string): string {
  return template.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(fill(name)));
}

/**
 * Picks the examples of `loaded`: the first GET operation in document order that has an operationId and a path
 * parameter, preferring the first whose path parameters all have a documented value (`documentedValue`); its path
 * filled with those values, else with each parameter's own name (`/repos/owner/repo`, which reads as a placeholder).
 * A candidate is kept only when its concrete path matches it again (`matchOperation`), so a literal template such as
 * `/users/me` never takes a placeholder's place. The query example comes from the first GET operation with a query
 * parameter that has a documented value. Operationids and templates with spaces, quotes or over 80 characters are passed
 * over. Reads at most `MAX_EXAMINED_OPERATIONS` operations; picked once per loaded document.
 * @returns The examples, or undefined when the document has no such GET operation (the caller keeps its wording
 *   without a concrete example). Never throws.
 */
export function documentExamples(loaded: LoadedDocument): DocumentExamples | undefined {
  if (picked.has(loaded)) return picked.get(loaded);
  let examples: DocumentExamples | undefined;
  try {
    examples = pickExamples(loaded);
  } catch {
    // A document the index could not make sense of has no examples; the texts then quote none.
    examples = undefined;
  }
  picked.set(loaded, examples);
  return examples;
}

/** The examples of each loaded document, picked once. */
const picked = new WeakMap<LoadedDocument, DocumentExamples | undefined>();

function pickExamples(loaded: LoadedDocument): DocumentExamples | undefined {
  const doc = loaded.doc;
  const operations = loaded.operations.slice(0, MAX_EXAMINED_OPERATIONS);
  const fits = (operation: Operation) =>
    operation.method === 'GET' &&
    quotable(operation.operationId) &&
    quotable(operation.pathTemplate) &&
    operation.parameters.some((parameter) => parameter.in === 'path');
  const candidates = operations.filter(fits);
  const documented = (operation: Operation) =>
    operation.parameters
      .filter((parameter) => parameter.in === 'path')
      .every((parameter) => documentedValue(doc, parameter) !== undefined);
  // The first candidate with documented values, else the first at all (each read lazily: most documents stop early).
  const ordered = function* () {
    for (const operation of candidates) if (documented(operation)) yield operation;
    for (const operation of candidates) if (!documented(operation)) yield operation;
  };
  for (const operation of ordered()) {
    const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
    const valueOf = (name: string) => {
      const parameter = pathParameters.find((candidate) => candidate.name === name);
      return (parameter && documentedValue(doc, parameter)) ?? name;
    };
    const path = filled(operation.pathTemplate, valueOf);
    if (!matches(loaded, operation, path)) continue;
    const paths = [path];
    // A second documented value of the last path parameter gives the second path (`/meters/mtr_2`).
    const last = pathParameters.at(-1);
    const second = last ? laterValues(doc, last)[0] : undefined;
    if (last && second !== undefined) {
      const other = filled(operation.pathTemplate, (name) => (name === last.name ? second : valueOf(name)));
      if (other !== path && matches(loaded, operation, other)) paths.push(other);
    }
    const write = operations.find(
      (candidate) => candidate.pathTemplate === operation.pathTemplate && candidate.method !== 'GET',
    );
    const query = queryExample(loaded, operations);
    return {
      operationId: operation.operationId!,
      template: operation.pathTemplate,
      key: `${(write ?? operation).method} ${operation.pathTemplate}`,
      paths,
      ...(query !== undefined ? { query } : {}),
    };
  }
  return undefined;
}

/** Whether `path` is matched to `operation` itself, read as relative to the base. */
function matches(loaded: LoadedDocument, operation: Operation, path: string): boolean {
  return matchOperation(loaded, 'GET', path, { stripBasePaths: false }).operation === operation;
}

/** `/meters?status=active`: the first GET operation without path parameters whose query parameter has a documented value. */
function queryExample(loaded: LoadedDocument, operations: Operation[]): string | undefined {
  for (const operation of operations) {
    if (operation.method !== 'GET' || !quotable(operation.pathTemplate) || operation.pathTemplate.includes('{'))
      continue;
    for (const parameter of operation.parameters) {
      if (parameter.in !== 'query' || !quotable(parameter.name)) continue;
      const value = documentedValue(loaded.doc, parameter);
      if (value === undefined) continue;
      const path = `${operation.pathTemplate}?${encodeURIComponent(parameter.name)}=${encodeURIComponent(value)}`;
      if (matches(loaded, operation, path)) return path;
    }
  }
  return undefined;
}
