/**
 * The server end to end: URL building and refusals, the capped read, configuration, dispatch,
 * and the stdio transport with a spawned `probe-server.ts`. Cases from fixtures/cases are named
 * by id. Every spawned server runs with a canary key; the last test asserts the canary appears in
 * no byte of any stdout or stderr.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildProbeUrl } from './src/api/url-policy.ts';
import { probe, ProbeError } from './src/api/probe.ts';
import { readConfig, MAX_BODY_BUDGET } from './src/runtime/config.ts';
import { redactor } from './src/redaction/redaction.ts';
import { createHandler } from './src/mcp/in-process.ts';
import { MAX_LINE } from './src/mcp/wire.ts';
import { spawnServer, nodeArgsFor, withoutRequestId } from './harness/stdio-client.ts';
import type { StdioClient } from './harness/stdio-client.ts';
import { start as startStandIn, METERS } from './stand-in-api.ts';
import type { StandIn } from './stand-in-api.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CANARY = 'canary-9c41e7d2-must-never-print';
const spawned: StdioClient[] = [];
// A test that fails before closing its server must not leave it running: the file would never exit (CI hung so).
after(() => {
  for (const client of spawned) if (client.child.exitCode === null) client.child.kill();
});

function caseFile(id: string): any {
  return JSON.parse(readFileSync(`${HERE}fixtures/cases/${id}.json`, 'utf8'));
}

/** A throwaway HTTP server on 127.0.0.1:0; `hits` counts requests. */
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function start(env: Record<string, string>): StdioClient {
  const client = spawnServer({ API_KEY: CANARY, ...env });
  spawned.push(client);
  return client;
}

/**
 * Resolves when the client has `count` stdout lines, or rejects after `ms`: a limit that only ends a server that never
 * answers, far above what a loaded machine takes (5 s failed at load average 12 on two cores).
 */
async function linesAfter(client: StdioClient, count: number, ms = 60_000): Promise<any[]> {
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

function byId(messages: any[], id: unknown): any {
  return messages.find((message) => message.id === id);
}

const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"case-runner","version":"0.0.0"}}}';

describe('buildProbeUrl', () => {
  it('appends the path to the base as text, keeping the prefix (case 10-probe-base-path-preserved)', () => {
    const data = caseFile('10-probe-base-path-preserved');
    for (const { base_url } of data.input.configs) {
      const built = Object.fromEntries(
        data.input.paths.map((path: string) => {
          const decision = buildProbeUrl(new URL(base_url), path);
          return [path, 'url' in decision ? decision.url.href : decision.refusal];
        }),
      );
      assert.deepEqual(built, data.expected.request_urls_for_both_configs, base_url);
    }
  });

  it('refuses every backslash variant and names the backslash (case 11-probe-backslash-variants)', () => {
    const data = caseFile('11-probe-backslash-variants');
    for (const { path } of data.input.paths) {
      const decision = buildProbeUrl(new URL(data.input.base_url), path);
      assert.ok('refusal' in decision, path);
      assert.match(decision.refusal, /backslash \(raw or %5C\)/, path);
    }
  });

  it('refuses inputs the parser reads as another authority (case 12-probe-authority-changing-inputs)', () => {
    const data = caseFile('12-probe-authority-changing-inputs');
    const reasons = data.input.paths.map(({ path }: { path: string }) => {
      const decision = buildProbeUrl(new URL(data.input.base_url), path);
      return 'refusal' in decision
        ? /starts with "\/\/"|leading or trailing spaces|control character|absolute URL/.exec(decision.refusal)?.[0]
        : decision.url.href;
    });
    assert.deepEqual(reasons, [
      'starts with "//"',
      'leading or trailing spaces',
      'control character',
      'control character',
      'absolute URL',
      'absolute URL',
      'absolute URL',
      'absolute URL',
      'starts with "//"',
      'starts with "//"',
      'starts with "//"',
    ]);
  });

  it('refuses dot segments in every spelling, even behind %2F (case 14-probe-dot-segments-escape-prefix)', () => {
    const data = caseFile('14-probe-dot-segments-escape-prefix');
    const base = new URL(data.input.base_url);
    const all = [
      ...data.expected.must_refuse,
      ...data.expected.should_refuse.paths,
      ...Object.keys(data.expected.either_refused_or_exact),
    ];
    const outcomes = all.map((path: string) => {
      const decision = buildProbeUrl(base, path);
      return 'refusal' in decision && /dot segment/.test(decision.refusal);
    });
    assert.deepEqual(
      outcomes,
      all.map(() => true),
    );
  });

  it('refuses a result outside the prefix by segment, not by string prefix', () => {
    const decision = buildProbeUrl(new URL('https://api.example.com/v2'), '/x');
    assert.equal('url' in decision && decision.url.href, 'https://api.example.com/v2/x');
    assert.deepEqual(buildProbeUrl(new URL('https://api.example.com/v2'), '/%2e%2e/v2-admin/keys'), {
      refusal:
        '`path` "/%2e%2e/v2-admin/keys" has the dot segment "%2e%2e", which would climb out of the API\'s base path; name the resource directly.',
    });
  });

  it('keeps @, percent-encoded slashes and unicode inside the base path', () => {
    const base = new URL('https://api.example.com/v2/');
    const hrefs = ['/@evil.example/x', '/files/a%2Fb', '/users/zoë'].map((path) => {
      const decision = buildProbeUrl(base, path);
      return 'url' in decision ? decision.url.href : decision.refusal;
    });
    assert.deepEqual(hrefs, [
      'https://api.example.com/v2/@evil.example/x',
      'https://api.example.com/v2/files/a%2Fb',
      'https://api.example.com/v2/users/zo%C3%AB',
    ]);
  });

  it('appends query parameters after those in the path', () => {
    const decision = buildProbeUrl(new URL('https://api.example.com/v2'), '/meters?status=active', {
      limit: '5',
      page: 2,
    });
    assert.equal(
      'url' in decision && decision.url.href,
      'https://api.example.com/v2/meters?status=active&limit=5&page=2',
    );
  });

  it("sends the base's query first, then the path's own query as written, then the extra ones (issue 8, B4)", () => {
    const decision = buildProbeUrl(new URL('https://api.example.com/v2?api-version=1'), '/x?flag&q=a%20b~c', {
      z: '1 2',
    });
    assert.equal(
      'url' in decision && decision.url.href,
      'https://api.example.com/v2/x?api-version=1&flag&q=a%20b~c&z=1%202',
    );
  });

  it('names the argument and the expected type for a path that is not a string', () => {
    assert.deepEqual(buildProbeUrl(new URL('https://api.example.com'), 42), {
      refusal: '`path` must be a string, got a number.',
    });
    assert.deepEqual(buildProbeUrl(new URL('https://api.example.com'), 42, undefined, '/meters/mtr_1'), {
      refusal: '`path` must be a string such as "/meters/mtr_1", got a number.',
    });
    assert.deepEqual(buildProbeUrl(new URL('https://api.example.com'), '/x', ['a']), {
      refusal:
        '`query` must be an object of query parameter name to string value, such as {"name": "value"}, got an array.',
    });
  });

  it('refuses a fragment, tabs and newlines', () => {
    const base = new URL('https://api.example.com');
    const refused = ['/x#y', '/x\ty', '/x\ny'].map((path) => 'refusal' in buildProbeUrl(base, path));
    assert.deepEqual(refused, [true, true, true]);
  });
});

