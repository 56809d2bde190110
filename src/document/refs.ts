/**
 * `$ref`s inside one document: following a chain of local references to its target (RFC 6901 pointers, loops and
 * over-long chains reported, never thrown), and the Responses Object entry for a status (OpenAPI 3.x, Responses Object).
 */
import { escapePointerToken, lookupPointer } from '../shared/json-pointer.ts';
import { safeDecode } from '../shared/text.ts';
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
 * A reference that is no pointer from the root (`https://...`, `#anchor`) is resolved as a schema's `$ref` inside the
 * document (`resolveSchemaRef`, from the base where the chain stands), so a `$ref` to an `$id` or anchor is followed.
 * @returns `value`: the target (or, on error, the last value reached, still a `{$ref}`); `pointer`: the
 *   last `$ref` resolved, as a pointer (undefined when `value` was not a reference); `error` with `looped: true` for a
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
    if (!target.found) {
      // Not a pointer from the root: a schema `$id` or anchor of the document, resolved from where the chain stands.
      const named = ref.startsWith('#/') ? undefined : resolveSchemaRef(doc, ref, pointer ?? '#');
      if (!named?.found) return { value, pointer, error: target.reason };
      pointer = named.pointer;
      value = named.value;
      continue;
    }
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

/**
 * The base URI of a document whose own location is unknown to the schema checker (JSON Schema 2020-12 §8.2.1:
 * an application-chosen default): `$id`s and `$ref`s are resolved against it, so a reference to a URI that no
 * `$id` in the document declares resolves to an address outside the document. `.invalid` (RFC 2606) names no host.
 */
export const DOCUMENT_BASE = 'https://openapi-probe.invalid/document';

/**
 * Where a document's schema resources and anchors are (JSON Schema 2020-12 §8.2.1 `$id`, §8.2.2 `$anchor` and
 * `$dynamicAnchor`, §9.2.1 embedded resources). URIs are absolute, without fragment, as `new URL` writes them;
 * pointers are JSON Pointer fragments into the document (`#/components/schemas/Pet`, `#` for the root).
 * `resources`: URI of each resource to its pointer (the document's base to `#`); `bases`: the pointer of each
 * `$id` to its URI; `anchors` / `dynamicAnchors`: `uri#name` to the pointer of the schema declaring it;
 * `embedded`: whether the document declares any `$id`, `$anchor` or `$dynamicAnchor` (when not, every `#/...`
 * reference is a pointer from the document root, as before 2020-12).
 */
export type SchemaIndex = {
  base: string;
  resources: Map<string, string>;
  bases: Map<string, string>;
  anchors: Map<string, string>;
  dynamicAnchors: Map<string, string>;
  embedded: boolean;
  /** `baseAt`'s answers so far, by schema path. */
  baseOf?: Map<string, string>;
  /** References resolved so far (`resolveSchemaRef`), by base URI and reference: the same for every check. */
  resolved?: Map<string, SchemaRefLookup>;
};

/** Most nodes `schemaIndex` visits in one document (a 128 MiB document holds fewer); past it the rest is unindexed. */
export const MAX_INDEX_NODES = 20_000_000;

// Values under these keys are data, never schemas (JSON Schema 2020-12 §6.1.2-3, §9.2-9.5; OAS 3.1 Example Object).
const DATA_VALUES = new Set(['const', 'enum', 'default', 'example', 'examples']);
// Maps whose keys are names and whose values are schemas or other objects: a `$id` there is a name, not a keyword.
const NAMED = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
// Keywords whose value is a schema or a list of schemas (JSON Schema 2020-12 §10, §11, §8.2.4; `schema` and
// `additionalItems` of OAS 3.0 / draft 4). Inside a schema, any other keyword holds no schema: a `$id` under an
// unknown keyword identifies nothing (2020-12 §9.4.2, "$id inside an unknown keyword is not a real identifier").
const APPLICATORS = new Set([
  'schema',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
  'contentSchema',
]);
const indexes = new WeakMap<object, SchemaIndex>();

/** A URI without its fragment, or undefined when it is no URI reference `new URL` accepts against `base`. */
function absoluteUri(ref: string, base: string): { uri: string; fragment: string } | undefined {
  let url: URL;
  try {
    url = new URL(ref, base);
  } catch {
    return undefined;
  }
  const hash = url.hash;
  url.hash = '';
  const uri = url.href.endsWith('#') ? url.href.slice(0, -1) : url.href;
  return { uri, fragment: hash.startsWith('#') ? hash.slice(1) : '' };
}

