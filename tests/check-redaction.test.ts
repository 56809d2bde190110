/**
 * `check` keeps credentials out of its report (issue 18): the API key when API_KEY is set, and without it the
 * credentials a HAR or fixture recorded (Authorization, Cookie, API-key headers, *_key / token / secret fields);
 * a fixture that is not JSON is reported without quoting its text.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine } from '../src/cli/command-line.ts';
import { METERS } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const TOKEN = 'sk-live-0123456789abcdef';
const COOKIE = 'session-9f8e7d6c5b4a';

async function check(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const result = await commandLine(['check', '--doc', `${HERE}openapi.json`, ...args], env, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    stderrIsTerminal: false,
  });
  return { exitCode: 'exitCode' in result ? result.exitCode : undefined, stdout, stderr };
}

describe('check keeps credentials out of its report', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'openapi-probe-check-redaction-'));
    // A recorded meter whose `status` (an enum in the document) echoes the token: the finding quotes the value.
    const body = { ...METERS.mtr_1, status: TOKEN, note: `cookie ${COOKIE}` };
    writeFileSync(
      join(folder, 'session.har'),
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          entries: [
            {
              request: {
                method: 'GET',
                url: 'https://api.example.com/v2/meters/mtr_1',
                headers: [
                  { name: 'Authorization', value: `Bearer ${TOKEN}` },
                  { name: 'Cookie', value: `theme=dark; sid=${COOKIE}` },
                ],
              },
              response: {
                status: 200,
                headers: [],
                content: { mimeType: 'application/json', text: JSON.stringify(body) },
              },
            },
          ],
        },
      }),
    );
    writeFileSync(join(folder, 'broken.json'), `{"auth": ${TOKEN}}`);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  for (const format of ['text', 'json', 'junit', 'markdown', 'sarif'])
    it(`redacts the credentials a HAR recorded, without API_KEY, in the ${format} report, and says so`, async () => {
      const ran = await check(['--format', format, join(folder, 'session.har')]);
      assert.deepEqual(
        [
          ran.exitCode,
          ran.stdout.includes(TOKEN) || ran.stderr.includes(TOKEN),
          ran.stdout.includes(COOKIE),
          ran.stdout.includes('[redacted]'),
          ran.stderr,
        ],
        [
          1,
          false,
          false,
          true,
          'openapi-probe check: 4 credential value(s) recorded in the fixtures (Authorization, Cookie and API-key headers, *_key, token, secret and password fields) are shown as [redacted]\n',
        ],
      );
    });

  it('reports a fixture that is not JSON by position, never quoting its text', async () => {
    const ran = await check([join(folder, 'broken.json')], { API_KEY: 'another-key-123' });
    assert.deepEqual(
      [ran.exitCode, ran.stderr.replace(folder, '<folder>')],
      [2, 'openapi-probe check: <folder>/broken.json: not JSON (it does not parse)\n'],
    );
  });

  it('redacts API_KEY from the report when it is set', async () => {
    writeFileSync(
      join(folder, 'echo.json'),
      JSON.stringify({ method: 'GET', path: '/meters/mtr_1', status: 200, body: { ...METERS.mtr_1, status: TOKEN } }),
    );
    const ran = await check([join(folder, 'echo.json')], { API_KEY: TOKEN });
    assert.deepEqual([ran.exitCode, ran.stdout.includes(TOKEN), ran.stdout.includes('[redacted]')], [1, false, true]);
  });
});