describe('readConfig', () => {
  it('throws a message naming API_BASE_URL when it is missing or malformed', () => {
    assert.throws(() => readConfig({}, '/nonexistent'), /API_BASE_URL is not set/);
    assert.throws(
      () => readConfig({ API_BASE_URL: 'api.example.com' }, '/nonexistent'),
      /API_BASE_URL must be an absolute http\(s\) URL/,
    );
    assert.throws(
      () => readConfig({ API_BASE_URL: 'ftp://api.example.com' }, '/nonexistent'),
      /must use http or https/,
    );
    assert.throws(
      () => readConfig({ API_BASE_URL: 'https://u:p@api.example.com' }, '/nonexistent'),
      /must not carry credentials/,
    );
  });

  it('applies the documented defaults and finds openapi.json in the working directory', () => {
    const config = readConfig({ API_BASE_URL: 'https://api.example.com/v2' }, HERE.replace(/\/$/, ''));
    assert.deepEqual(
      {
        maxBytes: config.maxBytes,
        timeoutMs: config.timeoutMs,
        ttl: config.documentTtlMs,
        doc: config.openapiDoc,
        key: config.apiKey,
        header: config.apiKeyHeader,
      },
      { maxBytes: 16384, timeoutMs: 15000, ttl: 60000, doc: `${HERE}openapi.json`, key: undefined, header: undefined },
    );
  });

  it('accepts only plain digits for the numeric settings', () => {
    assert.throws(
      () => readConfig({ API_BASE_URL: 'https://a.example', PROBE_MAX_BYTES: '1e3' }, '/nonexistent'),
      /PROBE_MAX_BYTES must be a whole number from 1 to 524288, got `1e3`/,
    );
    assert.throws(
      () => readConfig({ API_BASE_URL: 'https://a.example', PROBE_TIMEOUT_MS: '0x10' }, '/nonexistent'),
      /PROBE_TIMEOUT_MS must be a whole number/,
    );
  });

  it('rejects a byte budget above the limit', () => {
    assert.throws(
      () =>
        readConfig({ API_BASE_URL: 'https://a.example', PROBE_MAX_BYTES: String(MAX_BODY_BUDGET + 1) }, '/nonexistent'),
      /PROBE_MAX_BYTES must be a whole number from 1 to 524288/,
    );
  });
});

describe('probe', () => {
  const BUDGET = 65536;
  let upstream: Awaited<ReturnType<typeof listen>>;
  let served: Record<string, number> = {};
  let closedEarly: Record<string, boolean> = {};

  before(async () => {
    upstream = await listen((req, res) => {
      const name = req.url ?? '';
      if (name === '/chunked') {
        // 5 MiB of [{"id":1},{"id":2},...] without Content-Length (case 17, variant chunked).
        res.writeHead(200, { 'content-type': 'application/json' });
        let id = 1;
        let sent = 0;
        res.write('[');
        const pump = () => {
          while (sent < 5 * 1024 * 1024) {
            const piece = `{"id":${id++}},`;
            sent += piece.length;
            if (!res.write(piece)) return res.once('drain', pump);
          }
          res.end('{"id":0}]');
        };
        res.on('close', () => {
          served[name] = sent;
          closedEarly[name] = !res.writableFinished;
        });
        pump();
      } else if (name === '/gzip-bomb') {
        const body = gzipSync(Buffer.alloc(20971520, 0x20));
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': body.length,
        });
        res.end(body);
      } else if (name === '/declared-large') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 5242880 });
        const block = Buffer.alloc(65536, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < 5242880) {
            sent += block.length;
            if (!res.write(block)) return res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => {
          closedEarly[name] = !res.writableFinished;
        });
        pump();
      } else if (name === '/redirect') {
        res.writeHead(302, { location: 'https://elsewhere.example/login' });
        res.end();
      } else if (name === '/slow') {
        setTimeout(() => {
          res.writeHead(200);
          res.end('late');
        }, 2000);
      } else if (name === '/euro') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('€'.repeat(10));
      } else if (name === '/headers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ authorization: req.headers.authorization ?? null, xkey: req.headers['x-api-key'] ?? null }),
        );
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"nope"}');
      }
    });
  });
  after(() => upstream.close());

  const options = { headers: {}, timeoutMs: 5000, maxBytes: BUDGET };

  it('stops reading a chunked body after the budget and says it was cut (case 17-probe-response-byte-cap)', async () => {
    const result = await probe(new URL(`${upstream.url}/chunked`), options);
    assert.deepEqual(
      [
        result.truncated,
        (result.body as string).length <= BUDGET,
        Buffer.byteLength(result.body as string) <= BUDGET,
        result.bytes > BUDGET,
      ],
      [true, true, true, true],
    );
    assert.match(result.note!, /cut there and not parsed or checked/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual([closedEarly['/chunked'], served['/chunked']! < 5 * 1024 * 1024], [true, true]);
  });

  it('counts decoded bytes of a gzip body, not the bytes on the wire (case 17, gzip bomb)', async () => {
    const result = await probe(new URL(`${upstream.url}/gzip-bomb`), options);
    assert.deepEqual(
      [
        result.truncated,
        Buffer.byteLength(result.body as string) <= BUDGET,
        result.bytes > BUDGET,
        result.bytes < 20971520,
      ],
      [true, true, true, true],
    );
  });

  it('does not trust a large Content-Length and stops early (case 17, declared large)', async () => {
    const result = await probe(new URL(`${upstream.url}/declared-large`), options);
    assert.deepEqual(
      [result.truncated, result.body, result.bytes > BUDGET, result.bytes < 5242880],
      [true, null, true, true],
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(closedEarly['/declared-large'], true);
  });

  it('returns a redirect as it is, with its location, without following it', async () => {
    const result = await probe(new URL(`${upstream.url}/redirect`), options);
    assert.deepEqual(
      { status: result.status, location: result.location, bytes: result.bytes, truncated: result.truncated },
      { status: 302, location: 'https://elsewhere.example/login', bytes: 0, truncated: false },
    );
  });

  it('gives an exact byte count and parsed JSON for a complete body', async () => {
    const result = await probe(new URL(`${upstream.url}/missing`), options);
    assert.deepEqual(result, {
      url: `${upstream.url}/missing`,
      status: 404,
      contentType: 'application/json',
      bytes: 18,
      truncated: false,
      body: { message: 'nope' },
    });
  });

  it('cuts a text body without splitting a UTF-8 character', async () => {
    const result = await probe(new URL(`${upstream.url}/euro`), { ...options, maxBytes: 7 });
    assert.deepEqual([result.body, result.bytes, result.truncated], ['€€', 30, true]);
  });

  it('throws a ProbeError naming the URL and the limit on timeout', async () => {
    await assert.rejects(probe(new URL(`${upstream.url}/slow`), { ...options, timeoutMs: 200 }), (error: Error) => {
      assert.ok(error instanceof ProbeError);
      assert.equal(
        error.message,
        `GET ${upstream.url}/slow timed out after 200 ms (PROBE_TIMEOUT_MS). The API may be slow or unreachable; try again, or raise PROBE_TIMEOUT_MS.`,
      );
      return true;
    });
  });

  it('throws a ProbeError naming a refused connection', async () => {
    const closed = await listen(() => {});
    const url = closed.url;
    await closed.close();
    await assert.rejects(probe(new URL(`${url}/x`), options), {
      message: `GET ${url}/x failed: connection refused (ECONNREFUSED). Check that API_BASE_URL is right and the API is up.`,
    });
  });

  it('gives a ProbeError the code of its cause: timeout for a GET past the limit (issue 14)', async () => {
    await assert.rejects(probe(new URL(`${upstream.url}/slow`), { ...options, timeoutMs: 200 }), {
      name: 'ProbeError',
      code: 'timeout',
    });
  });

  it('gives a ProbeError the code of its cause: refused for a closed port (issue 14)', async () => {
    const closed = await listen(() => {});
    const url = closed.url;
    await closed.close();
    await assert.rejects(probe(new URL(`${url}/x`), options), { name: 'ProbeError', code: 'refused' });
  });

  it('gives a ProbeError the code of its cause: bad-port for a port fetch blocks, without connecting (issue 14)', async () => {
    await assert.rejects(probe(new URL('http://127.0.0.1:6000/x'), options), { name: 'ProbeError', code: 'bad-port' });
  });
});

