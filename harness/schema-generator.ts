/**
 * Test support for the differential tests (issue 15): schemas generated with fast-check from the keywords the checker
 * supports, placed in an OpenAPI 3.0 or 3.1 document, and JSON values built from each schema near its boundaries (at,
 * one over and one under a bound, a required field missing, an extra field, the wrong type, null), mixed with random
 * JSON. Not part of the server.
 *
 * Numbers are doubles throughout: every generated value survives `JSON.stringify` then `JSON.parse` unchanged, and the
 * big bounds (2^53 + 2, 2^63, 1e20, the largest double) are doubles too, so both checkers see the same number. Numbers
 * JSON text cannot carry exactly (9007199254740993) belong to the numbers tests, which read the text itself.
 */
import fc from 'fast-check';

/** The OpenAPI dialects generated: 3.0 (OAS 3.0.3 Schema Object) and 3.1 (JSON Schema 2020-12). */
export type GeneratedDialect = '3.0' | '3.1';
type Obj = Record<string, unknown>;

/**
 * One generated schema and where it lives: `components` are the named schemas of `#/components/schemas/` (`S0`,
 * `S1`, ... and `Root`, the schema checked); `$ref`s point only there, so they can form webs and cycles.
 */
export type GeneratedSchema = {
  dialect: GeneratedDialect;
  components: Record<string, unknown>;
  valueSeed: number; // seeds the value builder (`valuesFor`), so one fast-check case fixes its values too
};

/** Property names, with JSON Pointer's `~` and `/` among them (RFC 6901 escapes in schema paths). */
const NAMES = ['a', 'b', 'c', 'd~1', 'e/f'] as const;
/** Names that no generated `properties` declares: an extra field. */
const EXTRA_NAMES = ['z', 'x-id', 'aa', '😀'] as const;
/** Numeric bounds: small, fractional, and big (2^53 + 2, 2^63 as JSON reads 9223372036854775807, the largest double). */
export const BOUNDS = [
  0,
  1,
  -1,
  2,
  3,
  10,
  0.5,
  -2.5,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e20,
  2 ** 63,
  -(2 ** 63),
  1.7976931348623157e308,
  5e-324,
] as const;
/** multipleOf divisors: integers, binary fractions, decimal fractions (inexact in binary), and big ones. */
export const DIVISORS = [1, 2, 3, 0.5, 0.25, 0.1, 0.01, 1e-8, 2 ** 53, 1e20] as const;
/**
 * Patterns that run in linear time, each with strings that match and strings that do not (ECMA-262 with the `u` flag,
 * as ajv compiles them; JSON Schema 2020-12 section 6.3.3).
 */
export const PATTERNS: Record<string, string[]> = {
  '^a': ['a', 'ab', 'ba', ''],
  b$: ['b', 'ab', 'ba'],
  '^[a-c]*$': ['', 'abc', 'abd', 'A'],
  '^\\d{2,3}$': ['12', '123', '1', '1234', '١٢'],
  'x|y': ['x', 'ay', 'z'],
  '^(ab)+$': ['ab', 'abab', 'aba', ''],
  '^.$': ['a', '😀', 'ab', '\n'],
  '\\p{L}': ['é', '1', 'ß'],
  '[^a]': ['a', 'b', 'aa'],
  '^$': ['', ' '],
  '^[😀-😂]+$': ['😀', '😁😂', 'a'],
};
/** Format names, known and unknown; formats are annotations (2020-12 section 7.2), so no verdict rests on them. */
const FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid', 'ipv4', 'int32', 'int64', 'byte', 'x-custom'] as const;
/** Strings that some format accepts and others reject. */
const FORMAT_VALUES = ['2024-02-30T10:00:00Z', '2024-01-01', 'a@b.c', 'http://x', '::1', '1.2.3.4', '2147483648'];
const TYPES_31 = ['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'] as const;
const TYPES_30 = ['boolean', 'object', 'array', 'number', 'string', 'integer'] as const;
/** Characters strings are built from: ASCII, a two-unit BMP letter, an astral emoji (one code point, two UTF-16 units). */
const ALPHABET = ['a', 'b', 'c', 'x', '1', '9', ' ', 'é', '😀', '~', '/'] as const;

