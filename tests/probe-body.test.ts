/**
 * The probe's body, key and base (issues 6, 7 and 8): bodies decoded as the API sent them, the whole
 * body checked while a view that fits is returned, the key never recoverable from what comes back,
 * and the base URL's refusals. Every probe goes to a 127.0.0.1 server this file starts and stops;
 * cases from fixtures/cases are named by id.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { buildProbeUrl } from '../src/api/url-policy.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { escapeLineSeparators } from '../src/mcp/wire.ts';
import { readConfig } from '../src/runtime/config.ts';
import { redactor, displaySource } from '../src/redaction/redaction.ts';
import { serve } from '../src/transports/stdio.ts';
import { stringifyWith } from '../src/jobs/pipeline.ts';
import { isTextMediaType, scanJson } from '../src/api/body.ts';
import { measureJsonText } from '../src/shared/json-text.ts';
import { fitView, parseSelect } from '../src/api/body-view.ts';
import { hideSourceSecrets, WITHHELD_MARK } from '../src/redaction/redaction.ts';
import { publicSource } from '../src/runtime/log.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'sk-canary-7f3e9a1c0b5d';

function caseFile(id: string): any {
  return JSON.parse(readFileSync(`${HERE}fixtures/cases/${id}.json`, 'utf8'));
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A 127.0.0.1 API on port 0 answering from `routes` by path (query ignored), 404 otherwise. */
async function listen(
  routes: Record<string, Route>,
  fallback?: Route,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routes[path] ?? fallback;
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"no route"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const send =
  (status: number, headers: Record<string, string>, body: string | Buffer): Route =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** Calls the probe tool through the dispatcher (real fetch to the local API); returns the whole tool result. */
async function callProbe(env: Record<string, string>, args: Record<string, unknown>): Promise<any> {
  const handler = createHandler(readConfig({ API_KEY: KEY, ...env }, '/nonexistent'));
  const reply: any = await handler.handle({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'probe', arguments: args },
  });
  return reply.result;
}

