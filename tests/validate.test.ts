// Tests of validate.ts: the field cases of area response-validator, read from fixtures/cases, and
// table-driven rows of {description, schema, data, findings}.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedText } from '../src/shared/text.ts';
import {
  check,
  checkRequestBody,
  checkResponse,
  fieldPresence,
  MAX_DECLARED_FIELDS,
  measurePresence,
  schemaFor,
} from '../validate.ts';
import { compareWithFixture } from '../src/contract/fixture-diff.ts';
import { inferShape } from '../src/contract/shape.ts';
import { compilePattern } from '../src/schema/pattern.ts';
import { instancePath, resolvePointer } from '../src/shared/json-pointer.ts';
import type { Finding } from '../validate.ts';
import { ajv2020Valid } from '../harness/ajv-oracle.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';

/** The cases name finding kinds their own way; this is the one mapping to ours. */
const KIND = {
  missing_required: 'missing',
  wrong_type: 'wrongType',
  undocumented_field: 'undocumented',
  not_in_enum: 'enum',
  constraint: 'constraint',
  writeonly_in_response: 'writeOnly',
  undocumented_status: 'undocumentedStatus',
} as const;

/** Fields of a finding that a case may name; each named field is compared exactly. */
const COMPARED = ['kind', 'path', 'expected', 'actual', 'allowed', 'keyword', 'severity'] as const;

type CaseFinding = Record<string, unknown> & { kind: keyof typeof KIND };
type Json = any;

function readCase(id: string): Json {
  return JSON.parse(readFileSync(new URL(`../fixtures/cases/${id}.json`, import.meta.url), 'utf8'));
}

/** Expected case findings in our vocabulary, sorted as `check` sorts (by path, then kind). */
function expectedOf(list: CaseFinding[]): Record<string, unknown>[] {
  return list
    .map((f) => {
      const out: Record<string, unknown> = {};
      for (const k of COMPARED) if (k in f) out[k] = k === 'kind' ? KIND[f.kind] : f[k];
      return out;
    })
    .sort((a, b) => String(a.path).localeCompare(String(b.path)) || String(a.kind).localeCompare(String(b.kind)));
}

/** Our findings projected onto the fields the case names. */
function projected(findings: Finding[], expected: Record<string, unknown>[]): Record<string, unknown>[] {
  const keys = new Set(expected.flatMap((e) => Object.keys(e)));
  keys.add('kind');
  if (expected.length === 0) keys.add('path');
  return findings.map((f) => {
    const out: Record<string, unknown> = {};
    for (const k of COMPARED)
      if (keys.has(k) && (f as Record<string, unknown>)[k] !== undefined) out[k] = (f as Record<string, unknown>)[k];
    return out;
  });
}

function assertCase(findings: Finding[], expected: CaseFinding[]): void {
  const exp = expectedOf(expected);
  assert.deepStrictEqual(projected(findings, exp), exp);
}

function respond(
  doc: unknown,
  body: unknown,
  status = 200,
  contentType = 'application/json',
  method = 'get',
  path = '/things',
) {
  return checkResponse(doc, method, path, { status, contentType, body });
}

describe('field cases (area response-validator)', () => {
  const c18 = readCase('18-val-nullable-inside-ref-target');
  for (const k of ['A', 'B', 'C', 'D']) {
    it(`case 18-val-nullable-inside-ref-target body ${k}: nullable inside the $ref target admits null`, () => {
      const r = respond(c18.input.openapi, c18.input.bodies[k]);
      assert.equal(r.validated, true);
      assertCase(r.findings, c18.expected[k]);
    });
  }

  const c19 = readCase('19-val-nullable-enum');
  for (const v of ['variant_30', 'variant_30_fixed', 'variant_31']) {
    it(`case 19-val-nullable-enum ${v}: an enum without null rejects null`, () => {
      assertCase(respond(c19.input[v].openapi, c19.input[v].body).findings, c19.expected[v]);
    });
  }
  it('case 19-val-nullable-enum: the enum finding says the document probably omits null', () => {
    const [f] = respond(c19.input.variant_30.openapi, c19.input.variant_30.body).findings;
    assert.match(f.message, /document probably omits null from the enum/);
  });

  const c21 = readCase('21-val-31-type-arrays');
  for (const k of ['A', 'B', 'C', 'D']) {
    it(`case 21-val-31-type-arrays body ${k}: a 3.1 type array admits any listed type`, () => {
      assertCase(respond(c21.input.variant_main.openapi, c21.input.variant_main.bodies[k]).findings, c21.expected[k]);
    });
  }
  it('case 21-val-31-type-arrays variant_nullable_in_31: nullable is no keyword in 3.1, and the message says so', () => {
    const { findings } = respond(c21.input.variant_nullable_in_31.openapi, c21.input.variant_nullable_in_31.body);
    assertCase(findings, c21.expected.variant_nullable_in_31);
    assert.match(findings[0].message, /`nullable` is not an OpenAPI 3.1 keyword; use type: \["string","null"\]/);
  });

  const c22 = readCase('22-val-allof-documented-union');
  for (const k of ['A', 'B', 'C']) {
    it(`case 22-val-allof-documented-union variant_branch ${k}: a field in any allOf branch is documented`, () => {
      assertCase(
        respond(c22.input.variant_branch.openapi, c22.input.variant_branch.bodies[k]).findings,
        c22.expected.variant_branch[k],
      );
    });
  }
  it('case 22-val-allof-documented-union variant_top_level: additionalProperties false beside allOf sees the union', () => {
    assertCase(
      respond(c22.input.variant_top_level.openapi, c22.input.variant_top_level.body).findings,
      c22.expected.variant_top_level,
    );
  });

  const c24 = readCase('24-val-integer-vs-number');
  it('case 24-val-integer-vs-number: 10.0 and 1e2 are integers, format float says nothing about sign', () => {
    assertCase(respond(c24.input.openapi, JSON.parse(c24.input.raw_body_text)).findings, c24.expected.findings);
  });

  const c26 = readCase('26-val-additionalproperties-map');
  for (const k of ['A', 'B', 'C', 'D']) {
    it(`case 26-val-additionalproperties-map variant_map ${k}: map entries are documented and their values checked`, () => {
      assertCase(
        respond(c26.input.variant_map.openapi, c26.input.variant_map.bodies[k]).findings,
        c26.expected.variant_map[k],
      );
    });
  }
  it('case 26-val-additionalproperties-map variant_not_nullable: nullable false leaves type unchanged', () => {
    assertCase(
      respond(c26.input.variant_not_nullable.openapi, c26.input.variant_not_nullable.body).findings,
      c26.expected.variant_not_nullable,
    );
  });
  it('case 26-val-additionalproperties-map variant_explicit_open: additionalProperties true documents any key', () => {
    assertCase(
      respond(c26.input.variant_explicit_open.openapi, c26.input.variant_explicit_open.body).findings,
      c26.expected.variant_explicit_open.should,
    );
  });

  const c27 = readCase('27-val-media-type-parameters');
  c27.input.responses.forEach((resp: Json, i: number) => {
    it(`case 27-val-media-type-parameters response ${i} (${resp.content_type}): matches the media-type essence`, () => {
      const r = respond(c27.input.openapi, resp.body, 200, resp.content_type);
      assert.equal(r.validated, true);
      assert.equal(r.target?.mediaType, 'application/json');
      assertCase(r.findings, c27.expected.responses[i]);
    });
  });
  it('case 27-val-media-type-parameters variant_spec_key_has_params: a content key with parameters still matches', () => {
    const doc = structuredClone(c27.input.openapi);
    const content = doc.paths['/things'].get.responses['200'].content;
    content['application/json; charset=utf-8'] = content['application/json'];
    delete content['application/json'];
    const v = c27.input.variant_spec_key_has_params;
    const r = respond(doc, v.body, 200, v.content_type);
    assert.equal(r.validated, true);
    assert.equal(r.target?.mediaType, 'application/json; charset=utf-8');
    assertCase(r.findings, c27.expected.variant_spec_key_has_params);
  });

  const c28 = readCase('28-val-status-code-ranges');
  c28.input.responses.forEach((resp: Json, i: number) => {
    it(`case 28-val-status-code-ranges response ${i} (status ${resp.status}): exact, then range, then default`, () => {
      const r = respond(c28.input.openapi, resp.body, resp.status);
      assert.equal(r.validated, true);
      assertCase(r.findings, c28.expected.responses[i]);
    });
  });
  it('case 28-val-status-code-ranges variant_no_default: a status no entry covers is an undocumentedStatus finding', () => {
    const doc = structuredClone(c28.input.openapi);
    delete doc.paths['/things'].get.responses.default;
    const v = c28.input.variant_no_default;
    const r = respond(doc, v.body, v.status);
    assert.equal(r.validated, false);
    const [exp] = c28.expected.variant_no_default;
    assertCase(r.findings, c28.expected.variant_no_default);
    assert.match(r.findings[0].message, new RegExp(`^status ${exp.status} is not documented`));
  });

  const c35 = readCase('35-resp-writeonly-scoping-30');
  c35.input.checks.forEach((chk: Json, i: number) => {
    it(`case 35-resp-writeonly-scoping-30 check ${i} (${chk.kind}): writeOnly is required in requests only`, () => {
      const r =
        chk.kind === 'response'
          ? respond(c35.input.openapi, chk.body, chk.status, 'application/json', 'post', '/accounts/a1')
          : checkRequestBody(c35.input.openapi, 'post', '/accounts/a1', chk.body, 'application/json');
      assert.equal(r.validated, true);
      assertCase(r.findings, c35.expected[i]);
    });
  });
});

/** A 3.0.3 document whose components the table rows point into. */
const DOC30 = {
  openapi: '3.0.3',
  info: { title: 'rows', version: '1' },
  paths: {},
  components: {
    schemas: {
      'a/b~c': { type: 'object', properties: { 'x/y': { type: 'integer' }, 'm~n': { type: 'string' } } },
      'with space': { type: 'string' },
      '~1': { type: 'boolean' },
      A: { $ref: '#/components/schemas/B' },
      B: { $ref: '#/components/schemas/A' },
      Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }], type: 'object', required: ['id'] },
      Node: {
        type: 'object',
        required: ['value'],
        properties: {
          value: { type: 'integer' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
      Cat: {
        type: 'object',
        required: ['petType', 'meow'],
        properties: { petType: { type: 'string' }, meow: { type: 'boolean' } },
      },
      Dog: {
        type: 'object',
        required: ['petType', 'bark'],
        properties: { petType: { type: 'string' }, bark: { type: 'boolean' } },
      },
      Bird: {
        type: 'object',
        required: ['petType', 'wings'],
        properties: { petType: { type: 'string' }, wings: { type: 'integer' } },
      },
      Pet: {
        oneOf: [
          { $ref: '#/components/schemas/Cat' },
          { $ref: '#/components/schemas/Dog' },
          { $ref: '#/components/schemas/Bird' },
        ],
      },
      TypedPet: {
        oneOf: [
          { $ref: '#/components/schemas/Cat' },
          { $ref: '#/components/schemas/Dog' },
          { $ref: '#/components/schemas/Bird' },
        ],
        discriminator: { propertyName: 'petType', mapping: { dog: '#/components/schemas/Dog', cat: 'Cat' } },
      },
      Title: { type: 'string' },
    },
  },
};

type Row = {
  description: string;
  doc?: unknown;
  schema: unknown;
  data: unknown;
  findings: Finding[];
  direction?: 'response' | 'request';
};

const DOC31 = { openapi: '3.1.0', info: { title: 'rows', version: '1' }, paths: {} };

