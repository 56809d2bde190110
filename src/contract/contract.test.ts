// Tests of the contract layer (src/contract/) on the walkthrough document, with no server and no HTTP.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { loadDocument } from '../document/openapi-document.ts';
import { matchOperation } from '../document/match.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { analyzeSample } from './sample.ts';
import { checkParameters, queryValues } from './parameters.ts';
import { nearestName } from './operation.ts';
import { describeOperation, describeTypeScript } from './describe.ts';
import { draftRequest, shellQuote } from './draft.ts';
import { findOperation } from './operation.ts';
import { judge } from './judge.ts';
import { resolveOperation, summarize } from './operation.ts';
import type { Draft } from './draft.ts';
import { renderTypeScript, renderTypeScriptWithin } from './typescript.ts';
import { inferShape } from './shape.ts';
import { scanJson } from '../api/body.ts';
import { githubDescriptionPath } from '../../harness/fixture-documents.ts';
import { check, schemaFor } from '../../validate.ts';

const CASES = fileURLToPath(new URL('../../fixtures/cases/', import.meta.url));

let loaded: LoadedDocument;
let scratch = '';
before(async () => {
  loaded = await loadDocument(fileURLToPath(new URL('../../openapi.json', import.meta.url)));
  scratch = await mkdtemp(join(tmpdir(), 'contract-test-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let written = 0;
/** Loads a document given as an object (written to a scratch file, as the loader reads files). */
async function loadObject(document: unknown): Promise<LoadedDocument> {
  const file = join(scratch, `${written++}.json`);
  await writeFile(file, JSON.stringify(document));
  return loadDocument(file);
}

function operationOf(document: LoadedDocument, id: string): Operation {
  const operation = resolveOperation(document, '', id);
  if (typeof operation === 'string') throw new Error(operation);
  return operation;
}

/** A draft against https://api.example.com/v2 with the key in X-API-Key. */
function draftOf(method: string, path: string, extra: Partial<Draft> = {}): Draft {
  return {
    method,
    url: new URL(`https://api.example.com/v2${path}`),
    basePrefix: '/v2',
    keyHeader: 'X-API-Key',
    ...extra,
  };
}

/** Semantic and syntactic diagnostics of one TypeScript file, compiled strict against the default library. */
function compile(source: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    name === 'generated.ts' ? ts.createSourceFile(name, source, version) : original(name, version, onError, create);
  const program = ts.createProgram(['generated.ts'], options, host);
  const file = program.getSourceFile('generated.ts')!;
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) =>
    ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  );
}

describe('findOperation', () => {
  it('matches the whole request path with the base URL prefix stripped, without a note', () => {
    const match = findOperation(loaded, '/v2', '/v2/meters/mtr_1', '/meters/mtr_1');
    assert.deepEqual(
      [match.operation && summarize(match.operation), match.note],
      [{ method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' }, undefined],
    );
  });

  it('falls back to the path relative to the base URL when the whole path matches nothing', () => {
    const match = findOperation(loaded, '/proxy', '/proxy/meters', '/meters');
    assert.equal(match.operation?.operationId, 'listMeters');
  });
});

describe('resolveOperation', () => {
  it('resolves an operationId, a "METHOD /template" and a concrete path to the same operation', () => {
    const ids = ['getMeter', 'GET /meters/{meterId}', '/meters/mtr_9'].map((text) => {
      const operation = resolveOperation(loaded, '', text);
      return typeof operation === 'string' ? operation : operation.operationId;
    });
    assert.deepEqual(ids, ['getMeter', 'getMeter', 'getMeter']);
  });

  it('resolves "PATCH /meters/mtr_1" to the PATCH operation of the template', () => {
    assert.equal(operationOf(loaded, 'PATCH /meters/mtr_1').operationId, 'updateMeter');
  });

  it('says what to give instead when nothing matches', () => {
    assert.equal(
      resolveOperation(loaded, '', 'DELETE /nowhere'),
      'No operation `DELETE /nowhere` in the document: give an operationId such as getMeter, "PATCH /meters/{meterId}" or a concrete path such as /meters/mtr_1.',
    );
  });
});

describe('judge', () => {
  it('does not check a truncated body', () => {
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    const verdict = judge(loaded, operation, {
      status: 200,
      contentType: 'application/json',
      bytes: 20000,
      truncated: true,
      body: '{"id":',
    });
    assert.deepEqual(verdict, {
      validated: false,
      validationNote:
        'The body was truncated, so it was not checked: a cut-off JSON text says nothing about the contract.',
    });
  });

  it('reports a required field the body lacks as an error and the contract as not met', () => {
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    const body = { id: 'mtr_1', status: 'active', installedAt: '2024-01-01T00:00:00Z', lastReading: null };
    const verdict = judge(loaded, operation, {
      status: 200,
      contentType: 'application/json',
      bytes: 80,
      truncated: false,
      body,
    });
    assert.deepEqual(
      [
        verdict.validated,
        verdict.matchesContract,
        (verdict.findings as { kind: string; path: string }[]).map((finding) => `${finding.kind} ${finding.path}`),
      ],
      [true, false, ['missing $.serial']],
    );
  });
});

describe('judge: numbers JSON parsing changed (issue 8 B13)', () => {
  it('issue 15: an integer past 2^53 is checked against maximum as written, so 2^53 + 1 is over 2^53 - 1', async () => {
    const document = await loadObject({
      openapi: '3.1.0',
      info: { title: 'n', version: '1' },
      paths: {
        '/n': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { id: { type: 'integer', maximum: 9007199254740991 } } },
                  },
                },
              },
            },
          },
        },
      },
    });
    const text = '{"id":9007199254740993}';
    const verdict = judge(document, document.operations[0]!, {
      status: 200,
      contentType: 'application/json',
      bytes: text.length,
      truncated: false,
      body: JSON.parse(text),
      warnings: scanJson(text).warnings,
    });
    assert.deepEqual(verdict, {
      validated: true,
      schemaPath: '#/paths/~1n/get/responses/200/content/application~1json/schema',
      findings: [
        {
          kind: 'constraint',
          severity: 'error',
          path: '$.id',
          schemaPath: '#/paths/~1n/get/responses/200/content/application~1json/schema/properties/id/maximum',
          keyword: 'maximum',
          message: 'is 9007199254740993, more than maximum 9007199254740991',
        },
        {
          kind: 'inexactNumber',
          severity: 'warning',
          path: '$.id',
          rule: 'RFC 8259, 6',
          values: ['9007199254740993', '9007199254740992'],
          message:
            'the number 9007199254740993 cannot be held exactly in a double and reads as 9007199254740992: read it as a string or BigInt',
        },
      ],
      matchesContract: false,
    });
  });
  it('issue 8 B13: a changed number whose text is longer than the warning quotes is not checked against maximum', async () => {
    const document = await loadObject({
      openapi: '3.1.0',
      info: { title: 'n', version: '1' },
      paths: {
        '/n': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { schema: { type: 'object', properties: { id: { maximum: 1e70 } } } } },
              },
            },
          },
        },
      },
    });
    // 71 digits: 10^70 + 1, past the 60 characters a warning quotes, so its text is not known exactly.
    const text = `{"id":1${'0'.repeat(69)}1}`;
    const verdict = judge(document, document.operations[0]!, {
      status: 200,
      contentType: 'application/json',
      bytes: text.length,
      truncated: false,
      body: JSON.parse(text),
      warnings: scanJson(text).warnings,
    });
    assert.deepEqual(
      [verdict.validated, (verdict.findings as { kind: string; keyword?: string }[]).map((f) => [f.kind, f.keyword])],
      [
        false,
        [
          ['notChecked', 'maximum'],
          ['inexactNumber', undefined],
        ],
      ],
    );
  });
});

