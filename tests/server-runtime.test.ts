/**
 * The server runtime (issues 7 and 8): the concurrency gate and its queue, the rate limit, request
 * ids, `key=value` logs, the audit file, stdout backpressure and line-separator escapes, lone
 * surrogates in arguments, and shutdown. Units first, then dispatch with an injected fetch, then a
 * spawned `probe-server.ts` against servers on 127.0.0.1.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Writable } from 'node:stream';
import { createSession } from '../src/mcp/session.ts';
import { createHandler, inProcessRuntime } from '../src/mcp/in-process.ts';
import { escapeLineSeparators, MAX_LINE, MAX_MESSAGE_DEPTH, MAX_MESSAGE_VALUES } from '../src/mcp/wire.ts';
import { readConfig, readWorkerMemory } from '../src/runtime/config.ts';
import { redactor } from '../src/redaction/redaction.ts';
import { serve } from '../src/transports/stdio.ts';
import { createGate, createRateLimit, QUEUE_SIZE } from '../src/runtime/limits.ts';
import type { ContractService } from '../src/jobs/jobs.ts';
import { createLogger, formatRecord, publicSource, publicUrl } from '../src/runtime/log.ts';
import { spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const CANARY = 'canary-5e0b7a13-runtime-never-print';

function caseFile(id: string): any {
  return JSON.parse(readFileSync(`${HERE}fixtures/cases/${id}.json`, 'utf8'));
}

/** A throwaway HTTP server on 127.0.0.1:0 that records request headers. */
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; headers: IncomingMessage['headers'][]; close: () => Promise<void> }> {
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A fetch that never answers until aborted, counting calls; `release()` answers every pending one with `{}`. */
function hangingFetch(): { fetch: typeof fetch; calls: () => number; release: () => void } {
  let calls = 0;
  const waiting: (() => void)[] = [];
  const fake = ((_url: unknown, init?: RequestInit) => {
    calls++;
    return new Promise<Response>((resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      waiting.push(() => resolve(new Response('{}', { headers: { 'content-type': 'application/json' } })));
    });
  }) as typeof fetch;
  return { fetch: fake, calls: () => calls, release: () => waiting.splice(0).forEach((answer) => answer()) };
}

const okFetch = (async () =>
  new Response('{"id":"mtr_1"}', { headers: { 'content-type': 'application/json' } })) as typeof fetch;

function call(id: number | string, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createGate', () => {
  it('runs at most `concurrency` calls, queues the next in order and refuses past the queue', async () => {
    const gate = createGate(2, 2);
    const order: string[] = [];
    const admissions = await Promise.all([gate.enter(), gate.enter()]);
    const third = gate.enter().then((admission) => (order.push('third'), admission));
    const fourth = gate.enter().then((admission) => (order.push('fourth'), admission));
    const fifth = await gate.enter();
    assert.deepEqual(
      [gate.load(), fifth],
      [
        { running: 2, waiting: 2 },
        {
          refusal:
            'Busy: 2 calls are running and 2 are waiting, the most this server queues (PROBE_CONCURRENCY=2, queue 2); nothing was sent. Wait for earlier calls to answer, then try again.',
        },
      ],
    );
    for (const admission of admissions) if ('slot' in admission) admission.slot.release();
    await Promise.all([third, fourth]);
    assert.deepEqual([order, gate.load()], [['third', 'fourth'], { running: 2, waiting: 0 }]);
  });

  it('names one running call and one waiting call in the singular', async () => {
    const gate = createGate(1, 1);
    const first = await gate.enter();
    const queued = gate.enter();
    assert.deepEqual(await gate.enter(), {
      refusal:
        'Busy: 1 call is running and 1 is waiting, the most this server queues (PROBE_CONCURRENCY=1, queue 1); nothing was sent. Wait for earlier calls to answer, then try again.',
    });
    if ('slot' in first) first.slot.release();
    const second = await queued;
    if ('slot' in second) second.slot.release();
  });

  it('starts no queued call while paused, and refuses the queue on close', async () => {
    const gate = createGate(1, 4);
    const first = await gate.enter();
    gate.pause();
    const queued = gate.enter();
    if ('slot' in first) first.slot.release();
    await tick();
    assert.deepEqual(gate.load(), { running: 0, waiting: 1 });
    gate.close('closing');
    assert.deepEqual([await queued, await gate.enter()], [{ refusal: 'closing' }, { refusal: 'closing' }]);
  });
});

describe('createRateLimit', () => {
  it('refuses the request past the limit with the whole seconds to wait, and admits again when the window moves', () => {
    let now = 1_000_000;
    const rate = createRateLimit(2, () => now);
    const outcomes = [rate.take(), rate.take()];
    now += 30_500;
    outcomes.push(rate.take());
    now += 29_500;
    outcomes.push(rate.take());
    assert.deepEqual(outcomes, [
      undefined,
      undefined,
      'Rate limit reached: 2 requests per minute (PROBE_RATE_PER_MIN); nothing was sent. Try again in 30 s.',
      undefined,
    ]);
  });
  it('names one request per minute in the singular', () => {
    const rate = createRateLimit(1, () => 1_000_000);
    assert.deepEqual(
      [rate.take(), rate.take()],
      [
        undefined,
        'Rate limit reached: 1 request per minute (PROBE_RATE_PER_MIN); nothing was sent. Try again in 60 s.',
      ],
    );
  });
});