const ROWS: Row[] = [
  {
    description:
      'follows a $ref whose pointer escapes `/` as ~1 and `~` as ~0, and quotes such names in instance paths',
    schema: { $ref: '#/components/schemas/a~1b~0c' },
    data: { 'x/y': 's', 'm~n': 1, ok: 1 },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: "$['m~n']",
        schemaPath: '#/components/schemas/a~1b~0c/properties/m~0n/type',
        expected: 'string',
        actual: 'integer',
        message: 'is integer, expected string',
      },
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.ok',
        schemaPath: '#/components/schemas/a~1b~0c/properties',
        message: 'is present but not documented in the schema',
      },
      {
        kind: 'wrongType',
        severity: 'error',
        path: "$['x/y']",
        schemaPath: '#/components/schemas/a~1b~0c/properties/x~1y/type',
        expected: 'integer',
        actual: 'string',
        message: 'is string, expected integer',
      },
    ],
  },
  {
    description: 'percent-decodes a $ref URI fragment before reading the pointer',
    schema: { $ref: '#/components/schemas/with%20space' },
    data: 5,
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$',
        schemaPath: '#/components/schemas/with%20space/type',
        expected: 'string',
        actual: 'integer',
        message: 'is integer, expected string',
      },
    ],
  },
  {
    description: 'decodes ~01 as the name ~1, not as /',
    schema: { $ref: '#/components/schemas/~01' },
    data: 'x',
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$',
        schemaPath: '#/components/schemas/~01/type',
        expected: 'boolean',
        actual: 'string',
        message: 'is string, expected boolean',
      },
    ],
  },
  {
    description:
      'reports a $ref chain that loops without reaching a schema (A -> B -> A) as one unresolvedRef, naming the pointers',
    schema: { $ref: '#/components/schemas/A' },
    data: 1,
    findings: [
      {
        kind: 'unresolvedRef',
        severity: 'warning',
        path: '$',
        schemaPath: '#',
        message:
          'was not checked: the $ref chain #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A loops without reaching a schema',
      },
    ],
  },
  {
    description: "reports a looping $ref chain under a property at the property's instance path",
    schema: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
    data: { a: 1 },
    findings: [
      {
        kind: 'unresolvedRef',
        severity: 'warning',
        path: '$.a',
        schemaPath: '#/properties/a',
        message:
          'was not checked: the $ref chain #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A loops without reaching a schema',
      },
    ],
  },
  {
    description: 'does not call a 3.1 $ref cycle a loop when a $ref has an asserting sibling, and applies the sibling',
    doc: {
      openapi: '3.1.0',
      components: {
        schemas: { A: { $ref: '#/components/schemas/B', type: 'object' }, B: { $ref: '#/components/schemas/A' } },
      },
    },
    schema: { $ref: '#/components/schemas/A' },
    data: 1,
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$',
        schemaPath: '#/components/schemas/A/type',
        expected: 'object',
        actual: 'integer',
        message: 'is integer, expected object',
      },
    ],
  },
  {
    description: 'still applies the siblings of an allOf that refers to its own schema',
    schema: { $ref: '#/components/schemas/Loop' },
    data: {},
    findings: [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.id',
        schemaPath: '#/components/schemas/Loop/required',
        message: 'is required but missing',
      },
    ],
  },
  {
    description: 'validates recursive data against a recursive schema at every depth',
    schema: { $ref: '#/components/schemas/Node' },
    data: { value: 1, children: [{ value: 2, children: [{ value: 'x' }, {}] }] },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.children[0].children[0].value',
        schemaPath: '#/components/schemas/Node/properties/value/type',
        expected: 'integer',
        actual: 'string',
        message: 'is string, expected integer',
      },
      {
        kind: 'missing',
        severity: 'error',
        path: '$.children[0].children[1].value',
        schemaPath: '#/components/schemas/Node/required',
        message: 'is required but missing',
      },
    ],
  },
  {
    description: 'judges a failing oneOf by its closest branch and names it in the message',
    schema: { $ref: '#/components/schemas/Pet' },
    data: { petType: 'cat', meow: 'yes' },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.meow',
        schemaPath: '#/components/schemas/Cat/properties/meow/type',
        expected: 'boolean',
        actual: 'string',
        message: 'is string, expected boolean (closest of 3 oneOf branches: #/components/schemas/Cat)',
      },
    ],
  },
  {
    description:
      'judges a failing anyOf by the branch whose type admits the value, not by the one rejecting its JSON type',
    schema: { anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'integer' } } }] },
    data: { a: 'x' },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.a',
        schemaPath: '#/anyOf/1/properties/a/type',
        expected: 'integer',
        actual: 'string',
        message: 'is string, expected integer (closest of 2 anyOf branches: #/anyOf/1)',
      },
    ],
  },
  {
    description: 'ranks a branch rejecting the root type farthest even when it has fewer error findings',
    schema: { anyOf: [{ type: 'string' }, { type: 'object', required: ['a', 'b'] }] },
    data: {},
    findings: [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.a',
        schemaPath: '#/anyOf/1/required',
        message: 'is required but missing (closest of 2 anyOf branches: #/anyOf/1)',
      },
      {
        kind: 'missing',
        severity: 'error',
        path: '$.b',
        schemaPath: '#/anyOf/1/required',
        message: 'is required but missing (closest of 2 anyOf branches: #/anyOf/1)',
      },
    ],
  },
  {
    description: 'breaks a tie in error findings by the total number of findings',
    schema: {
      oneOf: [
        { type: 'object', required: ['a'], minProperties: 3 },
        { type: 'object', required: ['c'] },
      ],
    },
    data: { b: 1 },
    findings: [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.c',
        schemaPath: '#/oneOf/1/required',
        message: 'is required but missing (closest of 2 oneOf branches: #/oneOf/1)',
      },
    ],
  },
  {
    description: 'picks the first branch in document order on a full tie',
    schema: { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    data: {},
    findings: [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.a',
        schemaPath: '#/oneOf/0/required',
        message: 'is required but missing (closest of 2 oneOf branches: #/oneOf/0)',
      },
    ],
  },
  {
    description: 'reports nothing when one oneOf branch matches',
    schema: { $ref: '#/components/schemas/Pet' },
    data: { petType: 'dog', bark: true },
    findings: [],
  },
  {
    description:
      "issue 7: reports a value that a catch-all oneOf branch and a specific one both match (GitHub's public-event beside watch-event)",
    schema: {
      oneOf: [{ type: 'object' }, { type: 'object', required: ['action'], properties: { action: { type: 'string' } } }],
    },
    data: { action: 'started' },
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/oneOf',
        keyword: 'oneOf',
        message:
          'matches 2 oneOf branches (#/oneOf/0 and #/oneOf/1), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      },
    ],
  },
  {
    description:
      "issue 7: reports a value that two overlapping open oneOf branches both match (GitHub's create-event and delete-event, whose required fields are a subset)",
    schema: {
      oneOf: [
        {
          type: 'object',
          required: ['ref', 'master_branch'],
          properties: { ref: { type: 'string' }, master_branch: { type: 'string' } },
        },
        { type: 'object', required: ['ref'], properties: { ref: { type: 'string' } } },
      ],
    },
    data: { ref: 'x', master_branch: 'main' },
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/oneOf',
        keyword: 'oneOf',
        message:
          'matches 2 oneOf branches (#/oneOf/0 and #/oneOf/1), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      },
    ],
  },
  {
    description: 'accepts the same overlapping oneOf branches once additionalProperties: false tells them apart',
    schema: {
      oneOf: [
        {
          type: 'object',
          required: ['ref', 'master_branch'],
          additionalProperties: false,
          properties: { ref: { type: 'string' }, master_branch: { type: 'string' } },
        },
        { type: 'object', required: ['ref'], additionalProperties: false, properties: { ref: { type: 'string' } } },
      ],
    },
    data: { ref: 'x', master_branch: 'main' },
    findings: [],
  },
  {
    description:
      'reports two matching $ref oneOf branches by name, with the undocumented fields of the one with fewest findings',
    schema: { $ref: '#/components/schemas/Pet' },
    data: { petType: 'dog', bark: true, meow: true },
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/components/schemas/Pet/oneOf',
        keyword: 'oneOf',
        message:
          'matches 2 oneOf branches (#/components/schemas/Cat and #/components/schemas/Dog), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      },
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.bark',
        schemaPath: '#/components/schemas/Cat/properties',
        message: 'is present but not documented in the schema (matching oneOf branch: #/components/schemas/Cat)',
      },
    ],
  },
  {
    description: 'reports a primitive that two oneOf branches match',
    schema: { oneOf: [{ type: 'integer' }, { minimum: 2 }] },
    data: 3,
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/oneOf',
        keyword: 'oneOf',
        message:
          'matches 2 oneOf branches (#/oneOf/0 and #/oneOf/1), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      },
    ],
  },
  {
    description: 'names three of five matching oneOf branches and counts the rest',
    schema: { oneOf: [{}, {}, {}, {}, {}] },
    data: 1,
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/oneOf',
        keyword: 'oneOf',
        message:
          'matches 5 oneOf branches (#/oneOf/0, #/oneOf/1, #/oneOf/2 and 2 more), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      },
    ],
  },
  {
    description:
      'checks only the branch a discriminator picks, so a value another branch also matches is not a oneOf finding',
    schema: { $ref: '#/components/schemas/TypedPet' },
    data: { petType: 'dog', bark: true, meow: true },
    findings: [
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.meow',
        schemaPath: '#/components/schemas/Dog/properties',
        message:
          'is present but not documented in the schema (oneOf branch chosen by discriminator petType="dog": #/components/schemas/Dog)',
      },
    ],
  },
  {
    description: 'lets discriminator.mapping pick the oneOf branch even when another branch is closer',
    schema: { $ref: '#/components/schemas/TypedPet' },
    data: { petType: 'dog', meow: true },
    findings: [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.bark',
        schemaPath: '#/components/schemas/Dog/required',
        message:
          'is required but missing (oneOf branch chosen by discriminator petType="dog": #/components/schemas/Dog)',
      },
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.meow',
        schemaPath: '#/components/schemas/Dog/properties',
        message:
          'is present but not documented in the schema (oneOf branch chosen by discriminator petType="dog": #/components/schemas/Dog)',
      },
    ],
  },
  {
    description: 'accepts a bare schema name as a discriminator mapping value',
    schema: { $ref: '#/components/schemas/TypedPet' },
    data: { petType: 'cat', meow: 1 },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.meow',
        schemaPath: '#/components/schemas/Cat/properties/meow/type',
        expected: 'boolean',
        actual: 'integer',
        message:
          'is integer, expected boolean (oneOf branch chosen by discriminator petType="cat": #/components/schemas/Cat)',
      },
    ],
  },
  {
    description:
      'reports malformed date-time, date, uuid, email, ipv4, uri and an int32 overflow as format findings, ignoring unknown formats',
    schema: {
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        id: { type: 'string', format: 'uuid' },
        mail: { type: 'string', format: 'email' },
        ip: { type: 'string', format: 'ipv4' },
        ip6: { type: 'string', format: 'ipv6' },
        link: { type: 'string', format: 'uri' },
        n: { type: 'integer', format: 'int32' },
        other: { type: 'string', format: 'color' },
      },
    },
    data: {
      at: '2024-02-30T10:00:00Z',
      day: '2024-13-01',
      id: 'not-a-uuid',
      mail: 'nobody',
      ip: '256.1.1.1',
      ip6: '::1',
      link: 'example.com',
      n: 2147483648,
      other: 'x',
    },
    findings: [
      {
        kind: 'format',
        severity: 'info',
        path: '$.at',
        schemaPath: '#/properties/at/format',
        keyword: 'date-time',
        message: 'is "2024-02-30T10:00:00Z", not a valid date-time (RFC 3339 date-time: a field is out of range)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.day',
        schemaPath: '#/properties/day/format',
        keyword: 'date',
        message: 'is "2024-13-01", not a valid date (RFC 3339 full-date: month or day out of range)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.id',
        schemaPath: '#/properties/id/format',
        keyword: 'uuid',
        message: 'is "not-a-uuid", not a valid uuid (RFC 9562 UUID, 8-4-4-4-12 hex digits)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.ip',
        schemaPath: '#/properties/ip/format',
        keyword: 'ipv4',
        message: 'is "256.1.1.1", not a valid ipv4 (dotted-quad IPv4 address)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.link',
        schemaPath: '#/properties/link/format',
        keyword: 'uri',
        message: 'is "example.com", not a valid uri (RFC 3986 absolute URI with a scheme)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.mail',
        schemaPath: '#/properties/mail/format',
        keyword: 'email',
        message: 'is "nobody", not a valid email (RFC 5321 mailbox, e.g. user@example.com)',
      },
      {
        kind: 'format',
        severity: 'info',
        path: '$.n',
        schemaPath: '#/properties/n/format',
        keyword: 'int32',
        message: 'is 2147483648, outside the int32 range -2147483648..2147483647',
      },
    ],
  },
  {
    description: 'accepts a leap day, and a leap second at 23:59 UTC through a numeric offset',
    schema: {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, day: { type: 'string', format: 'date' } },
    },
    data: { at: '2024-02-29T00:59:60.5+01:00', day: '2024-02-29' },
    findings: [],
  },
  {
    description:
      'reports minLength, pattern, minimum, 3.0 boolean exclusiveMinimum, multipleOf, minItems, uniqueItems and maxProperties',
    schema: {
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 3, pattern: '^[a-z]+$' },
        lo: { type: 'number', minimum: 0 },
        ex: { type: 'number', minimum: 0, exclusiveMinimum: true },
        m: { type: 'number', multipleOf: 0.01 },
        list: { type: 'array', minItems: 3, uniqueItems: true },
        obj: { type: 'object', maxProperties: 1 },
      },
    },
    data: { s: 'A1', lo: -1, ex: 0, m: 0.015, list: [1, 1], obj: { a: 1, b: 2 } },
    findings: [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.ex',
        schemaPath: '#/properties/ex/exclusiveMinimum',
        keyword: 'exclusiveMinimum',
        message: 'is 0, must be greater than 0',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.list',
        schemaPath: '#/properties/list/minItems',
        keyword: 'minItems',
        message: 'has 2 items, fewer than minItems 3',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.list',
        schemaPath: '#/properties/list/uniqueItems',
        keyword: 'uniqueItems',
        message: 'has item 1 equal to item 0, but uniqueItems is true',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.lo',
        schemaPath: '#/properties/lo/minimum',
        keyword: 'minimum',
        message: 'is -1, less than minimum 0',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.m',
        schemaPath: '#/properties/m/multipleOf',
        keyword: 'multipleOf',
        message: 'is 0.015, not a multiple of 0.01',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.obj',
        schemaPath: '#/properties/obj/maxProperties',
        keyword: 'maxProperties',
        message: 'has 2 properties, more than maxProperties 1',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.s',
        schemaPath: '#/properties/s/minLength',
        keyword: 'minLength',
        message: 'is 2 characters long, fewer than minLength 3',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.s',
        schemaPath: '#/properties/s/pattern',
        keyword: 'pattern',
        message: 'is "A1", which does not match the pattern "^[a-z]+$"',
      },
    ],
  },
  {
    description: 'tolerates binary rounding in multipleOf and counts string length in code points',
    schema: {
      type: 'object',
      properties: { m: { type: 'number', multipleOf: 0.01 }, s: { type: 'string', maxLength: 2 } },
    },
    data: { m: 0.07, s: '😀😀' },
    findings: [],
  },
  {
    description: 'ignores nullable beside $ref in 3.0 and says the document likely omits null',
    schema: { type: 'object', properties: { t: { $ref: '#/components/schemas/Title', nullable: true } } },
    data: { t: null },
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.t',
        schemaPath: '#/components/schemas/Title/type',
        expected: 'string',
        actual: 'null',
        message:
          'is null, expected string (`nullable: true` beside `$ref` has no effect in OpenAPI 3.0.3: siblings of $ref are ignored; the document likely omits null here, the API may be right)',
      },
    ],
  },
  {
    description: 'reports a remote $ref and a dangling one as unresolvedRef without fetching',
    schema: {
      type: 'object',
      properties: { t: { $ref: 'other.yaml#/Title' }, u: { $ref: '#/components/schemas/Nope' } },
    },
    data: { t: 1, u: 2 },
    findings: [
      {
        kind: 'unresolvedRef',
        severity: 'warning',
        path: '$.t',
        schemaPath: '#/properties/t',
        message:
          'was not checked: `$ref: other.yaml#/Title` is not a local JSON Pointer (external references must be bundled into the document)',
      },
      {
        kind: 'unresolvedRef',
        severity: 'warning',
        path: '$.u',
        schemaPath: '#/properties/u',
        message: 'was not checked: `$ref: #/components/schemas/Nope` points nowhere in the document',
      },
    ],
  },
  {
    description: 'reports each key an additionalProperties:false object does not declare',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    data: { a: 'x', b: 1, 'x-id': 2 },
    findings: [
      {
        kind: 'undocumented',
        severity: 'error',
        path: '$.b',
        schemaPath: '#/additionalProperties',
        message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
      },
      {
        kind: 'undocumented',
        severity: 'error',
        path: "$['x-id']",
        schemaPath: '#/additionalProperties',
        message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
      },
    ],
  },
  {
    description: 'reports no undocumented field for a free-form object that declares no properties',
    schema: { type: 'object' },
    data: { a: 1 },
    findings: [],
  },
  {
    description: 'in a request, does not require a readOnly field and reports one that is sent',
    direction: 'request',
    schema: {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' } },
    },
    data: { id: 'x' },
    findings: [
      {
        kind: 'readOnly',
        severity: 'warning',
        path: '$.id',
        schemaPath: '#/properties/id/readOnly',
        message: 'is readOnly but is sent in a request; the server should ignore or reject it',
      },
      {
        kind: 'missing',
        severity: 'error',
        path: '$.name',
        schemaPath: '#/required',
        message: 'is required but missing',
      },
    ],
  },
  {
    description: 'checks 3.1 const and the number form of exclusiveMaximum',
    doc: DOC31,
    schema: { type: 'object', properties: { c: { const: 'x' }, n: { type: 'number', exclusiveMaximum: 10 } } },
    data: { c: 'y', n: 10 },
    findings: [
      {
        kind: 'enum',
        severity: 'error',
        path: '$.c',
        schemaPath: '#/properties/c/const',
        allowed: ['x'],
        message: 'is "y", but the schema requires the constant "x"',
      },
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.n',
        schemaPath: '#/properties/n/exclusiveMaximum',
        keyword: 'exclusiveMaximum',
        message: 'is 10, must be less than 10',
      },
    ],
  },
  {
    description: 'treats 10.0 as an integer and reports 2.5 as actual type number',
    doc: DOC31,
    schema: { type: 'array', items: { type: 'integer' } },
    data: [10, 2.5],
    findings: [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$[1]',
        schemaPath: '#/items/type',
        expected: 'integer',
        actual: 'number',
        message: 'is number, expected integer',
      },
    ],
  },
];