describe('judge: numbers JSON parsing changed in line-framed JSON (issue 15)', () => {
  it('checks each record against its own numbers as written', async () => {
    const document = await loadObject({
      openapi: '3.1.0',
      info: { title: 'n', version: '1' },
      paths: {
        '/n': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: {
                  'application/x-ndjson': {
                    schema: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
                  },
                },
              },
            },
          },
        },
      },
    });
    const lines = ['{"id":9223372036854775807}', '{"id":9223372036854775809}'];
    const verdict = judge(document, document.operations[0]!, {
      status: 200,
      contentType: 'application/x-ndjson',
      bytes: lines.join('\n').length,
      truncated: false,
      body: lines.join('\n'),
      records: lines.map((line, index) => ({ line: index + 1, value: JSON.parse(line) })),
      warnings: lines.flatMap((line, index) =>
        scanJson(line).warnings.map((warning) => ({ ...warning, path: warning.path.replace(/^\$/, `$[${index}]`) })),
      ),
    });
    assert.deepEqual(
      [
        verdict.validated,
        (verdict.findings as { kind: string; path: string; message: string }[])
          .filter((finding) => finding.kind === 'format')
          .map((finding) => [finding.path, finding.message]),
      ],
      [
        true,
        [['$[1].id', 'is 9223372036854775809, outside the int64 range -9223372036854775808..9223372036854775807']],
      ],
    );
  });
});

describe('checkParameters', () => {
  let case31: LoadedDocument;
  let counted: LoadedDocument;
  before(async () => {
    case31 = await loadObject(
      JSON.parse(await readFile(join(CASES, '31-path-percent-encoded-params.json'), 'utf8')).input.openapi,
    );
    counted = await loadObject({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/n/{n}/{code}': {
          get: {
            parameters: [
              { name: 'n', in: 'path', required: true, schema: { $ref: '#/components/schemas/Count' } },
              {
                name: 'code',
                in: 'path',
                required: true,
                schema: { type: ['string', 'null'], minLength: 3, pattern: '^[a-z]+$' },
              },
              { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
              { name: 'X-Trace-Id', in: 'header', required: true, schema: { type: 'string' } },
              { name: 'Accept', in: 'header', required: true, schema: { type: 'string' } },
            ],
            responses: {},
          },
        },
      },
      components: { schemas: { Count: { type: 'integer', minimum: 1 } } },
    });
  });

  function pathProblems(document: LoadedDocument, path: string) {
    const match = matchOperation(document, 'GET', path);
    if (!match.operation) throw new Error(`no match for ${path}`);
    return checkParameters(document, match.operation, { path: match.params });
  }

  it('case 31: checks maxLength against the decoded value /resource/ab', () => {
    assert.deepEqual(pathProblems(case31, '/resource/ab'), [
      {
        in: 'path',
        name: 'param',
        kind: 'invalid',
        value: 'ab',
        problem: 'is 2 characters long, more than maxLength 1',
      },
    ]);
  });

  it('case 31: reports a decoded value outside the enum', () => {
    assert.deepEqual(pathProblems(case31, '/kinds/foo%2Fbaz'), [
      {
        in: 'path',
        name: 'kind',
        kind: 'invalid',
        value: 'foo/baz',
        problem: 'is "foo/baz", not one of the allowed values ["foo/bar","a b"]',
      },
    ]);
  });

  for (const id of [
    '29-path-concrete-beats-template',
    '31-path-percent-encoded-params',
    '32-path-trailing-slash-policy',
  ]) {
    it(`case ${id}: every request the case expects no findings for has no path problems`, async () => {
      const fixture = JSON.parse(await readFile(join(CASES, `${id}.json`), 'utf8'));
      const document = await loadObject(fixture.input.openapi);
      for (const request of fixture.input.requests as string[]) {
        const expected = fixture.expected[request];
        if (!expected.findings) continue;
        const [method, path] = request.split(' ') as [string, string];
        const match = matchOperation(document, method, path);
        assert.deepEqual(
          match.operation ? checkParameters(document, match.operation, { path: match.params }) : [],
          expected.findings,
          request,
        );
      }
    });
  }

  it('converts a path value to the schema type and checks it with the validator: type, then minimum', () => {
    assert.deepEqual(
      [pathProblems(counted, '/n/x/abc'), pathProblems(counted, '/n/0/abc')],
      [
        [{ in: 'path', name: 'n', kind: 'invalid', value: 'x', problem: 'is not of type integer' }],
        [{ in: 'path', name: 'n', kind: 'invalid', value: '0', problem: 'is 0, less than minimum 1' }],
      ],
    );
  });

  it('checks minLength and pattern of a 3.1 type list', () => {
    assert.deepEqual(
      [pathProblems(counted, '/n/7/ab'), pathProblems(counted, '/n/7/AB9'), pathProblems(counted, '/n/7/abc')],
      [
        [
          {
            in: 'path',
            name: 'code',
            kind: 'invalid',
            value: 'ab',
            problem: 'is 2 characters long, fewer than minLength 3',
          },
        ],
        [
          {
            in: 'path',
            name: 'code',
            kind: 'invalid',
            value: 'AB9',
            problem: 'is "AB9", which does not match the pattern "^[a-z]+$"',
          },
        ],
        [],
      ],
    );
  });

  it('issue 8 B5: a path value an unsafe pattern cannot test is notChecked, not invalid', async () => {
    const pattern = `^${'(?:\\p{L}|a)'.repeat(31)}$`;
    const document = await loadObject({
      openapi: '3.1.0',
      info: { title: 'p', version: '1' },
      paths: {
        '/p/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern } }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    assert.deepEqual(pathProblems(document, `/p/${'a'.repeat(31)}!`), [
      {
        in: 'path',
        name: 'id',
        kind: 'notChecked',
        value: `${'a'.repeat(31)}!`,
        problem:
          'was not checked against the pattern: the pattern cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) ' +
          'and on a 32-character value it could take up to 2^38 backtracking steps, past the limit of 4000000',
      },
    ]);
  });

  it('reads a repeated query name as the items of an exploded form array (the default) and names the failing item', () => {
    const operation = counted.operations[0]!;
    assert.deepEqual(checkParameters(counted, operation, { query: { ids: ['1', 'x'] } }), [
      { in: 'query', name: 'ids', kind: 'invalid', value: '1,x', problem: 'at ids[1]: is not of type integer' },
    ]);
  });

  it('reads ids=1,x as one item under the default explode true (OpenAPI 3.0.3 §4.7.12: form explodes by default)', () => {
    const operation = counted.operations[0]!;
    assert.deepEqual(checkParameters(counted, operation, { query: { ids: '1,x' } }), [
      { in: 'query', name: 'ids', kind: 'invalid', value: '1,x', problem: 'at ids[0]: is not of type integer' },
    ]);
  });

  it('reports a required header that is missing, compared case-insensitively, and ignores an Accept parameter', () => {
    const operation = counted.operations[0]!;
    assert.deepEqual(
      [
        checkParameters(counted, operation, { headers: {} }),
        checkParameters(counted, operation, { headers: { 'x-trace-id': 'a' } }),
      ],
      [[{ in: 'header', name: 'X-Trace-Id', kind: 'missing', value: '', problem: 'is required but missing' }], []],
    );
  });

  it('reports an unknown query name with the near declared one', () => {
    assert.deepEqual(checkParameters(loaded, operationOf(loaded, 'listReadings'), { query: { limti: '5' } }), [
      {
        in: 'query',
        name: 'limti',
        kind: 'unknown',
        value: '5',
        problem: 'is not a query parameter of GET /meters/{meterId}/readings; did you mean limit?',
      },
    ]);
  });

  it('checks a query value against a $ref enum and a range', () => {
    assert.deepEqual(
      [
        checkParameters(loaded, operationOf(loaded, 'listMeters'), { query: { status: 'gone' } }),
        checkParameters(loaded, operationOf(loaded, 'listReadings'), { query: { limit: '500' } }),
      ],
      [
        [
          {
            in: 'query',
            name: 'status',
            kind: 'invalid',
            value: 'gone',
            problem: 'is "gone", not one of the allowed values ["active","inactive","removed"]',
          },
        ],
        [{ in: 'query', name: 'limit', kind: 'invalid', value: '500', problem: 'is 500, more than maximum 100' }],
      ],
    );
  });

  it("finds nothing wrong with /repos/octocat/hello-world/issues/42 on GitHub's description", async () => {
    const github = await loadDocument(githubDescriptionPath());
    const match = matchOperation(github, 'GET', '/repos/octocat/hello-world/issues/42');
    assert.deepEqual(
      checkParameters(github, match.operation!, {
        path: (match as { params: Record<string, string> }).params,
        query: {},
      }),
      [],
    );
  });
});

