/**
 * Parameter values serialized and read back by their style (OpenAPI 3.0.3 §4.7.12 and 3.1.0 §4.8.12, Parameter
 * Object: `style`, `explode`, `allowReserved`, `content`; Swagger 2.0 Parameter Object `collectionFormat`), on
 * the expansions of RFC 6570 §3.2. Pure functions over text; the one serializer for path and query parameters,
 * headers, cookies and form-encoded bodies (the Encoding Object's `style`/`explode` follow query `form`).
 *
 * Choices where the specification is silent or its table disagrees with its text (each is tested):
 * - `label` without explode joins a list with `,`, as RFC 6570 §3.2.5 and OpenAPI 3.1.1's corrected table do
 *   (the 3.0.3 and 3.1.0 tables print `.blue.black.brown`).
 * - `simple` of the empty string is the empty text (RFC 6570 §3.2.2, and 3.1.1's table; 3.0.3 prints n/a).
 * - `spaceDelimited` and `pipeDelimited` carry arrays and objects (3.1.1's Style Values; 3.0.3 lists arrays only
 *   but prints object rows), each after `name=` (3.1.1; the 3.0.3 table prints the value part only).
 * - An empty array or object is written as the empty string is (`color=`, `;color`, `.`); read back under an
 *   array or object schema it is `[]` or `{}`. The exploded query styles write no pair for it.
 * - The style's own delimiter inside a value is percent-encoded, `.` included for `label`, so every value reads
 *   back as written; `spaceDelimited`, `pipeDelimited`, `ssv`, `tsv` and `pipes` cannot carry their delimiter in a
 *   value (it may be written percent-encoded: `%20`, `%09`, `%7C`) and refuse it.
 * - `allowReserved` leaves RFC 3986's reserved characters as they are, except those that would change how the
 *   query is read (`&`, `=`, `+`, `#`, `[`, `]` and the style's delimiter) and `%`.
 */
import { safeDecode } from '../shared/text.ts';
import { isPlainObject } from '../shared/values.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';
import { followedValue } from './refs.ts';
import type { Parameter } from './model.ts';

/** Where a parameter goes (OpenAPI 3.x Parameter Object `in`; Swagger 2.0 `formData` reads as `query`). */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/**
 * How one parameter is serialized: the Parameter Object's fields as written in the document. `style` defaults by
 * location (`form` for query and cookie, `simple` for path and header), `explode` to true for `form` only,
 * `allowReserved` to false. `collectionFormat` (Swagger 2.0: `csv`, `ssv`, `tsv`, `pipes`, `multi`) takes the
 * place of `style`/`explode` when given. `contentType` is the one key of a parameter's `content`: the value is
 * that media type's text (JSON text for a JSON type), percent-encoded where the location needs it.
 */
export type Serialization = {
  name: string;
  location: ParameterLocation;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  collectionFormat?: string;
  contentType?: string;
};

/** One `name=value` pair of a query string or Cookie header, both still percent-encoded as sent. */
export type QueryPair = readonly [name: string, value: string];

/**
 * What `parse` read: `value` (typed by the schema) and `used`, the indexes of the pairs it took (query and
 * cookie; `[]` for path and header); `absent` when no pair names the parameter; `problem` when the text breaks
 * the style (a sentence after the name: "does not start with ';' (matrix style)"); `refused` when the
 * combination is one the specification leaves undefined, so the value cannot be checked.
 */
export type ParseResult =
  { value: unknown; used: number[] } | { absent: true } | { problem: string } | { refused: string };

type Plan = {
  style: 'matrix' | 'label' | 'simple' | 'form' | 'deepObject' | 'content';
  explode: boolean;
  /** Between the items of a list not exploded: `,`, or ` `, `|`, tab for the delimited styles. */
  delimiter: string;
  /** The style's name as the document gave it, for messages. */
  label: string;
  /** Primitive values are undefined for this style (spaceDelimited, pipeDelimited, deepObject). */
  noPrimitive?: boolean;
  /** Arrays are undefined for this style (deepObject). */
  noArray?: boolean;
};

