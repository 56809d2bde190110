/**
 * A key written inside the document (issue 18): as a property name, inside a long enum value, description or
 * summary that a cut shortens. describe_operation's structured content carries it neither whole nor as the prefix a
 * cut would leave: document text is redacted where it enters the answer, before any cut, member names included.
 * The describe job runs as the check worker runs it (`inProcessContract`), without the wire's last pass behind it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcessContract } from '../src/jobs/jobs.ts';
import type { ContractService } from '../src/jobs/jobs.ts';
import { readConfig } from '../src/runtime/config.ts';
import { redactor } from '../src/redaction/redaction.ts';
import { createDocumentSource } from '../src/document/source.ts';

/** 21 characters: a cut at 1,000 after 990 others would keep 10 of them, a cut at 160 after 150 others 9. */
const KEY = 'sk-live-0123456789abc';

/** The response schema: the key as a name, and inside a long name, enum value and description. */
const SCHEMA = {
  type: 'object',
  description: `${'d'.repeat(150)}${KEY}${'d'.repeat(50)}`,
  properties: {
    [KEY]: { type: 'string' },
    [`${'x'.repeat(990)}${KEY}${'y'.repeat(100)}`]: { enum: [`${'v'.repeat(995)}${KEY}`] },
  },
};

const JSON_CONTENT = { 'application/json': { schema: SCHEMA } };

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'keyed', version: '1' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        summary: `${'s'.repeat(995)}${KEY}`,
        responses: { '200': { description: 'ok', content: JSON_CONTENT } },
      },
    },
  },
};

const folder = mkdtempSync(join(tmpdir(), 'document-redaction-'));
let contract: ContractService;

/** The describe job over `document` written to `name` in the test's folder, with the key set, as the worker runs it. */
function contractOver(document: unknown, name: string): ContractService {
  const file = join(folder, name);
  writeFileSync(file, JSON.stringify(document));
  const config = readConfig({ API_BASE_URL: 'http://127.0.0.1:9', API_KEY: KEY, OPENAPI_DOC: file }, folder);
  return inProcessContract({ config, redact: redactor(KEY), documents: createDocumentSource(file) });
}

before(() => {
  contract = contractOver(DOCUMENT, 'keyed.json');
});

after(() => rmSync(folder, { recursive: true, force: true }));

describe('describe_operation on a document that holds the key (issue 18)', () => {
  it('redacts the key in names, a long enum value, a description and the summary before they are cut', async () => {
    const answer = await contract.run('describe', { operation: 'listThings' });
    assert.deepEqual(answer, {
      structured: {
        operation: {
          method: 'GET',
          pathTemplate: '/things',
          operationId: 'listThings',
          summary: `${'s'.repeat(995)}[reda… (5 more characters)`,
        },
        parameters: [],
        responses: {
          '200': {
            description: 'ok',
            mediaType: 'application/json',
            schema: {
              type: 'object',
              description: `${'d'.repeat(150)}[redacted…`,
              properties: {
                '[redacted]': { type: 'string' },
                [`${'x'.repeat(990)}[redacted]… (100 more characters)`]: {
                  enum: [`${'v'.repeat(995)}[reda… (5 more characters)`],
                },
              },
            },
          },
        },
        depth: 3,
      },
    });
  });

  it('redacts the key in the TypeScript of the same operation', async () => {
    const answer = await contract.run('describe', { operation: 'listThings', as: 'typescript' });
    const text = JSON.stringify(answer);
    assert.deepEqual([text.includes(KEY), text.includes('[redacted]')], [false, true]);
  });
});

/**
 * The TypeScript renderer's cuts (issue 18): a type name is cut at 100 characters, a comment's field path at 200, a
 * literal past 1,000 is typed by its JSON type, a name past 1,000 is counted, not written. The key sits in each of
 * those texts where the cut falls, and in a title and a description (which no type carries).
 */
describe('describe_operation as TypeScript on a document that holds the key at every cut (issue 18)', () => {
  /** 90 characters, then the key: typeName's cut at 100 would keep `SkLive0123` of it. */
  const COMPONENT = `${'c'.repeat(90)}${KEY}`;
  const OPERATION = `${'o'.repeat(95)}-${KEY}`;
  const TYPED = {
    openapi: '3.1.0',
    info: { title: 'keyed', version: '1' },
    paths: {
      '/things': {
        get: {
          operationId: OPERATION,
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${COMPONENT}` } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        [COMPONENT]: {
          type: 'object',
          title: `${'t'.repeat(150)}${KEY}`,
          description: `${'d'.repeat(150)}${KEY}${'d'.repeat(50)}`,
          properties: {
            [`${'n'.repeat(90)}${KEY}`]: { type: 'string', title: `${'t'.repeat(995)}${KEY}` },
            [`${'x'.repeat(990)}${KEY}${'y'.repeat(100)}`]: { type: 'string' },
            status: { enum: [`${'v'.repeat(975)}${KEY}`, `${'w'.repeat(995)}${KEY}`] },
          },
        },
      },
    },
  };
  let typed: ContractService;

  before(() => {
    typed = contractOver(TYPED, 'typed.json');
  });

  it('writes [redacted] where the key was, before type names and comment paths are cut', async () => {
    // A body probed this session with an undocumented field whose name holds the key past the comment's cut.
    const field = `${'f'.repeat(190)}${KEY}`;
    const answer = await typed.run('describe', {
      operation: OPERATION,
      as: 'typescript',
      records: [{ path: '/things', status: 200, text: JSON.stringify({ [field]: 1 }) }],
    });
    const root = `O${'o'.repeat(94)}RedacResponse`;
    const component = `C${'c'.repeat(89)}Redacted`;
    assert.deepEqual(answer, {
      structured: {
        operation: { method: 'GET', pathTemplate: '/things', operationId: `${'o'.repeat(95)}-[redacted]` },
        part: 'responses',
        status: '200',
        mediaType: 'application/json',
        typeName: root,
        typescript: [
          '// Cut to stay near 16000 characters: not expanded: 1 property.',
          '// Seen in 1 probe this session, not in the document (not part of the type):',
          `// - $['${'f'.repeat(190)}[redac…: undocumented, present in 1 of 1`,
          '',
          `export type ${root} = ${component};`,
          '',
          `export type ${component} = {`,
          `  "${'n'.repeat(90)}[redacted]"?: string;`,
          `  status?: "${'v'.repeat(975)}[redacted]" | string;`,
          '  // 1 more property not shown (a name longer than 1000 characters, or the text passed its size budget)',
          '  [key: string]: unknown;',
          '};',
          '',
        ].join('\n'),
        cut: 'Cut to fit 20000 characters: not expanded: 1 property (written as unknown, or counted in a comment). Ask for less: `status` or `part`, or read it as text with a smaller `depth`.',
      },
    });
  });
});