describe('bodies as the API sent them (issue 7)', () => {
  let api: Awaited<ReturnType<typeof listen>>;
  const case39 = caseFile('39-probe-text-charset-decoding');
  const case40 = caseFile('40-probe-ndjson-is-text');
  const routes: Record<string, Route> = {};
  for (const response of [...case39.input.responses, ...case40.input.responses]) {
    routes[response.path] = send(
      response.status ?? 200,
      { 'content-type': response.content_type },
      response.body_hex ? Buffer.from(response.body_hex, 'hex') : response.body_text,
    );
  }
  before(async () => {
    const gzipped = gzipSync('{"id":"m1"}');
    api = await listen({
      ...routes,
      '/bom': send(
        200,
        { 'content-type': 'application/json' },
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"m1"}')]),
      ),
      '/octet-text': send(200, { 'content-type': 'application/octet-stream' }, 'plain words'),
      '/mislabelled': send(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"id":"m1"}'),
      '/truncated-gzip': send(
        200,
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        gzipped.subarray(0, 10),
      ),
      '/export-checked': send(200, { 'content-type': 'application/x-ndjson' }, '{"id":1}\n{"id":"two"}\nnot json\n'),
      '/meters/m1': send(
        200,
        { 'content-type': 'application/json' },
        caseFile('45-probe-duplicate-json-member-names').input.response.body_text,
      ),
      '/unparsable': send(200, { 'content-type': 'application/json' }, `{"n": ${KEY}}`),
      '/dup-key': send(200, { 'content-type': 'application/json' }, `{"id":"m1","id":"${KEY}"}`),
      '/utf16': send(200, { 'content-type': 'text/plain; charset=utf-16le' }, Buffer.from('Grüße €', 'utf16le')),
      '/klingon': send(200, { 'content-type': 'text/plain; charset=x-klingon' }, "qapla'"),
    });
  });
  after(() => api.close());

  it('case 39-probe-text-charset-decoding: decodes iso-8859-1 and windows-1252 text, and JSON as UTF-8 whatever its label', async () => {
    const results = [];
    for (const path of ['/latin1', '/cp1252', '/json-label']) {
      const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path });
      results.push([result.status, result.body, result.note]);
    }
    assert.deepEqual(results, [
      [200, 'café', undefined],
      [500, '<p>“quote” cafe é</p>', undefined],
      [200, { name: 'café' }, 'JSON is always UTF-8 (RFC 8259, 8.1); the charset label iso-8859-1 is ignored.'],
    ]);
  });

  it('case 39: decodes UTF-16 text, and falls back to UTF-8 with a note for an unknown charset', async () => {
    const results = [];
    for (const path of ['/utf16', '/klingon']) {
      const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path });
      results.push([result.body, result.note]);
    }
    assert.deepEqual(results, [
      ['Grüße €', undefined],
      ["qapla'", 'The charset "x-klingon" is unknown (WHATWG Encoding); decoded as UTF-8.'],
    ]);
  });

  it('case 39: skips a UTF-8 byte order mark before JSON and says so', async () => {
    const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path: '/bom' });
    assert.deepEqual(
      [result.body, result.note],
      [
        { id: 'm1' },
        'A UTF-8 byte order mark before the JSON text was skipped (RFC 8259, 8.1: senders must not add one; some parsers fail on it).',
      ],
    );
  });

  it('case 40-probe-ndjson-is-text: returns NDJSON and JSON Lines as text, and an octet stream as binary', async () => {
    const results = [];
    for (const path of ['/export', '/export2', '/blob']) {
      const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path });
      results.push([result.body, result.note]);
    }
    assert.deepEqual(results, [
      [
        '{"id":1}\n{"id":2}\n',
        'Body is newline-delimited JSON: shown as text; 2 record(s), each checked on its own as $[n] (n counts records from 0).',
      ],
      [
        '{"id":1}\n{"id":2}\n',
        'Body is newline-delimited JSON: shown as text; 2 record(s), each checked on its own as $[n] (n counts records from 0).',
      ],
      [null, 'Binary body (application/octet-stream), not shown.'],
    ]);
  });

  it('case 40: checks each NDJSON record against the schema, at $[n]', async () => {
    const { structuredContent: result } = await callProbe(
      { API_BASE_URL: api.url, OPENAPI_DOC: `${HERE}fixtures/documents/bodies.json` },
      { path: '/export-checked' },
    );
    assert.deepEqual(
      [
        result.validated,
        result.matchesContract,
        result.findings.map((finding: any) => [finding.kind, finding.path, finding.message]),
      ],
      [
        true,
        false,
        [
          ['wrongType', '$[1].id', 'is string, expected integer'],
          ['wrongType', '$[2]', 'line 3 is not JSON: unexpected character at line 1, column 1 (character 1)'],
        ],
      ],
    );
  });

  it('says when bytes labelled binary are valid UTF-8 text', async () => {
    const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path: '/octet-text' });
    assert.deepEqual(
      [result.body, result.note],
      [
        null,
        'Binary body (application/octet-stream), not shown; its 11 bytes are valid UTF-8 text, so the Content-Type may be wrong.',
      ],
    );
  });

  it("decides text or binary from the media type's structure", () => {
    const types = [
      'text/csv',
      'application/vnd.api+json',
      'image/svg+xml',
      'application/x-ndjson',
      'application/jsonl',
      'application/json-seq',
      'application/x-www-form-urlencoded',
      'application/javascript',
      'application/problem+json',
      'application/octet-stream; charset=utf-8',
      'application/octet-stream',
      'image/png',
      'application/pdf',
      'application/zip',
      '',
    ];
    assert.deepEqual(
      types.map((type) => isTextMediaType(type)),
      [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false],
    );
  });

  it('case 41-probe-mislabelled-content-encoding: keeps status and content type when gzip is claimed over plain bytes', async () => {
    const called = await callProbe({ API_BASE_URL: api.url }, { path: '/mislabelled' });
    const result = called.structuredContent;
    assert.deepEqual(
      [called.isError, result.status, result.contentType, result.body, result.validated, result.note],
      [
        undefined,
        200,
        'application/json',
        null,
        false,
        'The body could not be decoded: it is labelled Content-Encoding gzip, but decoding failed after 0 byte(s) (incorrect header check (Z_DATA_ERROR)). The API sent a wrong Content-Encoding header or a broken stream; the raw bytes cannot be recovered through the decoder, so the body is not shown or checked.',
      ],
    );
  });

  it('case 41: says a gzip stream may have been cut short when it decodes to nothing', async () => {
    const called = await callProbe({ API_BASE_URL: api.url }, { path: '/truncated-gzip' });
    const result = called.structuredContent;
    assert.deepEqual(
      [called.isError, result.status, result.contentType, result.body, result.note],
      [
        undefined,
        200,
        'application/json',
        '',
        'The body is empty after decoding its Content-Encoding gzip: the compressed stream may have been cut short.',
      ],
    );
  });

  it('case 45-probe-duplicate-json-member-names: reports $.reading twice as a warning with both values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-body-'));
    writeFileSync(
      join(dir, 'openapi.json'),
      JSON.stringify(caseFile('45-probe-duplicate-json-member-names').input.openapi),
    );
    const { structuredContent: result } = await callProbe(
      { API_BASE_URL: api.url, OPENAPI_DOC: join(dir, 'openapi.json') },
      { path: '/meters/m1' },
    );
    assert.deepEqual(
      [result.body, result.findings],
      [
        { id: 'm1', reading: 'n/a' },
        [
          {
            kind: 'wrongType',
            severity: 'error',
            path: '$.reading',
            schemaPath:
              '#/paths/~1meters~1{id}/get/responses/200/content/application~1json/schema/properties/reading/type',
            expected: 'integer',
            actual: 'string',
            message: 'is string, expected integer',
          },
          {
            kind: 'duplicateName',
            severity: 'warning',
            path: '$.reading',
            rule: 'RFC 8259, 4',
            values: ['42', '"n/a"'],
            message:
              'appears twice in one object (42, then "n/a"); JSON.parse keeps the last, other parsers keep the first or fail, so the value depends on the client',
          },
        ],
      ],
    );
  });

  it('finds duplicates, depth and changed numbers in one linear scan that no nesting overflows', () => {
    const deep = '['.repeat(200000) + '{"a":1,"a":2}' + ']'.repeat(200000);
    const scanned = scanJson(deep);
    assert.deepEqual(
      [scanned.error, scanned.depth, scanned.warnings.map((warning) => [warning.kind, warning.path.length])],
      [undefined, 200001, [['duplicateName', 1 + 3 * 200000 + 2]]],
    );
    assert.deepEqual(
      scanJson('{"a":[1,{"b":{"c":1,"c":[1,2]}}],"n":12345678901234567890}').warnings.map((warning) => [
        warning.kind,
        warning.path,
        warning.values,
      ]),
      [
        ['duplicateName', '$.a[1].b.c', ['1', '[1,2]']],
        ['inexactNumber', '$.n', ['12345678901234567890', '12345678901234567000']],
      ],
    );
  });

  it('issue 15: flags decimals and exponents a double changes, and not numbers it holds exactly', () => {
    const text =
      '[0.30000000000000000001,1e-400,9.223372036854775807e18,18446744073709551616,1.0,-0,0.30000000000000004,1e2]';
    assert.deepEqual(
      scanJson(text).warnings.map((warning) => [warning.path, warning.values]),
      [
        ['$[0]', ['0.30000000000000000001', '0.3']],
        ['$[1]', ['1e-400', '0']],
        ['$[2]', ['9.223372036854775807e18', '9223372036854776000']],
      ],
    );
  });

  it('says where JSON does not parse without quoting the body, so an echoed key is never shown (issue 8)', async () => {
    const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path: '/unparsable' });
    assert.deepEqual(
      [result.body, result.note],
      [
        '{"n": [redacted]}',
        'Content-Type says JSON but the body does not parse: unexpected character at line 1, column 7 (character 7).',
      ],
    );
  });

  it('quotes no key in a warning: values are redacted before they are shortened (issue 8)', async () => {
    const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path: '/dup-key' });
    assert.deepEqual(
      result.findings.map((finding: any) => finding.values),
      [['"m1"', '"[redacted]"']],
    );
  });
});

