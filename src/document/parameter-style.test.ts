import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { parse, serialize, splitCookies, splitQuery } from './parameter-style.ts';
import type { ParameterLocation, Serialization } from './parameter-style.ts';

type Cell = 'empty' | 'string' | 'array' | 'object';
type Row = { style: string; explode: boolean; follows?: Partial<Record<Cell, { text: string; why: string }>> } & Record<
  Cell,
  string
>;
const TABLE = JSON.parse(readFileSync(new URL('../../fixtures/style-examples.json', import.meta.url), 'utf8')) as {
  name: string;
  values: Record<Cell, unknown>;
  locations: Record<string, ParameterLocation>;
  rows: Row[];
};

/** The schema each column's value is read with. */
const SCHEMAS: Record<Cell, unknown> = {
  empty: { type: 'string' },
  string: { type: 'string' },
  array: { type: 'array', items: { type: 'string' } },
  object: {
    type: 'object',
    properties: { R: { type: 'integer' }, G: { type: 'integer' }, B: { type: 'integer' } },
  },
};

/** The parse input for a serialized text: the segment or value, or the query's pairs. */
function inputOf(text: string, location: ParameterLocation) {
  return location === 'query' ? splitQuery(text) : location === 'cookie' ? splitCookies(text) : text;
}

describe('parameter styles: the Style Examples table of OpenAPI 3.0.3 §4.7.12', () => {
  for (const row of TABLE.rows) {
    const options: Serialization = {
      name: TABLE.name,
      location: TABLE.locations[row.style]!,
      style: row.style,
      explode: row.explode,
    };
    for (const cell of ['empty', 'string', 'array', 'object'] as const) {
      const printed = row[cell];
      const text = row.follows?.[cell]?.text ?? printed;
      const title = `${row.style}, explode ${row.explode}, ${cell}`;
      if (printed === 'n/a' && row.follows?.[cell] === undefined) {
        it(`refuses ${title} (n/a) in both directions`, () => {
          assert.ok('refused' in serialize(TABLE.values[cell], options), 'serialize refuses');
          const read = parse(inputOf(`${TABLE.name}=blue`, options.location), { ...options, schema: SCHEMAS[cell] });
          assert.ok('refused' in read, `parse refuses, got ${JSON.stringify(read)}`);
        });
        continue;
      }
      it(`writes ${title} as ${JSON.stringify(text)}`, () => {
        assert.deepEqual(serialize(TABLE.values[cell], options), { text });
      });
      it(`reads ${JSON.stringify(text)} as ${title}`, () => {
        const read = parse(inputOf(text, options.location), { ...options, schema: SCHEMAS[cell] });
        assert.ok('value' in read, JSON.stringify(read));
        assert.deepEqual(read.value, TABLE.values[cell]);
      });
    }
  }

  it('reads the 3.1.1 spellings too: %7C for pipes, %5B %5D for deepObject brackets', () => {
    const pipes = parse(splitQuery('color=blue%7Cblack%7Cbrown'), {
      name: 'color',
      location: 'query',
      style: 'pipeDelimited',
      explode: false,
      schema: SCHEMAS.array,
    });
    assert.deepEqual(pipes, { value: ['blue', 'black', 'brown'], used: [0] });
    const deep = parse(splitQuery('color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150'), {
      name: 'color',
      location: 'query',
      style: 'deepObject',
      explode: true,
      schema: SCHEMAS.object,
    });
    assert.deepEqual(deep, { value: { R: 100, G: 200, B: 150 }, used: [0, 1, 2] });
  });
});

describe('parameter styles: fixed cases from the round trip and the documented choices', () => {
  const query = (extra: Partial<Serialization>): Serialization => ({ name: 'color', location: 'query', ...extra });

  it('seed 1812127014: an exploded form object with allowReserved keeps a leading "?" key as data', () => {
    const options = query({ explode: true, allowReserved: true });
    const written = serialize({ '?': 0 }, options);
    assert.deepEqual(written, { text: '?=0' });
    const schema = { type: 'object', additionalProperties: { type: 'number' } };
    assert.deepEqual(parse(splitQuery('?=0'), { ...options, schema }), { value: { '?': 0 }, used: [0] });
  });

  it('seed 1812127014: pipeDelimited refuses a value holding "|", which %7C cannot tell from the delimiter', () => {
    assert.deepEqual(
      [
        serialize(['|'], query({ style: 'pipeDelimited', explode: false })),
        serialize(['a', 'b'], query({ style: 'pipeDelimited', explode: false })),
      ],
      [{ refused: 'a value holds the delimiter of pipeDelimited, which it cannot carry' }, { text: 'color=a|b' }],
    );
  });

  it('writes an empty array as the empty string is, and reads it back as [] under an array schema', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const path: Serialization = { name: 'color', location: 'path', style: 'matrix' };
    assert.deepEqual(
      [serialize([], path), parse(';color', { ...path, schema }), serialize([], query({ explode: true }))],
      [{ text: ';color' }, { value: [], used: [] }, { text: '' }],
    );
  });

  it('reads a deepObject member named __proto__ as an own property, leaving the prototype alone', () => {
    const read = parse(splitQuery('color[__proto__]=1'), {
      ...query({ style: 'deepObject', explode: true }),
      schema: { type: 'object', additionalProperties: { type: 'integer' } },
    });
    assert.ok('value' in read);
    const value = read.value as Record<string, unknown>;
    assert.deepEqual(
      [Object.getPrototypeOf(value) === Object.prototype, Object.keys(value), value['__proto__']],
      [true, ['__proto__'], 1],
    );
  });

  it('refuses nested deepObject keys, which the specification does not define', () => {
    assert.deepEqual(
      parse(splitQuery('color[a][b]=1'), {
        ...query({ style: 'deepObject', explode: true }),
        schema: { type: 'object' },
      }),
      { refused: 'nested deepObject keys (color[a][b]) are not defined' },
    );
  });

  it('converts text only where its schema names the type: "5" under string, integer and ["integer","null"]', () => {
    const path: Serialization = { name: 'id', location: 'path' };
    assert.deepEqual(
      [
        parse('5', { ...path, schema: { type: 'string' } }),
        parse('5', { ...path, schema: { type: 'integer' } }),
        parse('5', { ...path, schema: { type: ['integer', 'null'] } }),
        parse('five', { ...path, schema: { type: 'integer' } }),
      ],
      [
        { value: '5', used: [] },
        { value: 5, used: [] },
        { value: 5, used: [] },
        { value: 'five', used: [] },
      ],
    );
  });

  it('reads a JSON content parameter without converting its text', () => {
    assert.deepEqual(
      parse(splitQuery('q=%7B%22n%22%3A%225%22%7D'), {
        ...query({ contentType: 'application/json' }),
        name: 'q',
        schema: { type: 'object' },
      }),
      { value: { n: '5' }, used: [0] },
    );
  });

  it('refuses multi outside the query and a style from another location', () => {
    assert.deepEqual(
      [
        serialize(['a'], { name: 'h', location: 'header', collectionFormat: 'multi' }),
        serialize('a', { name: 'h', location: 'header', style: 'form' }),
        parse('.a', { name: 'p', location: 'path', style: 'deepObject' }),
      ],
      [
        { refused: 'collectionFormat multi is only defined for query parameters' },
        { refused: 'style form is not defined for header parameters' },
        { refused: 'style deepObject is not defined for path parameters' },
      ],
    );
  });
});