const STYLES_BY_LOCATION: Record<ParameterLocation, readonly string[]> = {
  path: ['matrix', 'label', 'simple'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
  cookie: ['form'],
};

const DELIMITERS: Record<string, string> = { csv: ',', ssv: ' ', tsv: '\t', pipes: '|' };

/** The style plan of a parameter, or why the combination is undefined. */
function planOf(options: Serialization): Plan | { refused: string } {
  const { location } = options;
  if (options.contentType !== undefined) return { style: 'content', explode: false, delimiter: ',', label: 'content' };
  if (options.collectionFormat !== undefined) {
    // Swagger 2.0, Parameter Object: collectionFormat; `multi` only for query and formData.
    const format = options.collectionFormat;
    if (format === 'multi') {
      if (location !== 'query') return { refused: `collectionFormat multi is only defined for query parameters` };
      return { style: 'form', explode: true, delimiter: ',', label: 'multi' };
    }
    const delimiter = DELIMITERS[format];
    if (delimiter === undefined) return { refused: `collectionFormat ${format} is not one Swagger 2.0 defines` };
    const style = location === 'query' || location === 'cookie' ? 'form' : 'simple';
    return { style, explode: false, delimiter, label: format };
  }
  const style = options.style ?? (location === 'query' || location === 'cookie' ? 'form' : 'simple');
  if (!STYLES_BY_LOCATION[location].includes(style))
    return { refused: `style ${style} is not defined for ${location} parameters` };
  const explode = options.explode ?? style === 'form';
  if (style === 'spaceDelimited' || style === 'pipeDelimited') {
    if (explode) return { refused: `style ${style} with explode true is not defined` };
    return {
      style: 'form',
      explode,
      delimiter: style === 'spaceDelimited' ? ' ' : '|',
      label: style,
      noPrimitive: true,
    };
  }
  if (style === 'deepObject') {
    if (!explode) return { refused: 'style deepObject with explode false is not defined' };
    return { style: 'deepObject', explode, delimiter: ',', label: style, noPrimitive: true, noArray: true };
  }
  return {
    style: style as Plan['style'],
    explode,
    delimiter: style === 'label' && explode ? '.' : ',',
    label: style,
  };
}

// RFC 3986 §2.2 reserved characters `allowReserved` may leave as they are; `&`, `=`, `+`, `#`, `[` and `]` always
// change how a query is read, and `%` is data (OpenAPI 3.0.3: "reserved characters ... without percent-encoding").
const KEPT_RESERVED = new Set([':', '/', '?', '@', '!', '$', "'", '(', ')', '*', ',', ';']);

/**
 * Percent-encodes `text` as RFC 6570 §3.2.1 does (all but unreserved), `keep` left as they are; undefined for lone
 * surrogates.
 */
function encode(text: string, delimiter: string, keep?: ReadonlySet<string>): string | undefined {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    return undefined;
  }
  // encodeURIComponent leaves `!'()*` and unreserved `.`: encode them, and the delimiter when it is `.`.
  encoded = encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  if (delimiter === '.') encoded = encoded.replace(/\./g, '%2E');
  if (keep)
    encoded = encoded.replace(/%(2[1-9A-F]|3[ABDF]|40)/g, (triple) => {
      const char = String.fromCharCode(parseInt(triple.slice(1), 16));
      return keep.has(char) && char !== delimiter ? char : triple;
    });
  return encoded;
}

/** The text of a primitive value, or undefined for a value no style can write. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  return undefined;
}

/**
 * Serializes a parameter value by its style (OpenAPI 3.0.3 §4.7.12 "Style Values" and "Style Examples"; RFC 6570
 * §3.2.2 simple, §3.2.5 label, §3.2.7 matrix, §3.2.8 form; Swagger 2.0 `collectionFormat`).
 * @param value A string, finite number or boolean; an array of them; or an object whose property values are them.
 *   With `contentType`, any JSON value (a JSON media type) or a string.
 * @returns `text`: for a path parameter the segment (`;color=blue`, `.blue`, `blue`); for a query parameter its
 *   pairs joined by `&` without `?` (`color=blue&color=black`, `R=100&G=200`, `color[R]=100`; no pair at all
 *   for an empty exploded list); for a header its value; for a cookie its pairs joined by `; ` (RFC 6265 §4.2.1).
 *   Percent-encoded (header values too, as RFC 6570 does; with `content`, a header value is the media type's
 *   text as is). `refused` with the reason for a combination the specification leaves undefined (a string in
 *   `deepObject`, `spaceDelimited` with explode true, nested arrays or objects, null, lone surrogates).
 *   Never throws.
 */