describe('queryValues', () => {
  it("lists a repeated name's values and leaves out the names given as exceptions", () => {
    assert.deepEqual(queryValues(new URL('https://x.test/a?tag=a&tag=b+c&key=1&v=%41'), ['key']), {
      tag: ['a', 'b c'],
      v: 'A',
    });
  });
});

describe('nearestName', () => {
  it('matches names equal once case, "_" and "-" are folded, then names within 2 edits', () => {
    assert.deepEqual(
      [
        nearestName('first_name', ['lastName', 'firstName']),
        nearestName('photoUrl', ['name', 'photoUrls']),
        nearestName('idz', ['ids']),
        nearestName('colour', ['size']),
      ],
      ['firstName', 'photoUrls', undefined, undefined],
    );
  });
});

describe('shellQuote', () => {
  it("wraps a word in single quotes and writes a quote inside as '\\''", () => {
    assert.equal(shellQuote(`it's $HOME`), `'it'\\''s $HOME'`);
  });
});

describe('draftRequest', () => {
  let pets: LoadedDocument;
  before(async () => {
    pets = await loadObject({
      openapi: '3.0.3',
      info: { title: 'pets', version: '1' },
      paths: {
        '/pets': {
          post: {
            operationId: 'addPet',
            parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
            },
            responses: { '201': { description: 'added' } },
          },
        },
      },
      components: {
        schemas: {
          Pet: {
            type: 'object',
            required: ['name', 'photoUrls'],
            properties: {
              id: { type: 'integer', readOnly: true },
              created_at: { type: 'string', format: 'date-time', readOnly: true },
              name: { type: 'string' },
              firstName: { type: 'string' },
              photoUrls: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    });
  });

  it('reports an unknown path with the nearest templates', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('GET', '/meterz')).problems, [
      {
        in: 'operation',
        name: 'GET /meterz',
        kind: 'noOperation',
        severity: 'error',
        message:
          'no GET operation matches /meterz; nearest: GET /meters, GET /meters/{meterId}, GET /meters/{meterId}/readings',
      },
    ]);
  });

  it("reports a method the path lacks with the path's methods", () => {
    assert.deepEqual(draftRequest(loaded, draftOf('DELETE', '/meters/mtr_1')).problems, [
      {
        in: 'operation',
        name: 'DELETE /meters/mtr_1',
        kind: 'noOperation',
        severity: 'error',
        message:
          '/meters/{meterId} matches the path but documents no DELETE; it documents GET, PATCH: use one of GET /meters/{meterId}, PATCH /meters/{meterId}',
      },
    ]);
  });

  it('reports a required query parameter that is missing (GitHub search/repos without q)', async () => {
    const github = await loadDocument(githubDescriptionPath());
    const drafted = draftRequest(github, {
      method: 'GET',
      url: new URL('https://api.github.com/search/repositories?per_page=5'),
      basePrefix: '',
    });
    assert.deepEqual(
      [drafted.matchesContract, drafted.operation, drafted.problems],
      [
        false,
        { method: 'GET', pathTemplate: '/search/repositories', operationId: 'search/repos' },
        [{ in: 'query', name: 'q', kind: 'missing', severity: 'error', message: 'is required but missing' }],
      ],
    );
  });

  it('reports a required header that is missing', () => {
    const drafted = draftRequest(pets, {
      method: 'POST',
      url: new URL('https://pets.test/pets'),
      basePrefix: '',
      body: { name: 'Rex', photoUrls: [] },
    });
    assert.deepEqual(drafted.problems, [
      { in: 'header', name: 'Idempotency-Key', kind: 'missing', severity: 'error', message: 'is required but missing' },
    ]);
  });

  it('checks a path parameter value against its pattern', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('GET', '/meters/42')).problems, [
      {
        in: 'path',
        name: 'meterId',
        kind: 'invalid',
        severity: 'error',
        message: 'is "42", which does not match the pattern "^mtr_[0-9]+$"',
      },
    ]);
  });

  it('checks a query parameter value against its enum', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('GET', '/meters?status=bad')).problems, [
      {
        in: 'query',
        name: 'status',
        kind: 'invalid',
        severity: 'error',
        message: 'is "bad", not one of the allowed values ["active","inactive","removed"]',
      },
    ]);
  });

  it('reports a body field that is missing and one of the wrong type', () => {
    assert.deepEqual(
      draftRequest(loaded, draftOf('POST', '/meters/mtr_1/readings', { body: { kwh: '12', source: 'manual' } }))
        .problems,
      [
        { in: 'body', name: '$.kwh', kind: 'wrongType', severity: 'error', message: 'is string, expected number' },
        { in: 'body', name: '$.takenAt', kind: 'missing', severity: 'error', message: 'is required but missing' },
      ],
    );
  });

  it('reports a body enum value out of range', () => {
    assert.deepEqual(
      draftRequest(
        loaded,
        draftOf('POST', '/meters/mtr_1/readings', {
          body: { kwh: 1, takenAt: '2024-05-01T10:00:00Z', source: 'guess' },
        }),
      ).problems,
      [
        {
          in: 'body',
          name: '$.source',
          kind: 'enum',
          severity: 'error',
          message: 'is "guess", not one of the allowed values ["smart","manual","estimate"]',
        },
      ],
    );
  });

  it('reports a missing required body', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('POST', '/meters/mtr_1/readings')).problems, [
      {
        in: 'body',
        name: '$',
        kind: 'missing',
        severity: 'error',
        message: 'is required: POST /meters/{meterId}/readings declares a required request body',
      },
    ]);
  });

  it('F3: lists the first 200 problems of a body with 251 unknown fields, counts the rest, and cuts a 1,500-character name', () => {
    const body: Record<string, unknown> = { name: 'Rex', photoUrls: [], ['k'.repeat(1_500)]: 1 };
    for (let index = 0; index < 250; index++) body[`u${String(index).padStart(3, '0')}`] = 1;
    const drafted = draftRequest(pets, {
      method: 'POST',
      url: new URL('https://pets.test/pets'),
      basePrefix: '',
      headers: { 'Idempotency-Key': 'k1' },
      body,
    });
    const undocumented = (name: string) => ({
      in: 'body',
      name,
      kind: 'undocumented',
      severity: 'warning',
      message: 'is present but not documented in the schema',
    });
    assert.deepStrictEqual(
      [
        drafted.matchesContract,
        drafted.problems.length,
        drafted.problems[0],
        drafted.problems[1],
        drafted.problems[199],
        drafted.problemsMore,
      ],
      [
        // The name is cut to 1,000 characters in the path (validate.ts instancePath), then the problem's name to 1,000 in all.
        false,
        200,
        undocumented(`$['${'k'.repeat(997)}… (28 more characters)`),
        undocumented('$.u000'),
        undocumented('$.u198'),
        51,
      ],
    );
  });

  it('suggests the documented name for a body field not in the schema: photoUrl, first_name', () => {
    const drafted = draftRequest(pets, {
      method: 'POST',
      url: new URL('https://pets.test/pets'),
      basePrefix: '',
      headers: { 'Idempotency-Key': 'k1' },
      body: { name: 'Rex', photoUrl: 'x', first_name: 'R' },
    });
    assert.deepEqual(drafted.problems, [
      {
        in: 'body',
        name: '$.first_name',
        kind: 'undocumented',
        severity: 'warning',
        message: 'is present but not documented in the schema; did you mean firstName?',
      },
      {
        in: 'body',
        name: '$.photoUrl',
        kind: 'undocumented',
        severity: 'warning',
        message: 'is present but not documented in the schema; did you mean photoUrls?',
      },
      { in: 'body', name: '$.photoUrls', kind: 'missing', severity: 'error', message: 'is required but missing' },
    ]);
  });

  it('reports readOnly fields copied from a GET (id, created_at) as not to be sent', () => {
    const drafted = draftRequest(pets, {
      method: 'POST',
      url: new URL('https://pets.test/pets'),
      basePrefix: '',
      headers: { 'Idempotency-Key': 'k1' },
      body: { id: 7, created_at: '2024-05-01T10:00:00Z', name: 'Rex', photoUrls: [] },
    });
    assert.deepEqual(
      [drafted.matchesContract, drafted.problems],
      [
        false,
        [
          {
            in: 'body',
            name: '$.created_at',
            kind: 'readOnly',
            severity: 'warning',
            message: 'is readOnly but is sent in a request; the server should ignore or reject it',
          },
          {
            in: 'body',
            name: '$.id',
            kind: 'readOnly',
            severity: 'warning',
            message: 'is readOnly but is sent in a request; the server should ignore or reject it',
          },
        ],
      ],
    );
  });

  it('reports a field the request schema lacks but the GET returns as readOnly (id copied from GET /meters/{meterId})', () => {
    assert.deepEqual(
      draftRequest(loaded, draftOf('PATCH', '/meters/mtr_1', { body: { id: 'mtr_1', note: 'moved' } })).problems,
      [
        {
          in: 'body',
          name: '$.id',
          kind: 'readOnly',
          severity: 'error',
          message:
            'is not in the request schema and is readOnly in the response of GET /meters/{meterId}: copied from a GET? Leave it out',
        },
      ],
    );
  });

  it('checks a string body as the JSON text it holds, since curl sends it as written (new-user trial)', () => {
    assert.deepEqual(
      draftRequest(loaded, draftOf('PATCH', '/meters/mtr_1', { body: '{"id":"mtr_1","note":"moved"}' })).problems,
      [
        {
          in: 'body',
          name: '$.id',
          kind: 'readOnly',
          severity: 'error',
          message:
            'is not in the request schema and is readOnly in the response of GET /meters/{meterId}: copied from a GET? Leave it out',
        },
      ],
    );
  });

  it('does not parse a string body nesting deeper than 256 levels (attack round 5, B3 kind)', () => {
    assert.deepEqual(
      draftRequest(loaded, draftOf('PATCH', '/meters/mtr_1', { body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` }))
        .problems,
      [
        {
          in: 'body',
          name: '$',
          kind: 'tooDeep',
          severity: 'error',
          message: 'is a string of JSON text nesting deeper than 256 levels; not checked',
        },
      ],
    );
  });

  it('reports a string body that is not JSON text under a JSON content type', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('PATCH', '/meters/mtr_1', { body: 'abc' })).problems, [
      {
        in: 'body',
        name: '$',
        kind: 'invalidJson',
        severity: 'error',
        message:
          'is a string that is not JSON text, and it is sent as written under Content-Type application/json: pass the body as a JSON value (an object, an array...), or its JSON text',
      },
    ]);
  });

  it('returns a runnable envelope with the key as $API_KEY and a shell-safe curl command', () => {
    assert.deepEqual(
      draftRequest(
        loaded,
        draftOf('PATCH', '/meters/mtr_1', {
          body: { note: "it's fine" },
          headers: { 'X-API-Key': 'pasted-by-mistake' },
        }),
      ),
      {
        matchesContract: true,
        operation: { method: 'PATCH', pathTemplate: '/meters/{meterId}', operationId: 'updateMeter' },
        problems: [],
        request: {
          method: 'PATCH',
          url: 'https://api.example.com/v2/meters/mtr_1',
          headers: { 'Content-Type': 'application/json', 'X-API-Key': '$API_KEY' },
          body: { note: "it's fine" },
          curl: `curl -g -X 'PATCH' 'https://api.example.com/v2/meters/mtr_1' -H 'Content-Type: application/json' -H 'X-API-Key: '"$API_KEY" --data-raw '{"note":"it'\\''s fine"}'`,
        },
      },
    );
  });

  it('puts the key in Authorization as a Bearer placeholder when no key header is configured', () => {
    assert.deepEqual(draftRequest(loaded, draftOf('GET', '/meters', { keyHeader: 'Authorization' })).request, {
      method: 'GET',
      url: 'https://api.example.com/v2/meters',
      headers: { Authorization: 'Bearer $API_KEY' },
      curl: `curl -g 'https://api.example.com/v2/meters' -H 'Authorization: Bearer '"$API_KEY"`,
    });
  });
});