describe('redactor', () => {
  it('removes the raw, JSON-escaped, doubly escaped and percent-encoded key from text', () => {
    const redact = redactor('se"c/r\\et+1');
    const inText =
      'a se"c/r\\et+1 b "se\\"c/r\\\\et+1" c se\\\\\\"c/r\\\\\\\\et+1 d ?k=se%22c%2Fr%5Cet%2B1 e se%22c%2fr%5cet%2b1';
    assert.equal(redact.text(inText), 'a [redacted] b "[redacted]" c [redacted] d ?k=[redacted] e [redacted]');
  });

  it('redacts only tool-result text, structured content and error messages of a protocol message', () => {
    const key = 'sk_live_0123456789';
    const message = {
      jsonrpc: '2.0',
      id: key,
      result: { content: [{ type: 'text', text: `a ${key}` }], structuredContent: { body: { [key]: key } } },
    };
    assert.deepEqual(redactor(key).message(message), {
      jsonrpc: '2.0',
      id: key,
      result: {
        content: [{ type: 'text', text: 'a [redacted]' }],
        structuredContent: { body: { [key]: '[redacted]' } },
      },
    });
    assert.deepEqual(
      redactor(key).message({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: `boom ${key}` } }),
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom [redacted]' } },
    );
  });

  it('leaves protocol messages alone for a key shorter than 8 characters', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"type":"text"}' }] } };
    assert.deepEqual(redactor('text').message(message), message);
  });

  it('redacts object keys too in data from the API', () => {
    assert.deepEqual(redactor('sk_live_9').value({ sk_live_9: { echo: 'Bearer sk_live_9' } }, true), {
      '[redacted]': { echo: 'Bearer [redacted]' },
    });
  });

  it('withholds the end of a truncated text whatever it holds, so a key prefix and a wrong guess look alike (case 49)', () => {
    assert.deepEqual(
      [
        redactor('sk_canary_SECRET123').tail('Bearer sk_canary_SECRET12'),
        redactor('sk_canary_SECRET123').tail('Bearer sk_cxxx'),
      ],
      ['[…end withheld]', '[…end withheld]'],
    );
  });
});

describe('createHandler (dispatch)', () => {
  const config = readConfig({ API_BASE_URL: 'http://127.0.0.1:9/v2', OPENAPI_DOC: `${HERE}openapi.json` });
  const handler = createHandler(config);

  it('answers an unknown method with -32601, before initialize too', async () => {
    assert.deepEqual(await handler.handle({ jsonrpc: '2.0', id: 0, method: 'server/discover' }), {
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32601, message: 'Method not found: server/discover' },
    });
  });

  it("echoes the client's protocol version when supported and offers the latest otherwise", async () => {
    const versions = [];
    for (const asked of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2099-01-01']) {
      const reply: any = await createHandler(config).handle({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      versions.push(reply.result.protocolVersion);
    }
    assert.deepEqual(versions, ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2025-11-25']);
  });

  it('leaves out annotations, titles and outputSchema for revisions that lack them', async () => {
    const old = createHandler(config);
    await old.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    const listed: any = await old.handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.deepEqual(Object.keys(listed.result.tools[0]), ['name', 'description', 'inputSchema']);
  });

  it('lists probe with the read-only hints and no method parameter', async () => {
    const listed: any = await handler.handle({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    const probeTool = listed.result.tools[0];
    assert.deepEqual(
      [probeTool.name, probeTool.annotations, Object.keys(probeTool.inputSchema.properties)],
      ['probe', { readOnlyHint: true, openWorldHint: true }, ['path', 'query', 'select']],
    );
  });

  it('answers an unknown tool with -32602 and lists the tools', async () => {
    assert.deepEqual(
      await handler.handle({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'delete_everything', arguments: {} },
      }),
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32602,
          message:
            'Unknown tool: delete_everything. Available: probe, field_presence, compare_fixture, probe_sample, describe_operation, draft_request, find_operation.',
        },
      },
    );
  });

  it('answers bad arguments to a known tool with an isError result naming the argument', async () => {
    const replies: any[] = [];
    for (const args of [{}, { path: '/x', method: 'DELETE' }, { path: 7 }])
      replies.push(
        await handler.handle({
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'probe', arguments: args },
        }),
      );
    assert.deepEqual(
      replies.map((reply) => [reply.result.isError, reply.result.content[0].text]),
      [
        [
          true,
          'Refused, nothing was sent: `path` is required (path: Path after the base URL, as find_operation gives it).',
        ],
        [true, 'Unknown argument for probe: method. It takes: path, query, select.'],
        [
          true,
          'Refused, nothing was sent: `path` must be a string, got an integer (path: Path after the base URL, as find_operation gives it).',
        ],
      ],
    );
  });

  it('keeps 20 and "20" apart and never answers a notification', async () => {
    const replies = await Promise.all([
      handler.handle({ jsonrpc: '2.0', id: 20, method: 'ping' }),
      handler.handle({ jsonrpc: '2.0', id: '20', method: 'ping' }),
      handler.handle({ jsonrpc: '2.0', method: 'ping' }),
      handler.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    ]);
    assert.deepEqual(replies, [
      { jsonrpc: '2.0', id: 20, result: {} },
      { jsonrpc: '2.0', id: '20', result: {} },
      undefined,
      undefined,
    ]);
  });

  it('answers valid JSON that is not a request with -32600', async () => {
    const replies = await Promise.all(
      [
        42,
        'x',
        { jsonrpc: '2.0', id: 5 },
        { jsonrpc: '1.0', id: 6, method: 'ping' },
        { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
        [],
      ].map((message) => handler.handle(message)),
    );
    assert.deepEqual(
      replies.map((reply: any) => [reply.id, reply.error.code]),
      [
        [null, -32600],
        [null, -32600],
        [5, -32600],
        [6, -32600],
        [null, -32600],
        [null, -32600],
      ],
    );
  });

  it('answers a fractional or oversized numeric id with -32600', async () => {
    const replies = await Promise.all([1.5, 1e300].map((id) => handler.handle({ jsonrpc: '2.0', id, method: 'ping' })));
    assert.deepEqual(
      replies.map((reply: any) => [reply.id, reply.error.code, reply.error.message]),
      [
        [
          null,
          -32600,
          'Invalid Request: `id` must be a string or an integer, got a number (MCP 2025-11-25, Base Protocol).',
        ],
        [
          null,
          -32600,
          'Invalid Request: `id` must be a string or an integer, got a number (MCP 2025-11-25, Base Protocol).',
        ],
      ],
    );
  });

  it('treats inherited names such as __proto__ and toString as unknown arguments', async () => {
    const reply: any = await handler.handle(
      JSON.parse(
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe","arguments":{"path":"/x","toString":1,"__proto__":{}}}}',
      ),
    );
    assert.deepEqual(
      [reply.result.isError, reply.result.content[0].text],
      [true, 'Unknown arguments for probe: toString, __proto__. It takes: path, query, select.'],
    );
  });

  /** The failure text of one tools/call with `args` (issue 8: every bad argument is an isError result naming it). */
  const refusal = async (name: string, args: Record<string, unknown>): Promise<[boolean, string]> => {
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 'bounds',
      method: 'tools/call',
      params: { name, arguments: args },
    });
    return [reply.result.isError, reply.result.content[0].text];
  };
  const many = (count: number, name: (index: number) => string): Record<string, string> =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [name(index), 'v']));

  it('issue 8: names the first five of 100,000 unknown arguments and the count', async () => {
    assert.deepEqual(await refusal('probe', { path: '/x', ...many(100000, (index) => `x${index}`) }), [
      true,
      'Unknown arguments for probe: x0, x1, x2, x3, x4 and 99995 more. It takes: path, query, select.',
    ]);
  });

  it('issue 8: refuses 200,000 paths from their count, naming maxItems', async () => {
    assert.deepEqual(await refusal('probe_sample', { paths: Array.from({ length: 200000 }, (_, index) => index) }), [
      true,
      'Refused, nothing was sent: `paths` has 200000 items, more than maxItems 10 (paths: concrete paths of one operation).',
    ]);
  });

  it('issue 8: refuses a query of 150,000 names from their count, naming maxProperties', async () => {
    assert.deepEqual(await refusal('probe', { path: '/x', query: many(150000, (index) => `q${index}`) }), [
      true,
      'Refused, nothing was sent: `query` has 150000 properties, more than maxProperties 100 (query: Query parameters, name to value).',
    ]);
  });

  it('issue 8: refuses a select longer than 1,024 characters, counting a surrogate pair as one', async () => {
    assert.deepEqual(
      [
        await refusal('probe', { path: '/x', select: `$${'[0]'.repeat(500000)}` }),
        await refusal('probe', { path: '/x', select: `$.${'😀'.repeat(1023)}` }),
      ],
      [
        [
          true,
          'Refused, nothing was sent: `select` is 1500001 characters long, more than maxLength 1024 (select: Part of the JSON body to return: "$.items[0]" or "/items/0").',
        ],
        [
          true,
          'Refused, nothing was sent: `select` is 1025 characters long, more than maxLength 1024 (select: Part of the JSON body to return: "$.items[0]" or "/items/0").',
        ],
      ],
    );
  });

  it('issue 8: refuses a draft with more than 64 headers or a header value longer than 8,192 characters', async () => {
    assert.deepEqual(
      [
        await refusal('draft_request', {
          method: 'POST',
          path: '/meters',
          headers: many(100000, (index) => `X-H${index}`),
        }),
        await refusal('draft_request', { method: 'POST', path: '/meters', headers: { 'X-Long': 'a'.repeat(8193) } }),
      ],
      [
        [true, 'Refused, nothing was sent: `headers` has 100000 properties, more than maxProperties 64.'],
        [true, "Refused, nothing was sent: `headers['X-Long']` is 8193 characters long, more than maxLength 8192."],
      ],
    );
  });

  it('issue 8: refuses arguments past 64 KiB of JSON other than the fixture, naming the limit', async () => {
    assert.deepEqual(
      [
        await refusal('probe_sample', {
          paths: Array.from({ length: 10 }, (_, index) => `/${index}${'a'.repeat(7000)}`),
        }),
        await refusal('compare_fixture', { path: `/${'a'.repeat(70000)}`, fixture: {} }),
      ],
      [
        [
          true,
          'Refused, nothing was sent: the arguments take 70061 characters of JSON, more than the limit of 65536 (64 KiB); send a shorter path, query, selector or header values.',
        ],
        [
          true,
          'Refused, nothing was sent: the arguments other than `fixture` take 70012 characters of JSON, more than the limit of 65536 (64 KiB); send a shorter path, query, selector or header values.',
        ],
      ],
    );
  });

  it('issue 8: takes a fixture far larger than 64 KiB', async () => {
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 'bounds',
      method: 'tools/call',
      params: { name: 'compare_fixture', arguments: { path: '/../x', fixture: { text: 'a'.repeat(200000) } } },
    });
    // Past the argument checks: refused by the URL check, which reads the path, not the size.
    assert.deepEqual(
      [reply.result.isError, reply.result.content[0].text],
      [
        true,
        'Refused, nothing was sent: `path` "/../x" has the dot segment "..", which would climb out of the API\'s base path; name the resource directly.',
      ],
    );
  });

  it('answers a batch element by element', async () => {
    assert.deepEqual(
      await handler.handle([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
      ]),
      [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: nope' } },
      ],
    );
  });

  it('answers a handler that throws with -32603 and its message', async () => {
    const broken = createHandler(config, {
      documents: { get: async () => ({ operations: null }) as any },
      fetch: async () => new Response('{}', { headers: { 'content-type': 'application/json' } }),
    });
    const reply: any = await broken.handle({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters' } },
    });
    assert.deepEqual(
      [reply.id, reply.error.code, reply.error.message.startsWith('Internal error: ')],
      [9, -32603, true],
    );
  });

  it('sends no response to a cancelled call (MCP Cancellation)', async () => {
    let release: () => void = () => {};
    const slow = createHandler(config, {
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          release = () => reject(new Error('never'));
        }),
    });
    const pending = slow.handle({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await slow.handle({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'slow', reason: 'user' },
    });
    assert.equal(await pending, undefined);
    release();
  });
});