describe('check the whole body, return what fits (issue 6)', () => {
  let api: Awaited<ReturnType<typeof listen>>;
  // 400 readings, about 24 KB: past the default 16 KiB view, well within the 8 MiB check budget. Reading 350 is wrong.
  const items = Array.from({ length: 400 }, (_, index) => ({
    id: `r${index}`,
    value: index === 350 ? 'high' : index,
    label: 'x'.repeat(20),
  }));
  const page = JSON.stringify({ items });
  before(async () => {
    const wrong = JSON.stringify({ items: Array.from({ length: 300 }, (_, index) => ({ id: index, value: index })) });
    api = await listen({
      '/readings': (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url?.endsWith('?wrong') ? wrong : page);
      },
      '/long-text': send(200, { 'content-type': 'text/plain' }, 'z'.repeat(5000)),
    });
  });
  after(() => api.close());
  const env = () => ({ API_BASE_URL: api.url, OPENAPI_DOC: `${HERE}fixtures/documents/bodies.json` });

  it('reads PROBE_CHECK_MAX_BYTES (default 8 MiB) and refuses one below PROBE_MAX_BYTES', () => {
    assert.deepEqual(
      [
        readConfig({ API_BASE_URL: 'https://a.example' }, '/nonexistent').checkMaxBytes,
        readConfig({ API_BASE_URL: 'https://a.example', PROBE_CHECK_MAX_BYTES: '65536' }, '/nonexistent').checkMaxBytes,
      ],
      [8388608, 65536],
    );
    assert.throws(
      () =>
        readConfig(
          { API_BASE_URL: 'https://a.example', PROBE_MAX_BYTES: '4096', PROBE_CHECK_MAX_BYTES: '1024' },
          '/nonexistent',
        ),
      {
        message:
          'PROBE_CHECK_MAX_BYTES (1024) must be at least PROBE_MAX_BYTES (4096): the body is read and checked before a view of it is returned',
      },
    );
  });

  it('checks a body larger than PROBE_MAX_BYTES whole and returns a view of it that is valid JSON within the budget', async () => {
    const called = await callProbe(env(), { path: '/readings' });
    const result = called.structuredContent;
    const shown = result.body.items;
    assert.deepEqual(
      [
        result.bytes,
        result.truncated,
        result.validated,
        result.matchesContract,
        result.findings.map((finding: any) => [finding.kind, finding.path]),
        shown.length,
        shown[shown.length - 1],
        result.view,
        Buffer.byteLength(JSON.stringify(result.body)) <= 16384,
      ],
      [
        Buffer.byteLength(page),
        false,
        true,
        false,
        [['wrongType', '$.items[350].value']],
        101,
        '… 300 more items',
        {
          cut: true,
          bytes: Buffer.byteLength(JSON.stringify(result.body)),
          note: `Cut to fit PROBE_MAX_BYTES (16384 bytes): arrays, objects and strings end where marked with what was left out ("… N more items"). The body is ${Buffer.byteLength(page)} bytes; use \`select\` ("$.items[3]" or "/items/3") to see one part whole. Findings cover the whole body.`,
        },
        true,
      ],
    );
  });

  it('returns one part with select, as an instance path or a JSON Pointer, findings still of the whole body', async () => {
    const byPath = (await callProbe(env(), { path: '/readings', select: '$.items[350]' })).structuredContent;
    const byPointer = (await callProbe(env(), { path: '/readings', select: '/items/350' })).structuredContent;
    const expected = {
      body: items[350],
      view: {
        select: '$.items[350]',
        found: true,
        cut: false,
        bytes: Buffer.byteLength(JSON.stringify(items[350])),
        note: 'Only $.items[350] is shown. Findings cover the whole body.',
      },
      findings: 1,
    };
    assert.deepEqual(
      [byPath, byPointer].map((result) => ({ body: result.body, view: result.view, findings: result.findings.length })),
      [expected, expected],
    );
  });

  it('says what a select that matches nothing missed, and refuses one that does not parse before sending', async () => {
    const missing = (await callProbe(env(), { path: '/readings', select: '$.items[400]' })).structuredContent;
    const bad = await callProbe(env(), { path: '/readings', select: 'items[0' });
    assert.deepEqual(
      [missing.body, missing.view.note, bad.isError, bad.content[0].text],
      [
        null,
        '`select` $.items[400] matched nothing ($.items has 400 item(s); there is no $.items[400]); body is null. Findings cover the whole body.',
        true,
        'Refused, nothing was sent: `select` "items[0" is neither an instance path ("$.items[0]") nor a JSON Pointer ("/items/0").',
      ],
    );
  });

  it('cuts a body past PROBE_CHECK_MAX_BYTES unchecked, naming both settings', async () => {
    const called = await callProbe(
      { ...env(), PROBE_MAX_BYTES: '1024', PROBE_CHECK_MAX_BYTES: '2048' },
      { path: '/readings' },
    );
    const result = called.structuredContent;
    assert.equal(
      result.view.note,
      'Cut to fit PROBE_MAX_BYTES (1024 bytes): arrays, objects and strings end where marked with what was left out ("… N more items"). The body was not parsed (it is longer than PROBE_CHECK_MAX_BYTES), so `select` cannot pick a part of it.',
    );
    assert.deepEqual(
      [result.truncated, result.validated, Buffer.byteLength(JSON.stringify(result.body)) <= 1024, result.note],
      [
        true,
        false,
        true,
        `Body longer than 2048 bytes (PROBE_CHECK_MAX_BYTES); cut there and not parsed or checked. Probe a smaller resource (a page size or filter parameter), or raise PROBE_CHECK_MAX_BYTES; PROBE_MAX_BYTES (1024) only limits what is shown. Its end is withheld whatever it holds (marked ${WITHHELD_MARK}): at least its last ${redactor(KEY).withheld} characters, and at least ${redactor(KEY).withheldLetters} letters or digits, so a cut never shows the start of the API key.`,
      ],
    );
  });

  it('lists the first 200 findings of a whole body and counts them all', async () => {
    const { structuredContent: result } = await callProbe(env(), { path: '/readings?wrong' });
    assert.deepEqual(
      [result.findingCount, result.findings.length, result.findings[199].path, result.matchesContract],
      [300, 200, '$.items[199].id', false],
    );
  });

  it('cuts a long text body to PROBE_MAX_BYTES, marked with the characters left out', async () => {
    const { structuredContent: result } = await callProbe(
      { ...env(), PROBE_MAX_BYTES: '1000' },
      { path: '/long-text' },
    );
    assert.deepEqual(
      [result.body, result.view.cut, result.truncated],
      [`${'z'.repeat(960)}… 4040 more characters`, true, false],
    );
  });

  it('fits views by size alone: arrays, objects and strings cut with what was left out', () => {
    const view = fitView(
      {
        list: Array.from({ length: 50 }, (_, index) => index),
        text: 'y'.repeat(5000),
        map: Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`k${index}`, index])),
      },
      1200,
    );
    assert.deepEqual(view.value, {
      list: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '… 40 more items'],
      text: `${'y'.repeat(400)}… 4600 more characters`,
      map: {
        ...Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`k${index}`, index])),
        '…': '270 more members',
      },
    });
    assert.deepEqual(parseSelect("$.a['x-id'][2]"), { segments: ['a', 'x-id', 2], shown: "$.a['x-id'][2]" });
  });
});