describe('log records and public URLs', () => {
  it('writes key=value records on one line, quoting values with spaces, quotes, equals signs or line breaks', () => {
    assert.equal(
      formatRecord({
        event: 'tool.call.error',
        rid: '4f1c2a9b0e7d',
        reason: 'a "b"\nc',
        empty: '',
        gone: undefined,
        took_ms: 12,
        flag: true,
      }),
      'event=tool.call.error rid=4f1c2a9b0e7d reason="a \\"b\\"\\nc" empty="" took_ms=12 flag=true',
    );
  });

  it('drops records above LOG_LEVEL and passes every line through the redactor', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'error',
      write: (line) => lines.push(line),
      redact: (text) => text.replaceAll('sekret', '[redacted]'),
    });
    logger.info('tool.call.done', { rid: 'a' });
    logger.error('tool.call.error', { rid: 'b', reason: 'echoed sekret here' });
    assert.deepEqual(lines, ['event=tool.call.error rid=b reason="echoed [redacted] here"\n']);
  });

  it('hides credentials, base query values and secret-looking query values in URLs', () => {
    const base = new URL('https://api.example.com/v2?tenant=acme');
    assert.deepEqual(
      [
        publicUrl('https://api.example.com/v2/meters?tenant=acme&status=active&api_key=k1&x=1', base),
        publicSource('https://user:pass@docs.example.com/openapi.json?token=t1&v=3'),
        publicSource('./openapi.json'),
      ],
      [
        'https://api.example.com/v2/meters?tenant=[hidden]&status=active&api_key=[hidden]&x=1',
        'https://***@docs.example.com/openapi.json?***',
        './openapi.json',
      ],
    );
  });

  it('escapes U+2028, U+2029 and U+0085 in a serialized line, which still parses to the same value', () => {
    const value = { text: 'a\u2028b\u2029c\u0085d' };
    const line = escapeLineSeparators(JSON.stringify(value));
    assert.deepEqual([line, JSON.parse(line)], ['{"text":"a\\u2028b\\u2029c\\u0085d"}', value]);
  });
});

describe('readConfig (runtime settings)', () => {
  it('refuses an API_KEY shorter than 8 characters by its length, never showing it, and takes one of 8 (issue 18)', () => {
    assert.throws(() => readConfig({ API_BASE_URL: 'https://api.example.com', API_KEY: 'sk-1234' }, '/nonexistent'), {
      message:
        "API_KEY is 7 characters long; openapi-probe needs at least 8 to keep it out of every answer safely (a shorter string matches ordinary text). Use the API's full key; the value is not shown here",
    });
    assert.equal(
      readConfig({ API_BASE_URL: 'https://api.example.com', API_KEY: 'sk-12345' }, '/nonexistent').apiKey,
      'sk-12345',
    );
  });

  it('reads PROBE_CONCURRENCY, PROBE_RATE_PER_MIN, LOG_LEVEL and PROBE_AUDIT_LOG, with their defaults', () => {
    const pick = (env: Record<string, string>) => {
      const config = readConfig({ API_BASE_URL: 'https://api.example.com', ...env }, '/nonexistent');
      return [config.concurrency, config.ratePerMinute, config.logLevel, config.auditLog];
    };
    assert.deepEqual(
      [
        pick({}),
        pick({
          PROBE_CONCURRENCY: '8',
          PROBE_RATE_PER_MIN: '600',
          LOG_LEVEL: 'DEBUG',
          PROBE_AUDIT_LOG: '/tmp/audit.jsonl',
        }),
      ],
      [
        [4, 60, 'info', undefined],
        [8, 600, 'debug', '/tmp/audit.jsonl'],
      ],
    );
  });

  it('refuses an unknown LOG_LEVEL and a concurrency of 0 by name', () => {
    assert.throws(() => readConfig({ API_BASE_URL: 'https://api.example.com', LOG_LEVEL: 'verbose' }), {
      message: 'LOG_LEVEL must be one of error, info, debug, got `verbose`',
    });
    assert.throws(() => readConfig({ API_BASE_URL: 'https://api.example.com', PROBE_CONCURRENCY: '0' }), {
      message: 'PROBE_CONCURRENCY must be a whole number from 1 to 64, got `0`',
    });
  });
});

describe('readWorkerMemory (PROBE_WORKER_MEMORY_MB)', () => {
  it("reads the check worker's heap limit in MiB, 1024 by default", () => {
    assert.deepEqual([readWorkerMemory({}), readWorkerMemory({ PROBE_WORKER_MEMORY_MB: '512' })], [1024, 512]);
  });

  it('refuses a limit below 64 MiB by name', () => {
    assert.throws(() => readWorkerMemory({ PROBE_WORKER_MEMORY_MB: '16' }), {
      message: 'PROBE_WORKER_MEMORY_MB must be a whole number from 64 to 65536, got `16`',
    });
  });
});