const bound = fc.constantFrom(...BOUNDS);
const smallCount = fc.integer({ min: 0, max: 4 });

/** An object with `min` to `max` of the named keywords, each value from its arbitrary (a few keywords per schema). */
function some(keywords: Record<string, fc.Arbitrary<unknown>>, min: number, max: number): fc.Arbitrary<Obj> {
  const names = Object.keys(keywords);
  return fc
    .uniqueArray(fc.constantFrom(...names), { minLength: min, maxLength: Math.min(max, names.length) })
    .chain((chosen) => fc.record(Object.fromEntries(chosen.map((k) => [k, keywords[k]]))));
}

/** Schemas of one dialect; `refs` is how many `S<n>` components exist to point at (0: no `$ref`). */
function schemaArbitrary(dialect: GeneratedDialect, refs: number): fc.Arbitrary<unknown> {
  const is31 = dialect === '3.1';
  const { schema } = fc.letrec<{ schema: unknown; leaf: unknown }>((tie) => {
    const child = tie('schema');
    const numeric = some(
      {
        minimum: bound,
        maximum: bound,
        exclusiveMinimum: is31 ? bound : fc.boolean(),
        exclusiveMaximum: is31 ? bound : fc.boolean(),
        multipleOf: fc.constantFrom(...DIVISORS),
      },
      1,
      3,
    ).map((s) => {
      const out: Obj = { ...s };
      // OAS 3.0.3 (draft-04 section 5.1.2-5.1.3): a boolean exclusive bound is meaningful only beside its bound.
      if (!is31 && out.exclusiveMinimum !== undefined && out.minimum === undefined) delete out.exclusiveMinimum;
      if (!is31 && out.exclusiveMaximum !== undefined && out.maximum === undefined) delete out.exclusiveMaximum;
      return out;
    });
    const stringy = some(
      {
        minLength: smallCount,
        maxLength: smallCount,
        pattern: fc.constantFrom(...Object.keys(PATTERNS)),
        format: fc.constantFrom(...FORMATS),
      },
      1,
      2,
    );
    const properties = fc.dictionary(fc.constantFrom(...NAMES), child, { minKeys: 1, maxKeys: 3 });
    const objecty = some(
      {
        properties,
        required: fc.uniqueArray(fc.constantFrom(...NAMES, 'z'), { minLength: 1, maxLength: 3 }),
        additionalProperties: fc.oneof(fc.constant(false), fc.constant(true), child),
        minProperties: smallCount,
        maxProperties: smallCount,
        ...(is31
          ? {
              patternProperties: fc.dictionary(fc.constantFrom('^a', 'b$', '^x-'), child, { minKeys: 1, maxKeys: 2 }),
              propertyNames: fc.oneof(
                fc.record({ pattern: fc.constantFrom('^[a-c]*$', '^a') }),
                fc.record({ maxLength: fc.integer({ min: 0, max: 2 }) }),
                fc.record({ enum: fc.constant(['a', 'b', 'z']) }),
              ),
              dependentRequired: fc.dictionary(
                fc.constantFrom(...NAMES),
                fc.uniqueArray(fc.constantFrom(...NAMES, 'z'), { maxLength: 2 }),
                { minKeys: 1, maxKeys: 2 },
              ),
              dependentSchemas: fc.dictionary(fc.constantFrom(...NAMES), child, { minKeys: 1, maxKeys: 2 }),
              unevaluatedProperties: fc.oneof(fc.constant(false), child),
            }
          : {}),
      },
      1,
      3,
    );
    const arrayish = some(
      {
        items: child,
        minItems: smallCount,
        maxItems: smallCount,
        uniqueItems: fc.boolean(),
        ...(is31
          ? {
              prefixItems: fc.array(child, { minLength: 1, maxLength: 3 }),
              contains: child,
              minContains: fc.integer({ min: 0, max: 2 }),
              maxContains: fc.integer({ min: 0, max: 2 }),
              unevaluatedItems: fc.oneof(fc.constant(false), child),
            }
          : {}),
      },
      1,
      3,
    );
    const typeName = fc.constantFrom(...(is31 ? TYPES_31 : TYPES_30));
    const typeValue = is31 ? fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })) : typeName;
    const forType = (t: unknown): fc.Arbitrary<Obj> => {
      const first = Array.isArray(t) ? t[0] : t;
      if (first === 'integer' || first === 'number') return numeric;
      if (first === 'string') return stringy;
      if (first === 'object') return objecty;
      if (first === 'array') return arrayish;
      return fc.constant({});
    };
    const typed = fc.tuple(typeValue, fc.boolean(), fc.boolean()).chain(([type, nullable, mixed]) =>
      fc.tuple(forType(type), mixed ? fc.oneof(numeric, stringy) : fc.constant({})).map(([own, other]) => ({
        type,
        ...other,
        ...own,
        // nullable is an OAS 3.0 keyword; in 3.1 it is an unknown keyword and must change nothing.
        ...(nullable && (!is31 || mixed) ? { nullable: true } : {}),
      })),
    );
    const literal = fc.oneof(
      fc.constantFrom(0, 1, 2 ** 53, 1.5, 'a', '', '😀', true, false, null),
      fc.constant({ a: 1 }),
      fc.constant([1, 'a']),
    );
    const enumerated = fc.record({ enum: fc.uniqueArray(literal, { minLength: 1, maxLength: 4, selector: key }) });
    const leafs: fc.Arbitrary<unknown>[] = [
      typed,
      enumerated,
      fc.constant({}),
      fc.oneof(numeric, stringy, objecty, arrayish),
    ];
    if (is31) leafs.push(fc.record({ const: literal }), fc.boolean());
    if (refs > 0)
      leafs.push(fc.integer({ min: 0, max: refs - 1 }).map((n) => ({ $ref: `#/components/schemas/S${n}` })));
    const branches = fc.array(child, { minLength: 1, maxLength: 3 });
    const nodes: fc.Arbitrary<unknown>[] = [
      tie('leaf'),
      objecty.map((o) => ({ type: 'object', ...o })),
      arrayish.map((a) => ({ type: 'array', ...a })),
      fc.record({ allOf: branches }),
      fc.record({ anyOf: branches }),
      fc.record({ oneOf: branches }),
      fc.record({ not: child }),
    ];
    if (is31) {
      nodes.push(fc.record({ if: child, then: child, else: child }, { requiredKeys: ['if'] }));
      nodes.push(
        fc
          .tuple(child, objecty)
          .map(([inner, o]) => ({ ...o, allOf: [inner], unevaluatedProperties: o.unevaluatedProperties ?? false })),
      );
    }
    if (refs > 0) {
      // A `$ref` with siblings: ignored in OAS 3.0.3 (Reference Object), applied beside it in 2020-12 (section 8.2.3.1).
      nodes.push(
        fc
          .tuple(fc.integer({ min: 0, max: refs - 1 }), typed)
          .map(([n, s]) => ({ $ref: `#/components/schemas/S${n}`, ...s })),
      );
    }
    return {
      leaf: fc.oneof(...leafs),
      schema: fc.oneof({ maxDepth: 3, depthSize: 'small' }, ...nodes),
    };
  });
  return schema;
}

