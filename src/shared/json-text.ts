/**
 * JSON text and parsed JSON measured without recursion: how deep a text nests and how many values it holds, before
 * it is parsed (`measureJsonText`), and how deep a parsed value nests (`nestingDepth`). Pure; no imports.
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
      // The whole string at once: its end is the first quote not escaped by an odd run of backslashes.
      const start = index;
      let end = text.indexOf('"', index + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
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
