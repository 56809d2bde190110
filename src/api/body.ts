/**
 * Bodies as the API sent them: text versus binary from the media type's structure, text decoded in
 * its declared charset, JSON always as UTF-8, and one linear scan of a JSON text that finds syntax
 * errors (by position, never quoting the body), duplicate member names, the nesting depth and numbers
 * JSON.parse changes. No MCP, no network; only `node:` imports.
 */
import { readsExactly } from '../shared/decimal.ts';
import { instancePath } from '../shared/json-pointer.ts';
import { isJsonMediaType, mediaTypeEssence } from '../shared/media-type.ts';
import { MAX_BODY_DEPTH, MAX_CHANGED_NUMBERS_TEXT, MAX_WRITTEN_NUMBER, memberName } from '../shared/json-text.ts';

import type { BodyWarning, ChangedNumbers } from '../shared/json-text.ts';
/** At most this many warnings of one kind are listed; the last one says how many more there were. */
const MAX_WARNINGS = 20;

/** application/* subtypes (without a suffix) that are text by their format's definition. */
const TEXT_SUBTYPES = new Set([
  'json',
  'xml',
  'javascript',
  'ecmascript',
  'x-javascript',
  'x-ecmascript',
  'x-www-form-urlencoded',
  'yaml',
  'x-yaml',
  'graphql',
  'sql',
  'x-sh',
  'x-csh',
  'x-httpd-php',
  'csv',
  'x-csv',
  'rtf',
  'x-tex',
  'x-latex',
  'toml',
  'x-toml',
  'x-ndjson',
  'ndjson',
  'jsonl',
  'x-jsonl',
  'jsonlines',
  'x-jsonlines',
  'json-seq',
  'jwt',
  'jose',
  'x-perl',
  'x-python',
  'x-ruby',
  'xhtml',
  'x-properties',
  'n-triples',
  'n-quads',
  'trig',
  'sparql-query',
  'sparql-results+json',
]);

/** Line-framed JSON: one JSON text per line (NDJSON, JSON Lines) or per RS-prefixed record (RFC 7464). */
const JSON_LINE_SUBTYPES = new Set(['x-ndjson', 'ndjson', 'jsonl', 'x-jsonl', 'jsonlines', 'x-jsonlines', 'json-seq']);

/**
 * Whether a Content-Type names text, decided from its structure: `text/*`; any structured-syntax
 * suffix `+json`, `+xml`, `+yaml`, `+json-seq` (RFC 6839, RFC 8259); the text formats of `application/*`
 * (JSON, NDJSON and JSON Lines, json-seq, form data, JavaScript, YAML, GraphQL, CSV and friends); and any
 * type that carries a `charset` parameter (RFC 9110, 8.3.2: only text has one).
 * @param contentType The header as sent; null or '' gives false (unknown, see `decodeBody`).
 */
export function isTextMediaType(contentType: string | null | undefined): boolean {
  const type = mediaTypeEssence(contentType);
  if (!type) return false;
  const [major, subtype = ''] = type.split('/', 2) as [string, string?];
  if (major === 'text') return true;
  if (/\+(json|xml|yaml|json-seq)$/.test(subtype)) return true;
  if ((major === 'application' || major === 'message') && (TEXT_SUBTYPES.has(subtype) || subtype === 'http'))
    return true;
  return /;\s*charset\s*=/i.test(contentType ?? '');
}

/** True for NDJSON, JSON Lines and JSON text sequences (`application/x-ndjson`, `application/jsonl`, `application/json-seq`...). */
export function isJsonLinesMediaType(contentType: string | null | undefined): boolean {
  const type = mediaTypeEssence(contentType);
  return type.startsWith('application/') && JSON_LINE_SUBTYPES.has(type.slice('application/'.length));
}

/** The `charset` parameter's value, unquoted and in lower case, or undefined (RFC 9110, 8.3.2). */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const value = (match?.[1] ?? match?.[2])?.trim().toLowerCase();
  return value || undefined;
}