describe('stdio transport (spawned probe-server.ts)', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn({ key: CANARY });
  });
  after(() => api.close());

  it('reassembles messages split across writes, with a pause (case 01-stdio-chunk-boundaries)', async () => {
    const data = caseFile('01-stdio-chunk-boundaries');
    const client = start({ API_BASE_URL: api.url });
    client.child.stdin.write(data.input.stdin_chunks[0].text);
    await new Promise((resolve) => setTimeout(resolve, data.input.stdin_chunks[1].pause_ms_before));
    client.child.stdin.write(data.input.stdin_chunks[1].text);
    const messages = await linesAfter(client, 3);
    assert.deepEqual(
      [
        messages.length,
        byId(messages, 1).result.serverInfo.name,
        byId(messages, 2).result,
        byId(messages, 3).result.tools.some((tool: any) => tool.name === 'probe'),
      ],
      [3, 'openapi-probe', {}, true],
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(client.child.exitCode, null);
    assert.equal(await client.close(), 0);
  });

  it('reassembles the same bytes written one byte at a time (case 01, variant B)', async () => {
    const data = caseFile('01-stdio-chunk-boundaries');
    const client = start({ API_BASE_URL: api.url });
    const bytes = Buffer.from(data.input.stdin_chunks.map((chunk: any) => chunk.text).join(''));
    for (const byte of bytes) client.child.stdin.write(Buffer.from([byte]));
    const messages = await linesAfter(client, 3);
    assert.deepEqual(
      messages.map((message) => [message.id, 'result' in message]),
      [
        [1, true],
        [2, true],
        [3, true],
      ],
    );
    assert.equal(await client.close(), 0);
  });

  it('reads a UTF-8 character split between two writes', async () => {
    const client = start({ API_BASE_URL: api.url });
    const bytes = Buffer.from('{"jsonrpc":"2.0","id":"\u00e9\u20ac","method":"ping"}\n');
    const cut = bytes.indexOf(0xe2) + 1;
    client.child.stdin.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.child.stdin.write(bytes.subarray(cut));
    assert.deepEqual(await linesAfter(client, 1), [{ jsonrpc: '2.0', id: 'é€', result: {} }]);
    await client.close();
  });

  it('accepts CRLF and blank lines and writes LF only (case 03-stdio-crlf-line-endings)', async () => {
    const data = caseFile('03-stdio-crlf-line-endings');
    const client = start({ API_BASE_URL: api.url });
    client.child.stdin.write(data.input.stdin_text);
    const messages = await linesAfter(client, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      messages.map((message) => [message.id, 'result' in message]),
      [
        [1, true],
        [2, true],
      ],
    );
    assert.equal(client.child.exitCode, null);
    assert.equal(await client.close(), 0);
    assert.equal(client.stdoutLines.join('\n').includes('\r'), false);
  });

  it('answers malformed lines with -32700 and id null and keeps going; a BOM is ignored (case 04-stdio-parse-error-keeps-running)', async () => {
    const data = caseFile('04-stdio-parse-error-keeps-running');
    const client = start({ API_BASE_URL: api.url });
    for (const entry of data.input.stdin_lines_in_order) {
      const bytes =
        typeof entry === 'string'
          ? Buffer.from(entry)
          : Buffer.concat([Buffer.from(entry.hex_prefix, 'hex'), Buffer.from(entry.then_text)]);
      client.child.stdin.write(Buffer.concat([bytes, Buffer.from('\n')]));
    }
    const messages = await linesAfter(client, 6);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Replies may come in any order (JSON-RPC 2.0, 5); compare them sorted.
    const replies = messages
      .map((message) => [message.id, message.error?.code ?? 'result'])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(replies, [
      [1, 'result'],
      [2, 'result'],
      [3, 'result'],
      [4, 'result'],
      [null, -32700],
      [null, -32700],
    ]);
    assert.equal(client.child.exitCode, null);
    await client.close();
  });

  it('echoes falsy ids with their type and answers a null id with -32600 (case 06-stdio-falsy-and-null-ids)', async () => {
    const data = caseFile('06-stdio-falsy-and-null-ids');
    const client = start({ API_BASE_URL: api.url });
    client.child.stdin.write(data.input.stdin_lines_in_order.join('\n') + '\n');
    const messages = await linesAfter(client, 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      messages.map((message) => [message.id, message.error?.code ?? 'result']),
      [
        [0, 'result'],
        ['', 'result'],
        [null, -32600],
        [42, 'result'],
      ],
    );
    assert.equal(client.stdoutLines.length, data.expected.stdout_message_count);
    await client.close();
  });

  it('exits 0 when stdin is already at EOF (case 07-stdio-exit-on-stdin-eof, A)', async () => {
    const child = spawn(process.execPath, nodeArgsFor(`${HERE}probe-server.ts`), {
      cwd: HERE,
      env: { PATH: process.env.PATH, API_BASE_URL: api.url, API_KEY: CANARY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const began = Date.now();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.deepEqual([code, Date.now() - began < 4000], [0, true]);
  });

  it('writes every answer, then exits 0 when stdin closes (case 07, B)', async () => {
    const client = start({ API_BASE_URL: api.url });
    client.child.stdin.write(
      `${INIT}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`,
    );
    await linesAfter(client, 2);
    const began = Date.now();
    assert.equal(await client.close(), 0);
    assert.ok(Date.now() - began < 2000);
  });

  it('exits 0 on stdin close though a keep-alive socket is open (case 07, C)', async () => {
    const keepAlive = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive', 'keep-alive': 'timeout=60' });
      res.end('{}');
    });
    const client = start({ API_BASE_URL: `${keepAlive.url}/`, OPENAPI_DOC: `${HERE}openapi.json` });
    await client.initialize('2025-06-18');
    const called = await client.callTool('probe', { path: '/meters' });
    assert.equal(called.structuredContent.status, 200);
    const began = Date.now();
    assert.equal(await client.close(), 0);
    assert.ok(Date.now() - began < 2000);
    await keepAlive.close();
  });

  it('writes nothing but JSON-RPC to stdout, on refusals and network failures too (case 08-stdio-stdout-only-jsonrpc)', async () => {
    const data = caseFile('08-stdio-stdout-only-jsonrpc');
    const client = start({ API_BASE_URL: data.input.config.base_url });
    client.child.stdin.write(data.input.stdin_lines_in_order.join('\n') + '\n');
    const messages = await linesAfter(client, 4);
    assert.equal(await client.close(), 0);
    assert.equal(client.stdoutLines.length, 4);
    assert.ok(client.stdoutLines.every((line) => line.startsWith('{')));
    assert.deepEqual(
      messages.map((message) => [message.jsonrpc, message.id, 'result' in message]),
      [
        ['2.0', 1, true],
        ['2.0', 2, true],
        ['2.0', 3, true],
        ['2.0', 4, true],
      ],
    );
    assert.deepEqual([byId(messages, 3).result.isError, byId(messages, 4).result.isError], [true, true]);
    assert.match(
      byId(messages, 4).result.content[0].text,
      /^GET http:\/\/127\.0\.0\.1:9\/meters failed: the probe will not connect to this port, as fetch would not \(WHATWG Fetch, "bad port" list/,
    );
    assert.match(client.stderr(), /serving http:\/\/127\.0\.0\.1:9 \(GET only\)/);
  });

  // MAX_LINE is 2 MiB since the document moved to the check worker (issue 8: a 22 MB line held ping for 0.8-1.9 s); was a 5 MB line.
  it('handles a single line of MAX_LINE characters, read in many chunks', async () => {
    const client = start({ API_BASE_URL: api.url });
    const id = 'x'.repeat(MAX_LINE - '{"jsonrpc":"2.0","id":"","method":"ping"}'.length);
    client.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n');
    const [message] = await linesAfter(client, 1);
    assert.deepEqual([message.id.length, message.result], [id.length, {}]);
    await client.close();
  });

  it('answers concurrent requests as they finish, each with its own id', async () => {
    const slow = await listen((_req, res) =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"slow":true}');
      }, 500),
    );
    const client = start({ API_BASE_URL: slow.url });
    client.child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","arguments":{"path":"/slow"}}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    );
    const messages = await linesAfter(client, 2);
    assert.deepEqual(
      messages.map((message) => message.id),
      [2, 1],
    );
    assert.deepEqual(messages[1].result.structuredContent.body, { slow: true });
    await client.close();
    await slow.close();
  });

  it('finishes a call in flight before exiting on stdin close', async () => {
    const slow = await listen((_req, res) =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }, 300),
    );
    const client = start({ API_BASE_URL: slow.url });
    try {
      // One call first, so the check worker has started (0.5 to 1.5 s under tsx on a loaded machine) and the
      // shutdown grace covers only the call in flight.
      await client.initialize();
      await client.callTool('probe', { path: '/warm' });
      const before = client.stdoutLines.length;
      client.child.stdin.write(
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"probe","arguments":{"path":"/x"}}}\n',
      );
      assert.equal(await client.close(), 0);
      assert.deepEqual(JSON.parse(client.stdoutLines[before]!).result.structuredContent.body, []);
    } finally {
      client.child.kill();
      await slow.close();
    }
  });

  it('exits 2 with a message on stderr and nothing on stdout when API_BASE_URL is missing', async () => {
    const child = spawn(process.execPath, nodeArgsFor(`${HERE}probe-server.ts`), {
      cwd: HERE,
      env: { PATH: process.env.PATH, API_KEY: CANARY },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.deepEqual(
      [code, out, err],
      [
        2,
        '',
        "openapi-probe: API_BASE_URL is not set. Set it to the API's base URL, e.g. API_BASE_URL=https://api.example.com/v2\n",
      ],
    );
  });
});