export function serialize(value: unknown, options: Serialization): { text: string } | { refused: string } {
  const plan = planOf(options);
  if ('refused' in plan) return plan;
  const keep = options.allowReserved && options.location === 'query' ? KEPT_RESERVED : undefined;
  const { delimiter } = plan;
  const name = encode(options.name, delimiter);
  if (name === undefined) return { refused: 'the name is not well-formed Unicode' };
  const pairSeparator = options.location === 'cookie' ? '; ' : '&';
  const data = (text: string) => encode(text, delimiter, keep);
  if (plan.style === 'content') {
    let text: string | undefined;
    if (options.contentType !== undefined && isJsonMediaType(options.contentType)) {
      try {
        text = JSON.stringify(value);
      } catch {
        text = undefined;
      }
    } else text = typeof value === 'string' ? value : undefined;
    if (text === undefined) return { refused: `the value cannot be written as ${options.contentType}` };
    if (options.location === 'header') return { text };
    const encoded = data(text);
    if (encoded === undefined) return { refused: 'the value is not well-formed Unicode' };
    return { text: options.location === 'path' ? encoded : `${name}=${encoded}` };
  }
  // The value's shape: primitive, list, or name/value entries.
  let entries: [string, string][] | undefined;
  let items: string[] | undefined;
  let primitive: string | undefined;
  if (Array.isArray(value)) {
    if (plan.noArray) return { refused: `style ${plan.label} is not defined for arrays` };
    items = [];
    for (const item of value) {
      const text = primitiveText(item);
      if (text === undefined) return { refused: 'an array item is not a string, number or boolean' };
      items.push(text);
    }
  } else if (isPlainObject(value)) {
    entries = [];
    for (const [key, member] of Object.entries(value)) {
      const text = primitiveText(member);
      if (text === undefined) return { refused: `property ${key} is not a string, number or boolean` };
      entries.push([key, text]);
    }
  } else {
    primitive = primitiveText(value);
    if (primitive === undefined) return { refused: 'the value is not a string, number, boolean, array or object' };
    if (plan.noPrimitive) return { refused: `style ${plan.label} is not defined for a string or other primitive` };
  }
  // A delimiter that is written percent-encoded (`%20`, `%09`; `|` also as `%7C`, OpenAPI 3.1.1 Appendix E)
  // cannot be told from the same character in a value.
  if (delimiter !== ',' && delimiter !== '.') {
    const texts = items ?? entries?.flat() ?? [];
    if (texts.some((text) => text.includes(delimiter)))
      return { refused: `a value holds the delimiter of ${plan.label}, which it cannot carry` };
  }
  const written = delimiter === ' ' ? '%20' : delimiter === '\t' ? '%09' : delimiter;
  const encodeAll = (texts: string[]) => {
    const out: string[] = [];
    for (const text of texts) {
      const encoded = data(text);
      if (encoded === undefined) return undefined;
      out.push(encoded);
    }
    return out;
  };
  const keys = entries && encodeAll(entries.map(([key]) => key));
  const values = entries && encodeAll(entries.map(([, member]) => member));
  const list = items && encodeAll(items);
  const one = primitive === undefined ? undefined : data(primitive);
  if ((entries && (!keys || !values)) || (items && !list) || (primitive !== undefined && one === undefined))
    return { refused: 'the value is not well-formed Unicode' };
  // Name/value entries in the object styles' two forms: `R,100,G,200` and `R=100` each.
  const flat = entries ? entries.flatMap((_, i) => [keys![i]!, values![i]!]) : undefined;
  const assigned = entries ? entries.map((_, i) => `${keys![i]}=${values![i]}`) : undefined;
  switch (plan.style) {
    case 'simple': {
      const text = one ?? (list ? list.join(written) : plan.explode ? assigned!.join(',') : flat!.join(written));
      return { text };
    }
    case 'label': {
      if (one !== undefined) return { text: `.${one}` };
      if (list) return { text: `.${list.join(written)}` };
      return { text: `.${(plan.explode ? assigned! : flat!).join(plan.explode ? '.' : ',')}` };
    }
    case 'matrix': {
      const named = (text: string) => (text === '' ? `;${name}` : `;${name}=${text}`);
      if (one !== undefined) return { text: named(one) };
      if (list) {
        if (list.length === 0) return { text: `;${name}` };
        return { text: plan.explode ? list.map((item) => `;${name}=${item}`).join('') : named(list.join(',')) };
      }
      if (assigned!.length === 0) return { text: `;${name}` };
      return { text: plan.explode ? assigned!.map((entry) => `;${entry}`).join('') : named(flat!.join(',')) };
    }
    case 'form': {
      if (one !== undefined) return { text: `${name}=${one}` };
      if (list)
        return {
          text: plan.explode
            ? list.map((item) => `${name}=${item}`).join(pairSeparator)
            : `${name}=${list.join(written)}`,
        };
      return { text: plan.explode ? assigned!.join(pairSeparator) : `${name}=${flat!.join(written)}` };
    }
    case 'deepObject': {
      // Brackets as the Style Examples table prints them (`color[R]=100`); `%5B`/`%5D` read the same.
      return { text: entries!.map((_, i) => `${name}[${keys![i]}]=${values![i]}`).join('&') };
    }
  }
}