/** A body as the agent and the checks see it. */
export type DecodedBody = {
  /** Parsed JSON, the decoded text, or null for a binary or undecodable body. */
  body: unknown;
  /** What needs saying about how the body was read. */
  note?: string;
  warnings?: BodyWarning[];
  /** Every number JSON parsing changed, as written (the warnings list 20), for the checks; not for showing. */
  numbers?: ChangedNumbers;
  /** For line-framed JSON: each line parsed (undefined where a line does not parse), for the line-by-line check. */
  records?: { line: number; value?: unknown; problem?: string }[];
};

/** What `decodeBody` needs besides the bytes. */
export type DecodeOptions = {
  /** The body was cut at `maxBytes`: shown as text, not parsed. */
  truncated: boolean;
  /** The read budget in bytes, named in the note of a cut body. */
  maxBytes: number;
  /** The note of a cut body, built by the caller (it names the settings). */
  cutNote?: string;
  /** Applied to each value quoted in a warning before it is shortened, so a quote never ends inside the key. */
  redact?: (text: string) => string;
  /** The Content-Encoding header, to explain an empty or unparsable body. */
  contentEncoding?: string | null;
};

/**
 * Decodes a body read by the probe. Text types are decoded in their declared charset through
 * `TextDecoder` (WHATWG Encoding labels: `iso-8859-1` reads as windows-1252, `utf-16`...; an unknown
 * label falls back to UTF-8 with a note); JSON and line-framed JSON are always UTF-8 (RFC 8259, 8.1),
 * a charset label on them is ignored with a note and a UTF-8 byte order mark is skipped with a note.
 * A complete JSON body is scanned once (`scanJson`): a syntax error gives the text and a note with its
 * line and column (the body is never quoted), duplicate names and changed numbers give warnings, a
 * body nested deeper than `MAX_BODY_DEPTH` stays text with a warning. A body without a Content-Type is
 * parsed as JSON when it is JSON, else shown as text when it is valid UTF-8, else treated as binary.
 * A binary body is null; the note says when its bytes are valid UTF-8 text nonetheless.
 * @returns The body, note, warnings and (line-framed JSON) parsed records. Never throws.
 */
