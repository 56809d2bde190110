/**
 * Issue 6, the sampling part: the `probe_sample` tool, `field_presence` waiting for probes still in
 * flight, the one argument check every tool goes through (its own `inputSchema`, read by
 * `validate.ts`), and the size of `tools/list`. End to end over stdio against the stand-in API, plus
 * the official SDK client for the output schema, plus `analyzeSample` on its own.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';
import { TOOLS } from '../src/mcp/tools.ts';
import { analyzeSample, presentSample } from '../src/contract/sample.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { check } from '../validate.ts';
import { spawnServer, nodeArgsFor, withoutRequestId } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';
import { start as startStandIn, METERS } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const DOCUMENT = `${HERE}openapi.json`;
const KEY = 'sample-test-key-5d1f';

const UNDOCUMENTED_FIRMWARE = {
  kind: 'undocumented',
  severity: 'warning',
  path: '$.firmwareVersion',
  schemaPath: '#/components/schemas/Meter/properties',
  message: 'is present but not documented in the schema',
};
const INFERRED_NOTE =
  'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.';
/** inferShape of METERS.mtr_1: every field seen required, types as seen. */
const SHAPE_OF_MTR_1 = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    serial: { type: 'string' },
    status: { type: 'string' },
    installedAt: { type: 'string' },
    lastReading: {
      type: 'object',
      properties: { kwh: { type: 'number' }, takenAt: { type: 'string' }, source: { type: 'string' } },
      required: ['kwh', 'takenAt', 'source'],
      additionalProperties: false,
    },
    location: {
      type: 'object',
      properties: { site: { type: 'string' }, floor: { type: 'integer' } },
      required: ['site', 'floor'],
      additionalProperties: false,
    },
    firmwareVersion: { type: 'string' },
  },
  required: ['id', 'serial', 'status', 'installedAt', 'lastReading', 'location', 'firmwareVersion'],
  additionalProperties: false,
};

/** Presence rows of GET /meters/{meterId} when `seen` of `of` records have location and lastReading as an object. */
function meterFields(of: number, seen: number): Record<string, unknown>[] {
  const row = (path: string, required: boolean, documented: boolean, present: number, parents: number) => ({
    path,
    required,
    documented,
    present,
    of: parents,
    text: `present in ${present} of ${parents}`,
  });
  return [
    row('$.firmwareVersion', false, false, of, of),
    row('$.id', true, true, of, of),
    row('$.installedAt', true, true, of, of),
    row('$.lastReading', true, true, of, of),
    row('$.lastReading.kwh', true, true, seen, seen),
    row('$.lastReading.source', false, true, seen, seen),
    row('$.lastReading.takenAt', true, true, seen, seen),
    row('$.location', false, true, seen, of),
    row('$.location.floor', false, true, seen, seen),
    row('$.location.site', true, true, seen, seen),
    row('$.note', false, true, 0, of),
    row('$.serial', true, true, of, of),
    row('$.status', true, true, of, of),
  ];
}

function meterProbe(id: keyof typeof METERS): Record<string, unknown> {
  return {
    path: `/meters/${id}`,
    status: 200,
    bytes: Buffer.byteLength(JSON.stringify(METERS[id])),
    validated: true,
    matchesContract: true,
    findings: [UNDOCUMENTED_FIRMWARE],
  };
}