describe('probe against the stand-in API (spawned server)', () => {
  let api: StandIn;
  let client: StdioClient;
  before(async () => {
    api = await startStandIn({ key: CANARY });
    client = start({ API_BASE_URL: api.url, OPENAPI_DOC: `${HERE}openapi.json` });
    await client.initialize();
  });
  after(async () => {
    await client.close();
    await api.close();
  });

  it('returns the body, the operation and the findings of one meter', async () => {
    const called = await client.callTool('probe', { path: '/meters/mtr_1' });
    const result = called.structuredContent;
    assert.deepEqual(JSON.parse(called.content[0].text), result);
    assert.deepEqual(
      {
        status: result.status,
        contentType: result.contentType,
        bytes: result.bytes,
        truncated: result.truncated,
        body: result.body,
        operation: result.operation,
        matchesContract: result.matchesContract,
        kinds: result.findings.map((finding: any) => [finding.kind, finding.path, finding.severity]),
      },
      {
        status: 200,
        contentType: 'application/json; charset=utf-8',
        bytes: Buffer.byteLength(JSON.stringify(METERS.mtr_1)),
        truncated: false,
        body: METERS.mtr_1,
        operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
        matchesContract: true,
        kinds: [['undocumented', '$.firmwareVersion', 'warning']],
      },
    );
    assert.equal(called.isError, undefined);
  });

  it('keeps the base prefix and sends the key as a bearer token', async () => {
    await client.callTool('probe', { path: 'meters', query: { status: 'inactive' } });
    assert.deepEqual(api.requests.at(-1), { method: 'GET', path: '/v2/meters?status=inactive', authorized: true });
  });

  it('marks a 404 as isError and checks it against the documented error response', async () => {
    const called = await client.callTool('probe', { path: '/meters/mtr_9' });
    assert.deepEqual(
      [
        called.isError,
        called.structuredContent.status,
        called.structuredContent.findings,
        called.structuredContent.matchesContract,
      ],
      [true, 404, [], true],
    );
  });

  it('says which operations are nearest when none matches', async () => {
    const called = await client.callTool('probe', { path: '/meter/mtr_1' });
    assert.deepEqual(
      [called.structuredContent.status, called.structuredContent.operation, called.structuredContent.validated],
      [404, null, false],
    );
    assert.match(
      called.structuredContent.validationNote,
      /^No GET operation in the document matches \/meter\/mtr_1\. Nearest: /,
    );
  });

  it('sends nothing for a refused path', async () => {
    const before = api.requests.length;
    const called = await client.callTool('probe', { path: '//127.0.0.1/v2/meters' });
    assert.deepEqual([called.isError, api.requests.length], [true, before]);
  });

  it('sends the key raw in API_KEY_HEADER when set', async () => {
    const echo = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          authorization: req.headers.authorization ?? null,
          hasKey: req.headers['x-api-key'] === CANARY,
        }),
      );
    });
    const other = start({ API_BASE_URL: echo.url, API_KEY_HEADER: 'X-API-Key' });
    await other.initialize();
    const called = await other.callTool('probe', { path: '/' });
    assert.deepEqual(called.structuredContent.body, { authorization: null, hasKey: true });
    await other.close();
    await echo.close();
  });

  it('redacts the key when the API echoes it back', async () => {
    const echo = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ youSent: req.headers.authorization }));
    });
    const other = start({ API_BASE_URL: echo.url });
    await other.initialize();
    const called = await other.callTool('probe', { path: '/echo' });
    assert.deepEqual(called.structuredContent.body, { youSent: 'Bearer [redacted]' });
    await other.close();
    await echo.close();
  });
});