describe('serve (an integer request id past 2^53)', () => {
  it('refuses it under its own id as written, not under null, so the client is answered', async () => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serve(handler, { input, output, graceMs: 0 });
    input.end('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
    await served;
    assert.equal(
      String(output.read()),
      '{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32600,"message":"Invalid Request: `id` 9007199254740993 is an integer past 2^53, which this server cannot hold exactly; send a string or a smaller integer (MCP 2025-11-25, Base Protocol)."}}\n',
    );
  });

  it('refuses it under its own id inside a batch too, after an element that is no object', async () => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serve(handler, { input, output, graceMs: 0 });
    input.end(
      '[1,{"jsonrpc":"2.0","id":-9007199254740995,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]\n',
    );
    await served;
    const answers = JSON.parse(String(output.read()).replace(/"id":(-?\d{16,})/g, '"id":"$1"')) as { id: unknown }[];
    assert.deepEqual(
      answers.map((answer) => answer.id),
      [null, '-9007199254740995', 2],
    );
  });
});

describe('serve (the line limit, issue 8)', () => {
  const tooLong = (id: string | number | null) => ({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32600,
      message: `Invalid Request: message longer than ${MAX_LINE} characters (the line limit), dropped unparsed. Send smaller arguments: a fixture or request body of at most 1 MiB.`,
    },
  });

  /** Writes `chunks` to a served handler, then a ping; returns every answer line, parsed. */
  async function answers(chunks: string[]): Promise<unknown[]> {
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serve(handler, { input, output, graceMs: 0 });
    for (const chunk of chunks) input.write(chunk);
    input.end(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }) + '\n');
    await served;
    return String(output.read())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  }

  it('drops a line over MAX_LINE that arrives whole in one chunk with -32600 naming the limit, and reads the next line', async () => {
    assert.deepEqual(
      await answers([`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE)}"}}\n`]),
      [tooLong(1), { jsonrpc: '2.0', id: 'after', result: {} }],
    );
  });

  it('logs the dropped line on stderr (new-user trial)', async () => {
    const lines: string[] = [];
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const input = new PassThrough();
    const served = serve(handler, {
      input,
      output: new PassThrough(),
      graceMs: 0,
      logger: createLogger({ level: 'error', write: (line) => lines.push(line) }),
    });
    input.end(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE)}"}}\n`);
    await served;
    assert.deepEqual(
      lines.filter((line) => line.includes('transport.line.dropped')),
      [
        `event=transport.line.dropped reason="message longer than ${MAX_LINE} characters (the line limit), dropped unparsed; answered under the request ids read from it"\n`,
      ],
    );
  });

  it('answers a line over MAX_LINE under its own id when the id comes after the arguments (issue 17, one reply per request)', async () => {
    assert.deepEqual(
      await answers([
        `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE)}","id":"inner"},"id":"late-7"}\n`,
      ]),
      [tooLong('late-7'), { jsonrpc: '2.0', id: 'after', result: {} }],
    );
  });

  it('answers each request of a batch over MAX_LINE under its own id (issue 18, one reply per request)', async () => {
    const pad = 'x'.repeat(MAX_LINE / 2);
    const batch = `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${pad}"}},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping","params":{"pad":"${pad}"}}]`;
    assert.deepEqual(await answers([batch + '\n']), [
      [tooLong(1), tooLong('b')],
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
  });

  it('answers a line over MAX_LINE that ends with the input instead of a line break, under its own id (issue 17)', async () => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serve(handler, { input, output, graceMs: 0 });
    input.end(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE)}"}}`);
    await served;
    assert.deepEqual(
      String(output.read())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
      [tooLong(9)],
    );
  });

  it('drops a line over MAX_LINE that arrives in pieces, answering once', async () => {
    const piece = 'x'.repeat(64 * 1024);
    assert.deepEqual(
      await answers(['{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"', ...Array(40).fill(piece), '"}}\n']),
      [tooLong(1), { jsonrpc: '2.0', id: 'after', result: {} }],
    );
  });

  it('drops a line nesting deeper than MAX_MESSAGE_DEPTH unparsed, with -32600 naming the depth (attack round 3 F9)', async () => {
    const depth = 1_000_000;
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compare_fixture","arguments":{"path":"/x","fixture":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
    assert.deepEqual(await answers([line + '\n']), [
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message: `Invalid Request: message nests ${depth + 3} levels deep, more than ${MAX_MESSAGE_DEPTH} (arguments may nest at most 256); dropped unparsed.`,
        },
      },
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
  });

  it('refuses a batch nesting deeper than MAX_MESSAGE_DEPTH with one error per request id in it (issue 18, one reply per request)', async () => {
    const deep = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    const line = `[{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":${deep}}},{"jsonrpc":"2.0","id":"four","method":"ping"}]`;
    const refused = (id: string | number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32600,
        message: `Invalid Request: message nests 1003 levels deep, more than ${MAX_MESSAGE_DEPTH} (arguments may nest at most 256); dropped unparsed.`,
      },
    });
    assert.deepEqual(await answers([line + '\n']), [
      [refused(3), refused('four')],
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
  });

  it('measures a short line too: 1,000 levels in a 2 KB line are refused unparsed (attack round 6, B3-6)', async () => {
    const line = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":${'['.repeat(1000)}${']'.repeat(1000)}}}`;
    assert.deepEqual(await answers([line + '\n']), [
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32600,
          message: `Invalid Request: message nests 1002 levels deep, more than ${MAX_MESSAGE_DEPTH} (arguments may nest at most 256); dropped unparsed.`,
        },
      },
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
  });

  it('drops a line holding more than MAX_MESSAGE_VALUES JSON values unparsed, with -32600 naming the count (attack round 3 F9)', async () => {
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draft_request","arguments":{"method":"POST","path":"/x","body":[${Array(500_000).fill('{}').join(',')}]}}}`;
    assert.deepEqual(await answers([line + '\n']), [
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message: `Invalid Request: message holds 500010 JSON values, more than ${MAX_MESSAGE_VALUES}; dropped unparsed. Send fewer or smaller arguments.`,
        },
      },
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
  });

  it('parses a long line of ordinary size: a 1 MiB fixture of strings with brackets and commas inside them', async () => {
    const fixture = Array.from({ length: 20_000 }, (_, index) => `[{,}] item ${index} \\" [[[`);
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { fixture } });
    assert.deepEqual(
      [line.length > 64 * 1024, await answers([line + '\n'])],
      [
        true,
        [
          { jsonrpc: '2.0', id: 1, result: {} },
          { jsonrpc: '2.0', id: 'after', result: {} },
        ],
      ],
    );
  });

  it('reads a line of exactly MAX_LINE characters', async () => {
    const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"';
    const line = head + 'x'.repeat(MAX_LINE - head.length - 3) + '"}}';
    assert.deepEqual(
      [line.length, await answers([line + '\n'])],
      [
        MAX_LINE,
        [
          { jsonrpc: '2.0', id: 1, result: {} },
          { jsonrpc: '2.0', id: 'after', result: {} },
        ],
      ],
    );
  });
});

