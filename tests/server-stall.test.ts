/**
 * Issue 8, "Nothing stalls the server": the document lives in the check worker (check-worker.ts) and
 * every step that needs it runs there (src/jobs/jobs.ts), so `ping` is answered while hostile bodies are
 * decoded and checked, while a large document loads or reloads, while remembered bodies are described
 * and hostile drafts checked; a JSON-RPC line over MAX_LINE is dropped unread. A job that outlasts its
 * budget, a document load past its limit and a worker out of memory are answered with the reason, and
 * the next call works; every tool answers the same through the worker as on the thread.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  callTool,
  hostileDocument,
  largeDocument,
  measure,
  pingsWhile,
  quantile,
  server,
  startHostileApi,
} from '../scripts/ping-latency.ts';
import type { Server } from '../scripts/ping-latency.ts';
import { createCheckWorker } from '../src/jobs/check-worker.ts';
import type { BodyChecker } from '../src/jobs/check-worker.ts';
import { checkProbe } from '../src/jobs/pipeline.ts';
import type { CheckedProbe } from '../src/jobs/pipeline.ts';
import type { RawResponse } from '../src/api/probe.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { fetchResponse } from '../src/api/probe.ts';
import { MAX_LINE } from '../src/mcp/wire.ts';
import { readConfig } from '../src/runtime/config.ts';
import { createDocumentSource } from '../src/document/source.ts';
import { redactor } from '../src/redaction/redaction.ts';
import { withoutRequestId } from '../harness/stdio-client.ts';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));

/** Worst ping latency accepted, in ms: the goal is 100 ms; this bound stays robust on a loaded 2-core machine. */
const PING_BOUND_MS = 500;

