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
