/**
 * An operation's contract for an agent to read: parameters, request body and responses with `$ref`s expanded to a
 * depth, as readable schemas or as TypeScript declarations, within a character budget.
 */
import { boundedText } from '../shared/text.ts';
import { check, fieldPresence, schemaFor } from '../../validate.ts';
import { renderTypeScriptWithin, typeName } from './typescript.ts';
import type { Observed } from './typescript.ts';
import { unescapePointerToken } from '../shared/json-pointer.ts';
import type { LoadedDocument, Operation, Parameter } from '../document/model.ts';
import { isPlainObject } from '../shared/values.ts';

import { MAX_TEXT, cleanedOnce, cutLongStrings, documentedResponse } from './operation.ts';
import { operationKey } from '../document/model.ts';
import { OBSERVE_CHECK_STEPS, SHARED_CHECKS_GUARD_MS } from './sample.ts';
import { pickContent, resolveSchema } from './operation.ts';
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
  /**
   * Applied to every text the document supplies (names included) before it is cut: the key redactor's `text`, so a
   * key written in the document reaches the answer neither whole nor as a prefix left by a cut (issue 18).
   */
  clean?: (text: string) => string;
};

function refName(ref: string): string {
  return unescapePointerToken(ref.slice(ref.lastIndexOf('/') + 1));
}

const KEPT_KEYWORDS = [
  'type',
  'format',
  'nullable',
  'enum',
  'const',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
  'required',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
  'minProperties',
  'maxProperties',
] as const;
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'] as const;
const MAX_DESCRIPTION = 160;
/** At most this many enum values are shown; the rest are counted in `enumMore` (a document's enum may hold a million). */
const MAX_ENUM_SHOWN = 50;

/** `enum` as described: all values, or the first `MAX_ENUM_SHOWN` plus `enumMore` with how many were left out. */
function shownEnum(values: unknown[]): { enum: unknown[]; enumMore?: number } {
  return values.length > MAX_ENUM_SHOWN
    ? { enum: values.slice(0, MAX_ENUM_SHOWN), enumMore: values.length - MAX_ENUM_SHOWN }
    : { enum: values };
}

/**
 * A schema made readable: `$ref`s expanded up to `refsLeft` levels (the expansion carries `ref: "Name"`),
 * deeper ones left as `{$ref}` with `notExpanded: true`, a `$ref` back into one being expanded as
 * `{$ref, cycle: true}`; examples and `x-` extensions dropped, descriptions cut to 160 characters.
 */
function readableSchema(
  doc: unknown,
  schema: unknown,
  refsLeft: number,
  active: string[],
  nesting: number,
  budget: { nodes: number; clean: (text: string) => string },
): unknown {
  if (!isPlainObject(schema)) return schema;
  // A document whose $refs fan out (100 properties of 100 properties...) must not stall the thread: past
  // the node budget nothing more is expanded, and the size check below cuts the answer.
  if (nesting > 40 || --budget.nodes < 0)
    return typeof schema.$ref === 'string' ? { $ref: schema.$ref, notExpanded: true } : { notExpanded: true };
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
  if (typeof schema.description === 'string') out.description = shortDescription(schema.description, budget.clean);
  for (const key of KEPT_KEYWORDS) if (Object.hasOwn(schema, key)) out[key] = schema[key];
  if (Array.isArray(schema.enum)) Object.assign(out, shownEnum(schema.enum));
  if (isPlainObject(schema.properties)) {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties))
      properties[name] = readableSchema(doc, property, refsLeft, active, nesting + 1, budget);
    out.properties = properties;
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    if (schema[key] !== undefined) out[key] = readableSchema(doc, schema[key], refsLeft, active, nesting + 1, budget);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list))
      out[key] = list.map((part) => readableSchema(doc, part, refsLeft, active, nesting + 1, budget));
  }
  if (isPlainObject(schema.discriminator) && typeof schema.discriminator.propertyName === 'string')
    out.discriminator = { propertyName: schema.discriminator.propertyName };
  return out;
}

/** A description cleaned (`DescribeOptions.clean`), then cut to `MAX_DESCRIPTION` characters with `…`. */
function shortDescription(text: string, clean: (text: string) => string): string {
  const cleaned = clean(text);
  return cleaned.length > MAX_DESCRIPTION ? `${cleaned.slice(0, MAX_DESCRIPTION - 1)}…` : cleaned;
}

