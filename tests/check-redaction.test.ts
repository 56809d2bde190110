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
import { longestFirst, recordedSecrets } from '../src/cli/fixtures.ts';
import { METERS } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const TOKEN = 'sk-live-0123456789abcdef';
const COOKIE = 'session-9f8e7d6c5b4a';
const NOTE_START = 'openapi-probe check: ';
const NOTE_END =
  ' credential value(s) recorded in the fixtures (Authorization, Cookie, Set-Cookie and API-key headers; *_key, token, secret and password fields, query parameters and form fields) are shown as [redacted]\n';

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
        [1, false, false, true, `${NOTE_START}4${NOTE_END}`],
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

/** A HAR 1.2 entry (HAR 1.2: request, response) with the members `check` needs and the ones given. */
function entry(request: Record<string, unknown>, response: Record<string, unknown> = {}) {
  return {
    request: { method: 'GET', headers: [], cookies: [], queryString: [], ...request },
    response: {
      status: 200,
      headers: [],
      cookies: [],
      content: { mimeType: 'application/json', text: '{}' },
      ...response,
    },
  };
}

describe('recordedSecrets reads every place a HAR 1.2 entry carries a credential (issue 18)', () => {
  const cases: { description: string; entry: unknown; values: string[] }[] = [
    {
      description: 'a credential-named pair of request.queryString, as recorded and percent-decoded',
      entry: entry({
        url: 'https://api.example.com/v2/meters',
        queryString: [{ name: 'api_key', value: 'qk%2F12345678' }],
      }),
      values: ['qk%2F12345678', 'qk/12345678'],
    },
    {
      description: "the query of request.url, percent-decoded and with + as a space, by the parameter's name",
      entry: entry({ url: 'https://api.example.com/v2/meters?access_token=at+live+7Hq2&page=2&status=active%2Fall' }),
      values: ['at live 7Hq2'],
    },
    {
      description: 'a credential-named field of request.postData.params',
      entry: entry({
        method: 'POST',
        url: 'https://api.example.com/v2/login',
        postData: {
          mimeType: 'application/x-www-form-urlencoded',
          params: [{ name: 'password', value: 'pw-4Rt7Yu1I' }],
        },
      }),
      values: ['pw-4Rt7Yu1I'],
    },
    {
      description: 'a credential-named field of a form-urlencoded request.postData.text',
      entry: entry({
        method: 'POST',
        url: 'https://api.example.com/v2/token',
        postData: {
          mimeType: 'application/x-www-form-urlencoded',
          text: 'grant_type=client_credentials&client_secret=cs%2B9Kp0Lq3Zx',
        },
      }),
      values: ['cs+9Kp0Lq3Zx'],
    },
    {
      description: 'a credential-named member of a JSON request.postData.text',
      entry: entry({
        method: 'POST',
        url: 'https://api.example.com/v2/token',
        postData: { mimeType: 'application/json', text: '{"user":"ann","password":"pw-json-5566"}' },
      }),
      values: ['pw-json-5566'],
    },
    {
      description: "each pair of a Cookie header, and request.cookies' values",
      entry: entry({
        url: 'https://api.example.com/v2/meters',
        headers: [{ name: 'cookie', value: 'theme=dark; sid=ck-1122334455' }],
        cookies: [{ name: 'sid', value: 'ck-1122334455' }],
      }),
      values: ['theme=dark; sid=ck-1122334455', 'ck-1122334455'],
    },
    {
      description: "Set-Cookie's cookie without its attributes, and response.cookies' values",
      entry: entry(
        { url: 'https://api.example.com/v2/login' },
        {
          headers: [{ name: 'Set-Cookie', value: 'sid=sc-99887766; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT' }],
          cookies: [{ name: 'refresh', value: 'rc-55443322' }],
        },
      ),
      values: ['sid=sc-99887766', 'sc-99887766', 'rc-55443322'],
    },
    {
      description: 'the token of a Location header or response.redirectURL, in its query or fragment',
      entry: entry(
        { url: 'https://api.example.com/v2/authorize' },
        {
          status: 302,
          headers: [{ name: 'Location', value: 'https://app.example.com/cb#access_token=lt-20261202ab&state=x' }],
          redirectURL: 'https://app.example.com/cb?code=1&id_token=it-20261202cd',
        },
      ),
      values: ['it-20261202cd', 'lt-20261202ab'],
    },
    {
      description: 'the token after an auth scheme, and the password of Basic credentials',
      entry: entry({
        url: 'https://api.example.com/v2/meters',
        headers: [{ name: 'Authorization', value: `Basic ${Buffer.from('ann:pw-basic-778899').toString('base64')}` }],
      }),
      values: [
        `Basic ${Buffer.from('ann:pw-basic-778899').toString('base64')}`,
        Buffer.from('ann:pw-basic-778899').toString('base64'),
        'ann:pw-basic-778899',
        'pw-basic-778899',
      ],
    },
  ];
  for (const { description, entry: recorded, values } of cases)
    it(`reads ${description}`, () => {
      assert.deepEqual(recordedSecrets({ log: { version: '1.2', entries: [recorded] } }), {
        values: [...values].sort(longestFirst),
        complete: true,
      });
    });

  it('reads a credential-named member below any depth of a recorded body', () => {
    const text = `${'['.repeat(10_000)}{"token":"deep-token-0987"}${']'.repeat(10_000)}`;
    assert.deepEqual(recordedSecrets(entry({ url: 'https://api.example.com/v2/meters' }, { content: { text } })), {
      values: ['deep-token-0987'],
      complete: true,
    });
  });

  it('says it is incomplete past 1,000 credential values, rather than keeping some', () => {
    const headers = Array.from({ length: 1001 }, (_, index) => ({ name: 'X-Api-Key', value: `key-${10_000 + index}` }));
    const found = recordedSecrets({ log: { entries: [entry({ url: 'https://api.example.com/', headers })] } });
    assert.deepEqual([found.values.length, found.complete], [1000, false]);
  });
});