describe('describeOperation', () => {
  it('describes getMeter: parameters, responses by status, $refs expanded with their names', () => {
    const error = {
      ref: 'Error',
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    };
    assert.deepEqual(describeOperation(loaded, operationOf(loaded, 'getMeter')), {
      operation: {
        method: 'GET',
        pathTemplate: '/meters/{meterId}',
        operationId: 'getMeter',
        summary: 'Get one meter',
      },
      parameters: [{ name: 'meterId', in: 'path', required: true, type: 'string', pattern: '^mtr_[0-9]+$' }],
      responses: {
        '200': {
          description: 'The meter.',
          mediaType: 'application/json',
          schema: {
            ref: 'Meter',
            type: 'object',
            required: ['id', 'serial', 'status', 'installedAt', 'lastReading'],
            properties: {
              id: { type: 'string', readOnly: true },
              serial: { type: 'string' },
              status: { ref: 'MeterStatus', type: 'string', enum: ['active', 'inactive', 'removed'] },
              installedAt: { type: 'string', format: 'date-time', readOnly: true },
              lastReading: {
                description: 'The newest reading, or null for a meter that has never reported. Same fields as Reading.',
                type: 'object',
                nullable: true,
                required: ['kwh', 'takenAt'],
                properties: {
                  kwh: { type: 'number', minimum: 0 },
                  takenAt: { type: 'string', format: 'date-time' },
                  source: { type: 'string', enum: ['smart', 'manual', 'estimate'] },
                },
              },
              location: {
                ref: 'Location',
                type: 'object',
                required: ['site'],
                properties: { site: { type: 'string' }, floor: { type: 'integer' } },
              },
              note: { type: 'string', maxLength: 200 },
            },
          },
        },
        '401': { description: 'Missing or wrong API key.', mediaType: 'application/json', schema: error },
        '404': { description: 'No such meter.', mediaType: 'application/json', schema: error },
      },
      depth: 3,
    });
  });

  it('shows $refs deeper than depth by name only', () => {
    const described = describeOperation(loaded, operationOf(loaded, 'listMeters'), { status: '200', depth: 1 }) as {
      responses: Record<string, { schema: unknown }>;
    };
    assert.deepEqual(described.responses['200']!.schema, {
      ref: 'MeterList',
      type: 'object',
      required: ['meters'],
      properties: {
        meters: { type: 'array', items: { $ref: '#/components/schemas/Meter', notExpanded: true } },
        nextCursor: { type: 'string', nullable: true },
      },
    });
  });

  it('marks a $ref cycle instead of expanding it again', async () => {
    const tree = await loadObject({
      openapi: '3.1.0',
      info: { title: 'tree', version: '1' },
      paths: {
        '/nodes/{id}': {
          get: {
            operationId: 'getNode',
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Node: {
            type: 'object',
            required: ['children'],
            properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
          },
        },
      },
    });
    const described = describeOperation(tree, operationOf(tree, 'getNode'), { part: 'responses' }) as {
      responses: Record<string, { schema: unknown }>;
    };
    assert.deepEqual(described.responses['200']!.schema, {
      ref: 'Node',
      type: 'object',
      required: ['children'],
      properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node', cycle: true } } },
    });
  });

  it('gives the request part only: parameters and the body schema', () => {
    assert.deepEqual(describeOperation(loaded, operationOf(loaded, 'updateMeter'), { part: 'request' }), {
      operation: {
        method: 'PATCH',
        pathTemplate: '/meters/{meterId}',
        operationId: 'updateMeter',
        summary: "Update a meter's note or location",
      },
      parameters: [{ name: 'meterId', in: 'path', required: true, type: 'string', pattern: '^mtr_[0-9]+$' }],
      requestBody: {
        required: true,
        mediaType: 'application/json',
        schema: {
          ref: 'MeterUpdate',
          type: 'object',
          properties: {
            note: { type: 'string', maxLength: 200 },
            location: {
              ref: 'Location',
              type: 'object',
              required: ['site'],
              properties: { site: { type: 'string' }, floor: { type: 'integer' } },
            },
          },
          additionalProperties: false,
        },
      },
      depth: 3,
    });
  });

  it('says which statuses exist when `status` names none', () => {
    assert.equal(
      describeOperation(loaded, operationOf(loaded, 'getMeter'), { status: '500' }),
      'GET /meters/{meterId} documents no response for status `500`; it documents 200, 401, 404.',
    );
  });

  it('stays bounded on a document whose $refs fan out 40 x 40 x 40 x 40 at depth 10, and cuts the answer', async () => {
    const properties = (target: string) =>
      Object.fromEntries(
        Array.from({ length: 40 }, (_, index) => [`p${index}`, { $ref: `#/components/schemas/${target}` }]),
      );
    const fan = await loadObject({
      openapi: '3.0.3',
      info: { title: 'fan', version: '1' },
      paths: {
        '/a': {
          get: {
            operationId: 'getA',
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          A: { type: 'object', properties: properties('B') },
          B: { type: 'object', properties: properties('C') },
          C: { type: 'object', properties: properties('D') },
          D: { type: 'object', properties: properties('E') },
          E: { type: 'string' },
        },
      },
    });
    const described = describeOperation(fan, operationOf(fan, 'getA'), { depth: 10 }) as Record<string, unknown>;
    assert.deepEqual(
      [JSON.stringify(described).length <= 20_000, described.depth, typeof described.cut],
      [true, 1, 'string'],
    );
  });

  it("cuts GitHub's repos/get to 20,000 characters and says what went and how to ask for less", async () => {
    const github = await loadDocument(githubDescriptionPath());
    const described = describeOperation(github, operationOf(github, 'repos/get')) as Record<string, unknown>;
    assert.deepEqual(
      [
        JSON.stringify(described).length <= 20_000,
        Object.keys(described.responses as object),
        described.depth,
        described.cut,
      ],
      [
        true,
        ['200'],
        1,
        'Cut to fit 20000 characters: responses 404, 403, 301 left out; $refs expanded 1 level deep instead of 3. Ask for less: `status` (one response, e.g. "200"), `part`: "request" or "responses", or a smaller `depth`.',
      ],
    );
  });
});

describe('renderTypeScript', () => {
  const render = (
    schema: unknown,
    direction: 'request' | 'response' = 'response',
    doc: unknown = { openapi: '3.1.0' },
  ) => renderTypeScript(doc, schema, 'T', direction);

  it('makes required properties plain and the others optional, exactly as `required` says', () => {
    assert.equal(
      render({ type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'integer' } } }),
      'export type T = {\n  a: string;\n  b?: number;\n};\n',
    );
  });

  it('adds | null for 3.0 nullable and for a 3.1 type list with null, and reads nullable in 3.1 as no keyword', () => {
    const schema = {
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'string', nullable: true }, b: { type: ['integer', 'null'] } },
    };
    assert.deepEqual(
      [render(schema, 'response', { openapi: '3.0.3' }), render(schema)],
      [
        'export type T = {\n  a: string | null;\n  b: number | null;\n};\n',
        'export type T = {\n  a: string;\n  b: number | null;\n};\n',
      ],
    );
  });

  it('writes an enum as a union of literals', () => {
    assert.equal(render({ enum: ['on', 'off', 1, null] }), 'export type T = "on" | "off" | 1 | null;\n');
  });

  it('leaves readOnly properties out of a request type and writeOnly ones out of a response type', () => {
    const user = {
      type: 'object',
      properties: {
        id: { type: 'integer', readOnly: true },
        password: { type: 'string', writeOnly: true },
        name: { type: 'string' },
      },
    };
    assert.deepEqual(
      [render(user, 'request'), render(user, 'response')],
      [
        'export type T = {\n  password?: string;\n  name?: string;\n  [key: symbol]: unknown;\n};\n',
        'export type T = {\n  id?: number;\n  name?: string;\n  [key: symbol]: unknown;\n};\n',
      ],
    );
  });

  it('writes oneOf and anyOf as a union and allOf as an intersection', () => {
    assert.deepEqual(
      [
        render({ oneOf: [{ type: 'string' }, { type: 'integer' }] }),
        render(
          { allOf: [{ $ref: '#/components/schemas/A' }, { type: 'object', properties: { b: { type: 'string' } } }] },
          'response',
          {
            openapi: '3.1.0',
            components: { schemas: { A: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } } },
          },
        ),
      ],
      [
        'export type T = string | number;\n',
        'export type T = A & {\n  b?: string;\n};\n\nexport type A = {\n  a: string;\n};\n',
      ],
    );
  });

  it('writes additionalProperties as an index signature, beside named properties the union with their types', () => {
    assert.deepEqual(
      [
        render({ type: 'object', additionalProperties: { type: 'integer' } }),
        render({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'integer' } }),
      ],
      [
        'export type T = {\n  [key: string]: number;\n};\n',
        'export type T = {\n  a?: string;\n  [key: string]: number | string | undefined;\n};\n',
      ],
    );
  });

  it('writes a $ref cycle as a named type that refers to itself, named from components/schemas', () => {
    const doc = {
      openapi: '3.1.0',
      components: {
        schemas: {
          'tree-node': {
            type: 'object',
            required: ['children'],
            properties: { children: { type: 'array', items: { $ref: '#/components/schemas/tree-node' } } },
          },
        },
      },
    };
    assert.equal(
      render({ $ref: '#/components/schemas/tree-node' }, 'response', doc),
      'export type T = TreeNode;\n\nexport type TreeNode = {\n  children: TreeNode[];\n};\n',
    );
  });
});

