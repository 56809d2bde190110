/**
 * Issue 18's fresh attack: inputs the earlier rounds did not try, each of which broke main. A document or baseline
 * that is not JSON had V8's parse error quote the ten characters around the fault, a prefix of the key written there.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '../harness/stdio-client.ts';
import { commandLine } from '../src/cli/command-line.ts';
import { METERS } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
/** 21 characters: V8's excerpt of a parse error keeps its first 10. */
const KEY = 'sk-live-0123456789abc';
/** A JSON text whose fault is the key's first character: V8 says `Unexpected token 's', ..."info": sk-live-01"...`. */
const KEY_AT_FAULT = `{"openapi": "3.1.0", "info": ${KEY}}`;

let folder = '';
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'fresh-attack-'));
  writeFileSync(join(folder, 'broken.json'), KEY_AT_FAULT);
  writeFileSync(
    join(folder, 'meter.json'),
    JSON.stringify({ method: 'GET', path: '/meters/mtr_1', status: 200, body: METERS.mtr_1 }),
  );
});
after(() => rmSync(folder, { recursive: true, force: true }));

async function check(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const result = await commandLine(['check', ...args], env, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    stderrIsTerminal: false,
  });
  return {
    exitCode: 'exitCode' in result ? result.exitCode : undefined,
    stdout,
    stderr: stderr.replaceAll(folder, '<f>'),
  };
}

describe('a document or baseline that is not JSON is reported without quoting its text (issue 18)', () => {
  it('answers the contract tools with the set-up problem, no prefix of the key written at the fault', async () => {
    const client = spawnServer({
      API_BASE_URL: 'http://127.0.0.1:9',
      API_KEY: KEY,
      OPENAPI_DOC: join(folder, 'broken.json'),
    });
    await client.initialize();
    const result = await client.callToolUntraced('describe_operation', { operation: 'getMeter' });
    const stderr = client.stderr();
    await client.close();
    assert.deepEqual(
      [result.content[0].text.replaceAll(folder, '<f>'), stderr.includes(KEY.slice(0, 8))],
      [
        'Set-up problem: the OpenAPI document (OPENAPI_DOC) was not loaded, so probes are not checked and the contract tools cannot answer: Cannot load OpenAPI document <f>/broken.json at #: invalid JSON: it does not parse. Tell the person who configured this server.',
        false,
      ],
    );
  });

  it('check --doc names the document and says it does not parse', async () => {
    const ran = await check(['--doc', join(folder, 'broken.json'), join(folder, 'meter.json')], { API_KEY: KEY });
    assert.deepEqual(ran, {
      exitCode: 2,
      stdout: '',
      stderr:
        'openapi-probe check: <f>/broken.json: Cannot load OpenAPI document <f>/broken.json at #: invalid JSON: it does not parse\n',
    });
  });

  it('check --baseline names the baseline and says it does not parse', async () => {
    writeFileSync(join(folder, 'baseline.json'), `{"version": 1, "accepted": [${KEY}]}`);
    const ran = await check(
      ['--doc', `${HERE}openapi.json`, '--baseline', join(folder, 'baseline.json'), join(folder, 'meter.json')],
      { API_KEY: KEY },
    );
    assert.deepEqual(ran, {
      exitCode: 2,
      stdout: '',
      stderr: 'openapi-probe check: <f>/baseline.json: the baseline is not JSON (it does not parse)\n',
    });
  });
});
