/**
 * JSON text and parsed JSON measured without recursion: how deep a text nests and how many values it holds, before
 * it is parsed (`measureJsonText`), how deep a parsed value nests (`nestingDepth`), and where a text failed to parse
 * without quoting it (`unquotedParseError`). Pure; no imports.
 */

/**
 * A remark about the body itself, in the shape of a finding (`severity: 'warning'`): the value a
 * client sees depends on its parser. `values` holds short previews of the JSON texts involved.
 */
export type BodyWarning = {
  kind: 'duplicateName' | 'tooDeep' | 'inexactNumber';
  severity: 'warning';
  /** Instance path of the member or value, e.g. `$.reading`. */
  path: string;
  /** The rule: `RFC 8259, 4` (names), `RFC 8259, 6` (numbers), `RFC 8259, 9` (depth). */
  rule: string;
  values?: string[];
  message: string;
};

/**
 * Every number of a JSON text that `JSON.parse` changes (RFC 8259, 6: past 2^53, past the double range, more digits
 * than a double keeps), for checking each as written. `written`: instance path and the number's text, for texts of at
 * most `MAX_WRITTEN_NUMBER` characters. `unknown`: instance paths of longer ones, whose text is not kept. `unlisted`:
 * the list stopped (`MAX_CHANGED_NUMBERS_TEXT` characters of paths and texts), so any number not listed may have
 * changed too. Plain arrays, so the list survives structured cloning and redaction unchanged.
 */
export type ChangedNumbers = { written: [path: string, text: string][]; unknown: string[]; unlisted: boolean };

/**
 * The longest number text kept exactly, in characters: comparing decimals is linear in it, but `multipleOf` makes a
 * BigInt of it, which costs about 10 µs at this length and grows with its square.
 */
export const MAX_WRITTEN_NUMBER = 1000;

/** How many characters of instance paths and texts `ChangedNumbers` holds in all before it stops (`unlisted`). */
export const MAX_CHANGED_NUMBERS_TEXT = 1_000_000;

/** How deep parsed JSON may nest before it is returned as text: deeper values overflow the stack of JSON.stringify and the checks. */
export const MAX_BODY_DEPTH = 256;

/** Where a member's value sits in a JSON text (`measureJsonText`): `text.slice(start, end)`, and how deep it nests (1 for `{}`). */
export type MemberSpan = { start: number; end: number; depth: number };

/**
 * The size of a JSON text's tree before it is parsed: its deepest nesting of arrays and objects, how
 * many values it holds (the root, and one per array element or object member: a comma, or the first
 * item of a non-empty container, outside strings), and the top-level member `id` when it is a string
 * or a number (the last one, as `JSON.parse` would keep it). One pass over the characters, so a caller
 * can refuse a text whose parse alone would hold the thread (a million nested arrays: about 0.5 s of
 * `JSON.parse`; 500,000 empty objects: about 0.15 s) and still answer its JSON-RPC id. Does not check
 * the grammar (`JSON.parse` still does); for valid JSON the counts are exact.
 *
 * With `members`, the same pass also finds where the object or array value at each of those member paths
 * sits (`["params", "arguments", "body"]` is `.params.arguments.body`; names read as `JSON.parse` reads
 * them, escapes included), so a caller can pass that value on as text without serializing it again. As
 * `JSON.parse` does, the last of duplicate names counts: a later member of the same name, or of a name on
 * the way to it, drops what an earlier one gave. A value that is not an object or array gets no span.
 * @param members Member paths of at most 8 names each, below a top-level object.
 * @returns `{depth, values, id?, spans?}`; `depth` 0 for a scalar; `spans[i]` is the span of `members[i]`, when found.
 *   Valid only for a text `JSON.parse` accepts.
 */