describe('check (table)', () => {
  for (const row of ROWS) {
    it(row.description, () => {
      assert.deepStrictEqual(check(row.doc ?? DOC30, row.schema, row.data, { direction: row.direction }), row.findings);
    });
  }
});

describe('instancePath', () => {
  const rows: { description: string; segments: (string | number)[]; path: string }[] = [
    { description: 'is $ for the root', segments: [], path: '$' },
    {
      description: 'joins identifier names with dots and indexes with brackets',
      segments: ['a', 0, 'b_1'],
      path: '$.a[0].b_1',
    },
    { description: 'quotes names that are not identifiers', segments: ['a', 0, 'x-id'], path: "$.a[0]['x-id']" },
    {
      description: 'quotes names with / and ~ and a leading digit',
      segments: ['x/y', 'm~n', '1st'],
      path: "$['x/y']['m~n']['1st']",
    },
    {
      description: 'escapes a quote and a backslash inside a quoted name',
      segments: ["it's", 'a\\b'],
      path: "$['it\\'s']['a\\\\b']",
    },
  ];
  for (const r of rows) it(r.description, () => assert.equal(instancePath(r.segments), r.path));
});

describe('resolvePointer', () => {
  const doc = { a: { 'x/y': { 'm~n': [10, 20] }, '~1': 'tilde-one', 'sp ace': 's', '%': 'pct' } };
  const rows: { description: string; ref: string; value: unknown }[] = [
    { description: 'returns the whole document for #', ref: '#', value: doc },
    { description: 'decodes ~1 to / and ~0 to ~ and indexes arrays', ref: '#/a/x~1y/m~0n/1', value: 20 },
    { description: 'decodes ~01 to ~1 (~1 is decoded before ~0)', ref: '#/a/~01', value: 'tilde-one' },
    { description: 'percent-decodes the URI fragment', ref: '#/a/sp%20ace', value: 's' },
    { description: 'percent-decodes %25 to %', ref: '#/a/%25', value: 'pct' },
    { description: 'accepts a bare pointer without #', ref: '/a/x~1y/m~0n/0', value: 10 },
  ];
  for (const r of rows) it(r.description, () => assert.deepStrictEqual(resolvePointer(doc, r.ref), r.value));
  it('throws naming the pointer when it points nowhere', () => {
    assert.throws(() => resolvePointer(doc, '#/a/missing'), {
      message: 'Cannot resolve `#/a/missing`: nothing at `missing`',
    });
  });
  it('throws for an array index past the end', () => {
    assert.throws(() => resolvePointer(doc, '#/a/x~1y/m~0n/2'), {
      message: 'Cannot resolve `#/a/x~1y/m~0n/2`: nothing at `2`',
    });
  });
  it('throws for a remote reference instead of fetching it', () => {
    assert.throws(() => resolvePointer(doc, 'https://example.com/s.json#/a'), /not a local JSON Pointer/);
  });
});

describe('schemaFor', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 's', version: '1' },
    paths: {
      '/meters/{id}': {
        get: {
          responses: {
            200: {
              description: 'ok',
              content: {
                'text/plain': { schema: { type: 'string' } },
                'application/json': { schema: { $ref: '#/components/schemas/Meter' } },
              },
            },
            '4xx': { $ref: '#/components/responses/Problem' },
            default: { description: 'other', content: { '*/*': { schema: { type: 'string' } } } },
          },
        },
      },
    },
    components: {
      schemas: { Meter: { type: 'object' } },
      responses: {
        Problem: {
          description: 'problem',
          content: { 'application/problem+json': { schema: { type: 'object', required: ['title'] } } },
        },
      },
    },
  };
  it('prefers application/json without a content type and gives the JSON Pointer of the schema', () => {
    assert.deepStrictEqual(schemaFor(doc, 'GET', '/meters/{id}', 200), {
      schema: { $ref: '#/components/schemas/Meter' },
      schemaPath: '#/paths/~1meters~1{id}/get/responses/200/content/application~1json/schema',
      statusKey: '200',
      mediaType: 'application/json',
    });
  });
  it('picks the content entry by the essence of the content type', () => {
    assert.equal(schemaFor(doc, 'get', '/meters/{id}', 200, 'TEXT/Plain; charset=utf-8')?.mediaType, 'text/plain');
  });
  it('falls back to a lower-case range key and follows the response $ref, preferring +json', () => {
    assert.deepStrictEqual(schemaFor(doc, 'get', '/meters/{id}', 404), {
      schema: { type: 'object', required: ['title'] },
      schemaPath: '#/components/responses/Problem/content/application~1problem+json/schema',
      statusKey: '4xx',
      mediaType: 'application/problem+json',
    });
  });
  it('falls back to default and matches */* for any content type', () => {
    assert.deepStrictEqual(schemaFor(doc, 'get', '/meters/{id}', 500, 'text/html'), {
      schema: { type: 'string' },
      schemaPath: '#/paths/~1meters~1{id}/get/responses/default/content/*~1*/schema',
      statusKey: 'default',
      mediaType: '*/*',
    });
  });
  it('returns undefined for an unknown operation or an undocumented media type', () => {
    assert.deepStrictEqual(
      [schemaFor(doc, 'post', '/meters/{id}', 200), schemaFor(doc, 'get', '/meters/{id}', 200, 'application/xml')],
      [undefined, undefined],
    );
  });
  it('reads responses[code].schema in Swagger 2.0 and widens type with x-nullable', () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 's', version: '1' },
      paths: {
        '/things': { get: { responses: { 200: { description: 'ok', schema: { $ref: '#/definitions/Thing' } } } } },
      },
      definitions: {
        Thing: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', 'x-nullable': true }, size: { type: 'integer' } },
        },
      },
    };
    assert.deepStrictEqual(schemaFor(swagger, 'get', '/things', 200), {
      schema: { $ref: '#/definitions/Thing' },
      schemaPath: '#/paths/~1things/get/responses/200/schema',
      statusKey: '200',
    });
    assert.deepStrictEqual(
      checkResponse(swagger, 'get', '/things', { status: 200, body: { name: null, size: null } }).findings,
      [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.size',
          schemaPath: '#/definitions/Thing/properties/size/type',
          expected: 'integer',
          actual: 'null',
          message: 'is null, expected integer',
        },
      ],
    );
  });
});

describe('checkResponse', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'r', version: '1' },
    paths: {
      '/things': {
        get: {
          responses: {
            200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            204: { description: 'none' },
          },
        },
      },
    },
  };
  it('does not validate a status whose response declares no content, and says why', () => {
    assert.deepStrictEqual(checkResponse(doc, 'get', '/things', { status: 204, body: undefined }), {
      validated: false,
      reason: "the '204' response of GET /things declares no content, so there is no body schema to check against.",
      findings: [],
    });
  });
  it('does not validate a content type the response does not document, and lists the documented ones', () => {
    assert.deepStrictEqual(
      checkResponse(doc, 'get', '/things', { status: 200, contentType: 'text/html', body: '<p>' }),
      {
        validated: false,
        reason:
          "Content-Type text/html is not documented for the '200' response of GET /things (documented: application/json); the body was not checked.",
        findings: [],
      },
    );
  });
  it('reports an undocumented status as a finding at $', () => {
    assert.deepStrictEqual(checkResponse(doc, 'get', '/things', { status: 503, body: {} }), {
      validated: false,
      reason: 'Status 503 is not documented for GET /things, so the body was not checked.',
      findings: [
        {
          kind: 'undocumentedStatus',
          severity: 'error',
          path: '$',
          schemaPath: '#/paths/~1things/get/responses',
          message: "status 503 is not documented for GET /things: responses has no '503', '5XX' or 'default' entry",
        },
      ],
    });
  });
  const looping = {
    openapi: '3.0.3',
    info: { title: 'loops', version: '1' },
    paths: {
      '/things': {
        get: {
          responses: {
            200: { $ref: '#/components/responses/A' },
            201: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } },
          },
        },
      },
    },
    components: {
      responses: { A: { $ref: '#/components/responses/B' }, B: { $ref: '#/components/responses/A' } },
      schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
    },
  };
  it('says a response whose $ref chain loops could not be resolved, naming the pointers', () => {
    assert.deepStrictEqual(
      [schemaFor(looping, 'get', '/things', 200), checkResponse(looping, 'get', '/things', { status: 200, body: {} })],
      [
        undefined,
        {
          validated: false,
          reason:
            "The '200' response of GET /things could not be resolved: the $ref chain #/components/responses/A -> #/components/responses/B -> #/components/responses/A loops without reaching an object.",
          findings: [
            {
              kind: 'unresolvedRef',
              severity: 'warning',
              path: '$',
              schemaPath: '#/paths/~1things/get/responses/200',
              message:
                "was not checked: the '200' response could not be resolved (the $ref chain #/components/responses/A -> #/components/responses/B -> #/components/responses/A loops without reaching an object)",
            },
          ],
        },
      ],
    );
  });
  it('reports a response schema that is a looping $ref chain instead of passing it unchecked', () => {
    assert.deepStrictEqual(
      checkResponse(looping, 'get', '/things', { status: 201, contentType: 'application/json', body: { any: 1 } }),
      {
        validated: false,
        reason:
          'The response schema could not be followed, so the body was not checked: was not checked: the $ref chain #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A loops without reaching a schema.',
        target: {
          schema: { $ref: '#/components/schemas/A' },
          schemaPath: '#/paths/~1things/get/responses/201/content/application~1json/schema',
          statusKey: '201',
          mediaType: 'application/json',
        },
        findings: [
          {
            kind: 'unresolvedRef',
            severity: 'warning',
            path: '$',
            schemaPath: '#/paths/~1things/get/responses/201/content/application~1json/schema',
            message:
              'was not checked: the $ref chain #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A loops without reaching a schema',
          },
        ],
      },
    );
  });
  it('says a requestBody whose $ref chain loops could not be resolved, naming the pointers', () => {
    const doc = {
      openapi: '3.0.3',
      paths: { '/things': { post: { requestBody: { $ref: '#/components/requestBodies/A' }, responses: {} } } },
      components: { requestBodies: { A: { $ref: '#/components/requestBodies/A' } } },
    };
    assert.deepStrictEqual(checkRequestBody(doc, 'post', '/things', {}), {
      validated: false,
      reason:
        'The requestBody of POST /things could not be resolved: the $ref chain #/components/requestBodies/A -> #/components/requestBodies/A loops without reaching an object.',
      findings: [
        {
          kind: 'unresolvedRef',
          severity: 'warning',
          path: '$',
          schemaPath: '#/paths/~1things/post/requestBody',
          message:
            'was not checked: the requestBody could not be resolved (the $ref chain #/components/requestBodies/A -> #/components/requestBodies/A loops without reaching an object)',
        },
      ],
    });
  });
  it('does not validate an operation the document lacks', () => {
    assert.deepStrictEqual(checkResponse(doc, 'delete', '/things', { status: 200, body: {} }), {
      validated: false,
      reason: 'The document has no operation DELETE /things.',
      findings: [],
    });
  });
});

describe('fieldPresence', () => {
  const doc = {
    openapi: '3.0.3',
    components: {
      schemas: {
        Meter: {
          type: 'object',
          required: ['id', 'secret'],
          properties: {
            id: { type: 'string' },
            note: { type: 'string' },
            secret: { type: 'string', writeOnly: true },
            readings: {
              type: 'array',
              items: {
                type: 'object',
                required: ['at'],
                properties: { at: { type: 'string' }, kwh: { type: 'number' } },
              },
            },
          },
        },
      },
    },
  };
  it('counts each field across bodies, array element fields per element, and declared fields never seen', () => {
    const bodies = [
      { id: 'a', readings: [{ at: 't1', kwh: 1 }, { at: 't2' }] },
      { id: 'b', note: 'x', extra: true },
      { id: 'c', readings: [{ at: 't3', kwh: null }] },
    ];
    assert.deepStrictEqual(fieldPresence(doc, { $ref: '#/components/schemas/Meter' }, bodies), [
      { path: '$.extra', required: false, documented: false, present: 1, of: 3, text: 'present in 1 of 3' },
      { path: '$.id', required: true, documented: true, present: 3, of: 3, text: 'present in 3 of 3' },
      { path: '$.note', required: false, documented: true, present: 1, of: 3, text: 'present in 1 of 3' },
      { path: '$.readings', required: false, documented: true, present: 2, of: 3, text: 'present in 2 of 3' },
      { path: '$.readings[].at', required: true, documented: true, present: 3, of: 3, text: 'present in 3 of 3' },
      { path: '$.readings[].kwh', required: false, documented: true, present: 2, of: 3, text: 'present in 2 of 3' },
      { path: '$.secret', required: false, documented: true, present: 0, of: 3, text: 'present in 0 of 3' },
    ]);
  });
  it('counts a required writeOnly field as required in requests', () => {
    const rows = fieldPresence(doc, { $ref: '#/components/schemas/Meter' }, [{ id: 'a', secret: 's' }], {
      direction: 'request',
    });
    assert.deepStrictEqual(
      rows.find((r) => r.path === '$.secret'),
      { path: '$.secret', required: true, documented: true, present: 1, of: 1, text: 'present in 1 of 1' },
    );
  });
  it('does not unroll a recursive schema into rows', () => {
    const rec = {
      openapi: '3.1.0',
      components: {
        schemas: {
          N: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/components/schemas/N' } } } },
        },
      },
    };
    assert.deepStrictEqual(
      fieldPresence(rec, { $ref: '#/components/schemas/N' }, [{ kids: [{}] }]).map((r) => r.path),
      ['$.kids'],
    );
  });
});