/** A canonical text of a JSON value (sorted keys), for uniqueness. */
function key(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(key).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${key((v as Obj)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * Generated schemas of both dialects: 0 to 3 components `S0`.. that may `$ref` one another (and themselves: cycles),
 * and `Root`. Depth is at most 3 applicators per schema, so one check is fast. Of the webs where a component reaches
 * itself without entering a property or an item (`cycleWithoutProgress`), one in ten is kept.
 */
export function generatedSchemas(): fc.Arbitrary<GeneratedSchema> {
  return (
    fc
      .tuple(fc.constantFrom<GeneratedDialect>('3.0', '3.1'), fc.integer({ min: 0, max: 3 }))
      .chain(([dialect, refs]) =>
        fc
          .tuple(
            fc.array(schemaArbitrary(dialect, refs), { minLength: refs, maxLength: refs }),
            schemaArbitrary(dialect, refs),
          )
          .map(([named, root]) => ({ dialect, named, root })),
      )
      .chain(({ dialect, named, root }) =>
        fc.integer().map((valueSeed) => {
          const components: Record<string, unknown> = {};
          named.forEach((s, i) => (components[`S${i}`] = s));
          components.Root = root;
          return { dialect, components, valueSeed };
        }),
      )
      // One in ten cycles that never reach a value is kept: the checker must still answer on them, though ajv cannot.
      .filter((g) => cycleWithoutProgress(g) === undefined || g.valueSeed % 10 === 0)
  );
}

/** The OpenAPI document a generated schema is checked in: its components, no paths. */
export function documentOf(generated: GeneratedSchema): Obj {
  return {
    openapi: generated.dialect === '3.0' ? '3.0.3' : '3.1.0',
    info: { title: 'differential', version: '1' },
    paths: {},
    components: { schemas: generated.components },
  };
}

// ---------------------------------------------------------------- values

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The next double above (`direction` 1) or below (-1) a finite number (IEEE 754 nextUp / nextDown). */
export function nextDouble(x: number, direction: 1 | -1): number {
  if (x === 0) return direction * 5e-324;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, x > 0 === direction > 0 ? bits + 1n : bits - 1n);
  const next = view.getFloat64(0);
  return Number.isFinite(next) ? next : x;
}

type Builder = { r: () => number; components: Record<string, unknown> };
const pick = <T>(b: Builder, list: readonly T[]): T => list[Math.floor(b.r() * list.length)];
const chance = (b: Builder, p: number): boolean => b.r() < p;

/** Random JSON: small scalars, short strings, shallow arrays and objects. */
function randomJson(b: Builder, depth = 0): unknown {
  const n = b.r();
  if (depth > 1 || n < 0.55) {
    return pick(b, [null, true, false, 0, -1, 1, 2.5, 2 ** 53, 1e300, '', 'a', 'ab', '😀', '2024-01-01', ...NAMES]);
  }
  if (n < 0.8) return Array.from({ length: Math.floor(b.r() * 3) }, () => randomJson(b, depth + 1));
  const o: Obj = {};
  for (let i = Math.floor(b.r() * 3); i > 0; i--) o[pick(b, [...NAMES, ...EXTRA_NAMES])] = randomJson(b, depth + 1);
  return o;
}

/** A value of another JSON type than `v`'s (the wrong type). */
function otherType(b: Builder, v: unknown): unknown {
  const options: unknown[] = [null, true, 1, 1.5, 'a', [], {}];
  const kind = (x: unknown) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x);
  const others = options.filter((o) => kind(o) !== kind(v));
  return pick(b, others);
}

/** Numbers near a schema's numeric bounds: at, one under and one over each (the next double, and ±1). */
function numberNear(b: Builder, s: Obj, integer: boolean): number {
  const candidates: number[] = [];
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    const x = s[k];
    if (typeof x !== 'number') continue;
    candidates.push(x, x + 1, x - 1, nextDouble(x, 1), nextDouble(x, -1));
  }
  const m = s.multipleOf;
  if (typeof m === 'number') {
    const k = Math.floor(b.r() * 7) - 3;
    candidates.push(k * m, k * m + (integer ? 1 : m / 2), 3 * m, nextDouble(m * 3, 1));
    const base = candidates.length > 0 ? candidates[Math.floor(b.r() * candidates.length)] : 0;
    candidates.push(Math.round(base / m) * m);
  }
  candidates.push(0, 1, -1, 2, 7, 0.5, 0.3, 2 ** 53 + 2);
  let v = pick(b, candidates);
  if (integer && !Number.isInteger(v) && chance(b, 0.7)) v = Math.round(v);
  return Number.isFinite(v) ? v : 0;
}