describe('renderTypeScript reads the schema as the checker does (issue 15)', () => {
  const render = (
    schema: unknown,
    doc: unknown = { openapi: '3.1.0' },
    direction: 'request' | 'response' = 'response',
  ) => renderTypeScript(doc, schema, 'T', direction);

  it('case 64: makes a field required by `required` in an allOf branch, beside allOf or beside a 3.1 $ref, as the probe does', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '64-ts-required-outside-properties.json'), 'utf8'));
    const outcomes: unknown[] = [];
    for (const session of fixture.input.sessions) {
      const document = await loadObject(session.openapi);
      for (const call of session.calls) {
        const operationId =
          call.arguments.operation ??
          document.operations.find((operation) => operation.pathTemplate === call.arguments.path)!.operationId!;
        const operation = operationOf(document, operationId);
        if (call.tool === 'describe_operation') {
          outcomes.push([
            call.label,
            (describeTypeScript(document, operation, {}) as { typescript: string }).typescript.split('\n\n')[0],
          ]);
        } else {
          const target = schemaFor(document.doc, 'GET', operation.pathTemplate, 200, 'application/json')!;
          outcomes.push([
            call.label,
            check(document.doc, target.schema, {}, { at: target.schemaPath }).map((finding) => [
              finding.kind,
              finding.path,
            ]),
          ]);
        }
      }
    }
    const base =
      'export type Base = {\n  id?: string;\n  name?: string;\n  tag?: string;\n  [key: symbol]: unknown;\n};\n';
    assert.deepEqual(
      [outcomes, render({ $ref: '#/components/schemas/Base', required: ['name'] }, fixture.input.sessions[1].openapi)],
      [
        [
          ['A-ts', 'export type RequiredInBranchResponse = Base & {\n  id: string;\n};'],
          ['B-ts', 'export type RequiredBesideAllOfResponse = Base & {\n  site_id?: string;\n  name: string;\n};'],
          ['A-probe', [['missing', '$.id']]],
          ['B-probe', [['missing', '$.name']]],
          ['C-ts', 'export type RequiredBesideRefResponse = Base & {\n  name: string;\n};'],
          ['C-probe', [['missing', '$.name']]],
        ],
        `export type T = Base & {\n  name: string;\n};\n\n${base}`,
      ],
    );
  });

  it("case 69: gives a form body's request type as the form's fields", async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '69-draft-form-urlencoded-body.json'), 'utf8'));
    const document = await loadObject(fixture.input.sessions[0].openapi);
    const call = fixture.input.sessions[0].calls.find((entry: { label: string }) => entry.label === 'TS');
    assert.deepEqual(
      describeTypeScript(document, operationOf(document, call.arguments.operation), { part: 'request' }),
      {
        operation: { method: 'POST', pathTemplate: '/oauth2/token', operationId: 'token' },
        part: 'request',
        mediaType: 'application/x-www-form-urlencoded',
        typeName: 'TokenRequest',
        typescript:
          'export type TokenRequest = {\n  grant_type: "client_credentials" | "password";\n  scope?: string;\n  client_id?: string; // uuid\n  max_age?: number;\n};\n',
      },
    );
  });

  it('case 71: types int64 as number with a note that precision is lost past 2^53', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '71-val-int64-range-boundaries.json'), 'utf8'));
    const document = await loadObject(fixture.input.sessions[0].openapi);
    const typescript = (describeTypeScript(document, operationOf(document, 'getIds')) as { typescript: string })
      .typescript;
    assert.deepEqual(typescript.split('\n').slice(0, 3), [
      'export type GetIdsResponse = {',
      '  max?: number; // int64: precision lost past 2^53',
      '  over?: number; // int64: precision lost past 2^53',
    ]);
  });

  it('writes prefixItems as a tuple whose elements past minItems are optional, closed by items: false', () => {
    assert.deepEqual(
      [
        render({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, minItems: 1 }),
        render({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } }),
        render({ type: 'array', items: [{ type: 'string' }] }, { openapi: '3.0.3' }),
      ],
      [
        'export type T = [string, number?];\n',
        'export type T = [string?, ...boolean[]];\n',
        'export type T = [string?, ...unknown[]];\n',
      ],
    );
  });

  it('adds no null for 3.0 nullable without a type or beside a $ref, nor to an enum that lists none, and says so', () => {
    assert.deepEqual(
      [
        render(
          { nullable: true, allOf: [{ $ref: '#/components/schemas/A' }] },
          {
            openapi: '3.0.3',
            components: { schemas: { A: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } } },
          },
        ).split('\n')[0],
        render({ type: 'string', nullable: true, enum: ['a', 'b'] }, { openapi: '3.0.3' }),
        render({ type: ['string', 'null'], enum: ['a', null] }),
        render(
          { nullable: true, $ref: '#/components/schemas/S' },
          { openapi: '3.0.3', components: { schemas: { S: { type: 'string' } } } },
        ).split('\n')[0],
      ],
      [
        'export type T = A /* nullable without type admits no null (OAS 3.0.3) */;',
        'export type T = "a" | "b" /* null is not in the enum, so it is rejected */;\n',
        'export type T = "a" | null;\n',
        'export type T = S /* nullable beside $ref is ignored (OAS 3.0.3) */;',
      ],
    );
  });

  it('writes dependentSchemas as "the trigger is absent, or the dependent schema holds"', () => {
    assert.equal(
      render({
        type: 'object',
        properties: { card: { type: 'string' } },
        dependentSchemas: { card: { required: ['billing'], properties: { billing: { type: 'string' } } } },
      }),
      'export type T = {\n  card?: string;\n  [key: symbol]: unknown;\n} & ({ card?: undefined; [key: string]: unknown } | {\n  billing: string;\n});\n',
    );
  });

  it('types other fields beside named ones as the union of the named types and additionalProperties', () => {
    assert.equal(
      render({
        type: 'object',
        required: ['a'],
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'integer' },
      }),
      'export type T = {\n  a: string;\n  [key: string]: number | string;\n};\n',
    );
  });

  it('stays within its budgets on a const nested 50 wide and 8 deep and on dependentSchemas that fan out 30 ways 3 deep', () => {
    let value: unknown = 1;
    for (let level = 0; level < 8; level++)
      value = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, value]));
    const fan = (target: string) =>
      Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`t${index}`, { $ref: target }]));
    const doc = {
      openapi: '3.1.0',
      $defs: {
        D: { dependentSchemas: fan('#/$defs/E') },
        E: { dependentSchemas: fan('#/$defs/F') },
        F: { type: 'string' },
      },
    };
    const constant = renderTypeScriptWithin({ openapi: '3.1.0' }, { const: value }, 'T', 'response');
    const fanned = renderTypeScriptWithin(doc, { type: 'object', dependentSchemas: fan('#/$defs/D') }, 'T', 'response');
    assert.deepEqual(
      [
        constant.typescript.length < 25_000,
        constant.typescript.includes('unknown'),
        fanned.typescript.length < 110_000,
        fanned.cut,
      ],
      [true, true, true, ['parts past the text budget']],
    );
  });

  it('compiles a request type and a response type that share components, pasted into one file', async () => {
    const document = await loadObject({
      openapi: '3.0.3',
      info: { title: 'tags', version: '1' },
      paths: {
        '/tags': {
          post: {
            operationId: 'createTag',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Payload' } } } },
            responses: {
              '201': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Payload' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Payload: {
            type: 'object',
            required: ['tag'],
            properties: { id: { type: 'integer', readOnly: true }, tag: { $ref: '#/components/schemas/Tag' } },
          },
          Tag: { type: 'object', properties: { name: { type: 'string' } } },
          TagRequest: { type: 'string' },
        },
      },
    });
    const operation = operationOf(document, 'createTag');
    const request = (describeTypeScript(document, operation, { part: 'request' }) as { typescript: string }).typescript;
    const response = (describeTypeScript(document, operation) as { typescript: string }).typescript;
    assert.deepEqual(
      [request, compile(`${request}\n${response}`)],
      [
        'export type CreateTagRequest = PayloadRequest;\n\nexport type PayloadRequest = {\n  tag: TagRequest2;\n};\n\nexport type TagRequest2 = {\n  name?: string;\n  [key: symbol]: unknown;\n};\n',
        [],
      ],
    );
  });
});