describe('measurePresence budgets (issue 8, attack round 3)', () => {
  /** 12 levels L0..L11, each an object of 30 properties that all `$ref` the next level: 30^12 declared paths (F8). */
  function fanOut(): Json {
    const schemas: Record<string, unknown> = { L12: { type: 'string' } };
    for (let level = 0; level < 12; level++) {
      schemas[`L${level}`] = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 30 }, (_, index) => [`p${index}`, { $ref: `#/components/schemas/L${level + 1}` }]),
        ),
      };
    }
    return { openapi: '3.0.3', components: { schemas } };
  }

  it('F8: lists at most MAX_DECLARED_FIELDS declared fields of a fanning-out schema and says so', () => {
    const started = performance.now();
    const report = measurePresence(fanOut(), { $ref: '#/components/schemas/L0' }, [{ p0: { p1: {} } }]);
    const took = performance.now() - started;
    assert.deepStrictEqual(
      [report.fields.length, report.fields.filter((row) => row.present > 0).map((row) => row.path), report.notes],
      [
        // Depth first: the budget goes to $.p0.p0.p0... and the first siblings at the bottom, so $.p0.p1 is a row of the body's.
        MAX_DECLARED_FIELDS + 1,
        ['$.p0', '$.p0.p1'],
        [
          `The schema declares more than ${MAX_DECLARED_FIELDS} fields (its $refs fan out), so declared fields past the first ${MAX_DECLARED_FIELDS} are not listed; every field seen in the bodies is.`,
        ],
      ],
    );
    console.log(`fan-out presence took ${took.toFixed(1)} ms`);
    assert.ok(took < 2000, `took ${took} ms`);
  });

  it('F8: counts the body fields beyond the declared budget all the same', () => {
    const report = measurePresence(fanOut(), { $ref: '#/components/schemas/L0' }, [{ p29: { p29: { zz: 1 } } }], {
      maxSteps: 3,
    });
    assert.deepStrictEqual(
      report.fields.filter((row) => row.present > 0),
      [
        { path: '$.p29', required: false, documented: true, present: 1, of: 1, text: 'present in 1 of 1' },
        { path: '$.p29.p29', required: false, documented: true, present: 1, of: 1, text: 'present in 1 of 1' },
        { path: '$.p29.p29.zz', required: false, documented: false, present: 1, of: 1, text: 'present in 1 of 1' },
      ],
    );
  });

  it('F7: stops at allOf nested 100,000 deep with a note, never a stack overflow', () => {
    let schema: Json = { type: 'object', properties: { a: { type: 'string' } } };
    for (let level = 0; level < 100_000; level++) schema = { allOf: [schema] };
    const report = measurePresence({ openapi: '3.0.3' }, schema, [{ a: 'x', b: 1 }]);
    assert.deepStrictEqual(report, {
      fields: [
        { path: '$.a', required: false, documented: true, present: 1, of: 1, text: 'present in 1 of 1' },
        { path: '$.b', required: false, documented: true, present: 1, of: 1, text: 'present in 1 of 1' },
      ],
      notes: [
        `The schema nests allOf/oneOf/anyOf/$ref more than 256 levels deep at #${'/allOf/0'.repeat(257).slice(0, 199)}… (${'/allOf/0'.repeat(257).length + 1 - 200} more characters): what it declares below that was not compared, and no field there is called undocumented.`,
      ],
    });
  });
});

describe('compareWithFixture caps (issue 8, attack round 3 F3)', () => {
  it('lists the first 500 paths on each side, counts the rest, and names a long changed value by its size', () => {
    const live: Record<string, unknown> = { v: 'x'.repeat(1_200), o: { a: 'y'.repeat(2_000) } };
    const fixture: Record<string, unknown> = { v: 'z', o: 'was a string' };
    for (let index = 0; index < 600; index++) live[`l${String(index).padStart(3, '0')}`] = index;
    const diff = compareWithFixture(fixture, live);
    assert.deepStrictEqual(
      { ...diff, onlyLive: [diff.onlyLive.length, diff.onlyLive[0], diff.onlyLive[499]] },
      {
        onlyLive: [500, '$.l000', '$.l499'],
        onlyFixture: [],
        changed: [
          { path: '$.o', fixture: 'was a string', live: '(an object of 2008 characters of JSON, not shown)' },
          { path: '$.v', fixture: 'z', live: `${'x'.repeat(1_000)}… (200 more characters)` },
        ],
        more: { onlyLive: 100 },
      },
    );
  });
});

describe('boundedText', () => {
  it('cuts a long string and counts what was left out', () => {
    assert.deepStrictEqual(
      [boundedText('abcdef', 6), boundedText('abcdefgh', 3)],
      ['abcdef', 'abc… (5 more characters)'],
    );
  });

  it('never splits a surrogate pair at the cut', () => {
    assert.equal(boundedText('ab\u{1F600}cd', 3), 'ab… (4 more characters)');
  });
});

describe('inferShape', () => {
  const first = { id: 1, name: 'a', tags: ['x'], owner: { id: 2 }, items: [{ a: 1 }, { a: 2.5, b: null }] };
  it('writes the closed, all-required schema a naive client would infer from one body', () => {
    assert.deepStrictEqual(inferShape(first), {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        owner: {
          type: 'object',
          properties: { id: { type: 'integer' } },
          required: ['id'],
          additionalProperties: false,
        },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'null' } },
            required: ['a'],
            additionalProperties: false,
          },
        },
      },
      required: ['id', 'name', 'tags', 'owner', 'items'],
      additionalProperties: false,
    });
  });
  it('lets check say what that shape gets wrong about another body', () => {
    const other = { id: '1', tags: [], owner: null, items: [{ a: 1, b: 'x' }], extra: 1 };
    assert.deepStrictEqual(check({}, inferShape(first), other), [
      {
        kind: 'undocumented',
        severity: 'error',
        path: '$.extra',
        schemaPath: '#/additionalProperties',
        message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
      },
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.id',
        schemaPath: '#/properties/id/type',
        expected: 'integer',
        actual: 'string',
        message: 'is string, expected integer',
      },
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.items[0].b',
        schemaPath: '#/properties/items/items/properties/b/type',
        expected: 'null',
        actual: 'string',
        message: 'is string, expected null',
      },
      {
        kind: 'missing',
        severity: 'error',
        path: '$.name',
        schemaPath: '#/required',
        message: 'is required but missing',
      },
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.owner',
        schemaPath: '#/properties/owner/type',
        expected: 'object',
        actual: 'null',
        message: 'is null, expected object',
      },
    ]);
  });
  it('merges 20,000 array elements with distinct keys in linear time: each key optional, every one listed (attack round 3: 5,000 took 12.5 s)', () => {
    const started = performance.now();
    const shape = inferShape(Array.from({ length: 20_000 }, (_, index) => ({ [`k${index}`]: index, common: 'x' }))) as {
      items: { properties: Record<string, unknown>; required: string[] };
    };
    const took = performance.now() - started;
    assert.deepStrictEqual(
      [Object.keys(shape.items.properties).length, shape.items.properties.k19999, shape.items.required],
      [20_001, { type: 'integer' }, ['common']],
    );
    console.log(`inferShape over 20,000 distinct-key elements took ${took.toFixed(1)} ms`);
    assert.ok(took < 2000, `took ${took} ms`);
  });
  it('unites the types of array elements (a number absorbs an integer) and keeps a key required only where every object had it', () => {
    assert.deepStrictEqual(inferShape([1, 'a', 2.5, { a: 1 }, { a: 2, b: 1 }]), {
      type: 'array',
      items: {
        type: ['string', 'number', 'object'],
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a'],
        additionalProperties: false,
      },
    });
  });
  it('gives an empty array no items and a scalar its type', () => {
    assert.deepStrictEqual(
      [inferShape([]), inferShape(null), inferShape(1e2), inferShape(0.5)],
      [{ type: 'array' }, { type: 'null' }, { type: 'integer' }, { type: 'number' }],
    );
  });
});

describe('compareWithFixture', () => {
  it('lists fields only live, only in the fixture, and changed values, by instance path', () => {
    const fixture = { id: 1, list: [1, 2, 3], o: { a: 1, gone: true }, t: 'x', n: null };
    const live = { id: 2, list: [1, 5], o: { a: 1, 'x-new': 1 }, t: { v: 1 }, n: null, added: [] };
    assert.deepStrictEqual(compareWithFixture(fixture, live), {
      onlyLive: ['$.added', "$.o['x-new']"],
      onlyFixture: ['$.list[2]', '$.o.gone'],
      changed: [
        { path: '$.id', fixture: 1, live: 2 },
        { path: '$.list[1]', fixture: 2, live: 5 },
        { path: '$.t', fixture: 'x', live: { v: 1 } },
      ],
    });
  });
  it('finds nothing between equal bodies', () => {
    assert.deepStrictEqual(compareWithFixture({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), {
      onlyLive: [],
      onlyFixture: [],
      changed: [],
    });
  });
});

describe('check (input handling)', () => {
  it('throws a TypeError on a document that is not an object', () => {
    assert.throws(() => check(null, { type: 'string' }, 'x'), {
      name: 'TypeError',
      message: 'Expected `doc` to be a parsed OpenAPI document object, got null',
    });
  });
  it('prefixes schema paths with options.at', () => {
    assert.deepStrictEqual(
      check({ openapi: '3.1.0' }, { type: 'string' }, 1, {
        at: '#/paths/~1x/get/responses/200/content/application~1json/schema',
      }),
      [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$',
          schemaPath: '#/paths/~1x/get/responses/200/content/application~1json/schema/type',
          expected: 'string',
          actual: 'integer',
          message: 'is integer, expected string',
        },
      ],
    );
  });
  // Issue 8 (no false pass): data past the nesting limit used to pass silently; it is now reported as not checked.
  it('survives deeply nested data against a recursive schema and says the part below 256 levels was not checked', () => {
    let data: unknown = { value: 1 };
    for (let i = 0; i < 2000; i++) data = { value: 1, children: [data] };
    assert.deepStrictEqual(check(DOC30, { $ref: '#/components/schemas/Node' }, data), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$' + '.children[0]'.repeat(128),
        schemaPath: '#/components/schemas/Node/properties/value',
        message: 'was not checked below this point: the value nests deeper than 256 levels (too deep to check)',
      },
    ]);
  });
});

/** A 3.0.3 document whose schemas S0..S(n-1) each apply `keyword: [S(i+1), S(i+1)]`; S(n) requires `id`. */
function nestedComposition(keyword: 'anyOf' | 'allOf', levels: number): Json {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    schemas[`S${i}`] = {
      [keyword]: [{ $ref: `#/components/schemas/S${i + 1}` }, { $ref: `#/components/schemas/S${i + 1}` }],
    };
  schemas[`S${levels}`] = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
  return { openapi: '3.0.3', info: { title: 'nested', version: '1' }, paths: {}, components: { schemas } };
}

/** A 3.0.3 document with GET /x answering 200 with S0, where S0 -> S1 -> ... -> S(hops-1) are pure `$ref`s. */
function refChain(hops: number): Json {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < hops - 1; i++) schemas[`S${i}`] = { $ref: `#/components/schemas/S${i + 1}` };
  schemas[`S${hops - 1}`] = { type: 'object', required: ['mustHave'] };
  const schema = { $ref: '#/components/schemas/S0' };
  return {
    openapi: '3.0.3',
    info: { title: 'chain', version: '1' },
    paths: {
      '/x': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } } },
    },
    components: { schemas },
  };
}

describe('check budgets (issue 8)', () => {
  it('case 50: reports a value that fails the pattern ^(a+)+$ as a constraint, in linear time', () => {
    const c = readCase('50-val-pattern-redos-from-the-api');
    const started = performance.now();
    const findings = check({ openapi: '3.0.3' }, c.input.openapi_fragment, c.input.body);
    const took = performance.now() - started;
    assert.deepStrictEqual(findings, [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$.code',
        schemaPath: '#/properties/code/pattern',
        keyword: 'pattern',
        message: 'is "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", which does not match the pattern "^(a+)+$"',
      },
    ]);
    console.log(`case 50 check took ${took.toFixed(1)} ms`);
    assert.ok(took < 1000, `took ${took} ms`);
  });

  it('checks 40 levels of anyOf: [S, S] once per level and names the innermost branch', () => {
    const started = performance.now();
    const findings = check(nestedComposition('anyOf', 40), { $ref: '#/components/schemas/S0' }, { name: 1 });
    const took = performance.now() - started;
    assert.deepStrictEqual(findings, [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.id',
        schemaPath: '#/components/schemas/S40/required',
        message: 'is required but missing (closest of 2 anyOf branches: #/components/schemas/S40)',
      },
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.name',
        schemaPath: '#/components/schemas/S40/properties',
        message: 'is present but not documented in the schema (closest of 2 anyOf branches: #/components/schemas/S40)',
      },
    ]);
    console.log(`40-level anyOf check took ${took.toFixed(1)} ms`);
    assert.ok(took < 2000, `took ${took} ms`);
  });

  it(
    'stops 30 levels of inline anyOf: [S, S] (one object twice) at its step budget, not after 2^30 walks of the documented fields (attack round 3 N1)',
    { timeout: 60_000 },
    () => {
      let schema: unknown = { type: 'object', required: ['m'] };
      for (let level = 0; level < 30; level++) schema = { anyOf: [schema, schema] };
      assert.deepStrictEqual(
        check({ openapi: '3.1.0' }, schema, { x: 1 }, { maxSteps: 5000 }).map((finding) => [
          finding.kind,
          finding.path,
        ]),
        [['notChecked', '$']],
      );
    },
  );

  it('checks 40 levels of allOf: [S, S] without overflowing the stack or doubling findings', () => {
    const started = performance.now();
    const findings = check(nestedComposition('allOf', 40), { $ref: '#/components/schemas/S0' }, { name: 1 });
    const took = performance.now() - started;
    assert.deepStrictEqual(findings, [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.id',
        schemaPath: '#/components/schemas/S40/required',
        message: 'is required but missing',
      },
      {
        kind: 'undocumented',
        severity: 'warning',
        path: '$.name',
        schemaPath: '#/components/schemas/S0/properties',
        message: 'is present but not documented in the schema',
      },
    ]);
    console.log(`40-level allOf check took ${took.toFixed(1)} ms`);
    assert.ok(took < 2000, `took ${took} ms`);
  });

  it('reports allOf nested 5000 deep as too deep to check, never a crash', () => {
    // Since attack round 3 F7 the documented-fields walk stops at MAX_REF_DEPTH too, so the evaluator's own bound
    // (256 `$ref`s) speaks, naming where, instead of the stack-overflow catch.
    assert.deepStrictEqual(check(nestedComposition('allOf', 5000), { $ref: '#/components/schemas/S0' }, { name: 1 }), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/components/schemas/S256',
        message: 'was not checked: the schema nests more than 256 `$ref`s deep here (too deep to check)',
      },
    ]);
  });

  it('stops at the step budget with one notChecked finding at $ and no partial findings', () => {
    assert.deepStrictEqual(
      check(nestedComposition('anyOf', 40), { $ref: '#/components/schemas/S0' }, { name: 1 }, { maxSteps: 10 }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#',
          message:
            'was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (10 schema applications) at #/components/schemas/S4 (`$ref`); no finding is reported, since the parts checked so far cannot be judged alone',
        },
      ],
    );
  });

  it('stops at the time budget', () => {
    // The clock is read every 256 steps: 1000 array items are enough to reach it.
    const findings = check(
      { openapi: '3.0.3' },
      { type: 'array', items: { type: 'integer' } },
      Array.from({ length: 1000 }, (_, i) => i),
      { timeoutMs: -1 },
    );
    assert.deepStrictEqual(
      findings.map((f) => [f.kind, f.path, f.message.replace(/\(-?\d+ ms\)/, '(N ms)')]),
      [
        [
          'notChecked',
          '$',
          'was not checked completely: the check stopped because it ran out of its time budget (N ms); no finding is reported, since the parts checked so far cannot be judged alone',
        ],
      ],
    );
  });

  it('turns a budget stop into validated: false with the reason in checkResponse', () => {
    const doc = nestedComposition('anyOf', 40);
    doc.paths = {
      '/x': {
        get: {
          responses: {
            200: {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } },
            },
          },
        },
      },
    };
    const result = checkResponse(
      doc,
      'GET',
      '/x',
      { status: 200, contentType: 'application/json', body: { name: 1 } },
      { maxSteps: 10 },
    );
    assert.deepStrictEqual(
      [result.validated, result.reason],
      [
        false,
        'Part of the body was not checked: $ was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (10 schema applications) at #/components/schemas/S4 (`$ref`); no finding is reported, since the parts checked so far cannot be judged alone.',
      ],
    );
  });

  it('case 51: follows a 300-hop $ref chain to its end and reports the missing field', () => {
    const result = checkResponse(refChain(300), 'GET', '/x', {
      status: 200,
      contentType: 'application/json',
      body: {},
    });
    assert.deepStrictEqual(result, {
      validated: true,
      target: {
        schema: { $ref: '#/components/schemas/S0' },
        schemaPath: '#/paths/~1x/get/responses/200/content/application~1json/schema',
        statusKey: '200',
        mediaType: 'application/json',
      },
      findings: [
        {
          kind: 'missing',
          severity: 'error',
          path: '$.mustHave',
          schemaPath: '#/components/schemas/S299/required',
          message: 'is required but missing',
        },
      ],
    });
  });

  it('follows a 5000-hop $ref chain to its end', () => {
    assert.deepStrictEqual(check(refChain(5000), { $ref: '#/components/schemas/S0' }, {}), [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.mustHave',
        schemaPath: '#/components/schemas/S4999/required',
        message: 'is required but missing',
      },
    ]);
  });

  it('reports a pattern that could only backtrack as not checked, and the response as not validated', () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'p', version: '1' },
      paths: {
        '/x': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(?=(a+)+$)' } } },
                  },
                },
              },
            },
          },
        },
      },
    };
    const result = checkResponse(doc, 'GET', '/x', {
      status: 200,
      contentType: 'application/json',
      body: { code: 'a'.repeat(34) + '!' },
    });
    const message =
      'was not checked against the pattern: the pattern "^(?=(a+)+$)" cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) and may backtrack catastrophically, so it is not run on API data';
    assert.deepStrictEqual(result, {
      validated: false,
      reason: `Part of the body was not checked: $.code ${message}.`,
      target: {
        schema: doc.paths['/x'].get.responses[200].content['application/json'].schema,
        schemaPath: '#/paths/~1x/get/responses/200/content/application~1json/schema',
        statusKey: '200',
        mediaType: 'application/json',
      },
      findings: [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$.code',
          schemaPath: '#/paths/~1x/get/responses/200/content/application~1json/schema/properties/code/pattern',
          keyword: 'pattern',
          message,
        },
      ],
    });
  });

  it('checks a patternProperties name with a nested-quantifier pattern in linear time', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'integer' } },
      additionalProperties: false,
    };
    assert.deepStrictEqual(check({ openapi: '3.0.3' }, schema, { aaaa: 'x', ['a'.repeat(34) + '!']: 1 }), [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.aaaa',
        schemaPath: '#/patternProperties/^(a+)+$/type',
        expected: 'integer',
        actual: 'string',
        message: 'is string, expected integer',
      },
      {
        kind: 'undocumented',
        severity: 'error',
        path: "$['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!']",
        schemaPath: '#/additionalProperties',
        message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
      },
    ]);
  });
});

