/**
 * `$ref`s inside one document: following a chain of local references to its target (RFC 6901 pointers, loops and
 * over-long chains reported, never thrown), and the Responses Object entry for a status (OpenAPI 3.x, Responses Object).
 */
import { lookupPointer } from '../shared/json-pointer.ts';
import type { PointerLookup } from '../shared/json-pointer.ts';
import { isPlainObject } from '../shared/values.ts';

/**
 * Most `$ref` hops `follow` takes through a chain of references before it reports the chain as too long
 * (a finite chain shorter than this is always followed to its end; issue 8).
 */
export const MAX_REF_HOPS = 10_000;

/**
 * Follows a chain of local `$ref`s (a Response, Request Body, Parameter, Path Item or Schema that is
 * only a reference) to the value it names. A finite chain is followed to its end however long it is,
 * up to `MAX_REF_HOPS` hops; a chain that comes back to a pointer already in it is a loop.
 * @returns `value`: the target (or, on error, the last value reached, still a `{$ref}`); `pointer`: the
 *   last `$ref` resolved (undefined when `value` was not a reference); `error` with `looped: true` for a
 *   chain that loops (A -> B -> A), or the reason a pointer resolves to nothing, or that the chain is
 *   longer than `MAX_REF_HOPS`. Never throws.
 */
export function follow(
  doc: unknown,
  value: unknown,
): { value: unknown; pointer?: string; error?: string; looped?: boolean } {
  return followWith(doc, value, lookupPointer);
}

/**
 * The target of `value`'s `$ref` chain (`value` itself when it is no reference), or undefined when the chain loops,
 * dangles, leaves the document or runs past `MAX_REF_HOPS`: for callers that read what a reference names and treat
 * a broken one as absent. Never throws.
 */
export function followedValue(doc: unknown, value: unknown): unknown {
  const followed = follow(doc, value);
  return followed.error === undefined ? followed.value : undefined;
}

/** A `lookupPointer` that remembers each pointer's result, for one pass over an unchanging document. */
export function memoLookup(): (root: unknown, ref: string) => PointerLookup {
  const hits = new Map<string, PointerLookup>();
  return (root, ref) => {
    let hit = hits.get(ref);
    if (hit === undefined) {
      hit = lookupPointer(root, ref);
      hits.set(ref, hit);
    }
    return hit;
  };
}

/** `follow` with the pointer lookup given (`memoLookup()` for a pass that follows the same `$ref`s often). */
export function followWith(
  doc: unknown,
  value: unknown,
  lookup: (root: unknown, ref: string) => PointerLookup,
): { value: unknown; pointer?: string; error?: string; looped?: boolean } {
  if (!isPlainObject(value) || typeof value.$ref !== 'string') return { value }; // most values: no chain to allocate
  let pointer: string | undefined;
  const chain: string[] = [];
  const seen = new Set<string>();
  while (isPlainObject(value) && typeof value.$ref === 'string') {
    const ref: string = value.$ref;
    if (seen.has(ref)) {
      return {
        value,
        pointer,
        looped: true,
        error: `the $ref chain ${[...chain, ref].join(' -> ')} loops without reaching an object`,
      };
    }
    if (chain.length >= MAX_REF_HOPS) {
      return { value, pointer, error: `the $ref chain from ${chain[0]} is longer than ${MAX_REF_HOPS} hops` };
    }
    seen.add(ref);
    chain.push(ref);
    const target = lookup(doc, ref);
    if (!target.found) return { value, pointer, error: target.reason };
    pointer = ref;
    value = target.value;
  }
  return { value, pointer };
}

/**
 * The Responses Object key that covers a status: the exact code, then the range `NXX` (also `Nxx`),
 * then `default` (OpenAPI 3.0.3 / 3.1.0 Responses Object; Swagger 2.0 has codes and `default`).
 * @param responses The operation's `responses` map (raw or from `Operation.responses`).
 * @param status HTTP status code.
 * @returns The key used and the entry as stored (not followed), or undefined. Never throws.
 */
export function responseForStatus(responses: unknown, status: number): { key: string; response: unknown } | undefined {
  if (!isPlainObject(responses)) return undefined;
  const range = String(Math.trunc(status / 100));
  for (const key of [String(status), `${range}XX`, `${range}xx`, 'default']) {
    if (Object.prototype.hasOwnProperty.call(responses, key)) return { key, response: responses[key] };
  }
  return undefined;
}
