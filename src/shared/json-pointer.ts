/**
 * JSON Pointer (RFC 6901) and instance paths: escaping a reference token, looking a pointer up in a value, and
 * writing where in a body a value sits (`$.items[0]['x-id']`). Pure; no imports but the text helpers.
 */
import { boundedText, safeDecode } from './text.ts';
import { isPlainObject } from './values.ts';

/** Escapes one JSON Pointer reference token: `~` becomes `~0`, then `/` becomes `~1` (RFC 6901, 3). */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token; // the common case, without two regex passes
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one JSON Pointer reference token: `~1` becomes `/`, then `~0` becomes `~`, so `~01` is `~1` (RFC 6901, 4). */
export function unescapePointerToken(token: string): string {
  if (!token.includes('~')) return token; // the common case, without two regex passes
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A JSON Pointer token that names an array element (RFC 6901 section 4: no leading zeros). */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Result of `lookupPointer`: the value, or why there is none (agent-facing, names the pointer). */
export type PointerLookup = { found: true; value: unknown } | { found: false; reason: string };

/**
 * Looks up a local JSON Pointer in a document (RFC 6901; as a URI fragment per RFC 6901 section 6, so
 * `#/a%20b` is percent-decoded first; a fragment whose percent-encoding is malformed, such as `#/100%`,
 * is read as raw text rather than rejected). In each token `~1` becomes `/` and then `~0` becomes `~`,
 * so `~01` is the name `~1`. Array elements are addressed by decimal index. Iterative, so deep
 * documents do not overflow the stack.
 * @param ref `#`, `#/components/schemas/Pet`, or a bare pointer `/components/schemas/Pet`.
 * @returns `{found: true, value}`, or `{found: false, reason}` when the pointer is not local
 *   (`other.yaml#/X`, `https://...`), is malformed, or points nowhere. Never throws.
 */
export function lookupPointer(root: unknown, ref: string): PointerLookup {
  let pointer: string;
  if (ref.startsWith('#')) {
    pointer = ref.includes('%') ? (safeDecode(ref.slice(1)) ?? ref.slice(1)) : ref.slice(1);
  } else if (ref === '' || ref.startsWith('/')) {
    pointer = ref;
  } else {
    return {
      found: false,
      reason: `Cannot resolve \`${ref}\`: not a local JSON Pointer (expected \`#/...\`); external references must be bundled first`,
    };
  }
  if (pointer === '') return { found: true, value: root };
  if (!pointer.startsWith('/'))
    return { found: false, reason: `Cannot resolve \`${ref}\`: a JSON Pointer must start with \`/\`` };
  let value: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapePointerToken(raw);
    if (Array.isArray(value) && ARRAY_INDEX.test(token) && Number(token) < value.length) {
      value = value[Number(token)];
    } else if (isPlainObject(value) && Object.prototype.hasOwnProperty.call(value, token)) {
      value = value[token];
    } else {
      return { found: false, reason: `Cannot resolve \`${ref}\`: nothing at \`${token}\`` };
    }
  }
  return { found: true, value };
}

/**
 * Resolves a local JSON Pointer as `lookupPointer` does, for callers that treat a miss as unusable input.
 * @returns The value pointed at (may be any JSON value).
 * @throws Error with `lookupPointer`'s reason when the pointer is not local, is malformed, or points nowhere.
 */
export function resolvePointer(root: unknown, ref: string): unknown {
  const hit = lookupPointer(root, ref);
  if (!hit.found) throw new Error(hit.reason);
  return hit.value;
}

/**
 * Formats an instance path: `$` then `.name` for identifier-like names, `[0]` for array indexes and
 * `['x-id']` (single quotes, `\` and `'` backslash-escaped) for any other name.
 * @param segments Property names and array indexes from the root, e.g. `['a', 0, 'x-id']`.
 * @returns The path, e.g. `$.a[0]['x-id']`; `$` for no segments. Never throws.
 */
export function instancePath(segments: (string | number)[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
      continue;
    }
    // A member name from the API, the agent or the document may be megabytes long: each is cut to
    // MAX_PATH_SEGMENT characters, so a path (in every finding and list) stays small.
    const s = boundedText(segment, MAX_PATH_SEGMENT);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += `.${s}`;
    else out += `['${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
  }
  return out;
}

/** The longest member name an instance path spells out, in characters; longer ones end "… (N more characters)". */
export const MAX_PATH_SEGMENT = 1000;
