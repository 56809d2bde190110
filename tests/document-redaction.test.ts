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

let folder = '';
let contract: ContractService;

before(() => {
  folder = mkdtempSync(join(tmpdir(), 'document-redaction-'));
  const file = join(folder, 'keyed.json');
  writeFileSync(file, JSON.stringify(DOCUMENT));
  const config = readConfig({ API_BASE_URL: 'http://127.0.0.1:9', API_KEY: KEY, OPENAPI_DOC: file }, folder);
  contract = inProcessContract({ config, redact: redactor(KEY), documents: createDocumentSource(file) });
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