/** The parameter's type in one word or two (`integer`, `string (date-time)`, `array of string`), from its schema. */
function parameterSummary(
  doc: unknown,
  parameter: Parameter,
  clean: (text: string) => string,
): Record<string, unknown> {
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
    for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const)
      if (typeof node[key] === 'number') out[key] = node[key];
  }
  if (parameter.description) out.description = shortDescription(parameter.description, clean);
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
  return boundedText(
    `${operationKey(operation)} documents no response for status \`${status}\`; it documents ${keys.join(', ') || 'none'}.`,
    2 * MAX_TEXT,
  );
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
export function describeOperation(
  loaded: LoadedDocument,
  operation: Operation,
  options: DescribeOptions = {},
): Record<string, unknown> | string {
  const limit = options.maxChars ?? MAX_DESCRIBE_CHARS;
  const statuses = options.part === 'request' ? [] : selectStatuses(operation, options.status);
  if (typeof statuses === 'string') return statuses;
  const requested = Math.max(0, Math.min(options.depth ?? 3, 10));
  // Each document text is cleaned once, before any cut, however many times the answer is rebuilt.
  const clean = cleanedOnce(options.clean ?? ((text) => text));
  const head = cutLongStrings(
    {
      operation: {
        method: operation.method,
        pathTemplate: operation.pathTemplate,
        ...(operation.operationId ? { operationId: operation.operationId } : {}),
        ...(operation.summary ? { summary: operation.summary } : {}),
        ...(operation.deprecated ? { deprecated: true } : {}),
      },
    },
    MAX_TEXT,
    clean,
  ) as Record<string, unknown>;
  const build = (depth: number, kept: string[], schemas: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const budget = { nodes: 20_000, clean };
    if (options.part !== 'responses') {
      out.parameters = operation.parameters
        .filter((parameter) => parameter.in !== 'body')
        .map((parameter) => parameterSummary(loaded.doc, parameter, clean));
      const body = operation.requestBody;
      if (body !== undefined) {
        const picked = pickContent(body);
        out.requestBody = {
          required: isPlainObject(body) && body.required === true,
          ...(picked ? { mediaType: picked.mediaType } : {}),
          ...(picked && picked.schema !== undefined
            ? { schema: schemas ? readableSchema(loaded.doc, picked.schema, depth, [], 0, budget) : { notShown: true } }
            : {}),
        };
      }
    }
    if (options.part !== 'request') {
      const responses: Record<string, unknown> = {};
      for (const key of kept) {
        const response = operation.responses[key];
        const picked = pickContent(response);
        responses[key] = {
          ...(isPlainObject(response) && typeof response.description === 'string'
            ? { description: clean(response.description).slice(0, MAX_DESCRIPTION) }
            : {}),
          ...(picked ? { mediaType: picked.mediaType } : {}),
          ...(picked && picked.schema !== undefined
            ? { schema: schemas ? readableSchema(loaded.doc, picked.schema, depth, [], 0, budget) : { notShown: true } }
            : {}),
        };
      }
      out.responses = responses;
    }
    out.depth = depth;
    // Every string and name the document supplies is cleaned and cut to MAX_TEXT here, once, whatever keyword it
    // sits under; the head is cut already.
    return { ...head, ...(cutLongStrings(out, MAX_TEXT, clean) as Record<string, unknown>) };
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
  if (depth < requested)
    notes.push(`$refs expanded ${depth} level${depth === 1 ? '' : 's'} deep instead of ${requested}`);
  if (schemasLeftOut) notes.push('schemas left out');
  described.cut = `Cut to fit ${limit} characters: ${boundedText(notes.join('; '), MAX_TEXT)}. Ask for less: \`status\` (one response, e.g. "${boundedText(clean(success[0] ?? dropped[0] ?? '200'), 40)}"), \`part\`: "request" or "responses", or a smaller \`depth\`.`;
  if (size(described) > limit) {
    // Even the bare lists do not fit (thousands of parameters): keep the operation and the note.
    return {
      ...head,
      depth,
      cut: `${described.cut as string} The parameter list alone is longer than ${limit} characters.`,
    };
  }
  return described;
}

/** A complete JSON body seen by a probe of the operation, with its status. */
export type SeenBody = { status: number; body: unknown };

/**
 * What the bodies seen show beside the document: fields it does not mention (from `fieldPresence`, with
 * how often they appeared) and fields sent as null where the schema does not allow null (a `wrongType`
 * finding with `actual: null`, counted once per body; array indexes folded to `[]`). The null checks share
 * `OBSERVE_CHECK_STEPS` (a wall-clock guard behind it); bodies reached after it are counted in `notCheckedForNulls`.
 * @param at Schema path of `schema` in the document, for `check`.
 */
function observeBodies(doc: unknown, schema: unknown, at: string, bodies: unknown[]): Observed {
  const rows = fieldPresence(doc, schema, bodies, { at });
  const nulls = new Map<string, number>();
  const spent = { steps: 0 };
  const guard = performance.now() + SHARED_CHECKS_GUARD_MS;
  let unchecked = 0;
  for (const body of bodies) {
    const left = OBSERVE_CHECK_STEPS - spent.steps;
    const time = guard - performance.now();
    if (left <= 0 || time <= 0) {
      unchecked++;
      continue;
    }
    const paths = new Set(
      check(doc, schema, body, { at, maxSteps: left, timeoutMs: time, spent })
        .filter((finding) => finding.kind === 'wrongType' && finding.actual === 'null')
        .map((finding) => finding.path.replace(/\[[0-9]+\]/g, '[]')),
    );
    for (const path of paths) nulls.set(path, (nulls.get(path) ?? 0) + 1);
  }
  return {
    probes: bodies.length,
    undocumented: rows
      .filter((row) => !row.documented)
      .map((row) => ({ path: row.path, present: row.present, of: row.of })),
    unexpectedNull: [...nulls]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, count]) => ({ path, bodies: count })),
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
export function describeTypeScript(
  loaded: LoadedDocument,
  operation: Operation,
  options: DescribeOptions = {},
  seen: SeenBody[] = [],
): Record<string, unknown> | string {
  const limit = options.maxChars ?? MAX_DESCRIBE_CHARS;
  const clean = options.clean ?? ((text: string) => text);
  // Document text is cleaned before typeName cuts it to 100 characters (issue 18: no prefix of a key at a cut).
  const base = typeName(clean(operation.operationId ?? `${operation.method.toLowerCase()} ${operation.pathTemplate}`));
  let schema: unknown;
  let mediaType: string;
  let name: string;
  let statusKey: string | undefined;
  let observed: Observed | undefined;
  if (options.part === 'request') {
    const picked = pickContent(operation.requestBody);
    if (!picked || picked.schema === undefined)
      return `${boundedText(operationKey(operation), MAX_TEXT)} declares no request body schema, so there is no request type; ask for the response type instead.`;
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
      return boundedText(
        `${operationKey(operation)} declares no response body schema${statusKey ? ` for status ${statusKey}` : ' for a 2xx status'}; it has bodies for ${withContent.join(', ') || 'no status'}.`,
        2 * MAX_TEXT,
      );
    }
    ({ schema, mediaType } = picked);
    name =
      statusKey === firstSuccess ? `${base}Response` : `${base}Response${typeName(clean(statusKey)).replace(/^T/, '')}`;
    const key = statusKey;
    const bodies = seen.filter((entry) => documentedResponse(operation, entry.status)?.key === key);
    const target = bodies.length
      ? schemaFor(loaded.doc, operation.method, operation.pathTemplate, bodies[0]!.status, mediaType)
      : undefined;
    if (target)
      observed = observeBodies(
        loaded.doc,
        target.schema,
        target.schemaPath,
        bodies.map((entry) => entry.body),
      );
  }
  // The renderer stops expanding near the limit (less room for the comment above the type and the cut lines).
  const rendered = renderTypeScriptWithin(
    loaded.doc,
    schema,
    name,
    options.part === 'request' ? 'request' : 'response',
    observed,
    Math.max(0, limit - 4_000),
    undefined,
    clean,
  );
  // Whole keys out of the rendered text (names and literals the document wrote, written whole); what the renderer
  // cuts (type names, comment paths) it cleaned before the cut.
  let typescript = clean(rendered.typescript);
  let cut: string | undefined;
  if (rendered.cut.length > 0) {
    cut = `Cut to fit ${limit} characters: not expanded: ${boundedText(clean(rendered.cut.join(', ')), MAX_TEXT)} (written as unknown, or counted in a comment). Ask for less: \`status\` or \`part\`, or read it as text with a smaller \`depth\`.`;
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
    if (typescript.length > limit)
      return `The ${name} type alone is longer than ${limit} characters; read it with describe_operation as text, which can be cut by \`depth\`.`;
  }
  const shown = cutLongStrings(
    {
      operation: {
        method: operation.method,
        pathTemplate: operation.pathTemplate,
        ...(operation.operationId ? { operationId: operation.operationId } : {}),
      },
      ...(statusKey !== undefined ? { status: statusKey } : {}),
      mediaType,
    },
    MAX_TEXT,
    clean,
  ) as { operation: unknown; status?: string; mediaType: string };
  return {
    operation: shown.operation,
    part: options.part === 'request' ? 'request' : 'responses',
    ...(shown.status !== undefined ? { status: shown.status } : {}),
    mediaType: shown.mediaType,
    typeName: clean(name),
    typescript,
    ...(cut ? { cut } : {}),
  };
}
