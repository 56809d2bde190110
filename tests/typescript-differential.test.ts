// The TypeScript oracle on generated schemas (issue 15): the schemas of the differential run
// (harness/schema-generator.ts) rendered as TypeScript by describe_operation's renderer (src/contract/typescript.ts),
// each generated value assigned to the rendered type, and tsc's verdict compared with the checker's
// (harness/typescript-oracle.ts, `compare`): `const v: Root = <the value as a literal type>` must compile exactly when
// `check` finds no error-level finding, except the known deviations (a keyword no type can express), each with its
// reason. Schemas: OPENAPI_PROBE_SCHEMAS, else 1,000 in the second tier (`npm run test:corpus`) and 100 in the first
// (`npm test`, `node --test`), from the seed OPENAPI_PROBE_SEED (default: today's date as yyyymmdd, UTC), printed
// with the counts. The disagreements no known deviation explains fall into the new kinds below (`NEW_KINDS`), each
// pinned as a `todo` test on a minimal schema until the renderer or the oracle's explanations learn it; a disagreement
// of no listed kind fails the run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderTypeScriptWithin } from '../src/contract/typescript.ts';
import { corpusMode } from '../harness/corpus.ts';
import {
  cycleWithoutProgress,
  documentOf,
  generatedSchemas,
  keywordsOf,
  valuesFor,
} from '../harness/schema-generator.ts';
import type { GeneratedSchema } from '../harness/schema-generator.ts';
import { compare, summarize, untypedReading } from '../harness/typescript-oracle.ts';
import type { Comparison, OracleCase } from '../harness/typescript-oracle.ts';

/** Schemas per tier: the first keeps to about 20 s on 2 busy cores. */
const SCHEMAS = { first: 100, second: 1_000 } as const;
/** Values assigned per schema. */
const VALUES_PER_SCHEMA = 10;

/** Today's date as yyyymmdd (UTC): the default seed, as in tests/differential.test.ts. */
function dateSeed(): number {
  const d = new Date();
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}

const SEED = process.env.OPENAPI_PROBE_SEED !== undefined ? Number(process.env.OPENAPI_PROBE_SEED) : dateSeed();
if (!Number.isSafeInteger(SEED))
  throw new Error(`Expected OPENAPI_PROBE_SEED to be an integer, got \`${process.env.OPENAPI_PROBE_SEED}\``);
const asked = process.env.OPENAPI_PROBE_SCHEMAS;
if (asked !== undefined && !/^[1-9]\d*$/.test(asked))
  throw new Error(`Expected OPENAPI_PROBE_SCHEMAS to be a positive integer, got \`${asked}\``);
const COUNT = asked !== undefined ? Number(asked) : corpusMode() === 'require' ? SCHEMAS.second : SCHEMAS.first;

/** A compared value with the generated schema it was assigned to. */
type Run = { comparisons: Comparison[]; sources: { generated: GeneratedSchema; value: unknown }[]; cutSchemas: number };

/**
 * Renders `count` generated schemas from `seed` and compares tsc with the checker on their values, all in one program.
 * A schema the renderer had to cut (its type is then wider than the schema) is counted and left out.
 */