export function decodeBody(held: Uint8Array, contentType: string | null, options: DecodeOptions): DecodedBody {
  const type = mediaTypeEssence(contentType);
  const jsonLike = isJsonMediaType(contentType) || isJsonLinesMediaType(contentType);
  const notes: string[] = [];
  if (type && !isTextMediaType(contentType)) {
    const text = utf8Text(held);
    const looksText = text !== undefined && held.length > 0 && !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text);
    return {
      body: null,
      note: `Binary body (${type}), not shown${looksText ? `; its ${held.length} bytes are valid UTF-8 text, so the Content-Type may be wrong` : ''}.`,
    };
  }
  let bytes = held;
  if (jsonLike || !type) {
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
      notes.push(
        'A UTF-8 byte order mark before the JSON text was skipped (RFC 8259, 8.1: senders must not add one; some parsers fail on it).',
      );
    }
  }
  let text: string;
  const charset = charsetOf(contentType);
  const utf16 = jsonLike ? utf16Form(bytes, charset) : undefined;
  if (utf16) {
    // RFC 8259, 8.1 asks for UTF-8, but RFC 4627 allowed UTF-16 and APIs still send it. Read as UTF-8 it would be
    // text with NULs between the letters, which neither parses nor lets an echoed key be recognised.
    text = new TextDecoder(utf16).decode(bytes);
    notes.push(
      `JSON should be UTF-8 (RFC 8259, 8.1); this body is ${utf16.toUpperCase()} (by its ${bytes[0] === 0xff || bytes[0] === 0xfe ? 'byte order mark' : charset && /^utf-?16/.test(charset) ? 'charset label' : 'pattern of zero bytes'}) and was decoded as such.`,
    );
  } else if (jsonLike || !type) {
    if (jsonLike && charset && !['utf-8', 'utf8', 'unicode-1-1-utf-8'].includes(charset)) {
      notes.push(`JSON is always UTF-8 (RFC 8259, 8.1); the charset label ${charset} is ignored.`);
    }
    if (!type) {
      const strict = utf8Text(bytes);
      if (strict === undefined)
        return { body: null, note: 'No Content-Type and the bytes are not UTF-8 text: treated as binary, not shown.' };
      text = strict;
    } else {
      text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    }
  } else {
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(charset ?? 'utf-8');
    } catch {
      decoder = new TextDecoder('utf-8');
      notes.push(`The charset ${JSON.stringify(charset)} is unknown (WHATWG Encoding); decoded as UTF-8.`);
    }
    text = decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
    // Bytes that are UTF-8 under another label: when their UTF-8 reading holds the key (a look-alike echo the label's
    // reading would hide from redaction), that reading is used, so the key is redacted.
    if (decoder.encoding !== 'utf-8' && options.redact && /[^\x00-\x7f]/.test(text)) {
      const utf8 = utf8Text(bytes);
      if (utf8 !== undefined && options.redact(utf8) !== utf8) {
        text = utf8;
        notes.push(`The bytes are UTF-8 although labelled ${charset}; read as UTF-8.`);
      }
    }
  }
  const finish = (decoded: DecodedBody): DecodedBody => {
    if (decoded.note) notes.push(decoded.note);
    const out: DecodedBody = { body: decoded.body };
    if (notes.length) out.note = notes.join(' ');
    if (decoded.warnings?.length) out.warnings = decoded.warnings;
    if (decoded.numbers) out.numbers = decoded.numbers;
    if (decoded.records) out.records = decoded.records;
    return out;
  };
  if (options.truncated)
    return finish({
      body: text,
      note: options.cutNote ?? `Body longer than ${options.maxBytes} bytes; cut there and not parsed or checked.`,
    });
  if (held.length === 0) {
    const coding = options.contentEncoding?.trim();
    return finish({
      body: '',
      note:
        coding && coding.toLowerCase() !== 'identity'
          ? `The body is empty after decoding its Content-Encoding ${coding}: the compressed stream may have been cut short.`
          : undefined,
    });
  }
  if (isJsonLinesMediaType(contentType)) return finish(decodeJsonLines(text, contentType, options));
  if (isJsonMediaType(contentType) || !type) {
    const scanned = scanJson(text, options.redact);
    if (scanned.error) {
      if (!type) return finish({ body: text });
      const coding = options.contentEncoding?.trim();
      return finish({
        body: text,
        note: `Content-Type says JSON but the body does not parse: ${scanned.error}${coding ? ` (the body came with Content-Encoding ${coding}; the compressed stream may have been cut short)` : ''}.`,
      });
    }
    if (scanned.depth > MAX_BODY_DEPTH) {
      return finish({
        body: text,
        note: `The JSON body nests deeper than ${MAX_BODY_DEPTH} levels; shown as text and not checked.`,
        warnings: [
          {
            kind: 'tooDeep',
            severity: 'warning',
            path: '$',
            rule: 'RFC 8259, 9',
            message: `nests deeper than ${MAX_BODY_DEPTH} levels (arrays and objects); parsers limit depth differently, and this body was not checked`,
          },
        ],
      });
    }
    return finish({
      body: JSON.parse(text),
      warnings: scanned.warnings,
      ...(scanned.numbers ? { numbers: scanned.numbers } : {}),
    });
  }
  return finish({ body: text });
}