/** A schema after `$ref`s, or undefined. */
function resolved(doc: unknown, schema: unknown): Record<string, unknown> | undefined {
  const node = doc === undefined ? schema : followedValue(doc, schema);
  return isPlainObject(node) ? node : undefined;
}

/** The JSON types a schema names (`type` as a string or a 3.1 list). */
function typesOf(node: Record<string, unknown> | undefined): string[] {
  const type = node?.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

/** What a schema reads a parameter as: a list, name/value entries, or one primitive. */
function shapeOf(node: Record<string, unknown> | undefined): 'array' | 'object' | 'primitive' {
  const types = typesOf(node);
  if (types.includes('array')) return 'array';
  if (types.includes('object')) return 'object';
  if (types.length === 0 && node) {
    if (node.items !== undefined) return 'array';
    if (node.properties !== undefined || node.additionalProperties !== undefined) return 'object';
  }
  return 'primitive';
}

/**
 * Text from the wire to the primitive its schema names: an integer, a number or a boolean where the schema's type
 * (a 3.1 list included) says so and the text is one (`"5"` to 5, `"true"` to true); otherwise the text, so the
 * schema check names the type it expected. A schema without a type whose `enum` holds numbers takes a number.
 */
export function coerceText(text: string, schema: unknown, doc?: unknown): unknown {
  const node = resolved(doc, schema);
  const types = typesOf(node);
  if (types.includes('integer') && /^-?(0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (types.includes('number') && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (
    types.length === 0 &&
    Array.isArray(node?.enum) &&
    node.enum.some((entry) => typeof entry === 'number') &&
    text !== '' &&
    !Number.isNaN(Number(text))
  )
    return Number(text);
  return text;
}

/** The subschema of one property: `properties[key]`, else a schema `additionalProperties`. */
function propertySchema(node: Record<string, unknown> | undefined, key: string): unknown {
  const properties = node?.properties;
  if (isPlainObject(properties) && Object.hasOwn(properties, key)) return properties[key];
  return isPlainObject(node?.additionalProperties) ? node.additionalProperties : undefined;
}

/** Splits raw text on a delimiter as it appears on the wire (` ` also as `%20` and `+`, tab as `%09`). */
function splitRaw(text: string, delimiter: string): string[] {
  if (delimiter === ' ') return text.split(/%20|\+| /i);
  if (delimiter === '\t') return text.split(/%09|\t/i);
  if (delimiter === '|') return text.split(/\||%7C/i);
  return text.split(delimiter);
}

/**
 * Reads a parameter value back by its style: the inverse of `serialize`, typed by the schema (OpenAPI 3.0.3
 * §4.7.12; RFC 6570 §3.2; Swagger 2.0 `collectionFormat`). The schema decides the shape (`type` array, object, or
 * a primitive; a 3.1 list of types included) and each primitive is converted by its own subschema (`coerceText`:
 * items by `items`, properties by `properties`/`additionalProperties`); with `contentType` the text is the media
 * type's (JSON parsed, nothing converted).
 * @param input For path, the raw segment (percent-encoded, e.g. `;id=5`); for a header, its value; for query and
 *   cookie, all the request's pairs as sent (`splitQuery`, `splitCookies`), of which the parameter takes its own:
 *   pairs named `name`, `name[key]` for deepObject, and for an exploded `form` object the pairs named by its
 *   `properties` (and every pair not in `options.claimed` when `additionalProperties` is a schema or true).
 * @param options.schema The parameter's schema (may be a `$ref`); `options.doc` the document it is in.
 * @param options.claimed Pair indexes other parameters took, which an exploded object leaves alone.
 * @returns See `ParseResult`. Malformed percent-encoding stays as written. Never throws.
 */
export function parse(
  input: string | readonly QueryPair[],
  options: Serialization & { schema?: unknown; doc?: unknown; claimed?: ReadonlySet<number> },
): ParseResult {
  const plan = planOf(options);
  if ('refused' in plan) return plan;
  const node = resolved(options.doc, options.schema);
  const doc = options.doc;
  const decode = (text: string, form: boolean) => {
    const spaced = form ? text.replace(/\+/g, ' ') : text;
    return safeDecode(spaced) ?? spaced;
  };
  const form = options.location === 'query' || options.location === 'cookie';
  const item = (text: string, schema: unknown) => coerceText(decode(text, form), schema, doc);
  const shape = plan.style === 'content' ? 'primitive' : shapeOf(node);
  if (plan.style === 'deepObject' && shape !== 'object')
    return { refused: 'style deepObject is only defined for objects' };
  if (plan.noPrimitive && shape === 'primitive')
    return { refused: `style ${plan.label} is not defined for a string or other primitive` };

  // The list and entry readers shared by every style, over raw (still encoded) text.
  const asList = (text: string, delimiter: string): ParseResult =>
    text === ''
      ? { value: [], used: [] }
      : { value: splitRaw(text, delimiter).map((piece) => item(piece, node?.items)), used: [] };
  const asFlatEntries = (text: string, delimiter: string): ParseResult => {
    if (text === '') return { value: {}, used: [] };
    const pieces = splitRaw(text, delimiter);
    if (pieces.length % 2 !== 0)
      return { problem: `is not a list of name${delimiter}value pairs (${plan.label} style, explode false)` };
    const value: Record<string, unknown> = {};
    for (let i = 0; i < pieces.length; i += 2) {
      const key = decode(pieces[i]!, form);
      put(value, key, item(pieces[i + 1]!, propertySchema(node, key)));
    }
    return { value, used: [] };
  };
  const asAssignedEntries = (pieces: string[]): ParseResult => {
    const value: Record<string, unknown> = {};
    for (const piece of pieces) {
      const at = piece.indexOf('=');
      if (at < 0) return { problem: `is not a list of name=value pairs (${plan.label} style, explode true)` };
      const key = decode(piece.slice(0, at), form);
      put(value, key, item(piece.slice(at + 1), propertySchema(node, key)));
    }
    return { value, used: [] };
  };
  const asShape = (text: string, delimiter: string): ParseResult =>
    shape === 'array'
      ? asList(text, delimiter)
      : shape === 'object'
        ? plan.explode && plan.style !== 'form'
          ? text === ''
            ? { value: {}, used: [] }
            : asAssignedEntries(text.split(delimiter))
          : asFlatEntries(text, delimiter)
        : { value: item(text, node), used: [] };

  if (plan.style === 'content') return readContent(input, options, plan);
  if (typeof input !== 'string') return readPairs(input, options, plan, node, asShape, item);
  switch (plan.style) {
    case 'simple':
      return asShape(input, plan.delimiter);
    case 'label':
      if (!input.startsWith('.')) return { problem: `does not start with '.' (label style)` };
      return asShape(input.slice(1), plan.explode ? '.' : plan.delimiter);
    case 'matrix': {
      if (!input.startsWith(';')) return { problem: `does not start with ';' (matrix style)` };
      const pieces = input.slice(1).split(';');
      const named = (piece: string): string | undefined => {
        const at = piece.indexOf('=');
        const key = decode(at < 0 ? piece : piece.slice(0, at), false);
        if (key !== options.name) return undefined;
        return at < 0 ? '' : piece.slice(at + 1);
      };
      if (shape === 'object' && plan.explode) {
        if (input === `;${options.name}`) return { value: {}, used: [] };
        return asAssignedEntries(pieces);
      }
      const texts: string[] = [];
      for (const piece of pieces) {
        const text = named(piece);
        if (text === undefined) return { problem: `is not ;${options.name}=value (matrix style)` };
        texts.push(text);
      }
      if (shape === 'array' && plan.explode)
        return texts.length === 1 && texts[0] === '' && !pieces[0]!.includes('=')
          ? { value: [], used: [] }
          : { value: texts.map((text) => item(text, node?.items)), used: [] };
      if (texts.length !== 1) return { problem: `gives ;${options.name} ${texts.length} times (matrix style)` };
      return asShape(texts[0]!, ',');
    }
    default:
      return { refused: `style ${plan.label} is not defined for ${options.location} parameters` };
  }
}

/** A parameter described by `content`: the media type's text, JSON parsed for a JSON type. */
function readContent(input: string | readonly QueryPair[], options: Serialization, plan: Plan): ParseResult {
  let text: string;
  let used: number[] = [];
  if (typeof input === 'string') {
    text = options.location === 'header' ? input : (safeDecode(input) ?? input);
  } else {
    const found = named(input, options.name);
    if (found.length === 0) return { absent: true };
    if (found.length > 1) return { problem: `is given ${found.length} times; ${plan.label} takes one value` };
    used = found;
    const raw = input[found[0]!]![1].replace(/\+/g, ' ');
    text = safeDecode(raw) ?? raw;
  }
  if (options.contentType === undefined || !isJsonMediaType(options.contentType)) return { value: text, used };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `is not JSON text (content ${options.contentType})` };
  }
  if (measureJsonText(text).depth > MAX_BODY_DEPTH)
    return { refused: `its JSON text nests deeper than ${MAX_BODY_DEPTH} levels` };
  return { value, used };
}

/** Sets an own property, `__proto__` included, without touching the prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The pairs' names decoded once per request (a document may declare thousands of parameters, each reading the
 * same pairs): indexes by decoded name, and by the name before a `[` (raw or decoded), for deepObject.
 */
type PairIndex = { names: string[]; byName: Map<string, number[]>; byBase: Map<string, number[]> };
const pairIndexes = new WeakMap<readonly QueryPair[], PairIndex>();

function indexOf(pairs: readonly QueryPair[]): PairIndex {
  let index = pairIndexes.get(pairs);
  if (index) return index;
  index = { names: [], byName: new Map(), byBase: new Map() };
  const add = (map: Map<string, number[]>, key: string, i: number) => {
    const list = map.get(key);
    if (!list) map.set(key, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  for (let i = 0; i < pairs.length; i++) {
    const raw = pairs[i]![0];
    const name = decodeName(raw);
    index.names.push(name);
    add(index.byName, name, i);
    const open = raw.indexOf('[');
    if (open > 0) add(index.byBase, decodeName(raw.slice(0, open)), i);
    const decodedOpen = name.indexOf('[');
    if (decodedOpen > 0) add(index.byBase, name.slice(0, decodedOpen), i);
  }
  pairIndexes.set(pairs, index);
  return index;
}

/**
 * Indexes of the pairs that carry a parameter's name: named `name`, or `name[...]` (brackets raw or
 * percent-encoded), in order. For showing what a value its style could not read was. Linear in the pairs once
 * per request, then a lookup.
 */
export function pairsNamed(pairs: readonly QueryPair[], name: string): number[] {
  const index = indexOf(pairs);
  const found = new Set([...(index.byName.get(name) ?? []), ...(index.byBase.get(name) ?? [])]);
  return [...found].sort((a, b) => a - b);
}

/** Indexes of the pairs whose decoded name is `name`. */
function named(pairs: readonly QueryPair[], name: string): number[] {
  return [...(indexOf(pairs).byName.get(name) ?? [])];
}

function decodeName(key: string): string {
  const spaced = key.replace(/\+/g, ' ');
  return safeDecode(spaced) ?? spaced;
}

/** The query and cookie styles over the request's pairs. */
function readPairs(
  pairs: readonly QueryPair[],
  options: Serialization & { claimed?: ReadonlySet<number> },
  plan: Plan,
  node: Record<string, unknown> | undefined,
  asShape: (text: string, delimiter: string) => ParseResult,
  item: (text: string, schema: unknown) => unknown,
): ParseResult {
  const shape = shapeOf(node);
  if (plan.style === 'deepObject') {
    const value: Record<string, unknown> = {};
    const used: number[] = [];
    const prefix = `${options.name}[`;
    const index = indexOf(pairs);
    for (const i of index.byBase.get(options.name) ?? []) {
      const raw = pairs[i]![0];
      // `name[member]` with literal brackets, the member's own brackets percent-encoded; else brackets written
      // %5B and %5D (3.1.1's table), where a member holding brackets cannot be told from a nested key.
      const open = raw.indexOf('[');
      let member: string | undefined;
      if (open > 0 && raw.endsWith(']') && decodeName(raw.slice(0, open)) === options.name)
        member = decodeName(raw.slice(open + 1, -1));
      const key = index.names[i]!;
      if (member === undefined) {
        if (!key.startsWith(prefix) || !key.endsWith(']')) continue;
        member = key.slice(prefix.length, -1);
        if (member.includes('[') || member.includes(']')) {
          used.push(i);
          return { refused: `nested deepObject keys (${key}) are not defined` };
        }
      } else if (raw.slice(open + 1, -1).includes('[') || raw.slice(open + 1, -1).includes(']')) {
        used.push(i);
        return { refused: `nested deepObject keys (${key}) are not defined` };
      }
      used.push(i);
      if (Object.hasOwn(value, member)) return { problem: `gives ${key} more than once` };
      put(value, member, item(pairs[i]![1], propertySchema(node, member)));
    }
    return used.length === 0 ? { absent: true } : { value, used };
  }
  if (plan.explode && shape === 'object') {
    // Exploded form object: its properties are pairs of their own (`R=100&G=200`).
    const properties = isPlainObject(node?.properties) ? node.properties : {};
    const open = node?.additionalProperties === true || isPlainObject(node?.additionalProperties);
    const value: Record<string, unknown> = {};
    const used: number[] = [];
    const { names } = indexOf(pairs);
    for (let i = 0; i < pairs.length; i++) {
      if (options.claimed?.has(i)) continue;
      const key = names[i]!;
      if (!Object.hasOwn(properties, key) && !open) continue;
      if (Object.hasOwn(value, key)) return { problem: `gives its property ${key} more than once` };
      used.push(i);
      put(value, key, item(pairs[i]![1], propertySchema(node, key)));
    }
    return used.length === 0 ? { absent: true } : { value, used };
  }
  const found = named(pairs, options.name);
  if (found.length === 0) return { absent: true };
  if (plan.explode && shape === 'array')
    return { value: found.map((i) => item(pairs[i]![1], node?.items)), used: found };
  if (found.length > 1)
    return {
      problem: `is given ${found.length} times; ${plan.label}${plan.explode ? '' : ' without explode'} takes one value`,
    };
  const read = asShape(pairs[found[0]!]![1], plan.delimiter);
  return 'value' in read ? { value: read.value, used: found } : read;
}

/**
 * A query string's pairs as sent, nothing decoded: `a=1&b=%2C` gives `[['a', '1'], ['b', '%2C']]` (the text after
 * `?`: a `?` in it is data; empty pieces skipped, a piece without `=` has the value `''`; WHATWG URL,
 * application/x-www-form-urlencoded parsing, before its decoding step).
 */
export function splitQuery(query: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const at = piece.indexOf('=');
    pairs.push(at < 0 ? [piece, ''] : [piece.slice(0, at), piece.slice(at + 1)]);
  }
  return pairs;
}

/** A Cookie header's pairs as sent: `a=1; b=2` gives `[['a', '1'], ['b', '2']]` (RFC 6265 §4.2.1, §5.4). */
export function splitCookies(header: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  for (const piece of header.split(';')) {
    const trimmed = piece.trim();
    if (trimmed === '') continue;
    const at = trimmed.indexOf('=');
    pairs.push(at < 0 ? ['', trimmed] : [trimmed.slice(0, at).trim(), trimmed.slice(at + 1).trim()]);
  }
  return pairs;
}

/**
 * The serialization a Parameter Object of the operation index states (`style`, `explode`, `allowReserved`,
 * `collectionFormat`, the `content` media type), or undefined for a body or Swagger 2.0 formData parameter.
 */
export function serializationOf(parameter: Parameter): Serialization | undefined {
  if (parameter.in === 'body' || parameter.in === 'formData') return undefined;
  const options: Serialization = { name: parameter.name, location: parameter.in };
  if (parameter.style !== undefined) options.style = parameter.style;
  if (parameter.explode !== undefined) options.explode = parameter.explode;
  if (parameter.allowReserved !== undefined) options.allowReserved = parameter.allowReserved;
  if (parameter.collectionFormat !== undefined) options.collectionFormat = parameter.collectionFormat;
  if (parameter.contentType !== undefined) options.contentType = parameter.contentType;
  return options;
}