export function measureJsonText(
  text: string,
  members: readonly (readonly string[])[] = [],
): { depth: number; values: number; id?: string | number; spans?: (MemberSpan | undefined)[] } {
  const length = text.length;
  const array = text.charCodeAt(0) === 0x5b;
  let depth = 0;
  let deepest = 0;
  let values = 1;
  let opened = false; // a container was just opened: its next value counts as its first item
  let previous = 0; // the last structural character (or 0x22 after a string), to tell a member name from a value
  let idState = 0; // 1: the name `id` was read, 2: then its colon; the next value is the id
  let id: string | number | undefined;
  // Member paths: the name of the member being read at each depth (while every container above is an object).
  const tracked = members.length > 0 && text.trimStart().startsWith('{');
  const longest = tracked ? Math.min(8, Math.max(...members.map((path) => path.length))) : 0;
  const names: string[] = [];
  const objects: boolean[] = [];
  let valueFor = -1; // the next value starts the span of members[valueFor]
  let open = -1; // the span being read: members[open]
  let openDepth = 0;
  let openDeepest = 0;
  let openStart = 0;
  const spans: (MemberSpan | undefined)[] = members.map(() => undefined);
  // The first backslash at or after where it was last searched from, -1 for none there: strings search for it only
  // when they start past it, so the searches never cover the same text twice.
  let slash = 0;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    const kind = code < 128 ? CHARACTER_KINDS[code]! : OTHER;
    if (kind === SPACE) continue;
    if (kind === OTHER) {
      // Inside a number or a literal: only the first character of a value matters, and only when something waits for it.
      if (opened || idState !== 0 || valueFor !== -1) {
        if (opened) values++;
        opened = false;
        if (idState === 2) {
          const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 32));
          if (number) id = Number(number[0]);
        }
        idState = 0;
        valueFor = -1;
      }
      continue;
    }
    if (opened && kind !== CLOSE) values++;
    opened = false;
    if (kind === QUOTE) {
      // The whole string at once: its end is the next quote when no backslash comes before it (one native search
      // each); else the characters from that backslash on are read one by one, each escape skipped whole, so text
      // dense with escaped quotes costs one step per character, not one search and a run count per quote (issue 18).
      const start = index;
      let end = text.indexOf('"', index + 1);
      if (slash !== -1 && slash <= index) slash = text.indexOf('\\', index + 1);
      if (slash !== -1 && end !== -1 && slash < end) end = closingQuote(text, slash);
      if (end === -1) end = length;
      index = end;
      const isName = previous === 0x7b || previous === 0x2c;
      previous = 0x22;
      if (idState === 2) {
        try {
          id = JSON.parse(text.slice(start, end + 1)) as string;
        } catch {
          // not a valid string: no id
        }
      }
      idState =
        isName &&
        depth === 1 &&
        !array &&
        end - start === 3 &&
        text.charCodeAt(start + 1) === 0x69 &&
        text.charCodeAt(start + 2) === 0x64
          ? 1
          : 0;
      valueFor = -1;
      if (isName && tracked && depth <= longest && objects[depth] === true && names.length >= depth - 1) {
        names.length = depth - 1;
        let name: string;
        try {
          name = memberName(text, start, end + 1);
        } catch {
          name = text.slice(start + 1, end); // a broken escape: JSON.parse refuses the text anyway
        }
        names.push(name);
        for (let which = 0; which < members.length; which++) {
          const path = members[which]!;
          if (!startsWith(path, names)) continue;
          // A later member of this name replaces the earlier value, and everything found inside it.
          spans[which] = undefined;
          if (path.length === names.length) valueFor = which;
        }
      }
      continue;
    }
    if (kind === COLON) {
      if (idState === 1) idState = 2;
      previous = code;
      continue;
    }
    idState = 0;
    if (kind === OPEN) {
      if (valueFor !== -1) {
        open = valueFor;
        openDepth = depth;
        openDeepest = 0;
        openStart = index;
        valueFor = -1;
      }
      opened = true;
      if (++depth > deepest) deepest = depth;
      if (tracked && depth <= longest) objects[depth] = code === 0x7b && (depth === 1 || objects[depth - 1] === true);
      if (open !== -1 && depth - openDepth > openDeepest) openDeepest = depth - openDepth;
    } else if (kind === CLOSE) {
      depth--;
      if (open !== -1 && depth === openDepth) {
        spans[open] = { start: openStart, end: index + 1, depth: openDeepest };
        open = -1;
      }
      // Past the top (more closers than openers: not JSON, which JSON.parse then refuses) nothing is named.
      if (tracked && names.length > depth) names.length = Math.max(depth, 0);
    } else values++; // a comma
    valueFor = -1;
    previous = code;
  }
  const size: { depth: number; values: number; id?: string | number; spans?: (MemberSpan | undefined)[] } = {
    depth: deepest,
    values,
  };
  if (id !== undefined) size.id = id;
  if (members.length > 0) size.spans = spans;
  return size;
}

/**
 * Where the string whose body goes on at `from` ends: the index of its closing quote, read one character at a time
 * with each escape skipped whole, or `text.length` when it is not closed. A small function of its own, so the engine
 * optimizes its loop soon, long before a megabyte of escapes is read.
 */
function closingQuote(text: string, from: number): number {
  const length = text.length;
  let index = from;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index;
    index += code === 0x5c ? 2 : 1;
  }
  return length;
}

// The kinds of characters `measureJsonText` tells apart outside strings.
const OTHER = 0;
const SPACE = 1;
const QUOTE = 2;
const OPEN = 3;
const CLOSE = 4;
const COMMA = 5;
const COLON = 6;
const CHARACTER_KINDS = (() => {
  const kinds = new Uint8Array(128);
  for (const code of [0x20, 0x0a, 0x0d, 0x09]) kinds[code] = SPACE;
  kinds[0x22] = QUOTE;
  kinds[0x5b] = OPEN;
  kinds[0x7b] = OPEN;
  kinds[0x5d] = CLOSE;
  kinds[0x7d] = CLOSE;
  kinds[0x2c] = COMMA;
  kinds[0x3a] = COLON;
  return kinds;
})();

