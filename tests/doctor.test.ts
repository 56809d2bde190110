/**
 * `openapi-probe doctor` (and `--check-config`): the start-up checks said at once, against the stand-in API on
 * 127.0.0.1 and the shipped openapi.json (servers: https://api.example.com/v2).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { commandLine } from '../src/cli/command-line.ts';
import { baseSuggestion, doctorOperation, runDoctor } from '../src/cli/doctor.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'doctor-test-key';

/** Runs the command line with `args` and the environment, capturing stdout and stderr. */
async function run(args: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const ended = await commandLine(args, env, {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    stderrIsTerminal: false,
  });
  return { exitCode: 'exitCode' in ended ? ended.exitCode : undefined, out, err };
}

describe('openapi-probe doctor', () => {
  let api: StandIn;
  let origin: string;
  before(async () => {
    api = await start({ key: KEY });
    origin = new URL(api.url).origin;
  });
  after(() => api.close());

  it("says ready, exit 0, when the document loads, the base has its path and the key is taken at the document's first parameterless GET", async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${HERE}openapi.json`], { API_KEY: KEY });
    assert.deepEqual(ran, {
      exitCode: 0,
      out:
        `ok      configuration: base ${api.url}, key as Authorization: Bearer\n` +
        `ok      document: ${HERE}openapi.json: Meter Readings API 2.3.0 (OpenAPI 3.0.3), 5 operations\n` +
        `ok      GET ${api.url}/meters: 200 application/json\n` +
        'Ready: the server can work as configured.\n',
      err: '',
    });
  });

  it("names the document's server path when the base lacks it, exit 1", async () => {
    const ran = await run(['--check-config', '--base-url', origin, '--doc', `${HERE}openapi.json`], { API_KEY: KEY });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[2]],
      [
        1,
        `problem base path: the document serves its paths under /v2, and API_BASE_URL (${origin}/) has no path; probes of its operations will miss them: set API_BASE_URL to ${origin}/v2.`,
      ],
    );
  });

  it('says the API refused the key, never showing it, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${HERE}openapi.json`], {
      API_KEY: 'wrong-key-value',
    });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[2], ran.out.includes('wrong-key-value')],
      [
        1,
        `problem GET ${api.url}/meters: 401 application/json: the API refused the request; check API_KEY, and API_KEY_HEADER if the API takes the key in a header of its own.`,
        false,
      ],
    );
  });

  it('says when API_KEY starts with "Bearer ", so the header says Bearer twice, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${HERE}openapi.json`], {
      API_KEY: `Bearer ${KEY}`,
    });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[2]],
      [
        1,
        `problem GET ${api.url}/meters: 401 application/json: the API refused the request; API_KEY starts with "Bearer ", and the key is sent as Authorization: Bearer <API_KEY>, so the header says Bearer twice: set API_KEY to the key alone.`,
      ],
    );
  });

  it('says a document URL that answers 401 was fetched without API_KEY, and the fix, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${api.url}/openapi.json`], { API_KEY: KEY });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[1]],
      [
        1,
        `problem document: Cannot load OpenAPI document ${api.url}/openapi.json at #: HTTP 401 Unauthorized: the document is fetched without API_KEY, so a URL that needs the key cannot be read; download the document and set OPENAPI_DOC to its absolute path.`,
      ],
    );
  });

  it('says when API_KEY is an unexpanded variable reference, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${HERE}openapi.json`], { API_KEY: '${API_KEY}' });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[2]],
      [
        1,
        `problem GET ${api.url}/meters: 401 application/json: the API refused the request; API_KEY holds a variable reference ($NAME or \${NAME}), not a key: whatever started the server passed it on without expanding it; put the key itself in the env.`,
      ],
    );
  });

  it('names the absolute path a relative OPENAPI_DOC was read from, and the fix, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', 'no-such-folder/openapi.json'], { API_KEY: KEY });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n')[1]],
      [
        1,
        `problem document: Cannot load OpenAPI document ${process.cwd()}/no-such-folder/openapi.json at #: cannot read file: ENOENT: no such file or directory, stat '${process.cwd()}/no-such-folder/openapi.json'. OPENAPI_DOC "no-such-folder/openapi.json" is a relative path, read from the working directory ${process.cwd()} (an MCP host starts the server in a directory of its own choosing); set OPENAPI_DOC to an absolute path.`,
      ],
    );
  });

  it('does not blame the document for having no parameterless GET when it did not load', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', 'no-such-folder/openapi.json'], { API_KEY: KEY });
    assert.equal(
      ran.out.split('\n')[2],
      `note    GET ${api.url}: 404 application/json: the base itself has no resource here, which is common; with no document loaded there is no documented GET to try instead: fix the document above, then run doctor again.`,
    );
  });

  it('says a configuration error in one line, exit 1', async () => {
    const ran = await run(['doctor'], {});
    assert.deepEqual(ran, {
      exitCode: 1,
      out: "problem configuration: API_BASE_URL is not set. Set it to the API's base URL, e.g. API_BASE_URL=https://api.example.com/v2\n",
      err: '',
    });
  });
});