/** Resolves when the client has `count` stdout lines, or rejects after `ms`. */
async function linesAfter(client: StdioClient, count: number, ms = 10000): Promise<any[]> {
  const deadline = Date.now() + ms;
  while (client.stdoutLines.length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `expected ${count} lines, got ${client.stdoutLines.length}: ${client.stdoutLines.join('\n')} stderr: ${client.stderr()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return client.stdoutLines.map((line) => JSON.parse(line));
}

describe('presentSample (the summary and full details)', () => {
  it('leaves out fields under a parent no record had (0 of 0), in both details, and counts them in full', async () => {
    const loaded = await loadDocument(DOCUMENT);
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'listReadings')!;
    const analysis = analyzeSample(loaded, operation, [
      { path: '/meters/mtr_3/readings', status: 200, body: [] },
      { path: '/meters/mtr_4/readings', status: 200, body: [] },
    ]);
    const unseen = analysis.fields.filter((field) => field.of === 0).length;
    const summary = presentSample(analysis, 'summary');
    const full = presentSample(analysis, 'full');
    assert.deepEqual(
      [
        unseen > 0,
        summary,
        (full.fields as { of: number }[]).every((field) => field.of > 0),
        full.unseenFields === unseen,
      ],
      [
        true,
        {
          probes: ['/meters/mtr_3/readings', '/meters/mtr_4/readings'],
          inferredFromFirst: {
            from: '/meters/mtr_3/readings',
            note: INFERRED_NOTE,
            matched: 'Every later record fits the shape of /meters/mtr_3/readings.',
          },
          detail: `A summary: fields (each field with its count), inferredFromFirst.shape, the later records that break nothing are left out, and ${unseen} fields under parents no record had are not counted; detail: "full" gives them.`,
        },
        true,
        true,
      ],
    );
  });
});

describe('analyzeSample (contract.ts)', () => {
  it("counts presence over the records, lists undocumented fields and checks later records against the first one's shape", async () => {
    const loaded = await loadDocument(DOCUMENT);
    const operation = loaded.operations.find((candidate) => candidate.operationId === 'getMeter')!;
    const analysis = analyzeSample(loaded, operation, [
      { path: '/meters/mtr_1', status: 200, body: METERS.mtr_1 },
      { path: '/meters/mtr_3', status: 200, body: METERS.mtr_3 },
    ]);
    assert.deepEqual(analysis, {
      probes: ['/meters/mtr_1', '/meters/mtr_3'],
      fields: meterFields(2, 1),
      optionalFields: [
        '$.lastReading.source: present in 1 of 1',
        '$.location: present in 1 of 2',
        '$.location.floor: present in 1 of 1',
        '$.note: present in 0 of 2',
      ],
      undocumentedFields: ['$.firmwareVersion: present in 2 of 2'],
      inferredFromFirst: {
        from: '/meters/mtr_1',
        note: INFERRED_NOTE,
        shape: SHAPE_OF_MTR_1,
        against: [
          {
            path: '/meters/mtr_3',
            findings: [
              {
                kind: 'wrongType',
                severity: 'error',
                path: '$.lastReading',
                schemaPath: '#/properties/lastReading/type',
                expected: 'object',
                actual: 'null',
                message: 'is null, expected object',
              },
              {
                kind: 'missing',
                severity: 'error',
                path: '$.location',
                schemaPath: '#/required',
                message: 'is required but missing',
              },
            ],
          },
        ],
      },
    });
  });

  it('throws a RangeError for no records', async () => {
    const loaded = await loadDocument(DOCUMENT);
    assert.throws(() => analyzeSample(loaded, loaded.operations[0]!, []), {
      name: 'RangeError',
      message: 'analyzeSample needs at least one record',
    });
  });
});

describe('argument check in dispatch (every tool against its own inputSchema)', () => {
  let api: StandIn;
  let handler: ReturnType<typeof createHandler>;
  let id = 0;
  const call = async (name: string, args: unknown): Promise<any> =>
    withoutRequestId(
      (
        (await handler.handle({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name, arguments: args },
        })) as any
      ).result,
    );
  before(async () => {
    api = await startStandIn({ key: KEY });
    handler = createHandler(readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT }));
  });
  after(async () => {
    await api.close();
  });

  it("closes every tool's inputSchema with additionalProperties: false", () => {
    assert.deepEqual(
      TOOLS.map((tool) => [tool.name, tool.inputSchema.additionalProperties]),
      TOOLS.map((tool) => [tool.name, false]),
    );
  });

  it("declares probe's query values as string, number or boolean, the types buildProbeUrl sends", () => {
    assert.deepEqual(
      (TOOLS.find((tool) => tool.name === 'probe')!.inputSchema.properties as any).query.additionalProperties,
      { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    );
  });

  it('accepts number and boolean query values for probe and sends them as text', async () => {
    const called = await call('probe', { path: '/meters', query: { status: 'inactive', limit: 5, expand: false } });
    assert.deepEqual(
      [called.isError, called.structuredContent.url, api.requests.at(-1)],
      [
        undefined,
        `${api.url}/meters?status=inactive&limit=5&expand=false`,
        { method: 'GET', path: '/v2/meters?status=inactive&limit=5&expand=false', authorized: true },
      ],
    );
  });

  it('refuses an object as a query value, naming query.<name>, and sends nothing', async () => {
    const before = api.requests.length;
    const called = await call('probe', { path: '/meters', query: { status: { eq: 'active' } } });
    assert.deepEqual(
      [called, api.requests.length],
      [
        {
          content: [
            {
              type: 'text',
              text: 'Refused, nothing was sent: `query.status` must be a string, number or boolean, got an object (query: Query parameters, e.g. {"status":"active"}).',
            },
          ],
          isError: true,
        },
        before,
      ],
    );
  });

  it('names an unknown argument of field_presence with the same check', async () => {
    const called = await call('field_presence', { operation: 'getMeter', path: '/meters/mtr_1' });
    assert.deepEqual(called, {
      content: [{ type: 'text', text: 'Unknown argument for field_presence: path. It takes: operation, detail.' }],
      isError: true,
    });
  });

  it('refuses an empty operation for field_presence', async () => {
    const called = await call('field_presence', { operation: '' });
    assert.deepEqual(
      called.content[0].text,
      'Refused, nothing was sent: `operation` is 0 characters long, fewer than minLength 1 (operation: operationId, "METHOD /template" or a path probed).',
    );
  });

  it('refuses a probe_sample of one path (minItems 2) and sends nothing', async () => {
    const before = api.requests.length;
    const called = await call('probe_sample', { paths: ['/meters/mtr_1'] });
    assert.deepEqual(
      [called.content[0].text, called.isError, api.requests.length],
      [
        'Refused, nothing was sent: `paths` has 1 items, fewer than minItems 2 (paths: e.g. ["/meters/mtr_1", "/meters/mtr_2"]).',
        true,
        before,
      ],
    );
  });

  it('refuses a probe_sample of eleven paths (maxItems 10)', async () => {
    const called = await call('probe_sample', { paths: Array.from({ length: 11 }, (_, index) => `/meters/m${index}`) });
    assert.equal(
      called.content[0].text,
      'Refused, nothing was sent: `paths` has 11 items, more than maxItems 10 (paths: e.g. ["/meters/mtr_1", "/meters/mtr_2"]).',
    );
  });

  it('refuses the same path twice (uniqueItems)', async () => {
    const called = await call('probe_sample', { paths: ['/meters/mtr_1', '/meters/mtr_1'] });
    assert.equal(
      called.content[0].text,
      'Refused, nothing was sent: `paths` has item 1 equal to item 0, but uniqueItems is true (paths: e.g. ["/meters/mtr_1", "/meters/mtr_2"]).',
    );
  });

  it('refuses a describe_operation status that is no responses key, from the inputSchema pattern (issue 14)', async () => {
    const called = await call('describe_operation', { operation: 'getMeter', status: '2000' });
    assert.deepEqual(
      [called.isError, called.content[0].text],
      [
        true,
        'Refused, nothing was sent: `status` is "2000", which does not match the pattern "^([1-5]\\\\d\\\\d|[1-5][Xx][Xx]|[Dd][Ee][Ff][Aa][Uu][Ll][Tt])$" (status: a responses key as a string: "200", "4XX" or "default").',
      ],
    );
  });

  it('refuses a blank find_operation query, from the inputSchema pattern (issue 14)', async () => {
    const called = await call('find_operation', { query: '   ' });
    assert.deepEqual(
      [called.isError, called.content[0].text],
      [
        true,
        'Refused, nothing was sent: `query` is "   ", which does not match the pattern "\\\\S" (query: an intent ("list the stargazers of a repo"), a path or URL, an operationId, or a docs URL or anchor).',
      ],
    );
  });

  it('refuses a draft_request header name that is no HTTP token, from the inputSchema propertyNames, and sends nothing (issue 14)', async () => {
    const before = api.requests.length;
    const called = await call('draft_request', { method: 'POST', path: '/meters', headers: { 'X Bad': '1' } });
    assert.deepEqual(
      [called.isError, called.content[0].text, api.requests.length],
      [
        true,
        'Refused, nothing was sent: `headers[\'X Bad\']` has a name "X Bad" that the propertyNames schema rejects (headers: header names are HTTP tokens (RFC 9110, 5.1) and values are visible Latin-1 text, no control characters or line breaks (RFC 9110, 5.5), e.g. {"If-Match": "W/\\"1\\""}).',
        before,
      ],
    );
  });

  it('refuses a draft_request header value with a line break, from the inputSchema pattern (issue 14)', async () => {
    const called = await call('draft_request', {
      method: 'POST',
      path: '/meters',
      headers: { 'X-Note': 'a\r\nInjected: 1' },
    });
    assert.deepEqual(
      [called.isError, called.content[0].text],
      [
        true,
        'Refused, nothing was sent: `headers[\'X-Note\']` is "a\\r\\nInjected: 1", which does not match the pattern "^[\\\\x20-\\\\x7e\\\\xa0-\\\\xff]*$" (headers: header names are HTTP tokens (RFC 9110, 5.1) and values are visible Latin-1 text, no control characters or line breaks (RFC 9110, 5.5), e.g. {"If-Match": "W/\\"1\\""}).',
      ],
    );
  });

  it('refuses a draft_request header value with U+2028 or a C1 control, which no header can carry (RFC 9110, 5.5)', async () => {
    const replies = [];
    for (const value of ['a\u2028b', 'a\u0085b'])
      replies.push(await call('draft_request', { method: 'POST', path: '/meters', headers: { 'X-Note': value } }));
    assert.deepEqual(
      replies.map((reply) => [reply.isError, /does not match the pattern/.test(reply.content[0].text)]),
      [
        [true, true],
        [true, true],
      ],
    );
  });

  it('refuses a draft_request method that is no HTTP method word, from the inputSchema pattern (issue 14)', async () => {
    const called = await call('draft_request', { method: 'PO ST', path: '/meters' });
    assert.deepEqual(
      [called.isError, called.content[0].text],
      [
        true,
        'Refused, nothing was sent: `method` is "PO ST", which does not match the pattern "^[A-Za-z]{3,7}$" (method: an HTTP method such as "POST", "PATCH" or "DELETE").',
      ],
    );
  });

  it('names the element of paths that is not a string, and a missing paths with an unknown name in one reply', async () => {
    const replies = [
      await call('probe_sample', { paths: ['/meters/mtr_1', 7] }),
      await call('probe_sample', { path: '/meters/mtr_1' }),
    ];
    assert.deepEqual(
      replies.map((reply) => reply.content[0].text),
      [
        'Refused, nothing was sent: `paths[1]` must be a string, got an integer (paths: e.g. ["/meters/mtr_1", "/meters/mtr_2"]).',
        'Refused, nothing was sent: `paths` is required (paths: e.g. ["/meters/mtr_1", "/meters/mtr_2"]). Unknown argument for probe_sample: path. It takes: paths, query, detail.',
      ],
    );
  });
});