describe('compilePattern', () => {
  const run = (pattern: string, value: string): unknown => {
    const compiled = compilePattern(pattern);
    return 'reason' in compiled ? compiled.reason : [compiled.engine, compiled.test(value)];
  };
  it('runs nested quantifiers on the linear engine', () =>
    assert.deepStrictEqual(run('^(a|a)+$', 'a'.repeat(40) + '!'), ['linear', false]));
  it('runs a Unicode property escape with backtracking when the pattern is provably safe', () =>
    assert.deepStrictEqual(run('^\\p{L}+$', 'héllo'), ['backtracking', true]));
  it('runs a backreference with backtracking when the pattern is provably safe', () =>
    assert.deepStrictEqual(run('^(a)\\1$', 'aa'), ['backtracking', true]));
  it('refuses a lookaround around nested quantifiers', () =>
    assert.deepStrictEqual(
      run('^(?=(a+)+$)', 'aa'),
      'the pattern "^(?=(a+)+$)" cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) and may backtrack catastrophically, so it is not run on API data',
    ));
  it('reports an invalid pattern', () =>
    assert.deepStrictEqual(run('[', 'x'), 'the pattern "[" is not a valid ECMA-262 regular expression'));
  it('does not test an astral value against a pattern whose linear reading would split it', () =>
    assert.deepStrictEqual(run('^.$', '\u{1F600}'), [
      'linear',
      {
        notChecked:
          'the value has characters outside the Basic Multilingual Plane, which the linear-time engine reads as two characters each under this pattern',
      },
    ]));
  it('issue 8 B5: runs an astral value on the linear engine when no atom can match half of it', () =>
    assert.deepStrictEqual(run('^[a-z]+\\d?$', 'ab\u{1F600}'), ['linear', false]));
  it('issue 8 B5: never backtracks on an astral value for alternation groups (2^31 paths)', () =>
    assert.deepStrictEqual(run(`^${'(?:a|a)'.repeat(31)}$`, 'a'.repeat(31) + '\u{1F600}'), ['linear', false]));
  it('issue 8 B5: does not run a Unicode-mode pattern of 31 alternation groups (2^31 paths) on the backtracking engine', () =>
    assert.deepStrictEqual(run(`^${'(?:\\p{L}|a)'.repeat(31)}$`, 'a'.repeat(31) + '!'), [
      'backtracking',
      {
        notChecked:
          'the pattern cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) ' +
          'and on a 32-character value it could take up to 2^38 backtracking steps, past the limit of 4000000',
      },
    ]));
  it('issue 8 B5: runs a short Unicode-mode alternation sequence whose bound is small', () =>
    assert.deepStrictEqual(run('^(?:\\p{L}|1)(?:\\p{L}|2)$', 'é2'), ['backtracking', true]));
  it('issue 8 B5: does not run two unanchored quantifiers on a long value (cubic: 66 s before)', () =>
    assert.deepStrictEqual(run('\\p{L}*\\p{L}*!', 'a'.repeat(4096)), [
      'backtracking',
      {
        notChecked:
          'the pattern cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) ' +
          'and on a 4096-character value it could take up to 2^39 backtracking steps, past the limit of 4000000',
      },
    ]));
  it('issue 8 B5: refuses alternation sequences behind a backreference when the value is long enough to cost 2^N', () =>
    assert.deepStrictEqual(run(`^${'(a|a)'.repeat(24)}\\1$`, 'a'.repeat(24) + '!'), [
      'backtracking',
      {
        notChecked:
          'the pattern cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) ' +
          'and on a 25-character value it could take up to 2^34 backtracking steps, past the limit of 4000000',
      },
    ]));
  it('issue 8 B5: looks at the clock after each pattern test, so many costly tests stop at the time budget', () => {
    assert.deepStrictEqual(
      check({ openapi: '3.1.0' }, { type: 'string', pattern: '^\\p{L}+$' }, 'abc', { timeoutMs: 0 }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#',
          message:
            'was not checked completely: the check stopped because it ran out of its time budget (0 ms); no finding is reported, since the parts checked so far cannot be judged alone',
        },
      ],
    );
  });
  it('issue 8 B5: refuses a fixed repetition of an alternation group', () =>
    assert.deepStrictEqual(
      run('^(?:\\p{L}|a){20}$', 'a'),
      'the pattern "^(?:\\\\p{L}|a){20}$" cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) and may backtrack catastrophically, so it is not run on API data',
    ));
  it('does not test a value past the length cap', () =>
    assert.deepStrictEqual(run('^a+$', 'a'.repeat(1_000_001)), [
      'linear',
      { notChecked: 'the value is 1000001 characters long, past the 1000000-character limit for testing this pattern' },
    ]));
});

/** A 3.0.3 document in the inheritance style: Pet carries the discriminator, Cat and Dog extend it with allOf. */
function pets(mapping?: Record<string, string>): Json {
  return {
    openapi: '3.0.3',
    info: { title: 'pets', version: '1' },
    paths: {},
    components: {
      schemas: {
        Pet: {
          type: 'object',
          required: ['petType', 'name'],
          properties: { petType: { type: 'string' }, name: { type: 'string' } },
          discriminator: { propertyName: 'petType', ...(mapping ? { mapping } : {}) },
        },
        Cat: {
          allOf: [
            { $ref: '#/components/schemas/Pet' },
            { type: 'object', properties: { huntingSkill: { type: 'string', enum: ['lazy', 'aggressive'] } } },
          ],
        },
        Dog: {
          allOf: [
            { $ref: '#/components/schemas/Pet' },
            { type: 'object', required: ['packSize'], properties: { packSize: { type: 'integer' } } },
          ],
        },
      },
    },
  };
}
const PET = { $ref: '#/components/schemas/Pet' };

describe('polymorphism decides what is documented (issue 7)', () => {
  const c37 = readCase('37-val-anyof-documented-union');
  const rows: { body: string; findings: Finding[] }[] = [
    { body: 'A', findings: [] },
    {
      body: 'B',
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.zzz',
          schemaPath: '#/paths/~1things/get/responses/200/content/application~1json/schema/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
    { body: 'C', findings: [] },
    { body: 'D', findings: [] },
  ];
  for (const row of rows) {
    it(`case 37: body ${row.body} reports only fields no satisfied anyOf branch declares`, () => {
      const result = checkResponse(c37.input.openapi, 'GET', '/things', {
        status: 200,
        contentType: 'application/json',
        body: c37.input.bodies[row.body],
      });
      assert.deepStrictEqual(result.findings, row.findings);
    });
  }

  it('documents the subtype picked through discriminator.mapping and applies its constraints', () => {
    assert.deepStrictEqual(
      check(pets({ cat: '#/components/schemas/Cat', dog: 'Dog' }), PET, {
        petType: 'cat',
        name: 'Tom',
        huntingSkill: 'sleepy',
      }),
      [
        {
          kind: 'enum',
          severity: 'error',
          path: '$.huntingSkill',
          schemaPath: '#/components/schemas/Cat/allOf/1/properties/huntingSkill/enum',
          allowed: ['lazy', 'aggressive'],
          message:
            'is "sleepy", not one of the allowed values ["lazy","aggressive"] (subtype chosen by discriminator petType="cat": #/components/schemas/Cat)',
        },
      ],
    );
  });

  it('picks the subtype by schema name without a mapping, found by scanning components.schemas', () => {
    assert.deepStrictEqual(check(pets(), PET, { petType: 'Dog', name: 'Rex', packSize: 'x' }), [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$.packSize',
        schemaPath: '#/components/schemas/Dog/allOf/1/properties/packSize/type',
        expected: 'integer',
        actual: 'string',
        message:
          'is string, expected integer (subtype chosen by discriminator petType="Dog": #/components/schemas/Dog)',
      },
    ]);
  });

  it('never reports a field of the chosen subtype as undocumented', () => {
    assert.deepStrictEqual(check(pets(), PET, { petType: 'Cat', name: 'Tom', huntingSkill: 'lazy' }), []);
  });

  it('reads the Swagger 2.0 discriminator, a plain property name, with subtypes from definitions', () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'pets', version: '1' },
      paths: {},
      definitions: {
        Pet: {
          type: 'object',
          discriminator: 'petType',
          required: ['petType'],
          properties: { petType: { type: 'string' }, name: { type: 'string' } },
        },
        Cat: {
          allOf: [{ $ref: '#/definitions/Pet' }, { type: 'object', properties: { huntingSkill: { type: 'string' } } }],
        },
      },
    };
    assert.deepStrictEqual(
      check(swagger, { $ref: '#/definitions/Pet' }, { petType: 'Cat', name: 'Tom', huntingSkill: 3 }),
      [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.huntingSkill',
          schemaPath: '#/definitions/Cat/allOf/1/properties/huntingSkill/type',
          expected: 'string',
          actual: 'integer',
          message: 'is integer, expected string (subtype chosen by discriminator petType="Cat": #/definitions/Cat)',
        },
      ],
    );
  });

  it('reports an unknown discriminator value once, allowing every mapping key and subtype name', () => {
    assert.deepStrictEqual(check(pets({ cat: '#/components/schemas/Cat' }), PET, { petType: 'Lizard', name: 'Liz' }), [
      {
        kind: 'enum',
        severity: 'error',
        path: '$.petType',
        schemaPath: '#/components/schemas/Pet/discriminator',
        allowed: ['cat', 'Dog'],
        message: 'is "Lizard", which names no schema of the discriminator: allowed values are ["cat","Dog"]',
      },
    ]);
  });

  it('reports an unknown discriminator value of a oneOf once, allowing every mapping key and branch name', () => {
    const doc = {
      openapi: '3.0.3',
      components: {
        schemas: {
          Cat: { type: 'object', properties: { petType: { type: 'string' } } },
          Dog: { type: 'object', properties: { petType: { type: 'string' } } },
        },
      },
    };
    const schema = {
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
      discriminator: { propertyName: 'petType', mapping: { kitty: 'Cat' } },
    };
    assert.deepStrictEqual(check(doc, schema, { petType: 'Lizard' }), [
      {
        kind: 'enum',
        severity: 'error',
        path: '$.petType',
        schemaPath: '#/discriminator',
        allowed: ['kitty', 'Dog'],
        message: 'is "Lizard", which names no schema of the discriminator: allowed values are ["kitty","Dog"]',
      },
    ]);
  });
  it('judges a mapping key whose schema is no oneOf branch by the branches, never as a value no schema names (attack round)', () => {
    const doc = {
      openapi: '3.1.0',
      components: {
        schemas: { Cat: { type: 'object', required: ['meow'] }, Dog: { type: 'object', required: ['bark'] } },
      },
    };
    const schema = {
      oneOf: [{ $ref: '#/components/schemas/Cat' }],
      discriminator: { propertyName: 'kind', mapping: { dog: '#/components/schemas/Dog' } },
    };
    assert.deepStrictEqual(check(doc, schema, { kind: 'dog', bark: 1 }), [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.meow',
        schemaPath: '#/components/schemas/Cat/required',
        message: 'is required but missing (closest of 1 oneOf branches: #/components/schemas/Cat)',
      },
    ]);
  });
});

describe('undecided subschemas (issue 8: no false pass, no guessed finding)', () => {
  const unsafe = '^(?=(a+)+$)';
  const reason =
    'the pattern "^(?=(a+)+$)" cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) and may backtrack catastrophically, so it is not run on API data';
  it('reports `not` over an unchecked pattern as not checked instead of a match', () => {
    assert.deepStrictEqual(check({ openapi: '3.1.0' }, { not: { type: 'string', pattern: unsafe } }, 'aa'), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/not/pattern',
        keyword: 'pattern',
        message: `was not checked against the pattern: ${reason}`,
      },
    ]);
  });
  it('reports `contains` with unchecked items as not checked instead of counting them', () => {
    assert.deepStrictEqual(
      check({ openapi: '3.1.0' }, { type: 'array', contains: { type: 'string', pattern: unsafe } }, ['aa', 1]),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/contains',
          keyword: 'contains',
          message: 'was not checked against `contains`: 1 item could not be checked',
        },
      ],
    );
  });
  it('reports oneOf as not checked when one branch matches and another could not be checked', () => {
    assert.deepStrictEqual(
      check(
        { openapi: '3.1.0' },
        {
          oneOf: [{ type: 'string' }, { type: 'string', pattern: unsafe }, { type: 'string', pattern: '^(?=(b+)+$)' }],
        },
        'aa',
      ),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/oneOf',
          keyword: 'oneOf',
          message:
            'was not checked against oneOf: it matches #/oneOf/0, and whether it also matches #/oneOf/1 and #/oneOf/2 (which could not be checked) decides whether exactly one branch matches',
        },
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/oneOf/1/pattern',
          keyword: 'pattern',
          message: `was not checked against the pattern: ${reason}`,
        },
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/oneOf/2/pattern',
          keyword: 'pattern',
          message: `was not checked against the pattern: ${reason.replace('(a+)', '(b+)')}`,
        },
      ],
    );
  });
  it('reports oneOf as not checked when one branch matches and another has a $ref that points nowhere', () => {
    assert.deepStrictEqual(
      check({ openapi: '3.0.3' }, { oneOf: [{ $ref: '#/components/schemas/Gone' }, { type: 'string' }] }, 'x'),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/oneOf',
          keyword: 'oneOf',
          message:
            'was not checked against oneOf: it matches #/oneOf/1, and whether it also matches #/components/schemas/Gone (which could not be checked) decides whether exactly one branch matches',
        },
        {
          kind: 'unresolvedRef',
          severity: 'warning',
          path: '$',
          schemaPath: '#/oneOf/0',
          message: 'was not checked: `$ref: #/components/schemas/Gone` points nowhere in the document',
        },
      ],
    );
  });
  it('reports a property name its propertyNames pattern cannot test as not checked', () => {
    assert.deepStrictEqual(
      check({ openapi: '3.1.0' }, { type: 'object', propertyNames: { pattern: unsafe } }, { aa: 1 }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$.aa',
          schemaPath: '#/propertyNames/pattern',
          keyword: 'pattern',
          message: `was not checked against the pattern: ${reason}`,
        },
      ],
    );
  });
});

