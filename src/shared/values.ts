/**
 * Small facts about untrusted values: their JSON type in words, and whether one is a plain object. Pure; no imports.
 */

/** A value's JSON type as a noun phrase for error texts: `null`, `an array`, `an object`, `the string "x"`, `a number`. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** True for an object that is not null and not an array: a JSON object as `JSON.parse` makes it. */
export function isPlainObject(value: unknown): value is Record<string, any> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