describe('the key cannot be guessed (issue 8, case 49)', () => {
  let api: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    // Spring's 404: the request path reflected in a JSON body (case 49's input).
    api = await listen({}, (req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ timestamp: '2026-11-30T12:00:00.000+00:00', status: 404, error: 'Not Found', path: req.url }),
      );
    });
  });
  after(() => api.close());

  /** The body for `guess` placed so that it ends exactly at `end` bytes of the response, with the guess replaced by `#`s. */
  async function probeGuess(env: Record<string, string>, guess: string, end: number): Promise<string> {
    const before = '{"timestamp":"2026-11-30T12:00:00.000+00:00","status":404,"error":"Not Found","path":"/v2/spring/'
      .length;
    const pad = end - before - guess.length;
    const result = await callProbe(
      { API_BASE_URL: `${api.url}/v2`, ...env },
      { path: `/spring/${'A'.repeat(pad)}${guess}` },
    );
    return JSON.stringify([result.structuredContent.body, result.structuredContent.note, result.structuredContent.view])
      .split(guess)
      .join('#'.repeat(guess.length));
  }

  it('gives the same answer for a right and a wrong key prefix ending at the read budget', async () => {
    const env = { PROBE_MAX_BYTES: '4096', PROBE_CHECK_MAX_BYTES: '4096' };
    const answers = [];
    for (const end of [4096, 4096 - 50, 4096 - redactor(KEY).withheld, 4096 - redactor(KEY).withheld - 3]) {
      answers.push([await probeGuess(env, 'sk-can', end), await probeGuess(env, 'sk-cax', end)]);
    }
    assert.deepEqual(
      answers.map(([right, wrong]) => right === wrong),
      [true, true, true, true],
    );
  });

  it('gives the same answer for a right and a wrong key prefix ending where the view cuts', async () => {
    const env = { PROBE_MAX_BYTES: '2048' };
    const answers = [];
    for (const end of [2048, 2048 - 100, 2100])
      answers.push([await probeGuess(env, 'sk-canary-7', end), await probeGuess(env, 'sk-canary-x', end)]);
    assert.deepEqual(
      answers.map(([right, wrong]) => right === wrong),
      [true, true, true],
    );
  });

  it('an oracle attempt does not converge: no candidate for the next character is distinguishable', async (t) => {
    const env = { PROBE_MAX_BYTES: '4096', PROBE_CHECK_MAX_BYTES: '4096' };
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_';
    let probes = 0;
    let distinguished = 0;
    // The attacker knows "sk-can" and tries every next character at the budget and just before the withheld end.
    for (const end of [4096, 4096 - redactor(KEY).withheld + 1]) {
      const answers = new Set<string>();
      for (const character of alphabet) {
        answers.add(await probeGuess(env, `sk-can${character}`, end));
        probes++;
      }
      if (answers.size > 1) distinguished++;
    }
    t.diagnostic(`oracle attempt: ${probes} probes, ${distinguished} alignments told the right character apart`);
    assert.deepEqual([probes, distinguished], [76, 0]);
  });

  it('withholds the last characters of a cut text wherever the key is cut, in every form', () => {
    const redact = redactor(KEY);
    const forms = [
      KEY,
      [...Buffer.from(KEY)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join(''),
      [...KEY].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
      [...KEY].map((character) => `\\\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ];
    const leaks: string[] = [];
    for (const form of forms) {
      // Every cut short of the whole form: the key is cut by the budget (a whole key is redacted, below).
      for (let cut = 1; cut < form.length; cut++) {
        const text = `${'x'.repeat(300)}${form.slice(0, cut)}`;
        const dummy = `${'x'.repeat(300)}${'Z'.repeat(cut)}`;
        if (redact.tail(text) !== redact.tail(dummy)) leaks.push(`${form.slice(0, 12)} cut at ${cut}`);
      }
    }
    assert.deepEqual(
      [leaks, redact.tail(`${'x'.repeat(300)}${KEY}`)],
      [[], `${'x'.repeat(300 + '[redacted]'.length - redact.withheld)}${WITHHELD_MARK}`],
    );
  });

  it('redacts the whole key escaped twice (\\\\u002d) and percent-encoded twice (%252D)', () => {
    const twice = [...KEY].map((character) => `\\\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const percentTwice = KEY.replace(/-/g, '%252D');
    assert.deepEqual(redactor(KEY).text(`a ${twice} b ${percentTwice} c`), 'a [redacted] b [redacted] c');
  });
});

describe('key forms an API may echo (issue 8, B14)', () => {
  const redact = redactor(KEY);
  const percent = (text: string, upper: boolean) =>
    [...Buffer.from(text)].map((byte) => `%${upper ? byte.toString(16).toUpperCase() : byte.toString(16)}`).join('');
  const unicode = (text: string, slashes: number) =>
    [...text]
      .map((character) => `${'\\'.repeat(slashes)}u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join('');
  const base64 = (bytes: Buffer, url: boolean) => bytes.toString(url ? 'base64url' : 'base64');

  it('redacts the key in upper, lower and mixed case, in every promised form', () => {
    const mixed = [...KEY].map((character, index) => (index % 2 ? character.toUpperCase() : character)).join('');
    const spellings = [KEY.toUpperCase(), mixed];
    const forms = spellings.flatMap((spelled) => [
      spelled,
      percent(spelled, true),
      percent(spelled, false),
      percent(spelled, true).replace(/%/g, '%25'),
      unicode(spelled, 1),
      unicode(spelled, 2),
      unicode(spelled, 1).toUpperCase(),
    ]);
    assert.deepEqual(
      forms.map((form) => redact.text(`a ${form} b`)),
      forms.map(() => 'a [redacted] b'),
    );
  });

  it('redacts a megabyte of near-misses (the key without its last character, in mixed case) in linear time, not 2^n backtracking', () => {
    const nearMiss = [...KEY.slice(0, -1)]
      .map((character, index) => (index % 3 ? character : character.toUpperCase()))
      .join('');
    const text = `${nearMiss} `.repeat(Math.ceil(1_000_000 / KEY.length));
    const began = performance.now();
    const out = redact.text(text);
    assert.deepEqual([out === text, performance.now() - began < 1500], [true, true]);
  });

  it('redacts the key percent-encoded three times (%25252D)', () => {
    assert.equal(redact.text(`k=${percent(KEY, true).replace(/%/g, '%2525')}`), 'k=[redacted]');
  });

  it('redacts base64 and base64url of the key after any 0-5 bytes and before any 0-2 bytes, leaving only the characters that mix in other bytes', () => {
    const leftovers: string[] = [];
    for (let before = 0; before <= 5; before++) {
      for (let after = 0; after <= 2; after++) {
        for (const url of [false, true]) {
          const bytes = Buffer.concat([
            Buffer.from('user:'.slice(0, before)),
            Buffer.from(KEY),
            Buffer.from('!?'.slice(0, after)),
          ]);
          const redacted = redact.text(base64(bytes, url));
          // Characters outside the key's own bits: those of the other bytes, one mixed character each side, padding.
          const [head, tail] = redacted.split('[redacted]');
          if (
            tail === undefined ||
            head!.length > 1 + Math.ceil((8 * before) / 6) ||
            tail.length > 3 + Math.ceil((8 * after) / 6)
          )
            leftovers.push(`${before}/${after}/${url}: ${redacted}`);
        }
      }
    }
    assert.deepEqual(leftovers, []);
  });

  it('redacts a Basic authorization echo, and base64 percent-encoded or JSON-escaped', () => {
    const basic = `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`;
    const encoded = Buffer.from(`ab${KEY}`).toString('base64');
    assert.deepEqual(
      [redact.text(basic), redact.text(encodeURIComponent(encoded)), redact.text(encoded.replace(/\//g, '\\/'))].map(
        (text) => text.includes('[redacted]') && text.length < 30,
      ),
      [true, true, true],
    );
  });

  it('withholds enough of a cut text that no part of the longest base64 form of the key shows (each character \\\\\\\\uXXXX)', () => {
    const leaks: string[] = [];
    for (const before of [0, 1, 2]) {
      const plain = Buffer.from(`${'u:'.slice(0, before)}${KEY}`)
        .toString('base64')
        .slice(Math.ceil((8 * before) / 6), Math.floor((8 * (before + KEY.length)) / 6));
      const form = [...plain]
        .map((character) => `${'\\'.repeat(4)}u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join('');
      // Every cut short of the whole form (the whole form is redacted): only the padding is kept. (The cut's place
      // depends on how many letters and digits the escapes stand for, so it is compared with the padding, not with 'Z's.)
      for (let cut = 1; cut < form.length; cut++) {
        if (!/^x*\[…end withheld\]$/.test(redact.tail(`${'x'.repeat(400)}${form.slice(0, cut)}`)))
          leaks.push(`${before} cut at ${cut}`);
      }
    }
    assert.deepEqual(
      [
        leaks.length,
        redact.text(
          `${'x'.repeat(4)}${[...Buffer.from(KEY).toString('base64').slice(0, 29)].map((character) => `${'\\'.repeat(4)}u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}`,
        ),
      ],
      [0, 'xxxx[redacted]'],
    );
  });

  it('never returns the key upper-cased or base64-encoded in the body, location or content type of a probe', async () => {
    const encoded = Buffer.from(KEY).toString('base64');
    const api = await listen({
      '/v2/echo': send(
        200,
        { 'content-type': `application/json; x=${encoded}` },
        JSON.stringify({
          upper: KEY.toUpperCase(),
          auth: `Basic ${Buffer.from(`me:${KEY}`).toString('base64')}`,
          raw: encoded,
        }),
      ),
      '/v2/moved': send(302, { location: `http://127.0.0.1:1/?k=${KEY.toUpperCase()}&b=${encoded}` }, ''),
    });
    const results = [
      await callProbe({ API_BASE_URL: `${api.url}/v2` }, { path: '/echo' }),
      await callProbe({ API_BASE_URL: `${api.url}/v2` }, { path: '/moved' }),
    ];
    await api.close();
    const text = JSON.stringify(results);
    assert.deepEqual(
      [
        text.toLowerCase().includes(KEY.toLowerCase()),
        text.includes(encoded.slice(4, 16)),
        text.includes(Buffer.from(`me:${KEY}`).toString('base64').slice(8, 20)),
        results.map((result) => result.structuredContent.status),
      ],
      [false, false, false, [200, 302]],
    );
  });
});