/**
 * The schema resources and anchors of a document, built once per document object (cached; documents are not
 * changed once loaded). One iterative walk, at most `MAX_INDEX_NODES` nodes, skipping data values (`const`,
 * `enum`, `default`, `example(s)`); an object's `$id` counts when it is a string and the object is no name map.
 * @param base The document's base URI (its retrieval URI, see `indexDocument`); when left out, the base it was indexed
 *   with, else `DOCUMENT_BASE`.
 * @param cache False for a document that is still being changed (bundled): built afresh and not kept.
 * @returns The index (see `SchemaIndex`). Never throws: an `$id` that is no URI reference is left out.
 */
export function schemaIndex(doc: unknown, base?: string, cache = true): SchemaIndex {
  const cacheable = cache && doc !== null && typeof doc === 'object';
  const known = cacheable ? indexes.get(doc as object) : undefined;
  if (known && (base === undefined || known.base === base)) return known;
  base ??= DOCUMENT_BASE;
  const index: SchemaIndex = {
    base,
    resources: new Map([[base, '#']]),
    bases: new Map(),
    anchors: new Map(),
    dynamicAnchors: new Map(),
    embedded: false,
  };
  // `named`: a name map's values; `schema`: the node is a schema, so only its schema keywords are walked on.
  // The pointer is spelled out only for a node that declares something (`pointerOf`): most nodes declare nothing.
  type Item = { node: object; key: string; parent: Item | undefined; base: string; named: boolean; schema: boolean };
  const pointerOf = (item: Item): string => {
    const tokens: string[] = [];
    for (let at: Item | undefined = item; at && at.parent; at = at.parent) tokens.push(escapePointerToken(at.key));
    return tokens.length === 0 ? '#' : `#/${tokens.reverse().join('/')}`;
  };
  const stack: Item[] = [];
  if (doc !== null && typeof doc === 'object')
    stack.push({ node: doc, key: '', parent: undefined, base, named: false, schema: false });
  const seen = new Set<object>(); // YAML aliases may share nodes or form cycles
  let visits = 0;
  while (stack.length > 0 && visits++ < MAX_INDEX_NODES) {
    const item = stack.pop()!;
    const node = item.node;
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object')
          stack.push({ node: child, key: String(i), parent: item, base: item.base, named: false, schema: item.schema });
      }
      continue;
    }
    const object = node as Record<string, unknown>;
    let nodeBase = item.base;
    if (!item.named) {
      if (typeof object.$id === 'string') {
        const id = absoluteUri(object.$id, nodeBase);
        if (id) {
          const pointer = pointerOf(item);
          nodeBase = id.uri;
          index.embedded = true;
          if (!index.resources.has(id.uri)) index.resources.set(id.uri, pointer);
          index.bases.set(pointer, id.uri);
        }
      }
      for (const keyword of ['$anchor', '$dynamicAnchor'] as const) {
        const name = object[keyword];
        if (typeof name !== 'string') continue;
        const pointer = pointerOf(item);
        index.embedded = true;
        const key = `${nodeBase}#${name}`;
        if (!index.anchors.has(key)) index.anchors.set(key, pointer);
        if (keyword === '$dynamicAnchor' && !index.dynamicAnchors.has(key)) index.dynamicAnchors.set(key, pointer);
      }
    }
    const keys = Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      // Pushed last to first, so the walk meets them in document order (the first `$id` of a URI wins).
      const key = keys[i]!;
      const child = object[key];
      if (child === null || typeof child !== 'object') continue;
      if (!item.named && DATA_VALUES.has(key)) continue;
      const named = !item.named && NAMED.has(key);
      const schema = item.named ? item.schema : APPLICATORS.has(key) || named;
      if (item.schema && !item.named && !schema) continue; // an unknown keyword of a schema: no schema inside
      stack.push({ node: child, key, parent: item, base: nodeBase, named, schema });
    }
  }
  if (cacheable) indexes.set(doc as object, index);
  return index;
}

/**
 * Records, for a document just loaded, whether it may declare schema resources or anchors, so that `schemaIndex`
 * need not walk a large document that declares none: when `mayDeclare` is false (the text names no `$id`, `$anchor`
 * or `$dynamicAnchor`, or the document is OpenAPI 3.0 / Swagger 2.0, whose `$ref` is a JSON Reference), an empty
 * index is kept for it; otherwise its index is built now. Call it once the document will not change.
 * @param base The document's base URI: where it was retrieved from (JSON Schema 2020-12, 9.1.1; OpenAPI 3.1, 4.8.1
 *   relative references), default `DOCUMENT_BASE`; nothing is fetched from it.
 */
export function indexDocument(doc: object, mayDeclare: boolean, base: string = DOCUMENT_BASE): void {
  if (mayDeclare) {
    schemaIndex(doc, base);
    return;
  }
  indexes.set(doc, {
    base,
    resources: new Map([[base, '#']]),
    bases: new Map(),
    anchors: new Map(),
    dynamicAnchors: new Map(),
    embedded: false,
  });
}