describe('probe with a document that cannot be used', () => {
  it('starts, probes, and says why nothing was checked', async () => {
    const api = await startStandIn({ key: CANARY });
    const client = start({ API_BASE_URL: api.url, OPENAPI_DOC: `${HERE}fixtures/documents/dangling-ref.json` });
    await client.initialize();
    const result = (await client.callTool('probe', { path: '/meters/mtr_2' })).structuredContent;
    assert.deepEqual(
      [result.status, result.body, result.validated, result.findings],
      [200, METERS.mtr_2, false, undefined],
    );
    assert.match(
      result.validationNote,
      /^The OpenAPI document could not be loaded, so the response was not checked: Cannot load OpenAPI document .*dangling-ref\.json at #\//,
    );
    await client.close();
    assert.match(client.stderr(), /document not loaded, probes go unchecked: Cannot load OpenAPI document/);
    await api.close();
  });

  it('does not check a binary body against a schema', async () => {
    const png = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    });
    const handler = createHandler(readConfig({ API_BASE_URL: `${png.url}/v2`, OPENAPI_DOC: `${HERE}openapi.json` }));
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters/mtr_1' } },
    });
    const result = reply.result.structuredContent;
    assert.deepEqual(
      [result.bytes, result.body, result.validated, result.validationNote, result.findings],
      [4, null, false, 'Binary body (image/png), not shown.', undefined],
    );
    await png.close();
  });
});

describe('judging bodies (dispatch with an injected fetch)', () => {
  const call = async (response: () => Response, path = '/jobs/j1', doc = 'fixtures/documents/empty-bodies.json') => {
    const handler = createHandler(
      readConfig({ API_BASE_URL: 'https://api.example.com', OPENAPI_DOC: `${HERE}${doc}` }),
      { fetch: async () => response() },
    );
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path } },
    });
    return reply.result.structuredContent;
  };
  const pick = (result: any) => ({
    status: result.status,
    bytes: result.bytes,
    validated: result.validated,
    matchesContract: result.matchesContract,
    findings: result.findings?.map((finding: any) => [finding.kind, finding.path, finding.message]),
  });

  it('accepts an empty body where the document declares no content', async () => {
    assert.deepEqual(pick(await call(() => new Response(null, { status: 202 }))), {
      status: 202,
      bytes: 0,
      validated: true,
      matchesContract: true,
      findings: [],
    });
  });

  it('reports an empty body where the document declares JSON content as missing at $', async () => {
    assert.deepEqual(
      pick(await call(() => new Response('', { status: 200, headers: { 'content-type': 'application/json' } }))),
      {
        status: 200,
        bytes: 0,
        validated: true,
        matchesContract: false,
        findings: [
          ['missing', '$', 'the body is empty, but the document declares application/json content for status 200'],
        ],
      },
    );
  });

  it('flags a body sent for a status the document declares without content', async () => {
    assert.deepEqual(
      pick(await call(() => new Response('{"x":1}', { status: 202, headers: { 'content-type': 'application/json' } }))),
      {
        status: 202,
        bytes: 7,
        validated: false,
        matchesContract: undefined,
        findings: [
          ['undocumented', '$', 'a 7-byte body was sent, but the document declares no content for status 202'],
        ],
      },
    );
  });

  it('reports an undocumented status of an empty response', async () => {
    assert.deepEqual(pick(await call(() => new Response(null, { status: 204 }))), {
      status: 204,
      bytes: 0,
      validated: false,
      matchesContract: false,
      findings: [
        [
          'undocumentedStatus',
          '$',
          "status 204 is not documented for GET /jobs/{id}: responses has no '204', '2XX' or 'default' entry",
        ],
      ],
    });
  });

  it('returns JSON nested deeper than 256 levels as text, unchecked, instead of failing', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const result = await call(() => new Response(deep, { headers: { 'content-type': 'application/json' } }));
    assert.deepEqual(
      [result.body.length, result.validated, result.validationNote],
      [10000, false, 'The JSON body nests deeper than 256 levels; shown as text and not checked.'],
    );
  });

  it('says which numbers JSON.parse changed', async () => {
    const result = await call(
      () =>
        new Response('{"id":"j1","big":9007199254740993,"huge":1e400,"fine":12345}', {
          headers: { 'content-type': 'application/json' },
        }),
    );
    // Issue 7 / case 45: the note became one warning per number, at its instance path.
    assert.deepEqual(
      [
        result.body,
        result.note,
        result.matchesContract,
        result.findings.filter((finding: any) => finding.kind === 'inexactNumber'),
      ],
      [
        { id: 'j1', big: 9007199254740992, huge: Infinity, fine: 12345 },
        undefined,
        true,
        [
          {
            kind: 'inexactNumber',
            severity: 'warning',
            path: '$.big',
            rule: 'RFC 8259, 6',
            values: ['9007199254740993', '9007199254740992'],
            message:
              'the number 9007199254740993 cannot be held exactly in a double and reads as 9007199254740992: read it as a string or BigInt',
          },
          {
            kind: 'inexactNumber',
            severity: 'warning',
            path: '$.huge',
            rule: 'RFC 8259, 6',
            values: ['1e400', 'null'],
            message:
              'the number 1e400 cannot be held exactly in a double and reads as null: read it as a string or BigInt',
          },
        ],
      ],
    );
  });

  it('does not call a body checked when the response schema is a $ref loop', async () => {
    const result = await call(
      () => new Response('{"a":1}', { headers: { 'content-type': 'application/json' } }),
      '/loop',
      'fixtures/documents/ref-loop.json',
    );
    assert.deepEqual(
      [result.validated, result.matchesContract, result.findings.map((finding: any) => finding.kind)],
      [false, undefined, ['unresolvedRef']],
    );
    assert.match(
      result.validationNote,
      /^The response schema could not be followed, so the body was not checked: .*loops/,
    );
  });

  it('judges an empty body the same whatever its Content-Type', async () => {
    const results = await Promise.all(
      ['text/plain', 'application/json', null].map((type) =>
        call(() => new Response('', { status: 200, headers: type ? { 'content-type': type } : {} })),
      ),
    );
    assert.deepEqual(
      results.map((result) => result.findings.map((finding: any) => [finding.kind, finding.path])),
      [[['missing', '$']], [['missing', '$']], [['missing', '$']]],
    );
  });

  it('keeps a body key named __proto__ as a key', async () => {
    const result = await call(
      () => new Response('{"id":"j1","__proto__":{"admin":true}}', { headers: { 'content-type': 'application/json' } }),
    );
    assert.deepEqual(
      [
        Object.keys(result.body),
        result.body.admin,
        result.findings.map((finding: any) => [finding.kind, finding.path]),
      ],
      [['id', '__proto__'], undefined, [['undocumented', '$.__proto__']]],
    );
  });

  it('does not strip the document base path from a path that already repeats the base prefix', async () => {
    const handler = createHandler(
      readConfig({ API_BASE_URL: 'https://api.example.com/v2', OPENAPI_DOC: `${HERE}openapi.json` }),
      {
        fetch: async () =>
          new Response('{"code":"not_found","message":"No route."}', {
            status: 404,
            headers: { 'content-type': 'application/json' },
          }),
      },
    );
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/v2/meters/mtr_1' } },
    });
    const result = reply.result.structuredContent;
    assert.deepEqual(
      [result.url, result.operation, result.findings],
      ['https://api.example.com/v2/v2/meters/mtr_1', null, undefined],
    );
  });
});

