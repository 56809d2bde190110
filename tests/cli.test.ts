/**
 * The command line (src/cli/) end to end: `--help`, `--version` and an unknown flag through the real
 * entry point (probe-server.ts spawned with this Node), flags that configure the server, and the
 * `check` command on the fixtures in `fixtures/check/` (pass, fail, malformed, a HAR file), in each
 * format, and with `--live` against the stand-in API on 127.0.0.1 (issue 10).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, USAGE } from '../src/cli/command-line.ts';
import { documentScope } from '../src/cli/check.ts';
import type { Output } from '../src/cli/output.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { readFixtures } from '../src/cli/fixtures.ts';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${HERE}package.json`, 'utf8')) as { version: string }).version;

/** Runs the real entry point with `args` and an environment holding only PATH and `env`. */
function runEntry(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [...nodeArgsFor(`${HERE}probe-server.ts`), ...args], {
    cwd: HERE,
    env: { PATH: process.env.PATH ?? '', ...env },
    input: '',
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs `commandLine` in this process, collecting what it writes. */
async function runCommand(args: string[], env: Record<string, string | undefined> = {}, terminal = false) {
  let stdout = '';
  let stderr = '';
  const output: Output = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    stderrIsTerminal: terminal,
  };
  const result = await commandLine(args, env, output);
  return { result, stdout, stderr };
}

before(() => process.chdir(HERE));

describe('flags (issue 10)', () => {
  it('prints the usage on --help to stdout and exits 0 without speaking the protocol', () => {
    assert.deepEqual(runEntry(['--help']), { code: 0, stdout: USAGE, stderr: '' });
  });

  it('prints name and version on --version and exits 0, with no API_BASE_URL set', () => {
    assert.deepEqual(runEntry(['--version']), { code: 0, stdout: `openapi-probe ${VERSION}\n`, stderr: '' });
  });

  it('exits 2 on an unknown flag with the usage on stderr', () => {
    assert.deepEqual(runEntry(['--bogus']), {
      code: 2,
      stdout: '',
      stderr: `openapi-probe: unknown flag \`--bogus\`\n\n${USAGE}`,
    });
  });

  it('exits 2 on serve without --http or PROBE_HTTP_LISTEN, naming what it needs (new-user trial)', async () => {
    const { result, stdout, stderr } = await runCommand(['serve']);
    assert.deepEqual(
      { result, stdout, stderr },
      {
        result: { exitCode: 2 },
        stdout: '',
        stderr: `openapi-probe: serve needs --http HOST:PORT (or PROBE_HTTP_LISTEN) to serve MCP over Streamable HTTP; without a command the server speaks MCP over stdio\n\n${USAGE}`,
      },
    );
  });

  it('takes serve with PROBE_HTTP_LISTEN set, as the container runs it', async () => {
    const { result } = await runCommand(['serve'], { PROBE_HTTP_LISTEN: '0.0.0.0:8787' });
    assert.equal((result as { env: Record<string, string> }).env.PROBE_HTTP_LISTEN, '0.0.0.0:8787');
  });

  it('exits 2 when a flag lacks its value', () => {
    assert.deepEqual(runEntry(['--base-url']), {
      code: 2,
      stdout: '',
      stderr: `openapi-probe: --base-url needs a value\n\n${USAGE}`,
    });
  });

  it('serves with --base-url and --doc in place of API_BASE_URL and OPENAPI_DOC, and exits 0 when stdin closes', () => {
    const run = runEntry(['--base-url', 'http://127.0.0.1:9/v2', '--doc=openapi.json', '--max-bytes', '2048']);
    assert.deepEqual(
      { code: run.code, stdout: run.stdout, first: run.stderr.split('\n')[0] },
      {
        code: 0,
        stdout: '',
        first:
          'event=server.start summary="serving http://127.0.0.1:9/v2 (GET only) on stdio" version=0.1.0 base=http://127.0.0.1:9/v2 document=openapi.json key=none max_bytes=2048 check_max_bytes=8388608 timeout_ms=15000 document_ttl_s=60 concurrency=4 queue=32 rate_per_min=60 log_level=info audit=none worker_memory_mb=1024',
      },
    );
  });

  it('says at start-up that no document is loaded when OPENAPI_DOC is unset and the working directory has no openapi.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-nodoc-'));
    try {
      const run = spawnSync(
        process.execPath,
        // tsx resolved here: the server runs in a folder with no node_modules.
        [
          ...nodeArgsFor(`${HERE}probe-server.ts`).map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg)),
          '--base-url',
          'http://127.0.0.1:9/v2',
        ],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '' },
          input: '',
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      assert.deepEqual(
        { code: run.status, second: run.stderr.split('\n')[1] },
        {
          code: 0,
          second: `event=document.load.error reason="document not loaded, probes go unchecked: OPENAPI_DOC is not set and there is no openapi.json in the working directory ${dir}; set OPENAPI_DOC to the absolute path or URL of the OpenAPI document"`,
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('returns the environment with the flags applied, the key left to API_KEY', async () => {
    const { result } = await runCommand(
      [
        '--base-url',
        'https://api.example.com/v2',
        '--key-header',
        'X-API-Key',
        '--max-bytes=4096',
        '--doc',
        'spec.json',
      ],
      { API_KEY: 'k' },
    );
    assert.deepEqual(result, {
      env: {
        API_KEY: 'k',
        API_BASE_URL: 'https://api.example.com/v2',
        API_KEY_HEADER: 'X-API-Key',
        PROBE_MAX_BYTES: '4096',
        OPENAPI_DOC: 'spec.json',
      },
    });
  });

  it('checks the flag values as the environment variables are checked', () => {
    const run = runEntry(['--base-url', 'https://api.example.com', '--max-bytes', '0']);
    assert.deepEqual(run, {
      code: 2,
      stdout: '',
      stderr: 'openapi-probe: PROBE_MAX_BYTES must be a whole number from 1 to 524288, got `0`\n',
    });
  });
});

const PASS_TEXT = `PASS fixtures/check/pass/meter-1.json: GET /meters/mtr_1 -> 200, GET
    /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
`;
const FAIL_TEXT = `FAIL fixtures/check/fail/meter-9.json: GET /meters/mtr_9 -> 200, GET
    /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
  error $.lastReading.kwh is string, expected number
  error $.location is null, expected object
  error $.status is "retired", not one of the allowed values
    ["active","inactive","removed"]
`;

describe('check (issue 10)', () => {
  it('exits 0 when every fixture of a folder matches, warnings shown', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', 'fixtures/check/pass']), {
      result: { exitCode: 0 },
      stdout: `${PASS_TEXT}1 fixture(s): 1 passed, 0 failed, 0 not checked\n`,
      stderr: '',
    });
  });

  it("exits 1 when a fixture has an error finding, printing findings in the probe's words within 80 columns", async () => {
    const run = await runCommand(['check', '--doc', 'openapi.json', 'fixtures/check/pass', 'fixtures/check/fail']);
    assert.deepEqual(run, {
      result: { exitCode: 1 },
      stdout: `${PASS_TEXT}${FAIL_TEXT}2 fixture(s): 1 passed, 1 failed, 0 not checked\n`,
      stderr: '',
    });
    assert.deepEqual(
      run.stdout.split('\n').filter((line) => line.length > 80),
      [],
    );
  });

  it('exits 2 on a malformed fixture, naming the file and what is wrong', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', 'fixtures/check/malformed']), {
      result: { exitCode: 2 },
      stdout: '',
      stderr:
        'openapi-probe check: fixtures/check/malformed/relative-path.json: `path` must be a string starting with "/", e.g. "/meters/mtr_1", got "meters/mtr_1"\n',
    });
  });

  it('reports a body nested too deep for the checks as not checked (exit 1), never as a pass or a crash', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cli-test-'));
    const file = join(folder, 'deep.json');
    writeFileSync(
      file,
      `{"method":"GET","path":"/meters/mtr_1","status":200,"body":${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}}`,
    );
    try {
      assert.deepEqual(
        await runCommand(['check', '--doc', 'openapi.json', '--format', 'json', file]).then((run) => ({
          result: run.result,
          json: JSON.parse(run.stdout),
        })),
        {
          result: { exitCode: 1 },
          json: {
            fixtures: [
              {
                source: file,
                request: 'GET /meters/mtr_1',
                status: 200,
                outcome: 'unchecked',
                findings: [],
                note: 'The body could not be checked: Maximum call stack size exceeded',
              },
            ],
            summary: { fixtures: 1, passed: 0, failed: 0, notChecked: 1 },
          },
        },
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('throws an InputError coded bad-fixture for a fixture of the wrong shape (issue 14)', () => {
    assert.throws(() => readFixtures(['fixtures/check/malformed'], HERE), { name: 'InputError', code: 'bad-fixture' });
  });

  it('throws an InputError coded missing for a path that does not exist (issue 14)', () => {
    assert.throws(() => readFixtures(['fixtures/check/none-such'], HERE), { name: 'InputError', code: 'missing' });
  });

  it('exits 2 on a fixture that does not exist', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', 'fixtures/check/absent.json']), {
      result: { exitCode: 2 },
      stdout: '',
      stderr: 'openapi-probe check: fixtures/check/absent.json: no such file or folder\n',
    });
  });

  it('checks against openapi.json in the working folder when --doc is not given', async () => {
    const ran = await runCommand(['check', '--format', 'json', 'fixtures/check/pass']);
    assert.deepEqual([ran.result, ran.stderr], [{ exitCode: 0 }, '']);
  });

  it('exits 2 without --doc where there is no openapi.json', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'openapi-probe-check-'));
    process.chdir(empty);
    try {
      assert.deepEqual(await runCommand(['check', join(HERE, 'fixtures/check/pass')]), {
        result: { exitCode: 2 },
        stdout: '',
        stderr:
          'openapi-probe check: no OpenAPI document: give --doc (or OPENAPI_DOC), a path or an http(s) URL, or run where openapi.json is\n',
      });
    } finally {
      process.chdir(HERE);
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('takes the GET entries of a HAR file as fixtures; a path the document lacks is not checked, so exit 1', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', 'fixtures/check/har/session.har']), {
      result: { exitCode: 1 },
      stdout: `PASS fixtures/check/har/session.har#0: GET /v2/meters/mtr_3 -> 200, GET
    /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
PASS fixtures/check/har/session.har#2: GET /v2/meters/mtr_404 -> 404, GET
    /meters/{meterId} (getMeter)
NOT CHECKED fixtures/check/har/session.har#3: GET /v2/gauges -> 200, no
    operation
  No GET operation in the document matches /v2/gauges. Nearest: GET /meters, GET
    /meters/{meterId}, GET /meters/{meterId}/readings.
fixtures/check/har/session.har: 1 of 4 HAR entries left out: 1 not a GET
3 fixture(s): 2 passed, 0 failed, 1 not checked
`,
      stderr: '',
    });
  });

  it('says a HAR entry whose body the exporter did not keep is not checked, not that the body is empty (new-user trial)', async () => {
    assert.deepEqual(
      await runCommand([
        'check',
        '--doc',
        'openapi.json',
        '--base-url',
        'http://127.0.0.1:8080/v2',
        'fixtures/check/har-unrecorded/browser.har',
      ]),
      {
        result: { exitCode: 1 },
        stdout: `NOT CHECKED fixtures/check/har-unrecorded/browser.har#0: GET /v2/meters/mtr_1 ->
    200, GET /meters/{meterId} (getMeter)
  The HAR entry holds no body (content.text is missing: the exporter did not
    keep it), so there is nothing to check.
1 fixture(s): 0 passed, 0 failed, 1 not checked
`,
        stderr: '',
      },
    );
  });

  it('shows progress on stderr when it is a terminal, and clears the line at the end', async () => {
    const run = await runCommand(
      ['check', '--doc', 'openapi.json', 'fixtures/check/pass', 'fixtures/check/fail'],
      {},
      true,
    );
    assert.deepEqual(
      { result: run.result, stderr: run.stderr },
      { result: { exitCode: 1 }, stderr: '\rchecking 1/2 \rchecking 2/2 \r\u001b[K' },
    );
  });

  it('prints JSON with --format json', async () => {
    const run = await runCommand(['check', '--doc', 'openapi.json', '--format', 'json', 'fixtures/check/pass']);
    assert.deepEqual(
      { result: run.result, stderr: run.stderr, json: JSON.parse(run.stdout) },
      {
        result: { exitCode: 0 },
        stderr: '',
        json: {
          fixtures: [
            {
              source: 'fixtures/check/pass/meter-1.json',
              request: 'GET /meters/mtr_1',
              status: 200,
              operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
              outcome: 'pass',
              findings: [
                {
                  kind: 'undocumented',
                  severity: 'warning',
                  path: '$.firmwareVersion',
                  schemaPath: '#/components/schemas/Meter/properties',
                  message: 'is present but not documented in the schema',
                },
              ],
            },
          ],
          summary: { fixtures: 1, passed: 1, failed: 0, notChecked: 0 },
        },
      },
    );
  });

  it('shows each fixture as a test case with --format junit', async () => {
    assert.deepEqual(
      await runCommand([
        'check',
        '--doc',
        'openapi.json',
        '--format',
        'junit',
        'fixtures/check/fail/meter-9.json',
        'fixtures/check/har/session.har',
      ]),
      {
        result: { exitCode: 1 },
        stdout: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="openapi-probe check" tests="4" failures="2">
  <testsuite name="openapi-probe check" tests="4" failures="2">
    <testcase classname="GET /meters/{meterId} (getMeter)" name="fixtures/check/fail/meter-9.json: GET /meters/mtr_9 -&gt; 200">
      <failure message="3 error finding(s)">warning $.firmwareVersion is present but not documented in the schema
error $.lastReading.kwh is string, expected number
error $.location is null, expected object
error $.status is &quot;retired&quot;, not one of the allowed values [&quot;active&quot;,&quot;inactive&quot;,&quot;removed&quot;]</failure>
    </testcase>
    <testcase classname="GET /meters/{meterId} (getMeter)" name="fixtures/check/har/session.har#0: GET /v2/meters/mtr_3 -&gt; 200">
      <system-out>warning $.firmwareVersion is present but not documented in the schema</system-out>
    </testcase>
    <testcase classname="GET /meters/{meterId} (getMeter)" name="fixtures/check/har/session.har#2: GET /v2/meters/mtr_404 -&gt; 404"/>
    <testcase classname="no operation" name="fixtures/check/har/session.har#3: GET /v2/gauges -&gt; 200">
      <failure message="not checked: No GET operation in the document matches /v2/gauges. Nearest: GET /meters, GET /meters/{meterId}, GET /meters/{meterId}/readings.">No GET operation in the document matches /v2/gauges. Nearest: GET /meters, GET /meters/{meterId}, GET /meters/{meterId}/readings.</failure>
    </testcase>
    <system-out>fixtures/check/har/session.har: 1 of 4 HAR entries left out: 1 not a GET</system-out>
  </testsuite>
</testsuites>
`,
        stderr: '',
      },
    );
  });

  it('writes a report against the documentation, one section per operation, with --format markdown', async () => {
    assert.deepEqual(
      await runCommand([
        'check',
        '--doc',
        'openapi.json',
        '--format',
        'markdown',
        'fixtures/check/pass',
        'fixtures/check/fail',
        'fixtures/check/har',
      ]),
      {
        result: { exitCode: 1 },
        stdout: MARKDOWN,
        stderr: '',
      },
    );
  });
});

describe('check --live (issue 10)', () => {
  let standIn: StandIn;
  before(async () => {
    standIn = await start({ key: 'live-key' });
  });
  after(() => standIn.close());

  it('reports drift between a fixture and the live response (fields only live, only in the fixture, values that moved) without failing the fixture', async () => {
    const run = await runCommand(
      ['check', '--doc', 'openapi.json', '--live', '--base-url', standIn.url, 'fixtures/check/drift/meter-2.json'],
      { API_KEY: 'live-key' },
    );
    assert.deepEqual(run, {
      result: { exitCode: 0 },
      stdout: `PASS fixtures/check/drift/meter-2.json: GET /meters/mtr_2 -> 200, GET
    /meters/{meterId} (getMeter)
  warning $.tariff is present but not documented in the schema
  drift: live status 200
  drift: only live: $.firmwareVersion
  drift: only in fixture: $.tariff
  drift: moved: $.location.floor 1 -> 2
1 fixture(s): 1 passed, 0 failed, 0 not checked
`,
      stderr: '',
    });
    assert.deepEqual(standIn.requests, [{ method: 'GET', path: '/v2/meters/mtr_2', authorized: true }]);
  });

  it('reports a live GET that fails as not compared, and exits 1 (new-user trial: it was drift, exit 0)', async () => {
    const closed = await start({ key: 'live-key' });
    const url = closed.url;
    await closed.close();
    const run = await runCommand(
      ['check', '--doc', 'openapi.json', '--live', '--base-url', url, 'fixtures/check/pass'],
      { API_KEY: 'live-key' },
    );
    // Where the lines wrap depends on the port's digits: compared with runs of spaces as one.
    assert.deepEqual(
      { ...run, stdout: run.stdout.replace(/\s+/g, ' ') },
      {
        result: { exitCode: 1 },
        stdout: `PASS fixtures/check/pass/meter-1.json: GET /meters/mtr_1 -> 200, GET /meters/{meterId} (getMeter) warning $.firmwareVersion is present but not documented in the schema drift: not compared: GET ${url}/meters/mtr_1 failed: connection refused (ECONNREFUSED). Check that API_BASE_URL is right and the API is up. 1 fixture(s): 1 passed, 0 failed, 0 not checked; 1 live GET(s) failed, not compared `,
        stderr: '',
      },
    );
  });

  it('does not compare a live answer of another status: a 401 says how the key went, and exits 1 (new-user trial)', async () => {
    const run = await runCommand(
      ['check', '--doc', 'openapi.json', '--live', '--base-url', standIn.url, 'fixtures/check/pass'],
      {},
    );
    assert.deepEqual(
      { ...run, stdout: run.stdout.replace(/\s+/g, ' ') },
      {
        result: { exitCode: 1 },
        stdout:
          "PASS fixtures/check/pass/meter-1.json: GET /meters/mtr_1 -> 200, GET /meters/{meterId} (getMeter) warning $.firmwareVersion is present but not documented in the schema drift: not compared: the live GET answered 401, the fixture holds 200; an answer of another status is not compared. The API answered 401 and no key was sent: API_KEY is not set in the server's environment. 1 fixture(s): 1 passed, 0 failed, 0 not checked; 1 live GET(s) failed, not compared ",
        stderr: '',
      },
    );
  });

  it('gives the drift in the markdown report too', async () => {
    const run = await runCommand(
      [
        'check',
        '--doc',
        'openapi.json',
        '--format',
        'markdown',
        '--live',
        '--base-url',
        standIn.url,
        'fixtures/check/drift/meter-2.json',
      ],
      { API_KEY: 'live-key' },
    );
    assert.deepEqual(
      [run.result, run.stdout.slice(run.stdout.indexOf('## Drift'))],
      [
        { exitCode: 0 },
        '## Drift against the live API\n\n- `fixtures/check/drift/meter-2.json` (GET /meters/mtr_2): live status 200; only live: $.firmwareVersion; only in fixture: $.tariff; moved: $.location.floor 1 -> 2\n',
      ],
    );
  });

  it('exits 2 with --live but no base URL', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', '--live', 'fixtures/check/pass']), {
      result: { exitCode: 2 },
      stdout: '',
      stderr:
        "openapi-probe check: API_BASE_URL is not set. Set it to the API's base URL, e.g. API_BASE_URL=https://api.example.com/v2 (--live needs --base-url)\n",
    });
  });
});

const MARKDOWN =
  '# Meter Readings API 2.3.0: what the API returns that the document does not say\n\n5 fixture(s): 3 passed, 1 failed, 1 not checked\n\n- fixtures/check/har/session.har: 1 of 4 HAR entries left out: 1 not a GET\n\n## GET /meters/{meterId} (getMeter)\n\nFixtures: \`fixtures/check/pass/meter-1.json\`, \`fixtures/check/fail/meter-9.json\`, \`fixtures/check/har/session.har#0\`, \`fixtures/check/har/session.har#2\`\n\n### Fields the API returns that the document omits\n\n- \`$.firmwareVersion\` is present but not documented in the schema (\`fixtures/check/pass/meter-1.json\`, \`fixtures/check/fail/meter-9.json\`, \`fixtures/check/har/session.har#0\`)\n\n### Optional fields never seen (in 3 response(s) with status 200)\n\n- \`$.note\`\n\n### Enum values the document lacks\n\n- \`$.status\` is "retired", not one of the allowed values ["active","inactive","removed"] (\`fixtures/check/fail/meter-9.json\`)\n\n### Nulls the document does not allow\n\n- \`$.location\` is null, expected object (\`fixtures/check/fail/meter-9.json\`)\n\n### Other findings\n\n- error wrongType: \`$.lastReading.kwh\` is string, expected number (\`fixtures/check/fail/meter-9.json\`)\n\n## Not in the document\n\n- \`fixtures/check/har/session.har#3\`: No GET operation in the document matches /v2/gauges. Nearest: GET /meters, GET /meters/{meterId}, GET /meters/{meterId}/readings.\n';

const BROWSER_HAR = 'fixtures/check/har-browser/dashboard.har';
const BROWSER_TEXT = `PASS fixtures/check/har-browser/dashboard.har#6: GET /v2/meters?status=active ->
    200, GET /meters (listMeters)
  warning $.meters[0].firmwareVersion is present but not documented in the
    schema
  warning $.meters[1].firmwareVersion is present but not documented in the
    schema
PASS fixtures/check/har-browser/dashboard.har#7: GET /v2/meters/mtr_1 -> 200,
    GET /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
PASS fixtures/check/har-browser/dashboard.har#8: GET /v2/meters/mtr_1/readings
    -> 200, GET /meters/{meterId}/readings (listReadings)
FAIL fixtures/check/har-browser/dashboard.har#9: GET /v2/meters/mtr_3 -> 200,
    GET /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
  error $.status is "retired", not one of the allowed values
    ["active","inactive","removed"]
PASS fixtures/check/har-browser/dashboard.har#15: GET /v2/meters/mtr_404 -> 404,
    GET /meters/{meterId} (getMeter)
fixtures/check/har-browser/dashboard.har: 12 of 17 HAR entries left out: 5 on
    another origin than https://meters.example.com, 5 outside /v2, 1 not a GET,
    1 a 304 (no body of its own)
`;

describe('check on a browser HAR with three origins (issue 17)', () => {
  // The HAR is a Chrome export of a dashboard session on https://meters.example.com, whose API is under /v2: the page,
  // a redirect, CSS, a service worker and a favicon outside /v2; a CDN's script and font (base64); an analytics
  // preflight, beacon and pixel; a PATCH, a 304 revalidation and five GETs of the API (one body base64-encoded).
  it('keeps only the GET entries on the base origin under its prefix and counts the rest by reason', async () => {
    assert.deepEqual(
      await runCommand(['check', '--doc', 'openapi.json', '--base-url', 'https://meters.example.com/v2', BROWSER_HAR]),
      {
        result: { exitCode: 1 },
        stdout: `${BROWSER_TEXT}5 fixture(s): 4 passed, 1 failed, 0 not checked\n`,
        stderr: '',
      },
    );
  });

  it('gives the entries left out in the JSON report, with the base that decided', async () => {
    const run = await runCommand([
      'check',
      '--doc',
      'openapi.json',
      '--base-url',
      'https://meters.example.com/v2',
      '--format',
      'json',
      BROWSER_HAR,
    ]);
    const json = JSON.parse(run.stdout) as { summary: unknown; leftOut: unknown; fixtures: { source: string }[] };
    assert.deepEqual(
      { summary: json.summary, leftOut: json.leftOut, sources: json.fixtures.map((fixture) => fixture.source) },
      {
        summary: { fixtures: 5, passed: 4, failed: 1, notChecked: 0 },
        leftOut: {
          base: 'https://meters.example.com/v2',
          files: [
            {
              source: BROWSER_HAR,
              entries: 17,
              otherOrigin: 5,
              outsidePrefix: 5,
              notGet: 1,
              notModified: 1,
              noResponse: 0,
            },
          ],
        },
        sources: [6, 7, 8, 9, 15].map((index) => `${BROWSER_HAR}#${index}`),
      },
    );
  });

  it("takes the document's server URL as the scope without --base-url: another origin leaves every entry out (exit 2)", async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', BROWSER_HAR]), {
      result: { exitCode: 2 },
      stdout: '',
      stderr: `openapi-probe check: ${BROWSER_HAR}: no GET fixture found (${BROWSER_HAR}: 17 of 17 HAR entries left out: 17 on another origin than https://api.example.com); if the API was recorded elsewhere than https://api.example.com/v2, give that base with --base-url\n`,
    });
  });

  it('compares origins by scheme and port as well as host (RFC 6454, 4), and leaves out an entry with no response', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cli-test-'));
    const file = join(folder, 'origins.har');
    const get = (url: string) => ({
      request: { method: 'GET', url },
      response: { status: 200, content: { size: 2, mimeType: 'application/json', text: '[]' } },
    });
    writeFileSync(
      file,
      JSON.stringify({
        log: {
          version: '1.2',
          entries: [
            get('http://meters.example.com/v2/meters/mtr_1/readings'),
            get('https://meters.example.com:8443/v2/meters/mtr_1/readings'),
            get('https://METERS.example.com:443/v2/meters/mtr_1/readings'),
            // A fetch the page cancelled: Chrome records status 0 and `_error`, and no response.
            {
              request: { method: 'GET', url: 'https://meters.example.com/v2/meters/mtr_2' },
              response: {
                status: 0,
                statusText: '',
                content: { size: 0, mimeType: 'x-unknown' },
                _error: 'net::ERR_ABORTED',
              },
            },
          ],
        },
      }),
    );
    try {
      const run = await runCommand([
        'check',
        '--doc',
        'openapi.json',
        '--base-url',
        'https://meters.example.com/v2/',
        '--format',
        'json',
        file,
      ]);
      const json = JSON.parse(run.stdout) as { fixtures: { source: string }[]; leftOut: { files: unknown[] } };
      assert.deepEqual(
        [run.result, json.fixtures.map((fixture) => fixture.source), json.leftOut.files],
        [
          { exitCode: 0 },
          [`${file}#2`],
          [{ source: file, entries: 4, otherOrigin: 2, outsidePrefix: 0, notGet: 0, notModified: 0, noResponse: 1 }],
        ],
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("the document's server URL as a HAR's scope (issue 17)", () => {
  const ROWS = [
    {
      description: 'an absolute server URL with a variable (OpenAPI 3.1, Server Object: its default)',
      version: '3.1',
      doc: { servers: [{ url: 'https://{region}.example.com/v2/', variables: { region: { default: 'eu' } } }] },
      scope: { base: 'https://eu.example.com/v2', origin: 'https://eu.example.com', prefix: '/v2' },
    },
    {
      description: 'the first of several servers',
      version: '3.0',
      doc: { servers: [{ url: 'https://api.example.com' }, { url: 'https://staging.example.com/v2' }] },
      scope: { base: 'https://api.example.com', origin: 'https://api.example.com', prefix: '' },
    },
    {
      description: 'a relative server URL: the prefix only',
      version: '3.0',
      doc: { servers: [{ url: '/v2' }] },
      scope: { base: '/v2', prefix: '/v2' },
    },
    {
      description: 'Swagger 2.0 schemes, host and basePath',
      version: '2.0',
      doc: { schemes: ['http'], host: 'api.example.com:8080', basePath: '/v1' },
      scope: { base: 'http://api.example.com:8080/v1', origin: 'http://api.example.com:8080', prefix: '/v1' },
    },
    {
      description: 'a variable without a default: no scope',
      version: '3.0',
      doc: { servers: [{ url: 'https://{tenant}.example.com/v2' }] },
      scope: undefined,
    },
    { description: 'no servers: no scope', version: '3.0', doc: {}, scope: undefined },
  ] as const;
  for (const { description, version, doc, scope } of ROWS) {
    it(`reads ${description}`, () => {
      assert.deepEqual(documentScope({ version, doc } as unknown as LoadedDocument), scope);
    });
  }
});

describe('check --live on a prefixed base (issue 17)', () => {
  let standIn: StandIn;
  let folder: string;
  let har: string;
  before(async () => {
    standIn = await start({ key: 'live-key' });
    // The same session as if recorded against the stand-in: its origin in place of https://meters.example.com.
    folder = mkdtempSync(join(tmpdir(), 'cli-live-har-'));
    har = join(folder, 'dashboard.har');
    const origin = new URL(standIn.url).origin;
    writeFileSync(har, readFileSync(BROWSER_HAR, 'utf8').replaceAll('https://meters.example.com', origin));
  });
  after(async () => {
    await standIn.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('GETs each HAR path with the prefix once, not /v2/v2/...', async () => {
    const run = await runCommand(['check', '--doc', 'openapi.json', '--live', '--base-url', standIn.url, har], {
      API_KEY: 'live-key',
    });
    const origin = new URL(standIn.url).origin;
    assert.deepEqual(
      {
        result: run.result,
        stderr: run.stderr,
        requests: standIn.requests,
        drift: run.stdout.split('\n').filter((line) => line.trimStart().startsWith('drift:')),
        tail: run.stdout.replace(/\s+/g, ' ').slice(run.stdout.replace(/\s+/g, ' ').indexOf(`${har}: 12`)),
      },
      {
        result: { exitCode: 1 },
        stderr: '',
        requests: [
          { method: 'GET', path: '/v2/meters?status=active', authorized: true },
          { method: 'GET', path: '/v2/meters/mtr_1', authorized: true },
          { method: 'GET', path: '/v2/meters/mtr_1/readings', authorized: true },
          { method: 'GET', path: '/v2/meters/mtr_3', authorized: true },
          { method: 'GET', path: '/v2/meters/mtr_404', authorized: true },
        ],
        drift: [
          '  drift: live status 200',
          '  drift: no drift',
          '  drift: live status 200',
          '  drift: no drift',
          '  drift: live status 200',
          '  drift: no drift',
          '  drift: live status 200',
          '  drift: moved: $.status "retired" -> "inactive"',
          '  drift: live status 404',
          '  drift: no drift',
        ],
        tail: `${har}: 12 of 17 HAR entries left out: 5 on another origin than ${origin}, 5 outside /v2, 1 not a GET, 1 a 304 (no body of its own) 5 fixture(s): 4 passed, 1 failed, 0 not checked `,
      },
    );
  });
  it('gives drift as SARIF notes and a live GET that answered another status as an error result', async () => {
    const validate = sarifValidator();
    const sarif = async (env: Record<string, string>) => {
      const ran = await runCommand(
        ['check', '--doc', 'openapi.json', '--format', 'sarif', '--live', '--base-url', standIn.url, har],
        env,
      );
      const log = JSON.parse(ran.stdout) as { runs: { results: (SarifResult & { message: { text: string } })[] }[] };
      return {
        result: ran.result,
        valid: validate(log),
        live: log.runs[0]!.results.filter(
          (result) => result.ruleId === 'drift' || result.ruleId === 'liveNotCompared',
        ).map((result) => [result.ruleId, result.level, result.properties.fixture]),
        texts: log.runs[0]!.results.filter((result) => result.ruleId === 'drift').map((result) => result.message.text),
      };
    };
    assert.deepEqual(
      [await sarif({ API_KEY: 'live-key' }), await sarif({})],
      [
        {
          result: { exitCode: 1 },
          valid: true,
          live: [['drift', 'note', `${har}#9`]],
          texts: ['GET /v2/meters/mtr_3: drift: moved: $.status "retired" -> "inactive"'],
        },
        {
          result: { exitCode: 1 },
          valid: true,
          live: [6, 7, 8, 9, 15].map((index) => ['liveNotCompared', 'error', `${har}#${index}`]),
          texts: [],
        },
      ],
    );
  });
});

/** BROWSER_TEXT with the fixtures a baseline settles: `accepted` before each listed finding, #9 passing. */
function acceptedText(acceptWarnings: boolean): string {
  const text = BROWSER_TEXT.replace(
    'FAIL fixtures/check/har-browser/dashboard.har#9',
    'PASS fixtures/check/har-browser/dashboard.har#9',
  ).replace(
    '  error $.status is "retired", not one of the allowed values\n    ["active","inactive","removed"]',
    '  accepted error $.status is "retired", not one of the allowed values\n    ["active","inactive","removed"]',
  );
  if (!acceptWarnings) return text;
  // Longer by a word, the list's warnings wrap one word earlier.
  return text
    .replaceAll('  warning $.firmwareVersion', '  accepted warning $.firmwareVersion')
    .replace(
      /  warning \$\.meters\[(\d)\]\.firmwareVersion is present but not documented in the\n    schema/g,
      '  accepted warning $.meters[$1].firmwareVersion is present but not documented in\n    the schema',
    );
}

const UPDATED_BASELINE = `{
  "version": 1,
  "accepted": [
    {"operation":"GET /meters","path":"$.meters[0].firmwareVersion","kind":"undocumented"},
    {"operation":"GET /meters","path":"$.meters[1].firmwareVersion","kind":"undocumented"},
    {"operation":"GET /meters/{meterId}","path":"$.firmwareVersion","kind":"undocumented"},
    {"operation":"GET /meters/{meterId}","path":"$.status","kind":"enum","reason":"the vendor's enum lags behind (ticket 4411)"}
  ]
}
`;

describe('check --baseline (issue 17)', () => {
  let folder: string;
  let baseline: string;
  const args = (...more: string[]) => [
    'check',
    '--doc',
    'openapi.json',
    '--base-url',
    'https://meters.example.com/v2',
    '--baseline',
    baseline,
    ...more,
    BROWSER_HAR,
  ];
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'cli-baseline-'));
    baseline = join(folder, 'known.json');
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('accepts the findings it lists (exit 0) and reports an entry no finding matches as fixed', async () => {
    writeFileSync(
      baseline,
      JSON.stringify({
        version: 1,
        accepted: [
          {
            operation: 'GET /meters/{meterId}',
            path: '$.status',
            kind: 'enum',
            reason: "the vendor's enum lags behind (ticket 4411)",
          },
          { operation: 'GET /meters/{meterId}', path: '$.location', kind: 'wrongType' },
        ],
      }),
    );
    assert.deepEqual(await runCommand(args()), {
      result: { exitCode: 0 },
      stdout: `${acceptedText(false)}fixed: GET /meters/{meterId} $.location wrongType (in the baseline, no longer
    found)
5 fixture(s): 5 passed, 0 failed, 0 not checked; 1 finding(s) accepted by the
    baseline, 1 fixed
`,
      stderr: '',
    });
  });

  it('writes exactly the current findings with --update-baseline, sorted, reasons kept, the fixed one dropped', async () => {
    const run = await runCommand(args('--update-baseline'));
    assert.deepEqual(
      { ...run, file: readFileSync(baseline, 'utf8') },
      {
        result: { exitCode: 0 },
        stdout: `${acceptedText(true)}fixed: GET /meters/{meterId} $.location wrongType (in the baseline, no longer
    found)
5 fixture(s): 5 passed, 0 failed, 0 not checked; 5 finding(s) accepted by the
    baseline, 1 fixed
`,
        stderr: `openapi-probe check: wrote 4 finding(s) to the baseline ${baseline}\n`,
        file: UPDATED_BASELINE,
      },
    );
  });

  it('accepts every finding of the run against the updated baseline, with nothing fixed', async () => {
    assert.deepEqual(await runCommand(args()), {
      result: { exitCode: 0 },
      stdout: `${acceptedText(true)}5 fixture(s): 5 passed, 0 failed, 0 not checked; 5 finding(s) accepted by the
    baseline, 0 fixed
`,
      stderr: '',
    });
  });

  it('never accepts more than it lists: not another instance path, not a parent path (exit 1)', async () => {
    const file = join(folder, 'narrow.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        accepted: [
          { operation: 'GET /meters/{meterId}', path: '$.status', kind: 'enum' },
          { operation: 'GET /meters/{meterId}', path: '$.lastReading', kind: 'wrongType' },
          { operation: 'GET /meters/{meterId}/readings', path: '$.location', kind: 'wrongType' },
        ],
      }),
    );
    assert.deepEqual(
      await runCommand(['check', '--doc', 'openapi.json', '--baseline', file, 'fixtures/check/fail/meter-9.json']),
      {
        result: { exitCode: 1 },
        stdout: `FAIL fixtures/check/fail/meter-9.json: GET /meters/mtr_9 -> 200, GET
    /meters/{meterId} (getMeter)
  warning $.firmwareVersion is present but not documented in the schema
  error $.lastReading.kwh is string, expected number
  error $.location is null, expected object
  accepted error $.status is "retired", not one of the allowed values
    ["active","inactive","removed"]
fixed: GET /meters/{meterId} $.lastReading wrongType (in the baseline, no longer
    found)
fixed: GET /meters/{meterId}/readings $.location wrongType (in the baseline, no
    longer found)
1 fixture(s): 0 passed, 1 failed, 0 not checked; 1 finding(s) accepted by the
    baseline, 2 fixed
`,
        stderr: '',
      },
    );
  });

  it('makes a fixture whose body was not checked NOT CHECKED, never a pass, when its errors are accepted (exit 1)', async () => {
    const fixture = join(folder, 'status-500.json');
    const file = join(folder, 'status.json');
    writeFileSync(fixture, '{"method":"GET","path":"/meters/mtr_1","status":500,"body":{"code":"boom","message":"x"}}');
    writeFileSync(
      file,
      '{"version":1,"accepted":[{"operation":"GET /meters/{meterId}","path":"$","kind":"undocumentedStatus"}]}',
    );
    const run = await runCommand(['check', '--doc', 'openapi.json', '--format', 'json', '--baseline', file, fixture]);
    const json = JSON.parse(run.stdout) as { fixtures: { outcome: string }[]; summary: unknown };
    assert.deepEqual(
      [run.result, json.fixtures[0]!.outcome, json.summary],
      [{ exitCode: 1 }, 'unchecked', { fixtures: 1, passed: 0, failed: 0, notChecked: 1 }],
    );
  });

  it('gives accepted findings and the fixed entries in the JSON report', async () => {
    const file = join(folder, 'one.json');
    writeFileSync(
      file,
      '{"version":1,"accepted":[{"operation":"GET /meters/{meterId}","path":"$.location","kind":"wrongType"}]}',
    );
    const run = await runCommand([
      'check',
      '--doc',
      'openapi.json',
      '--format',
      'json',
      '--baseline',
      file,
      'fixtures/check/fail/meter-9.json',
    ]);
    const json = JSON.parse(run.stdout) as {
      fixtures: { outcome: string; findings: { path: string; accepted?: true }[] }[];
      baseline: unknown;
    };
    assert.deepEqual(
      {
        result: run.result,
        outcome: json.fixtures[0]!.outcome,
        accepted: json.fixtures[0]!.findings.filter((finding) => finding.accepted).map((finding) => finding.path),
        baseline: json.baseline,
      },
      {
        result: { exitCode: 1 },
        outcome: 'fail',
        accepted: ['$.location'],
        baseline: { file, accepted: 1, fixed: [] },
      },
    );
  });

  it('creates the file with --update-baseline when there is none', async () => {
    const file = join(folder, 'new.json');
    const run = await runCommand([
      'check',
      '--doc',
      'openapi.json',
      '--format',
      'json',
      '--baseline',
      file,
      '--update-baseline',
      'fixtures/check/pass',
    ]);
    assert.deepEqual(
      [run.result, run.stderr, readFileSync(file, 'utf8')],
      [
        { exitCode: 0 },
        `openapi-probe check: wrote 1 finding(s) to the baseline ${file}\n`,
        '{\n  "version": 1,\n  "accepted": [\n    {"operation":"GET /meters/{meterId}","path":"$.firmwareVersion","kind":"undocumented"}\n  ]\n}\n',
      ],
    );
  });

  it('exits 2 on a baseline that is not JSON, naming the file', async () => {
    const file = join(folder, 'broken.json');
    writeFileSync(file, '{"version": 1, "accepted": [');
    const run = await runCommand(['check', '--doc', 'openapi.json', '--baseline', file, 'fixtures/check/pass']);
    assert.deepEqual(
      [run.result, run.stdout, run.stderr.slice(0, run.stderr.indexOf(' ('))],
      [{ exitCode: 2 }, '', `openapi-probe check: ${file}: the baseline is not JSON`],
    );
  });

  const SHAPES = [
    {
      description: 'an array',
      text: '[]',
      message:
        'a baseline is {"version": 1, "accepted": [{"operation": "GET /path/{template}", "path": "$.field", "kind": "enum"}, ...]}',
    },
    {
      description: 'no version',
      text: '{"accepted": []}',
      message:
        '`version` must be 1, got nothing; a baseline is {"version": 1, "accepted": [{"operation": "GET /path/{template}", "path": "$.field", "kind": "enum"}, ...]}',
    },
    {
      description: 'accepted an object',
      text: '{"version": 1, "accepted": {}}',
      message:
        '`accepted` must be an array; a baseline is {"version": 1, "accepted": [{"operation": "GET /path/{template}", "path": "$.field", "kind": "enum"}, ...]}',
    },
    {
      description: 'an entry as a string',
      text: '{"version": 1, "accepted": ["GET /meters $.x enum"]}',
      message: 'accepted[0] must be an object {operation, path, kind}',
    },
    {
      description: 'an entry without kind',
      text: '{"version": 1, "accepted": [{"operation": "GET /meters", "path": "$.x"}]}',
      message: 'accepted[0].kind must be a non-empty string, got nothing',
    },
    {
      description: 'an operationId for operation',
      text: '{"version": 1, "accepted": [{"operation": "getMeter", "path": "$.x", "kind": "enum"}]}',
      message: 'accepted[0].operation must be METHOD and path template, e.g. "GET /meters/{meterId}", got "getMeter"',
    },
    {
      description: 'a misspelt field',
      text: '{"version": 1, "accepted": [{"operation": "GET /meters", "path": "$.x", "kind": "enum", "kinds": "x"}]}',
      message: 'accepted[0] has `kinds`; an entry holds only operation, path, kind and reason',
    },
  ];
  for (const { description, text, message } of SHAPES) {
    it(`exits 2 on a baseline of the wrong shape: ${description}`, async () => {
      const file = join(folder, 'shape.json');
      writeFileSync(file, text);
      assert.deepEqual(
        await runCommand(['check', '--doc', 'openapi.json', '--baseline', file, 'fixtures/check/fail']),
        { result: { exitCode: 2 }, stdout: '', stderr: `openapi-probe check: ${file}: ${message}\n` },
      );
    });
  }

  it('exits 2 on a baseline file that does not exist, saying how to write one', async () => {
    const file = join(folder, 'absent.json');
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', '--baseline', file, 'fixtures/check/pass']), {
      result: { exitCode: 2 },
      stdout: '',
      stderr: `openapi-probe check: ${file}: no such baseline file (write one with --update-baseline)\n`,
    });
  });

  it('exits 2 on --update-baseline without --baseline', async () => {
    assert.deepEqual(await runCommand(['check', '--doc', 'openapi.json', '--update-baseline', 'fixtures/check/pass']), {
      result: { exitCode: 2 },
      stdout: '',
      stderr: `openapi-probe: --update-baseline needs --baseline FILE: the file to write\n\n${USAGE}`,
    });
  });
});

