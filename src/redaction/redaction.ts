/**
 * Keeping the API key out of everything the server writes, and secrets of the document's URL out of
 * every text that names it. No MCP, no network; only `node:` imports.
 */

/** Removes the API key from data that came from the API, and from what the server writes; see `redactor`. */
export type Redactor = {
  /** Every occurrence of the key, in any of the forms `redactor` lists, replaced by `[redacted]` (from its first to its last matched character). */
  text(text: string): string;
  /**
   * A JSON value with every string value cleaned as `text` does, and a number that spells the key (or,
   * for a key matched by skeleton, any part of it) replaced by `[redacted]`; booleans and null
   * untouched. With `keys`, object keys too: for data from the API. For a key matched by skeleton, the
   * strings (and numbers) are read in document order as one text, so a key split across them is found;
   * each string's share of it is replaced. Returns a copy when anything was replaced; for a key matched
   * by skeleton, the value itself when nothing was (treat the result as read-only).
   */
  value<T>(value: T, keys?: boolean): T;
  /**
   * For a text cut at a byte budget, whose end may hold the start of the key: `text`, then its end
   * dropped whatever it holds, and `WITHHELD_MARK` appended. The end dropped is the shortest that is
   * at least `withheld` characters long, holds at least `withheldLetters` letters or digits and all but
   * one base64 character of the longest base64 core (as the skeleton reads them, one escape wrapped in
   * another counting as the inner one), and takes any escape the cut left open (`%25`, `%u00`, `=2`,
   * `\u00`, `\u{7`, `\16`, `0x7`, `&#x6`, also wrapped in another: `%26%2311`). So what is kept
   * depends on the text's length and on which of its characters are letters, digits or escapes, never
   * on whether its end matches part of the key (issue 8: no prefix oracle).
   */
  tail(text: string): string;
  /**
   * The fewest characters a cut text loses: the length of the longest strict form the key can take,
   * base64 cores included (0 without a key).
   */
  withheld: number;
  /**
   * The fewest letters and digits (as the skeleton reads them, escapes decoded) a cut text loses: all but
   * one of the longest skeleton form of the key (the hex of its bytes); 0 for a key matched only in
   * strict forms, and without a key. Optional, so a redactor written elsewhere (a test's stub) still fits.
   */
  withheldLetters?: number;
  /**
   * A JSON-RPC message with `text` applied to the strings of a tool result's `content` and
   * `structuredContent` and of an error's `message` and `data`, never to protocol fields (`jsonrpc`, `id`,
   * `type`...). Defence in depth behind the redaction of API data at its source; skipped for keys
   * shorter than 8 characters, which would match ordinary words of the server's own text. For a key
   * matched by skeleton, a text block that serializes the structured content is rebuilt from the cleaned
   * content when `value` replaced anything in it (a key split across strings has member names between
   * its parts in the serialized text, where `text` alone would not find it).
   */
  message<T>(message: T): T;
};

/** Appended to a text whose end was withheld by `Redactor.tail`. */
export const WITHHELD_MARK = '[…end withheld]';

/**
 * The sentence a note about a cut text adds when `Redactor.tail` withheld its end: how much was
 * withheld and why, e.g. "Its end is withheld whatever it holds (marked […end withheld]): at least its
 * last 306 characters, and at least 51 letters or digits, so a cut never shows the start of the API key."
 */
export function withheldNote(redact: Redactor): string {
  if (!redact.withheldLetters)
    return `Its last ${redact.withheld} characters are withheld whatever they are (marked ${WITHHELD_MARK}), so a cut never shows the start of the API key.`;
  return `Its end is withheld whatever it holds (marked ${WITHHELD_MARK}): at least its last ${redact.withheld} characters, and at least ${redact.withheldLetters} letters or digits, so a cut never shows the start of the API key.`;
}

/** The redactor of a server without a key: changes nothing. */
export const NO_REDACTION: Redactor = {
  text: (input) => input,
  value: (input) => input,
  tail: (input) => input,
  withheld: 0,
  withheldLetters: 0,
  message: (input) => input,
};