describe('the API key', () => {
  it('is refused at start-up when it cannot travel in a header, without being shown', () => {
    assert.throws(
      () => readConfig({ API_BASE_URL: 'https://a.example', API_KEY: 'sk_abc\ndef' }, '/nonexistent'),
      (error: Error) => {
        assert.equal(
          error.message,
          'API_KEY holds a control character or a character outside Latin-1, which cannot travel in an HTTP header; check the value (it is not shown here)',
        );
        return true;
      },
    );
  });

  it('is trimmed as fetch sends it, and redacted when echoed, percent-encoded, or cut at the budget', async () => {
    const echo = await listen((req, res) => {
      const sent = String(req.headers.authorization).slice('Bearer '.length);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `https://login.example/?k=${encodeURIComponent(sent)}` });
        return res.end();
      }
      res.writeHead(200, { 'content-type': req.url === '/cut' ? 'text/plain' : 'application/json' });
      res.end(req.url === '/cut' ? 'x'.repeat(975) + `Bearer ${sent}` : JSON.stringify({ [sent]: `Bearer ${sent}` }));
    });
    const key = ` ${CANARY}/+"\\ `;
    const client = start({ API_BASE_URL: echo.url, API_KEY: key, PROBE_MAX_BYTES: '1000' });
    await client.initialize();
    const bodies = [];
    for (const path of ['/json', '/redirect', '/cut']) {
      const called = await client.callTool('probe', { path });
      bodies.push([
        called.structuredContent.body,
        called.structuredContent.location,
        JSON.parse(called.content[0].text).body,
      ]);
    }
    assert.deepEqual(bodies[0], [
      { '[redacted]': 'Bearer [redacted]' },
      undefined,
      { '[redacted]': 'Bearer [redacted]' },
    ]);
    assert.deepEqual(bodies[1], ['', 'https://login.example/?k=[redacted]', '']);
    assert.deepEqual(
      [bodies[2][0].endsWith('x'.repeat(10) + 'Bearer [redacted]'), bodies[2][0] === bodies[2][2]],
      [true, true],
    );
    const output = client.stdoutLines.join('\n') + client.stderr();
    assert.deepEqual([output.includes(CANARY), output.includes(CANARY.slice(0, 12))], [false, false]);
    await client.close();
    await echo.close();
  });

  it('never corrupts a protocol message, however word-like (a key under 8 characters is refused at start-up)', async () => {
    for (const key of ['capabilities', 'listChanged', 'protocolVersion', 'structuredContent', '00000000']) {
      const client = start({ API_BASE_URL: 'http://127.0.0.1:9', API_KEY: key });
      const init = await client.initialize();
      const called = await client.callTool('probe', { path: '/x' });
      await client.close();
      const envelopes = client.stdoutLines
        .map((line) => JSON.parse(line))
        .map((message) => [message.jsonrpc, message.id]);
      assert.deepEqual(
        [init.capabilities, called.content[0].type, called.isError, envelopes],
        [
          { tools: { listChanged: true } },
          'text',
          true,
          [
            ['2.0', 1],
            ['2.0', 2],
          ],
        ],
        key,
      );
    }
  });

  it('is redacted in mixed encodings: escaped solidus, partial percent-encoding, form encoding', () => {
    const key = 'sk_live_ab/cd+e f';
    const redact = redactor(key);
    const echoes = [
      'sk_live_ab\\/cd+e f',
      'sk_live_ab/cd%2Be%20f',
      new URLSearchParams({ k: key }).toString(),
      `{"k":"${key}"}`,
    ];
    assert.deepEqual(echoes.map(redact.text), ['[redacted]', '[redacted]', 'k=[redacted]', '{"k":"[redacted]"}']);
    assert.deepEqual(
      [redact.tail('Bearer sk_live_ab%2Fc'), redactor('1234567890123').value({ k: 1234567890123 }, true)],
      ['[…end withheld]', { k: '[redacted]' }],
    );
  });

  it("appears in no byte of any stdout or stderr of this file's servers", () => {
    assert.ok(spawned.length >= 15);
    const leaks = spawned.filter((client) => (client.stdoutLines.join('\n') + client.stderr()).includes(CANARY)).length;
    assert.equal(leaks, 0);
  });
});

describe('compare_fixture (dispatch against the stand-in API)', () => {
  let api: StandIn;
  let handler: ReturnType<typeof createHandler>;
  let id = 0;
  const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
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
    api = await startStandIn({ key: 'demo-key' });
    handler = createHandler(
      readConfig({ API_BASE_URL: api.url, API_KEY: 'demo-key', OPENAPI_DOC: `${HERE}openapi.json` }),
    );
  });
  after(async () => {
    await api.close();
  });

  it('lists fields only live, only in the fixture, and changed values, probing the path now', async () => {
    const fixture = { ...METERS.mtr_1, serial: 'SN-OLD', retiredAt: null } as Record<string, unknown>;
    delete fixture.firmwareVersion;
    const called = await call('compare_fixture', { path: '/meters/mtr_1', fixture });
    assert.deepEqual(
      { ...called.structuredContent, live: { probedNow: called.structuredContent.live.probedNow } },
      {
        path: '/meters/mtr_1',
        live: { probedNow: true },
        onlyLive: ['$.firmwareVersion'],
        onlyFixture: ['$.retiredAt'],
        changed: [{ path: '$.serial', fixture: 'SN-OLD', live: 'SN-0041-7781' }],
        same: false,
      },
    );
  });

  it('compares a fixture given as a string of JSON text like the value itself', async () => {
    const fixture = { ...METERS.mtr_1, serial: 'SN-OLD' } as Record<string, unknown>;
    const called = await call('compare_fixture', { path: '/meters/mtr_1', fixture: JSON.stringify(fixture) });
    assert.deepEqual(
      [called.structuredContent.changed, called.structuredContent.onlyFixture],
      [[{ path: '$.serial', fixture: 'SN-OLD', live: 'SN-0041-7781' }], []],
    );
  });

  it('refuses a string fixture nesting deeper than 256 levels, measured in the check worker (attack round 5, B3)', async () => {
    const called = await call('compare_fixture', {
      path: '/meters/mtr_1',
      fixture: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    });
    assert.deepEqual(called, {
      content: [
        { type: 'text', text: '`fixture` nests deeper than 256 levels; compare a smaller part of the record.' },
      ],
      isError: true,
    });
  });

  it('refuses a string fixture that is not JSON text', async () => {
    const called = await call('compare_fixture', { path: '/meters/mtr_1', fixture: '{"id": mtr_1}' });
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: '`fixture` is a string that does not parse as JSON; pass the recorded body itself (an object or array).',
        },
      ],
      isError: true,
    });
  });

  it('says there is nothing to compare when the live record answers with an error status', async () => {
    const called = await call('compare_fixture', { path: '/meters/mtr_404', fixture: { id: 'mtr_404' } });
    assert.deepEqual(
      [
        called.isError,
        called.content[0].text.startsWith(
          'GET /meters/mtr_404 did not return a complete JSON 2xx body, so there is nothing to compare: {"url"',
        ),
        called.content[0].text.includes('"status":404'),
      ],
      [true, true, true],
    );
  });
});