describe('tools/list size', () => {
  it('stays under 1,500 tokens (bytes / 4) with every tool in', async (t) => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: DOCUMENT }));
    const listed: any = await handler.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const bytes = Buffer.byteLength(JSON.stringify(listed.result));
    const tokens = Math.ceil(bytes / 4);
    t.diagnostic(`tools/list: ${listed.result.tools.length} tools, ${bytes} bytes, ~${tokens} tokens (bytes / 4)`);
    for (const tool of listed.result.tools)
      t.diagnostic(`  ${tool.name}: ${Buffer.byteLength(JSON.stringify(tool))} bytes`);
    assert.deepEqual([listed.result.tools.length, tokens < 1500], [TOOLS.length, true]);
  });
});

describe('probe_sample end to end (spawned server, stand-in API)', () => {
  let api: StandIn;
  let client: StdioClient;
  before(async () => {
    api = await startStandIn({ key: KEY });
    client = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT });
    await client.initialize();
  });
  after(async () => {
    await client.close();
    await api.close();
  });

  it('probes three meters one after another and sums up the optional and undocumented fields and what the first shape gets wrong', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', {
      paths: ['/meters/mtr_1', '/meters/mtr_2', '/meters/mtr_3'],
    });
    assert.deepEqual(called.structuredContent, {
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      probes: [meterProbe('mtr_1'), meterProbe('mtr_2'), meterProbe('mtr_3')],
      optionalFields: [
        '$.lastReading.source: present in 2 of 2',
        '$.location: present in 2 of 3',
        '$.location.floor: present in 2 of 2',
        '$.note: present in 0 of 3',
      ],
      undocumentedFields: ['$.firmwareVersion: present in 3 of 3'],
      inferredFromFirst: {
        from: '/meters/mtr_1',
        note: INFERRED_NOTE,
        against: [
          {
            path: '/meters/mtr_3',
            findings: [
              {
                kind: 'wrongType',
                severity: 'error',
                path: '$.lastReading',
                schemaPath: '#/properties/lastReading/type',
                expected: 'object',
                actual: 'null',
                message: 'is null, expected object',
              },
              {
                kind: 'missing',
                severity: 'error',
                path: '$.location',
                schemaPath: '#/required',
                message: 'is required but missing',
              },
            ],
          },
        ],
      },
      detail:
        'A summary: fields (each field with its count), inferredFromFirst.shape, the later records that break nothing are left out; detail: "full" gives them.',
    });
    assert.deepEqual(
      [called.isError, api.requests.slice(before).map((request) => request.path)],
      [undefined, ['/v2/meters/mtr_1', '/v2/meters/mtr_2', '/v2/meters/mtr_3']],
    );
  });

  it('with detail "full", also returns every field with its count and the inferred shape', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', {
      paths: ['/meters/mtr_1', '/meters/mtr_2', '/meters/mtr_3'],
      detail: 'full',
    });
    assert.deepEqual(called.structuredContent, {
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      probes: [meterProbe('mtr_1'), meterProbe('mtr_2'), meterProbe('mtr_3')],
      fields: meterFields(3, 2),
      optionalFields: [
        '$.lastReading.source: present in 2 of 2',
        '$.location: present in 2 of 3',
        '$.location.floor: present in 2 of 2',
        '$.note: present in 0 of 3',
      ],
      undocumentedFields: ['$.firmwareVersion: present in 3 of 3'],
      inferredFromFirst: {
        from: '/meters/mtr_1',
        note: INFERRED_NOTE,
        shape: SHAPE_OF_MTR_1,
        against: [
          { path: '/meters/mtr_2', findings: [] },
          {
            path: '/meters/mtr_3',
            findings: [
              {
                kind: 'wrongType',
                severity: 'error',
                path: '$.lastReading',
                schemaPath: '#/properties/lastReading/type',
                expected: 'object',
                actual: 'null',
                message: 'is null, expected object',
              },
              {
                kind: 'missing',
                severity: 'error',
                path: '$.location',
                schemaPath: '#/required',
                message: 'is required but missing',
              },
            ],
          },
        ],
      },
    });
    assert.deepEqual(
      [called.isError, JSON.parse(called.content[0].text), api.requests.slice(before).map((request) => request.path)],
      [undefined, called.structuredContent, ['/v2/meters/mtr_1', '/v2/meters/mtr_2', '/v2/meters/mtr_3']],
    );
  });

  it('returns a result that conforms to its own outputSchema (no error finding; fields it leaves open are warnings)', async () => {
    const called = await client.callToolUntraced('probe_sample', { paths: ['/meters/mtr_2', '/meters/mtr_3'] });
    const findings = check(
      {},
      TOOLS.find((tool) => tool.name === 'probe_sample')!.outputSchema,
      called.structuredContent,
    );
    assert.deepEqual(
      findings.filter((finding) => finding.severity === 'error'),
      [],
    );
  });

  it('adds the query to every path', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', {
      paths: ['/meters', '/meters?cursor=abc'],
      query: { status: 'inactive' },
    });
    assert.deepEqual(
      [
        called.structuredContent.probes.map((probe: { path: string }) => probe.path),
        api.requests.slice(before).map((request) => request.path),
      ],
      [
        ['/meters?status=inactive', '/meters?cursor=abc&status=inactive'],
        ['/v2/meters?status=inactive', '/v2/meters?cursor=abc&status=inactive'],
      ],
    );
  });

  it('refuses paths of different operations, grouped by operation, and sends nothing', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', {
      paths: ['/meters/mtr_1', '/meters', '/meters/mtr_2'],
    });
    assert.deepEqual(
      [called, api.requests.length],
      [
        {
          content: [
            {
              type: 'text',
              text: 'The paths belong to 2 different operations (GET /meters/{meterId}: /meters/mtr_1, /meters/mtr_2; GET /meters: /meters); nothing was sent. A sample compares records of one operation: call probe_sample once per operation.',
            },
          ],
          isError: true,
        },
        before,
      ],
    );
  });

  it('refuses a path no operation matches and sends nothing', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', { paths: ['/meters/mtr_1', '/gauges/g_1'] });
    assert.deepEqual(
      [called.isError, called.content[0].text, api.requests.length],
      [
        true,
        'No GET operation in the document matches /gauges/g_1. Nearest: GET /meters/{meterId}, GET /meters, GET /meters/{meterId}/readings; nothing was sent. Give paths of records of one documented GET operation.',
        before,
      ],
    );
  });

  it('refuses the whole sample when one path is refused, before any request', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('probe_sample', { paths: ['/meters/mtr_1', '/meters/../admin'] });
    assert.deepEqual(
      [called.isError, called.content[0].text, api.requests.length],
      [
        true,
        'Refused, nothing was sent: `paths[1]` "/meters/../admin" has the dot segment "..", which would climb out of the API\'s base path; name the resource directly.',
        before,
      ],
    );
  });

  it('compares only the 2xx records and says which were left out', async () => {
    const called = await client.callToolUntraced('probe_sample', { paths: ['/meters/mtr_1', '/meters/mtr_404'] });
    const structured = called.structuredContent;
    assert.deepEqual(
      [
        called.isError,
        structured.probes,
        structured.undocumentedFields,
        structured.inferredFromFirst.matched,
        structured.note,
      ],
      [
        undefined,
        [
          meterProbe('mtr_1'),
          {
            path: '/meters/mtr_404',
            status: 404,
            bytes: Buffer.byteLength(JSON.stringify({ code: 'not_found', message: 'No route /v2/meters/mtr_404.' })),
            validated: true,
            matchesContract: true,
          },
        ],
        ['$.firmwareVersion: present in 1 of 1'],
        'One record only: no later record to check against its shape.',
        '1 of 2 probes returned a complete JSON 2xx body and are compared; not compared: /meters/mtr_404 (status 404).',
      ],
    );
  });

  it("is an error with each probe's status when no record came back", async () => {
    const called = await client.callToolUntraced('probe_sample', { paths: ['/meters/mtr_8', '/meters/mtr_9'] });
    assert.deepEqual(
      [
        called.isError,
        called.structuredContent.probes.map((probe: { status: number }) => probe.status),
        called.structuredContent.note,
      ],
      [
        true,
        [404, 404],
        "None of the 2 probes returned a complete JSON 2xx body, so there is nothing to compare. Check the paths (ids of existing records) and each probe's status or error.",
      ],
    );
  });

  it('leaves its probes in the session for field_presence', async () => {
    const fresh = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT });
    try {
      await fresh.initialize();
      await fresh.callToolUntraced('probe_sample', { paths: ['/meters/mtr_3', '/meters/mtr_1'] });
      const presence = await fresh.callToolUntraced('field_presence', { operation: 'GET /meters/{meterId}' });
      assert.deepEqual(
        [presence.structuredContent.probes, presence.structuredContent.optionalFields],
        [
          ['/meters/mtr_3', '/meters/mtr_1'],
          [
            '$.lastReading.source: present in 1 of 1',
            '$.location: present in 1 of 2',
            '$.location.floor: present in 1 of 1',
            '$.note: present in 0 of 2',
          ],
        ],
      );
    } finally {
      await fresh.close();
    }
  });
});