function runSchemas(seed: number, count: number): Run {
  const schemas = fc.sample(generatedSchemas(), { seed, numRuns: count });
  const cases: OracleCase[] = [];
  const sources: Run['sources'] = [];
  const groups: { declarations: string; members: { index: number; type: string }[] }[] = [];
  let cutSchemas = 0;
  schemas.forEach((generated, at) => {
    const doc = documentOf(generated);
    const schema = generated.components.Root;
    const { typescript, cut } = renderTypeScriptWithin(doc, schema, 'Root', 'response', undefined, 1e9, 1e8);
    if (cut.length > 0) {
      cutSchemas++;
      return;
    }
    const members = valuesFor(generated, VALUES_PER_SCHEMA).map((value, v) => {
      cases.push({ id: `schema ${at} value ${v}`, doc, schema, at: '#/components/schemas/Root', value });
      sources.push({ generated, value });
      return { index: cases.length - 1, type: 'Root' };
    });
    groups.push({ declarations: typescript, members });
  });
  return { comparisons: compare(cases, groups), sources, cutSchemas };
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Whether a schema object without `type` that holds object or array keywords decides the value anywhere below the
 * schema, through `$ref`, allOf, anyOf, oneOf, properties, additionalProperties, prefixItems and items (`untypedReading` looks through allOf only).
 */
function untypedInBranch(doc: Node, schema: unknown, value: unknown, depth = 0): boolean {
  if (depth > 16 || !isNode(schema)) return false;
  if (untypedReading(doc, schema, value)) return true;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/components/schemas/')) {
    const target = (doc.components as { schemas: Node }).schemas[schema.$ref.slice('#/components/schemas/'.length)];
    if (untypedInBranch(doc, target, value, depth + 1)) return true;
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'])
    if (
      Array.isArray(schema[keyword]) &&
      schema[keyword].some((branch) => untypedInBranch(doc, branch, value, depth + 1))
    )
      return true;
  if (isNode(value) && isNode(schema.properties))
    for (const [name, property] of Object.entries(schema.properties))
      if (Object.hasOwn(value, name) && untypedInBranch(doc, property, value[name], depth + 1)) return true;
  if (isNode(value) && isNode(schema.additionalProperties))
    for (const [name, item] of Object.entries(value))
      if (
        !(isNode(schema.properties) && Object.hasOwn(schema.properties, name)) &&
        untypedInBranch(doc, schema.additionalProperties, item, depth + 1)
      )
        return true;
  if (Array.isArray(value) && Array.isArray(schema.prefixItems))
    if (schema.prefixItems.some((item, at) => at < value.length && untypedInBranch(doc, item, value[at], depth + 1)))
      return true;
  if (Array.isArray(value) && isNode(schema.items))
    return value.some((item) => untypedInBranch(doc, schema.items, item, depth + 1));
  return false;
}

/** Every property name a `properties` map declares anywhere in the generated schema's components. */
function declaredNames(generated: GeneratedSchema): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isNode(node)) return;
    for (const [key, item] of Object.entries(node)) {
      if (key === 'enum' || key === 'const') continue;
      if (key === 'properties' && isNode(item))
        for (const [name, property] of Object.entries(item)) {
          names.add(name);
          walk(property);
        }
      else walk(item);
    }
  };
  walk(generated.components);
  return names;
}

/** Whether the value or a value inside it is an object with fields, none of them a declared name. */
function sharesNoName(value: unknown, names: Set<string>, depth = 0): boolean {
  if (depth > 32) return false;
  if (Array.isArray(value)) return value.some((item) => sharesNoName(item, names, depth + 1));
  if (!isNode(value)) return false;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((key) => !names.has(key))) return true;
  return Object.values(value).some((item) => sharesNoName(item, names, depth + 1));
}

/**
 * The kinds of disagreement this run found that no known deviation of the oracle explains (first found with seed
 * 20261202, then 1 and 2, 1,000 schemas each), each with the reason and how a disagreement is recognised as one; each is pinned by a `todo` test below.
 */