describe('huge enums (issue 8 B7)', () => {
  const FIRST_20 = Array.from({ length: 20 }, (_, i) => i);
  it('issue 8 B7: an enum finding lists the first 20 allowed values and counts the others', () => {
    const schema = { type: 'array', items: { enum: [...Array.from({ length: 1000 }, (_, i) => i), { a: [1] }] } };
    const more =
      'is 1000, not one of the allowed values (1001 in all) [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,… 981 more]';
    assert.deepStrictEqual(check({ openapi: '3.1.0' }, schema, [999, 1000, { a: [1] }, '1']), [
      {
        kind: 'enum',
        severity: 'error',
        path: '$[1]',
        schemaPath: '#/items/enum',
        allowed: FIRST_20,
        allowedMore: 981,
        message: more,
      },
      {
        kind: 'enum',
        severity: 'error',
        path: '$[3]',
        schemaPath: '#/items/enum',
        allowed: FIRST_20,
        allowedMore: 981,
        message: more.replace('is 1000', 'is "1"'),
      },
    ]);
  });

  it('issue 8 B7: a 1,000,000-value enum counts against the step budget and the check says it stopped', () => {
    const schema = {
      type: 'array',
      items: { type: 'string', enum: Array.from({ length: 1_000_000 }, (_, i) => `v${i}`) },
    };
    assert.deepStrictEqual(
      check(
        { openapi: '3.0.3' },
        schema,
        Array.from({ length: 20_000 }, (_, i) => `zz${i}`),
      ),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#',
          message:
            'was not checked completely: the check stopped because it ran out of its step budget (200000 schema applications; an enum of 1000000 values counts one per value); ' +
            'no finding is reported, since the parts checked so far cannot be judged alone',
        },
      ],
    );
  });
});

describe('keywords the validator does not implement are not checked, never passed (issue 8 B13)', () => {
  const doc31 = {
    openapi: '3.1.0',
    components: { schemas: { Node: { $dynamicAnchor: 'node', type: 'object', required: ['must'] } } },
  };
  // Since issue 15 unevaluatedItems, unevaluatedProperties and $dynamicRef are checked: these rows pin their findings.
  it('issue 15: unevaluatedItems: false reports the items past prefixItems', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'array', prefixItems: [{ type: 'string' }], unevaluatedItems: false }, ['x', 1, 2]),
      [
        {
          kind: 'constraint',
          severity: 'error',
          path: '$',
          schemaPath: '#/unevaluatedItems',
          keyword: 'unevaluatedItems',
          message: 'has 2 items (from index 1) that no keyword evaluated, but unevaluatedItems is false',
        },
      ],
    );
  });
  it('issue 8 B13: unevaluatedItems decides nothing when prefixItems covers every item', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'array', prefixItems: [{ type: 'string' }], unevaluatedItems: false }, ['x']),
      [],
    );
  });
  it('issue 15: $dynamicRef applies the schema its $dynamicAnchor names', () => {
    assert.deepStrictEqual(check(doc31, { $dynamicRef: '#node' }, {}), [
      {
        kind: 'missing',
        severity: 'error',
        path: '$.must',
        schemaPath: '#/components/schemas/Node/required',
        message: 'is required but missing',
      },
    ]);
  });
  it('issue 15: unevaluatedProperties as a schema checks the members nothing else evaluated', () => {
    assert.deepStrictEqual(
      check(
        doc31,
        { type: 'object', properties: { a: {} }, unevaluatedProperties: { type: 'string' } },
        { a: 1, b: 2 },
      ),
      [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.b',
          schemaPath: '#/unevaluatedProperties/type',
          expected: 'string',
          actual: 'integer',
          message: 'is integer, expected string',
        },
      ],
    );
  });
  it('issue 15: unevaluatedProperties: false beside anyOf reports b, evaluated only by a failing branch', () => {
    const schema = {
      type: 'object',
      anyOf: [{ properties: { a: { type: 'integer' } } }, { properties: { b: { type: 'integer' } } }],
      unevaluatedProperties: false,
    };
    assert.deepStrictEqual(check(doc31, schema, { a: 1, b: 'x' }), [
      {
        kind: 'undocumented',
        severity: 'error',
        path: '$.b',
        schemaPath: '#/unevaluatedProperties',
        message:
          'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
      },
    ]);
  });
  it('keeps unevaluatedProperties: false without branches as closing the object', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'object', properties: { a: {} }, unevaluatedProperties: false }, { a: 1, extra: 2 }),
      [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.extra',
          schemaPath: '#/unevaluatedProperties',
          message:
            'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
        },
      ],
    );
  });
  it('issue 8 B13: numbers JSON parsing changed are not checked against enum, minimum or maximum', () => {
    const schema = {
      type: 'object',
      properties: { id: { enum: [9007199254740992], minimum: 0 }, n: { maximum: 1 }, small: { maximum: 1 } },
    };
    const reason =
      'the number in the body cannot be held exactly in a double (RFC 8259, 6), so the check would compare a different number';
    assert.deepStrictEqual(
      check(doc31, schema, JSON.parse('{"id":9007199254740993,"n":9007199254740993,"small":2}'), {
        inexactNumbers: { paths: new Set(['$.id']), unlisted: false },
      }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$.id',
          schemaPath: '#/properties/id/enum',
          keyword: 'enum',
          message: `was not checked against \`enum\`: ${reason}`,
        },
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$.id',
          schemaPath: '#/properties/id/minimum',
          keyword: 'minimum',
          message: `was not checked against \`minimum\`: ${reason}`,
        },
        {
          kind: 'constraint',
          severity: 'error',
          path: '$.n',
          schemaPath: '#/properties/n/maximum',
          keyword: 'maximum',
          message: 'is 9007199254740992, more than maximum 1',
        },
        {
          kind: 'constraint',
          severity: 'error',
          path: '$.small',
          schemaPath: '#/properties/small/maximum',
          keyword: 'maximum',
          message: 'is 2, more than maximum 1',
        },
      ],
    );
  });
  it('issue 8 B13: items equal only after JSON parsing changed their numbers are not reported as duplicates', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'array', uniqueItems: true }, JSON.parse('[9007199254740993,9007199254740992]'), {
        inexactNumbers: { paths: new Set(['$[0]']), unlisted: false },
      }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/uniqueItems',
          keyword: 'uniqueItems',
          message:
            'was not checked against `uniqueItems`: item 1 equals item 0 as parsed, but the items hold numbers that cannot be held exactly in a double (RFC 8259, 6)',
        },
      ],
    );
  });
  it('issue 15: numbers JSON parsing changed are checked as written against type, enum and const', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'integer', enum: [9007199254740992], minimum: 0 },
        big: { type: 'integer' },
        small: { type: 'integer' },
        c: { const: 1 },
      },
    };
    const text = '{"id":9007199254740993,"big":1e400,"small":1.5e-400,"c":1.00000000000000000001}';
    const texts = new Map([
      ['$.id', '9007199254740993'],
      ['$.big', '1e400'],
      ['$.small', '1.5e-400'],
      ['$.c', '1.00000000000000000001'],
    ]);
    assert.deepStrictEqual(
      check(doc31, schema, JSON.parse(text), { inexactNumbers: { paths: new Set(), unlisted: false, texts } }),
      [
        {
          kind: 'enum',
          severity: 'error',
          path: '$.c',
          schemaPath: '#/properties/c/const',
          allowed: [1],
          message: 'is 1.00000000000000000001, but the schema requires the constant 1',
        },
        {
          // The document's 9007199254740992 may have been written 9007199254740993: both parse to 2^53.
          kind: 'notChecked',
          severity: 'warning',
          path: '$.id',
          schemaPath: '#/properties/id/enum',
          keyword: 'enum',
          message:
            'was not checked against `enum`: it lists a number past 2^53 that a double cannot tell apart from 9007199254740993 (RFC 8259, 6)',
        },
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.small',
          schemaPath: '#/properties/small/type',
          expected: 'integer',
          actual: 'number',
          message: 'is number, expected integer',
        },
      ],
    );
  });
  it('issue 15: items whose numbers were written differently are not reported as duplicates', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'array', uniqueItems: true }, JSON.parse('[9007199254740993,9007199254740992]'), {
        inexactNumbers: { paths: new Set(), unlisted: false, texts: new Map([['$[0]', '9007199254740993']]) },
      }).map((finding) => [finding.kind, finding.keyword]),
      [['notChecked', 'uniqueItems']],
    );
  });
  it('issue 8 B13: when the scan did not list every changed number, every number not listed counts as changed', () => {
    assert.deepStrictEqual(
      check(doc31, { type: 'integer', maximum: 9007199254740992 }, JSON.parse('9007199254740993'), {
        inexactNumbers: { paths: new Set(), unlisted: true },
      }),
      [
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/type',
          keyword: 'type',
          message:
            'was not checked against `type`: the number in the body cannot be held exactly in a double and its text was not kept (RFC 8259, 6), so whether it is an integer is not known',
        },
        {
          kind: 'notChecked',
          severity: 'warning',
          path: '$',
          schemaPath: '#/maximum',
          keyword: 'maximum',
          message:
            'was not checked against `maximum`: the number in the body cannot be held exactly in a double (RFC 8259, 6), so the check would compare a different number',
        },
      ],
    );
  });
});

describe('no false pass on numbers and $refs (second attack round)', () => {
  it('finds an integer that is not a multiple of an integer multipleOf, however large', () => {
    const doc = { openapi: '3.1.0' };
    const values = [1000000001, 3000000001, 9007199254740992, 1e20, 2 ** 60, 999999999];
    assert.deepEqual(
      values.map((n) => check(doc, { multipleOf: 3 }, n).map((finding) => finding.kind)),
      [['constraint'], ['constraint'], ['constraint'], ['constraint'], ['constraint'], []],
    );
  });

  it('calls a body not validated when a nested $ref could not be followed', () => {
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/t': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { type: 'object', properties: { a: { $ref: '#code' } } } } },
              },
            },
          },
        },
      },
    };
    const checked = checkResponse(doc, 'get', '/t', {
      status: 200,
      contentType: 'application/json',
      body: { a: 12345 },
    });
    assert.deepEqual(
      [
        checked.validated,
        checked.findings.map((finding) => `${finding.kind} ${finding.path}`),
        checked.reason?.startsWith('Part of the body was not checked: $.a was not checked:'),
      ],
      [false, ['unresolvedRef $.a'], true],
    );
  });
});

describe('a document number of 2^53, or an enum member past it, against a body number that read exactly (attack round)', () => {
  const doc = { openapi: '3.1.0' };

  it('does not pass 9007199254740992 against minimum 9007199254740993, which parses to 2^53 as 9007199254740992 does', () => {
    assert.deepEqual(check(doc, JSON.parse('{"minimum":9007199254740993}'), 9007199254740992), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/minimum',
        keyword: 'minimum',
        message:
          "was not checked against `minimum`: the document's `minimum` parses to 9007199254740992, which a double cannot tell apart from any number from 9007199254740991.5 to 9007199254740993 (RFC 8259, 6), and 9007199254740992 lies in that range",
      },
    ]);
  });

  it('does not pass 2^60 against enum [1152921504606846977], which parses to 2^60', () => {
    assert.deepEqual(check(doc, JSON.parse('{"enum":[1152921504606846977]}'), 2 ** 60), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/enum',
        keyword: 'enum',
        message:
          'was not checked against `enum`: it lists a number past 2^53 that a double cannot tell apart from 1152921504606846976 (RFC 8259, 6)',
      },
    ]);
  });
});

describe('the linear-time engine has a work bound too (second attack round)', () => {
  it('does not test a 100,000-character value against a 1,000-branch alternation, and says why', () => {
    const pattern = `^(?:${Array.from({ length: 1000 }, (_, index) => `w${index}qqq`).join('|')})!$`;
    const compiled = compilePattern(pattern);
    assert.ok(!('reason' in compiled));
    const result = (compiled as { test(value: string): unknown }).test('a'.repeat(100_000));
    assert.deepEqual(result, {
      notChecked: `the value (100000 characters) against this ${pattern.length}-character pattern would cost more than the linear-time budget (5000000 character-states), so it was not tested`,
    });
  });

  it('still tests a short value against the same pattern', () => {
    const pattern = `^(?:${Array.from({ length: 1000 }, (_, index) => `w${index}qqq`).join('|')})!$`;
    assert.deepEqual(
      [
        (compilePattern(pattern) as { test(value: string): unknown }).test('w7qqq!'),
        (compilePattern(pattern) as { test(value: string): unknown }).test('w7qq!'),
      ],
      [true, false],
    );
  });
});

describe('counted repetitions count in the backtracking bound (second attack round)', () => {
  it('does not run a lookahead of 2,048 letters repeated 190 times with backtracking on a long value', () => {
    const pattern = `${'(?=\\p{L}{2048})'.repeat(190)}!`;
    const compiled = compilePattern(pattern) as { engine: string; test(value: string): unknown };
    const result = compiled.test('a'.repeat(4096));
    assert.deepEqual(
      [compiled.engine, typeof result === 'object' && result !== null && 'notChecked' in result],
      ['backtracking', true],
    );
  });

  it('still tests a counted pattern whose bound is small', () => {
    const compiled = compilePattern('^\\p{L}{3}-\\d{2}$') as { test(value: string): unknown };
    assert.deepEqual([compiled.test('abc-12'), compiled.test('ab-12')], [true, false]);
  });
});