/** The member name of the string literal text[start, end), unescaped only when it holds a backslash. */
export function memberName(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/** True when `path` begins with every name of `prefix`, in order. */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let index = 0; index < prefix.length; index++) if (path[index] !== prefix[index]) return false;
  return true;
}

/** Depth of nested arrays and objects, counted without recursion. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    // Only containers are pushed: a value of 150,000 leaves costs no pair per leaf (issue 8).
    for (const inner of Object.values(current))
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
  }
  return deepest;
}

/** A JSON number's text, whole (RFC 8259, 6). */
export const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The start of the string that stands, while a message is handled, for an integer request id past 2^53 (which a
 * double cannot hold exactly): followed by the id's JSON text as the client wrote it. `encode` (src/mcp/wire.ts)
 * writes it back as that text, so such a request is refused under its own id instead of null.
 */
export const OVERSIZED_ID_PREFIX = '\u0000openapi-probe oversized id:';

/** The JSON text of the integer id past 2^53 that `id` stands for (`OVERSIZED_ID_PREFIX`), else undefined. */
export function oversizedIdText(id: unknown): string | undefined {
  return typeof id === 'string' && id.startsWith(OVERSIZED_ID_PREFIX)
    ? id.slice(OVERSIZED_ID_PREFIX.length)
    : undefined;
}

/** Most request ids `createIdScanner` keeps from one batch; the elements past it get no reply of their own. */
export const MAX_SCANNED_IDS = 1000;

/** Longest request id `createIdScanner` keeps, in characters of JSON text; a longer one is not kept. */
export const MAX_SCANNED_ID_TEXT = 256;

/**
 * Reads the request ids out of a JSON-RPC message's text without parsing or keeping it, in pieces as they arrive: the
 * top-level `id` member of an object, or, for a batch (a top-level array), the `id` of each element object, in order
 * (JSON-RPC 2.0, 4 and 6). As `JSON.parse` does, a later `id` member of the same object replaces an earlier one. Only
 * string and integer ids are kept (MCP 2025-11-25, Base Protocol: a request id is a string or an integer); at most
 * `MAX_SCANNED_IDS` of them, each at most `MAX_SCANNED_ID_TEXT` characters long. Memory stays within those bounds
 * whatever the text's length, so a message too long to parse can still be answered under its own id.
 * @returns `feed(piece)` to read the next piece of text; `ids()` for what was read so far (each id once per element,
 *   batch elements without an id left out); `idAt(element)`, the id of a batch's `element`-th object or array
 *   (counted from 0; elements of other types are not counted), or of a single message at -1; `batch()`, whether the
 *   text is an array. Never throws.
 */