describe('field_presence waits for probes in flight (issue 6)', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn({ key: KEY });
  });
  after(async () => {
    await api.close();
  });

  it('counts a probe written in the same stdin write, before the probe has answered', async () => {
    const client = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT });
    try {
      await client.initialize();
      const before = client.stdoutLines.length;
      client.child.stdin.write(
        '{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"probe","arguments":{"path":"/meters/mtr_2"}}}\n' +
          '{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"field_presence","arguments":{"operation":"getMeter"}}}\n',
      );
      const messages = (await linesAfter(client, before + 2)).slice(before);
      const presence = messages.find((message) => message.id === 'f').result;
      assert.deepEqual(
        [presence.isError, presence.structuredContent.probes, presence.structuredContent.undocumentedFields],
        [undefined, ['/meters/mtr_2'], ['$.firmwareVersion: present in 1 of 1']],
      );
    } finally {
      await client.close();
    }
  });

  it('counts every probe of a probe_sample written in the same stdin write', async () => {
    const client = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT });
    try {
      await client.initialize();
      const before = client.stdoutLines.length;
      client.child.stdin.write(
        '{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"probe_sample","arguments":{"paths":["/meters/mtr_1","/meters/mtr_2","/meters/mtr_3"]}}}\n' +
          '{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"field_presence","arguments":{"operation":"/meters/mtr_1"}}}\n',
      );
      const messages = (await linesAfter(client, before + 2)).slice(before);
      assert.deepEqual(messages.find((message) => message.id === 'f').result.structuredContent.probes, [
        '/meters/mtr_1',
        '/meters/mtr_2',
        '/meters/mtr_3',
      ]);
    } finally {
      await client.close();
    }
  });

  it('does not wait for a probe of another operation that is still running', async () => {
    // GET /meters hangs until cancelled; field_presence about GET /meters/{meterId} must answer without it.
    const hanging = (_url: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const handler = createHandler(
      readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT, PROBE_TIMEOUT_MS: '20000' }),
      { fetch: hanging as typeof fetch },
    );
    const probing = handler.handle({
      jsonrpc: '2.0',
      id: 'p',
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters' } },
    });
    const began = Date.now();
    const presence: any = await handler.handle({
      jsonrpc: '2.0',
      id: 'f',
      method: 'tools/call',
      params: { name: 'field_presence', arguments: { operation: 'getMeter' } },
    });
    const waited = Date.now() - began;
    await handler.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'p' } });
    assert.deepEqual(
      [withoutRequestId(presence.result), waited < 5000, await probing],
      [
        {
          content: [
            {
              type: 'text',
              text: 'No complete JSON 2xx response of GET /meters/{meterId} has been probed in this session. Probe it first (several records, e.g. different ids), or call probe_sample with their paths.',
            },
          ],
          isError: true,
        },
        true,
        undefined,
      ],
    );
  });

  it('stops waiting after PROBE_TIMEOUT_MS and says the running probe is not counted', async () => {
    // A fetch that never settles, even when aborted: only the wait's own bound can end it.
    const stuck = () => new Promise<Response>(() => {});
    const handler = createHandler(
      readConfig({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT, PROBE_TIMEOUT_MS: '300' }),
      { fetch: stuck as typeof fetch },
    );
    void handler.handle({
      jsonrpc: '2.0',
      id: 'p',
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters/mtr_1' } },
    });
    const began = Date.now();
    const presence: any = await handler.handle({
      jsonrpc: '2.0',
      id: 'f',
      method: 'tools/call',
      params: { name: 'field_presence', arguments: { operation: 'getMeter' } },
    });
    const waited = Date.now() - began;
    assert.deepEqual(
      [withoutRequestId(presence.result), waited >= 290 && waited < 3000],
      [
        {
          content: [
            {
              type: 'text',
              text: 'No complete JSON 2xx response of GET /meters/{meterId} has been probed in this session. 1 probe(s) of GET /meters/{meterId} still running after 300 ms (PROBE_TIMEOUT_MS) are not counted. Probe it first (several records, e.g. different ids), or call probe_sample with their paths.',
            },
          ],
          isError: true,
        },
        true,
      ],
    );
  });
});