const NEW_KINDS = {
  'untyped keywords in an anyOf or oneOf branch': {
    reason:
      "a branch without `type` holding object or array keywords renders as an object or array type, which rejects a string, number or null the checker accepts (the known deviation 'no type beside object or array keywords', which the oracle's untypedReading finds only through allOf, properties and $ref)",
    recognises: (c: Comparison, g: GeneratedSchema, value: unknown) =>
      c.checker === 'accepted' && !c.compiles && untypedInBranch(documentOf(g), g.components.Root, value),
  },
  'recursion through an item read as a circular alias': {
    reason:
      'a component that reaches itself through `items` whose $ref carries a sibling the renderer notes (3.0 `nullable` beside $ref) renders as `S0 /* nullable beside $ref is ignored (OAS 3.0.3) */[]`; the cycle check looked for `[]` right after the name, so the comment hid the array and the component became `unknown`, admitting every value (found in the 28 unexplained values of seed 20261202, 1,000 schemas)',
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.checker === 'rejected' &&
      c.compiles &&
      cycleWithoutProgress(g) === undefined &&
      /"items":\{"\$ref":"#\/components\/schemas\/(S\d+)"[^}]*"nullable":true/.test(JSON.stringify(g.components)),
  },
  'a branch rendered unknown in anyOf or oneOf': {
    reason:
      "a branch whose keyword no type expresses (not, pattern, ...) renders as `unknown`, so the union is `unknown` and admits the value every branch rejects; the checker reports only the closest branch's finding (a const, a required field), which `inexpressible` cannot excuse",
    recognises: (c: Comparison) => c.checker === 'rejected' && c.compiles && c.reason!.includes(' branches: '),
  },
  'patternProperties not rendered': {
    reason:
      'a property matching patternProperties is typed by the index signature `[key: string]: unknown`, so a value of the wrong type is admitted; a type could name a prefix pattern (`[key: `a${string}`]`), not a pattern in general, and `inexpressible` has no entry for a finding under /patternProperties/',
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.checker === 'rejected' && c.compiles && keywordsOf(g).includes('patternProperties'),
  },
  'an object type admits an array or a primitive in an intersection': {
    reason:
      'allOf of `type: object` and a schema admitting an array or a primitive renders as an intersection (`([1, "a"] | { a: 1 }) & { a?: unknown }`, `boolean & { b?: unknown }`): an array is an object to TypeScript, a primitive meets an object type as a branded primitive, and the weak-type check does not apply to intersections, so the value the checker rejects as no object is admitted',
    recognises: (c: Comparison) => c.checker === 'rejected' && c.compiles && c.reason!.includes(', expected object'),
  },
  'a component that reaches itself renders a circular alias': {
    reason:
      'a component that reaches itself without entering a property or an item (allOf: [{$ref: itself}]) renders as `type S0 = S0`, which tsc refuses (TS2456: Type alias circularly references itself); the renderer should write `unknown` there',
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.reason!.includes('circularly references itself') && cycleWithoutProgress(g) !== undefined,
  },
  'dependentRequired and dependentSchemas beside a type that is no object': {
    reason:
      "dependentRequired and dependentSchemas render as an intersection with object types (`({...} | null) & ({ c?: undefined; ... } | { c: unknown; a: unknown })`), so null, a number or any other non-object the schema's `type` admits is rejected; the keywords apply to objects only (2020-12 sections 6.5.4, 10.2.2.4) and the checker accepts them",
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.checker === 'accepted' &&
      !c.compiles &&
      (keywordsOf(g).includes('dependentRequired') || keywordsOf(g).includes('dependentSchemas')),
  },
  'if/then/else rendered as both outcomes': {
    reason:
      'if/then/else renders as `(if & then) | else` (`unknown` without an else), since a type cannot test the condition: a value the condition sends to the branch it fails (1 under if: {type: number}, then: {type: boolean}) is admitted, and where the if schema renders narrower than the checker reads it (untyped keywords in a branch) a value the checker accepts is rejected; `inexpressible` has no entry for a finding under then or else',
    recognises: (c: Comparison, g: GeneratedSchema) => keywordsOf(g).includes('if') && c.reason !== undefined,
  },
  'unevaluatedItems and unevaluatedProperties not rendered': {
    reason:
      'unevaluatedItems and unevaluatedProperties with a schema render as `unknown[]` and `[key: string]: unknown`, so an item or a field of the wrong type is admitted; where no applicator beside it evaluates anything, a type could say it as it says items and additionalProperties',
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.checker === 'rejected' &&
      c.compiles &&
      (keywordsOf(g).includes('unevaluatedItems') || keywordsOf(g).includes('unevaluatedProperties')),
  },
  "TypeScript's weak-type check inside a union": {
    reason:
      "an object sharing no property with an all-optional object type is rejected by TypeScript's weak-type check (a known deviation), but inside a union tsc reports TS2322 `not assignable to type 'Root'`, which the oracle's recognizer (TS2559, 'has no properties in common') does not match",
    recognises: (c: Comparison, g: GeneratedSchema, value: unknown) =>
      c.checker === 'accepted' && !c.compiles && sharesNoName(value, declaredNames(g)),
  },
  'additionalProperties through a $ref': {
    reason:
      "a required field no `properties` declares renders as `c: unknown` beside `[key: string]: unknown` while additionalProperties, a $ref, gives its type: the known deviation 'additionalProperties beside properties of other types', which `inexpressible` recognises only by /additionalProperties/ in the finding's schema path, and behind a $ref that path is the target's",
    recognises: (c: Comparison, g: GeneratedSchema) =>
      c.checker === 'rejected' && c.compiles && JSON.stringify(g.components).includes('"additionalProperties":{"$ref"'),
  },
} as const;