describe('lone surrogates in arguments (issue 8)', () => {
  const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'), {
    fetch: okFetch,
    requestId: () => '000000000001',
  });

  it('answers a lone surrogate in a query value, a query name or the path with an isError result naming it, not -32603', async () => {
    const replies: any[] = [];
    for (const args of [
      { path: '/meters', query: { a: '\ud800' } },
      { path: '/meters', query: { ['b\udc00']: 'x' } },
      { path: '/meters/\ud83d' },
    ]) {
      replies.push(await handler.handle(call(1, 'probe', args)));
    }
    assert.deepEqual(
      replies.map((reply) => reply.result),
      [
        {
          content: [
            {
              type: 'text',
              text: 'Refused, nothing was sent: `query.a` is "\\ud800", which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.',
            },
            { type: 'text', text: 'requestId: 000000000001' },
          ],
          isError: true,
        },
        {
          content: [
            {
              type: 'text',
              text: 'Refused, nothing was sent: `query` has the parameter name "b\\udc00", which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.',
            },
            { type: 'text', text: 'requestId: 000000000001' },
          ],
          isError: true,
        },
        {
          content: [
            {
              type: 'text',
              text: 'Refused, nothing was sent: `path` "/meters/\\ud83d" holds a lone UTF-16 surrogate, which is not a character and has no UTF-8 form; remove it.',
            },
            { type: 'text', text: 'requestId: 000000000001' },
          ],
          isError: true,
        },
      ],
    );
  });

  it('still sends a well-formed surrogate pair', async () => {
    const sent: string[] = [];
    const recording = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'), {
      fetch: (async (url: URL) => (sent.push(String(url)), okFetch(url))) as typeof fetch,
    });
    const reply: any = await recording.handle(call(1, 'probe', { path: '/meters', query: { a: '\ud83d\ude00' } }));
    assert.deepEqual([reply.result.isError, sent], [undefined, ['https://api.example.com/meters?a=%F0%9F%98%80']]);
  });
});

describe('request ids (issue 8, Traces)', () => {
  it('gives each call a new 12-hex id, sends it as X-Request-Id and returns it in structuredContent and its text', async () => {
    const api = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const handler = createHandler(readConfig({ API_BASE_URL: api.url }, '/nonexistent'));
    const results: any[] = [];
    for (const id of [1, 2]) results.push(((await handler.handle(call(id, 'probe', { path: '/x' }))) as any).result);
    await api.close();
    const ids = results.map((result) => result.structuredContent.requestId);
    assert.deepEqual(
      [
        ids.every((id) => /^[0-9a-f]{12}$/.test(id)),
        ids[0] !== ids[1],
        api.headers.map((headers) => headers['x-request-id']),
        results.map((result) => JSON.parse(result.content[0].text).requestId),
      ],
      [true, true, ids, ids],
    );
  });

  it('logs one tool.call.done record per call carrying the id, and none at LOG_LEVEL=error', async () => {
    const lines: string[] = [];
    const config = readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent');
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
    const handler = createHandler(config, { fetch: okFetch, logger, requestId: () => '4f1c2a9b0e7d' });
    await handler.handle(call(1, 'probe', { path: '/meters/mtr_1' }));
    await handler.handle(call(2, 'probe', { path: '//evil.example' }));
    const quiet: string[] = [];
    await createHandler(config, {
      fetch: okFetch,
      logger: createLogger({ level: 'error', write: (line) => quiet.push(line) }),
    }).handle(call(1, 'probe', { path: '/meters/mtr_1' }));
    assert.deepEqual(
      [lines.map((line) => line.replace(/took_ms=\d+/, 'took_ms=N')), quiet],
      [
        [
          'event=tool.call.done rid=4f1c2a9b0e7d tool=probe status=200 bytes=14 took_ms=N\n',
          'event=tool.call.error rid=4f1c2a9b0e7d tool=probe reason="Refused, nothing was sent: `path` \\"//evil.example\\" starts with \\"//\\", which names another host; give a path with a single leading \\"/\\", such as \\"/meters/mtr_1\\"." took_ms=N\n',
        ],
        [],
      ],
    );
  });

  it('logs a short error reason whole when a key is set, and the key in a long one redacted before the cut', async () => {
    const lines: string[] = [];
    const key = 'sk-canary-0123456789abcdef';
    const config = readConfig({ API_BASE_URL: 'https://api.example.com', API_KEY: key }, '/nonexistent');
    const redact = redactor(key);
    const handler = createHandler(config, {
      fetch: okFetch,
      redact,
      logger: createLogger({ level: 'info', redact: redact.text, write: (line) => lines.push(line) }),
      requestId: () => '4f1c2a9b0e7d',
    });
    await handler.handle(call(1, 'probe', { path: '//evil.example' }));
    await handler.handle(call(2, 'probe', { path: `/${'x'.repeat(280)}/${key}/..` }));
    const reasons = lines.map((line) => /reason="(.*)" took_ms/.exec(line)?.[1]);
    assert.deepEqual(
      [reasons[0], reasons[1]!.includes('sk-canary'), reasons[1]!.endsWith('…')],
      [
        'Refused, nothing was sent: `path` \\"//evil.example\\" starts with \\"//\\", which names another host; give a path with a single leading \\"/\\", such as \\"/meters/mtr_1\\".',
        false,
        true,
      ],
    );
  });
});