describe('probe_sample through the official MCP SDK client', () => {
  it("passes the SDK's outputSchema validation", async () => {
    const api = await startStandIn({ key: KEY });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: nodeArgsFor(`${HERE}probe-server.ts`),
      env: { API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
      cwd: HERE,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'probe-sample-test', version: '0.0.0' });
    try {
      await client.connect(transport);
      await client.listTools(); // the SDK validates structuredContent only for tools it has listed
      const called = await client.callTool({
        name: 'probe_sample',
        arguments: { paths: ['/meters/mtr_1', '/meters/mtr_3'] },
      });
      assert.deepEqual(
        [called.isError, (called.structuredContent as { undocumentedFields: string[] }).undocumentedFields],
        [undefined, ['$.firmwareVersion: present in 2 of 2']],
      );
    } finally {
      await client.close();
      await api.close();
    }
  });
});

/**
 * The strictness of JSON Schema tooling that MCP hosts and the Inspector use: ajv in its default strict mode (one `type`
 * per schema unless `allowUnionTypes`, no unknown keywords, tuples stated fully), plus a rule of our own for hosts that
 * map schemas onto function-calling formats: every argument's schema, and every value schema below it, says a type (or
 * is an `anyOf` of typed branches), so no argument is a schema that constrains nothing.
 */
