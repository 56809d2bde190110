/**
 * Issue 19 review: with TENANT_KEYS_FILE the check worker is told every tenant's key at start, so it redacts a tenant
 * key an upstream echoes itself, and the main thread trusts that (the answer is marked redacted where it was made, and
 * is not redacted a second time there). The worker runs as the server runs it (`createCheckWorker`), on a body as the
 * API sent it.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createCheckWorker } from '../src/jobs/check-worker.ts';
import type { BodyChecker } from '../src/jobs/check-worker.ts';
import { redactedContents } from '../src/jobs/answers.ts';
import type { RawResponse } from '../src/api/probe.ts';
import { readConfig } from '../src/runtime/config.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SERVER_KEY = 'server-own-key-77aa99';
const TENANT_KEY = 'tenant-c-key-5d1e9b2a7c40f3';
const URL_PROBED = 'http://127.0.0.1:9/v2/meters/mtr_1';

/** The body of an upstream that echoes the key it was called with, plain and base64-encoded. */
function echoed(): RawResponse {
  const body = JSON.stringify({
    id: 'mtr_1',
    note: `seen: Bearer ${TENANT_KEY}`,
    basic: `Basic ${Buffer.from(`user:${TENANT_KEY}`).toString('base64')}`,
  });
  const held = new TextEncoder().encode(body);
  return {
    url: URL_PROBED,
    status: 200,
    contentType: 'application/json',
    contentEncoding: null,
    bytes: held.length,
    truncated: false,
    held,
  };
}

const config = readConfig({
  API_BASE_URL: 'http://127.0.0.1:9/v2',
  API_KEY: SERVER_KEY,
  OPENAPI_DOC: `${ROOT}openapi.json`,
});
const checkers: BodyChecker[] = [];
after(async () => {
  for (const checker of checkers) await checker.close();
});

describe('the check worker in tenant mode', () => {
  it("redacts a tenant's key in the answer it makes, and marks it redacted so the main thread does not redact it again", async () => {
    const checker = createCheckWorker(config, { keys: [TENANT_KEY] });
    checkers.push(checker);
    const checked = await checker.check(echoed(), { url: URL_PROBED });
    const text = JSON.stringify(checked.structured);
    assert.deepEqual(
      [text.includes(TENANT_KEY), text.includes('seen: Bearer [redacted]'), redactedContents.has(checked.structured!)],
      [false, true, true],
    );
  });

  it('leaves the tenant key in a worker not told of it: the redaction above is the worker’s own', async () => {
    const checker = createCheckWorker(config);
    checkers.push(checker);
    const checked = await checker.check(echoed(), { url: URL_PROBED });
    assert.equal(JSON.stringify(checked.structured).includes(`seen: Bearer ${TENANT_KEY}`), true);
  });
});
