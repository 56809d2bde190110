/**
 * Keeping the API key out of everything the server writes, and secrets of the document's URL out of
 * every text that names it. No MCP, no network; only `node:` imports.
 */

/** Removes the API key from data that came from the API, and from what the server writes; see `redactor`. */
export type Redactor = {
  /** Every occurrence of the key, in any of the forms `redactor` lists, replaced by `[redacted]`. */
  text(text: string): string;
  /**
   * A copy of a JSON value with `text` applied to every string value, and a number that spells the
   * key replaced; booleans and null untouched. With `keys`, object keys too: for data from the API.
   */
  value<T>(value: T, keys?: boolean): T;
  /**
   * For a text cut at a byte budget, whose end may hold the start of the key: `text`, then the last
   * `withheld` characters dropped whatever they are, and `WITHHELD_MARK` appended. What is kept never
   * depends on whether the text ends in part of the key (issue 8, case 49: no prefix oracle).
   */
  tail(text: string): string;
  /**
   * Characters a cut text loses: the length of the longest form the key can take, base64 cores
   * included (0 without a key).
   */
  withheld: number;
  /**
   * A JSON-RPC message with `text` applied to the strings of a tool result's `content` and
   * `structuredContent` and of an error's `message`, never to protocol fields (`jsonrpc`, `id`,
   * `type`...). Defence in depth behind the redaction of API data at its source; skipped for keys
   * shorter than 8 characters, which would match ordinary words of the server's own text.
   */
  message<T>(message: T): T;
};

/** Appended to a text whose end was withheld by `Redactor.tail`. */
export const WITHHELD_MARK = '[…end withheld]';

/** The redactor of a server without a key: changes nothing. */
export const NO_REDACTION: Redactor = { text: (input) => input, value: (input) => input, tail: (input) => input, withheld: 0, message: (input) => input };

/** Hex digits of `value`, `width` wide, each letter matching either case. */
function hexPattern(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

/**
 * The ways one character of the key can be written in text that has been escaped or encoded, each
 * as a regular-expression source and the longest text it matches, in characters.
 */
function characterForms(character: string): { source: string; longest: number }[] {
  // Both letter cases: an API that upper-cases what it echoes also changes the bytes it percent- or \u-encodes.
  return [...new Set([character, character.toLowerCase(), character.toUpperCase()])].flatMap(spellingForms);
}

/** The forms of `characterForms` for one spelling of a character (one letter case). */
function spellingForms(character: string): { source: string; longest: number }[] {
  const literal = character.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const bytes = [...Buffer.from(character, 'utf8')];
  const units = [...Array(character.length).keys()].map((index) => character.charCodeAt(index));
  const forms = [{ source: literal, longest: character.length }];
  // Percent-encoding of its UTF-8 bytes, either case of hex (RFC 3986, 2.1), also encoded twice or three times (%25XX, %2525XX).
  forms.push({ source: bytes.map((byte) => `%(?:25){0,2}${hexPattern(byte, 2)}`).join(''), longest: 7 * bytes.length });
  if (character === ' ') forms.push({ source: '\\+', longest: 1 });
  // JSON: \uXXXX for any UTF-16 unit (RFC 8259, 7), escaped once or more (`\\u002d`): one to four backslashes.
  forms.push({ source: units.map((unit) => `\\\\{1,4}[uU]${hexPattern(unit, 4)}`).join(''), longest: 9 * units.length });
  if (character === '"' || character === '/') forms.push({ source: `\\\\{1,3}${literal}`, longest: 4 });
  if (character === '\\') forms.push({ source: '\\\\{2,4}', longest: 4 });
  return forms;
}

/**
 * The parts of base64 (RFC 4648, 4) and base64url (RFC 4648, 5) text that encode only bytes of the
 * key, whatever comes before or after it (`Basic base64(user:key)`, a base64 body field): for each
 * of the three alignments of the key within the 3-byte groups, the characters whose 6 bits all come
 * from the key. Cores shorter than 8 characters are left out (they would match ordinary text).
 * @returns Up to six distinct strings, e.g. `c2stY2FuYXJ5` for `sk-canary`.
 */
function base64Cores(secret: string): string[] {
  const key = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), key]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + key.length)) / 6));
    if (core.length >= 8) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

/**
 * Builds the redactor for the API key. The key is never put into output on purpose; this catches an
 * API that echoes it. It matches the whole key, in any letter case, written in any mix of these
 * forms: plain; percent-encoded with either case of hex, encoded twice or three times (`%252D`,
 * `%25252D`), or `+` for a space; JSON-escaped once or more (`\"`, `\\`, `\/`, `\uXXXX`,
 * `\\uXXXX`); and the stable cores of its base64 and base64url forms at each of the three byte
 * alignments (`base64Cores`), so `Basic base64(user:key)` is caught, each core character in the same
 * escaped forms. Out of scope (not matched): the key split across strings, reversed, hex-encoded,
 * as HTML entities, with zero-width or other characters inserted, fullwidth, with `-` turned to `+`,
 * or percent-encoded four times or more. It works on string values, never on serialized
 * JSON, so no key, however short, can corrupt a message. Only the whole key is ever matched: a text
 * cut at a budget goes through `tail`, which drops its end whatever it holds.
 * @param secret The key, already trimmed; undefined or empty gives a redactor that changes nothing.
 */