function stringNear(b: Builder, s: Obj): string {
  if (typeof s.pattern === 'string' && PATTERNS[s.pattern] && chance(b, 0.5)) return pick(b, PATTERNS[s.pattern]);
  if (typeof s.format === 'string' && chance(b, 0.3)) return pick(b, FORMAT_VALUES);
  const lengths = [Math.floor(b.r() * 4)];
  for (const k of ['minLength', 'maxLength']) {
    const x = s[k];
    if (typeof x === 'number') lengths.push(x, x + 1, Math.max(0, x - 1));
  }
  const length = pick(b, lengths);
  let out = '';
  for (let i = 0; i < length; i++) out += pick(b, ALPHABET);
  return out;
}

function typesOf(s: Obj): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  const implied: string[] = [];
  if (['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties'].some((k) => k in s))
    implied.push('object');
  if (['items', 'prefixItems', 'contains', 'minItems', 'maxItems'].some((k) => k in s)) implied.push('array');
  if (['minLength', 'maxLength', 'pattern', 'format'].some((k) => k in s)) implied.push('string');
  if (['minimum', 'maximum', 'multipleOf', 'exclusiveMinimum', 'exclusiveMaximum'].some((k) => k in s))
    implied.push('number');
  return implied;
}

/** A value built from a schema: one that should pass, or one near it that may fail. */
function valueFor(b: Builder, schema: unknown, depth: number): unknown {
  if (depth > 5 || typeof schema !== 'object' || schema === null || Array.isArray(schema)) return randomJson(b);
  let s = schema as Obj;
  if (typeof s.$ref === 'string' && chance(b, 0.8)) {
    const target = b.components[s.$ref.slice('#/components/schemas/'.length)];
    if (!chance(b, 0.3) || Object.keys(s).length === 1) return valueFor(b, target, depth + 1);
  }
  if (chance(b, 0.08)) return randomJson(b);
  if (chance(b, 0.05)) return null;
  if (Array.isArray(s.enum) && s.enum.length > 0 && chance(b, 0.6)) {
    const v = pick(b, s.enum);
    return chance(b, 0.8) ? v : otherType(b, v);
  }
  if ('const' in s && chance(b, 0.6)) return chance(b, 0.8) ? s.const : otherType(b, s.const);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[k];
    if (Array.isArray(list) && list.length > 0 && chance(b, 0.5)) return valueFor(b, pick(b, list), depth + 1);
  }
  if (s.if !== undefined && chance(b, 0.3)) return valueFor(b, pick(b, [s.if, s.then, s.else]), depth + 1);
  if (s.not !== undefined && chance(b, 0.3)) return valueFor(b, s.not, depth + 1);
  const types = typesOf(s);
  const type = types.length > 0 && chance(b, 0.9) ? pick(b, types) : pick(b, TYPES_31);
  let v: unknown;
  switch (type) {
    case 'null':
      v = null;
      break;
    case 'boolean':
      v = chance(b, 0.5);
      break;
    case 'integer':
    case 'number':
      v = numberNear(b, s, type === 'integer');
      break;
    case 'string':
      v = stringNear(b, s);
      break;
    case 'array':
      v = arrayFor(b, s, depth);
      break;
    default:
      v = objectFor(b, s, depth);
  }
  if (chance(b, 0.07)) return otherType(b, v);
  return v;
}