describe('the concurrency gate in dispatch (case 52)', () => {
  it('runs PROBE_CONCURRENCY probes at once, queues the next ones, refuses past the queue, and answers ping meanwhile', async () => {
    const hanging = hangingFetch();
    const handler = createHandler(
      readConfig(
        { API_BASE_URL: 'https://api.example.com', PROBE_CONCURRENCY: '2', PROBE_RATE_PER_MIN: '1000' },
        '/nonexistent',
      ),
      { fetch: hanging.fetch, requestId: () => 'abcdefabcdef' },
    );
    const calls = Array.from({ length: 2 + QUEUE_SIZE + 1 }, (_, index) =>
      handler.handle(call(index, 'probe', { path: `/r/${index}` })),
    );
    await tick(50);
    const refused: any = await calls.at(-1);
    const ping = await handler.handle({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    const listed: any = await handler.handle({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    assert.deepEqual(
      [hanging.calls(), refused.result.content[0].text, ping, listed.result.tools.length > 0],
      [
        2,
        `Busy: 2 calls are running and ${QUEUE_SIZE} are waiting, the most this server queues (PROBE_CONCURRENCY=2, queue ${QUEUE_SIZE}); nothing was sent. Wait for earlier calls to answer, then try again.`,
        { jsonrpc: '2.0', id: 'p', result: {} },
        true,
      ],
    );
    while (hanging.calls() < 2 + QUEUE_SIZE) {
      hanging.release();
      await tick(5);
    }
    hanging.release();
    const answers: any[] = await Promise.all(calls.slice(0, -1));
    assert.deepEqual(new Set(answers.map((answer) => answer.result.structuredContent?.status)), new Set([200]));
  });
});

describe('internal errors', () => {
  it('logs a tool that throws as tool.call.error with its request id and answers -32603', async () => {
    const lines: string[] = [];
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'), {
      documents: { get: async () => ({ operations: null }) as any },
      fetch: okFetch,
      requestId: () => '00000000beef',
      logger: createLogger({ level: 'error', write: (line) => lines.push(line) }),
    });
    const reply: any = await handler.handle(call(9, 'probe', { path: '/meters' }));
    assert.deepEqual(
      [
        reply.error.code,
        reply.error.message.startsWith('Internal error: '),
        lines.length,
        lines[0]!.startsWith('event=tool.call.error rid=00000000beef tool=probe reason="internal: '),
      ],
      [-32603, true, 1, true],
    );
  });
});

describe('the rate limit in dispatch (issue 8)', () => {
  it('refuses the probe past PROBE_RATE_PER_MIN with the seconds to wait; field_presence sends nothing and is not counted', async () => {
    const handler = createHandler(
      readConfig({
        API_BASE_URL: 'https://api.example.com',
        PROBE_RATE_PER_MIN: '2',
        OPENAPI_DOC: `${HERE}openapi.json`,
      }),
      { fetch: okFetch, requestId: () => '0123456789ab' },
    );
    const texts: string[] = [];
    for (const [name, args] of [
      ['probe', { path: '/meters/mtr_1' }],
      ['field_presence', { operation: 'getMeter' }],
      ['field_presence', { operation: 'getMeter' }],
      ['probe', { path: '/meters/mtr_1' }],
      ['probe', { path: '/meters/mtr_1' }],
    ] as const) {
      const reply: any = await handler.handle(call(1, name, args));
      texts.push(reply.result.isError ? reply.result.content[0].text : 'ok');
    }
    assert.deepEqual(texts, [
      'ok',
      'ok',
      'ok',
      'ok',
      'Rate limit reached: 2 requests per minute (PROBE_RATE_PER_MIN); nothing was sent. Try again in 60 s.',
    ]);
  });
});

describe('the audit file (PROBE_AUDIT_LOG)', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'probe-audit-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("holds one JSON line per call, written before the answer, with the URL's secrets hidden", async () => {
    const file = join(folder, 'audit.jsonl');
    const config = readConfig({
      API_BASE_URL: 'https://api.example.com/v2?tenant=acme',
      API_KEY: CANARY,
      PROBE_AUDIT_LOG: file,
      OPENAPI_DOC: `${HERE}openapi.json`,
    });
    const handler = createHandler(config, { fetch: okFetch, requestId: () => '4f1c2a9b0e7d' });
    const linesWhenAnswered: string[][] = [];
    for (const message of [
      call(1, 'probe', { path: '/meters/mtr_1', query: { token: 't0k3n' } }),
      call(2, 'probe', { path: '/../x' }),
      call(3, 'field_presence', { operation: 'getMeter' }),
    ]) {
      await handler.handle(message);
      linesWhenAnswered.push(readFileSync(file, 'utf8').trimEnd().split('\n'));
    }
    const records = linesWhenAnswered.at(-1)!.map((line) => JSON.parse(line));
    assert.deepEqual(
      [
        linesWhenAnswered.map((lines) => lines.length),
        records.map(({ time, took_ms, ...rest }) => [typeof time, typeof took_ms, rest]),
      ],
      [
        [1, 2, 3],
        [
          [
            'string',
            'number',
            {
              rid: '4f1c2a9b0e7d',
              tool: 'probe',
              method: 'GET',
              url: 'https://api.example.com/v2/meters/mtr_1?tenant=[hidden]&token=[hidden]',
              status: 200,
              bytes: 14,
              findings: 4,
              isError: false,
            },
          ],
          [
            'string',
            'number',
            {
              rid: '4f1c2a9b0e7d',
              tool: 'probe',
              method: null,
              url: null,
              status: null,
              bytes: null,
              findings: null,
              isError: true,
            },
          ],
          [
            'string',
            'number',
            {
              rid: '4f1c2a9b0e7d',
              tool: 'field_presence',
              method: null,
              url: null,
              status: null,
              bytes: null,
              findings: null,
              isError: false,
            },
          ],
        ],
      ],
    );
  });

  it('records the caller a transport names (Inbound.caller) on the audit line and the log record of the call (issue 14)', async () => {
    const file = join(folder, 'audit-caller.jsonl');
    const lines: string[] = [];
    const config = readConfig({ API_BASE_URL: 'https://api.example.com', PROBE_AUDIT_LOG: file }, '/nonexistent');
    const session = createSession(
      inProcessRuntime(config, {
        fetch: okFetch,
        requestId: () => '4f1c2a9b0e7d',
        logger: createLogger({ level: 'info', write: (line) => lines.push(line) }),
      }),
    );
    await session.handle(call(1, 'probe', { path: '/meters/mtr_1' }), {
      caller: { subject: 'user-7', clientId: 'cli-3' },
    });
    const { time, took_ms, ...record } = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(
      [
        typeof time,
        typeof took_ms,
        record,
        lines.filter((line) => line.includes('event=tool.call.done')).map((line) => / caller=(\S+)/.exec(line)?.[1]),
      ],
      [
        'string',
        'number',
        {
          rid: '4f1c2a9b0e7d',
          caller: 'user-7',
          client_id: 'cli-3',
          decision: 'allowed',
          tool: 'probe',
          method: 'GET',
          url: 'https://api.example.com/meters/mtr_1',
          status: 200,
          bytes: 14,
          findings: null,
          isError: false,
        },
        ['user-7'],
      ],
    );
  });

  it('logs a write failure and still answers the call', async () => {
    const lines: string[] = [];
    const config = readConfig(
      { API_BASE_URL: 'https://api.example.com', PROBE_AUDIT_LOG: join(folder, 'missing-folder', 'audit.jsonl') },
      '/nonexistent',
    );
    const handler = createHandler(config, {
      fetch: okFetch,
      requestId: () => '4f1c2a9b0e7d',
      logger: createLogger({ level: 'error', write: (line) => lines.push(line) }),
    });
    const reply: any = await handler.handle(call(1, 'probe', { path: '/x' }));
    assert.deepEqual(
      [reply.result.structuredContent.status, lines],
      [
        200,
        [
          `event=audit.write.error rid=4f1c2a9b0e7d reason="ENOENT: no such file or directory, open '${join(folder, 'missing-folder', 'audit.jsonl')}'"\n`,
        ],
      ],
    );
  });
});

