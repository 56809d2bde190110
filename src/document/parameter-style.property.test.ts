/**
 * A property-based round trip of parameter-style.ts (issue 15): for every style, explode and location the
 * specification allows (and Swagger 2.0's collection formats, `allowReserved`, `content`), a generated value
 * serialized and parsed back is the same value. Values hold hostile characters: reserved ones, `&`, `=`, `,`,
 * `|`, space, `[`, `]`, `%`, `+`, `.`, `;`, non-ASCII. The seed is printed; set PARAMETER_STYLE_SEED to replay one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import { parse, serialize, splitCookies, splitQuery } from './parameter-style.ts';
import type { ParameterLocation, Serialization } from './parameter-style.ts';

const SEED = Number(process.env.PARAMETER_STYLE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = 1_000;

const HOSTILE = [':', '/', '?', '#', '[', ']', '@', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '='];
const UNIT = fc.oneof(
  fc.constantFrom(...HOSTILE, '%', '|', ' ', '\t', '.', '~', '-', '_', '"', '%41', '%2C'),
  fc.constantFrom('a', 'b', 'Z', '0', '9'),
  fc.constantFrom('é', 'ß', '日', '😀', '\u00a0'),
);
const text = fc.string({ unit: UNIT, maxLength: 8 });

type Kind = 'string' | 'integer' | 'number' | 'boolean';
const primitiveOf: Record<Kind, fc.Arbitrary<unknown>> = {
  string: text,
  integer: fc.integer({ min: -1e12, max: 1e12 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  boolean: fc.boolean(),
};
const kind = fc.constantFrom<Kind>('string', 'integer', 'number', 'boolean');

/** fast-check's dictionaries have no prototype: the same own properties on a plain object (`__proto__` a key). */
function plain(generated: Record<string, unknown>): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(generated))
    Object.defineProperty(value, key, { value: member, enumerable: true, writable: true, configurable: true });
  return value;
}

type Shape = 'primitive' | 'array' | 'object' | 'json';
/** A value of the shape with the schema it is read back with. */
function valueOf(shape: Exclude<Shape, 'json'>): fc.Arbitrary<{ value: unknown; schema: unknown }> {
  return kind.chain((type): fc.Arbitrary<{ value: unknown; schema: unknown }> => {
    const primitive = primitiveOf[type];
    if (shape === 'primitive') return primitive.map((value) => ({ value, schema: { type } }));
    if (shape === 'array')
      // A single empty string is written as the empty array is (see the module's docstring): left out.
      return fc
        .array(primitive, { minLength: 1, maxLength: 4 })
        .filter((items) => !(items.length === 1 && items[0] === ''))
        .map((value) => ({ value, schema: { type: 'array', items: { type } } }));
    return fc
      .dictionary(fc.oneof(text, fc.constant('__proto__')), primitive, { minKeys: 1, maxKeys: 4 })
      .map((generated) => ({ value: plain(generated), schema: { type: 'object', additionalProperties: { type } } }));
  });
}

type Combination = { options: Serialization; shapes: Shape[]; carries?: string };
const all: Shape[] = ['primitive', 'array', 'object'];
const combinations: Combination[] = [];
const add = (location: ParameterLocation, extra: Partial<Serialization>, shapes: Shape[], carries?: string) =>
  combinations.push({ options: { name: 'color', location, ...extra }, shapes, ...(carries ? { carries } : {}) });
for (const explode of [false, true]) {
  for (const style of ['simple', 'label', 'matrix']) add('path', { style, explode }, all);
  add('header', { style: 'simple', explode }, all);
  add('query', { style: 'form', explode }, all);
  add('query', { style: 'form', explode, allowReserved: true }, all);
  add('cookie', { style: 'form', explode }, all);
}
add('query', { style: 'spaceDelimited', explode: false }, ['array', 'object'], ' ');
add('query', { style: 'pipeDelimited', explode: false }, ['array', 'object'], '|');
add('query', { style: 'pipeDelimited', explode: false, allowReserved: true }, ['array', 'object'], '|');
add('query', { style: 'deepObject', explode: true }, ['object']);
for (const location of ['query', 'path', 'header'] as const)
  for (const format of ['csv', 'ssv', 'tsv', 'pipes'])
    add(
      location,
      { collectionFormat: format },
      ['array'],
      ({ ssv: ' ', tsv: '\t', pipes: '|' } as Record<string, string>)[format],
    );
add('query', { collectionFormat: 'multi' }, ['array']);
for (const location of ['query', 'path', 'header', 'cookie'] as const)
  add(location, { contentType: 'application/json' }, ['json']);
add('query', { contentType: 'application/json', allowReserved: true }, ['json']);

function inputOf(serialized: string, location: ParameterLocation) {
  return location === 'query' ? splitQuery(serialized) : location === 'cookie' ? splitCookies(serialized) : serialized;
}

/** One round trip: the value back, or a refusal only where the style cannot carry a character the value holds. */
function roundTrip(combination: Combination, value: unknown, schema: unknown): void {
  const written = serialize(value, combination.options);
  if ('refused' in written) {
    const texts = Array.isArray(value)
      ? value.map(String)
      : Object.entries(value as object)
          .flat()
          .map(String);
    assert.ok(
      combination.carries !== undefined && texts.some((one) => one.includes(combination.carries!)),
      `refused: ${written.refused}`,
    );
    return;
  }
  const read = parse(inputOf(written.text, combination.options.location), { ...combination.options, schema });
  assert.ok('value' in read, `${written.text} -> ${JSON.stringify(read)}`);
  assert.deepEqual(read.value, value, written.text);
}

describe(`parameter styles round trip value -> serialize -> parse (seed ${SEED}, ${RUNS} runs each)`, () => {
  for (const combination of combinations) {
    for (const shape of combination.shapes) {
      const { name: _name, ...shown } = combination.options;
      it(`${combination.options.location} ${JSON.stringify(shown)} ${shape}`, (t) => {
        t.diagnostic(`seed ${SEED}`);
        const values =
          shape === 'json'
            ? fc
                .jsonValue()
                .filter((json) => {
                  try {
                    assert.deepStrictEqual(JSON.parse(JSON.stringify(json)), json);
                    return true;
                  } catch {
                    return false;
                  }
                })
                .map((value) => ({ value, schema: {} }))
            : valueOf(shape as Exclude<Shape, 'json'>);
        fc.assert(
          fc.property(values, ({ value, schema }) => roundTrip(combination, value, schema)),
          { seed: SEED, numRuns: RUNS },
        );
      });
    }
  }
});
