/**
 * The shape an agent would infer from one body: a JSON Schema of what that body happens to hold, every key it has
 * taken as required. Linear in the body. The contract compares it with what later bodies show.
 */
import { jsonType } from '../../validate.ts';
import type { JsonObject } from '../../validate.ts';
import { isPlainObject } from '../shared/values.ts';

/**
 * A shape being inferred, merged in place: linear in the body (merging copies of the shapes of array elements
 * with distinct keys would be quadratic). `required` holds the keys every object seen had.
 */
type ShapeAcc = { types: Set<string>; properties?: Map<string, ShapeAcc>; required?: Set<string>; items?: ShapeAcc };

function accOf(v: unknown, depth: number): ShapeAcc {
  if (depth > 256) return { types: new Set() };
  if (Array.isArray(v)) {
    const out: ShapeAcc = { types: new Set(['array']) };
    if (v.length > 0) {
      const items = accOf(v[0], depth + 1);
      for (let i = 1; i < v.length; i++) mergeInto(items, accOf(v[i], depth + 1));
      out.items = items;
    }
    return out;
  }
  if (isPlainObject(v)) {
    const properties = new Map<string, ShapeAcc>();
    for (const k of Object.keys(v)) properties.set(k, accOf(v[k], depth + 1));
    return { types: new Set(['object']), properties, required: new Set(properties.keys()) };
  }
  return { types: new Set([jsonType(v)]) };
}

function mergeInto(a: ShapeAcc, b: ShapeAcc): void {
  for (const t of b.types) a.types.add(t);
  if (b.properties) {
    if (!a.properties) {
      // A side that was not an object does not vote on `required`.
      a.properties = b.properties;
      a.required = b.required;
    } else {
      for (const [k, shape] of b.properties) {
        const known = a.properties.get(k);
        if (known) mergeInto(known, shape);
        else a.properties.set(k, shape);
      }
      // Only shrinks: each key is dropped once, or kept because b has it (linear overall).
      for (const k of a.required!) if (!b.properties.has(k)) a.required!.delete(k);
    }
  }
  if (b.items) {
    if (a.items) mergeInto(a.items, b.items);
    else a.items = b.items;
  }
}

function schemaOfAcc(acc: ShapeAcc): JsonObject {
  let types = [...acc.types];
  if (types.includes('number')) types = types.filter((t) => t !== 'integer'); // an integer is a number
  const out: JsonObject = types.length === 0 ? {} : { type: types.length === 1 ? types[0] : types };
  if (acc.properties) {
    const properties: JsonObject = {};
    for (const [k, shape] of acc.properties) properties[k] = schemaOfAcc(shape);
    out.properties = properties;
    out.required = [...acc.properties.keys()].filter((k) => acc.required!.has(k));
    out.additionalProperties = false;
  }
  if (acc.items) out.items = schemaOfAcc(acc.items);
  return out;
}

/**
 * The JSON Schema a naive client would write from ONE example body: every field seen is required, types
 * as seen (`null` gives type 'null', integral numbers 'integer'), objects closed with
 * `additionalProperties: false`, array `items` from the first element merged with the others (types
 * united, a field required only if every element had it). An empty array gets no `items`.
 * Check another body with `check({}, inferShape(first), other)` to see what that client gets wrong.
 * @returns A JSON Schema 2020-12 object. Never throws on JSON data.
 */
export function inferShape(body: unknown): unknown {
  return schemaOfAcc(accOf(body, 0));
}