describe('serve (backpressure, case 52)', () => {
  it('starts no queued tool call while stdout has not drained, and resumes on drain', async () => {
    const hanging = hangingFetch();
    const handler = createHandler(
      readConfig(
        { API_BASE_URL: 'https://api.example.com', PROBE_CONCURRENCY: '1', PROBE_RATE_PER_MIN: '1000' },
        '/nonexistent',
      ),
      { fetch: hanging.fetch },
    );
    const input = new PassThrough();
    const held: (() => void)[] = [];
    const written: string[] = [];
    // A client that stops reading: nothing is acknowledged until `held` is drained.
    const output = new Writable({
      highWaterMark: 16,
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        held.push(done);
      },
    });
    const served = serve(handler, { input, output, graceMs: 0 });
    input.write([1, 2, 3, 4].map((id) => JSON.stringify(call(id, 'probe', { path: `/r/${id}` }))).join('\n') + '\n');
    await tick(20);
    hanging.release(); // call 1 answers (stdout now full); call 2 starts
    await tick(20);
    hanging.release(); // call 2 answers into the full stdout; call 3 must not start
    await tick(50);
    const whileBlocked = [hanging.calls(), written.length];
    while (held.length) held.shift()!();
    await tick(50);
    assert.deepEqual([whileBlocked, hanging.calls()], [[2, 1], 3]);
    hanging.release();
    await tick(20);
    while (held.length) held.shift()!();
    input.end();
    await served;
  });
});