describe("the document URL's secrets (issue 8)", () => {
  it('displaySource hides a password and the whole query', () => {
    assert.deepEqual(
      [
        'https://user:pa55word@docs.example/openapi.json?token=t0ken-abc&v=2',
        'http://docs.example/o.json',
        '/srv/openapi.json',
      ].map(displaySource),
      ['https://***@docs.example/openapi.json?***', 'http://docs.example/o.json', '/srv/openapi.json'],
    );
  });

  it('displaySource and publicSource hide a bare query name, a fragment and percent-encoded credentials (B12)', () => {
    const sources = [
      'http://docs.example/doc.json?t0ken123',
      'http://docs.example/doc.json#t0ken123',
      'http://us%65r:pa%355word@docs.example/doc.json?tok%65n=t0k%65n123',
      'http://:pa55@docs.example/d.json',
      'http://[bad/doc.json?t0ken123#frag',
    ];
    const expected = [
      'http://docs.example/doc.json?***',
      'http://docs.example/doc.json',
      'http://***@docs.example/doc.json?***',
      'http://***@docs.example/d.json',
      'http://[bad/doc.json?***',
    ];
    assert.deepEqual([sources.map(displaySource), sources.map(publicSource)], [expected, expected]);
  });

  it('hideSourceSecrets hides the query name, fragment and decoded credentials wherever a message quotes them (B12)', () => {
    const source = 'http://us%65r:pa%355word@docs.example/doc.json?t0ken123#fr4gment';
    assert.equal(
      hideSourceSecrets(
        'fetch http://user:pa55word@docs.example/doc.json?t0ken123 failed: t0ken123, fr4gment, pa%355word',
        source,
      ),
      'fetch http://***:***@docs.example/doc.json?*** failed: ***, ***, ***',
    );
  });

  it('never prints the password or token of OPENAPI_DOC in validationNote', async () => {
    const api = await listen({
      '/x': send(200, { 'content-type': 'application/json' }, '{}'),
      '/openapi.json': send(500, { 'content-type': 'text/plain' }, 'down'),
    });
    const doc = `${api.url.replace('http://', 'http://reader:pa55word@')}/openapi.json?token=t0ken-abc`;
    const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url, OPENAPI_DOC: doc }, { path: '/x' });
    await api.close();
    assert.deepEqual(
      [
        result.validated,
        /pa55word|t0ken-abc/.test(JSON.stringify(result)),
        result.validationNote.includes(`http://***@${api.url.slice('http://'.length)}/openapi.json?***`),
      ],
      [false, false, true],
    );
  });
});