/** Parses each non-blank line of NDJSON / JSON Lines (or each RS record of json-seq, RFC 7464); the body stays text. */
function decodeJsonLines(text: string, contentType: string | null, options: DecodeOptions): DecodedBody {
  const sequence = mediaTypeEssence(contentType) === 'application/json-seq';
  const pieces = sequence ? text.split('\u001e') : text.split('\n');
  const records: NonNullable<DecodedBody['records']> = [];
  const warnings: BodyWarning[] = [];
  const numbers: ChangedNumbers = { written: [], unknown: [], unlisted: false };
  let bad = 0;
  pieces.forEach((piece, index) => {
    const line = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
    if (line.trim() === '') return;
    const scanned = scanJson(line, options.redact);
    const number = sequence ? records.length + 1 : index + 1;
    if (scanned.error) {
      bad++;
      records.push({ line: number, problem: scanned.error });
    } else if (scanned.depth > MAX_BODY_DEPTH) {
      bad++;
      records.push({ line: number, problem: `nests deeper than ${MAX_BODY_DEPTH} levels` });
    } else {
      records.push({ line: number, value: JSON.parse(line) });
      const at = `$[${records.length - 1}]`;
      for (const warning of scanned.warnings) warnings.push({ ...warning, path: warning.path.replace(/^\$/, at) });
      if (scanned.numbers) {
        for (const [path, written] of scanned.numbers.written) numbers.written.push([at + path.slice(1), written]);
        for (const path of scanned.numbers.unknown) numbers.unknown.push(at + path.slice(1));
        numbers.unlisted ||= scanned.numbers.unlisted;
      }
    }
  });
  const kind = sequence ? 'JSON text sequence (RFC 7464)' : 'newline-delimited JSON';
  return {
    body: text,
    note: `Body is ${kind}: shown as text; ${records.length} record(s), each checked on its own as $[n] (n counts records from 0)${bad ? `; ${bad} did not parse` : ''}.`,
    warnings,
    ...(numbers.written.length || numbers.unknown.length || numbers.unlisted ? { numbers } : {}),
    records,
  };
}

/** WHATWG index-windows-1252 for bytes 0x80 to 0x9F; the other bytes are their own code points. */
const WINDOWS_1252 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Decodes windows-1252, the encoding WHATWG gives the labels `iso-8859-1`, `latin1`, `ascii` and
 * `windows-1252`. Written out because Node 20's TextDecoder reads it as ISO-8859-1 (0x93 as U+0093,
 * not a curly quote); Node 22 and later agree with this table.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (character) => WINDOWS_1252[character.charCodeAt(0) - 0x80]!);
}

/**
 * A header field value or reason phrase as Node gives it (each byte as one Latin-1 character, RFC 9110, 5.5) read
 * as UTF-8 when its bytes are UTF-8 and not all ASCII: an API that echoes the key with a non-ASCII look-alike (`‐`,
 * `ｓ`) sends UTF-8, and only the UTF-8 reading lets redaction see it. Otherwise unchanged.
 */
export function headerText(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  return utf8Text(Buffer.from(value, 'latin1')) ?? value;
}

/** Strict UTF-8 decoding; undefined when the bytes are not UTF-8. */
function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** What one scan of a JSON text found. */
export type JsonScan = {
  /** The first syntax error, by line and column, never quoting the text; undefined when the text is one valid JSON value. */
  error?: string;
  /** Deepest nesting of arrays and objects (0 for a scalar). */
  depth: number;
  /** Duplicate member names and numbers JSON.parse changes, in text order. */
  warnings: BodyWarning[];
  /** Every number JSON.parse changes, as written; undefined when there is none. */
  numbers?: ChangedNumbers;
};

type Frame = {
  array: boolean;
  start: number;
  count: number;
  key?: string;
  valueStart: number;
  names?: Map<string, [number, number]>;
};

/**
 * Scans a JSON text once, left to right, with an explicit stack (no recursion, so no depth overflows
 * it): checks the grammar (RFC 8259), measures the nesting depth, and reports each duplicate member
 * name at its instance path with both values (RFC 8259, 4) and each number that JSON.parse cannot hold
 * exactly (integers beyond 2^53 rounded, more digits than a double keeps, values beyond the double range made
 * null or 0; RFC 8259, 6), its `values` the text as written (up to 60 characters) and as parsed.
 * Time and memory are linear in the text's length.
 * @param redact Applied to a quoted value before it is shortened to 60 characters.
 */