describe('serve (stream errors)', () => {
  it('ends the session on an error from stdin, logging it, and answers the call in flight as cancelled', async () => {
    const hanging = hangingFetch();
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'), {
      fetch: hanging.fetch,
      requestId: () => '0000000000aa',
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    const served = serve(handler, {
      input,
      output,
      logger: createLogger({ level: 'error', write: (line) => lines.push(line) }),
    });
    input.write(JSON.stringify(call(1, 'probe', { path: '/x' })) + '\n');
    while (hanging.calls() === 0) await tick();
    input.destroy(Object.assign(new Error('read EIO'), { code: 'EIO' }));
    const reason = await served;
    const answer = JSON.parse(String(output.read()));
    assert.deepEqual(
      [reason, lines, answer.result.content],
      [
        'stdin error: EIO',
        ['event=transport.error stream=stdin reason="read EIO"\n'],
        [
          { type: 'text', text: 'Cancelled: the server is shutting down (stdin error: EIO); the call did not finish.' },
          { type: 'text', text: 'requestId: 0000000000aa' },
        ],
      ],
    );
  });
});

describe('stdio runtime (spawned probe-server.ts)', () => {
  const spawned: StdioClient[] = [];
  const start = (env: Record<string, string>) => {
    const client = spawnServer({ API_KEY: CANARY, ...env });
    spawned.push(client);
    return client;
  };
  after(() => {
    for (const client of spawned) if (client.child.exitCode === null) client.child.kill('SIGKILL');
  });

  it('case 46: writes U+2028, U+2029 and U+0085 from an API body as \\u escapes, one parsable line', async () => {
    const data = caseFile('46-stdio-unicode-line-separators-in-output');
    const api = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.from('{"text":"a\u2028b\u2029c\u0085d"}', 'utf8'));
    });
    const client = start({ API_BASE_URL: api.url });
    await client.initialize();
    const called = await client.callTool('probe', { path: '/note' });
    await client.close();
    await api.close();
    const raw = client.stdoutLines.find((line) => line.includes('"id":2'))!;
    // data.expected.must: one line that parses, body.text exactly the four characters and three separators.
    assert.deepEqual(
      [
        data.id,
        called.structuredContent.body.text,
        /[\u2028\u2029\u0085]/.test(client.stdoutLines.join('\n')),
        raw.includes('a\\u2028b\\u2029c\\u0085d'),
      ],
      ['46-stdio-unicode-line-separators-in-output', 'a\u2028b\u2029c\u0085d', false, true],
    );
  });

  it('case 52: answers each of 1,000 probes of an endless body sent in one write exactly once, then still answers ping', async () => {
    const endless = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const block = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed) if (!res.write(block)) return void res.once('drain', pump);
      };
      pump();
    });
    const client = start({ API_BASE_URL: endless.url, PROBE_MAX_BYTES: '524288', PROBE_RATE_PER_MIN: '100000' });
    const lines =
      Array.from({ length: 1000 }, (_, index) => JSON.stringify(call(index, 'probe', { path: '/endless' }))).join(
        '\n',
      ) + '\n';
    client.child.stdin.write(lines);
    // Waits for the answers, not for a speed: the limit only ends a server that never answers, far above what a
    // loaded two-core machine takes (about 60 s at load average 15).
    const deadline = Date.now() + 300_000;
    while (client.stdoutLines.length < 1000 && Date.now() < deadline) await tick(50);
    const ping = await client.request('ping');
    await client.close();
    await endless.close();
    const replies = client.stdoutLines.slice(0, 1000).map((line) => JSON.parse(line));
    const kinds = new Set(
      replies.map((reply) =>
        reply.result.structuredContent?.truncated
          ? 'truncated body'
          : reply.result.content[0].text.replace(/\d+/g, 'N'),
      ),
    );
    assert.deepEqual(
      [new Set(replies.map((reply) => reply.id)).size, kinds, ping.result],
      [
        1000,
        new Set([
          'truncated body',
          'Busy: N calls are running and N are waiting, the most this server queues (PROBE_CONCURRENCY=N, queue N); nothing was sent. Wait for earlier calls to answer, then try again.',
        ]),
        {},
      ],
    );
  });

  for (const ending of ['stdin close', 'SIGINT', 'SIGTERM'] as const) {
    it(`on ${ending}, aborts a probe in flight against a slow server, answers it as cancelled and exits 0 within 2 s`, async (t) => {
      const slow = await listen(() => {});
      const client = start({ API_BASE_URL: slow.url });
      client.child.stdin.write(JSON.stringify(call(7, 'probe', { path: '/slow' })) + '\n');
      while (slow.headers.length === 0) await tick();
      const began = Date.now();
      const exited = new Promise<number | null>((resolve) => client.child.on('exit', (code) => resolve(code)));
      if (ending === 'stdin close') client.child.stdin.end();
      else client.child.kill(ending);
      const code = await exited;
      const took = Date.now() - began;
      t.diagnostic(`${ending}: exited ${code} after ${took} ms`);
      await slow.close();
      const reason = ending === 'stdin close' ? 'stdin closed' : ending;
      const answer = JSON.parse(client.stdoutLines[0]!);
      assert.deepEqual(
        [
          code,
          took < 2000,
          answer.id,
          answer.result.isError,
          answer.result.content[0].text,
          /event=server\.stop reason="?[^ ]+/.test(client.stderr()),
        ],
        [0, true, 7, true, `Cancelled: the server is shutting down (${reason}); the call did not finish.`, true],
      );
    });
  }

  it('answers a call whose body check never finishes as cancelled when stdin closes, within the grace (new-user trial)', async () => {
    // A check worker still busy with a large body cannot notice the abort: the call is answered all the same.
    const stuck: ContractService = {
      run: () => new Promise(() => {}),
      check: () => new Promise(() => {}),
      started: () => true,
      documentProblem: () => undefined,
      warm: () => {},
      close: async () => {},
    };
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'), {
      fetch: okFetch,
      requestId: () => '0000000000bb',
      contract: stuck,
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serve(handler, { input, output, graceMs: 50 });
    input.end(JSON.stringify(call(7, 'probe', { path: '/meters/mtr_1' })) + '\n');
    assert.equal(await served, 'stdin closed');
    const answer = JSON.parse(String(output.read()).trim());
    assert.deepEqual(
      [answer.id, answer.result.isError, answer.result.content[0].text],
      [7, true, 'Cancelled: the server is shutting down (stdin closed); the call did not finish.'],
    );
  });

  it('cuts the grace after stdin closed short on SIGTERM', async (t) => {
    const slow = await listen(() => {});
    const client = start({ API_BASE_URL: slow.url });
    client.child.stdin.write(JSON.stringify(call(7, 'probe', { path: '/slow' })) + '\n');
    while (slow.headers.length === 0) await tick();
    const exited = new Promise<number | null>((resolve) => client.child.on('exit', (code) => resolve(code)));
    const began = Date.now();
    client.child.stdin.end();
    await tick(100);
    client.child.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - began;
    t.diagnostic(`stdin close then SIGTERM at 100 ms: exited ${code} after ${took} ms`);
    await slow.close();
    // The cancellation names the first cause; the exit comes well before the 1,000 ms grace ends.
    assert.deepEqual(
      [code, took < 900, JSON.parse(client.stdoutLines[0]!).result.content[0].text],
      [0, true, 'Cancelled: the server is shutting down (stdin closed); the call did not finish.'],
    );
  });

  it('ends cleanly with exit 0 and a transport.error record when stdout breaks', async () => {
    const client = start({ API_BASE_URL: 'http://127.0.0.1:9' });
    client.child.stdout.destroy();
    const exited = new Promise<number | null>((resolve) => client.child.on('exit', (code) => resolve(code)));
    for (let index = 0; index < 20 && client.child.exitCode === null; index++) {
      client.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
      await tick(20);
    }
    assert.deepEqual(
      [
        await exited,
        /event=transport\.error stream=stdout reason=/.test(client.stderr()),
        client.stderr().includes('Unhandled'),
      ],
      [0, true, false],
    );
  });

  it('never prints the canary key on stderr or stdout', () => {
    const everything = spawned.map((client) => client.stdoutLines.join('\n') + client.stderr()).join('\n');
    assert.equal(everything.includes(CANARY), false);
  });
});

