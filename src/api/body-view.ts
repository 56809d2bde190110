/**
 * What of a checked body goes back to the agent: a view that fits a byte budget and is still valid
 * JSON (long arrays cut to their first items, long strings and objects cut, each cut marked with what
 * was left out), and `select`, which picks one part by JSONPath-like instance path or JSON Pointer.
 * No MCP, no network; only `node:` imports.
 */
import { instancePath, unescapePointerToken } from '../shared/json-pointer.ts';

/** A view of a body: the value shown and whether anything was left out. */
export type BodyView = { value: unknown; cut: boolean; bytes: number };

/** Limits tried in turn, loosest first: items kept per array, members per object, characters per string. */
const TIERS: { items: number; members: number; characters: number }[] = [
  { items: 100, members: 200, characters: 4000 },
  { items: 50, members: 100, characters: 2000 },
  { items: 20, members: 50, characters: 1000 },
  { items: 10, members: 30, characters: 400 },
  { items: 5, members: 20, characters: 200 },
  { items: 3, members: 12, characters: 100 },
  { items: 2, members: 8, characters: 60 },
  { items: 1, members: 5, characters: 40 },
  { items: 1, members: 3, characters: 20 },
];

/** Bytes of a value's JSON text (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function cutString(text: string, characters: number): string {
  if (text.length <= characters) return text;
  let end = characters;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end--;
  return `${text.slice(0, end)}… ${text.length - end} more characters`;
}

function shrink(value: unknown, tier: (typeof TIERS)[number], depth: number): unknown {
  if (typeof value === 'string') return cutString(value, tier.characters);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 300) return '… not shown (nested too deep)';
  if (Array.isArray(value)) {
    const kept = value.slice(0, tier.items).map((item) => shrink(item, tier, depth + 1));
    if (value.length > tier.items) kept.push(`… ${value.length - tier.items} more items`);
    return kept;
  }
  const entries = Object.entries(value);
  const out: [string, unknown][] = entries
    .slice(0, tier.members)
    .map(([key, inner]) => [key, shrink(inner, tier, depth + 1)]);
  if (entries.length > tier.members) out.push(['…', `${entries.length - tier.members} more members`]);
  return Object.fromEntries(out);
}

/**
 * Fits a body into `maxBytes` of JSON text. A value that fits is returned whole (`cut: false`).
 * Otherwise the loosest of a fixed list of limits that fits is applied: arrays keep their first items
 * and end in a string `"… 27 more items"`, objects keep their first members and gain a member
 * `"…": "12 more members"`, strings keep their first characters and end in `"… 4810 more characters"`.
 * Cut positions depend on sizes alone, never on content. When even the strictest limits do not fit,
 * the value is the string `"… body of N bytes not shown: too large for PROBE_MAX_BYTES even cut; use select"`.
 * A text body is cut to `maxBytes` bytes of UTF-8 at a character boundary, marked the same way.
 * @param value Parsed JSON or text, already cleaned of the key.
 * @param maxBytes The budget in bytes (`PROBE_MAX_BYTES`).
 * @returns The view, whether it was cut, and its JSON size in bytes. Never throws.
 */
export function fitView(value: unknown, maxBytes: number): BodyView {
  const whole = jsonBytes(value);
  if (whole <= maxBytes) return { value, cut: false, bytes: whole };
  if (typeof value === 'string') {
    const marker = ` more characters`;
    // Start from the budget less room for the marker, then shrink by the measured ratio (escapes and multi-byte characters).
    let characters = Math.max(0, maxBytes - 40);
    let shown = cutString(value, characters);
    for (let bytes = jsonBytes(shown); characters > 0 && bytes > maxBytes; bytes = jsonBytes(shown)) {
      characters = Math.min(characters - 1, Math.floor((characters * (maxBytes - 40)) / bytes));
      shown = cutString(value, Math.max(0, characters));
    }
    if (jsonBytes(shown) > maxBytes) shown = `… ${value.length}${marker}`.slice(0, Math.max(0, maxBytes - 2));
    return { value: shown, cut: true, bytes: jsonBytes(shown) };
  }
  for (const tier of TIERS) {
    const shown = shrink(value, tier, 0);
    const bytes = jsonBytes(shown);
    if (bytes <= maxBytes) return { value: shown, cut: true, bytes };
  }
  const note = `… body of ${whole} bytes not shown: too large for PROBE_MAX_BYTES even cut; use select`;
  return { value: note, cut: true, bytes: jsonBytes(note) };
}

/** A parsed `select` expression: the segments from the root, or the reason it does not parse. */
export type Selector = { segments: (string | number)[]; shown: string } | { problem: string };

/**
 * Parses `select`: an instance path as results print it (`$`, `$.items[0].name`, `$['x-id']`) or a
 * JSON Pointer (RFC 6901: `/items/0/name`, `~1` for `/`, `~0` for `~`; `` for the whole body).
 * @returns The segments and the expression in instance-path form, or `{problem}`. Never throws.
 */
export function parseSelect(select: string): Selector {
  if (select === '' || select === '$') return { segments: [], shown: '$' };
  if (select.startsWith('/')) {
    // An all-digit token indexes an array; `selectPart` also reads it as a member name of an object.
    const segments = select
      .slice(1)
      .split('/')
      .map((token) => unescapePointerToken(token))
      .map((token) => (/^(0|[1-9]\d{0,8})$/.test(token) ? Number(token) : token));
    return { segments, shown: instancePath(segments) };
  }
  if (!select.startsWith('$'))
    return {
      problem: `\`select\` ${JSON.stringify(select)} is neither an instance path ("$.items[0]") nor a JSON Pointer ("/items/0").`,
    };
  const segments: (string | number)[] = [];
  const token = /\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let index = 1;
  while (index < select.length) {
    token.lastIndex = index;
    const match = token.exec(select);
    if (!match)
      return {
        problem: `\`select\` ${JSON.stringify(select)} does not parse at character ${index + 1}; write it as "$.items[0].name" or "$['x-id']".`,
      };
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push((match[3] ?? match[4]!).replace(/\\(.)/g, '$1'));
    index = token.lastIndex;
  }
  return { segments, shown: instancePath(segments) };
}

/**
 * Picks one part of a parsed body. A numeric segment indexes an array; a JSON Pointer token that is
 * all digits indexes an array too and names a member of an object.
 * @returns `{found: true, value}` or `{found: false, problem}` naming the first segment that is missing. Never throws.
 */
export function selectPart(
  body: unknown,
  segments: (string | number)[],
): { found: true; value: unknown } | { found: false; problem: string } {
  let current = body;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const at = instancePath(segments.slice(0, index));
    if (Array.isArray(current)) {
      const position =
        typeof segment === 'number' ? segment : /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : Number.NaN;
      if (!Number.isInteger(position))
        return { found: false, problem: `${at} is an array; index it with a number, e.g. ${at}[0].` };
      if (position >= current.length)
        return { found: false, problem: `${at} has ${current.length} item(s); there is no ${at}[${position}].` };
      current = current[position];
    } else if (current !== null && typeof current === 'object') {
      const name = String(segment);
      if (!Object.hasOwn(current, name))
        return { found: false, problem: `${instancePath(segments.slice(0, index + 1))} is not in the body.` };
      current = (current as Record<string, unknown>)[name];
    } else {
      return {
        found: false,
        problem: `${at} is ${current === null ? 'null' : `a ${typeof current}`}, so ${instancePath(segments.slice(0, index + 1))} does not exist.`,
      };
    }
  }
  return { found: true, value: current };
}