describe('describeTypeScript', () => {
  it("gives getMeter's 200 response as TypeScript, with the fields and nulls probes showed beside the document in a comment", () => {
    const seen = [
      {
        status: 200,
        body: {
          id: 'mtr_1',
          serial: null,
          status: 'active',
          installedAt: '2024-01-01T00:00:00Z',
          lastReading: null,
          firmware: '1.2',
        },
      },
      {
        status: 200,
        body: { id: 'mtr_2', serial: null, status: 'active', installedAt: '2024-01-01T00:00:00Z', lastReading: null },
      },
      { status: 404, body: { code: 'not_found', message: 'no' } },
    ];
    assert.deepEqual(describeTypeScript(loaded, operationOf(loaded, 'getMeter'), {}, seen), {
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      part: 'responses',
      status: '200',
      mediaType: 'application/json',
      typeName: 'GetMeterResponse',
      typescript: [
        '// Seen in 2 probes this session, not in the document (not part of the type):',
        '// - $.firmware: undocumented, present in 1 of 2',
        '// - $.serial: the API sent null in 2 of 2; the document probably omits null',
        '',
        'export type GetMeterResponse = Meter;',
        '',
        'export type Meter = {',
        '  id: string;',
        '  serial: string;',
        '  status: MeterStatus;',
        '  installedAt: string; // date-time',
        '  lastReading: {',
        '    kwh: number;',
        '    takenAt: string; // date-time',
        '    source?: "smart" | "manual" | "estimate";',
        '  } | null;',
        '  location?: Location;',
        '  note?: string;',
        '};',
        '',
        'export type MeterStatus = "active" | "inactive" | "removed";',
        '',
        'export type Location = {',
        '  site: string;',
        '  floor?: number;',
        '};',
        '',
      ].join('\n'),
    });
  });

  it('escapes a line break in an undocumented field name the API sent, so the comment cannot end early', () => {
    const seen = [
      {
        status: 200,
        body: {
          id: 'mtr_1',
          serial: 's',
          status: 'active',
          installedAt: '2024-01-01T00:00:00Z',
          lastReading: null,
          'x\nexport type Evil = 1;': 1,
        },
      },
    ];
    const typescript = (describeTypeScript(loaded, operationOf(loaded, 'getMeter'), {}, seen) as { typescript: string })
      .typescript;
    assert.deepEqual(
      [typescript.split('\n')[1], compile(typescript)],
      ["// - $['x\\u000aexport type Evil = 1;']: undocumented, present in 1 of 1", []],
    );
  });

  it('gives the request body type with part: "request" and names it and its components ...Request', () => {
    const described = describeTypeScript(loaded, operationOf(loaded, 'submitReading'), { part: 'request' }) as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      [described.typeName, described.typescript],
      [
        'SubmitReadingRequest',
        'export type SubmitReadingRequest = ReadingRequest;\n\nexport type ReadingRequest = {\n  kwh: number;\n  takenAt: string; // date-time\n  source?: "smart" | "manual" | "estimate";\n};\n',
      ],
    );
  });

  it('says so when the operation has no request body', () => {
    assert.equal(
      describeTypeScript(loaded, operationOf(loaded, 'getMeter'), { part: 'request' }),
      'GET /meters/{meterId} declares no request body schema, so there is no request type; ask for the response type instead.',
    );
  });

  it("compiles without a diagnostic for GitHub's repos/get and pulls/list-files and the walkthrough's getMeter", async () => {
    const github = await loadDocument(githubDescriptionPath());
    const sources = [
      describeTypeScript(github, operationOf(github, 'repos/get')),
      describeTypeScript(github, operationOf(github, 'pulls/list-files')),
      describeTypeScript(loaded, operationOf(loaded, 'getMeter')),
      describeTypeScript(github, operationOf(github, 'repos/create-for-authenticated-user'), { part: 'request' }),
    ].map((described) => (described as { typescript: string }).typescript);
    assert.deepEqual(sources.map(compile), [[], [], [], []]);
  });
});