export function redactor(secret: string | undefined): Redactor {
  if (!secret) return NO_REDACTION;
  // The key, and the stable cores of its base64 and base64url forms, each in every form a character can take.
  const spellings = [secret, ...base64Cores(secret)].map((spelling) => [...spelling].map(characterForms));
  const sources = spellings.map((perCharacter) => perCharacter.map((forms) => `(?:${forms.map((form) => form.source).join('|')})`).join(''));
  // No `i` flag: each form spells its letter cases itself, so alternatives never match the same text
  // and a near-miss cannot backtrack through 2^n ways (issue 8: nothing stalls the server).
  const whole = new RegExp(sources.map((source) => `(?:${source})`).join('|'), 'g');
  // The longest text any form of any spelling can take: what a cut text must lose (no prefix oracle).
  const withheld = Math.max(...spellings.map((perCharacter) => perCharacter.reduce((sum, forms) => sum + Math.max(...forms.map((form) => form.longest)), 0)));
  const text = (input: string) => input.replace(whole, '[redacted]');
  const value = <T,>(input: T, keys = false): T => {
    if (typeof input === 'string') return text(input) as T;
    if (typeof input === 'number' && String(input) === secret) return '[redacted]' as T;
    if (Array.isArray(input)) return input.map((inner) => value(inner, keys)) as T;
    if (input !== null && typeof input === 'object') {
      // fromEntries defines own properties, so a body key "__proto__" stays a key.
      return Object.fromEntries(Object.entries(input).map(([key, inner]) => [keys ? text(key) : key, value(inner, keys)])) as T;
    }
    return input;
  };
  const tail = (input: string) => {
    const out = text(input);
    let end = Math.max(0, out.length - withheld);
    // Never leave half of a surrogate pair.
    if (end > 0 && /[\ud800-\udbff]/.test(out[end - 1]!)) end--;
    return out.slice(0, end) + WITHHELD_MARK;
  };
  const message = <T,>(input: T): T => {
    if (secret.length < 8 || input === null || typeof input !== 'object') return input;
    const copy = { ...(input as Record<string, any>) };
    if (copy.result && typeof copy.result === 'object') {
      copy.result = { ...copy.result };
      if (Array.isArray(copy.result.content)) copy.result.content = copy.result.content.map((block: Record<string, unknown>) => (typeof block?.text === 'string' ? { ...block, text: text(block.text) } : block));
      if (copy.result.structuredContent) copy.result.structuredContent = value(copy.result.structuredContent);
    }
    if (copy.error && typeof copy.error.message === 'string') copy.error = { ...copy.error, message: text(copy.error.message) };
    return copy as T;
  };
  return { text, value, tail, withheld, message };
}

/**
 * The document source as it may be printed: for a URL (`scheme://...`), user name and password
 * (raw or percent-encoded) become `***`, the whole query (names and values: a bare `?t0ken123` is a
 * secret too) becomes `?***`, and the fragment is dropped; a file path is returned as it is. Used
 * for stderr, the start-up line, notes and error texts (issue 8: `OPENAPI_DOC` secrets are never
 * printed; attack report B12).
 * @param source `OPENAPI_DOC` as configured. Never throws.
 */
export function displaySource(source: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source)) return source;
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    // Not parseable: show no more than the scheme and host-looking part before any credentials or query.
    return source.replace(/\/\/[^/?#]*@/, '//***@').replace(/[?#].*$/, (rest) => (rest.startsWith('?') ? '?***' : ''));
  }
  const credentials = url.username || url.password ? '***@' : '';
  // `;name=value` path parameters (`/doc.json;token=...`) carry secrets as readily as a query does.
  const path = url.pathname.replace(/;[^/]*/g, ';***');
  return `${url.protocol}//${credentials}${url.host}${path}${url.search ? '?***' : ''}`;
}

/**
 * A text with every spelling of the document source's secrets replaced: the source as configured,
 * its normalised URL, and its password, user name and query values, each where it appears.
 * @param text Any text that may name the source (an error message from loading the document).
 * @param source `OPENAPI_DOC` as configured, or undefined (the text is returned as it is).
 */
export function hideSourceSecrets(text: string, source: string | undefined): string {
  if (!source || !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source)) return text;
  const shown = displaySource(source);
  let out = text.split(source).join(shown);
  try {
    const url = new URL(source);
    out = out.split(url.href).join(shown);
    // Every part displaySource hides, as written and decoded (`pa%355word` is `pa55word`), longest first.
    const matrix = url.pathname.match(/;[^/]*/g)?.map((part) => part.slice(1)) ?? [];
    const parts = [url.password, url.username, url.search.slice(1), url.hash.slice(1), ...url.search.slice(1).split(/[&;=]/), ...matrix, ...matrix.flatMap((part) => part.split(/[;=]/))];
    const secrets = [...new Set(parts.flatMap((part) => [part, decodedOrSelf(part), decodedOrSelf(part.replace(/\+/g, ' '))]))]
      .filter((secret) => secret.length >= 3)
      .sort((left, right) => right.length - left.length);
    for (const secret of secrets) out = out.split(secret).join('***');
  } catch {
    // Unparseable: the literal replacement above is all there is.
  }
  return out;
}

/** `decodeURIComponent(text)`, or `text` itself when it holds a malformed escape. */
function decodedOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