describe('the base (issue 8)', () => {
  const base = new URL('https://api.example.com/v2?tenant=acme');
  const refusal = (path: string, query?: unknown) => {
    const decision = buildProbeUrl(base, path, query);
    return 'refusal' in decision ? decision.refusal : decision.url.href;
  };

  it('refuses "..;" segments that Tomcat and Spring normalise to ".."', () => {
    assert.deepEqual(
      ['/..;/admin', '/a/..;jsessionid=1/b', '/%2e%2e;x/admin'].map((path) => refusal(path)),
      [
        '`path` "/..;/admin" has the segment "..;", which Tomcat and Spring read as the dot segment ".." (a ";parameter" is dropped before normalising) and which would climb out of the API\'s base path; name the resource directly.',
        '`path` "/a/..;jsessionid=1/b" has the segment "..;jsessionid=1", which Tomcat and Spring read as the dot segment ".." (a ";parameter" is dropped before normalising) and which would climb out of the API\'s base path; name the resource directly.',
        '`path` "/%2e%2e;x/admin" has the segment "%2e%2e;x", which Tomcat and Spring read as the dot segment "%2e%2e" (a ";parameter" is dropped before normalising) and which would climb out of the API\'s base path; name the resource directly.',
      ],
    );
  });

  it('refuses percent signs encoded twice that decode to a dot segment, slash or backslash', () => {
    assert.deepEqual(
      ['/%252e%252e/admin', '/%25252E./admin', '/a%252fb', '/a%255Cb'].map((path) => refusal(path)),
      [
        '`path` "/%252e%252e/admin" has the segment "%252e%252e", a dot segment percent-encoded twice (%252e), which a backend that decodes twice reads as ".." and which would climb out of the API\'s base path; name the resource directly.',
        '`path` "/%25252E./admin" has the segment "%25252E.", a dot segment percent-encoded 3 times (%25252e), which a backend that decodes 3 times reads as ".." and which would climb out of the API\'s base path; name the resource directly.',
        '`path` "/a%252fb" holds a percent-encoded "%" that decodes to a slash or backslash (%252f, %255c) on a backend that decodes twice; it is refused. Name the resource directly.',
        '`path` "/a%255Cb" holds a percent-encoded "%" that decodes to a slash or backslash (%252f, %255c) on a backend that decodes twice; it is refused. Name the resource directly.',
      ],
    );
  });

  it('refuses overlong UTF-8 spellings of "." and "/"', () => {
    const reason = (path: string) =>
      `\`path\` ${JSON.stringify(path)} holds an overlong UTF-8 percent-encoding (such as %c0%ae for "." or %c0%af for "/"), which lenient decoders read as a dot or slash; it is refused. Percent-encode characters as their shortest UTF-8 bytes.`;
    assert.deepEqual(
      ['/%c0%ae%c0%ae/admin', '/a%C0%AFb', '/%e0%80%ae/x'].map((path) => refusal(path)),
      ['/%c0%ae%c0%ae/admin', '/a%C0%AFb', '/%e0%80%ae/x'].map(reason),
    );
  });

  it("keeps the base URL's query and lets neither the path nor query override it", () => {
    assert.deepEqual(
      [
        refusal('/meters?status=on', { limit: 5 }),
        refusal('/meters?tenant=evil'),
        refusal('/meters', { tenant: 'evil' }),
      ],
      [
        'https://api.example.com/v2/meters?tenant=acme&status=on&limit=5',
        '`path` "/meters?tenant=evil" sets the query parameter "tenant", which API_BASE_URL fixes; it cannot be overridden. Leave it out.',
        '`query.tenant` is fixed by API_BASE_URL and cannot be overridden; leave it out.',
      ],
    );
  });
});