describe('check keeps the query-string keys and form fields a HAR recorded out of every format (issue 18)', () => {
  // Each value holds characters that percent-encoding changes; COOKIE_VALUE is short enough to be matched in strict forms only.
  const QUERY_KEY = 'qk-9Zt4/Lm+8Wd=Xa71';
  const ACCESS_TOKEN = 'at live 7Hq2Rx9Pw4';
  const PASSWORD = 'pw!Gr3en/Tea+Pot';
  const CLIENT_SECRET = 'cs/Vb8Nm2Kl5Jh=';
  const JSON_SECRET = 'js+Tq6Wr0Ey3Ui';
  const COOKIE_VALUE = 'sid/Q7w9x';
  const SECRETS = [QUERY_KEY, ACCESS_TOKEN, PASSWORD, CLIENT_SECRET, JSON_SECRET, COOKIE_VALUE];
  /** The forms a value is echoed in: plain, percent-encoded (as a URL encodes it, and every byte), form-encoded, base64. */
  const forms = (value: string) => [
    value,
    encodeURIComponent(value),
    [...Buffer.from(value)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    new URLSearchParams({ x: value }).toString().slice(2),
    Buffer.from(value).toString('base64'),
  ];
  let folder: string;
  let har: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'openapi-probe-check-query-'));
    har = join(folder, 'login.har');
    // The meters' `status` (an enum in the document) echoes every value in every form: each finding quotes one.
    const meters = SECRETS.flatMap((secret) => forms(secret)).map((echo) => ({ ...METERS.mtr_1, status: echo }));
    writeFileSync(
      har,
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          entries: [
            entry(
              {
                method: 'POST',
                url: 'https://api.example.com/v2/login',
                postData: {
                  mimeType: 'application/x-www-form-urlencoded',
                  params: [{ name: 'password', value: PASSWORD }],
                  text: new URLSearchParams({
                    username: 'ann',
                    password: PASSWORD,
                    client_secret: CLIENT_SECRET,
                  }).toString(),
                },
              },
              { headers: [{ name: 'Set-Cookie', value: `sid=${COOKIE_VALUE}; Path=/; HttpOnly` }] },
            ),
            entry({
              method: 'POST',
              url: 'https://api.example.com/v2/token',
              postData: { mimeType: 'application/json', text: JSON.stringify({ client_secret: JSON_SECRET }) },
            }),
            entry(
              {
                url: `https://api.example.com/v2/meters?${new URLSearchParams({ api_key: QUERY_KEY, access_token: ACCESS_TOKEN })}`,
              },
              { content: { mimeType: 'application/json', text: JSON.stringify({ meters, nextCursor: null }) } },
            ),
          ],
        },
      }),
    );
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  for (const format of ['text', 'json', 'junit', 'markdown', 'sarif'])
    it(`shows none of them, plain, percent-encoded or base64, in the ${format} report`, async () => {
      const ran = await check(['--format', format, har]);
      const shown = SECRETS.flatMap((secret) => forms(secret)).filter(
        (form) => ran.stdout.includes(form) || ran.stderr.includes(form),
      );
      // 8 values: the six; the cookie as its pair `sid=...`; the password of postData.params also decoded (`+` as a space).
      assert.deepEqual(
        [ran.exitCode, shown, ran.stdout.includes('[redacted]'), ran.stderr.endsWith(`${NOTE_START}8${NOTE_END}`)],
        [1, [], true, true],
      );
    });
});