/**
 * The SARIF 2.1.0 schema (fixtures/check/sarif-schema/, see SOURCE.md there) as ajv 8 reads it: the file is written
 * in draft-04, whose only keyword here that ajv's draft-07 spells otherwise is the root `id` (`$id` since draft-06).
 */
function sarifValidator() {
  const schema = JSON.parse(readFileSync('fixtures/check/sarif-schema/sarif-2.1.0-rtm.5.json', 'utf8')) as Record<
    string,
    unknown
  >;
  const { $schema: _draft, id, ...rest } = schema;
  // The `language` pattern of rtm.5 has a stray `]` that only a non-Unicode RegExp accepts; no log here has `language`.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  return ajv.compile({ ...rest, $id: id as string });
}

type SarifResult = {
  ruleId: string;
  level: string;
  locations: {
    physicalLocation: { artifactLocation: { uri: string } };
    logicalLocations?: { fullyQualifiedName: string }[];
  }[];
  partialFingerprints: { primaryLocationLineHash: string };
  suppressions?: unknown[];
  properties: { fixture: string };
};

describe('check --format sarif (issue 17)', () => {
  let folder: string;
  let baseline: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'cli-sarif-'));
    baseline = join(folder, 'known.json');
    writeFileSync(
      baseline,
      '{"version":1,"accepted":[{"operation":"GET /meters/{meterId}","path":"$.status","kind":"enum"}]}',
    );
  });
  after(() => rmSync(folder, { recursive: true, force: true }));
  const run = () =>
    runCommand([
      'check',
      '--doc',
      'openapi.json',
      '--format',
      'sarif',
      '--base-url',
      'https://meters.example.com/v2',
      '--baseline',
      baseline,
      'fixtures/check/fail/meter-9.json',
      BROWSER_HAR,
    ]);

  it('writes a log that the SARIF 2.1.0 schema accepts', async () => {
    const ran = await run();
    const validate = sarifValidator();
    const valid = validate(JSON.parse(ran.stdout));
    assert.deepEqual([ran.result, ran.stderr, valid, validate.errors], [{ exitCode: 1 }, '', true, null]);
    // The oracle is no rubber stamp: a level SARIF does not have is refused.
    const broken = JSON.parse(ran.stdout) as { runs: { results: { level: string }[] }[] };
    broken.runs[0]!.results[0]!.level = 'fatal';
    assert.deepEqual(
      [validate(broken), validate.errors?.map((error) => error.instancePath)],
      [false, ['/runs/0/results/0/level']],
    );
  });

  it('names each finding by rule and level, with the fixture file and the JSON Pointer of the rule', async () => {
    const log = JSON.parse((await run()).stdout) as { runs: { results: SarifResult[]; tool: unknown }[] };
    assert.deepEqual(
      log.runs[0]!.results.map((result) => [
        result.ruleId,
        result.level,
        result.locations[0]!.physicalLocation.artifactLocation.uri,
        result.properties.fixture,
        result.locations[0]!.logicalLocations?.[0]?.fullyQualifiedName,
        result.suppressions ? 'accepted' : 'new',
      ]),
      [
        [
          'undocumented',
          'warning',
          'fixtures/check/fail/meter-9.json',
          'fixtures/check/fail/meter-9.json',
          '#/components/schemas/Meter/properties',
          'new',
        ],
        [
          'wrongType',
          'error',
          'fixtures/check/fail/meter-9.json',
          'fixtures/check/fail/meter-9.json',
          '#/components/schemas/Meter/properties/lastReading/properties/kwh/type',
          'new',
        ],
        [
          'wrongType',
          'error',
          'fixtures/check/fail/meter-9.json',
          'fixtures/check/fail/meter-9.json',
          '#/components/schemas/Location/type',
          'new',
        ],
        [
          'enum',
          'error',
          'fixtures/check/fail/meter-9.json',
          'fixtures/check/fail/meter-9.json',
          '#/components/schemas/MeterStatus/enum',
          'accepted',
        ],
        ['undocumented', 'warning', BROWSER_HAR, `${BROWSER_HAR}#6`, '#/components/schemas/Meter/properties', 'new'],
        ['undocumented', 'warning', BROWSER_HAR, `${BROWSER_HAR}#6`, '#/components/schemas/Meter/properties', 'new'],
        ['undocumented', 'warning', BROWSER_HAR, `${BROWSER_HAR}#7`, '#/components/schemas/Meter/properties', 'new'],
        ['undocumented', 'warning', BROWSER_HAR, `${BROWSER_HAR}#9`, '#/components/schemas/Meter/properties', 'new'],
        ['enum', 'error', BROWSER_HAR, `${BROWSER_HAR}#9`, '#/components/schemas/MeterStatus/enum', 'accepted'],
      ],
    );
  });

  it('gives an accepted finding an external suppression, the document as a related location, and the rule', async () => {
    const log = JSON.parse((await run()).stdout) as {
      runs: { results: (SarifResult & Record<string, unknown>)[]; tool: { driver: { rules: unknown[] } } }[];
    };
    const { partialFingerprints: _fingerprint, ...result } = log.runs[0]!.results[3]!;
    assert.deepEqual(
      [result, log.runs[0]!.tool.driver.rules.find((rule) => (rule as { id: string }).id === 'enum')],
      [
        {
          ruleId: 'enum',
          level: 'error',
          message: {
            text: 'GET /meters/mtr_9 -> 200: $.status is "retired", not one of the allowed values ["active","inactive","removed"]',
          },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: 'fixtures/check/fail/meter-9.json' },
                region: { startLine: 1 },
              },
              logicalLocations: [{ fullyQualifiedName: '#/components/schemas/MeterStatus/enum' }],
            },
          ],
          relatedLocations: [
            {
              id: 0,
              physicalLocation: { artifactLocation: { uri: 'openapi.json' } },
              logicalLocations: [{ fullyQualifiedName: '#/components/schemas/MeterStatus/enum' }],
              message: { text: 'the rule in the OpenAPI document' },
            },
          ],
          suppressions: [{ kind: 'external', status: 'accepted', justification: `listed in the baseline ${baseline}` }],
          properties: {
            fixture: 'fixtures/check/fail/meter-9.json',
            request: 'GET /meters/mtr_9 -> 200',
            operation: 'GET /meters/{meterId}',
            instancePath: '$.status',
          },
        },
        { id: 'enum', shortDescription: { text: 'A value outside the values the document allows' } },
      ],
    );
  });

  it('gives each result its own fingerprint, the same from run to run', async () => {
    const fingerprints = async () =>
      (JSON.parse((await run()).stdout) as { runs: { results: SarifResult[] }[] }).runs[0]!.results.map(
        (result) => result.partialFingerprints.primaryLocationLineHash,
      );
    const first = await fingerprints();
    assert.deepEqual(
      [new Set(first).size, first.every((hash) => /^[0-9a-f]{32}:1$/.test(hash)), await fingerprints()],
      [9, true, first],
    );
  });

  it('reports a fixture that could not be checked as an error result, never as silence', async () => {
    const ran = await runCommand([
      'check',
      '--doc',
      'openapi.json',
      '--format',
      'sarif',
      'fixtures/check/har/session.har',
    ]);
    const log = JSON.parse(ran.stdout) as { runs: { results: SarifResult[]; properties: unknown }[] };
    const validate = sarifValidator();
    assert.deepEqual(
      {
        result: ran.result,
        valid: validate(log),
        unchecked: log.runs[0]!.results.filter((result) => result.ruleId === 'unchecked').map((result) => [
          result.level,
          result.properties.fixture,
          result.locations[0]!.logicalLocations,
        ]),
        properties: log.runs[0]!.properties,
      },
      {
        result: { exitCode: 1 },
        valid: true,
        unchecked: [['error', 'fixtures/check/har/session.har#3', undefined]],
        properties: {
          summary: '3 fixture(s): 2 passed, 0 failed, 1 not checked',
          leftOut: ['fixtures/check/har/session.har: 1 of 4 HAR entries left out: 1 not a GET'],
        },
      },
    );
  });
});
