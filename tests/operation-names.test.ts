/**
 * describe_operation and field_presence resolve an operation's name as find_operation reads it (issue 17): an SDK
 * method name, a mistyped operationId, a concrete path; a miss suggests the closest operations, and its examples
 * come from the loaded document. On GitHub's description.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { resolveOperation } from '../src/contract/operation.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { fileURLToPath } from 'node:url';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';

/** The resolved operation as `METHOD /template`, or the message. */
function named(loaded: LoadedDocument, name: string): string {
  const resolved = resolveOperation(loaded, '', name);
  return typeof resolved === 'string' ? resolved : `${resolved.method} ${resolved.pathTemplate}`;
}

describe('operation names on GitHub', () => {
  let github: LoadedDocument;
  before(async () => {
    github = await loadDocument(githubDescriptionPath());
  });

  it('resolves an SDK method name, an operationId and a concrete path with its method', () => {
    assert.deepEqual(
      [
        named(github, 'octokit.rest.issues.listForRepo'),
        named(github, 'GET /repos/acme/widgets/pulls/42'),
        named(github, 'issues/list-for-repo'),
      ],
      [
        'GET /repos/{owner}/{repo}/issues',
        'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        'GET /repos/{owner}/{repo}/issues',
      ],
    );
  });

  it('suggests the operationId one edit away among all of the document, past the first 500', () => {
    const index = github.operations.findIndex((operation) => operation.operationId === 'users/list-followers-for-user');
    assert.deepEqual(
      [index > 500, named(github, 'users/list-followers-for-usr').split(':')[0]],
      [
        true,
        'No operation `users/list-followers-for-usr` in the document (did you mean users/list-followers-for-user?)',
      ],
    );
  });

  it("gives the document's own operationId and path in the example, never another API's", () => {
    const message = named(github, 'zzzz qqqq');
    const tail = message.slice(message.indexOf(': give') + 2);
    assert.deepEqual(
      [
        tail,
        Object.hasOwn(github.doc.paths, '/app/installations/{installation_id}'),
        named(github, 'apps/get-installation'),
        named(github, '/app/installations/1'),
        message.includes('meter'),
      ],
      [
        'give an operationId such as apps/get-installation, "DELETE /app/installations/{installation_id}" or a concrete path such as /app/installations/1.',
        true,
        'GET /app/installations/{installation_id}',
        'GET /app/installations/{installation_id}',
        false,
      ],
    );
  });
});

describe('a path that repeats the base URL prefix (issue 17)', () => {
  const handler = createHandler(
    readConfig(
      {
        API_BASE_URL: 'http://127.0.0.1:9/v2',
        OPENAPI_DOC: fileURLToPath(new URL('../openapi.json', import.meta.url)),
      },
      '/nonexistent',
    ),
  );
  const call = async (name: string, args: Record<string, unknown>) =>
    ((await handler.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })) as any)
      .result;

  it('says so in describe_operation and draft_request, as the probe does', async () => {
    const described = await call('describe_operation', { operation: '/v2/meters/mtr_1' });
    const drafted = await call('draft_request', { method: 'PATCH', path: '/v2/meters/mtr_1', body: { note: 'x' } });
    assert.deepEqual(
      [described.content[0].text, drafted.structuredContent.problems[0].message],
      [
        'No GET operation matches /v2/meters/mtr_1. Nearest: GET /meters/{meterId}, GET /meters/{meterId}/readings, GET /meters. API_BASE_URL already ends in /v2: give the path without it (/meters/mtr_1).',
        'no PATCH operation matches /v2/meters/mtr_1; nearest: PATCH /meters/{meterId}, GET /meters/{meterId}/readings, GET /meters. API_BASE_URL already ends in /v2: give the path without it (/meters/mtr_1)',
      ],
    );
  });
});