describe('doctor with nothing set', () => {
  it('names both the missing base URL and the missing document, exit 1', async () => {
    // Before: only the base URL, so a first run found the document missing on its second try.
    let out = '';
    const exitCode = await runDoctor(
      {},
      { out: (text) => void (out += text), err: () => {} },
      {
        cwd: `${HERE}fixtures/doctor`,
      },
    );
    assert.deepEqual(
      { exitCode, out },
      {
        exitCode: 1,
        out:
          "problem configuration: API_BASE_URL is not set. Set it to the API's base URL, e.g. API_BASE_URL=https://api.example.com/v2\n" +
          'problem document: OPENAPI_DOC is not set and there is no openapi.json in the working directory; probes will not be checked. Set OPENAPI_DOC to the absolute path or URL of the OpenAPI document.\n',
      },
    );
  });
});

describe("doctor's base-path check (issue 17)", () => {
  let api: StandIn;
  let nested: StandIn;
  before(async () => {
    api = await start({ key: KEY });
    nested = await start({ key: KEY, prefix: '/api/v2' });
  });
  after(async () => {
    await api.close();
    await nested.close();
  });

  it('calls a 404 at the first parameterless GET a problem, naming the URL and the base to try, exit 1', async () => {
    // The base ends in the document's /v2, so the path check passes; only the GET shows the API is not there.
    const origin = new URL(api.url).origin;
    const ran = await run(['doctor', '--base-url', `${origin}/api/v2`, '--doc', `${HERE}openapi.json`], {
      API_KEY: KEY,
    });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n').slice(2)],
      [
        1,
        [
          `problem GET ${origin}/api/v2/meters: 404 application/json: the API has no resource at the document's GET /meters (listMeters), so probes under this base will miss every operation: set API_BASE_URL to ${origin}/v2.`,
          'The server would start, but not work as configured: fix the problems above.',
          '',
        ],
      ],
    );
  });

  it("offers the document's server path at the base's origin, never a version appended to a version", async () => {
    const origin = new URL(api.url).origin;
    const ran = await run(['doctor', '--base-url', `${origin}/v3`, '--doc', `${HERE}openapi.json`], { API_KEY: KEY });
    assert.deepEqual(
      [ran.exitCode, ran.out.split('\n').slice(2, 4)],
      [
        1,
        [
          `problem base path: the document serves its paths under /v2, and API_BASE_URL (${origin}/v3) has the path /v3; probes of its operations will miss them: set API_BASE_URL to ${origin}/v2.`,
          `problem GET ${origin}/v3/meters: 404 application/json: the API has no resource at the document's GET /meters (listMeters), so probes under this base will miss every operation: fix the base path above.`,
        ],
      ],
    );
  });

  it("offers the server path under the base's own path second, when the base has a path of another kind", async () => {
    const origin = new URL(nested.url).origin;
    const wrong = await run(['doctor', '--base-url', `${origin}/api`, '--doc', `${HERE}openapi.json`], {
      API_KEY: KEY,
    });
    const right = await run(['doctor', '--base-url', `${origin}/api/v2`, '--doc', `${HERE}openapi.json`], {
      API_KEY: KEY,
    });
    assert.deepEqual(
      [wrong.exitCode, wrong.out.split('\n')[2], right.exitCode, right.out.split('\n').slice(2)],
      [
        1,
        `problem base path: the document serves its paths under /v2, and API_BASE_URL (${origin}/api) has the path /api; probes of its operations will miss them: set API_BASE_URL to ${origin}/v2, or ${origin}/api/v2.`,
        0,
        [`ok      GET ${origin}/api/v2/meters: 200 application/json`, 'Ready: the server can work as configured.', ''],
      ],
    );
  });
});