function arrayFor(b: Builder, s: Obj, depth: number): unknown[] {
  const lengths = [Math.floor(b.r() * 3)];
  for (const k of ['minItems', 'maxItems']) {
    const x = s[k];
    if (typeof x === 'number') lengths.push(x, x + 1, Math.max(0, x - 1));
  }
  const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
  if (prefix.length > 0) lengths.push(prefix.length, prefix.length + 1);
  const length = Math.min(pick(b, lengths), 6);
  const out: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const itemSchema =
      i < prefix.length ? prefix[i] : s.contains !== undefined && chance(b, 0.4) ? s.contains : s.items;
    out.push(itemSchema === undefined ? randomJson(b, 1) : valueFor(b, itemSchema, depth + 1));
  }
  if (s.uniqueItems === true && out.length > 0 && chance(b, 0.3)) out.push(structuredClone(out[0]));
  return out;
}

function objectFor(b: Builder, s: Obj, depth: number): Obj {
  const out: Obj = {};
  const properties = (typeof s.properties === 'object' && s.properties) || {};
  const required = Array.isArray(s.required) ? s.required.filter((n): n is string => typeof n === 'string') : [];
  for (const [name, sub] of Object.entries(properties as Obj))
    if (required.includes(name) || chance(b, 0.7)) out[name] = valueFor(b, sub, depth + 1);
  for (const name of required) if (!(name in out)) out[name] = randomJson(b, 1);
  const dependent = (typeof s.dependentRequired === 'object' && s.dependentRequired) || {};
  for (const [name, list] of Object.entries(dependent as Obj))
    if (chance(b, 0.5)) {
      out[name] ??= randomJson(b, 1);
      if (Array.isArray(list)) for (const n of list) if (typeof n === 'string' && chance(b, 0.8)) out[n] ??= 1;
    }
  const patterns = (typeof s.patternProperties === 'object' && s.patternProperties) || {};
  for (const [pattern, sub] of Object.entries(patterns as Obj))
    if (chance(b, 0.5)) out[pick(b, PATTERNS[pattern] ?? ['x-a', 'ab'])] = valueFor(b, sub, depth + 1);
  if (required.length > 0 && chance(b, 0.2)) delete out[pick(b, required)];
  if (chance(b, 0.25)) {
    const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    out[pick(b, EXTRA_NAMES)] = extra ? valueFor(b, extra, depth + 1) : randomJson(b, 1);
  }
  return out;
}