describe('a document that cannot be loaded, said at start-up (issue 17)', () => {
  it('logs the absolute path and the fix, heads the first tool answer with it, then the instructions', async () => {
    // A relative OPENAPI_DOC is read from the working directory the MCP host starts the server in (here the project's).
    const host = realpathSync(fileURLToPath(new URL('../', import.meta.url)));
    const client = spawnServer(
      { API_BASE_URL: 'http://127.0.0.1:4/v2', OPENAPI_DOC: 'no-such-folder/openapi.json' },
      { cwd: host },
    );
    try {
      await client.initialize();
      const problem =
        `Cannot load OpenAPI document no-such-folder/openapi.json at #: cannot read file: ENOENT: no such file or directory, stat '${join(host, 'no-such-folder/openapi.json')}'. ` +
        `OPENAPI_DOC "no-such-folder/openapi.json" is a relative path, read from the working directory ${host} (an MCP host starts the server in a directory of its own choosing); set OPENAPI_DOC to an absolute path`;
      const head = `Set-up problem: the OpenAPI document (OPENAPI_DOC) was not loaded, so probes are not checked and the contract tools cannot answer: ${problem}. Tell the person who configured this server.`;
      const first = await client.callTool('find_operation', { query: 'list meters' });
      const second = await client.callTool('find_operation', { query: 'list meters' });
      const again = await client.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'stdio-client', version: '0.0.0' },
      });
      assert.deepEqual(
        {
          first: first.content[0].text,
          second: second.content[0].text === head,
          instructions: again.result.instructions.startsWith(`${head}\n\nopenapi-probe lets you`),
          logged: client
            .stderr()
            .includes(
              `event=document.load.error reason="document not loaded, probes go unchecked: ${problem.replaceAll('"', '\\"')}"`,
            ),
        },
        { first: head, second: false, instructions: true, logged: true },
      );
    } finally {
      await client.close();
    }
  });
});