describe('what doctor GETs, and the bases it offers (issue 17)', () => {
  it('GETs the first GET operation in document order without a path parameter or a required query parameter', async () => {
    const loaded = await loadDocument(`${HERE}fixtures/doctor/first-get.json`);
    assert.equal(doctorOperation(loaded)?.operationId, 'listItems');
  });

  const rows: [base: string, serverPath: string, suggestion: string][] = [
    ['https://host/', '/v2', 'set API_BASE_URL to https://host/v2'],
    ['https://host/v3', '/v2', 'set API_BASE_URL to https://host/v2'],
    ['https://host/api/v1.1', '/v2', 'set API_BASE_URL to https://host/v2'],
    ['https://host/api', '/v2', 'set API_BASE_URL to https://host/v2, or https://host/api/v2'],
    ['https://host/api/v2', '/v2', 'set API_BASE_URL to https://host/v2'],
  ];
  for (const [base, serverPath, suggestion] of rows)
    it(`offers ${suggestion.slice('set API_BASE_URL to '.length)} for a base of ${base} and a server path of ${serverPath}`, () => {
      assert.equal(baseSuggestion(new URL(base), serverPath), suggestion);
    });
});

describe("a probe's 404 under a base without the document's server path", () => {
  let api: StandIn;
  before(async () => (api = await start({ key: KEY })));
  after(() => api.close());

  it('says which path the base lacks and the base to try', async () => {
    const origin = new URL(api.url).origin;
    const handler = createHandler(
      readConfig({ API_BASE_URL: origin, API_KEY: KEY, OPENAPI_DOC: `${HERE}openapi.json` }, '/nonexistent'),
    );
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters/mtr_1' } },
    });
    const result = reply.result.structuredContent;
    assert.deepEqual(
      [result.status, result.operation.operationId, result.note],
      [
        404,
        'getMeter',
        `The document serves its paths under /v2, which API_BASE_URL lacks: the 404 may be the base's, not the API's; try API_BASE_URL=${origin}/v2.`,
      ],
    );
  });
});