/**
 * Values for one generated schema: `count` distinct JSON values built from `Root` near its boundaries (see the
 * module docstring), about one in six pure random JSON. The same schema and count give the same values.
 */
export function valuesFor(generated: GeneratedSchema, count: number): unknown[] {
  const b: Builder = { r: random(generated.valueSeed), components: generated.components };
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (let tries = 0; out.length < count && tries < count * 4; tries++) {
    const v = JSON.parse(JSON.stringify(chance(b, 0.15) ? randomJson(b) : valueFor(b, generated.components.Root, 0)));
    const k = key(v);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

/** The keywords a schema uses, through its components (sorted, deduplicated), for counting per keyword mix. */
export function keywordsOf(generated: GeneratedSchema): string[] {
  const found = new Set<string>();
  const DATA = new Set(['enum', 'const']);
  const MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      found.add(k === 'type' && Array.isArray(v) ? 'type[]' : k);
      if (k === 'nullable' && generated.dialect === '3.1') found.add('nullable(3.1)');
      if (DATA.has(k) || k === 'dependentRequired' || k === 'required') continue;
      if (MAPS.has(k) && typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
      else walk(v);
    }
  };
  Object.values(generated.components).forEach(walk);
  return [...found].sort();
}

/** Keywords that apply a subschema to the same instance location (no property or item is entered). */
const IN_PLACE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas'] as const;

/**
 * Whether some component reaches itself through `$ref`s and in-place applicators alone (allOf, anyOf, oneOf, not,
 * if/then/else, dependentSchemas), without entering a property or an item: a cycle that never reaches a value
 * (2020-12 section 9.4.1 leaves such schemas undefined). ajv recurses on these until its stack overflows, so the
 * differential run gives them no oracle verdict.
 * @returns The first component name on such a cycle, or undefined when there is none.
 */
export function cycleWithoutProgress(generated: GeneratedSchema): string | undefined {
  const edges = new Map<string, Set<string>>();
  const collect = (node: unknown, into: Set<string>): void => {
    if (Array.isArray(node)) return node.forEach((n) => collect(n, into));
    if (typeof node !== 'object' || node === null) return;
    const s = node as Obj;
    if (typeof s.$ref === 'string') into.add(s.$ref.slice('#/components/schemas/'.length));
    for (const k of IN_PLACE) {
      const v = s[k];
      if (k === 'dependentSchemas' && typeof v === 'object' && v !== null)
        Object.values(v).forEach((x) => collect(x, into));
      else if (k !== 'dependentSchemas') collect(v, into);
    }
  };
  for (const [name, schema] of Object.entries(generated.components)) {
    const into = new Set<string>();
    collect(schema, into);
    edges.set(name, into);
  }
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const stack = [...(edges.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === start) return start;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(edges.get(next) ?? []));
    }
  }
  return undefined;
}