/** The new kind of an unexplained disagreement, or undefined when it is of no listed kind. */
function kindOf(c: Comparison, g: GeneratedSchema, value: unknown): keyof typeof NEW_KINDS | undefined {
  for (const [name, kind] of Object.entries(NEW_KINDS))
    if (kind.recognises(c, g, value)) return name as keyof typeof NEW_KINDS;
  return undefined;
}

describe('TypeScript types against the checker on generated schemas (issue 15)', () => {
  it('agrees on every generated value, except the known deviations', () => {
    const started = performance.now();
    const run = runSchemas(SEED, COUNT);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const { line, disagreements } = summarize(
      `TypeScript oracle on generated schemas: seed ${SEED} (OPENAPI_PROBE_SEED), ${COUNT} schemas (${run.cutSchemas} cut by the renderer, left out), ${run.comparisons.length} values in ${seconds} s`,
      run.comparisons,
    );
    console.log(line);
    const byReason = new Map<string, number[]>();
    disagreements.forEach((item) => {
      const index = run.comparisons.indexOf(item);
      byReason.set(item.reason!, [...(byReason.get(item.reason!) ?? []), index]);
    });
    for (const [reason, indexes] of [...byReason].sort((a, b) => b[1].length - a[1].length))
      console.log(`  ${indexes.length} x ${reason}`);
    const kinds = new Map<string, number>();
    const unlisted: string[] = [];
    for (const item of disagreements) {
      if (item.known) continue;
      const source = run.sources[run.comparisons.indexOf(item)]!;
      const kind = kindOf(item, source.generated, source.value);
      if (kind) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      else
        unlisted.push(
          `${item.reason}: ${JSON.stringify({ dialect: source.generated.dialect, components: source.generated.components, value: source.value })}`,
        );
    }
    console.log('  unexplained, by new kind (each pinned; a fixed kind counts what its recogniser still matches):');
    for (const [kind, count] of kinds) console.log(`    ${count} x ${kind}`);
    console.log(`    ${unlisted.length} of no listed kind`);
    const unexplained = unlisted.sort((a, b) => a.length - b.length).slice(0, 5);
    assert.deepEqual(
      unexplained,
      [],
      `seed ${SEED}: reproduce with OPENAPI_PROBE_SEED=${SEED} OPENAPI_PROBE_SCHEMAS=${COUNT}`,
    );
  });
});