/** Hex digits of `value`, `width` wide, each letter matching either case. */
function hexPattern(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
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
  forms.push({
    source: units.map((unit) => `\\\\{1,4}[uU]${hexPattern(unit, 4)}`).join(''),
    longest: 9 * units.length,
  });
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
 * API that echoes it.
 *
 * A key whose skeleton (`keySkeleton`: its letters and digits) has at least `SKELETON_MIN_LENGTH` (12)
 * characters is matched by skeleton: the text is read as its letters and digits, NFKC-folded (fullwidth
 * `ｓｋ`, mathematical `𝐬`) and case-folded, after decoding percent-encoding to any depth (`%2525…73`,
 * UTF-8 sequences too) and `escape()`'s `%u0073` behind `%25` repeated, quoted-printable (`=73`, UTF-8
 * sequences too), JSON and JavaScript escapes behind any number of backslashes (`\u0073`, `\\u0073`,
 * `\u{73}`, `\x73`, octal `\163`, `\n`), hex literals (`0x73`), and HTML character references
 * (`&#115;`, `&#x6b;`, `&sopf;`, `&hyphen;`, also escaped as `&amp;#115;`); one escape wrapped in another
 * is read as the inner one (`%26%23115%3B`, `&#x25;73`, `%5Cu0073`) in a fourth skeleton, beside the
 * one that reads only the outer escape and a third that reads escapes as written, so an escape that
 * takes the key's first characters into it hides nothing; spaces, line breaks, tabs, zero-width
 * characters (U+200B, U+200C, U+200D, U+2060, U+FEFF), soft hyphens, combining marks and punctuation
 * count for nothing, so a punctuation mark in place of another (`sk_canary` for `sk-canary`) still
 * matches. In that skeleton it finds the key's skeleton (also with escapes in the key read as written:
 * `0xde` in `sk-0xdeadbeef`), its reverse, and the hex of its UTF-8 bytes (either case); in a second
 * skeleton that keeps letter case and base64 characters (line breaks, `=`, and base64url's `-` and `_`
 * ignored, so MIME's 76-column lines and standard base64 with `-` or `_` between groups match; the
 * base64url cores are searched without their `-` and `_`), the stable cores of its base64 forms at each
 * of the three byte alignments (`base64Cores`). Every match covers the whole target; the original text
 * from its first to its last matched character becomes `[redacted]`. `value` runs one skeleton over
 * all strings of a value in document order, so a key split across strings is found and each string's
 * share of it is replaced. Linear in the text's length; no regular expression reads more than its last
 * 256 characters (`tail`'s open escape).
 *
 * A shorter key is matched only in strict forms, whole and contiguous, in any letter case: plain;
 * percent-encoded with either case of hex, encoded twice or three times (`%252D`, `%25252D`), or `+` for
 * a space; JSON-escaped once or more (`\"`, `\\`, `\/`, `\uXXXX`, `\\uXXXX`); and the base64 cores as
 * above, each core character in the same escaped forms.
 *
 * Only the whole key is ever matched: a text cut at a budget goes through `tail`, which drops its end
 * whatever it holds.
 * @param secret The key, already trimmed; undefined or empty gives a redactor that changes nothing.
 */
export function redactor(secret: string | undefined): Redactor {
  return redactorForKeys([secret]);
}

/**
 * One redactor for many keys (every tenant's key and the server's own `API_KEY`, or the secrets recorded in a HAR
 * file): each key is matched in every form `redactor` matches it in, and the output is what `redactor`'s of each key
 * applied in turn give on text where no two keys' matches overlap (where they do, the union of both is redacted).
 * The cost does not grow with the number of keys: the keys matched by skeleton share one skeleton scan of the text and
 * one pass over each skeleton that looks for every key's targets at once (`targetSearch`); the keys matched only in
 * strict forms share one regular expression. `tail` drops at least what every key's rule asks (`withheld` and
 * `withheldLetters` are the largest of them).
 * @param keys The keys; undefined and empty ones are left out, repeats count once; none gives `NO_REDACTION`. A key
 *   that starts with `Bearer ` counts with and without it.
 */
export function redactorForKeys(keys: readonly (string | undefined)[]): Redactor {
  // Longest first: a key that holds another is hidden whole before the shorter one could leave its rest in view.
  // A key pasted with its scheme (`Bearer abc...`, apiKeySlip's 'bearer'): the secret is what follows, which an API
  // that refuses the doubled scheme may echo alone.
  const given = keys.flatMap((key) =>
    key && /^bearer\s+\S/i.test(key) ? [key, key.replace(/^bearer\s+/i, '')] : [key],
  );
  const distinct = [...new Set(given.filter((key): key is string => !!key))].sort(
    (left, right) => right.length - left.length,
  );
  if (!distinct.length) return NO_REDACTION;
  const bySkeleton = distinct.filter((key) => keySkeleton(key).length >= SKELETON_MIN_LENGTH);
  const strict = distinct.filter((key) => keySkeleton(key).length < SKELETON_MIN_LENGTH);
  const withheld = (group: string[]) => Math.max(...group.map(withheldOf));
  const groups: Redactor[] = [];
  if (bySkeleton.length) groups.push(skeletonRedactor(bySkeleton, withheld(bySkeleton)));
  if (strict.length) groups.push(strictRedactor(strict, withheld(strict)));
  return groups.length === 1 ? groups[0]! : chainRedactors(groups);
}

/**
 * The redactor of a caller's bearer token (issue 19): far cheaper to build than `redactor`'s, for the forms a token can
 * take here. The token is never sent upstream (MCP 2025-11-25, Authorization, Token Passthrough), so no API echoes it
 * folded, reversed or as hex; it reaches an answer or a log line only as the agent copied it into an argument and the
 * server or an API wrote that back: plain, percent-encoded (either case of hex, `%25` repeated up to twice, as a URL
 * writes it), JSON-escaped (`\uXXXX` behind one to four backslashes, `\/`), or base64 / base64url-encoded (its stable
 * cores, `base64Cores`, as for a key). Case is kept: a token is case-sensitive. The regular expression for the escaped
 * forms is built on the first text that holds a `%` or a backslash; any other text is searched for the token and its
 * cores as written. Linear in the text's length.
 * @param token The token as sent after its scheme; under 8 characters (or empty) gives `NO_REDACTION`.
 */
export function tokenRedactor(token: string): Redactor {
  if (token.length < 8) return NO_REDACTION;
  const spellings = [...new Set([token, ...base64Cores(token)])].sort((left, right) => right.length - left.length);
  const text = (input: string): string => {
    if (input.includes('%') || input.includes('\\')) return replaceDecoded(input, spellings);
    let out = input;
    for (const spelling of spellings) if (out.includes(spelling)) out = out.split(spelling).join('[redacted]');
    return out;
  };
  const value = valueRedaction(text, () => false);
  // The longest strict form: each character JSON-escaped behind four backslashes (9 characters).
  const withheld = 9 * token.length;
  const tail = cutRedaction(text, withheld);
  return { text, value, tail, withheld, withheldLetters: 0, message: messageRedaction(text, value, true) };
}

/**
 * `text` with every occurrence of each of `spellings` replaced by `[redacted]`, found in the text read with its
 * percent-encoding (`%XX`, either case of hex, behind `%25` up to twice) and JSON escapes (`\\uXXXX` behind one to four
 * backslashes, `\\/`) of ASCII characters decoded; what is replaced is the original text from the first to the last
 * character of the match. One pass to decode, a native search per spelling.
 */
function replaceDecoded(text: string, spellings: readonly string[]): string {
  // Segments of the decoded text: a run copied as it is, or one character decoded from an escape.
  const decodedStarts: number[] = [];
  const originalStarts: number[] = [];
  const originalEnds: number[] = [];
  const escapes: boolean[] = [];
  let decoded = '';
  let run = 0;
  const flush = (until: number) => {
    if (until <= run) return;
    decodedStarts.push(decoded.length);
    originalStarts.push(run);
    originalEnds.push(until);
    escapes.push(false);
    decoded += text.slice(run, until);
  };
  for (let at = 0; at < text.length;) {
    const code = text.charCodeAt(at);
    let end = at;
    let value = -1;
    if (code === 37) {
      let next = at + 1;
      for (let depth = 0; depth < 2 && text.startsWith('25', next) && isHexCode(text.charCodeAt(next + 2)); depth++)
        if (isHexCode(text.charCodeAt(next + 3))) next += 2;
        else break;
      if (isHexCode(text.charCodeAt(next)) && isHexCode(text.charCodeAt(next + 1))) {
        value = hexValue(text.charCodeAt(next)) * 16 + hexValue(text.charCodeAt(next + 1));
        end = next + 2;
      }
    } else if (code === 92) {
      let next = at;
      while (text.charCodeAt(next) === 92 && next - at < 4) next++;
      if ((text.charCodeAt(next) | 32) === 117 && isHexQuad(text, next + 1)) {
        value = parseInt(text.slice(next + 1, next + 5), 16);
        end = next + 5;
      } else if (text.charCodeAt(next) === 47) {
        value = 47;
        end = next + 1;
      }
    }
    if (value < 0 || value >= 128) {
      at = Math.max(end, at + 1);
      continue;
    }
    flush(at);
    decodedStarts.push(decoded.length);
    originalStarts.push(at);
    originalEnds.push(end);
    escapes.push(true);
    decoded += String.fromCharCode(value);
    at = run = end;
  }
  flush(text.length);
  const segmentOf = (index: number) => lastAtMost(decodedStarts, decodedStarts.length, index);
  const originalStart = (index: number) => {
    const segment = segmentOf(index);
    return escapes[segment] ? originalStarts[segment]! : originalStarts[segment]! + index - decodedStarts[segment]!;
  };
  const originalEnd = (index: number) => {
    const segment = segmentOf(index);
    return escapes[segment] ? originalEnds[segment]! : originalStarts[segment]! + index - decodedStarts[segment]! + 1;
  };
  const ranges: number[] = [];
  for (const spelling of spellings)
    for (let at = decoded.indexOf(spelling); at !== -1; at = decoded.indexOf(spelling, at + 1))
      ranges.push(originalStart(at), originalEnd(at + spelling.length - 1));
  return ranges.length ? replaceRanges(text, mergeRanges(ranges)) : text;
}

/**
 * `Redactor.value` for a strict redactor: `text` over every string (and, with `keys`, every member name), and a number
 * for which `secretNumber` holds replaced by `[redacted]`. Returns a copy.
 */
function valueRedaction(
  text: (input: string) => string,
  secretNumber: (value: number) => boolean,
): <T>(input: T, keys?: boolean) => T {
  const value = <T>(input: T, keys = false): T => {
    if (typeof input === 'string') return text(input) as T;
    if (typeof input === 'number' && secretNumber(input)) return '[redacted]' as T;
    if (Array.isArray(input)) return input.map((inner) => value(inner, keys)) as T;
    if (input !== null && typeof input === 'object') {
      // fromEntries defines own properties, so a body key "__proto__" stays a key.
      return Object.fromEntries(
        Object.entries(input).map(([key, inner]) => [keys ? text(key) : key, value(inner, keys)]),
      ) as T;
    }
    return input;
  };
  return value;
}

/** `Redactor.tail` for a strict redactor: `text`, then its last `withheld` characters dropped and `WITHHELD_MARK` appended. */
function cutRedaction(text: (input: string) => string, withheld: number): (input: string) => string {
  return (input) => {
    const out = text(input);
    let end = Math.max(0, out.length - withheld);
    // Never leave half of a surrogate pair.
    if (end > 0 && /[\ud800-\udbff]/.test(out[end - 1]!)) end--;
    return out.slice(0, end) + WITHHELD_MARK;
  };
}

/**
 * The length of the longest strict form of the key, its base64 cores included: the fewest characters `tail` drops.
 * Counted from each character's forms (`characterForms`) without building their patterns.
 */
function withheldOf(secret: string): number {
  let most = 0;
  for (const spelling of [secret, ...base64Cores(secret)]) {
    let sum = 0;
    for (const character of spelling) sum += longestForm(character);
    most = Math.max(most, sum);
  }
  return most;
}

/** The longest text any form of `characterForms(character)` matches, in characters. */
function longestForm(character: string): number {
  let most = 0;
  for (const spelling of new Set([character, character.toLowerCase(), character.toUpperCase()])) {
    // Plain, percent-encoded (`%2525XX` per UTF-8 byte), JSON-escaped (`\\\\uXXXX` per UTF-16 unit), `\\\\"`.
    most = Math.max(most, spelling.length, 7 * Buffer.byteLength(spelling, 'utf8'), 9 * spelling.length);
    if (spelling === '"' || spelling === '/' || spelling === '\\') most = Math.max(most, 4);
  }
  return most;
}

/**
 * The redactor of keys matched only in strict forms (their skeleton is shorter than `SKELETON_MIN_LENGTH`): see
 * `redactor`. One regular expression for all of them, longest key first.
 * @param withheld The fewest characters `tail` drops (the longest strict form of any of the keys).
 */
function strictRedactor(secrets: readonly string[], withheld: number): Redactor {
  // Each key, and the stable cores of its base64 and base64url forms, each in every form a character can take.
  const sources = secrets.flatMap((secret) =>
    [secret, ...base64Cores(secret)].map((spelling) =>
      [...spelling]
        .map(
          (character) =>
            `(?:${characterForms(character)
              .map((form) => form.source)
              .join('|')})`,
        )
        .join(''),
    ),
  );
  // No `i` flag: each form spells its letter cases itself, so alternatives never match the same text
  // and a near-miss cannot backtrack through 2^n ways (issue 8: nothing stalls the server).
  const whole = new RegExp(sources.map((source) => `(?:${source})`).join('|'), 'g');
  const numbers = new Set(secrets);
  const text = (input: string) => input.replace(whole, '[redacted]');
  const value = valueRedaction(text, (number) => numbers.has(String(number)));
  const tail = cutRedaction(text, withheld);
  // Keys shorter than 8 characters would match ordinary words of the server's own text: messages are left alone then.
  const message = messageRedaction(
    text,
    value,
    secrets.some((secret) => secret.length >= 8),
  );
  return { text, value, tail, withheld, withheldLetters: 0, message };
}

/**
 * Redactors applied in turn (the skeleton keys', then the strict keys'; the API key's, then a request's token).
 * `tail` applies each one's `tail` to what the previous one kept (its mark taken off first), so the cut loses at
 * least what every one asks; `withheld` and `withheldLetters` are the largest of theirs. Never throws.
 */
export function chainRedactors(each: readonly Redactor[]): Redactor {
  const chain = <T>(value: T, step: (one: Redactor, value: T) => T): T =>
    each.reduce((current, one) => step(one, current), value);
  return {
    text: (input) => chain(input, (one, value) => one.text(value)),
    value: (input, keys) => chain(input, (one, value) => one.value(value, keys)),
    tail: (input) => {
      let kept = input;
      for (const one of each) {
        const cut = one.tail(kept);
        kept = cut.endsWith(WITHHELD_MARK) ? cut.slice(0, -WITHHELD_MARK.length) : cut;
      }
      return kept + WITHHELD_MARK;
    },
    withheld: Math.max(0, ...each.map((one) => one.withheld)),
    withheldLetters: Math.max(0, ...each.map((one) => one.withheldLetters ?? 0)),
    message: (input) => chain(input, (one, value) => one.message(value)),
  };
}

/**
 * `Redactor.message` over a redactor's `text` and `value` (the message itself when `redacts` is false). With `mirrored` (a `value` that returns its
 * input when nothing matched), a text block that is the serialized structured content is replaced by the
 * serialization of the cleaned content when `value` replaced anything, so a key split across strings
 * (which `text` over the serialized form does not see: member names lie between) leaves neither copy.
 */
function messageRedaction(
  text: (input: string) => string,
  value: <T>(input: T, keys?: boolean) => T,
  redacts: boolean,
  mirrored = false,
): <T>(message: T) => T {
  return <T>(input: T): T => {
    if (!redacts || input === null || typeof input !== 'object') return input;
    const copy = { ...(input as Record<string, any>) };
    if (copy.result && typeof copy.result === 'object') {
      copy.result = { ...copy.result };
      const structured = copy.result.structuredContent;
      const cleaned = structured ? value(structured) : structured;
      const serialized = mirrored && cleaned !== structured ? JSON.stringify(structured) : undefined;
      if (Array.isArray(copy.result.content)) {
        copy.result.content = copy.result.content.map((block: Record<string, unknown>) => {
          if (typeof block?.text !== 'string') return block;
          return {
            ...block,
            text: text(serialized !== undefined && block.text === serialized ? JSON.stringify(cleaned) : block.text),
          };
        });
      }
      if (structured) copy.result.structuredContent = cleaned;
    }
    if (copy.error && typeof copy.error === 'object') {
      copy.error = { ...copy.error };
      if (typeof copy.error.message === 'string') copy.error.message = text(copy.error.message);
      // An error's data can repeat what the client sent (-32022 repeats the requested version).
      if (copy.error.data !== undefined) copy.error.data = value(copy.error.data);
    }
    return copy as T;
  };
}

// The lanes' buffers of the last `matchPieces` call, reused by the next (each up to `SCRATCH_LIMIT` bytes).
const SCRATCH_LIMIT = 1024 * 1024;
const scratch: (Buffer | undefined)[] = [];

/** The last index below `count` whose value in `sorted` (ascending, `sorted[0]` <= `value`) is at most `value`. */
function lastAtMost(sorted: ArrayLike<number>, count: number, value: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (sorted[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** A text with each `[start, end)` pair of `offsets` (sorted, disjoint UTF-16 offsets) replaced by `[redacted]`. */
function replaceRanges(text: string, offsets: number[]): string {
  let out = '';
  let last = 0;
  for (let index = 0; index < offsets.length; index += 2) {
    out += `${text.slice(last, offsets[index])}[redacted]`;
    last = offsets[index + 1]!;
  }
  return out + text.slice(last);
}

/**
 * The redactor of keys whose skeleton has at least `SKELETON_MIN_LENGTH` characters: see `redactor`. The text is
 * scanned once for all of them; each skeleton is then searched for every key's targets at once (`targetSearch`).
 * @param withheld The fewest characters `tail` drops (the longest strict form of any of the keys).
 */
function skeletonRedactor(secrets: readonly string[], withheld: number): Redactor {
  const letterTargets: Buffer[] = [];
  const letterIndexes = new Map<string, number>();
  // Per letter target, the keys whose own skeleton it is: the punctuation before and after each (`widenToKey`).
  const keyEnds: { leading: string; trailing: string }[][] = [];
  const baseTargets: Buffer[] = [];
  const baseSeen = new Set<string>();
  for (const secret of secrets) {
    const [forward, written] = keySkeletons(secret);
    const hex = Buffer.from(secret, 'utf8').toString('hex');
    // The key's characters before its first and after its last letter or digit (`/+"\` in `canary-9c41/+"\`).
    const leading = secret.slice(0, secret.search(/[\p{L}\p{N}]/u));
    const trailing = secret.slice(
      secret.length -
        [...secret]
          .reverse()
          .join('')
          .search(/[\p{L}\p{N}]/u),
    );
    // The key's skeleton with what looks like an escape in it read as written too (`0xde` in `sk-0xdeadbeef`):
    // an echo that decodes nothing (fullwidth, reversed, spaced) spells that one.
    const targets = [forward, [...forward].reverse().join(''), hex, written, [...written].reverse().join('')];
    targets.forEach((target, place) => {
      let index = letterIndexes.get(target);
      if (index === undefined) {
        index = letterTargets.length;
        letterIndexes.set(target, index);
        letterTargets.push(Buffer.from(target, 'utf8'));
        keyEnds.push([]);
      }
      if (place === 0) keyEnds[index]!.push({ leading, trailing });
    });
    for (const core of base64Cores(secret)) {
      const target = core.replace(/[-_]/g, '');
      if (!baseSeen.has(target)) baseTargets.push(Buffer.from(target, 'latin1'));
      baseSeen.add(target);
    }
  }
  const searchLetters = targetSearch(letterTargets);
  const searchBase64 = targetSearch(baseTargets);
  // What `tail` must drop so no partial target survives a cut: all but one unit of the longest target of each skeleton.
  const letterNeed = Math.max(...letterTargets.map((target) => target.length)) - 1;
  const baseNeed = baseTargets.length ? Math.max(...baseTargets.map((target) => target.length)) - 1 : 0;

  /**
   * The parts of `pieces` (texts in document order) that spell a target in one skeleton run over all
   * of them, so a key split across strings is found: for each piece index, its `[start, end)` UTF-16
   * offsets to redact (sorted, disjoint), from the first to the last character of the match in it.
   */
  const matchPieces = (pieces: string[]): Map<number, number[]> => {
    let capacity = 16;
    for (const piece of pieces) capacity += piece.length;
    // Lanes 0 to 3: letters and digits (escapes decoded), base64 characters, letters and digits (escapes as
    // written), letters and digits (an escape wrapped in another read as the inner one).
    const decoded = new Lane(0, true, capacity, undefined, scratch[0]);
    const lanes = [
      decoded,
      new Lane(0, true, capacity, undefined, scratch[1]),
      new Lane(0, true, capacity, decoded, scratch[2]),
      new Lane(0, true, capacity, decoded, scratch[3]),
    ] as const;
    const starts = [
      new Int32Array(pieces.length + 1),
      new Int32Array(pieces.length + 1),
      new Int32Array(pieces.length + 1),
      new Int32Array(pieces.length + 1),
    ] as const;
    for (let index = 0; index <= pieces.length; index++) {
      for (let lane = 0; lane < 4; lane++) starts[lane]![index] = lanes[lane]!.size();
      if (index < pieces.length)
        scanSkeleton(pieces[index]!, 0, pieces[index]!.length, lanes[0], lanes[1], lanes[2], lanes[3]);
    }
    // Per lane, the matches of a key's own skeleton: `[start, end, target]` triples, for `widenToKey`.
    const forwardFound: [number[], number[], number[], number[]] = [[], [], [], []];
    const letterMatches = (lane: Lane, forward: number[]): number[] => {
      const pairs: number[] = [];
      searchLetters(lane.view(), (at, target) => {
        const end = at + letterTargets[target]!.length;
        pairs.push(at, end);
        if (keyEnds[target]!.length) forward.push(at, end, target);
      });
      return pairs;
    };
    const baseMatches: number[] = [];
    searchBase64(lanes[1].view(), (at, target) => baseMatches.push(at, at + baseTargets[target]!.length));
    // A lane still shadowing holds what lane 0 holds: nothing more to find there.
    const found = [
      letterMatches(lanes[0], forwardFound[0]),
      baseMatches,
      lanes[2].shadowOf ? [] : letterMatches(lanes[2], forwardFound[2]),
      lanes[3].shadowOf ? [] : letterMatches(lanes[3], forwardFound[3]),
    ];
    // Kept for the next call (messages come one after another on one thread), up to 1 MiB each.
    lanes.forEach((lane, index) => {
      if (lane.bytes.length <= SCRATCH_LIMIT) scratch[index] = lane.bytes;
    });
    const matched = new Map<number, number[]>();
    if (!found[0].length && !found[1].length && !found[2].length && !found[3].length) return matched;
    // Each match's share of each piece it touches, in that piece's own skeleton units, per lane.
    const shares = new Map<number, [number[], number[], number[], number[]]>();
    found.forEach((pairs, lane) => {
      const laneStarts = starts[lane]!;
      for (let index = 0; index < pairs.length; index += 2) {
        const start = pairs[index]!;
        const end = pairs[index + 1]!;
        for (
          let piece = lastAtMost(laneStarts, pieces.length, start);
          piece < pieces.length && laneStarts[piece]! < end;
          piece++
        ) {
          const from = Math.max(start, laneStarts[piece]!) - laneStarts[piece]!;
          const to = Math.min(end, laneStarts[piece + 1]!) - laneStarts[piece]!;
          if (to <= from) continue;
          if (!shares.has(piece)) shares.set(piece, [[], [], [], []]);
          shares.get(piece)![lane]!.push(from, to);
        }
      }
    });
    for (const [piece, pieceShares] of shares) {
      // Scanned once more with positions: only the few pieces a match touches.
      const positioned = [new Lane(-1, false), new Lane(-1, false), new Lane(-1, false), new Lane(-1, false)] as const;
      const text = pieces[piece]!;
      scanSkeleton(text, 0, text.length, positioned[0], positioned[1], positioned[2], positioned[3]);
      const offsets: number[] = [];
      pieceShares.forEach((ranges, lane) => {
        for (let index = 0; index < ranges.length; index += 2)
          offsets.push(positioned[lane]!.starts![ranges[index]!]!, positioned[lane]!.ends![ranges[index + 1]! - 1]!);
      });
      // A match of a key itself (not its reverse or hex) takes that key's punctuation at either end along.
      for (const lane of [0, 2, 3] as const) {
        const triples = forwardFound[lane];
        const length = starts[lane][piece + 1]! - starts[lane][piece]!;
        for (let index = 0; index < triples.length; index += 3) {
          const first = triples[index]! - starts[lane][piece]!;
          const last = triples[index + 1]! - 1 - starts[lane][piece]!;
          for (const { leading, trailing } of keyEnds[triples[index + 2]!]!) {
            if (first >= 0 && first < length)
              offsets.push(
                ...widenToKey(text, positioned[lane].starts![first]!, positioned[lane].starts![first]!, leading, ''),
              );
            if (last >= 0 && last < length)
              offsets.push(
                ...widenToKey(text, positioned[lane].ends![last]!, positioned[lane].ends![last]!, '', trailing),
              );
          }
        }
      }
      matched.set(piece, mergeRanges(offsets));
    }
    return matched;
  };

  const text = (input: string): string => {
    const offsets = matchPieces([input]).get(0);
    return offsets ? replaceRanges(input, offsets) : input;
  };
  const value = <T>(input: T, keys = false): T => {
    // Every string (and number, and with `keys` every object key) in document order: one skeleton run over them all.
    // Two runs when keys count: one over the values alone (a key split across `{"a": "sk-can", "b": "ary..."}`
    // is not broken by the member names between), one over names and values (`{"sk-can": "ary..."}`).
    const pieces: string[] = [];
    const valueIndexes: number[] = [];
    const collect = (inner: unknown): void => {
      if (typeof inner === 'string' || typeof inner === 'number') {
        valueIndexes.push(pieces.length);
        pieces.push(String(inner));
      } else if (Array.isArray(inner)) {
        // An array of bytes (a Node Buffer's JSON, `{"type":"Buffer","data":[115,107,...]}`) is read as the text it
        // spells too, one piece before its items; a match there redacts the whole array.
        if (isByteArray(inner)) {
          valueIndexes.push(pieces.length);
          pieces.push(Buffer.from(inner as number[]).toString('utf8'));
        }
        inner.forEach(collect);
      } else if (inner !== null && typeof inner === 'object') {
        for (const [key, member] of Object.entries(inner)) {
          if (keys) pieces.push(key);
          collect(member);
        }
      }
    };
    collect(input);
    let matched = matchPieces(
      valueIndexes.length === pieces.length ? pieces : valueIndexes.map((index) => pieces[index]!),
    );
    if (valueIndexes.length !== pieces.length) {
      const both = matchPieces(pieces);
      const values = matched;
      matched = both;
      for (const [index, offsets] of values) {
        const piece = valueIndexes[index]!;
        matched.set(piece, mergeRanges([...(both.get(piece) ?? []), ...offsets]));
      }
    }
    // Nothing matched (the usual case): the value itself, not a copy.
    if (matched.size === 0) return input;
    let counter = 0;
    const rebuild = (inner: unknown): unknown => {
      if (typeof inner === 'string') {
        const offsets = matched.get(counter++);
        return offsets ? replaceRanges(inner, offsets) : inner;
      }
      // A number any part of which spells part of the key goes whole.
      if (typeof inner === 'number') return matched.has(counter++) ? '[redacted]' : inner;
      if (Array.isArray(inner)) {
        const spelled = isByteArray(inner) && matched.has(counter++);
        const items = inner.map(rebuild);
        return spelled ? '[redacted]' : items;
      }
      if (inner !== null && typeof inner === 'object') {
        // fromEntries defines own properties, so a body key "__proto__" stays a key.
        return Object.fromEntries(
          Object.entries(inner).map(([key, member]) => {
            let shown = key;
            if (keys) {
              const offsets = matched.get(counter++);
              if (offsets) shown = replaceRanges(key, offsets);
            }
            return [shown, rebuild(member)];
          }),
        );
      }
      return inner;
    };
    return rebuild(input) as T;
  };
  const tail = (input: string): string => {
    const out = text(input);
    // Where the cut falls depends on the text's length and on which characters are letters, digits, base64
    // characters or open escapes, never on the key: at least `withheld` characters, and back far enough
    // that the dropped end holds all but one character of the longest target of each skeleton.
    const open = openEscapeStart(out);
    // Only the end is read: a window that doubles until the units needed lie well inside it (or it is the whole text).
    let end = 0;
    for (let window = 4096 + 8 * (withheld + letterNeed); ; window *= 2) {
      const from = Math.max(0, open - window);
      // Letters and digits counted as the nested lane reads them: an escape wrapped in another is one letter, not the digits that spell it.
      const letters = new Lane(Math.max(letterNeed, 1), false);
      const base64 = new Lane(Math.max(baseNeed, 1), false);
      scanSkeleton(out, from, open, new Lane(0, false), base64, new Lane(0, false), letters);
      end = Math.min(Math.max(0, out.length - withheld), open);
      end = Math.min(
        end,
        letters.length >= letterNeed ? (letterNeed ? letters.starts![letters.length % letterNeed]! : open) : 0,
      );
      if (baseNeed) end = Math.min(end, base64.length >= baseNeed ? base64.starts![base64.length % baseNeed]! : 0);
      // An escape cut by the window's start reads differently there; a cut that far from it is read as from the start.
      if (from === 0 || end >= from + 2 * OPEN_ESCAPE_LONGEST) break;
    }
    // Never leave half of a surrogate pair.
    if (end > 0 && /[\ud800-\udbff]/.test(out[end - 1]!)) end--;
    return out.slice(0, end) + WITHHELD_MARK;
  };
  const message = messageRedaction(text, value, true, true);
  return { text, value, tail, withheld, withheldLetters: letterNeed, message };
}

/**
 * Keys whose skeleton (their letters and digits, `keySkeleton`) is shorter than this are matched only in
 * the strict forms: a skeleton match ignores every other character, so a short one would find ordinary
 * words and numbers (an 8-character skeleton is one of 36^8 = 2.8e12 strings, met by chance about once in
 * 10^5 bodies of 8 MiB; at 12, 36^12 = 4.7e18, never in practice, and no real key is that short).
 */
export const SKELETON_MIN_LENGTH = 12;

/** Longest trailing text `Redactor.tail` takes for an escape the cut left open (`%25`, `\u00`, `&#x6`), in characters. */
const OPEN_ESCAPE_LONGEST = 256;

// ASCII tables: the skeleton character of each code (letters lower-cased, digits as they are, 0 for
// the rest), and its base64 character (RFC 4648, 4). Base64url's `-` and `_` (RFC 4648, 5) count for
// nothing, like the `-` or `_` some senders put between groups of standard base64; the key's base64url
// cores are searched without them.
const LETTER_OR_DIGIT = new Uint16Array(128);
const BASE64_CHARACTER = new Uint16Array(128);
for (let code = 48; code < 58; code++) LETTER_OR_DIGIT[code] = BASE64_CHARACTER[code] = code;
for (let code = 65; code < 91; code++) {
  LETTER_OR_DIGIT[code] = code + 32;
  BASE64_CHARACTER[code] = code;
}
for (let code = 97; code < 123; code++) LETTER_OR_DIGIT[code] = BASE64_CHARACTER[code] = code;
BASE64_CHARACTER[43] = 43;
BASE64_CHARACTER[47] = 47;

/**
 * HTML named character references (WHATWG HTML, 13.5) the skeleton decodes: those that stand for
 * letters or digits (`&sopf;` is 𝕤, NFKC `s`; `&sup1;` is ¹), and punctuation, spaces and invisible
 * characters, which stand for nothing in the skeleton. A name not listed stays text (its letters count).
 */
const NAMED_REFERENCES: Map<string, string> = (() => {
  const table = new Map<string, string>();
  for (const letter of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz') {
    for (const family of ['opf', 'scr', 'fr']) table.set(letter + family, letter);
  }
  for (const [name, text] of [
    ['ell', 'l'],
    ['sup1', '1'],
    ['sup2', '2'],
    ['sup3', '3'],
    ['trade', 'TM'],
    ['TRADE', 'TM'],
    ['fflig', 'ff'],
    ['filig', 'fi'],
    ['fllig', 'fl'],
    ['ffilig', 'ffi'],
    ['ffllig', 'ffl'],
    ['ijlig', 'ij'],
    ['IJlig', 'IJ'],
  ])
    table.set(name!, text!);
  const nothing =
    'hyphen dash minus ndash mdash horbar lowbar UnderBar period colon comma plus equals sol bsol excl quest num dollar percnt ast midast lowast lpar rpar lsqb lbrack rsqb rbrack lcub lbrace rcub rbrace verbar vert VerticalLine tilde Hat grave DiacriticalGrave apos quot QUOT lt LT gt GT amp AMP nbsp NonBreakingSpace shy zwj zwnj ZeroWidthSpace NegativeThinSpace NegativeMediumSpace NegativeThickSpace NegativeVeryThinSpace NoBreak semi commat Tab NewLine ensp emsp emsp13 emsp14 thinsp hairsp numsp puncsp MediumSpace ThinSpace VeryThinSpace hybull bull bullet middot centerdot CenterDot sdot ic InvisibleComma it InvisibleTimes af ApplyFunction copy reg sect para pound yen cent euro deg times divide laquo raquo lsquo rsquo ldquo rdquo sbquo bdquo hellip mldr nldr prime Prime oline frasl iexcl iquest brvbar uml macr acute cedil not plusmn lrm rlm';
  for (const name of nothing.split(' ')) table.set(name, '');
  // Characters that start or continue another escape stand for themselves, so `&bsol;163` and `&percnt;73`
  // are read as `\163` and `%73` (`nestedEscapeEnd`); in the skeletons they still add nothing.
  for (const [name, text] of [
    ['bsol', '\\'],
    ['percnt', '%'],
    ['equals', '='],
    ['amp', '&'],
    ['AMP', '&'],
    ['num', '#'],
    ['semi', ';'],
    ['lcub', '{'],
    ['lbrace', '{'],
    ['rcub', '}'],
    ['rbrace', '}'],
  ])
    table.set(name!, text!);
  return table;
})();

/** What one non-ASCII code point adds to each skeleton, as UTF-8 bytes. */
type Folded = { letters: Uint8Array; base64: Uint8Array };
const ASTRAL_CACHE_LIMIT = 65536;
// Every BMP code point's fold, once computed; astral ones up to a bound (the text chooses which appear).
const bmpFolds: (Folded | undefined)[] = new Array(65536);
const astralFolds = new Map<number, Folded>();
// Letters and digits that render as nothing (Hangul fillers U+115F, U+1160, U+3164, U+FFA0 are letters by category,
// but default-ignorable, Unicode 15.1 DerivedCoreProperties) count for nothing, like zero-width characters.
const LETTER_OR_DIGIT_PATTERN = /^(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{N}]$/u;

const NOTHING = new Uint8Array(0);

/** The UTF-8 bytes of a short well-formed text (a folded character), without a Buffer's set-up cost. */
function utf8(text: string): Uint8Array {
  const bytes: number[] = [];
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Uint8Array.from(bytes);
}

/**
 * What a non-ASCII code point adds to the two skeletons: its NFKC form (Unicode UAX #15: fullwidth `ｓ`,
 * mathematical `𝐬`, ligature `ﬁ` become `s`, `s`, `fi`) case-folded and cut to letters and digits, and
 * its base64 characters (case kept), each as UTF-8 bytes; a tag character (U+E0020 to U+E007E) as the ASCII character
 * it spells. Zero-width, soft hyphen, combining marks and
 * other punctuation add nothing. Cached (every BMP code point, 65,536 astral ones), so a long text folds
 * at the cost of a lookup per character.
 */
function foldCodePoint(codePoint: number): Folded {
  const cached = codePoint < 65536 ? bmpFolds[codePoint] : astralFolds.get(codePoint);
  if (cached) return cached;
  let letters = '';
  let base64 = '';
  // A tag character (U+E0020 to U+E007E) renders as nothing but spells its ASCII character to a model that reads it.
  const read = codePoint >= 0xe0020 && codePoint <= 0xe007e ? codePoint - 0xe0000 : codePoint;
  for (const character of String.fromCodePoint(read).normalize('NFKC')) {
    const code = character.codePointAt(0)!;
    if (code < 128) {
      if (LETTER_OR_DIGIT[code]) letters += String.fromCharCode(LETTER_OR_DIGIT[code]!);
      if (BASE64_CHARACTER[code]) base64 += String.fromCharCode(BASE64_CHARACTER[code]!);
    } else if (LETTER_OR_DIGIT_PATTERN.test(character)) {
      for (const lower of character.toLowerCase()) if (LETTER_OR_DIGIT_PATTERN.test(lower)) letters += lower;
    }
  }
  const folded: Folded = { letters: letters ? utf8(letters) : NOTHING, base64: base64 ? utf8(base64) : NOTHING };
  if (codePoint < 65536) bmpFolds[codePoint] = folded;
  else if (astralFolds.size < ASTRAL_CACHE_LIMIT) astralFolds.set(codePoint, folded);
  return folded;
}

/**
 * One skeleton of a text: its characters as UTF-8 bytes, in order (so a native byte search finds a
 * target), and optionally where each byte came from: the start and end (UTF-16 offsets) of the text it
 * was decoded from. `ring` > 0 keeps only the positions of the last `ring` bytes (for
 * `Redactor.tail`); 0 keeps none, -1 keeps all. `keepBytes` false counts bytes without keeping them.
 */
class Lane {
  bytes: Buffer;
  length = 0;
  starts: Int32Array | undefined;
  ends: Int32Array | undefined;
  ring: number;
  keepBytes: boolean;
  /**
   * While set, this lane holds what that lane holds, unwritten (the escapes-as-written lane is the decoded
   * one until a text has an escape with letters or digits in it); `unshadow` makes the copy then.
   */
  shadowOf: Lane | undefined;
  /** For the nested lane: where the inner escape last read ends; characters before it are already taken (UTF-16 offset). */
  until = 0;
  constructor(ring: number, keepBytes: boolean, capacity = 256, shadowOf?: Lane, reuse?: Buffer) {
    this.shadowOf = shadowOf;
    this.ring = ring;
    this.keepBytes = keepBytes;
    this.bytes = reuse && reuse.length >= capacity ? reuse : Buffer.allocUnsafe(keepBytes ? Math.max(capacity, 16) : 0);
    if (ring !== 0) {
      this.starts = new Int32Array(ring > 0 ? ring : 256);
      this.ends = new Int32Array(ring > 0 ? ring : 256);
    }
  }
  push(byte: number, start: number, end: number): void {
    if (this.shadowOf) return;
    if (this.keepBytes) {
      if (this.length === this.bytes.length) {
        const grown = Buffer.allocUnsafe(this.bytes.length * 2);
        this.bytes.copy(grown);
        this.bytes = grown;
      }
      this.bytes[this.length] = byte;
    }
    if (this.starts) this.position(start, end);
    this.length++;
  }
  position(start: number, end: number): void {
    let slot = this.length;
    if (this.ring > 0) slot %= this.ring;
    else if (slot === this.starts!.length) {
      const starts = new Int32Array(slot * 2);
      const ends = new Int32Array(slot * 2);
      starts.set(this.starts!);
      ends.set(this.ends!);
      this.starts = starts;
      this.ends = ends;
    }
    this.starts![slot] = start;
    this.ends![slot] = end;
  }
  /** Appends `bytes` (a folded character's UTF-8), every byte from `start` to `end`. */
  pushBytes(bytes: Uint8Array, start: number, end: number): void {
    for (let index = 0; index < bytes.length; index++) this.push(bytes[index]!, start, end);
  }
  /** Its length, shadowed or not. */
  size(): number {
    return this.shadowOf ? this.shadowOf.length : this.length;
  }
  /** Stops shadowing: copies the shadowed lane's bytes, to be written on from here. */
  unshadow(): void {
    const shadowed = this.shadowOf!;
    this.shadowOf = undefined;
    if (this.bytes.length < shadowed.bytes.length) this.bytes = Buffer.allocUnsafe(shadowed.bytes.length);
    shadowed.bytes.copy(this.bytes, 0, 0, shadowed.length);
    this.length = shadowed.length;
  }
  /** The bytes kept so far. */
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

const isHexCode = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
const hexValue = (code: number) => (code <= 57 ? code - 48 : (code | 32) - 87);

/** Whether the four characters from `at` are hex digits. */
function isHexQuad(text: string, at: number): boolean {
  return (
    isHexCode(text.charCodeAt(at)) &&
    isHexCode(text.charCodeAt(at + 1)) &&
    isHexCode(text.charCodeAt(at + 2)) &&
    isHexCode(text.charCodeAt(at + 3))
  );
}

// What the escape `escapeEnd` recognised stands for ('' for nothing the skeleton keeps).
let escaped = '';

/** A percent-encoded byte at `at`, encoded once or more (`%73`, `%2573`, `%252573`): its end, or `at`; the byte in `percentByte`. */
let percentByte = 0;
function percentEnd(text: string, at: number): number {
  let next = at + 1;
  while (text.charCodeAt(next) === 50 && text.charCodeAt(next + 1) === 53) next += 2;
  if (isHexCode(text.charCodeAt(next)) && isHexCode(text.charCodeAt(next + 1))) {
    percentByte = hexValue(text.charCodeAt(next)) * 16 + hexValue(text.charCodeAt(next + 1));
    return next + 2;
  }
  if (next > at + 1) {
    // `%25` not followed by two hex digits is a percent sign.
    percentByte = 0x25;
    return next;
  }
  return at;
}

/** A byte escape at `at`: percent-encoded (`percentEnd`) or quoted-printable `=XX` (RFC 2045, 6.7); its end, or `at`; the byte in `percentByte`. */
function byteEnd(text: string, at: number): number {
  if (text.charCodeAt(at) === 37) return percentEnd(text, at);
  if (!isHexCode(text.charCodeAt(at + 1)) || !isHexCode(text.charCodeAt(at + 2))) return at;
  percentByte = hexValue(text.charCodeAt(at + 1)) * 16 + hexValue(text.charCodeAt(at + 2));
  return at + 3;
}

/** JavaScript `escape()`'s `%uXXXX` at `at`, its `%` encoded once or more (`%25u0073`): its end, or `at`; the UTF-16 unit in `percentUnit`. */
let percentUnit = 0;
function percentUnitEnd(text: string, at: number): number {
  let next = at + 1;
  while (text.charCodeAt(next) === 50 && text.charCodeAt(next + 1) === 53) next += 2;
  if ((text.charCodeAt(next) | 32) !== 117 || !isHexQuad(text, next + 1)) return at;
  percentUnit = parseInt(text.slice(next + 1, next + 5), 16);
  return next + 5;
}

/**
 * A byte written as C and JavaScript write one, at `at`: `0xXX`, or behind any number of backslashes
 * `\xXX` or octal `\7` to `\377` (up to three digits while the value stays below 256: `\400` is a space
 * and `0`). Its end, or `at`; the byte in `percentByte`.
 */
function codeByteEnd(text: string, at: number): number {
  if (text.charCodeAt(at) === 48) {
    if (
      (text.charCodeAt(at + 1) | 32) !== 120 ||
      !isHexCode(text.charCodeAt(at + 2)) ||
      !isHexCode(text.charCodeAt(at + 3))
    )
      return at;
    return paddedHexByteEnd(text, at + 2);
  }
  let next = at;
  while (text.charCodeAt(next) === 92) next++;
  if (next === at) return at;
  const code = text.charCodeAt(next);
  if ((code | 32) === 120 && isHexCode(text.charCodeAt(next + 1)) && isHexCode(text.charCodeAt(next + 2))) {
    return paddedHexByteEnd(text, next + 1);
  }
  if (code < 48 || code > 55) return at;
  let value = code - 48;
  let digit = next + 1;
  while (digit - next < 3) {
    const octal = text.charCodeAt(digit) - 48;
    if (!(octal >= 0 && octal <= 7) || value * 8 + octal > 255) break;
    value = value * 8 + octal;
    digit++;
  }
  percentByte = value;
  return digit;
}

/**
 * A byte written as two hex digits from `at` (`73` of `0x73`, `\x73`), or with leading zeros as C and hex dumps
 * write it (`0x073`, `0x00000073`, `\x073`): a run of up to `MAX_PADDED_HEX` digits whose value is a byte is read
 * whole; any other run gives its first two digits. Sets `percentByte`; returns where the byte ends.
 */
function paddedHexByteEnd(text: string, at: number): number {
  let end = at;
  let value = 0;
  while (end - at < MAX_PADDED_HEX && isHexCode(text.charCodeAt(end)))
    value = Math.min(value * 16 + hexValue(text.charCodeAt(end++)), 0x100);
  if (end - at > 2 && value < 0x100) {
    percentByte = value;
    return end;
  }
  percentByte = hexValue(text.charCodeAt(at)) * 16 + hexValue(text.charCodeAt(at + 1));
  return at + 2;
}

/** Most hex digits a padded byte (`0x00000073`) is read from. */
const MAX_PADDED_HEX = 16;

/**
 * Sets `escaped` for a byte escape read up to `end` (its byte in `percentByte`), and returns where the
 * escape ends: an ASCII byte is its character; a UTF-8 lead byte followed by continuation bytes written
 * with escapes of the same kind (starting with `first`, read by `read`) is the character they encode
 * (`%EF%BD%93`, `=EF=BD=93`, `\xef\xbd\x93`, `\357\275\223` are `ｓ`); any other byte stands for `lone`.
 */
function utf8Escapes(
  text: string,
  end: number,
  first: number,
  read: (text: string, at: number) => number,
  lone: string,
): number {
  const lead = percentByte;
  if (lead < 0x80) {
    escaped = String.fromCharCode(lead);
    return end;
  }
  const following = lead >= 0xf0 && lead <= 0xf4 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc2 && lead < 0xe0 ? 1 : 0;
  escaped = lone;
  if (following === 0) return end;
  let codePoint = lead & (0x3f >> following);
  let next = end;
  for (let index = 0; index < following; index++) {
    if (text.charCodeAt(next) !== first) return end;
    const after = read(text, next);
    if (after === next || (percentByte & 0xc0) !== 0x80) return end;
    codePoint = codePoint * 64 + (percentByte & 0x3f);
    next = after;
  }
  if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint < 0xe000)) return end;
  escaped = String.fromCodePoint(codePoint);
  return next;
}

/**
 * The end of an escape starting at `at` (`%`, `=`, `\`, `&` or `0x`), with what it stands for in
 * `escaped`, or `at` when none starts there. Percent-encoding of UTF-8 (RFC 3986, 2.1) to any depth, and
 * `%uXXXX` (ECMAScript, B.2.1.1 `escape`) behind `%25` repeated; quoted-printable `=XX` of UTF-8 (RFC
 * 2045, 6.7); JSON and JavaScript escapes `\uXXXX` (surrogate pairs joined), `\u{X}` to `\u{XXXXXX}`,
 * `\xXX`, octal `\7` to `\377`, `\n`, `\r`, `\t` behind any number of backslashes (RFC 8259, 7;
 * ECMAScript, 12.9.4); HTML character references, numeric or named, escaped as `&amp;` to any depth
 * (WHATWG HTML, 13.5); `0xXX`, one byte as C and JavaScript write a hex literal. `\x`, octal and `0x`
 * stand for the UTF-8 character they spell with more of the same kind (`\xef\xbd\x93` is `ｓ`), else
 * for the code point of their value (below 256). Each step is bounded, so a text is scanned in linear
 * time.
 */
function escapeEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 37) {
    const end = percentUnitEnd(text, at);
    if (end > at) {
      const high = percentUnit;
      escaped = String.fromCharCode(high);
      if (high >= 0xd800 && high < 0xdc00 && text.charCodeAt(end) === 37) {
        const low = percentUnitEnd(text, end);
        if (low > end && percentUnit >= 0xdc00 && percentUnit < 0xe000) {
          escaped += String.fromCharCode(percentUnit);
          return low;
        }
      }
      if (high >= 0xd800 && high < 0xe000) escaped = '';
      return end;
    }
  }
  if (first === 37 || first === 61) {
    const end = byteEnd(text, at);
    return end === at ? at : utf8Escapes(text, end, first, byteEnd, '');
  }
  if (first === 48) {
    const end = codeByteEnd(text, at);
    return end === at ? at : utf8Escapes(text, end, first, codeByteEnd, String.fromCharCode(percentByte));
  }
  if (first === 92) {
    let next = at;
    while (text.charCodeAt(next) === 92) next++;
    const letter = text.charCodeAt(next) | 32;
    if (text.charCodeAt(next) === 85 && isHexQuad(text, next + 1) && isHexQuad(text, next + 5)) {
      // `\U00000073` (Python, C): a code point in eight hex digits; past U+10FFFF it is read as `\UXXXX` and text.
      const value = parseInt(text.slice(next + 1, next + 9), 16);
      if (value <= 0x10ffff) {
        escaped = !(value >= 0xd800 && value < 0xe000) ? String.fromCodePoint(value) : '';
        return next + 9;
      }
    }
    if (letter === 117 && isHexQuad(text, next + 1)) {
      const unit = parseInt(text.slice(next + 1, next + 5), 16);
      escaped = String.fromCharCode(unit);
      const end = next + 5;
      if (unit >= 0xd800 && unit < 0xdc00 && text.charCodeAt(end) === 92) {
        let low = end;
        while (text.charCodeAt(low) === 92) low++;
        if ((text.charCodeAt(low) | 32) === 117 && /^[dD][c-fC-F][0-9A-Fa-f]{2}$/.test(text.slice(low + 1, low + 5))) {
          escaped += String.fromCharCode(parseInt(text.slice(low + 1, low + 5), 16));
          return low + 5;
        }
      }
      if (unit >= 0xd800 && unit < 0xe000) escaped = '';
      return end;
    }
    if ((letter === 117 || letter === 120) && text.charCodeAt(next + 1) === 123) {
      // `\u{73}` (JavaScript), `\x{73}` (Perl, PHP): hex digits between braces, leading zeros allowed (JavaScript
      // takes any number); up to `MAX_BRACED_DIGITS` are read, so no run of digits costs more than that.
      let digit = next + 2;
      let value = 0;
      while (digit - next - 2 < MAX_BRACED_DIGITS && isHexCode(text.charCodeAt(digit)))
        value = Math.min(value * 16 + hexValue(text.charCodeAt(digit++)), 0x110000);
      if (digit > next + 2 && text.charCodeAt(digit) === 125) {
        escaped = value <= 0x10ffff && !(value >= 0xd800 && value < 0xe000) ? String.fromCodePoint(value) : '';
        return digit + 1;
      }
    }
    const byteStop = codeByteEnd(text, at);
    if (byteStop > at) return utf8Escapes(text, byteStop, first, codeByteEnd, String.fromCharCode(percentByte));
    const code = text.charCodeAt(next);
    escaped = '';
    // `\n`, `\r`, `\t`: a line break or tab written as an escape stands for nothing, like the character.
    return code === 110 || code === 114 || code === 116 ? next + 1 : next;
  }
  if (first === 38) {
    let next = at + 1;
    while (text.startsWith('amp;', next)) next += 4;
    if (text.charCodeAt(next) === 35) {
      const hex = (text.charCodeAt(next + 1) | 32) === 120;
      let digit = next + (hex ? 2 : 1);
      let value = 0;
      const begin = digit;
      // Leading zeros (`&#000000115;`, `&#x000000073;`) are read too, up to 32 of them, before the 8 digits that count.
      while (digit - begin < 32 && text.charCodeAt(digit) === 48 && text.charCodeAt(digit + 1) === 48) digit++;
      const significant = digit;
      while (
        digit - significant < 8 &&
        (hex ? isHexCode(text.charCodeAt(digit)) : text.charCodeAt(digit) >= 48 && text.charCodeAt(digit) <= 57)
      ) {
        value = value * (hex ? 16 : 10) + hexValue(text.charCodeAt(digit));
        digit++;
      }
      if (digit > begin) {
        escaped = value <= 0x10ffff && !(value >= 0xd800 && value < 0xe000) ? String.fromCodePoint(value) : '';
        return text.charCodeAt(digit) === 59 ? digit + 1 : digit;
      }
    }
    let name = next;
    while (name - next < 32 && LETTER_OR_DIGIT[text.charCodeAt(name)]) name++;
    if (name > next && text.charCodeAt(name) === 59) {
      const named = NAMED_REFERENCES.get(text.slice(next, name));
      if (named !== undefined) {
        escaped = named;
        return name + 1;
      }
    }
    // `&amp;` (to any depth) before something else: an ampersand.
    escaped = '';
    return next > at + 1 ? next : at;
  }
  return at;
}

/**
 * The most characters `nestedEscapeEnd` reads, once decoded, for an inner escape starting with each
 * character, one more than the longest it takes: `%`, `&` 24 (`&amp;#x0000073;`, `%252525u0073`), `\`
 * 16 (`\u{000000000073}`), `=` 4 (`=73`); 0 for any other text.
 */
function nestedWindow(outer: string): number {
  const code = outer.charCodeAt(0);
  return code === 37 || code === 38 ? 24 : code === 92 ? MAX_BRACED_DIGITS + 4 : code === 61 ? 4 : 0;
}

/** Most hex digits read between the braces of `\u{…}` / `\x{…}`: any code point with leading zeros up to that width. */
const MAX_BRACED_DIGITS = 12;

// Where each character of `nestedEscapeEnd`'s window ends in the text it was read from.
const nestedEnds = new Int32Array(32);

// What the inner escape `nestedEscapeEnd` recognised stands for.
let nestedEscaped = '';

// The last escape `nestedEscapeEnd` read: the text, where it starts and ends, and what it stands for.
let memoText = '';
let memoAt = -1;
let memoEnd = -1;
let memoEscaped = '';

/** Whether a character (code) can stand inside an escape after its first character: a letter, digit, `#`, `;`, `{` or `}`. */
const isEscapeInner = (code: number) =>
  code < 128 && (LETTER_OR_DIGIT[code] !== 0 || code === 35 || code === 59 || code === 123 || code === 125);

/**
 * One kind of escape wrapped in another (`%26%23115%3B` is `&#115;` percent-encoded, `&#x25;73` is `%73`
 * with its `%` as an HTML reference): when the escape ending at `from` stands for `outer` (`%`, `=`, `\`
 * or `&`), the text from `from` is read one escape or character at a time (`escapeEnd`, not nested
 * again) while each stands for letters, digits, `#`, `;`, `{` or `}`, up to `NESTED_WINDOW` characters
 * and not past `to`, and `outer` with what was read is read once more as an escape. One layer only: a
 * backslash wrapped before another (`%5C%5Cu0073`) is not read.
 * @returns Where the inner escape ends in `text` (what it stands for in `nestedEscaped`, never ''), or -1.
 */
function nestedEscapeEnd(text: string, outer: string, from: number, to: number): number {
  const limit = outer.length === 1 ? nestedWindow(outer) : 0;
  if (limit === 0 || from >= to) return -1;
  let window = outer;
  nestedEnds[0] = from;
  let next = from;
  let whole = true;
  while (next < to) {
    if (window.length >= limit) {
      whole = false;
      break;
    }
    const code = text.charCodeAt(next);
    if (code !== 37 && code !== 61 && code !== 92 && code !== 38 && code !== 48) {
      // A character standing for itself (the usual case): no escape to read.
      if (!isEscapeInner(code)) break;
      window += text[next]!;
      nestedEnds[window.length - 1] = ++next;
      continue;
    }
    const stop = escapeEnd(text, next);
    // Kept for `scanToken`, which reads this escape next when the window stops here.
    memoText = text;
    memoAt = next;
    memoEnd = stop;
    memoEscaped = escaped;
    const piece = stop > next ? escaped : text[next]!;
    const end = stop > next ? stop : next + 1;
    if (end > to || piece === '') break;
    let fits = true;
    for (let index = 0; index < piece.length && fits; index++) fits = isEscapeInner(piece.charCodeAt(index));
    if (!fits || window.length + piece.length > limit) break;
    window += piece;
    for (let index = window.length - piece.length; index < window.length; index++) nestedEnds[index] = end;
    next = end;
  }
  if (window.length < 2) return -1;
  const inner = escapeEnd(window, 0);
  // An escape the window cut short may read differently whole: not taken.
  if (inner <= 1 || escaped === '' || (!whole && inner >= window.length)) return -1;
  nestedEscaped = escaped;
  return nestedEnds[inner - 1]!;
}

/**
 * Appends the skeletons of `text` from `from` to `to` (UTF-16 offsets): to `letters` its letters and
 * digits, case-folded and NFKC-folded, after decoding escapes (`escapeEnd`); to `base64` its base64
 * characters, case kept, after the same decoding (quoted-printable and `0x` escapes as written: `=` and
 * hex digits are base64 text; base64url's `-` and `_` count for nothing); to `raw` its letters and digits
 * with escapes read as written (`%2573` as `2573`), so text that happens to end in `%25` or `&#` before
 * the key, and turns its first characters into an escape, does not hide it; to `nested` its letters and
 * digits as `letters` has them, but with one escape wrapped in another read as the inner one
 * (`nestedEscapeEnd`), so an escape wrapped before the key's first characters does not hide it from
 * `letters`. Everything else (spaces, line breaks, punctuation, zero-width characters, soft hyphens) adds
 * nothing. Linear in the text's length.
 */
function scanSkeleton(
  text: string,
  from: number,
  to: number,
  letters: Lane,
  base64: Lane,
  raw: Lane,
  nested: Lane,
): void {
  nested.until = from;
  if (
    letters.starts ||
    base64.starts ||
    raw.starts ||
    nested.starts ||
    !letters.keepBytes ||
    !base64.keepBytes ||
    !raw.keepBytes ||
    !nested.keepBytes
  ) {
    for (let at = from; at < to;) at = scanToken(text, at, to, letters, base64, raw, nested);
    return;
  }
  // The hot path, inlined with the lanes' bytes in locals: most text is ASCII letters, digits and punctuation.
  let letterBytes = letters.bytes;
  let letterLength = letters.length;
  let baseBytes = base64.bytes;
  let baseLength = base64.length;
  let rawBytes = raw.bytes;
  let rawLength = raw.length;
  let shadowing = raw.shadowOf !== undefined;
  let nestedBytes = nested.bytes;
  let nestedLength = nested.length;
  let nestedShadowing = nested.shadowOf !== undefined;
  let nestedUntil = nested.until;
  let at = from;
  while (at < to) {
    const code = text.charCodeAt(at);
    // `=` and `0` start an escape only before two hex digits or `x` (`=2D`, `0x2d`): checked here, as they are common in text.
    if (
      code < 128 &&
      code !== 37 &&
      code !== 92 &&
      code !== 38 &&
      !(code === 61 && isHexCode(text.charCodeAt(at + 1)) && isHexCode(text.charCodeAt(at + 2))) &&
      !(code === 48 && (text.charCodeAt(at + 1) | 32) === 120) &&
      letterLength < letterBytes.length &&
      baseLength < baseBytes.length &&
      (shadowing || rawLength < rawBytes.length) &&
      (nestedShadowing || (at >= nestedUntil && nestedLength < nestedBytes.length))
    ) {
      const letter = LETTER_OR_DIGIT[code]!;
      if (letter !== 0) {
        letterBytes[letterLength++] = letter;
        if (!shadowing) rawBytes[rawLength++] = letter;
        if (!nestedShadowing) nestedBytes[nestedLength++] = letter;
      }
      const base = BASE64_CHARACTER[code]!;
      if (base !== 0) baseBytes[baseLength++] = base;
      at++;
      continue;
    }
    letters.length = letterLength;
    base64.length = baseLength;
    raw.length = rawLength;
    nested.length = nestedLength;
    at = scanToken(text, at, to, letters, base64, raw, nested);
    letterBytes = letters.bytes;
    letterLength = letters.length;
    baseBytes = base64.bytes;
    baseLength = base64.length;
    rawBytes = raw.bytes;
    rawLength = raw.length;
    shadowing = raw.shadowOf !== undefined;
    nestedBytes = nested.bytes;
    nestedLength = nested.length;
    nestedShadowing = nested.shadowOf !== undefined;
    nestedUntil = nested.until;
  }
  letters.length = letterLength;
  base64.length = baseLength;
  raw.length = rawLength;
  nested.length = nestedLength;
}

/** `scanSkeleton` for the one character or escape at `at`; returns where the next one starts. */
function scanToken(text: string, at: number, to: number, letters: Lane, base64: Lane, raw: Lane, nested: Lane): number {
  const code = text.charCodeAt(at);
  if (code < 128) {
    if (code === 37 || code === 92 || code === 38 || code === 61 || code === 48) {
      const memo = memoAt === at && memoText === text;
      const end = Math.min(memo ? memoEnd : escapeEnd(text, at), to);
      if (end > at) {
        const value = memo ? memoEscaped : escaped;
        if (raw.shadowOf) {
          let written = false;
          for (let index = at; index < end && !written; index++)
            written = LETTER_OR_DIGIT[text.charCodeAt(index)]! !== 0;
          if (written) raw.unshadow();
        }
        // Before `letters` takes this escape: the nested lane copies `letters` as it stands when it stops shadowing.
        if (at >= nested.until) {
          const nestedEnd = value.length === 1 ? nestedEscapeEnd(text, value, end, to) : -1;
          if (nestedEnd > 0) {
            if (nested.shadowOf) nested.unshadow();
            nested.until = nestedEnd;
            emitText(nestedEscaped, at, nestedEnd, nested, undefined);
          } else if (!nested.shadowOf) {
            emitText(value, at, end, nested, undefined);
          }
        }
        // `=XX` and `0xXX` are base64 text as written; `%`, `\` and `&` are not base64 characters, so their escapes are read decoded.
        const written = code === 61 || code === 48;
        emitText(value, at, end, letters, written ? undefined : base64);
        // Escapes are ASCII: their letters and digits as written.
        for (let index = at; index < end; index++) {
          const character = text.charCodeAt(index);
          const letter = LETTER_OR_DIGIT[character]!;
          if (letter) raw.push(letter, index, index + 1);
          if (written && BASE64_CHARACTER[character]) base64.push(BASE64_CHARACTER[character]!, index, index + 1);
        }
        return end;
      }
    }
    emitCodePoint(code, at, at + 1, letters, base64, raw);
    if (!nested.shadowOf && at >= nested.until) emitCodePoint(code, at, at + 1, nested, undefined, undefined);
    return at + 1;
  }
  let end = at + 1;
  let codePoint = code;
  if (code >= 0xd800 && code < 0xdc00 && end < to) {
    const low = text.charCodeAt(end);
    if (low >= 0xdc00 && low < 0xe000) {
      codePoint = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      end++;
    }
  }
  if (codePoint < 0xd800 || codePoint >= 0xe000) {
    emitCodePoint(codePoint, at, end, letters, base64, raw);
    if (!nested.shadowOf && at >= nested.until) emitCodePoint(codePoint, at, end, nested, undefined, undefined);
  }
  return end;
}

/** `emitCodePoint` for each character of a decoded escape (`escaped`), all from `start` to `end`. */
function emitText(value: string, start: number, end: number, letters: Lane, base64: Lane | undefined): void {
  if (value.length === 1) emitCodePoint(value.charCodeAt(0), start, end, letters, base64, undefined);
  else for (const character of value) emitCodePoint(character.codePointAt(0)!, start, end, letters, base64, undefined);
}

/** Appends what one character (decoded) adds to each skeleton given; to `raw` as to `letters`, when given. */
function emitCodePoint(
  codePoint: number,
  start: number,
  end: number,
  letters: Lane,
  base64: Lane | undefined,
  raw: Lane | undefined,
): void {
  if (codePoint < 128) {
    const letter = LETTER_OR_DIGIT[codePoint]!;
    if (letter) {
      letters.push(letter, start, end);
      raw?.push(letter, start, end);
    }
    if (base64 && BASE64_CHARACTER[codePoint]) base64.push(BASE64_CHARACTER[codePoint]!, start, end);
    return;
  }
  const folded = foldCodePoint(codePoint);
  if (folded.letters.length) {
    letters.pushBytes(folded.letters, start, end);
    raw?.pushBytes(folded.letters, start, end);
  }
  if (base64 && folded.base64.length) base64.pushBytes(folded.base64, start, end);
}

// The shapes of an escape the cut left open: each could still become a longer escape, or a different one.
const OPEN_ESCAPES = [
  /^%(?:25)*(?:[0-9A-Fa-f]|[uU][0-9A-Fa-f]{0,3})?$/,
  /^\\+(?:[uU](?:[0-9A-Fa-f]{0,7}|\{[0-9A-Fa-f]{0,12})|[xX](?:[0-9A-Fa-f]{0,15}|\{[0-9A-Fa-f]{0,12})|[0-7]{1,2})?$/,
  /^&(?:amp;)*(?:#[xX]?[0-9A-Fa-f]{0,40}|[A-Za-z][A-Za-z0-9]{0,31})?$/,
  /^=[0-9A-Fa-f]?$/,
  /^0(?:[xX][0-9A-Fa-f]{0,15})?$/,
];

/**
 * Where a text ends in an escape the cut left open (`%`, `%25`, `%2`, `%u00`, `=2`, `\`, `\u00`, `\u{7`,
 * `\16`, `0x7`, `&amp;#x6`, `&hyph`), also wrapped in another escape (`%26%2311`: `&#11` percent-encoded),
 * as the offset it starts at, or the text's length. Only the last 256 characters are looked at.
 */
function openEscapeStart(text: string): number {
  for (let at = Math.max(0, text.length - OPEN_ESCAPE_LONGEST); at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code !== 37 && code !== 92 && code !== 38 && code !== 61 && code !== 48) continue;
    const rest = text.slice(at);
    if (OPEN_ESCAPES.some((shape) => shape.test(rest))) return at;
    const end = escapeEnd(text, at);
    if (end === at || (escaped !== '%' && escaped !== '&' && escaped !== '\\' && escaped !== '=')) continue;
    // An escape standing for the start of another: the rest read one escape at a time, as `nestedEscapeEnd` reads it.
    let inner = escaped;
    for (let next = end; next < text.length;) {
      const stop = escapeEnd(text, next);
      inner += stop > next ? escaped : text[next]!;
      next = stop > next ? stop : next + 1;
    }
    if (OPEN_ESCAPES.some((shape) => shape.test(inner))) return at;
  }
  return text.length;
}

/** The skeleton of the key: its letters and digits, NFKC-folded and case-folded, as `scanSkeleton` reads text. */
export function keySkeleton(secret: string): string {
  return keySkeletons(secret)[0];
}

/** The key's skeleton (`keySkeleton`), and its letters and digits with escapes read as written (`0x41` as `0x41`, not `a`). */
function keySkeletons(secret: string): [string, string] {
  const letters = new Lane(0, true);
  const written = new Lane(0, true);
  scanSkeleton(secret, 0, secret.length, letters, new Lane(0, false), written, new Lane(0, false));
  return [letters.view().toString('utf8'), written.view().toString('utf8')];
}

/** Whether an array holds only whole numbers from 0 to 255, at least `SKELETON_MIN_LENGTH` of them: bytes that may spell text. */
function isByteArray(items: unknown[]): boolean {
  if (items.length < SKELETON_MIN_LENGTH) return false;
  for (const item of items)
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 0 || item > 255) return false;
  return true;
}

/** Merges `[start, end)` pairs (flat) into sorted, disjoint pairs. */
function mergeRanges(flat: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let index = 0; index < flat.length; index += 2) pairs.push([flat[index]!, flat[index + 1]!]);
  pairs.sort((left, right) => left[0] - right[0]);
  const merged: number[] = [];
  for (const [start, end] of pairs) {
    if (merged.length && start <= merged[merged.length - 1]!)
      merged[merged.length - 1] = Math.max(merged[merged.length - 1]!, end);
    else merged.push(start, end);
  }
  return merged;
}

/** Targets searched one by one with the native byte search, up to this many; past it, one pass for all (`targetSearch`). */
const FEW_TARGETS = 16;

/** Multiplier of the rolling hash `targetSearch` runs over a skeleton. */
const HASH_BASE = 0x01000193;

/**
 * A search for every target at once in a skeleton's bytes: it calls `found(at, target)` for each occurrence of each
 * target (its start and its index in `targets`), in no set order. Up to `FEW_TARGETS` targets (one or a few keys),
 * `Buffer.indexOf` per target; past that, one pass whatever their number: a rolling hash of the bytes as wide as the
 * shortest target, looked up in a bit filter and then in a table of the targets' first bytes, each candidate compared
 * whole. Linear in the skeleton's length while few keys share those first bytes (a key's skeleton is at least
 * `SKELETON_MIN_LENGTH` letters and digits, so the window takes in its random part); keys that share them all are
 * each compared where those bytes occur.
 */
function targetSearch(targets: readonly Buffer[]): (lane: Buffer, found: (at: number, target: number) => void) => void {
  if (targets.length <= FEW_TARGETS)
    return (lane, found) =>
      targets.forEach((target, index) => {
        for (let at = lane.indexOf(target); at !== -1; at = lane.indexOf(target, at + 1)) found(at, index);
      });
  const width = Math.min(...targets.map((target) => target.length));
  let power = 1;
  for (let index = 1; index < width; index++) power = Math.imul(power, HASH_BASE);
  const hashOf = (bytes: Buffer, from: number) => {
    let hash = 0;
    for (let index = from; index < from + width; index++) hash = (Math.imul(hash, HASH_BASE) + bytes[index]!) | 0;
    return hash;
  };
  // 2^20 bits, one per value of the hash's top 20 bits: most windows are turned away by one bit test.
  const filter = new Uint32Array(1 << 15);
  const buckets = new Map<number, number[]>();
  targets.forEach((target, index) => {
    const hash = hashOf(target, 0);
    const bit = hash >>> 12;
    filter[bit >>> 5]! |= 1 << (bit & 31);
    const bucket = buckets.get(hash);
    if (bucket) bucket.push(index);
    else buckets.set(hash, [index]);
  });
  return (lane, found) => {
    if (lane.length < width) return;
    let hash = hashOf(lane, 0);
    for (let at = 0; ; at++) {
      const bit = hash >>> 12;
      if (filter[bit >>> 5]! & (1 << (bit & 31)))
        for (const index of buckets.get(hash) ?? []) {
          const target = targets[index]!;
          if (at + target.length <= lane.length && lane.compare(target, 0, target.length, at, at + target.length) === 0)
            found(at, index);
        }
      if (at + width >= lane.length) return;
      hash = (Math.imul(hash - Math.imul(lane[at]!, power), HASH_BASE) + lane[at + width]!) | 0;
    }
  };
}

/**
 * Widens a match of the key's skeleton over the key's own characters before its first and after its
 * last letter or digit (`/+"\` of `canary-9c41/+"\`), where the text has them next to it: after, as
 * written or escaped (`\"`, `%2F`); before, as written. Case-insensitive, like the match.
 * @returns The widened `[start, end)` UTF-16 offsets.
 */
function widenToKey(text: string, start: number, end: number, leading: string, trailing: string): [number, number] {
  let after = end;
  for (const character of trailing) {
    if (after >= text.length) break;
    if (text[after] === '\\') {
      // A run of backslashes: a backslash of the key at some depth of escaping, or the escape of the next character (`\"`).
      let run = after;
      while (text[run] === '\\' && run - after < 8) run++;
      if (character === '\\') after = run;
      else if (text[run] === character) after = run + 1;
      else break;
      continue;
    }
    const escapeStop = text[after] === '%' || text[after] === '&' ? escapeEnd(text, after) : after;
    const written = escapeStop > after ? escaped : text[after]!;
    if (written.toLowerCase() !== character.toLowerCase()) break;
    after = escapeStop > after ? escapeStop : after + 1;
  }
  let before = start;
  for (let index = leading.length - 1; index >= 0 && before > 0; index--) {
    if (text[before - 1]!.toLowerCase() !== leading[index]!.toLowerCase()) break;
    before--;
  }
  return [before, after];
}

/**
 * The document source as it may be printed: for a URL (`scheme://...`), user name and password
 * (raw or percent-encoded) become `***`, the whole query (names and values: a bare `?t0ken123` is a
 * secret too) becomes `?***`, and the fragment is dropped; a file path is returned as it is. Used
 * for stderr, the start-up line, notes and error texts (issue 8: `OPENAPI_DOC` secrets are never
 * printed).
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
    const parts = [
      url.password,
      url.username,
      url.search.slice(1),
      url.hash.slice(1),
      ...url.search.slice(1).split(/[&;=]/),
      ...matrix,
      ...matrix.flatMap((part) => part.split(/[;=]/)),
    ];
    const secrets = [
      ...new Set(parts.flatMap((part) => [part, decodedOrSelf(part), decodedOrSelf(part.replace(/\+/g, ' '))])),
    ]
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