export function scanJson(text: string, redact: (text: string) => string = (value) => value): JsonScan {
  const stack: Frame[] = [];
  const segments: (string | number)[] = [];
  const duplicates: BodyWarning[] = [];
  const numbers: BodyWarning[] = [];
  let moreDuplicates = 0;
  let moreNumbers = 0;
  const changedNumbers: ChangedNumbers = { written: [], unknown: [], unlisted: false };
  let changedTextLength = 0;
  let depth = 0;
  let index = 0;
  const length = text.length;
  const preview = (start: number, end: number) => {
    const whole = redact(text.slice(start, Math.min(end, start + 4096)));
    const cut = end - start > 4096 || whole.length > 60;
    return cut ? `${whole.slice(0, 57)}...` : whole;
  };
  const fail = (what: string): JsonScan => {
    let line = 1;
    let lineStart = 0;
    for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
      line++;
      lineStart = at + 1;
    }
    const where =
      index >= length
        ? 'at the end of the text'
        : `at line ${line}, column ${index - lineStart + 1} (character ${index + 1})`;
    return { error: `${what} ${where}`, depth, warnings: [] };
  };
  const skipSpace = () => {
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) index++;
      else break;
    }
  };
  /** Scans a string literal starting at `index` (a quote); returns false on a grammar error. */
  const plainRun = /[^"\\\u0000-\u001f]*/y;
  const scanString = (): boolean => {
    index++;
    while (index < length) {
      // Skip a run of ordinary characters in one step.
      plainRun.lastIndex = index;
      plainRun.exec(text);
      index = plainRun.lastIndex;
      if (index >= length) break;
      const code = text.charCodeAt(index);
      if (code === 0x22) {
        index++;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        const next = text[index + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) return false;
          index += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) index += 2;
        else return false;
      } else index++;
    }
    return false;
  };
  const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  /** Called when a value spanning [start, end) is complete: records the member in its object. */
  const valueDone = (start: number, end: number) => {
    const frame = stack[stack.length - 1];
    if (!frame) return;
    if (!frame.array) {
      const key = frame.key!;
      const earlier = frame.names!.get(key);
      if (earlier) {
        if (duplicates.length < MAX_WARNINGS) {
          const values = [preview(earlier[0], earlier[1]), preview(start, end)];
          duplicates.push({
            kind: 'duplicateName',
            severity: 'warning',
            path: instancePath(segments),
            rule: 'RFC 8259, 4',
            values,
            message: `appears twice in one object (${values[0]}, then ${values[1]}); JSON.parse keeps the last, other parsers keep the first or fail, so the value depends on the client`,
          });
        } else moreDuplicates++;
      } else frame.names!.set(key, [start, end]);
    }
    segments.pop();
  };
  /** After a value: a comma, a closing bracket, or (at the top) the end. Returns an error text or 'value' / 'key' / 'end'. */
  for (;;) {
    // Expect a value.
    skipSpace();
    if (index >= length) return fail('a value is missing');
    const start = index;
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b) {
      const array = code === 0x5b;
      index++;
      stack.push({ array, start, count: 0, valueStart: start, ...(array ? {} : { names: new Map() }) });
      depth = Math.max(depth, stack.length);
      skipSpace();
      if (text.charCodeAt(index) === (array ? 0x5d : 0x7d)) {
        index++;
        stack.pop();
        valueDone(start, index);
      } else if (array) {
        segments.push(0);
        continue;
      } else {
        if (text.charCodeAt(index) !== 0x22) return fail('expected a member name in quotes');
        const keyStart = index;
        if (!scanString()) return fail('malformed string');
        const frame = stack[stack.length - 1]!;
        frame.key = memberName(text, keyStart, index);
        skipSpace();
        if (text.charCodeAt(index) !== 0x3a) return fail('expected ":"');
        index++;
        segments.push(frame.key);
        continue;
      }
    } else if (code === 0x22) {
      if (!scanString()) return fail('malformed string');
      valueDone(start, index);
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      numberToken.lastIndex = index;
      const match = numberToken.exec(text);
      if (!match) return fail('malformed number');
      index += match[0].length;
      const literal = match[0];
      // At most 15 digits and no exponent: a double holds it exactly (IEEE 754 binary64 keeps 15 decimal digits).
      const short = literal.length <= 15 && !/[eE]/.test(literal);
      const parsed = short ? 0 : Number(literal);
      const changed = short
        ? undefined
        : !Number.isFinite(parsed)
          ? 'null'
          : readsExactly(literal, parsed)
            ? undefined
            : String(parsed);
      if (changed !== undefined) {
        const path = instancePath(segments);
        // The warnings list 20; the checks need every one, as written, to compare it exactly or say it was not checked.
        changedTextLength += path.length + Math.min(literal.length, MAX_WRITTEN_NUMBER);
        if (changedTextLength > MAX_CHANGED_NUMBERS_TEXT) changedNumbers.unlisted = true;
        else if (literal.length <= MAX_WRITTEN_NUMBER) changedNumbers.written.push([path, literal]);
        else changedNumbers.unknown.push(path);
        if (numbers.length < MAX_WARNINGS) {
          numbers.push({
            kind: 'inexactNumber',
            severity: 'warning',
            path,
            rule: 'RFC 8259, 6',
            values: [preview(start, index), changed],
            message: `the number ${preview(start, index)} cannot be held exactly in a double and reads as ${changed}: read it as a string or BigInt`,
          });
        } else moreNumbers++;
      }
      valueDone(start, index);
    } else if (text.startsWith('true', index) || text.startsWith('null', index)) {
      index += 4;
      valueDone(start, index);
    } else if (text.startsWith('false', index)) {
      index += 5;
      valueDone(start, index);
    } else return fail('unexpected character');
    // After a value: close containers, or move to the next member.
    for (;;) {
      skipSpace();
      const frame = stack[stack.length - 1];
      if (!frame) {
        if (index < length) return fail('unexpected text after the JSON value');
        const warnings = [...duplicates, ...numbers];
        if (moreDuplicates)
          warnings.push({
            kind: 'duplicateName',
            severity: 'warning',
            path: '$',
            rule: 'RFC 8259, 4',
            message: `${moreDuplicates} more duplicate member name(s) not listed`,
          });
        if (moreNumbers)
          warnings.push({
            kind: 'inexactNumber',
            severity: 'warning',
            path: '$',
            rule: 'RFC 8259, 6',
            message: `${moreNumbers} more number(s) that cannot be held exactly not listed`,
          });
        const changed = changedNumbers.written.length || changedNumbers.unknown.length || changedNumbers.unlisted;
        return { depth, warnings, ...(changed ? { numbers: changedNumbers } : {}) };
      }
      const next = text.charCodeAt(index);
      if (next === (frame.array ? 0x5d : 0x7d)) {
        index++;
        stack.pop();
        valueDone(frame.start, index);
        continue;
      }
      if (next !== 0x2c) return fail(frame.array ? 'expected "," or "]"' : 'expected "," or "}"');
      index++;
      frame.count++;
      if (frame.array) {
        segments.push(frame.count);
      } else {
        skipSpace();
        if (text.charCodeAt(index) !== 0x22) return fail('expected a member name in quotes');
        const keyStart = index;
        if (!scanString()) return fail('malformed string');
        frame.key = memberName(text, keyStart, index);
        skipSpace();
        if (text.charCodeAt(index) !== 0x3a) return fail('expected ":"');
        index++;
        segments.push(frame.key);
      }
      break;
    }
  }
}

/**
 * The UTF-16 form of a JSON body, or undefined for UTF-8: by its byte order mark, its `charset` label
 * (`utf-16`, `utf-16le`, `utf-16be`), or the pattern of zero bytes in its first two octets, since JSON text
 * starts with an ASCII character (RFC 4627, 3).
 */
function utf16Form(bytes: Uint8Array, charset: string | undefined): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (charset && /^utf-?16(le)?$/.test(charset)) return 'utf-16le';
  if (charset && /^utf-?16be$/.test(charset)) return 'utf-16be';
  if (bytes.length >= 2 && bytes[0] !== 0 && bytes[1] === 0) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0 && bytes[1] !== 0) return 'utf-16be';
  return undefined;
}