describe('ping while hostile bodies are checked (spawned server, hostile API on 127.0.0.1)', () => {
  let api: { url: string; close(): Promise<void> };
  let folder: string;
  let probeServer: Server;

  before(async () => {
    api = await startHostileApi();
    folder = mkdtempSync(join(tmpdir(), 'server-stall-'));
    writeFileSync(join(folder, 'openapi.json'), JSON.stringify(hostileDocument()));
    probeServer = server(
      { file: `${HERE}probe-server.ts`, node: process.execPath },
      { API_BASE_URL: api.url, OPENAPI_DOC: join(folder, 'openapi.json') },
    );
    probeServer.send({ id: 'warm', method: 'ping' });
    await probeServer.answer('warm');
    // The first probe waits for the worker and its document; from here on every body is checked there.
    await measure(probeServer, '/list-small', 1);
  });

  after(async () => {
    await probeServer.close();
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Probes `path` twice with a ping every 5 ms; prints the figures; returns the worst latency and the last result. */
  async function pingsDuring(path: string): Promise<{ worst: number; last: Record<string, any> }> {
    const { pings, probes, last } = await measure(probeServer, path, 2);
    const worst = Math.max(...pings);
    console.log(
      `# ${path}: ${pings.length} pings, p99 ${quantile(pings, 0.99).toFixed(1)} ms, worst ${worst.toFixed(1)} ms; probes ${probes.map((took) => took.toFixed(0)).join(', ')} ms`,
    );
    return { worst, last };
  }

  test('case 50: ping is answered while the pattern ^(a+)+$ meets 34 a and !', async () => {
    const { worst, last } = await pingsDuring('/pattern');
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    assert.deepEqual(
      {
        validated: last.validated,
        findings: last.findings.map((finding: { kind: string; path: string }) => [finding.kind, finding.path]),
      },
      { validated: true, findings: [['constraint', '$.code']] },
    );
  });

  test('ping is answered while 40 levels of anyOf [S, S] are checked', async () => {
    const { worst, last } = await pingsDuring('/any-of');
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    assert.deepEqual({ status: last.status, body: last.body }, { status: 200, body: 1 });
  });

  test('ping is answered while an 8 MB JSON list is parsed, scanned, redacted and checked', async () => {
    const { worst, last } = await pingsDuring('/list-large');
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    assert.deepEqual(
      { status: last.status, bytes: last.bytes, truncated: last.truncated },
      { status: 200, bytes: 8000041, truncated: false },
    );
  });

  test('ping is answered while 8 MB of nested objects with duplicate names are checked', async () => {
    const { worst, last } = await pingsDuring('/nested');
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    assert.deepEqual(
      { status: last.status, bytes: last.bytes, findingCount: last.findingCount },
      { status: 200, bytes: 7999691, findingCount: 9636 },
    );
  });

  test('issue 8, F2: ping is answered while a fixture of 20,000 fields is compared, and the reply lists 200 of them', async () => {
    const fixture = Object.fromEntries(
      Array.from({ length: 20000 }, (_, index) => [`f${String(index).padStart(5, '0')}`, 0]),
    );
    const measured = await pingsWhile(probeServer, () =>
      callTool(probeServer, 'compare_fixture', { path: '/records/1', fixture }),
    );
    const worst = report('compare_fixture, 20,000 fields only in the fixture', measured);
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    const structured = measured.value.result.structuredContent;
    assert.deepEqual(
      [
        structured.onlyFixture.length,
        structured.onlyFixture[199],
        structured.onlyFixtureCount,
        structured.changedCount,
        structured.same,
      ],
      [200, '$.f00199', 20000, 0, false],
    );
  });

  test('issue 8, F4: ping is answered while a call with 100,000 unknown argument names is refused', async () => {
    const args = {
      path: '/records/1',
      ...Object.fromEntries(Array.from({ length: 100000 }, (_, index) => [`x${index}`, 'v'])),
    };
    const measured = await pingsWhile(probeServer, () => callTool(probeServer, 'probe', args));
    const worst = report('probe with 100,000 unknown arguments', measured);
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    // Past MAX_MESSAGE_VALUES the line is refused unparsed, under the call's own id (attack round 3 F9).
    assert.deepEqual(measured.value.error, {
      code: -32600,
      message:
        'Invalid Request: message holds 100008 JSON values, more than 100000; dropped unparsed. Send fewer or smaller arguments.',
    });
  });

  test('issue 8, F4: ping is answered while a query of 150,000 names is refused unparsed', async () => {
    const query = Object.fromEntries(Array.from({ length: 150000 }, (_, index) => [`q${index}`, 'v']));
    const measured = await pingsWhile(probeServer, () => callTool(probeServer, 'probe', { path: '/records/1', query }));
    const worst = report('probe with a query of 150,000 names', measured);
    assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
    assert.deepEqual(measured.value.error, {
      code: -32600,
      message:
        'Invalid Request: message holds 150009 JSON values, more than 100000; dropped unparsed. Send fewer or smaller arguments.',
    });
  });
});

/** A pipeline answer less the times: each side loads its own document, so `loadedAt` and the remembered `at` differ, nothing else. */
function withoutLoadTime(checked: CheckedProbe): CheckedProbe {
  const structured = { ...checked.structured };
  if (structured.document) structured.document = { ...(structured.document as Record<string, unknown>), loadedAt: 'x' };
  return {
    ...checked,
    structured,
    ...(checked.remember ? { remember: { ...checked.remember, seen: { ...checked.remember.seen, at: 'x' } } } : {}),
  };
}

describe('the check worker', () => {
  let standIn: StandIn;
  let hostile: { url: string; close(): Promise<void> };
  let folder: string;
  const checkers: BodyChecker[] = [];

  before(async () => {
    standIn = await start({ port: 0, key: 'stall-test-key-0123' });
    hostile = await startHostileApi();
    folder = mkdtempSync(join(tmpdir(), 'server-stall-worker-'));
    writeFileSync(join(folder, 'openapi.json'), JSON.stringify(hostileDocument()));
  });

  after(async () => {
    for (const checker of checkers) await checker.close();
    await standIn.close();
    await hostile.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The raw response of one GET, as the server reads it. */
  const read = (url: URL, headers: Record<string, string> = {}): Promise<RawResponse> =>
    fetchResponse(url, { headers, timeoutMs: 10000, maxBytes: 8 * 1024 * 1024 });

  test('a body past the check budget is answered unchecked with a note naming the budget, and the next body is checked', async () => {
    const config = readConfig({ API_BASE_URL: hostile.url, OPENAPI_DOC: join(folder, 'openapi.json') });
    const checker = createCheckWorker(config, { deadlineMs: 150 });
    checkers.push(checker);
    const nested = await read(new URL('/nested', hostile.url));
    const stopped = await checker.check(nested, { url: `${hostile.url}/nested` });
    assert.deepEqual(stopped, {
      structured: {
        url: `${hostile.url}/nested`,
        status: 200,
        contentType: 'application/json',
        bytes: 7999691,
        truncated: false,
        body: null,
        note: 'The body (7999691 bytes) was not shown or checked: decoding and checking it took longer than the check budget of 150 ms, so it was stopped. The status and size above are what the API sent; probe a smaller resource (a page size or filter parameter).',
        validated: false,
        validationNote: 'The body was not checked; `note` says why.',
      },
      isError: false,
    });
    const small = await read(new URL('/any-of', hostile.url));
    const checked = await checker.check(small, { url: `${hostile.url}/any-of` });
    const onThread = await checkProbe(
      small,
      { url: `${hostile.url}/any-of` },
      { config, redact: redactor(undefined), documents: createDocumentSource(join(folder, 'openapi.json')) },
    );
    assert.deepEqual(withoutLoadTime(checked), withoutLoadTime(onThread));
  });

  test('ordinary bodies: the worker gives exactly what the pipeline gives on the thread', async () => {
    const key = 'stall-test-key-0123';
    const config = readConfig({ API_BASE_URL: `${standIn.url}/v2`, API_KEY: key, OPENAPI_DOC: `${HERE}openapi.json` });
    const checker = createCheckWorker(config);
    checkers.push(checker);
    const context = {
      config,
      redact: redactor(key),
      documents: createDocumentSource(`${HERE}openapi.json`, { ttlMs: config.documentTtlMs }),
    };
    for (const path of ['/v2/meters', '/v2/meters/mtr_1', '/v2/meters/mtr_3', '/v2/meters/nope', '/v2/unknown']) {
      const url = new URL(path, standIn.url);
      const raw = await read(url, { authorization: `Bearer ${key}` });
      const inWorker = await checker.check(raw, { url: url.href });
      const onThread = await checkProbe(raw, { url: url.href }, context);
      assert.deepEqual(withoutLoadTime(inWorker), withoutLoadTime(onThread), path);
    }
  });
});

/** Prints a scenario's figures and returns the worst ping latency, in ms. */
function report(label: string, measured: { pings: number[]; took: number }): number {
  const worst = Math.max(...measured.pings);
  console.log(
    `# ${label}: took ${measured.took.toFixed(0)} ms, ${measured.pings.length} pings, p99 ${quantile(measured.pings, 0.99).toFixed(1)} ms, worst ${worst.toFixed(1)} ms`,
  );
  return worst;
}

describe('ping while the document is loaded, reloaded and used (spawned server; the document lives in the check worker)', () => {
  let api: { url: string; close(): Promise<void> };
  let folder: string;
  const large = JSON.stringify(largeDocument(20000));

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'server-stall-document-'));
    writeFileSync(join(folder, 'large.json'), large);
    api = await startHostileApi({ 'large.json': large, 'hostile.json': JSON.stringify(hostileDocument()) });
  });

  after(async () => {
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('ping is answered while a 7 MB document of 20,000 operations loads, and the first probe waits for it', async () => {
    const probeServer = server(
      { file: `${HERE}probe-server.ts`, node: process.execPath },
      { API_BASE_URL: api.url, OPENAPI_DOC: join(folder, 'large.json') },
    );
    try {
      probeServer.send({ id: 'up', method: 'ping' });
      await probeServer.answer('up');
      const measured = await pingsWhile(probeServer, () => callTool(probeServer, 'probe', { path: '/area0/item0/x' }));
      const worst = report('20,000 operations loading', measured);
      assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
      const structured = measured.value.result.structuredContent;
      assert.deepEqual(
        { status: structured.status, title: structured.document.title, operation: structured.operation },
        {
          status: 404,
          title: 'large (20000 operations)',
          operation: { method: 'GET', pathTemplate: '/area0/item0/{id}', operationId: 'getItem0' },
        },
      );
    } finally {
      await probeServer.close();
    }
  });

  test('ping is answered while the document, served over HTTP, reloads after its TTL', async () => {
    const probeServer = server(
      { file: `${HERE}probe-server.ts`, node: process.execPath },
      { API_BASE_URL: api.url, OPENAPI_DOC: `${api.url}/documents/large.json`, OPENAPI_TTL_S: '1' },
    );
    try {
      const first = await callTool(probeServer, 'probe', { path: '/area0/item0/x' });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const measured = await pingsWhile(probeServer, () =>
        callTool(probeServer, 'describe_operation', { operation: 'getItem0' }),
      );
      const worst = report('20,000 operations reloading after the TTL (describe_operation)', measured);
      assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
      const again = await callTool(probeServer, 'probe', { path: '/area0/item0/x' });
      const [before, after] = [first, again].map((answer) => answer.result.structuredContent.document.loadedAt);
      assert.deepEqual(
        [measured.value.result.structuredContent.operation, after > before],
        [
          {
            method: 'GET',
            pathTemplate: '/area0/item0/{id}',
            operationId: 'getItem0',
            summary: 'Get item 0 of area 0',
          },
          true,
        ],
      );
    } finally {
      await probeServer.close();
    }
  });

  describe('on the hostile document', () => {
    let probeServer: Server;
    before(async () => {
      probeServer = server(
        { file: `${HERE}probe-server.ts`, node: process.execPath },
        { API_BASE_URL: api.url, OPENAPI_DOC: `${api.url}/documents/hostile.json` },
      );
      for (let id = 0; id < 50; id++) await callTool(probeServer, 'probe', { path: `/records/${id}` });
    });
    after(async () => {
      await probeServer.close();
    });

    test('ping is answered while describe_operation writes TypeScript over 50 remembered bodies', async () => {
      const measured = await pingsWhile(probeServer, () =>
        callTool(probeServer, 'describe_operation', { operation: 'getRecord', as: 'typescript' }),
      );
      const worst = report('describe as TypeScript over 50 bodies', measured);
      assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
      const structured = measured.value.result.structuredContent;
      assert.deepEqual(
        [structured.operation, /Seen in 50 probes this session/.test(structured.typescript)],
        [{ method: 'GET', pathTemplate: '/records/{id}', operationId: 'getRecord' }, true],
      );
    });

    test('ping is answered while draft_request checks a body against 40 levels of anyOf [S, S]', async () => {
      const measured = await pingsWhile(probeServer, () =>
        callTool(probeServer, 'draft_request', { method: 'POST', path: '/drafts', body: Array(1000).fill(1) }),
      );
      const worst = report('draft_request, 1,000 items against 40 anyOf levels', measured);
      assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
      const structured = measured.value.result.structuredContent;
      // Attack round 3 F3: draft_request lists the first 200 problems and counts the rest in problemsMore.
      assert.deepEqual(
        [structured.matchesContract, structured.problems.length, structured.problems[0], structured.problemsMore],
        [
          false,
          200,
          {
            in: 'body',
            name: '$[0]',
            kind: 'wrongType',
            severity: 'error',
            message: 'is integer, expected string (closest of 2 anyOf branches: #/components/schemas/Level40)',
          },
          800,
        ],
      );
    });

    test('a 4 MB JSON-RPC line is dropped unread with -32600 naming the limit, and ping is answered meanwhile', async () => {
      const items = Array.from({ length: 60000 }, (_, index) => ({
        id: `x${index}`,
        name: 'abcdefghij',
        value: index,
        tags: ['a', 'b'],
      }));
      const line =
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'big-line',
          method: 'tools/call',
          params: { name: 'compare_fixture', arguments: { path: '/records/1', fixture: { items } } },
        }) + '\n';
      const measured = await pingsWhile(probeServer, async () => {
        probeServer.write(line);
        while (!probeServer.replies.has('big-line')) await new Promise((resolve) => setTimeout(resolve, 5));
        return probeServer.replies.get('big-line')!.message;
      });
      const worst = report(`a ${(line.length / 1e6).toFixed(1)} MB line`, measured);
      assert.ok(worst < PING_BOUND_MS, `worst ping ${worst} ms`);
      assert.deepEqual(
        [line.length > MAX_LINE, measured.value],
        [
          true,
          {
            jsonrpc: '2.0',
            id: 'big-line',
            error: {
              code: -32600,
              message: `Invalid Request: message longer than ${MAX_LINE} characters (the line limit), dropped unparsed. Send smaller arguments: a fixture or request body of at most 1 MiB.`,
            },
          },
        ],
      );
      // The next line is read as usual.
      assert.deepEqual(
        (await callTool(probeServer, 'probe', { path: '/records/1' })).result.structuredContent.status,
        200,
      );
    });
  });
});

