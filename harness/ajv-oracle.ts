/**
 * Test and benchmark support: GitHub's description read the way ajv (the oracle) must read it to give
 * OpenAPI 3.0.3 meaning, and ajv's 2020-12 verdict for OpenAPI 3.1 cases. Not part of the server.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * A copy of the document that ajv reads with OAS 3.0.3 meaning: siblings of `$ref` are dropped (OAS 3.0.3
 * Reference Object: "additional properties SHALL be ignored"; ajv 8 would apply them), and `nullable`
 * without `type` is dropped (it widens nothing, OAS 3.0.3 Schema Object; ajv refuses to compile it).
 * Values of data keywords are left alone.
 */
export function forAjv(doc: unknown): unknown {
  const DATA = new Set(['example', 'examples', 'default', 'enum', 'const']);
  const isObj = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  const walk = (node: unknown, inMap: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!isObj(node)) return node;
    if (!inMap && typeof node.$ref === 'string') return { $ref: node.$ref };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (!inMap && k === 'nullable' && node.type === undefined) continue;
      out[k] =
        !inMap && DATA.has(k)
          ? v
          : walk(
              v,
              !inMap &&
                (k === 'properties' || k === 'schemas' || k === 'paths' || k === 'responses' || k === 'content'),
            );
    }
    return out;
  };
  return walk(doc, false);
}

/**
 * The verdict of ajv's JSON Schema 2020-12 validator (`ajv/dist/2020`, formats not asserted: an annotation in
 * 2020-12, section 7.2) on one instance, for hand-written cases: true when `data` is valid against `schema`.
 * Unknown keywords (an OpenAPI document's `openapi`, `paths`) are ignored (`strict: false`).
 */
export function ajv2020Valid(schema: unknown, data: unknown): boolean {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  return ajv.validate(schema as object, data) as boolean;
}
