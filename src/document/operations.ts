/**
 * The operation index of a loaded document: every method and path template with its parameters, request body and
 * responses as the document states them (OpenAPI 3.x Paths and Operation Objects; Swagger 2.0), built once per document.
 */
import { escapePointerToken } from '../shared/json-pointer.ts';
import type { PointerLookup } from '../shared/json-pointer.ts';
import { isPlainObject } from '../shared/values.ts';
import { METHODS } from './model.ts';
import type { Operation, Parameter } from './model.ts';
import { followWith, memoLookup } from './refs.ts';

const SWAGGER_SCHEMA_KEYS = [
  'type',
  'format',
  'items',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
] as const;
const PARAMETER_LOCATIONS = ['path', 'query', 'header', 'cookie', 'body', 'formData'] as const;

function readParameter(
  doc: any,
  raw: unknown,
  pointer: string,
  version: '2.0' | '3.0' | '3.1',
  lookup: (root: unknown, ref: string) => PointerLookup,
): Parameter | undefined {
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
    const [mediaType, first] = Object.entries(p.content)[0] ?? [];
    if (isPlainObject(first) && first.schema !== undefined) parameter.schema = first.schema;
    if (mediaType !== undefined) parameter.contentType = mediaType;
  } else if (version === '2.0') {
    // Swagger 2.0 non-body parameters carry their schema keywords inline (Swagger 2.0, Parameter Object).
    const schema: Record<string, unknown> = {};
    for (const key of SWAGGER_SCHEMA_KEYS) if (p[key] !== undefined) schema[key] = p[key];
    if (Object.keys(schema).length > 0) parameter.schema = schema;
    // Swagger 2.0, Parameter Object: an array's collectionFormat defaults to csv.
    if (p.type === 'array')
      parameter.collectionFormat = typeof p.collectionFormat === 'string' ? p.collectionFormat : 'csv';
  }
  // OpenAPI 3.x, Parameter Object: style, explode and allowReserved (defaults applied where they are read).
  if (version !== '2.0') {
    if (typeof p.style === 'string') parameter.style = p.style;
    if (typeof p.explode === 'boolean') parameter.explode = p.explode;
    if (typeof p.allowReserved === 'boolean') parameter.allowReserved = p.allowReserved;
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
        for (const status of Object.keys(responses))
          operation.responses[status] = followWith(doc, responses[status], lookup).value;
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