describe('the check worker runs every document job (contract-jobs.ts)', () => {
  let hostile: { url: string; close(): Promise<void> };
  let folder: string;
  const checkers: BodyChecker[] = [];

  before(async () => {
    hostile = await startHostileApi();
    folder = mkdtempSync(join(tmpdir(), 'server-stall-jobs-'));
    writeFileSync(join(folder, 'hostile.json'), JSON.stringify(hostileDocument()));
    writeFileSync(join(folder, 'large.json'), JSON.stringify(largeDocument(20000)));
  });

  after(async () => {
    for (const checker of checkers) await checker.close();
    await hostile.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** One tools/call through `handler`: its result without the request id and the times. */
  const call = async (
    handler: ReturnType<typeof createHandler>,
    name: string,
    args: Record<string, unknown>,
  ): Promise<any> => {
    const answer: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const result = withoutRequestId(answer.result);
    // Each side loads its own document and probes at its own time: `loadedAt` and `live.at` differ, nothing else.
    const structured = result.structuredContent;
    if (structured?.document || structured?.live) {
      if (structured.document) structured.document.loadedAt = 'x';
      if (structured.live) structured.live.at = 'x';
      result.content = [{ type: 'text', text: JSON.stringify(structured) }];
    }
    return result;
  };

  test('every tool answers the same through the worker as on the thread', async () => {
    const config = readConfig({ API_BASE_URL: hostile.url, OPENAPI_DOC: join(folder, 'hostile.json') });
    const checker = createCheckWorker(config);
    checkers.push(checker);
    const inWorker = createHandler(config, { contract: checker });
    const onThread = createHandler(config);
    const calls: [string, Record<string, unknown>][] = [
      ['probe', { path: '/records/1' }],
      ['probe', { path: '/records/2' }],
      ['probe', { path: '/pattern' }],
      ['field_presence', { operation: 'getRecord' }],
      ['field_presence', { operation: 'GET /nowhere' }],
      ['probe_sample', { paths: ['/records/3', '/records/4'] }],
      ['probe_sample', { paths: ['/records/3', '/pattern'] }],
      ['compare_fixture', { path: '/records/1', fixture: { id: 'rec_1', status: 'retired' } }],
      ['describe_operation', { operation: 'getRecord' }],
      ['describe_operation', { operation: 'getRecord', as: 'typescript' }],
      ['describe_operation', { operation: 'nothing' }],
      ['draft_request', { method: 'POST', path: '/drafts', body: [1, 'a'] }],
      ['find_operation', { query: 'records' }],
    ];
    for (const [name, args] of calls) {
      const worker = await call(inWorker, name, args);
      const thread = await call(onThread, name, args);
      assert.deepEqual(worker, thread, `${name} ${JSON.stringify(args)}`);
    }
  });

  test('a job past its budget is answered isError naming the budget, and the next call works', async () => {
    const config = readConfig({ API_BASE_URL: hostile.url, OPENAPI_DOC: join(folder, 'hostile.json') });
    const checker = createCheckWorker(config, { deadlineMs: 20 });
    checkers.push(checker);
    const handler = createHandler(config, { contract: checker });
    assert.deepEqual(
      await call(handler, 'draft_request', { method: 'POST', path: '/drafts', body: Array(1000).fill(1) }),
      {
        content: [
          {
            type: 'text',
            text: 'Not answered: checking the drafted request took longer than the check budget of 20 ms, so it was stopped (the check worker restarts for the next call). Try again, or check a smaller or simpler body.',
          },
        ],
        isError: true,
      },
    );
    assert.deepEqual((await call(handler, 'describe_operation', { operation: 'nothing' })).isError, true);
  });

  test("a document past the worker's heap limit ends the worker, not the process: the probe is answered unchecked with the reason", async () => {
    const config = readConfig({ API_BASE_URL: hostile.url, OPENAPI_DOC: join(folder, 'large.json') });
    const checker = createCheckWorker(config, { memoryMb: 16 });
    checkers.push(checker);
    const raw = await fetchResponse(new URL('/pattern', hostile.url), {
      headers: {},
      timeoutMs: 10000,
      maxBytes: 1024,
    });
    assert.deepEqual(await checker.check(raw, { url: `${hostile.url}/pattern` }), {
      structured: {
        url: `${hostile.url}/pattern`,
        status: 200,
        contentType: 'application/json',
        bytes: 46,
        truncated: false,
        body: null,
        note: 'The body was not shown or checked: the check worker stopped (Worker terminated due to reaching memory limit: JS heap out of memory). The status and size above are what the API sent; try again, or probe a smaller resource.',
        validated: false,
        validationNote: 'The body was not checked; `note` says why.',
      },
      isError: false,
    });
  });

  test('a document load past its limit answers the call with the limit', async () => {
    const config = readConfig({ API_BASE_URL: hostile.url, OPENAPI_DOC: join(folder, 'large.json') });
    const checker = createCheckWorker(config, { loadLimitMs: 1 });
    checkers.push(checker);
    const handler = createHandler(config, { contract: checker });
    assert.deepEqual(await call(handler, 'find_operation', { query: 'item' }), {
      content: [
        {
          type: 'text',
          text: 'Not answered: loading the OpenAPI document took longer than its limit of 1 ms, so it was stopped. Check OPENAPI_DOC (a smaller document loads faster), then try again.',
        },
      ],
      isError: true,
    });
  });
});