/** The new kinds, each on a minimal schema (`#/components/schemas/Root`) and value: tsc and the checker should agree. */
const PINS: { kind: keyof typeof NEW_KINDS; openapi: '3.0.3' | '3.1.0'; schemas: Node; value: unknown }[] = [
  {
    kind: 'untyped keywords in an anyOf or oneOf branch',
    openapi: '3.0.3',
    schemas: { Root: { anyOf: [{ additionalProperties: { not: {} } }] } },
    value: 'a',
  },
  {
    kind: 'a branch rendered unknown in anyOf or oneOf',
    openapi: '3.1.0',
    schemas: { Root: { anyOf: [{ const: null }, { not: { pattern: '^a' } }] } },
    value: 'ab',
  },
  {
    kind: 'a branch rendered unknown in anyOf or oneOf',
    openapi: '3.0.3',
    schemas: { Root: { oneOf: [{ type: 'object', required: ['c'] }, { not: {} }] } },
    value: {},
  },
  {
    kind: 'patternProperties not rendered',
    openapi: '3.1.0',
    schemas: { Root: { type: 'object', patternProperties: { '^a': { type: 'array' } } } },
    value: { a: 1 },
  },
  {
    kind: 'an object type admits an array or a primitive in an intersection',
    openapi: '3.1.0',
    schemas: { Root: { allOf: [{ type: 'object', properties: { a: {} } }, { enum: [[1, 'a'], { a: 1 }] }] } },
    value: [1, 'a'],
  },
  {
    kind: 'a component that reaches itself renders a circular alias',
    openapi: '3.0.3',
    schemas: { S0: { allOf: [{ $ref: '#/components/schemas/S0' }] }, Root: { $ref: '#/components/schemas/S0' } },
    value: 1,
  },
  {
    kind: 'dependentRequired and dependentSchemas beside a type that is no object',
    openapi: '3.1.0',
    schemas: { Root: { type: ['object', 'null'], dependentRequired: { c: ['a'] } } },
    value: null,
  },
  {
    // First found as an untyped branch; its cause is dependentSchemas read as an object beside no `type`.
    kind: 'dependentRequired and dependentSchemas beside a type that is no object',
    openapi: '3.1.0',
    schemas: { Root: { type: 'object', additionalProperties: { anyOf: [{ dependentSchemas: { b: false } }] } } },
    value: { aa: 0.3 },
  },
  {
    kind: 'if/then/else rendered as both outcomes',
    openapi: '3.1.0',
    schemas: { Root: { if: { type: 'number' }, then: { type: 'boolean' } } },
    value: 1,
  },
  {
    kind: 'unevaluatedItems and unevaluatedProperties not rendered',
    openapi: '3.1.0',
    schemas: { Root: { type: 'array', unevaluatedItems: { type: 'number' } } },
    value: [''],
  },
  {
    kind: 'unevaluatedItems and unevaluatedProperties not rendered',
    openapi: '3.1.0',
    schemas: { Root: { type: 'object', unevaluatedProperties: { type: 'number' } } },
    value: { a: '' },
  },
  {
    kind: 'untyped keywords in an anyOf or oneOf branch',
    openapi: '3.1.0',
    schemas: { Root: { type: 'array', prefixItems: [{ oneOf: [{ required: ['c'] }] }] } },
    value: ['bc9'],
  },
  {
    kind: "TypeScript's weak-type check inside a union",
    openapi: '3.1.0',
    schemas: { Root: { oneOf: [{ type: 'object', properties: { a: {} } }, { type: 'array' }] } },
    value: { z: 'ab' },
  },
  {
    kind: 'if/then/else rendered as both outcomes',
    openapi: '3.1.0',
    schemas: {
      Root: { if: { oneOf: [{ type: 'array' }, { required: ['b'] }] }, then: { type: 'null' }, else: { enum: [''] } },
    },
    value: null,
  },
  {
    kind: 'additionalProperties through a $ref',
    openapi: '3.0.3',
    schemas: {
      S0: { type: 'array' },
      Root: { type: 'object', required: ['c'], additionalProperties: { $ref: '#/components/schemas/S0' } },
    },
    value: { c: {} },
  },
  {
    kind: 'dependentRequired and dependentSchemas beside a type that is no object',
    openapi: '3.1.0',
    schemas: { Root: { type: ['object', 'integer'], dependentSchemas: { b: { const: 1 } } } },
    value: 7,
  },
  {
    kind: 'an object type admits an array or a primitive in an intersection',
    openapi: '3.0.3',
    schemas: { Root: { allOf: [{ type: 'boolean' }, { type: 'object', properties: { b: {} } }] } },
    value: true,
  },
  {
    kind: 'recursion through an item read as a circular alias',
    openapi: '3.0.3',
    schemas: {
      S0: { oneOf: [{ type: 'array', items: { $ref: '#/components/schemas/S0', nullable: true } }] },
      Root: { $ref: '#/components/schemas/S0' },
    },
    value: 'a',
  },
];

let pinned: Comparison[] | undefined;

/** The pins compared, all in one program (compiled once, on the first pin's test). */
function pinComparisons(): Comparison[] {
  if (pinned) return pinned;
  const cases: OracleCase[] = [];
  const groups = PINS.map((pin, index) => {
    const doc = {
      openapi: pin.openapi,
      info: { title: 'pin', version: '1' },
      paths: {},
      components: { schemas: pin.schemas },
    };
    const schema = pin.schemas.Root;
    const { typescript } = renderTypeScriptWithin(doc, schema, 'Root', 'response', undefined, 1e9, 1e8);
    cases.push({ id: pin.kind, doc, schema, at: '#/components/schemas/Root', value: pin.value });
    return { declarations: typescript, members: [{ index, type: 'Root' }] };
  });
  return (pinned = compare(cases, groups));
}