describe('check with many recorded credentials (issue 19 review: one redactor for them all)', () => {
  let folder: string;
  /** 200 distinct tokens, each the Authorization of one HAR entry and echoed in its body's `status`. */
  const tokens = Array.from(
    { length: 200 },
    (_, index) => `sk-live-${(BigInt(index + 1) * 0x9e3779b97f4a7c15n).toString(36)}`,
  );
  /** Every other token echoed percent-encoded, byte by byte, as an API that escapes what it echoes writes it. */
  const echoed = (token: string, index: number) =>
    index % 2 ? [...Buffer.from(token)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('') : token;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'openapi-probe-check-many-'));
    writeFileSync(
      join(folder, 'many.har'),
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          entries: tokens.map((token, index) =>
            entry(
              {
                url: `https://api.example.com/v2/meters/mtr_1?n=${index}`,
                headers: [{ name: 'Authorization', value: `Bearer ${token}` }],
              },
              {
                content: {
                  mimeType: 'application/json',
                  text: JSON.stringify({ ...METERS.mtr_1, status: echoed(token, index) }),
                },
              },
            ),
          ),
        },
      }),
    );
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  const ENUM_MESSAGE = 'is "[redacted]", not one of the allowed values ["active","inactive","removed"]';

  it('redacts each of 200 distinct recorded tokens from its finding, plain or percent-encoded', async () => {
    const ran = await check(['--format', 'json', join(folder, 'many.har')]);
    const fixture = (index: number) => ({
      source: `${join(folder, 'many.har')}#${index}`,
      request: `GET /v2/meters/mtr_1?n=${index}`,
      status: 200,
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      outcome: 'fail',
      // What the document says of mtr_1 with its `status` replaced: the undocumented field, and the enum.
      findings: [
        [
          'undocumented',
          'warning',
          '$.firmwareVersion',
          'Meter/properties',
          'is present but not documented in the schema',
        ],
        ['enum', 'error', '$.status', 'MeterStatus/enum', ENUM_MESSAGE],
      ].map(([kind, severity, path, rule, message]) => ({
        kind,
        severity,
        path,
        schemaPath: `#/components/schemas/${rule}`,
        ...(kind === 'enum' ? { allowed: ['active', 'inactive', 'removed'] } : {}),
        message,
      })),
    });
    assert.deepEqual(
      [ran.exitCode, JSON.parse(ran.stdout), ran.stderr],
      [
        1,
        {
          fixtures: tokens.map((_, index) => fixture(index)),
          summary: { fixtures: 200, passed: 0, failed: 200, notChecked: 0 },
        },
        `${NOTE_START}400${NOTE_END}`,
      ],
    );
  });
});