// Issue 9: a quick pass proves most values have no finding before the walk runs; these pin what it must
// leave to the walk (overlapping oneOf branches, annotation-only branches, readOnly / writeOnly scoping,
// numbers JSON turns into Infinity) and that the step budget counts exactly as the walk alone does.
describe("check: the quick pass gives the walk's findings and step counts (issue 9)", () => {
  const items = {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'boolean' } },
  };
  const many = Array.from({ length: 300 }, (_, i) => ({ a: i, b: 'x', c: true }));
  const stopped = (steps: number): Finding[] => [
    {
      kind: 'notChecked',
      severity: 'warning',
      path: '$',
      schemaPath: '#',
      message: `was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (${steps} schema applications) at #/items/properties/b (\`properties\`); no finding is reported, since the parts checked so far cannot be judged alone`,
    },
  ];
  const overlap = (message: string): Finding[] => [
    { kind: 'constraint', severity: 'error', path: '$[0]', schemaPath: '#/items/oneOf', keyword: 'oneOf', message },
  ];

  it('reports an item two oneOf branches match', () => {
    assert.deepStrictEqual(
      check(DOC31, { type: 'array', items: { oneOf: [{ type: 'number' }, { type: 'integer' }] } }, [3, 2.5]),
      overlap(
        'matches 2 oneOf branches (#/items/oneOf/0 and #/items/oneOf/1), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      ),
    );
  });

  it('counts a oneOf branch with only a format finding as matching', () => {
    const schema = {
      type: 'array',
      items: {
        oneOf: [
          { type: 'string', format: 'date' },
          { type: 'string', maxLength: 3 },
        ],
      },
    };
    assert.deepStrictEqual(
      check(DOC31, schema, ['abc', '2024-05-01']),
      overlap(
        'matches 2 oneOf branches (#/items/oneOf/0 and #/items/oneOf/1), but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart',
      ),
    );
  });

  it('reports a readOnly field of an item in a request', () => {
    const schema = {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } } },
    };
    assert.deepStrictEqual(check(DOC30, schema, [{ name: 'a' }, { id: 1, name: 'b' }], { direction: 'request' }), [
      {
        kind: 'readOnly',
        severity: 'warning',
        path: '$[1].id',
        schemaPath: '#/items/properties/id/readOnly',
        message: 'is readOnly but is sent in a request; the server should ignore or reject it',
      },
    ]);
  });

  it('excuses a missing required writeOnly field of an item in a response, not a missing plain one', () => {
    const schema = {
      type: 'array',
      items: {
        type: 'object',
        required: ['password', 'name'],
        properties: { password: { type: 'string', writeOnly: true }, name: { type: 'string' } },
      },
    };
    assert.deepStrictEqual(check(DOC30, schema, [{ name: 'a' }, {}]), [
      {
        kind: 'missing',
        severity: 'error',
        path: '$[1].name',
        schemaPath: '#/items/required',
        message: 'is required but missing',
      },
    ]);
  });

  it('passes Infinity where no type is asked for and reports it where a number is', () => {
    assert.deepStrictEqual(
      check(DOC31, { type: 'array', items: { anyOf: [{}, { type: 'number' }] } }, [Infinity, 1]),
      [],
    );
    assert.deepStrictEqual(check(DOC31, { type: 'array', items: { type: 'number' } }, [1, Infinity]), [
      {
        kind: 'wrongType',
        severity: 'error',
        path: '$[1]',
        schemaPath: '#/items/type',
        expected: 'number',
        actual: 'number',
        message: 'is number, expected number',
      },
    ]);
  });

  it('checks 300 items of 3 fields in exactly 1,201 steps: passes at that budget', () => {
    assert.deepStrictEqual(check(DOC31, { type: 'array', items }, many, { maxSteps: 1201 }), []);
  });

  it('stops one step short of 1,201 with the budget finding', () => {
    assert.deepStrictEqual(check(DOC31, { type: 'array', items }, many, { maxSteps: 1200 }), stopped(1200));
  });
});

describe('`not` and `if` own their subschema (issue 8, third attack round F1: a false pass)', () => {
  const doc = { openapi: '3.1.0' };
  it('rejects a body that `not: {not: {additionalProperties: false}}` forbids: its undocumented key fails the inner schema', () => {
    assert.deepStrictEqual(check(doc, { not: { not: { additionalProperties: false } } }, { z: 1 }), [
      {
        kind: 'constraint',
        severity: 'error',
        path: '$',
        schemaPath: '#/not',
        keyword: 'not',
        message: 'matches the schema under `not`, which it must not match',
      },
    ]);
  });
  it('accepts a body with an undocumented key under `not: {additionalProperties: false}`', () => {
    assert.deepStrictEqual(check(doc, { not: { additionalProperties: false } }, { z: 1 }), []);
  });
  it('takes `else` when `if` closes the object and the body has an undocumented key', () => {
    assert.deepStrictEqual(
      check(doc, { if: { additionalProperties: false }, else: { required: ['q'] } }, { z: 1 }).map((finding) => [
        finding.kind,
        finding.path,
        finding.schemaPath,
      ]),
      [['missing', '$.q', '#/else/required']],
    );
  });
  it('does not take `then` when `if` closes the object and the body has an undocumented key', () => {
    assert.deepStrictEqual(
      check(doc, { if: { additionalProperties: false }, then: { required: ['q'] } }, { z: 1 }),
      [],
    );
  });
});

describe('`then`, `else` and `dependentSchemas` own their subschema (issue 8, third attack round F10: a false pass)', () => {
  const closed = { properties: { kind: {} }, additionalProperties: false };
  const doc = {
    openapi: '3.1.0',
    components: {
      schemas: { Closed: { type: 'object', properties: { kind: { type: 'string' } }, additionalProperties: false } },
    },
  };
  const kinds = (schema: unknown) =>
    check(doc, schema, { kind: 'x', extra: 1 }).map((finding) => [
      finding.kind,
      finding.severity,
      finding.path,
      finding.schemaPath,
    ]);
  it('applies additionalProperties: false in `then`', () => {
    assert.deepStrictEqual(kinds({ if: { required: ['kind'] }, then: closed }), [
      ['undocumented', 'error', '$.extra', '#/then/additionalProperties'],
    ]);
  });
  it('applies additionalProperties: false in `else`', () => {
    assert.deepStrictEqual(kinds({ if: { required: ['q'] }, else: closed }), [
      ['undocumented', 'error', '$.extra', '#/else/additionalProperties'],
    ]);
  });
  it('applies additionalProperties: false in `dependentSchemas`', () => {
    assert.deepStrictEqual(kinds({ dependentSchemas: { kind: closed } }), [
      ['undocumented', 'error', '$.extra', '#/dependentSchemas/kind/additionalProperties'],
    ]);
  });
  it('applies a closed schema reached by `$ref` from `then`', () => {
    assert.deepStrictEqual(kinds({ if: { required: ['kind'] }, then: { $ref: '#/components/schemas/Closed' } }), [
      ['undocumented', 'error', '$.extra', '#/components/schemas/Closed/additionalProperties'],
    ]);
  });
  it('leaves the keys of an open `then` to the parent: no warning for a key `then` does not declare', () => {
    assert.deepStrictEqual(
      kinds({
        type: 'object',
        properties: { kind: {}, extra: {} },
        if: { required: ['kind'] },
        then: { properties: { kind: { type: 'string' } } },
      }),
      [],
    );
  });
});

describe('a `$ref` that cannot be followed decides nothing (issue 8, third attack round: a false pass)', () => {
  const doc = { openapi: '3.1.0' };
  const unresolved = (schemaPath: string) => ({
    kind: 'unresolvedRef',
    severity: 'warning',
    path: '$',
    schemaPath,
    message: 'was not checked: `$ref: #/nowhere` points nowhere in the document',
  });
  it('reports `not: {not: {$ref}}` as not checked, not as passed', () => {
    assert.deepStrictEqual(check(doc, { not: { not: { $ref: '#/nowhere' } } }, 1), [unresolved('#/not/not')]);
  });
  it('reports `not: {$ref}` as not checked, not as a match', () => {
    assert.deepStrictEqual(check(doc, { not: { $ref: '#/nowhere' } }, 1), [unresolved('#/not')]);
  });
  it('picks no branch when `if` could not be checked', () => {
    assert.deepStrictEqual(check(doc, { if: { $ref: '#/nowhere' }, then: { type: 'string' } }, 1), [
      unresolved('#/if'),
    ]);
  });
  it('counts no item for `contains` that could not be checked', () => {
    assert.deepStrictEqual(check(doc, { type: 'array', contains: { $ref: '#/nowhere' } }, [1]), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/contains',
        keyword: 'contains',
        message: 'was not checked against `contains`: 1 item could not be checked',
      },
    ]);
  });
});

describe('long member names in paths (issue 8, attack round 4 B5-B8)', () => {
  it('cuts a member name of a million characters to 1,000 in the instance path of a finding', () => {
    const name = 'k'.repeat(1_000_000);
    const findings = check(
      { openapi: '3.1.0' },
      { type: 'object', properties: {}, additionalProperties: false },
      { [name]: 1 },
    );
    assert.deepStrictEqual(
      findings.map((finding) => finding.path),
      [`$['${'k'.repeat(1000)}… (999000 more characters)']`],
    );
  });
  it('cuts a required name of the document the same way, and keeps short names whole', () => {
    assert.deepStrictEqual(
      [instancePath(['r'.repeat(1500)]), instancePath(['id', 0, 'a b'])],
      [`$['${'r'.repeat(1000)}… (500 more characters)']`, "$.id[0]['a b']"],
    );
  });
});