/**
 * Kinds fixed since they were found: their pins assert (a reference on a circular alias is now `unknown`, as the checks read it, and the declaration keeps its other keywords; an
 * anyOf or oneOf branch without `type` also admits the other JSON types its context allows; a prefix or suffix pattern
 * is a template literal index signature, any other pattern a known deviation; `not: {}` is `never`, and a union whose
 * branch fails only on a keyword no type says is a known deviation, the oracle's `excuse`; a condition on `type` alone
 * is exact, any other admits either outcome, a known deviation; the types allOf's branches all admit keep an enum's
 * values and a type list's members, and none at all is `never`; dependentRequired and dependentSchemas admit every
 * JSON type but object that the context allows; unevaluated* with nothing beside them that evaluates in place are
 * items and additionalProperties, elsewhere a known deviation; a required name no `properties` declares is typed by
 * additionalProperties, `never` beside additionalProperties: false; an open object type whose properties are all
 * optional carries `[key: symbol]: unknown`, which turns TypeScript's weak-type check off, also where allOf merges into it alone).
 */
const FIXED_KINDS = new Set<keyof typeof NEW_KINDS>([
  'a component that reaches itself renders a circular alias',
  'untyped keywords in an anyOf or oneOf branch',
  'patternProperties not rendered',
  'a branch rendered unknown in anyOf or oneOf',
  'if/then/else rendered as both outcomes',
  'an object type admits an array or a primitive in an intersection',
  'dependentRequired and dependentSchemas beside a type that is no object',
  'unevaluatedItems and unevaluatedProperties not rendered',
  'additionalProperties through a $ref',
  "TypeScript's weak-type check inside a union",
  'recursion through an item read as a circular alias',
]);

describe('TypeScript types against the checker: the new kinds found on generated schemas, pinned', () => {
  PINS.forEach((pin, index) =>
    it(
      `${pin.kind}: ${JSON.stringify(pin.schemas.Root)} with ${JSON.stringify(pin.value)}`,
      FIXED_KINDS.has(pin.kind) ? {} : { todo: NEW_KINDS[pin.kind].reason },
      () => {
        const comparison = pinComparisons()[index]!;
        assert.equal(comparison.known ?? true, true, comparison.reason);
      },
    ),
  );
});

