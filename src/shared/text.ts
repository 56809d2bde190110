/**
 * Text helpers for untrusted strings: cut to a length without splitting a character, counted in code points,
 * compared by edit distance, percent-decoded without throwing. Pure; no imports.
 */

/**
 * A string from a document, a body or an agent cut to `max` characters (UTF-16 code units, never splitting a
 * surrogate pair), with `… (N more characters)` after the cut; shorter strings as they are.
 */
export function boundedText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** Length in code points (JSON Schema 2020-12 §6.3.1): a surrogate pair counts once, a lone surrogate once. */
export function codePoints(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `decodeURIComponent`, or undefined for malformed percent-encoding (RFC 3986, 2.1). */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The Levenshtein distance of two strings (insertions, deletions and substitutions of UTF-16 code units), or
 * `limit + 1` as soon as it must be more than `limit`: the length difference, or a row of the table with no
 * cell within it, stops the count. Time is the product of the lengths at most: callers bound them.
 * @param limit The largest distance worth knowing; default no limit.
 * @returns The distance when at most `limit`, else `limit + 1`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (current[j]! < rowMin) rowMin = current[j]!;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