describe('resolveOperation suggestions', () => {
  it('suggests the nearest operationId for a mistyped one', () => {
    assert.equal(
      resolveOperation(loaded, '', 'getMetr'),
      'No operation `getMetr` in the document (did you mean getMeter?): give an operationId such as getMeter, "PATCH /meters/{meterId}" or a concrete path such as /meters/mtr_1.',
    );
  });
});

describe('huge enums in descriptions (issue 8)', () => {
  const values = Array.from({ length: 1_000_000 }, (_, index) => `v${index}`);
  const doc = {
    openapi: '3.0.3',
    info: { title: 'enum', version: '1' },
    paths: {
      '/codes': {
        get: {
          operationId: 'listCodes',
          parameters: [{ name: 'code', in: 'query', schema: { type: 'string', enum: values } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'array', items: { type: 'string', enum: values } } } },
            },
          },
        },
      },
    },
  };

  it("types a million-value enum by its values' JSON type instead of a union of literals", () => {
    assert.equal(
      renderTypeScript(
        doc,
        doc.paths['/codes'].get.responses['200'].content['application/json'].schema,
        'T',
        'response',
      ),
      'export type T = string[];\n',
    );
  });

  it('shows the first 50 values of a huge enum and counts the rest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'enum-'));
    try {
      await writeFile(join(dir, 'doc.json'), JSON.stringify(doc));
      const huge = await loadDocument(join(dir, 'doc.json'));
      const described = describeOperation(huge, huge.operations[0]!) as {
        parameters: { enum: unknown[]; enumMore: number }[];
        responses: Record<string, { schema: { items: { enum: unknown[]; enumMore: number } } }>;
      };
      assert.deepEqual(
        [
          described.parameters[0]!.enum.length,
          described.parameters[0]!.enumMore,
          described.responses['200']!.schema.items.enum.length,
          described.responses['200']!.schema.items.enumMore,
        ],
        [50, 999_950, 50, 999_950],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('checkParameters on a document of many parameters (issue 15)', () => {
  it('lists the first 20 declared names for an unknown one and counts the rest', async () => {
    const names = Array.from({ length: 25 }, (_, index) => `p${index}`);
    const document = await loadObject({
      openapi: '3.0.3',
      info: { title: 'm', version: '1' },
      paths: {
        '/m': { get: { parameters: names.map((name) => ({ name, in: 'query', schema: {} })), responses: {} } },
      },
    });
    assert.deepEqual(checkParameters(document, document.operations[0]!, { query: { zz: '1' } }), [
      {
        in: 'query',
        name: 'zz',
        kind: 'unknown',
        value: '1',
        problem: `is not a query parameter of GET /m; it takes ${names.slice(0, 20).join(', ')} and 5 more`,
      },
    ]);
  });
});

describe('checkParameters shares one step budget (issue 8, second attack round; issue 15)', () => {
  it('reports every value reached after the budget ran out as not checked, never as passed', () => {
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    assert.deepEqual(checkParameters(loaded, operation, { path: { meterId: 'mtr_1' } }, { maxSteps: 0 }), [
      {
        in: 'path',
        name: 'meterId',
        kind: 'notChecked',
        value: 'mtr_1',
        problem: "was not checked: the parameter checks' step budget (0 schema applications) ran out",
      },
    ]);
  });

  it('counts the steps of every value against one budget: the first value spends it, the second is not checked', async () => {
    const document = await loadObject({
      openapi: '3.1.0',
      info: { title: 'b', version: '1' },
      paths: {
        '/b': {
          get: {
            parameters: [
              { name: 'a', in: 'query', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
              { name: 'b', in: 'query', schema: { type: 'integer' } },
            ],
            responses: {},
          },
        },
      },
    });
    const operation = document.operations[0]!;
    const query = { a: '1,2,3,4,5,6,7,8,9,10', b: '1' };
    // Ten items cost 11 schema applications (the array and each item), b one more: 11 leave nothing for b, 12 do.
    assert.deepEqual(
      [
        checkParameters(document, operation, { query }, { maxSteps: 11 }),
        checkParameters(document, operation, { query }, { maxSteps: 12 }),
      ],
      [
        [
          {
            in: 'query',
            name: 'b',
            kind: 'notChecked',
            value: '1',
            problem: "was not checked: the parameter checks' step budget (11 schema applications) ran out",
          },
        ],
        [],
      ],
    );
  });
});

describe('budgets and caps of the contract tools (issue 8, attack round 3)', () => {
  /** 12 levels L0..L11, each an object of 30 properties that all `$ref` the next level (30^12 paths; F8). */
  function fanOut(): Record<string, unknown> {
    const schemas: Record<string, unknown> = { L12: { type: 'string' } };
    for (let level = 0; level < 12; level++) {
      schemas[`L${level}`] = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 30 }, (_, index) => [`p${index}`, { $ref: `#/components/schemas/L${level + 1}` }]),
        ),
      };
    }
    return {
      openapi: '3.0.3',
      info: { title: 'fan', version: '1' },
      paths: {
        '/r': {
          get: {
            operationId: 'getR',
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: { x: { type: 'string' }, f: { $ref: '#/components/schemas/L0' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: { schemas },
    };
  }

  it("F8: gives a fanning-out response as TypeScript, with the probes' undocumented field, well inside the deadline", async () => {
    const fan = await loadObject(fanOut());
    const started = performance.now();
    const described = describeTypeScript(fan, operationOf(fan, 'getR'), {}, [
      { status: 200, body: { x: 'a', extra: 1 } },
      { status: 200, body: { x: 'b' } },
    ]);
    const took = performance.now() - started;
    const levels = Array.from(
      { length: 12 },
      (_, level) =>
        `export type L${level} = {\n${Array.from({ length: 30 }, (_, index) => `  p${index}?: L${level + 1};`).join('\n')}\n  [key: symbol]: unknown;\n};`,
    );
    assert.deepStrictEqual(described, {
      operation: { method: 'GET', pathTemplate: '/r', operationId: 'getR' },
      part: 'responses',
      status: '200',
      mediaType: 'application/json',
      typeName: 'GetRResponse',
      typescript:
        [
          '// Seen in 2 probes this session, not in the document (not part of the type):\n// - $.extra: undocumented, present in 1 of 2',
          'export type GetRResponse = {\n  x?: string;\n  f?: L0;\n  [key: symbol]: unknown;\n};',
          ...levels,
          'export type L12 = string;',
        ].join('\n\n') + '\n',
    });
    console.log(`fan-out TypeScript with two bodies took ${took.toFixed(1)} ms`);
  });

  it('F6: cuts a 2 MiB summary and every long string of the schema to 1,000 characters in describe_operation', async () => {
    const long = (letter: string, extra: number) => letter.repeat(1_000 + extra);
    const doc = await loadObject({
      openapi: '3.0.3',
      info: { title: 'long', version: '1' },
      paths: {
        '/r': {
          get: {
            operationId: 'getR',
            summary: long('s', 2 * 1024 * 1024 - 1_000),
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      title: long('t', 5),
                      properties: {
                        [long('n', 1)]: {
                          type: 'string',
                          enum: [long('e', 2)],
                          pattern: long('p', 3),
                          default: long('d', 4),
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    });
    const cut = (letter: string, extra: number) => `${letter.repeat(1_000)}… (${extra} more characters)`;
    assert.deepStrictEqual(describeOperation(doc, operationOf(doc, 'getR')), {
      operation: { method: 'GET', pathTemplate: '/r', operationId: 'getR', summary: cut('s', 2 * 1024 * 1024 - 1_000) },
      parameters: [],
      responses: {
        '200': {
          description: 'ok',
          mediaType: 'application/json',
          schema: {
            title: cut('t', 5),
            type: 'object',
            properties: {
              [cut('n', 1)]: { type: 'string', default: cut('d', 4), pattern: cut('p', 3), enum: [cut('e', 2)] },
            },
          },
        },
      },
      depth: 3,
    });
  });

  it('F6: leaves a 1,001-character property name and a 2,000-character enum value out of the TypeScript, the object still open', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: { a: { enum: ['x'.repeat(2_000), 'y'] }, ['n'.repeat(1_001)]: { type: 'string' } },
    };
    assert.equal(
      renderTypeScript({ openapi: '3.1.0' }, schema, 'T', 'response'),
      [
        '// Cut to stay near 200000 characters: not expanded: 1 property.',
        '',
        'export type T = {',
        '  a: string | "y";',
        '  // 1 more property not shown (a name longer than 1000 characters, or the text passed its size budget)',
        '  [key: string]: unknown;',
        '};',
        '',
      ].join('\n'),
    );
  });

  it('F8: stops writing properties past the TypeScript size budget and says what went', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
    };
    assert.deepStrictEqual(renderTypeScriptWithin({ openapi: '3.1.0' }, schema, 'T', 'response', undefined, 10), {
      typescript: [
        '// Cut to stay near 10 characters: not expanded: 2 properties.',
        '',
        'export type T = {',
        '  a?: string;',
        '  // 2 more properties not shown (a name longer than 1000 characters, or the text passed its size budget)',
        '  [key: string]: unknown;',
        '};',
        '',
      ].join('\n'),
      cut: ['2 properties'],
    });
  });

  it('F3: lists the first 500 fields of a 1,200-field sample, counts them all and leaves out the inferred shape past 20,000 characters', async () => {
    const doc = await loadObject({
      openapi: '3.0.3',
      info: { title: 'wide', version: '1' },
      paths: {
        '/r/{id}': {
          get: {
            operationId: 'getR',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      },
    });
    const body = Object.fromEntries(
      Array.from({ length: 1_200 }, (_, index) => [`f${String(index).padStart(4, '0')}`, 0]),
    );
    const analysis = analyzeSample(doc, operationOf(doc, 'getR'), [
      { path: '/r/1', status: 200, body },
      { path: '/r/2', status: 200, body: { ...body, f0000: 'x' } },
    ]);
    const shapeChars = JSON.stringify(inferShape(body)).length;
    assert.deepStrictEqual(
      {
        ...analysis,
        fields: [analysis.fields.length, analysis.fields[0], analysis.fields[499]],
        undocumentedFields: [analysis.undocumentedFields.length, analysis.undocumentedFields[499]],
      },
      {
        probes: ['/r/1', '/r/2'],
        fields: [
          500,
          { path: '$.f0000', required: false, documented: false, present: 2, of: 2, text: 'present in 2 of 2' },
          { path: '$.f0499', required: false, documented: false, present: 2, of: 2, text: 'present in 2 of 2' },
        ],
        optionalFields: [],
        undocumentedFields: [500, '$.f0499: present in 2 of 2'],
        inferredFromFirst: {
          from: '/r/1',
          note: 'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.',
          shape: { $comment: `not shown: ${shapeChars} characters of JSON, past 20000` },
          against: [
            {
              path: '/r/2',
              findings: [
                {
                  kind: 'wrongType',
                  severity: 'error',
                  path: '$.f0000',
                  schemaPath: '#/properties/f0000/type',
                  expected: 'integer',
                  actual: 'string',
                  message: 'is string, expected integer',
                },
              ],
            },
          ],
        },
        fieldsTotal: 1_200,
        cut: `Not all listed or compared (issue 8): fields lists the first 500 of 1200 (by path; fieldsTotal counts them all). undocumentedFields lists the first 500 of 1200 (by path). inferredFromFirst.shape is ${shapeChars} characters of JSON, past 20000, so it is not shown; the later records were still checked against it. Compare fewer or smaller records, or a part of them with probe's \`select\`.`,
      },
    );
  });

  it('F6: bounds an operationId of 5,000 characters in the operation a result shows', async () => {
    const doc = await loadObject({
      openapi: '3.0.3',
      info: { title: 'id', version: '1' },
      paths: { '/r': { get: { operationId: 'o'.repeat(5_000), responses: { '204': { description: 'none' } } } } },
    });
    assert.deepStrictEqual(summarize(doc.operations[0]!), {
      method: 'GET',
      pathTemplate: '/r',
      operationId: `${'o'.repeat(1_000)}… (4000 more characters)`,
    });
  });
});

describe('renderTypeScript: components that reach themselves (issue 15, TypeScript differential)', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'cycles', version: '1' },
    paths: {},
    components: {
      schemas: {
        Loop: {
          allOf: [{ $ref: '#/components/schemas/Loop' }, { type: 'object', properties: { a: { type: 'string' } } }],
        },
        A: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
        B: { allOf: [{ $ref: '#/components/schemas/A' }] },
        Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } },
        List: { type: 'array', items: { $ref: '#/components/schemas/List' } },
      },
    },
  };
  const typed = (name: string) => renderTypeScript(doc, { $ref: `#/components/schemas/${name}` }, 'T', 'response');

  it('writes a reference on a cycle outside any property or item as unknown, keeps recursion through a property or an item, and compiles', () => {
    const outputs = ['Loop', 'A', 'Node', 'List'].map(typed);
    assert.deepEqual(
      [
        outputs.map((text) =>
          [...text.matchAll(/^export type (\w+) = [^\n]*?unknown \/\* (\w+): its \$refs lead back/gm)].map((match) => [
            match[1],
            match[2],
          ]),
        ),
        outputs.flatMap(compile),
      ],
      [
        [
          [['Loop', 'Loop']],
          [
            ['A', 'B'],
            ['B', 'A'],
          ],
          [],
          [],
        ],
        [],
      ],
    );
  });
});