/** The renderings the fixed kinds now give, exactly; tsc's verdict on them is the pins' and the run's. */
describe('TypeScript types for the fixed kinds (issue 15)', () => {
  const render = (schema: unknown, openapi = '3.1.0', schemas: Node = {}) =>
    renderTypeScriptWithin({ openapi, components: { schemas } }, schema, 'T', 'response').typescript;

  it('widens an anyOf or oneOf branch without type by the JSON types its context allows, and by none beside type: object', () => {
    assert.deepEqual(
      [
        render({ anyOf: [{ type: 'string' }, { required: ['c'] }] }),
        render({ type: ['object', 'null'], oneOf: [{ required: ['a'] }, { required: ['b'] }] }),
        render({ type: 'object', anyOf: [{ required: ['a'] }] }),
        render({ oneOf: [{ $ref: '#/components/schemas/S' }, { type: 'object' }] }, '3.0.3', {
          S: { items: { type: 'string' } },
        }),
      ],
      [
        'export type T = string | {\n  c: unknown;\n} | null | boolean | number | unknown[];\n',
        'export type T = ({\n  [key: string]: unknown;\n} | null) & ({\n  a: unknown;\n} | null | {\n  b: unknown;\n});\n',
        'export type T = {\n  [key: string]: unknown;\n} & {\n  a: unknown;\n};\n',
        'export type T = S | null | boolean | number | string | { [key: string]: unknown } | {\n  [key: string]: unknown;\n};\n\nexport type S = string[];\n',
      ],
    );
  });

  it('lets the other JSON types pass an anyOf or oneOf branch whose own keywords give the shape, where they pass its allOf too', () => {
    assert.deepEqual(
      [
        render({ oneOf: [{ properties: { b: { type: 'boolean' } }, allOf: [{ enum: [{ a: 1 }, 1] }] }] }),
        render({ oneOf: [{ type: 'object' }, { properties: { a: {} }, allOf: [{ if: false, then: {} }] }] }),
      ],
      [
        'export type T = (({ a: 1; } | 1) & {\n  b?: boolean;\n}) | (null | boolean | number | string | unknown[]) & ({ a: 1; } | 1);\n',
        'export type T = {\n  [key: string]: unknown;\n} | {\n  a?: unknown;\n} | (null | boolean | number | string | unknown[]);\n',
      ],
    );
  });

  it('writes a prefix or suffix patternProperties pattern as a template literal index signature, and says which patterns it cannot', () => {
    assert.deepEqual(
      [
        render({ type: 'object', patternProperties: { '^a': { type: 'array' } } }),
        render({
          type: 'object',
          required: ['x-id'],
          properties: { 'x-id': { type: 'string' } },
          patternProperties: { '^x-': { type: ['string', 'integer'] }, '\\.json$': { type: 'boolean' }, 'a|b': {} },
          additionalProperties: { type: 'null' },
        }),
      ],
      [
        'export type T = {\n  [key: `a${string}`]: unknown[];\n};\n',
        [
          'export type T = {',
          '  "x-id": string & (string | number);',
          '  [key: `x-${string}`]: (string | number) | (string & (string | number));',
          '  [key: `${string}.json`]: boolean;',
          '  // 1 patternProperties pattern no template literal type can say: such fields are typed by the index signature',
          '  [key: string]: unknown;',
          '};',
          '',
        ].join('\n'),
      ],
    );
  });

  it('reads patternProperties without type as an object shape, beside allOf and in an anyOf branch as the other object keywords are', () => {
    assert.deepEqual(
      [
        render({ patternProperties: { '^a': { type: 'integer' } }, allOf: [{}] }),
        render({ anyOf: [{ patternProperties: { '^a': { type: 'integer' } } }] }),
      ],
      [
        'export type T = {\n  [key: `a${string}`]: number;\n};\n',
        'export type T = {\n  [key: `a${string}`]: number;\n} | null | boolean | number | string | unknown[];\n',
      ],
    );
  });

  it('writes not: {} as never, so the union keeps its other branches', () => {
    assert.deepEqual(
      [render({ oneOf: [{ type: 'object', required: ['c'] }, { not: {} }] }), render({ not: true })],
      ['export type T = {\n  c: unknown;\n};\n', 'export type T = never;\n'],
    );
  });

  it('writes a condition on type alone exactly, and says where any other condition admits either outcome', () => {
    assert.deepEqual(
      [
        render({ if: { type: 'number' }, then: { type: 'boolean' } }),
        render({ type: 'object', if: { required: ['a'] }, then: { required: ['b'] }, else: { required: ['c'] } }),
        render({ if: { minimum: 1 }, then: { type: 'string' } }),
      ],
      [
        'export type T = (number & boolean) | (null | boolean | string | unknown[] | { [key: string]: unknown });\n',
        'export type T = {\n  [key: string]: unknown;\n} & (({\n  a: unknown;\n} & {\n  b: unknown;\n}) | {\n  c: unknown;\n} /* if/then/else: either outcome is admitted */);\n',
        'export type T = unknown;\n',
      ],
    );
  });

  it('reads then and else without type as a union branch is: their object keywords let the other JSON types through', () => {
    assert.equal(
      render({
        if: { type: 'string' },
        then: { minLength: 1 },
        else: { additionalProperties: true, allOf: [{ type: 'array' }] },
      }),
      'export type T = string | ((null | boolean | number | unknown[] | { [key: string]: unknown }) & ((unknown[] & {\n  [key: string]: unknown;\n}) | (null | boolean | number | string | unknown[]) & unknown[]));\n',
    );
  });

  it('keeps of an enum or a type list only the JSON types every allOf branch admits, and writes disjoint types as never', () => {
    assert.deepEqual(
      [
        render({ allOf: [{ type: 'object', properties: { a: {} } }, { enum: [[1, 'a'], { a: 1 }] }] }),
        render({ allOf: [{ type: 'boolean' }, { type: 'object', properties: { b: {} } }] }, '3.0.3'),
        render({ type: ['string', 'null'], allOf: [{ $ref: '#/components/schemas/S' }] }, '3.1.0', {
          S: { type: ['string', 'number'] },
        }),
      ],
      [
        'export type T = { a: 1; } & {\n  a?: unknown;\n};\n',
        'export type T = never;\n',
        'export type T = string & S;\n\nexport type S = string | number;\n',
      ],
    );
  });

  it('lets every JSON type but object that the context allows pass dependentRequired and dependentSchemas', () => {
    assert.deepEqual(
      [
        render({ type: ['object', 'null'], dependentRequired: { c: ['a'] } }),
        render({ dependentSchemas: { b: { items: {} } } }),
      ],
      [
        'export type T = ({\n  [key: string]: unknown;\n} | null) & ({ c?: undefined; [key: string]: unknown } | null | { c: unknown; a: unknown; });\n',
        'export type T = { b?: undefined; [key: string]: unknown } | null | boolean | number | string | unknown[] | (unknown[] | { [key: string]: unknown });\n',
      ],
    );
  });

  it('reads unevaluatedItems and unevaluatedProperties as items and additionalProperties where nothing evaluates in place', () => {
    assert.deepEqual(
      [
        render({ type: 'array', prefixItems: [{ type: 'string' }], unevaluatedItems: { type: 'number' } }),
        render({ type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: { type: 'number' } }),
        render({ type: 'array', allOf: [{ prefixItems: [{}] }], unevaluatedItems: false }),
      ],
      [
        'export type T = [string?, ...number[]];\n',
        'export type T = {\n  a?: string;\n  [key: string]: number | string | undefined;\n};\n',
        'export type T = unknown[] & [unknown?, ...unknown[]];\n',
      ],
    );
  });

  it('gives an open object type whose properties are all optional a symbol index signature, also merged from allOf, and a closed one none', () => {
    assert.deepEqual(
      [
        render({ oneOf: [{ type: 'object', properties: { a: {} } }, { type: 'array' }] }),
        render({ type: 'object', properties: { a: {} }, additionalProperties: false }),
        render({ type: 'object', required: ['a'], properties: { a: {}, b: {} } }),
        render({ type: 'object', properties: { a: {} }, allOf: [{ properties: { b: {} } }] }),
      ],
      [
        'export type T = {\n  a?: unknown;\n  [key: symbol]: unknown;\n} | unknown[];\n',
        'export type T = {\n  a?: unknown;\n};\n',
        'export type T = {\n  a: unknown;\n  b?: unknown;\n};\n',
        'export type T = {\n  a?: unknown;\n  b?: unknown;\n  [key: symbol]: unknown;\n};\n',
      ],
    );
  });

  it('writes a reference that leads back to its own declaration outside any property or item as unknown, keeping the other keywords', () => {
    assert.deepEqual(
      [
        render({ $ref: '#/components/schemas/S0' }, '3.0.3', {
          S0: { allOf: [{ $ref: '#/components/schemas/S0' }, { type: 'object', minProperties: 2 }] },
        }),
        render({ $ref: '#/components/schemas/S0' }, '3.0.3', { S0: { allOf: [{ $ref: '#/components/schemas/S0' }] } }),
      ],
      [
        'export type T = S0;\n\nexport type S0 = unknown /* S0: its $refs lead back to it outside any property or item */ & {\n  [key: string]: unknown;\n};\n',
        'export type T = S0;\n\nexport type S0 = unknown /* S0: its $refs lead back to it outside any property or item */;\n',
      ],
    );
  });

  it('keeps recursion through an item when a comment sits between the name and []', () => {
    assert.equal(
      render({ $ref: '#/components/schemas/S0' }, '3.0.3', {
        S0: { type: 'array', items: { $ref: '#/components/schemas/S0', nullable: true } },
      }),
      'export type T = S0;\n\nexport type S0 = S0 /* nullable beside $ref is ignored (OAS 3.0.3) */[];\n',
    );
  });

  it('types a required name no properties declare by additionalProperties, and as never beside additionalProperties: false', () => {
    assert.deepEqual(
      [
        render(
          { type: 'object', required: ['c'], additionalProperties: { $ref: '#/components/schemas/S0' } },
          '3.0.3',
          {
            S0: { type: 'array' },
          },
        ),
        render({ type: 'object', required: ['a', 'c'], properties: { a: {} }, additionalProperties: false }),
      ],
      [
        'export type T = {\n  c: S0;\n  [key: string]: S0;\n};\n\nexport type S0 = unknown[];\n',
        'export type T = {\n  a: unknown;\n  c: never;\n};\n',
      ],
    );
  });
});

describe("the oracle's reading of a schema without type (issue 15)", () => {
  it('finds object keywords without type under a patternProperties entry whose pattern matches the field', () => {
    const schema = { patternProperties: { '^x-': { patternProperties: { b$: {} } } } };
    assert.deepEqual(
      [untypedReading({}, schema, { 'x-a': ' ' }), untypedReading({}, schema, { y: ' ' })],
      [true, false],
    );
  });
});
