/**
 * Request bodies in the media types a document declares (OpenAPI 3.0.3, 4.7.13 Request Body Object, 4.7.14 Media
 * Type Object, 4.7.15 Encoding Object): the media type a draft sends, form bodies (WHATWG URL,
 * application/x-www-form-urlencoded) and multipart bodies (RFC 7578) encoded from an object and read back from their
 * text, each field's text turned into the value its property's schema describes. Pure; no I/O.
 */
import { isJsonMediaType, mediaTypeEssence } from '../shared/media-type.ts';
import { isPlainObject } from '../shared/values.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';

import { coerceText, parse, serialize, splitQuery } from '../document/parameter-style.ts';
import type { QueryPair } from '../document/parameter-style.ts';

import { resolveSchema } from './operation.ts';

/** How a body travels: JSON text, form fields, multipart parts, or text sent as written. */
export type BodyEncoding = 'json' | 'form' | 'multipart' | 'text';

/** The encoding a Content-Type asks for: JSON (RFC 8259, `+json`), a form, multipart/form-data, or text as written. */
export function encodingOf(contentType: string): BodyEncoding {
  const essence = mediaTypeEssence(contentType);
  if (isJsonMediaType(essence)) return 'json';
  if (essence === 'application/x-www-form-urlencoded') return 'form';
  if (essence === 'multipart/form-data') return 'multipart';
  return 'text';
}

/**
 * The Content-Type a draft sends when the caller gave none: a JSON media type the document declares first, then the
 * document's first concrete media type (its key as written, parameters kept), then a type its first media range
 * admits (RFC 9110, 12.5.1: `*\/*` and `application/*` admit `application/json` for a body that is no string; a string
 * is `text/plain` under `*\/*` and `text/*`, `application/octet-stream` under `application/*`).
 * @param content The Media Type map of the request body (`requestBody.content`).
 * @returns The Content-Type, or undefined when the document declares no media type a draft can send as is (`image/*`
 *   for a body given as a string: the caller must name the type). Never throws.
 */
export function draftContentType(content: Record<string, unknown>, body: unknown): string | undefined {
  const keys = Object.keys(content);
  const json = keys.find((key) => isJsonMediaType(key));
  if (json !== undefined) return json;
  const concrete = keys.find((key) => !mediaTypeEssence(key).includes('*'));
  if (concrete !== undefined) return concrete;
  const text = typeof body === 'string';
  for (const key of keys) {
    const range = mediaTypeEssence(key);
    if (range === '*/*') return text ? 'text/plain' : 'application/json';
    if (range === 'application/*') return text ? 'application/octet-stream' : 'application/json';
    if (range === 'text/*') return 'text/plain';
  }
  return undefined;
}

/**
 * True when a media range (`image/*`, `*\/*`, `image/png`) admits a media type (RFC 9110, 12.5.1); parameters of
 * either are ignored, types compare case-insensitively.
 */
export function rangeAdmits(range: string, mediaType: string): boolean {
  const [rangeType, rangeSubtype] = mediaTypeEssence(range).split('/');
  const [type, subtype] = mediaTypeEssence(mediaType).split('/');
  if (rangeType === '*') return true;
  return rangeType === type && (rangeSubtype === '*' || rangeSubtype === subtype);
}

/** One field of a form or multipart body as sent: its name and text, and for a multipart part its headers. */
export type BodyField = {
  name: string;
  value: string;
  /** Multipart only: the part's Content-Type, `text/plain` when absent (RFC 7578, 4.4). */
  contentType?: string;
  /** Multipart only: the part's file name (RFC 7578, 4.2). */
  filename?: string;
  /** Multipart only: the part's other headers, as read from a multipart text. */
  headers?: Record<string, string>;
};

/** The Encoding Object of a property (OpenAPI 3.0.3, 4.7.15), when the Media Type Object declares one. */
export function encodingFor(media: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const encoding = media.encoding;
  if (!isPlainObject(encoding) || !Object.hasOwn(encoding, name)) return undefined;
  return isPlainObject(encoding[name]) ? encoding[name] : undefined;
}

/** An Encoding Object that names `style`, `explode` or `allowReserved`: its field is serialized as a parameter is. */
export function hasStyle(encoding: Record<string, unknown> | undefined): boolean {
  return encoding !== undefined && ['style', 'explode', 'allowReserved'].some((key) => Object.hasOwn(encoding, key));
}