describe('JSON Schema 2020-12 resources and annotations in OpenAPI 3.1 documents (issue 15)', () => {
  // Each row's schema is the document root, as the JSON Schema Test Suite is run; its verdict (a failed assertion
  // or none) is compared with ajv's 2020-12 validator, the second oracle, except where the suite's own case decides.
  type Row = {
    description: string;
    schema: Record<string, unknown>;
    data: unknown;
    findings: unknown[];
    suite?: string;
  };
  const rows: Row[] = [
    {
      description: 'follows a $ref to the $id of a schema elsewhere in the document',
      schema: {
        type: 'object',
        properties: { tag: { $ref: 'https://example.test/tag' } },
        $defs: {
          tag: {
            $id: 'https://example.test/tag',
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' } },
          },
        },
      },
      data: { tag: {} },
      findings: [
        {
          kind: 'missing',
          severity: 'error',
          path: '$.tag.name',
          schemaPath: '#/$defs/tag/required',
          message: 'is required but missing',
        },
      ],
    },
    {
      description: 'resolves a relative $ref against the $id of the schema holding it',
      schema: {
        $ref: 'https://example.test/pet',
        $defs: {
          pet: { $id: 'https://example.test/pet', type: 'object', properties: { tag: { $ref: 'tag' } } },
          tag: { $id: 'https://example.test/tag', required: ['name'] },
        },
      },
      data: { tag: {} },
      findings: [
        {
          kind: 'missing',
          severity: 'error',
          path: '$.tag.name',
          schemaPath: '#/$defs/tag/required',
          message: 'is required but missing',
        },
      ],
    },
    {
      description: "resolves #/... under an $id from that resource's root, not the document's",
      schema: {
        $ref: 'https://example.test/pet',
        $defs: {
          pet: {
            $id: 'https://example.test/pet',
            properties: { id: { $ref: '#/$defs/id' } },
            $defs: { id: { type: 'integer' } },
          },
          id: { type: 'string' },
        },
      },
      data: { id: 'x' },
      findings: [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.id',
          schemaPath: '#/$defs/pet/$defs/id/type',
          expected: 'integer',
          actual: 'string',
          message: 'is string, expected integer',
        },
      ],
    },
    {
      description: 'follows a $ref to a plain-name fragment to the schema whose $anchor it names',
      schema: {
        properties: { name: { $ref: '#name' } },
        $defs: { name: { $anchor: 'name', type: 'string', minLength: 2 } },
      },
      data: { name: 'x' },
      findings: [
        {
          kind: 'constraint',
          severity: 'error',
          path: '$.name',
          schemaPath: '#/$defs/name/minLength',
          keyword: 'minLength',
          message: 'is 1 characters long, fewer than minLength 2',
        },
      ],
    },
    {
      description: 'resolves $dynamicRef to the outermost $dynamicAnchor of the dynamic scope (a strict tree)',
      schema: {
        $id: 'https://example.test/strict-tree',
        $dynamicAnchor: 'node',
        $ref: 'tree',
        unevaluatedProperties: false,
        $defs: {
          tree: {
            $id: 'tree',
            $dynamicAnchor: 'node',
            type: 'object',
            properties: { data: true, children: { type: 'array', items: { $dynamicRef: '#node' } } },
          },
        },
      },
      data: { children: [{ daat: 1 }] },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.children[0].daat',
          schemaPath: '#/unevaluatedProperties',
          message:
            'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
        },
      ],
    },
    {
      description: 'counts the members `then` evaluates when `if` passes (unevaluatedProperties beside if)',
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        if: { properties: { kind: { const: 'card' } } },
        then: { properties: { last4: { type: 'string' } } },
        unevaluatedProperties: false,
      },
      data: { kind: 'card', last4: '1234' },
      findings: [],
    },
    {
      description: 'reports a member only `then` evaluates when `if` fails (unevaluatedProperties beside if)',
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        if: { properties: { kind: { const: 'card' } } },
        then: { properties: { last4: { type: 'string' } } },
        unevaluatedProperties: false,
      },
      data: { kind: 'bank', last4: '1234' },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.last4',
          schemaPath: '#/unevaluatedProperties',
          message:
            'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
        },
      ],
    },
    {
      description: 'counts the members of a dependentSchemas entry whose property is present',
      schema: {
        properties: { card: true },
        dependentSchemas: { card: { properties: { expiry: true } } },
        unevaluatedProperties: false,
      },
      data: { card: 1, expiry: 2 },
      findings: [],
    },
    {
      description: 'reports a member of a dependentSchemas entry whose property is absent',
      schema: {
        properties: { card: true },
        dependentSchemas: { card: { properties: { expiry: true } } },
        unevaluatedProperties: false,
      },
      data: { expiry: 2 },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.expiry',
          schemaPath: '#/unevaluatedProperties',
          message:
            'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
        },
      ],
    },
    {
      description: 'reports a member only a failing anyOf branch evaluates',
      schema: {
        anyOf: [
          { properties: { a: { type: 'integer' } }, required: ['a'] },
          { properties: { b: { type: 'integer' } }, required: ['b'] },
        ],
        unevaluatedProperties: false,
      },
      data: { a: 1, b: 'x' },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.b',
          schemaPath: '#/unevaluatedProperties',
          message:
            'is present but not evaluated by any subschema, and the schema closes the object with unevaluatedProperties: false',
        },
      ],
    },
    {
      description: 'counts the items contains matched, and reports the rest under unevaluatedItems: false',
      schema: { prefixItems: [{ type: 'string' }], contains: { type: 'integer' }, unevaluatedItems: false },
      data: ['a', 1, null],
      findings: [
        {
          kind: 'constraint',
          severity: 'error',
          path: '$',
          schemaPath: '#/unevaluatedItems',
          keyword: 'unevaluatedItems',
          message: 'has 1 item (from index 2) that no keyword evaluated, but unevaluatedItems is false',
        },
      ],
      // ajv 8.20 calls this valid; the suite's own case says invalid (unevaluatedItems.json#19/2: [1, 2, 'foo']).
      suite: 'unevaluatedItems.json#19/2',
    },
    {
      description: 'checks unevaluated members against an unevaluatedProperties schema',
      schema: { type: 'object', properties: { a: {} }, unevaluatedProperties: { type: 'string' } },
      data: { a: 1, b: 2 },
      findings: [
        {
          kind: 'wrongType',
          severity: 'error',
          path: '$.b',
          schemaPath: '#/unevaluatedProperties/type',
          expected: 'string',
          actual: 'integer',
          message: 'is integer, expected string',
        },
      ],
    },
    {
      description: 'documents a field the applying `then` declares',
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        if: { properties: { kind: { const: 'card' } }, required: ['kind'] },
        then: { properties: { last4: { type: 'string' } } },
        else: { properties: { iban: { type: 'string' } } },
      },
      data: { kind: 'card', last4: '1234' },
      findings: [],
    },
    {
      description: 'documents a field the applying `else` declares, and not one only `then` declares',
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        if: { properties: { kind: { const: 'card' } }, required: ['kind'] },
        then: { properties: { last4: { type: 'string' } } },
        else: { properties: { iban: { type: 'string' } } },
      },
      data: { kind: 'bank', iban: 'DE00', last4: '1234' },
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.last4',
          schemaPath: '#/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
    {
      description: 'documents a field of the dependentSchemas entry whose property is present, and not otherwise',
      schema: {
        type: 'object',
        properties: {
          card: { type: 'string' },
          items: {
            type: 'array',
            items: { type: 'object', properties: { n: {} }, dependentSchemas: { n: { properties: { m: {} } } } },
          },
        },
        dependentSchemas: { card: { properties: { expiry: { type: 'string' } } } },
      },
      data: { card: 'x', expiry: '12/30', items: [{ n: 1, m: 2 }, { m: 3 }] },
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.items[1].m',
          schemaPath: '#/properties/items/items/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
    {
      description: 'documents the fields of a schema reached by a $ref to its $id',
      schema: {
        type: 'object',
        allOf: [{ $ref: 'https://example.test/base' }],
        properties: { name: {} },
        $defs: { base: { $id: 'https://example.test/base', properties: { id: {} } } },
      },
      data: { id: 1, name: 'x', extra: true },
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.extra',
          schemaPath: '#/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
    {
      description: 'documents the fields of the schema a $dynamicRef leads to',
      schema: {
        type: 'object',
        properties: { item: { $dynamicRef: '#item' } },
        $defs: { item: { $dynamicAnchor: 'item', type: 'object', properties: { id: { type: 'integer' } } } },
      },
      data: { item: { id: 1, extra: 2 } },
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.item.extra',
          schemaPath: '#/properties/item/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
    {
      description: 'judges a closed anyOf branch inside allOf on its own schema object: the open branch matches',
      schema: { allOf: [{ anyOf: [{}, { additionalProperties: false }] }] },
      data: { z: 1 },
      findings: [],
    },
    {
      description: 'rejects a field a closed anyOf branch inside allOf does not declare when the other branch fails',
      schema: { allOf: [{ anyOf: [{ additionalProperties: false }, { properties: { a: false } }] }] },
      data: { a: 1 },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.a',
          schemaPath: '#/allOf/0/anyOf/0/additionalProperties',
          message:
            'is present but not documented, and the schema closes the object with additionalProperties: false (closest of 2 anyOf branches: #/allOf/0/anyOf/0)',
        },
      ],
    },
    {
      description: 'judges a closed anyOf branch reached by a $ref with a sibling keyword on its own schema object',
      schema: {
        $ref: '#/$defs/closed',
        maximum: 5,
        $defs: { closed: { anyOf: [{ additionalProperties: false }, { properties: { a: { type: 'string' } } }] } },
      },
      data: { a: 1 },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.a',
          schemaPath: '#/$defs/closed/anyOf/0/additionalProperties',
          message:
            'is present but not documented, and the schema closes the object with additionalProperties: false (closest of 2 anyOf branches: #/$defs/closed/anyOf/0)',
        },
      ],
    },
    {
      description: 'takes no closure from an anyOf branch of an `if` into what the applying `then` documents',
      schema: { if: { anyOf: [{}, { additionalProperties: false }] }, then: {} },
      data: { z: 1 },
      findings: [],
    },
    {
      description: 'rejects an extra field under additionalProperties: false beside unevaluatedProperties: false',
      schema: { additionalProperties: false, unevaluatedProperties: false },
      data: { a: 1 },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.a',
          schemaPath: '#/additionalProperties',
          message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
        },
      ],
    },
    {
      description: 'rejects an extra field under a closed allOf branch beside unevaluatedProperties: false',
      schema: { allOf: [{ additionalProperties: false }], unevaluatedProperties: false },
      data: { z: 'a' },
      findings: [
        {
          kind: 'undocumented',
          severity: 'error',
          path: '$.z',
          schemaPath: '#/allOf/0/additionalProperties',
          message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
        },
      ],
    },
    {
      description: 'documents the fields of anyOf branches inside allOf, and warns of the rest, beside a closed branch',
      schema: {
        properties: { a: {} },
        allOf: [{ anyOf: [{ required: ['a'] }, { properties: { b: {} }, additionalProperties: false }] }],
      },
      data: { a: 1, c: 2 },
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.c',
          schemaPath: '#/properties',
          message: 'is present but not documented in the schema',
        },
      ],
    },
  ];
  const failed = (findings: Finding[]): boolean =>
    findings.some(
      (f) =>
        f.kind === 'missing' ||
        f.kind === 'wrongType' ||
        f.kind === 'enum' ||
        f.kind === 'constraint' ||
        (f.kind === 'undocumented' && f.severity === 'error'),
    );
  for (const row of rows) {
    it(row.description, () => {
      const doc = { openapi: '3.1.0', ...row.schema };
      assert.deepStrictEqual(check(doc, doc, row.data), row.findings);
    });
  }
  it('gives the verdict ajv 2020 gives on every row the suite does not decide', () => {
    const compared = rows.filter((row) => row.suite === undefined);
    const agreeing = compared.filter((row) => {
      const doc = { openapi: '3.1.0', ...row.schema };
      return !failed(check(doc, doc, row.data)) === ajv2020Valid(row.schema, row.data);
    });
    console.log(`issue 15 rows: ajv 2020 agrees on ${agreeing.length} of ${compared.length} verdicts`);
    assert.deepStrictEqual(
      agreeing.map((row) => row.description),
      compared.map((row) => row.description),
    );
  });
  it('ends unevaluatedProperties over a web of inline anyOf with the step budget, not a stall', () => {
    let schema: Record<string, unknown> = { properties: { a: true } };
    for (let level = 0; level < 40; level++) schema = { anyOf: [schema, schema], unevaluatedProperties: false };
    const doc = { openapi: '3.1.0' };
    assert.deepStrictEqual(check(doc, schema, { a: 1, b: 2 }, { maxSteps: 20_000 }), [
      {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#',
        message:
          'was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (20000 schema applications) at #/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/0/anyOf/… (201 more characters) (`anyOf`); no finding is reported, since the parts checked so far cannot be judged alone',
      },
    ]);
  });
  it('ends unevaluatedProperties over a web of anyOf $refs with the step budget, not a stall', () => {
    const schemas: Record<string, unknown> = { S0: { properties: { a: true } } };
    for (let level = 1; level <= 40; level++) {
      const below = { $ref: `#/components/schemas/S${level - 1}` };
      schemas[`S${level}`] = { anyOf: [below, { allOf: [below] }], unevaluatedProperties: false };
    }
    const doc = { openapi: '3.1.0', components: { schemas } };
    assert.deepStrictEqual(
      check(doc, { $ref: '#/components/schemas/S40' }, { a: 1, b: 2 }, { maxSteps: 20_000 }).map((f) => f.message),
      [
        'was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (20000 schema applications) at #/components/schemas/S5 (`$ref`); no finding is reported, since the parts checked so far cannot be judged alone',
      ],
    );
  });
});

describe('a web of 10,000 `$id` schemas ends by its step budget (issue 15, attack round)', () => {
  // Each schema is its own resource, reached by a relative `$ref` against its `$id`; every object it checks is read
  // through the whole web again (what the union documents, what unevaluatedProperties evaluated).
  const size = 10_000;
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < size; i++)
    schemas[`S${i}`] = {
      $id: `https://example.com/s${i}`,
      type: 'object',
      anyOf: [{ $ref: `s${(i + 1) % size}` }, { $ref: `s${(i * 7 + 3) % size}` }],
      properties: { a: { type: 'integer' } },
      unevaluatedProperties: false,
    };
  const doc = { openapi: '3.1.0', info: { title: 'web', version: '1' }, paths: {}, components: { schemas } };
  for (const maxSteps of [2_000, 20_000]) {
    it(`stops a 13-byte body at ${maxSteps} steps with no clock, naming the schema and keyword`, () => {
      const body = '{"a":1,"b":2}';
      const spent = { steps: 0 };
      // A ten-minute time limit: only the steps can end this check.
      const findings = check(doc, schemas.S0, JSON.parse(body), {
        at: '#/components/schemas/S0',
        maxSteps,
        timeoutMs: 600_000,
        spent,
      });
      const where = /at (#\/components\/schemas\/S\d+(?:\/anyOf\/[01])?) \(`(\$ref|anyOf)`\)/.exec(
        findings[0]?.message ?? '',
      );
      assert.deepStrictEqual(
        [body.length, findings.length, where?.[2] === (where?.[1].includes('anyOf') ? 'anyOf' : '$ref')],
        [13, 1, true],
      );
      assert.deepStrictEqual(findings[0], {
        kind: 'notChecked',
        severity: 'warning',
        path: '$',
        schemaPath: '#/components/schemas/S0',
        message: `was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (${maxSteps} schema applications) at ${where![1]} (\`${where![2]}\`); no finding is reported, since the parts checked so far cannot be judged alone`,
      });
      // Past the budget by at most one bulk charge (merging two unions of this web: 1 step per 8 declarations).
      assert.ok(spent.steps > maxSteps && spent.steps <= maxSteps + Math.ceil((4 * size) / 8), String(spent.steps));
    });
  }
  it('stops at the default step budget before the default clock guard', () => {
    const spent = { steps: 0 };
    const findings = check(doc, schemas.S0, { a: 1, b: 2 }, { at: '#/components/schemas/S0', spent });
    assert.deepStrictEqual(
      [findings.length, /ran out of its step budget \(200000 schema applications\) at #\//.test(findings[0]!.message)],
      [1, true],
      findings[0]?.message,
    );
    assert.ok(spent.steps > 200_000 && spent.steps <= 200_000 + Math.ceil((4 * size) / 8), String(spent.steps));
  });
});

describe('a discriminator over 20,000 named schemas ends by its step budget (issue 15, loop audit)', () => {
  // Every value the discriminator dispatches scans the mapping and every named schema for subtypes: 1,000 items
  // times 20,001 schemas is 20 million reads without the budget.
  const schemas: Record<string, unknown> = {
    Pet: { type: 'object', discriminator: { propertyName: 'kind' }, properties: { kind: { type: 'string' } } },
    Cat: { allOf: [{ $ref: '#/components/schemas/Pet' }] },
  };
  for (let i = 0; i < 20_000; i++) schemas[`S${i}`] = { allOf: [{ $ref: '#/components/schemas/Other' }] };
  const doc = { openapi: '3.0.3', info: { title: 'pets', version: '1' }, paths: {}, components: { schemas } };
  it('stops the subtype scan at the step budget, naming the discriminator', () => {
    const spent = { steps: 0 };
    const body = Array.from({ length: 1_000 }, () => ({ kind: 'Cat' }));
    const findings = check(doc, { type: 'array', items: { $ref: '#/components/schemas/Pet' } }, body, {
      maxSteps: 20_000,
      timeoutMs: 600_000,
      spent,
    });
    assert.deepStrictEqual(
      [findings, spent.steps],
      [
        [
          {
            kind: 'notChecked',
            severity: 'warning',
            path: '$',
            schemaPath: '#',
            message:
              'was not checked completely: the check stopped because the schema is too costly to check: it ran out of its step budget (20000 schema applications) at #/components/schemas/Pet/discriminator (`discriminator`); no finding is reported, since the parts checked so far cannot be judged alone',
          },
        ],
        20_001,
      ],
    );
  });
  it('still picks the subtype the scan finds within the budget', () => {
    const findings = check(doc, { $ref: '#/components/schemas/Pet' }, { kind: 'Dog' }, { timeoutMs: 600_000 });
    assert.deepStrictEqual(
      findings.map((finding) => [finding.kind, finding.path, finding.message]),
      [['enum', '$.kind', 'is "Dog", which names no schema of the discriminator: allowed values are ["Cat"]']],
    );
  });
});

describe('a 3.1 document with $id, $anchor and relative $refs (issue 15)', () => {
  const FIXTURE = new URL('../fixtures/documents/schema-ids.json', import.meta.url).pathname;
  it('checks a response through a $ref to an $id, a relative $ref and #/... from that resource, and names the $ref that leaves', async () => {
    const loaded = await loadDocument(FIXTURE);
    const result = checkResponse(loaded.doc, 'GET', '/pets/{petId}', {
      status: 200,
      contentType: 'application/json',
      body: { id: 'x', tag: {}, vet: 1 },
    });
    assert.deepStrictEqual(
      [result.validated, result.findings.map((f) => [f.kind, f.path, f.schemaPath])],
      [
        false,
        [
          ['wrongType', '$.id', '#/components/schemas/Pet/$defs/id/type'],
          ['missing', '$.tag.name', '#/components/schemas/Tag/required'],
          ['unresolvedRef', '$.vet', '#/components/schemas/Pet/properties/vet'],
        ],
      ],
    );
    assert.equal(
      result.findings[2]!.message,
      'was not checked: `$ref: vet` resolves to https://example.test/schemas/vet, which no `$id` of the document declares, and is not a local JSON Pointer (external references must be bundled into the document)',
    );
  });

  describe('through the probe tool', () => {
    let url = '';
    let close = (): void => {};
    before(async () => {
      const server = createServer((req, res) => {
        const bodies: Record<string, unknown> = {
          '/pets/1': { id: 'x', tag: {}, vet: 1 },
          '/owners/1': { name: 'Ann', pet: { id: 1, tag: { name: 'cat' } } },
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(bodies[req.url ?? ''] ?? {}));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => {
        server.close();
        server.closeAllConnections();
      };
    });
    after(() => close());
    const probe = async (path: string): Promise<any> => {
      const handler = createHandler(readConfig({ API_BASE_URL: url, OPENAPI_DOC: FIXTURE }, '/nonexistent'));
      const reply: any = await handler.handle({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'probe', arguments: { path } },
      });
      return reply.result.structuredContent;
    };
    it('reports the findings behind a $ref to an $id, and leaves only the $ref that leaves the document unchecked', async () => {
      const result = await probe('/pets/1');
      assert.deepStrictEqual(
        [result.validated, result.findings.map((f: Finding) => [f.kind, f.path])],
        [
          false,
          [
            ['wrongType', '$.id'],
            ['missing', '$.tag.name'],
            ['unresolvedRef', '$.vet'],
          ],
        ],
      );
    });
    it('checks a body whose schema is a $ref to an $anchor, passing', async () => {
      const result = await probe('/owners/1');
      assert.deepStrictEqual([result.validated, result.matchesContract, result.findings], [true, true, []]);
    });
  });
});