describe('tools that need the document, without one', () => {
  it('says what is missing without talking about a response that was never checked', async () => {
    const handler = createHandler(readConfig({ API_BASE_URL: 'https://api.example.com' }, '/nonexistent'));
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'describe_operation', arguments: { operation: 'getMeter' } },
    });
    assert.deepEqual(withoutRequestId(reply.result), {
      content: [
        {
          type: 'text',
          text: 'describe_operation needs the OpenAPI document. No OpenAPI document is configured: set OPENAPI_DOC.',
        },
      ],
      isError: true,
    });
  });
});

describe('a complete JSON 2xx body over the 1 MiB a session keeps (new-user trial)', () => {
  let server: Server;
  let handler: ReturnType<typeof createHandler>;
  const big = JSON.stringify({
    id: 'mtr_big',
    serial: 'SN-0001',
    status: 'active',
    installedAt: '2026-01-01T00:00:00Z',
    lastReading: null,
    log: 'x'.repeat(1_200_000),
  });
  let id = 0;
  const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
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
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(big);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handler = createHandler(
      readConfig({
        API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        OPENAPI_DOC: `${HERE}openapi.json`,
        PROBE_RATE_PER_MIN: '1000',
      }),
    );
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("says in the probe's note that the body is not kept, and why", async () => {
    const called = await call('probe', { path: '/meters/mtr_big' });
    assert.deepEqual(
      [called.structuredContent.status, called.structuredContent.truncated, called.structuredContent.note],
      [
        200,
        false,
        `Not kept for field_presence or compare_fixture: the body is ${big.length} bytes, over the 1048576 bytes a session keeps per body.`,
      ],
    );
  });

  it('gives that reason in field_presence, not "nothing probed"', async () => {
    const called = await call('field_presence', { operation: 'getMeter' });
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: '1 complete JSON 2xx response of GET /meters/{meterId} was probed but not kept: each was over the 1048576 bytes a session keeps per body. Probe smaller records (a page size or filter parameter), or call probe_sample with their paths, which compares the records it probes itself.',
        },
      ],
      isError: true,
    });
  });

  it('gives that reason in compare_fixture, not "did not return a complete JSON 2xx body"', async () => {
    const called = await call('compare_fixture', { path: '/meters/mtr_big2', fixture: { id: 'mtr_big2' } });
    assert.deepEqual(called, {
      content: [
        {
          type: 'text',
          text: `GET /meters/mtr_big2 returned a complete JSON 2xx body of ${big.length} bytes, over the 1048576 bytes a session keeps per body, so it cannot be compared. Compare a smaller record (a page size or filter parameter).`,
        },
      ],
      isError: true,
    });
  });
});

describe('a 401 says how the key was sent (new-user trial)', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn({ key: 'right-key-0123456789' });
  });
  after(() => api.close());
  const noteOf = async (env: Record<string, string>) => {
    const handler = createHandler(readConfig({ API_BASE_URL: api.url, OPENAPI_DOC: `${HERE}openapi.json`, ...env }));
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/meters/mtr_1' } },
    });
    return [reply.result.structuredContent.status, reply.result.structuredContent.note];
  };

  it('names the Bearer header and API_KEY_HEADER when the key is wrong', async () => {
    assert.deepEqual(await noteOf({ API_KEY: 'wrong-key-0123456789' }), [
      401,
      'The API answered 401; the key was sent as `Authorization: Bearer <API_KEY>` (set API_KEY_HEADER, e.g. X-API-Key, to send it raw in another header). Check the key, and the header the API expects it in.',
    ]);
  });

  it('names the header API_KEY_HEADER chose', async () => {
    assert.deepEqual(await noteOf({ API_KEY: 'right-key-0123456789', API_KEY_HEADER: 'X-API-Key' }), [
      401,
      'The API answered 401; the key was sent raw in the header X-API-Key (API_KEY_HEADER). Check the key, and the header the API expects it in.',
    ]);
  });

  it('says the key holds "Bearer " when the header would say it twice', async () => {
    assert.deepEqual(await noteOf({ API_KEY: 'Bearer right-key-0123456789' }), [
      401,
      'The API answered 401; API_KEY starts with "Bearer ", and the key is sent as `Authorization: Bearer <API_KEY>`, so the header says Bearer twice. Set API_KEY to the key alone.',
    ]);
  });

  it('says the key is an unexpanded variable reference when a host passed ${API_KEY} on as written', async () => {
    assert.deepEqual(await noteOf({ API_KEY: '${API_KEY}' }), [
      401,
      "The API answered 401; API_KEY holds a variable reference ($NAME or ${NAME}), not a key: the host passed it on without expanding it. Put the key itself in the configuration's env.",
    ]);
  });

  it('says no key was sent when API_KEY is not set', async () => {
    assert.deepEqual(await noteOf({}), [
      401,
      "The API answered 401 and no key was sent: API_KEY is not set in the server's environment.",
    ]);
  });
});

describe("a path that repeats the base URL's prefix (new-user trial)", () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn({ key: 'right-key-0123456789' });
  });
  after(() => api.close());

  it('says the base URL already ends in the prefix, and gives the path without it', async () => {
    const handler = createHandler(
      readConfig({ API_BASE_URL: api.url, API_KEY: 'right-key-0123456789', OPENAPI_DOC: `${HERE}openapi.json` }),
    );
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/v2/meters/mtr_1' } },
    });
    const structured = reply.result.structuredContent;
    assert.deepEqual(
      [structured.status, structured.validationNote],
      [
        404,
        'No GET operation in the document matches /v2/meters/mtr_1. Nearest: GET /meters/{meterId}, GET /meters/{meterId}/readings, GET /meters. API_BASE_URL already ends in /v2: give the path without it (/meters/mtr_1).',
      ],
    );
  });
});

describe('a key with non-ASCII look-alikes in header fields and latin1-labelled bodies (attack round 7, B1-7)', () => {
  const KEY7 = 'sk-canary-0123456789abcdef';
  const spelled = KEY7.replace(/-/g, '\u2010');
  let server: Server;
  let handler: ReturnType<typeof createHandler>;
  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/v2/moved') {
        response.writeHead(302, { location: Buffer.from(`/v2/next?token=${spelled}`, 'utf8').toString('latin1') });
        response.end();
      } else {
        response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        response.end(Buffer.from(`token ${spelled} end`, 'utf8'));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handler = createHandler(
      readConfig({ API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`, API_KEY: KEY7 }),
    );
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const probed = async (path: string) =>
    (
      (await handler.handle({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'probe', arguments: { path } },
      })) as any
    ).result.structuredContent;

  it("reads a header field's UTF-8 bytes as UTF-8, so the key in it is redacted", async () => {
    assert.equal((await probed('/moved')).location, '/v2/next?token=[redacted]');
  });

  it('reads a body labelled iso-8859-1 as UTF-8 when that reading holds the key, and says so', async () => {
    const result = await probed('/text');
    assert.deepEqual(
      [result.body, result.note],
      ['token [redacted] end', 'The bytes are UTF-8 although labelled iso-8859-1; read as UTF-8.'],
    );
  });
});