/**
 * Whether a URI reference names the document at `uri` itself, fragment aside (RFC 3986, 5.2: resolved against
 * `against`, by default `uri`; `https://host/openapi.json#/x` or `openapi.json` for `https://host/openapi.json`).
 */
export function sameDocument(reference: string, uri: string, against = uri): boolean {
  const resolved = absoluteUri(reference, against);
  return resolved !== undefined && resolved.uri === (absoluteUri(uri, uri)?.uri ?? uri);
}

/**
 * The base URI in effect at a schema path (JSON Schema 2020-12 §8.2.1): the `$id` of the nearest enclosing
 * resource, or the document's base. `pointer` is a JSON Pointer fragment into the document (`#/$defs/a`).
 */
export function baseAt(index: SchemaIndex, pointer: string): string {
  if (index.bases.size === 0) return index.base;
  // Met once per schema application: each pointer's answer is kept (a document has finitely many schema paths).
  const known = index.baseOf?.get(pointer);
  if (known !== undefined) return known;
  let p = pointer;
  let uri: string | undefined;
  for (;;) {
    uri = index.bases.get(p);
    if (uri !== undefined) break;
    const cut = p.lastIndexOf('/');
    if (cut < 1) {
      uri = index.base;
      break;
    }
    p = p.slice(0, cut);
  }
  const memo = (index.baseOf ??= new Map());
  if (memo.size < MAX_KEPT_BASES) memo.set(pointer, uri);
  return uri;
}

/** Most schema paths whose base URI `baseAt` keeps per document, and most references a document's index keeps resolved. */
export const MAX_KEPT_BASES = 100_000;

/** Result of `resolveSchemaRef`: the target and its pointer, or why there is none; `outside` when the URI is not the document's. */
export type SchemaRefLookup =
  { found: true; value: unknown; pointer: string } | { found: false; reason: string; outside: boolean };

/**
 * Resolves a schema's `$ref` (or the initial target of a `$dynamicRef`) inside the document: against the base URI
 * at `at` (the schema path of the schema holding it), to a resource the document embeds (`$id`), then a JSON
 * Pointer from that resource's root or a plain-name fragment (`$anchor`, `$dynamicAnchor`) (JSON Schema 2020-12
 * §8.2.3.1, §9.2.1; RFC 3986 §5 as `new URL` implements it). Nothing is fetched.
 * @returns `{found: true, value, pointer}`, `pointer` being where the target is in the document; or `{found: false,
 *   reason, outside}`, `outside` true when the reference names a URI no `$id` of the document declares. Never throws.
 */
export function resolveSchemaRef(doc: unknown, ref: string, at: string, index = schemaIndex(doc)): SchemaRefLookup {
  if (!index.embedded && (ref === '#' || ref.startsWith('#/'))) {
    const hit = lookupPointer(doc, ref);
    return hit.found
      ? { found: true, value: hit.value, pointer: ref }
      : { found: false, reason: `\`$ref: ${ref}\` points nowhere in the document`, outside: false };
  }
  const base = baseAt(index, at);
  const target = absoluteUri(ref, base);
  if (!target) return { found: false, reason: `\`${ref}\` is not a URI reference`, outside: true };
  const resource = index.resources.get(target.uri);
  if (resource === undefined) {
    // Against the document's own base the URI says nothing a reader can use: the reference as written is named.
    const named =
      base === index.base ? '' : ` resolves to ${target.uri}, which no \`$id\` of the document declares, and`;
    return {
      found: false,
      reason: `\`$ref: ${ref}\`${named} is not a local JSON Pointer (external references must be bundled into the document)`,
      outside: true,
    };
  }
  const fragment = safeDecode(target.fragment) ?? target.fragment;
  if (fragment === '' || fragment.startsWith('/')) {
    const root = resource === '#' ? { found: true as const, value: doc } : lookupPointer(doc, resource);
    if (!root.found) return { found: false, reason: root.reason, outside: false };
    const hit = lookupPointer(root.value, fragment);
    if (!hit.found) return { found: false, reason: `\`$ref: ${ref}\` points nowhere in the document`, outside: false };
    return { found: true, value: hit.value, pointer: resource + fragment };
  }
  const anchored = index.anchors.get(`${target.uri}#${fragment}`);
  if (anchored === undefined)
    return {
      found: false,
      reason: `\`$ref: ${ref}\` names the anchor ${fragment}, which no \`$anchor\` or \`$dynamicAnchor\` of ${target.uri} declares`,
      outside: false,
    };
  const hit = lookupPointer(doc, anchored);
  return hit.found
    ? { found: true, value: hit.value, pointer: anchored }
    : { found: false, reason: hit.reason, outside: false };
}