describe('UTF-16 JSON (second attack round: the key between NULs)', () => {
  let api: Awaited<ReturnType<typeof listen>>;
  const json = JSON.stringify({ echo: KEY, n: 1 });
  const le = Buffer.from(json, 'utf16le');
  const be = Buffer.from(le).swap16();
  before(async () => {
    api = await listen({
      '/label-le': send(200, { 'content-type': 'application/json; charset=utf-16le' }, le),
      '/bom-le': send(200, { 'content-type': 'application/json' }, Buffer.concat([Buffer.from([0xff, 0xfe]), le])),
      '/bare-be': send(200, { 'content-type': 'application/json' }, be),
    });
  });
  after(async () => {
    await api.close();
  });

  it('decodes a UTF-16 JSON body by its label, byte order mark or zero bytes, parses it and redacts an echoed key', async () => {
    const results = [];
    for (const path of ['/label-le', '/bom-le', '/bare-be']) {
      const { structuredContent: result } = await callProbe({ API_BASE_URL: api.url }, { path });
      results.push([result.body, result.note]);
    }
    assert.deepEqual(results, [
      [
        { echo: '[redacted]', n: 1 },
        'JSON should be UTF-8 (RFC 8259, 8.1); this body is UTF-16LE (by its charset label) and was decoded as such.',
      ],
      [
        { echo: '[redacted]', n: 1 },
        'JSON should be UTF-8 (RFC 8259, 8.1); this body is UTF-16LE (by its byte order mark) and was decoded as such.',
      ],
      [
        { echo: '[redacted]', n: 1 },
        'JSON should be UTF-8 (RFC 8259, 8.1); this body is UTF-16BE (by its pattern of zero bytes) and was decoded as such.',
      ],
    ]);
  });
});

describe('document URL path parameters (second attack round)', () => {
  it('hides a ;name=value path parameter of OPENAPI_DOC in what it shows and in messages that quote it', () => {
    const source = 'http://docs.example/doc.json;token=t0ken123';
    assert.deepEqual(
      [displaySource(source), hideSourceSecrets(`cannot read ${source}: 404`, source).includes('t0ken123')],
      ['http://docs.example/doc.json;***', false],
    );
  });
});