function portabilityProblems(name: string, schema: unknown): string[] {
  const problems: string[] = [];
  const ajv = new Ajv2020({
    logger: { log() {}, warn: (m: unknown) => problems.push(`${name}: ${String(m)}`), error() {} },
  });
  try {
    ajv.compile(schema as object);
  } catch (error) {
    problems.push(`${name}: ${(error as Error).message}`);
  }
  const typed = (node: any): boolean =>
    typeof node?.type === 'string' ||
    Array.isArray(node?.enum) ||
    (Array.isArray(node?.anyOf) && node.anyOf.every(typed));
  const walk = (node: any, at: string): void => {
    for (const [key, child] of Object.entries<any>(node?.properties ?? {})) {
      if (!typed(child)) problems.push(`${name}: ${at}/properties/${key} says no type`);
      walk(child, `${at}/properties/${key}`);
    }
    for (const key of ['items', 'additionalProperties'] as const)
      if (node?.[key] && typeof node[key] === 'object') {
        if (!typed(node[key])) problems.push(`${name}: ${at}/${key} says no type`);
        walk(node[key], `${at}/${key}`);
      }
  };
  walk(schema, '#');
  return problems;
}

describe('tools/list portability', () => {
  it('every inputSchema and outputSchema compiles under ajv strict mode and types every argument', async () => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: DOCUMENT }));
    const listed: any = await handler.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const problems = listed.result.tools.flatMap((tool: any) => [
      ...portabilityProblems(`${tool.name} inputSchema`, tool.inputSchema),
      ...(tool.outputSchema ? portabilityProblems(`${tool.name} outputSchema`, tool.outputSchema) : []),
    ]);
    assert.deepEqual(problems, []);
  });
});