describe('doctor never repeats the key (issue 18)', () => {
  const PASTED = 'sk-live-Pasted0123456789';
  let api: StandIn;
  before(async () => (api = await start({ key: PASTED })));
  after(() => api.close());

  it('says a pasted header line is one, naming the header but not the key, exit 1', async () => {
    const ran = await run(['doctor', '--base-url', api.url, '--doc', `${HERE}openapi.json`], {
      API_KEY_HEADER: `X-Key: ${PASTED}`,
    });
    assert.deepEqual(ran, {
      exitCode: 1,
      out: 'problem configuration: API_KEY_HEADER must be an HTTP header name only, such as X-API-Key (RFC 9110, 5.1); the value given looks like a whole header line (name: value, not shown: it may hold a key). Set API_KEY_HEADER to the name before the colon (X-Key) and API_KEY to the value after it\n',
      err: '',
    });
  });

  it('hides a key that the base URL holds in its host, which URL parsing lowercased', async () => {
    const host = 'Key-In-Host-4F9A2C7E';
    const port = new URL(api.url).port;
    // The base's host is the key; the injected fetch takes every GET to the stand-in on 127.0.0.1.
    const toStandIn = ((url: string | URL, init?: RequestInit) =>
      fetch(String(url).replace(host.toLowerCase(), `127.0.0.1:${port}`), init)) as typeof fetch;
    let out = '';
    const exitCode = await runDoctor(
      { API_BASE_URL: `http://${host}/v2`, API_KEY: host, OPENAPI_DOC: `${HERE}openapi.json` },
      { out: (text) => void (out += text), err: () => {} },
      { fetch: toStandIn },
    );
    assert.deepEqual(
      [exitCode, out.split('\n')[0], out.toLowerCase().includes(host.toLowerCase())],
      [1, 'ok      configuration: base http://[redacted]/v2, key as Authorization: Bearer', false],
    );
  });

  for (const [name, value, expected] of [
    [
      'API_BASE_URL',
      `Bearer ${PASTED}`,
      'API_BASE_URL must be an absolute http(s) URL such as https://api.example.com/v2, got a value of 31 characters (not shown: it may hold a key) (it lacks a scheme such as https://)',
    ],
    [
      'API_BASE_URL',
      `${PASTED}:x`,
      'API_BASE_URL must use http or https, got the scheme a value of 25 characters (not shown: it may hold a key)',
    ],
    [
      'API_BASE_URL',
      `https://api.example.com/v2#${PASTED}`,
      'API_BASE_URL must not have a #fragment; remove the # and what follows it',
    ],
    [
      'API_KEY_HEADER',
      `X Key ${PASTED}`,
      'API_KEY_HEADER must be an HTTP header name only, such as X-API-Key (RFC 9110, 5.1); the value given holds a space, a quote or another character a header name cannot (it is not shown: it may hold a key)',
    ],
    [
      'LOG_LEVEL',
      PASTED,
      'LOG_LEVEL must be one of error, info, debug, got a value of 24 characters (not shown: it may hold a key)',
    ],
    [
      'PROBE_TIMEOUT_MS',
      PASTED,
      'PROBE_TIMEOUT_MS must be a whole number from 1 to 600000, got a value of 24 characters (not shown: it may hold a key)',
    ],
    [
      'PROBE_TIMEOUT_MS',
      '123456789012',
      'PROBE_TIMEOUT_MS must be a whole number from 1 to 600000, got a number above 600000',
    ],
  ] as const)
    it(`describes a bad ${name} by its shape, never repeating it: ${expected.slice(name.length + 1, name.length + 30)}...`, async () => {
      const ran = await run(['doctor'], { API_BASE_URL: api.url, [name]: value });
      assert.deepEqual(ran, { exitCode: 1, out: `problem configuration: ${expected}\n`, err: '' });
    });

  it('shows a short setting, which cannot hold a key, as it was given', async () => {
    const ran = await run(['doctor'], { API_BASE_URL: api.url, LOG_LEVEL: 'verbose' });
    assert.equal(ran.out, 'problem configuration: LOG_LEVEL must be one of error, info, debug, got `verbose`\n');
  });

  it('never repeats API_KEY typed as an operand or a format', async () => {
    const ran = await run(['check', '--format', PASTED, 'x.json'], { API_KEY: PASTED });
    const operand = await run([PASTED], {});
    assert.deepEqual(
      [ran.exitCode, ran.err.split('\n')[0], operand.exitCode, operand.err.split('\n')[0]],
      [
        2,
        'openapi-probe: --format must be one of text, json, junit, markdown, sarif, got a value of 24 characters (not shown: it may hold a key)',
        2,
        'openapi-probe: unknown command a value of 24 characters (not shown: it may hold a key)',
      ],
    );
  });
});