describe('one serialization of the body per probe (issue 9)', () => {
  it('stringifyWith writes what JSON.stringify writes, the member given as text in place', () => {
    const object: Record<string, unknown> = {
      url: 'x',
      2: 'two',
      body: { b: [1, 'é\u2028', null], a: { c: true } },
      gone: undefined,
      fn: () => 1,
      ['__proto__']: 'own',
      last: 0,
    };
    assert.equal(stringifyWith(object, 'body', JSON.stringify(object.body)), JSON.stringify(object));
  });

  /** Serves one probe of `body` over the stdio transport; returns the line written and the response it holds. */
  async function servedProbe(env: Record<string, string>, body: string): Promise<{ line: string; response: any }> {
    const api = await listen({ '/thing': send(200, { 'content-type': 'application/json' }, body) });
    try {
      const config = readConfig({ API_BASE_URL: api.url, ...env }, '/nonexistent');
      const redact = redactor(config.apiKey);
      const input = new PassThrough();
      const output = new PassThrough();
      const served = serve(createHandler(config, { redact }), { input, output, redact, graceMs: 1000 });
      input.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'probe', arguments: { path: '/thing' } },
        }) + '\n',
      );
      await served;
      const line = String(output.read()).replace(/\n$/, '');
      return { line, response: JSON.parse(line) };
    } finally {
      await api.close();
    }
  }

  const body = JSON.stringify({ id: 'mtr_1', note: 'line\u2028separator', items: [1, 2.5, { deep: [null, true] }] });

  it("a probe's line is exactly JSON.stringify of its message, and its text block is the structured content's JSON", async () => {
    const { line, response } = await servedProbe({}, body);
    assert.deepEqual(
      [line, response.result.content[0].text, response.result.structuredContent.body],
      [
        escapeLineSeparators(JSON.stringify(response)),
        JSON.stringify(response.result.structuredContent),
        JSON.parse(body),
      ],
    );
  });

  it('the same holds with a key configured, whose redaction of the message copies it', async () => {
    const { line, response } = await servedProbe({ API_KEY: KEY }, body);
    assert.deepEqual(
      [line, response.result.content[0].text, response.result.structuredContent.body],
      [
        escapeLineSeparators(JSON.stringify(response)),
        JSON.stringify(response.result.structuredContent),
        JSON.parse(body),
      ],
    );
  });
});

describe('measureJsonText (issue 8, attack round 3 F9)', () => {
  it('counts the root, every array element and every object member, and the deepest nesting', () => {
    assert.deepEqual(
      ['1', '[]', '[ ]', '[{},{}]', '{"a":1,"b":[1,2]}', ' { "a" : [ [ ] ] } '].map((text) => measureJsonText(text)),
      [
        { depth: 0, values: 1 },
        { depth: 1, values: 1 },
        { depth: 1, values: 1 },
        { depth: 2, values: 3 },
        { depth: 2, values: 5 },
        { depth: 3, values: 3 },
      ],
    );
  });
  it('finds the top-level id, a string or a number, and no id of a nested member, a value or a top-level array', () => {
    assert.deepEqual(
      [
        '{"jsonrpc":"2.0","id":7,"x":[1]}',
        '{"params":{"id":9},"id":"a\\"b"}',
        ' { "id" : -1.5e3 }',
        '[{"id":1}]',
        '{"a":"id","id":null}',
      ].map((text) => measureJsonText(text).id),
      [7, 'a"b', -1500, undefined, undefined],
    );
  });
  it('reads brackets, commas and escaped quotes inside strings as text', () => {
    assert.deepEqual(measureJsonText('["[,{", "\\"]", "\\\\"]'), { depth: 1, values: 4 });
  });
});

describe('measureJsonText finds large arguments as text (issue 8, attack round 4 B7)', () => {
  const paths = [
    ['params', 'arguments', 'body'],
    ['params', 'arguments', 'fixture'],
  ];
  const found = (text: string) =>
    measureJsonText(text, paths).spans!.map(
      (span) => span && { text: text.slice(span.start, span.end), depth: span.depth },
    );

  it('gives the text and depth of an object or array at each member path', () => {
    assert.deepEqual(
      found(
        ' { "id" : 3, "params" : { "name": "x", "arguments" : { "body" : [ [ ] , { "a": "}" } ] , "fixture" : {} } } }',
      ),
      [
        { text: '[ [ ] , { "a": "}" } ]', depth: 2 },
        { text: '{}', depth: 1 },
      ],
    );
  });
  it('reads member names as JSON.parse does, escapes included', () => {
    assert.deepEqual(found('{"params":{"arguments":{"bo\\u0064y":[1]}}}'), [{ text: '[1]', depth: 1 }, undefined]);
  });
  it('keeps the last of duplicate names, and drops a span when a member on the way to it is repeated', () => {
    assert.deepEqual(
      [
        found('{"params":{"arguments":{"body":[1],"body":{"z":2}}}}'),
        found('{"params":{"arguments":{"body":[1]},"arguments":{"x":1}}}'),
        found('{"params":{"arguments":{"body":[1]}},"params":{}}'),
      ],
      [
        [{ text: '{"z":2}', depth: 1 }, undefined],
        [undefined, undefined],
        [undefined, undefined],
      ],
    );
  });
  it('gives no span for a string or number value, a path under an array, another depth or a top-level array', () => {
    assert.deepEqual(
      [
        '{"params":{"arguments":{"body":"[1]","fixture":5}}}',
        '{"params":[{"arguments":{"body":[1]}}]}',
        '{"x":{"params":{"arguments":{"body":[1]}}}}',
        '[{"params":{"arguments":{"body":[1]}}}]',
      ].map(found),
      [
        [undefined, undefined],
        [undefined, undefined],
        [undefined, undefined],
        [undefined, undefined],
      ],
    );
  });
  it('does not throw on text with more closers than openers (JSON.parse refuses it after)', () => {
    assert.deepEqual(measureJsonText('{"params":{"arguments":{"fixture":[1,}]}}}]]', paths), {
      depth: 4,
      values: 6,
      spans: [undefined, { start: 34, end: 38, depth: 1 }],
    });
  });
});