export function createIdScanner(): {
  feed(piece: string): void;
  ids(): (string | number)[];
  idAt(element: number): string | number | undefined;
  batch(): boolean;
} {
  let root = 0; // 0x7b or 0x5b once the first character is read
  let depth = 0;
  let level = 1; // the depth of the objects whose `id` counts: 1, or 2 inside a batch
  let member = false; // the container at `level` is an object whose members count (inside the root array, for a batch)
  let inString = false;
  let escaped = false;
  let capture: string | undefined; // the text of the string being read, when it may be a member name or an id
  let nameNext = false; // the next string at the member level is a member name
  let name: string | undefined; // the member name just read at the member level, until its value starts
  let idValue = false; // the next value at the member level is the `id` member's
  let number = ''; // the text of an id that is a number, while it is read
  let element = -1; // the batch element being read
  let done = false; // the top-level value has closed, or is no object or array: nothing more is read
  const found = new Map<number, string | number>(); // element (or -1 for a single message) to its id

  const keep = (id: string | number) => {
    if (found.size < MAX_SCANNED_IDS || found.has(element)) found.set(element, id);
  };
  const endNumber = () => {
    const value = Number(number);
    // A request id is a string or an integer (MCP 2025-11-25, Base Protocol); anything else is answered with id null.
    // As the session reads the parsed message: any JSON number whose value is a safe integer (`8.0` and `8e0` are 8).
    if (JSON_NUMBER.test(number)) {
      if (Number.isSafeInteger(value)) keep(value);
      // An integer past 2^53: kept as written (`OVERSIZED_ID_PREFIX`), so its refusal goes out under its own id.
      else if (Number.isInteger(value)) keep(OVERSIZED_ID_PREFIX + number);
    }
    number = '';
    idValue = false;
  };
  const endString = (text: string) => {
    if (nameNext && name === undefined) {
      try {
        name = text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text;
      } catch {
        name = text;
      }
      nameNext = false;
    } else if (idValue) {
      try {
        keep(JSON.parse(`"${text}"`) as string);
      } catch {
        // not a valid string: no id
      }
      idValue = false;
    }
  };

  return {
    feed(piece) {
      if (done) return;
      const length = piece.length;
      let index = 0;
      while (index < length) {
        if (inString) {
          if (escaped) {
            escaped = false;
            if (capture !== undefined) capture += piece[index];
            index++;
          }
          // The closing quote: the first quote after an even run of backslashes. Only the characters from `index` on
          // are unread, and no escape is pending, so the run is counted from the quote back to `index`.
          let end = piece.indexOf('"', index);
          while (end !== -1) {
            let slashes = 0;
            while (end - 1 - slashes >= index && piece.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
            if (slashes % 2 === 0) break;
            end = piece.indexOf('"', end + 1);
          }
          if (end === -1) {
            // The string goes on in the next piece; an odd run of backslashes at the end escapes its first character.
            let slashes = 0;
            while (length - 1 - slashes >= index && piece.charCodeAt(length - 1 - slashes) === 0x5c) slashes++;
            escaped = slashes % 2 === 1;
            if (capture !== undefined) {
              capture += escaped ? piece.slice(index, length - 1) + '\\' : piece.slice(index);
              if (capture.length > MAX_SCANNED_ID_TEXT) capture = undefined;
            }
            return;
          }
          if (capture !== undefined) {
            const text = capture + piece.slice(index, end);
            capture = undefined;
            if (text.length <= MAX_SCANNED_ID_TEXT) endString(text);
            else idValue = false;
          }
          inString = false;
          index = end + 1;
          continue;
        }
        const code = piece.charCodeAt(index);
        const kind = code < 128 ? CHARACTER_KINDS[code]! : OTHER;
        index++;
        if (kind === SPACE) {
          if (number !== '') endNumber();
          continue;
        }
        if (root === 0) {
          if (code === 0xfeff) continue; // a BOM before the message (RFC 8259, 8.1)
          // A message that is no object or array names no request: text after it must not lend one an id.
          if (kind !== OPEN) {
            done = true;
            return;
          }
          root = code;
          level = code === 0x5b ? 2 : 1;
        }
        if (kind === OTHER) {
          if (number !== '') {
            number += piece[index - 1];
            if (number.length > MAX_SCANNED_ID_TEXT) {
              number = '';
              idValue = false;
            }
          } else if (idValue && depth === level && member) {
            if ((code >= 0x30 && code <= 0x39) || code === 0x2d) number = piece[index - 1]!;
            else idValue = false; // true, false, null: no id
          }
          continue;
        }
        if (number !== '') endNumber();
        if (kind === QUOTE) {
          inString = true;
          capture = depth === level && member && (nameNext || idValue) ? '' : undefined;
          continue;
        }
        if (kind === OPEN) {
          depth++;
          if (depth === level) {
            member = code === 0x7b && (level === 1 || root === 0x5b);
            if (level === 2) element++;
          }
          nameNext = depth === level && member;
          name = undefined;
          idValue = false;
          continue;
        }
        if (kind === CLOSE) {
          depth--;
          if (depth === 0) {
            // The message has ended: whatever follows (not JSON) lends it no other id.
            done = true;
            return;
          }
          nameNext = false;
          name = undefined;
          idValue = false;
          continue;
        }
        if (depth !== level || !member) continue;
        if (kind === COLON) {
          idValue = name === 'id';
          // A later `id` member replaces the earlier one, as JSON.parse keeps the last: an id that is not kept leaves none.
          if (idValue) found.delete(element);
          name = undefined;
        } else {
          // a comma: the next member's name follows
          nameNext = true;
          name = undefined;
          idValue = false;
        }
      }
    },
    ids() {
      if (number !== '') endNumber();
      return [...found.entries()].sort((first, second) => first[0] - second[0]).map(([, id]) => id);
    },
    idAt(at) {
      if (number !== '') endNumber();
      return found.get(at);
    },
    batch: () => root === 0x5b,
  };
}

/**
 * A JSON.parse failure without the text it quotes: V8 repeats up to ten characters of the input
 * (`Unexpected token 's', "sk-live-ab"... is not valid JSON`), which in a fixture, a
 * baseline or the OpenAPI document may be a credential (issue 18).
 * @returns `it does not parse at position 6` when the message names a position, else `it does not parse`.
 */
export function unquotedParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const position = /\bposition (\d+)/.exec(message)?.[1];
  const line = /\bline (\d+) column (\d+)/.exec(message);
  if (line) return `it does not parse at line ${line[1]} column ${line[2]}`;
  return position ? `it does not parse at position ${position}` : 'it does not parse';
}
