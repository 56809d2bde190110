/**
 * The contract tools end to end: `describe_operation`, `draft_request` and the probe's `requestProblems`
 * over stdio with a spawned `probe-server.ts` and the stand-in API, and their `structuredContent`
 * checked against each tool's `outputSchema` by the official MCP SDK client (MCP 2025-11-25, Tools).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { nodeArgsFor, spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';
import { boundedAnswer, inProcessContract, MAX_DIFF_ENTRIES } from '../src/jobs/jobs.ts';
import { MAX_ANSWER } from '../src/jobs/answers.ts';
import { readConfig } from '../src/runtime/config.ts';
import { redactor } from '../src/redaction/redaction.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'contract-tools-key-5f2a91';

describe('describe_operation, draft_request and requestProblems over stdio (spawned server, stand-in API)', () => {
  let api: StandIn;
  let client: StdioClient;
  before(async () => {
    api = await start({ key: KEY });
    client = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: `${HERE}openapi.json` });
    await client.initialize();
  });
  after(async () => {
    await client.close();
    await api.close();
  });

  it('reports a query value outside the enum and an unknown query name as requestProblems of a probe', async () => {
    const called = await client.callToolUntraced('probe', { path: '/meters?status=gone', query: { limit: '5' } });
    assert.deepEqual(called.structuredContent.requestProblems, [
      {
        in: 'query',
        name: 'status',
        kind: 'invalid',
        value: 'gone',
        problem: 'is "gone", not one of the allowed values ["active","inactive","removed"]',
      },
      {
        in: 'query',
        name: 'limit',
        kind: 'unknown',
        value: '5',
        problem: 'is not a query parameter of GET /meters; it takes status',
      },
    ]);
  });

  it('describes getMeter as TypeScript with the undocumented field the probes showed, counted', async () => {
    await client.callToolUntraced('probe', { path: '/meters/mtr_1' });
    await client.callToolUntraced('probe', { path: '/meters/mtr_3' });
    const called = await client.callToolUntraced('describe_operation', { operation: 'getMeter', as: 'typescript' });
    const typescript: string = called.structuredContent.typescript;
    assert.deepEqual(
      [called.isError, typescript.split('\n').slice(0, 5)],
      [
        undefined,
        [
          '// Seen in 2 probes this session, not in the document (not part of the type):',
          '// - $.firmwareVersion: undocumented, present in 2 of 2',
          '',
          'export type GetMeterResponse = Meter;',
          '',
        ],
      ],
    );
  });

  it('answers an unknown operation with an isError result naming the nearest templates', async () => {
    const called = await client.callToolUntraced('describe_operation', { operation: '/meterz' });
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: 'No GET operation matches /meterz. Nearest: GET /meters, GET /meters/{meterId}, GET /meters/{meterId}/readings.',
        },
      ],
      isError: true,
    });
  });

  it('drafts a POST without sending it: problems, and the envelope with the key as a placeholder', async () => {
    const before = api.requests.length;
    const called = await client.callToolUntraced('draft_request', {
      method: 'POST',
      path: '/meters/mtr_1/readings',
      body: { kwh: 12.5, taken_at: '2026-11-30T10:00:00Z' },
    });
    assert.deepEqual(
      [called.structuredContent, api.requests.length - before, JSON.stringify(called).includes(KEY)],
      [
        {
          matchesContract: false,
          operation: { method: 'POST', pathTemplate: '/meters/{meterId}/readings', operationId: 'submitReading' },
          problems: [
            { in: 'body', name: '$.takenAt', kind: 'missing', severity: 'error', message: 'is required but missing' },
            {
              in: 'body',
              name: '$.taken_at',
              kind: 'undocumented',
              severity: 'warning',
              message: 'is present but not documented in the schema; did you mean takenAt?',
            },
          ],
          request: {
            method: 'POST',
            url: `${api.url}/meters/mtr_1/readings`,
            headers: { 'Content-Type': 'application/json', Authorization: 'Bearer $API_KEY' },
            body: { kwh: 12.5, taken_at: '2026-11-30T10:00:00Z' },
            curl: `curl -g -X 'POST' '${api.url}/meters/mtr_1/readings' -H 'Content-Type: application/json' -H 'Authorization: Bearer '"$API_KEY" --data-raw '{"kwh":12.5,"taken_at":"2026-11-30T10:00:00Z"}'`,
          },
          note: 'Not sent. Run `request.curl` yourself after review, with API_KEY set in your shell.',
        },
        0,
        false,
      ],
    );
  });

  it('issue 8, round 4 B7: does not repeat a body over 16 KiB; curl reads it from request-body.json', async () => {
    const body = { kwh: 12.5, takenAt: '2026-11-30T10:00:00Z', pad: 'x'.repeat(20000) };
    const called = await client.callToolUntraced('draft_request', {
      method: 'POST',
      path: '/meters/mtr_1/readings',
      body,
    });
    assert.deepEqual(
      [called.structuredContent.request, called.structuredContent.note],
      [
        {
          method: 'POST',
          url: `${api.url}/meters/mtr_1/readings`,
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer $API_KEY' },
          bodyFile: 'request-body.json',
          bodyLength: JSON.stringify(body).length,
          curl: `curl -g -X 'POST' '${api.url}/meters/mtr_1/readings' -H 'Content-Type: application/json' -H 'Authorization: Bearer '"$API_KEY" --data-binary @request-body.json`,
        },
        `Not sent. The body (${JSON.stringify(body).length} characters) is not repeated here: save the body you drafted to request-body.json (a string body as its text, any other as its JSON), then run \`request.curl\` yourself after review, with API_KEY set in your shell.`,
      ],
    );
  });

  it('issue 8, round 4 B7: checks a body in a line over 64 KiB from its own text, as written (spaces and escapes)', async () => {
    // Written by hand with spaces and a \u escape: the worker parses the body's text; the answer is what the value gives.
    const pad = Array.from({ length: 9000 }, (_, index) => `{ "n" : ${index} }`).join(' , ');
    const line = `{"jsonrpc":"2.0","id":"held-1","method":"tools/call","params":{"name":"draft_request","arguments":{"method":"POST","path":"/meters/mtr_1/readings","body": { "kwh" : 12.5 , "taken\\u0041t" : "2026-11-30T10:00:00Z" , "pad" : [ ${pad} ] } }}}`;
    assert.equal(line.length > 64 * 1024, true);
    const answered = new Promise<Record<string, any>>((resolve) =>
      client.child.stdout.on('data', () => {
        const found = client.stdoutLines.find((text) => text.includes('"id":"held-1"'));
        if (found) resolve(JSON.parse(found));
      }),
    );
    client.child.stdin.write(line + '\n');
    const structured = (await answered).result.structuredContent;
    assert.deepEqual(
      [structured.matchesContract, structured.problems, structured.request.bodyLength],
      [
        false,
        // `taken\u0041t` is `takenAt`: only `pad` is not in the schema.
        [
          {
            in: 'body',
            name: '$.pad',
            kind: 'undocumented',
            severity: 'warning',
            message: 'is present but not documented in the schema',
          },
        ],
        JSON.stringify({
          kwh: 12.5,
          takenAt: '2026-11-30T10:00:00Z',
          pad: Array.from({ length: 9000 }, (_, index) => ({ n: index })),
        }).length,
      ],
    );
  });

  it("issue 8, round 4 B7: answers -32700 under the call's id when a body in a line over 64 KiB is not JSON", async () => {
    const line = `{"jsonrpc":"2.0","id":"held-2","method":"tools/call","params":{"name":"draft_request","arguments":{"method":"POST","path":"/meters/mtr_1/readings","body":{"kwh":tru,"pad":"${'x'.repeat(70000)}"}}}}`;
    const answered = new Promise<Record<string, any>>((resolve) =>
      client.child.stdout.on('data', () => {
        const found = client.stdoutLines.find((text) => text.includes('"id":"held-2"'));
        if (found) resolve(JSON.parse(found));
      }),
    );
    client.child.stdin.write(line + '\n');
    const answer = await answered;
    assert.deepEqual(
      [
        answer.error.code,
        answer.error.message.startsWith('Parse error: `body` is not valid JSON ('),
        answer.error.message.endsWith('); the message was not read.'),
      ],
      [-32700, true, true],
    );
  });

  it('refuses a draft whose path leaves the base URL, as the probe does', async () => {
    const called = await client.callToolUntraced('draft_request', { method: 'DELETE', path: '//evil.test/x' });
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: 'Not drafted: `path` "//evil.test/x" starts with "//", which names another host; give a path with a single leading "/", such as "/meters/mtr_1".',
        },
      ],
      isError: true,
    });
  });

  it("keeps each contract tool in tools/list near 150 tokens (bytes / 4) and prints the whole list's size", async (t) => {
    const listed = await client.request('tools/list');
    const bytes = Buffer.byteLength(JSON.stringify(listed.result));
    t.diagnostic(`tools/list: ${bytes} bytes, ~${Math.round(bytes / 4)} tokens, ${listed.result.tools.length} tools`);
    const mine = listed.result.tools.filter(
      (tool: { name: string }) => tool.name === 'describe_operation' || tool.name === 'draft_request',
    );
    const tokens = mine.map((tool: unknown) => Math.round(Buffer.byteLength(JSON.stringify(tool)) / 4));
    t.diagnostic(`describe_operation ~${tokens[0]} tokens, draft_request ~${tokens[1]} tokens`);
    assert.deepEqual(
      tokens.map((count: number) => count <= 250),
      [true, true],
    );
  });
});

describe('describe_operation and draft_request through the official SDK client (outputSchema validated)', () => {
  let api: StandIn;
  let client: Client;
  before(async () => {
    api = await start({ key: KEY });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: nodeArgsFor(`${HERE}probe-server.ts`),
      env: { API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: `${HERE}openapi.json` },
      cwd: HERE,
      stderr: 'pipe',
    });
    client = new Client({ name: 'contract-tools-test', version: '0.0.0' });
    await client.connect(transport);
    await client.listTools(); // the SDK validates structuredContent only once it has the output schemas
  });
  after(async () => {
    await client.close();
    await api.close();
  });

  it("returns describe_operation results (text and TypeScript) that pass the SDK's outputSchema check", async () => {
    const text = await client.callTool({
      name: 'describe_operation',
      arguments: { operation: 'PATCH /meters/{meterId}', part: 'request' },
    });
    const typed = await client.callTool({
      name: 'describe_operation',
      arguments: { operation: 'listReadings', as: 'typescript' },
    });
    assert.deepEqual(
      [
        (text.structuredContent as { operation: unknown }).operation,
        (typed.structuredContent as { typescript: string }).typescript,
      ],
      [
        {
          method: 'PATCH',
          pathTemplate: '/meters/{meterId}',
          operationId: 'updateMeter',
          summary: "Update a meter's note or location",
        },
        'export type ListReadingsResponse = Reading[];\n\nexport type Reading = {\n  kwh: number;\n  takenAt: string; // date-time\n  source?: "smart" | "manual" | "estimate";\n};\n',
      ],
    );
  });

  it("returns a draft_request result that passes the SDK's outputSchema check", async () => {
    const called = await client.callTool({
      name: 'draft_request',
      arguments: { method: 'PATCH', path: '/meters/mtr_1', body: { note: 'moved' } },
    });
    assert.deepEqual(
      [
        (called.structuredContent as { matchesContract: boolean }).matchesContract,
        (called.structuredContent as { problems: unknown[] }).problems,
      ],
      [true, []],
    );
  });
});

describe('compare job and the answer bound (contract-jobs.ts, issue 8)', () => {
  const contract = inProcessContract({
    config: readConfig({ API_BASE_URL: 'http://127.0.0.1:9/v2' }, '/nonexistent'),
    redact: redactor(undefined),
  });

  it('issue 8, F2: cuts each fixture list at its first 200 entries and gives the counts and a note', async () => {
    const fixture = {
      a: Object.fromEntries(Array.from({ length: 250 }, (_, index) => [`k${String(index).padStart(3, '0')}`, 0])),
      b: 1,
    };
    const answer = await contract.run('compare', {
      fixtureText: JSON.stringify(fixture),
      text: JSON.stringify({ a: {}, b: 2, c: 3 }),
    });
    assert.deepEqual(answer, {
      structured: {
        onlyLive: ['$.c'],
        onlyFixture: Array.from({ length: MAX_DIFF_ENTRIES }, (_, index) => `$.a.k${String(index).padStart(3, '0')}`),
        changed: [{ path: '$.b', fixture: 1, live: 2 }],
        same: false,
        onlyLiveCount: 1,
        onlyFixtureCount: 250,
        changedCount: 1,
        note: 'Each list shows its first 200 entries by instance path; the counts give them all. To see the rest, compare a record with fewer differences (a fixture of the same record closer to what the API sends now).',
      },
    });
  });

  it('issue 8, F2: answers an uncut comparison without counts', async () => {
    assert.deepEqual(await contract.run('compare', { fixtureText: '{"a":1}', text: '{"a":1}' }), {
      structured: { onlyLive: [], onlyFixture: [], changed: [], same: true },
    });
  });

  it('issue 8, F3: answers a job whose answer passes 1 MiB of JSON with a failure naming the limit and how to narrow the call', () => {
    // Every job now cuts its own lists and strings (compare: 1,000 characters a value), so the backstop is met directly.
    const answer = boundedAnswer('compare', {
      structured: {
        changed: [{ path: '$.a', fixture: 'x'.repeat(MAX_ANSWER), live: 'y' }],
        onlyFixture: [],
        onlyLive: [],
        same: false,
      },
    });
    assert.deepEqual(answer, {
      failure:
        'Not answered: the answer would be 1048672 characters of JSON, more than the limit of 1048576 (1 MiB) for one answer. Narrow the call: compare a smaller part of the record.',
    });
  });

  it('cuts a changed value of a million characters in a comparison to 1,000 characters, far inside the answer bound', async () => {
    const answer = await contract.run('compare', {
      fixtureText: JSON.stringify({ a: 'x'.repeat(MAX_ANSWER) }),
      text: '{"a":"y"}',
    });
    assert.deepEqual(
      'structured' in answer
        ? [
            (answer.structured.changed as { fixture: string }[])[0]!.fixture.length < 1100,
            JSON.stringify(answer).length < 2000,
          ]
        : answer,
      [true, true],
    );
  });
});

describe('a web of $refs that fans out, through the check worker (attack round 5: round 4 B3 still open)', () => {
  // 12 levels, each an allOf of 6 $refs to the next and one property: 6^12 paths through the web. The search for an
  // array's `items` walked every path (20 s): the worker's 5 s deadline stopped describe and field_presence.
  let api: Server;
  let client: StdioClient;
  let folder: string;
  before(async () => {
    const schemas: Record<string, unknown> = {};
    for (let level = 0; level < 12; level++) {
      schemas[`W${level}`] = {
        allOf: Array.from({ length: 6 }, () => ({ $ref: `#/components/schemas/W${level + 1}` })),
        properties: { [`p${level}`]: { $ref: `#/components/schemas/W${level + 1}` } },
      };
    }
    schemas.W12 = { type: 'object', required: ['leaf'] };
    folder = mkdtempSync(join(tmpdir(), 'web-'));
    writeFileSync(
      join(folder, 'web.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'web', version: '1' },
        components: { schemas },
        paths: {
          '/web': {
            get: {
              operationId: 'getWeb',
              responses: {
                200: {
                  description: 'ok',
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/W0' } } },
                },
              },
            },
          },
        },
      }),
    );
    api = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"other":1}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    client = spawnServer({
      API_BASE_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      OPENAPI_DOC: join(folder, 'web.json'),
    });
    await client.initialize();
    await client.callTool('probe', { path: '/web' });
  });
  after(async () => {
    await client.close();
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
    rmSync(folder, { recursive: true, force: true });
  });

  it('describes it as TypeScript with the remembered body, within the budget', async () => {
    const called = await client.callToolUntraced('describe_operation', { operation: 'getWeb', as: 'typescript' });
    assert.deepEqual(
      [called.isError, called.structuredContent.typescript.split('\n').slice(0, 4)],
      [
        undefined,
        [
          '// Seen in 1 probe this session, not in the document (not part of the type):',
          '// - $.other: undocumented, present in 1 of 1',
          '',
          'export type GetWebResponse = W0;',
        ],
      ],
    );
  });

  it('counts field presence over it, within the budget', async () => {
    const called = await client.callToolUntraced('field_presence', { operation: 'getWeb' });
    assert.deepEqual([called.isError, called.structuredContent.probes], [undefined, ['/web']]);
  });
});
