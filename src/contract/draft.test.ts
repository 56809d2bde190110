// draft_request reads each concrete path segment by its parameter's style, with the reader probe uses, and names the
// segment the document expects when the given one does not read (issue 15, attack round). The oracle is the Style
// Examples table of OpenAPI 3.0.3 §4.7.12 (fixtures/style-examples.json).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draftRequest } from './draft.ts';
import { loadDocument } from '../document/openapi-document.ts';
import type { LoadedDocument } from '../document/model.ts';

type Row = { style: string; explode: boolean; follows?: Record<string, { text: string }> } & Record<string, unknown>;
const TABLE = JSON.parse(readFileSync(new URL('../../fixtures/style-examples.json', import.meta.url), 'utf8')) as {
  rows: Row[];
};
const PATH_ROWS = TABLE.rows.filter((row) => ['matrix', 'label', 'simple'].includes(row.style));
const KINDS = {
  string: { type: 'string' },
  array: { type: 'array', items: { type: 'string' } },
  object: {
    type: 'object',
    properties: { R: { type: 'integer' }, G: { type: 'integer' }, B: { type: 'integer' } },
  },
} as const;
type Kind = keyof typeof KINDS;

/** A table cell as this project writes it (the `follows` text where the table disagrees with the specification). */
const cell = (row: Row, kind: Kind): string => row.follows?.[kind]?.text ?? (row[kind] as string);
const prefixOf = (row: Row, kind: Kind) => `/${row.style}-${row.explode}-${kind}`;

/** One GET operation per path row and value kind (`/matrix-false-array/{color}`), loaded from a file. */
async function styleDocument(): Promise<LoadedDocument> {
  const paths: Record<string, unknown> = {};
  for (const row of PATH_ROWS)
    for (const kind of Object.keys(KINDS) as Kind[])
      paths[`${prefixOf(row, kind)}/{color}`] = {
        get: {
          parameters: [
            { name: 'color', in: 'path', required: true, style: row.style, explode: row.explode, schema: KINDS[kind] },
          ],
          responses: { '200': { description: 'ok' } },
        },
      };
  paths['/ids/{id}'] = {
    get: {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: { '200': { description: 'ok' } },
    },
  };
  const file = join(mkdtempSync(join(tmpdir(), 'draft-styles-')), 'openapi.json');
  writeFileSync(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'styles', version: '1' }, paths }));
  return loadDocument(file);
}

/** The segment a draft's path problem for `name` says the document expects, or what the draft said instead. */
function suggested(loaded: LoadedDocument, path: string, name: string): string {
  const { problems } = draftRequest(loaded, {
    method: 'GET',
    url: new URL(`https://api.test${path}`),
    basePrefix: '',
    keyHeader: 'Authorization',
  });
  const problem = problems.find((one) => one.in === 'path' && one.name === name);
  if (!problem) return 'no problem';
  const expected = /; the document expects the segment `([^`]*)` \(style (\w+), explode (\w+)\)/.exec(problem.message);
  return expected ? `${expected[1]} (${expected[2]}, ${expected[3]})` : `no suggestion: ${problem.message}`;
}

describe('draft_request names the path segment its style expects (OpenAPI 3.0.3 §4.7.12 Style Examples)', () => {
  let loaded: LoadedDocument;
  before(async () => {
    loaded = await styleDocument();
  });
  // matrix and label segments start with `;` or `.`: a segment written in another style does not read.
  for (const own of PATH_ROWS.filter((row) => row.style !== 'simple'))
    for (const kind of Object.keys(KINDS) as Kind[]) {
      it(`${own.style}, explode ${own.explode}, ${kind}: every other path style's cell gets ${cell(own, kind)}`, () => {
        // A list written with the same style's other explode reads as a list of one string (`;color=blue,black,brown`
        // under matrix exploded is ["blue,black,brown"]): a value the schema allows, so no problem is right there.
        const others = PATH_ROWS.filter(
          (row) => row !== own && cell(row, kind) !== cell(own, kind) && (kind !== 'array' || row.style !== own.style),
        );
        assert.deepStrictEqual(
          others.map((row) => suggested(loaded, `${prefixOf(own, kind)}/${cell(row, kind)}`, 'color')),
          others.map(() => `${cell(own, kind)} (${own.style}, ${own.explode})`),
        );
      });
    }
  it('names 5 for a simple integer given as ;id=5 (matrix) or .5 (label)', () => {
    assert.deepStrictEqual(
      [suggested(loaded, '/ids/;id=5', 'id'), suggested(loaded, '/ids/.5', 'id'), suggested(loaded, '/ids/5', 'id')],
      ['5 (simple, false)', '5 (simple, false)', 'no problem'],
    );
  });
});

describe('draft_request and a header given twice in different case (attack round)', () => {
  it('lists the second spelling as a repeated header, naming both (RFC 9110, 5.1)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'draft-headers-')), 'openapi.json');
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'headers', version: '1' },
        paths: { '/notes': { post: { responses: { '201': { description: 'made' } } } } },
      }),
    );
    const { problems, matchesContract } = draftRequest(await loadDocument(file), {
      method: 'POST',
      url: new URL('https://api.test/notes'),
      basePrefix: '',
      keyHeader: 'Authorization',
      headers: { 'X-Trace': 'a', 'x-trace': 'b' },
    });
    assert.deepEqual(
      [matchesContract, problems],
      [
        false,
        [
          {
            in: 'header',
            name: 'x-trace',
            kind: 'repeated',
            severity: 'error',
            message:
              'is given twice, as X-Trace and x-trace: header names are case-insensitive (RFC 9110, 5.1), so the check read X-Trace only; give it once',
          },
        ],
      ],
    );
  });

  it('checks the first spelling, as the problem says: a second that breaks the schema is not read', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'draft-headers-')), 'openapi.json');
    const parameters = [{ name: 'X-Trace', in: 'header', required: true, schema: { type: 'string', maxLength: 1 } }];
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'headers', version: '1' },
        paths: { '/notes': { post: { parameters, responses: { '201': { description: 'made' } } } } },
      }),
    );
    const loaded = await loadDocument(file);
    const problems = (headers: Record<string, string>) =>
      draftRequest(loaded, {
        method: 'POST',
        url: new URL('https://api.test/notes'),
        basePrefix: '',
        keyHeader: 'Authorization',
        headers,
      }).problems.map((problem) => `${problem.name} ${problem.kind}`);
    assert.deepEqual(
      [problems({ 'X-Trace': 'a', 'x-trace': 'bb' }), problems({ 'X-TRACE': 'bb', 'x-trace': 'a' })],
      [['x-trace repeated'], ['x-trace repeated', 'X-Trace invalid']],
    );
  });
});
