// Tests of the contract layer (contract.ts) on the walkthrough document, with no server and no HTTP.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadDocument } from './openapi-document.ts';
import type { LoadedDocument } from './openapi-document.ts';
import { findOperation, judge, resolveOperation, summarize } from './contract.ts';

let loaded: LoadedDocument;
before(async () => {
  loaded = await loadDocument(fileURLToPath(new URL('./openapi.json', import.meta.url)));
});

describe('findOperation', () => {
  it('matches the whole request path with the base URL prefix stripped, without a note', () => {
    const match = findOperation(loaded, '/v2', '/v2/meters/mtr_1', '/meters/mtr_1');
    assert.deepEqual([match.operation && summarize(match.operation), match.note], [{ method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' }, undefined]);
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

  it('says what to give instead when nothing matches', () => {
    assert.equal(resolveOperation(loaded, '', 'DELETE /nowhere'), 'No operation `DELETE /nowhere` in the document: give an operationId, "GET /path/{template}" or a concrete path such as /meters/mtr_1.');
  });
});

describe('judge', () => {
  it('does not check a truncated body', () => {
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    const verdict = judge(loaded, operation, { status: 200, contentType: 'application/json', bytes: 20000, truncated: true, body: '{"id":' });
    assert.deepEqual(verdict, { validated: false, validationNote: 'The body was truncated, so it was not checked: a cut-off JSON text says nothing about the contract.' });
  });

  it('reports a required field the body lacks as an error and the contract as not met', () => {
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    const body = { id: 'mtr_1', status: 'active', installedAt: '2024-01-01T00:00:00Z', lastReading: null };
    const verdict = judge(loaded, operation, { status: 200, contentType: 'application/json', bytes: 80, truncated: false, body });
    assert.deepEqual(
      [verdict.validated, verdict.matchesContract, (verdict.findings as { kind: string; path: string }[]).map((finding) => `${finding.kind} ${finding.path}`)],
      [true, false, ['missing $.serial']],
    );
  });
});