/**
 * The schema of a body property: `properties[name]`, else a `patternProperties` entry is not looked for, else
 * `additionalProperties` when it is a schema; `$ref`s followed. Undefined when the schema says nothing of it.
 */
export function propertySchema(doc: unknown, schema: unknown, name: string): Record<string, unknown> | undefined {
  const object = resolveSchema(doc, schema).node;
  if (object === undefined) return undefined;
  const properties = object.properties;
  if (isPlainObject(properties) && Object.hasOwn(properties, name)) return resolveSchema(doc, properties[name]).node;
  return isPlainObject(object.additionalProperties) ? resolveSchema(doc, object.additionalProperties).node : undefined;
}

/** The JSON types a schema names (`type` as a string or a 3.1 array); `[]` for none. */
function typesOf(schema: Record<string, unknown> | undefined): string[] {
  const type = schema?.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

/**
 * The default Content-Type of a property's value (OpenAPI 3.0.3, 4.7.15, `contentType`): `application/octet-stream`
 * for a string of format `binary` (or with a 3.1 `contentMediaType`, that type); `application/json` for an object;
 * `text/plain` for any other value (an array's items each by their own schema). The Encoding Object's `contentType` (its first entry) wins when it
 * names a concrete type.
 */
export function partContentType(
  schema: Record<string, unknown> | undefined,
  encoding: Record<string, unknown> | undefined,
  value: unknown,
): string {
  const declared = typeof encoding?.contentType === 'string' ? encoding.contentType.split(',')[0]!.trim() : '';
  if (declared !== '' && !declared.includes('*')) return declared;
  const types = typesOf(schema);
  if (types.includes('string') && (schema?.format === 'binary' || schema?.contentMediaType !== undefined))
    return typeof schema?.contentMediaType === 'string' ? schema.contentMediaType : 'application/octet-stream';
  if (types.includes('object') || (types.length === 0 && isPlainObject(value))) return 'application/json';
  return declared !== '' && !declared.startsWith('text/') ? 'application/octet-stream' : 'text/plain';
}

/** A JSON value as the text of one field: a string as it is, an object or array as JSON text, others as JSON. */
function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/**
 * The fields of an object body, in its order, for a form or a multipart body (OpenAPI 3.0.3, 4.7.15 and "Support for
 * x-www-form-urlencoded Request Bodies"; 3.1.1 4.8.15.4): an array gives one field per item under the same name
 * (form, explode), an object goes as JSON text, a string as it is, any other value as its JSON text. In a form, a
 * field whose Encoding Object names `style`, `explode` or `allowReserved` is serialized as a query parameter of that
 * style is (`serialize`, src/document/parameter-style.ts: `color[R]=100`, `tags=a,b`); a combination the
 * specification leaves undefined falls back to the default and is listed in `refused` (name, reason). Multipart
 * fields carry their part's Content-Type (`partContentType`) and, for a binary string, a file name (the field's name).
 */
export function fieldsOfObject(
  doc: unknown,
  media: Record<string, unknown>,
  body: Record<string, unknown>,
  multipart: boolean,
  refused: [name: string, reason: string][] = [],
): BodyField[] {
  const fields: BodyField[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const encoding = encodingFor(media, name);
    if (!multipart && hasStyle(encoding)) {
      const styled = serialize(value, { name, location: 'query', ...styleOf(encoding!) });
      if ('text' in styled) {
        for (const [key, text] of splitQuery(styled.text))
          fields.push({ name: formDecode(key), value: formDecode(text) });
        continue;
      }
      refused.push([name, styled.refused]);
    }
    const schema = propertySchema(doc, media.schema, name);
    const items = Array.isArray(value) ? value : [value];
    const itemSchema = Array.isArray(value) ? resolveSchema(doc, schema?.items).node : schema;
    for (const item of items) {
      const field: BodyField = { name, value: fieldText(item) };
      if (multipart) {
        field.contentType = partContentType(itemSchema, encoding, item);
        if (itemSchema?.format === 'binary') field.filename = name;
      }
      fields.push(field);
    }
  }
  return fields;
}

/** The Encoding Object's `style`, `explode` and `allowReserved`, as `serialize` and `parse` take them. */
function styleOf(encoding: Record<string, unknown>): { style?: string; explode?: boolean; allowReserved?: boolean } {
  return {
    ...(typeof encoding.style === 'string' ? { style: encoding.style } : {}),
    ...(typeof encoding.explode === 'boolean' ? { explode: encoding.explode } : {}),
    ...(typeof encoding.allowReserved === 'boolean' ? { allowReserved: encoding.allowReserved } : {}),
  };
}

/** One name or value of a form pair decoded (WHATWG URL: `+` is a space, a malformed escape kept as written). */
function formDecode(text: string): string {
  return new URLSearchParams(`a=${text.replace(/&/g, '%26')}`).get('a') ?? text;
}

/** Form fields as `URLSearchParams` writes them (WHATWG URL, application/x-www-form-urlencoded serializer). */
export function formText(fields: BodyField[]): string {
  return new URLSearchParams(fields.map((field) => [field.name, field.value])).toString();
}

/**
 * A form body's text read into fields (WHATWG URL, application/x-www-form-urlencoded parser: `+` is a space,
 * percent-escapes decoded, a malformed escape kept as written, a leading `?` not special). Never throws.
 */
export function fieldsOfFormText(text: string): BodyField[] {
  // URLSearchParams drops one leading "?": a form body has no such prefix, so one is kept as part of the first name.
  const params = new URLSearchParams(text.startsWith('?') ? `?${text}` : text);
  return [...params].map(([name, value]) => ({ name, value }));
}

/**
 * The text of one field turned into the value its schema describes, as a parameter's is (`coerceText`,
 * src/document/parameter-style.ts: an integer, a number or a boolean from its text); an object or array from JSON
 * text, when its part is JSON or the property is an object or array (OpenAPI 3.0.3, 4.7.15: an object's default
 * contentType is application/json); text that fits no declared type stays text, so the check names the mismatch.
 */
export function fieldValue(
  doc: unknown,
  schema: Record<string, unknown> | undefined,
  text: string,
  contentType?: string,
): unknown {
  const types = typesOf(schema);
  const json = contentType !== undefined && isJsonMediaType(contentType);
  if (json || ((types.includes('object') || types.includes('array')) && /^\s*[[{]/.test(text))) {
    if (measureJsonText(text).depth > MAX_BODY_DEPTH) return text;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return coerceText(text, schema, doc);
}

/**
 * Fields read back into the object the body schema describes: in a form, each field whose Encoding Object names a
 * style read by that style (`parse`, src/document/parameter-style.ts), the others by name, each value turned into
 * its property's type (`fieldValue`), a name given more than once (or an array property) as the list of its values,
 * in order. A styled field whose text breaks its style is listed in `unread` (name, reason, `true`) and left out; one
 * whose style the specification leaves undefined is read as a plain field and listed (name, reason, `false`).
 */
export function objectOfFields(
  doc: unknown,
  media: Record<string, unknown>,
  fields: BodyField[],
  multipart = false,
  unread: [name: string, reason: string, broken: boolean][] = [],
): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const set = (name: string, value: unknown) =>
    Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  const claimed = new Set<number>();
  const encodings = isPlainObject(media.encoding) ? media.encoding : {};
  if (!multipart) {
    let pairs: QueryPair[] | undefined;
    for (const name of Object.keys(encodings)) {
      const encoding = encodingFor(media, name);
      if (!hasStyle(encoding)) continue;
      pairs ??= fields.map((field) => [encodeURIComponent(field.name), encodeURIComponent(field.value)] as const);
      const read = parse(pairs, {
        name,
        location: 'query',
        ...styleOf(encoding!),
        schema: propertySchema(doc, media.schema, name),
        doc,
        claimed,
      });
      if ('value' in read) {
        set(name, read.value);
        for (const index of read.used) claimed.add(index);
      } else if ('problem' in read) unread.push([name, read.problem, true]);
      else if ('refused' in read && fields.some((field) => field.name === name))
        unread.push([name, read.refused, false]);
    }
  }
  const grouped = new Map<string, BodyField[]>();
  fields.forEach((field, index) => {
    if (claimed.has(index) || Object.hasOwn(object, field.name)) return;
    const same = grouped.get(field.name);
    if (same) same.push(field);
    else grouped.set(field.name, [field]);
  });
  for (const [name, same] of grouped) {
    const schema = propertySchema(doc, media.schema, name);
    const isArray = typesOf(schema).includes('array');
    if (isArray && same.length === 1 && same[0]!.contentType !== undefined && isJsonMediaType(same[0]!.contentType)) {
      set(name, fieldValue(doc, schema, same[0]!.value, same[0]!.contentType));
      continue;
    }
    const itemSchema = isArray ? resolveSchema(doc, schema?.items).node : schema;
    const values = same.map((field) => fieldValue(doc, itemSchema, field.value, field.contentType));
    set(name, isArray || values.length > 1 ? values : values[0]);
  }
  return object;
}

/**
 * A multipart boundary that occurs in none of the fields' texts (RFC 2046, 5.1.1: at most 70 characters):
 * `openapi-probe-` and the first six-digit counter no text holds after that prefix, found in one pass over the texts.
 */
export function boundaryFor(fields: BodyField[]): string {
  const prefix = 'openapi-probe-';
  const taken = new Set<string>();
  for (const field of fields)
    for (const text of [field.name, field.value])
      for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1))
        taken.add(text.slice(at + prefix.length, at + prefix.length + 6));
  let counter = 0;
  while (taken.has(counter.toString(36).padStart(6, '0'))) counter++;
  return `${prefix}${counter.toString(36).padStart(6, '0')}`;
}

/** A name or file name in a Content-Disposition header: `"`, CR and LF percent-escaped (WHATWG HTML, multipart/form-data encoding algorithm). */
function dispositionValue(text: string): string {
  return text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * A multipart/form-data body (RFC 7578): each field a part with `Content-Disposition: form-data; name="..."` (and
 * `filename`), its Content-Type unless `text/plain`, its other headers, CRLF line ends, the closing delimiter last.
 */
export function multipartText(fields: BodyField[], boundary: string): string {
  let text = '';
  for (const field of fields) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${dispositionValue(field.name)}"`;
    if (field.filename !== undefined) text += `; filename="${dispositionValue(field.filename)}"`;
    text += '\r\n';
    if (field.contentType !== undefined && mediaTypeEssence(field.contentType) !== 'text/plain')
      text += `Content-Type: ${field.contentType}\r\n`;
    for (const [name, value] of Object.entries(field.headers ?? {})) text += `${name}: ${value}\r\n`;
    text += `\r\n${field.value}\r\n`;
  }
  return `${text}--${boundary}--\r\n`;
}

/** token characters (RFC 9110, 5.6.2 tchar). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A boundary RFC 2046, 5.1.1 allows: 1 to 70 bchars, the last not a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * A media type's parameters as RFC 9110, 5.6.6 reads them: `; name=value` after the type, the name a token compared
 * case-insensitively, the value a token or a quoted-string (5.6.4: `\` takes the next character as it is).
 * @returns The essence as written and each parameter in order, its name in lower case; a parameter that does not
 *   parse (an unterminated quoted-string, a name without `=`) ends the list, with `broken` set. Never throws.
 */
function mediaTypeParameters(contentType: string): {
  type: string;
  parameters: { name: string; value: string }[];
  broken?: boolean;
} {
  const first = contentType.indexOf(';');
  const type = (first < 0 ? contentType : contentType.slice(0, first)).trim();
  const parameters: { name: string; value: string }[] = [];
  let at = first < 0 ? contentType.length : first;
  const length = contentType.length;
  const space = () => {
    while (at < length && (contentType[at] === ' ' || contentType[at] === '\t')) at++;
  };
  while (at < length) {
    space();
    if (contentType[at] !== ';') return { type, parameters, broken: true };
    at++;
    space();
    if (at >= length) break; // a trailing `;` names nothing
    const equals = contentType.indexOf('=', at);
    const name = equals < 0 ? '' : contentType.slice(at, equals);
    if (!TOKEN.test(name)) return { type, parameters, broken: true };
    at = equals + 1;
    let value = '';
    if (contentType[at] === '"') {
      at++;
      for (;;) {
        if (at >= length) return { type, parameters, broken: true };
        const character = contentType[at]!;
        if (character === '"') break;
        if (character === '\\') {
          if (at + 1 >= length) return { type, parameters, broken: true };
          at++;
        }
        value += contentType[at];
        at++;
      }
      at++;
    } else {
      const start = at;
      while (at < length && contentType[at] !== ';' && contentType[at] !== ' ' && contentType[at] !== '\t') at++;
      value = contentType.slice(start, at);
    }
    parameters.push({ name: name.toLowerCase(), value });
  }
  return { type, parameters };
}

/**
 * The `boundary` parameter of a multipart Content-Type, read as RFC 9110, 5.6.6 reads parameters (quoted or not,
 * escapes undone), and whether RFC 2046, 5.1.1 allows it (1 to 70 of the characters `0-9 A-Z a-z '()+_,-./:=?` and
 * space, not ending in a space).
 * @returns `{value, valid}` for the first boundary parameter, or undefined when there is none. Never throws.
 */
export function boundaryOf(contentType: string): { value: string; valid: boolean } | undefined {
  const { parameters, broken } = mediaTypeParameters(contentType);
  const found = parameters.find((parameter) => parameter.name === 'boundary');
  if (found) return { value: found.value, valid: BOUNDARY.test(found.value) };
  // A boundary parameter the reading could not finish (`boundary="a`) is there but unusable.
  if (broken && /;\s*boundary\s*=/i.test(contentType))
    return {
      value: contentType.slice(contentType.search(/;\s*boundary\s*=/i)).replace(/^;\s*boundary\s*=\s*/i, ''),
      valid: false,
    };
  return undefined;
}

/** Whether a boundary is one RFC 2046, 5.1.1 allows. */
export function isValidBoundary(boundary: string): boolean {
  return BOUNDARY.test(boundary);
}

/**
 * A Content-Type with `boundary` as its only boundary parameter, written last: every other parameter kept as written
 * (re-quoted where it is no token), the boundary a token when it is one, else a quoted-string (RFC 9110, 5.6.6).
 */
export function withBoundary(contentType: string, boundary: string): string {
  const { type, parameters } = mediaTypeParameters(contentType);
  const quoted = (value: string) => (TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`);
  const kept = parameters.filter((parameter) => parameter.name !== 'boundary');
  return [
    type,
    ...kept.map((parameter) => `${parameter.name}=${quoted(parameter.value)}`),
    `boundary=${quoted(boundary)}`,
  ].join('; ');
}

/**
 * A multipart/form-data text read into its parts (RFC 7578, RFC 2046 5.1.1): the preamble before the first delimiter
 * and the epilogue after the closing one ignored; each part's headers up to the first empty line (CRLF; a bare LF
 * is read too), its name and file name from Content-Disposition, its Content-Type, its other headers in lower case.
 * @returns The fields, or a reason (no delimiter, no closing delimiter, a part without a name). Never throws.
 */
export function fieldsOfMultipartText(text: string, boundary: string): BodyField[] | { reason: string } {
  const delimiter = `--${boundary}`;
  const preamble = text.startsWith(delimiter) ? -1 : text.indexOf(`\n${delimiter}`);
  if (preamble < 0 && !text.startsWith(delimiter)) return { reason: `holds no delimiter --${boundary}` };
  const fields: BodyField[] = [];
  let at = preamble + 1 + delimiter.length;
  for (;;) {
    if (text.startsWith('--', at)) return fields;
    const next = text.indexOf(`\n${delimiter}`, at);
    if (next < 0) return { reason: `has no closing delimiter --${boundary}--` };
    const part = text.slice(text.startsWith('\r\n', at) ? at + 2 : text.startsWith('\n', at) ? at + 1 : at, next);
    const content = part.endsWith('\r') ? part.slice(0, -1) : part;
    const split = /\r?\n\r?\n/.exec(content);
    const head = split ? content.slice(0, split.index) : content;
    const field: BodyField = { name: '', value: split ? content.slice(split.index + split[0].length) : '' };
    const headers: Record<string, string> = {};
    for (const line of head.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-disposition') {
        const named = /;\s*name\s*=\s*"([^"]*)"/i.exec(value) ?? /;\s*name\s*=\s*([^\s;]+)/i.exec(value);
        const file = /;\s*filename\s*=\s*"([^"]*)"/i.exec(value) ?? /;\s*filename\s*=\s*([^\s;]+)/i.exec(value);
        if (named) field.name = named[1]!;
        if (file) field.filename = file[1]!;
      } else if (name === 'content-type') field.contentType = value;
      else headers[name] = value;
    }
    if (field.name === '') return { reason: `has a part without a Content-Disposition name` };
    if (Object.keys(headers).length > 0) field.headers = headers;
    fields.push(field);
    at = next + 1 + delimiter.length;
  }
}
