// The curl line of draft_request run as written, by curl itself, against a node:http server on 127.0.0.1: what the
// server received (method, path and query as raw bytes, Content-Type, body bytes) must be the envelope (issue 15).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { bodyFileContents, draftRequest } from '../src/contract/draft.ts';
import type { RequestEnvelope } from '../src/contract/draft.ts';
import { buildProbeUrl } from '../src/api/url-policy.ts';
import { spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';

/** curl is a Debian package (.ci/run installs it); without it these tests cannot run and say so. */
function curlMissing(): string | false {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'curl is not installed: the curl line cannot be run (apt-get install curl)';
  }
}

const KEY = 'sk_test_c0ffee';

type Received = {
  method: string;
  target: string;
  contentType?: string;
  authorization?: string;
  note?: string;
  body: Buffer;
};

const form = {
  type: 'object',
  properties: {
    note: { type: 'string' },
    count: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'curl oracle', version: '1' },
  paths: {
    '/search': {
      get: {
        operationId: 'search',
        parameters: [
          { name: 'filter', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } },
          { name: 'ids', in: 'query', style: 'pipeDelimited', schema: { type: 'array', items: { type: 'string' } } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/json': {
      post: {
        operationId: 'postJson',
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/form': {
      post: {
        operationId: 'postForm',
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: form } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/upload': {
      post: {
        operationId: 'upload',
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: { ...form, properties: { ...form.properties, file: { type: 'string', format: 'binary' } } },
              encoding: { file: { contentType: 'image/png' } },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/text': {
      post: {
        operationId: 'postText',
        requestBody: { content: { 'text/plain; charset=utf-8': { schema: { type: 'string' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

/** Every character a shell or curl could read as something else: quotes, `$`, backticks, a newline, non-ASCII, emoji. */
const HOSTILE = `it's "quoted" $HOME $(id) \`id\` \\ back; a\nnew line & é 😀 ~!*`;

describe('the curl line of draft_request, run by curl against 127.0.0.1', { skip: curlMissing() }, () => {
  let server: Server;
  let base: URL;
  let loaded: LoadedDocument;
  let scratch: string;
  let received: Received[] = [];
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'draft-curl-'));
    const file = join(scratch, 'openapi.json');
    await writeFile(file, JSON.stringify(DOCUMENT));
    loaded = await loadDocument(file);
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method!,
          target: request.url!,
          contentType: request.headers['content-type'],
          authorization: request.headers.authorization,
          ...(request.headers['x-note'] !== undefined ? { note: request.headers['x-note'] as string } : {}),
          body: Buffer.concat(chunks),
        });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`);
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  });

  /** Drafts as the draft_request tool does (its URL from buildProbeUrl under the base), then runs its curl line with bash. */
  async function run(
    method: string,
    path: string,
    options: {
      query?: Record<string, string>;
      queryValues?: Record<string, unknown>;
      headers?: Record<string, string>;
      body?: unknown;
    } = {},
  ): Promise<{ request: RequestEnvelope; received: Received }> {
    const decision = buildProbeUrl(base, path, options.query);
    if ('refusal' in decision) throw new Error(decision.refusal);
    const { request } = draftRequest(loaded, {
      method,
      url: decision.url,
      basePrefix: '/v2',
      keyHeader: 'Authorization',
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.queryValues ? { queryValues: options.queryValues } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    received = [];
    await new Promise<void>((resolve, reject) =>
      execFile(
        'bash',
        ['-c', `${request.curl} --silent --show-error --fail`],
        { cwd: scratch, env: { PATH: process.env.PATH, API_KEY: KEY }, timeout: 20_000 },
        (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
      ),
    );
    assert.equal(received.length, 1);
    return { request, received: received[0]! };
  }

  /** What the envelope says is sent: method, path and query, Content-Type, the key filled in, the body's bytes. */
  function expected(request: RequestEnvelope, body: string | undefined): Omit<Received, 'body'> & { body: string } {
    const url = new URL(request.url);
    return {
      method: request.method,
      target: `${url.pathname}${url.search}`,
      contentType: request.headers['Content-Type'],
      authorization: `Bearer ${KEY}`,
      body: body ?? '',
    };
  }
  const seen = (got: Received) => ({ ...got, body: got.body.toString('utf8') });
  const text = (request: RequestEnvelope) =>
    typeof request.body === 'string'
      ? request.body
      : request.body === undefined
        ? undefined
        : JSON.stringify(request.body);

  it("sends a query with brackets, braces, quotes, $, backticks and emoji as the envelope's URL, byte for byte", async () => {
    const { request, received } = await run('GET', "/search?filter[name]={a,b}&range=[1-3]&q=$HOME`id`'x'", {
      query: { 'sort[0]': '{"by":"name"}', note: HOSTILE },
    });
    assert.deepStrictEqual(
      [seen(received), request.url.includes('filter[name]={a,b}&range=[1-3]')],
      [expected(request, undefined), true],
    );
  });

  it('sends query values written by their style (deepObject brackets, pipeDelimited) as the envelope says', async () => {
    const { request, received } = await run('GET', '/search', {
      queryValues: { filter: { name: HOSTILE, range: '[1-3]' }, ids: ['{a}', 'b'] },
    });
    assert.deepStrictEqual(
      [seen(received), new URL(request.url).searchParams.get('filter[name]')],
      [expected(request, undefined), HOSTILE],
    );
  });

  it('sends a JSON body holding quotes, $, backticks, a newline and emoji as its JSON text', async () => {
    const body = { note: HOSTILE, nested: { list: ['[1]', '{2}'] } };
    const { request, received } = await run('POST', '/json', { body });
    assert.deepStrictEqual(seen(received), expected(request, JSON.stringify(body)));
  });

  it('sends a JSON body given as a string exactly as written', async () => {
    const body = `{"note": ${JSON.stringify(HOSTILE)}}\n`;
    const { request, received } = await run('PATCH', '/json', { body, headers: {} });
    assert.deepStrictEqual([seen(received), received.method], [expected(request, body), 'PATCH']);
  });

  it('sends a form body as URLSearchParams writes it, under the form Content-Type', async () => {
    const { request, received } = await run('POST', '/form', {
      body: { note: HOSTILE, count: 3, tags: ['a b', 'c&d'] },
    });
    assert.deepStrictEqual(
      [seen(received), new URLSearchParams(received.body.toString('utf8')).getAll('tags')],
      [expected(request, text(request)), ['a b', 'c&d']],
    );
  });

  it("sends a multipart body (CR LF line ends, quoted as $'...') with its boundary, parts as undici reads them", async () => {
    const { request, received } = await run('POST', '/upload', {
      body: { note: HOSTILE, count: 2, file: '\x89PNG\r\n\x1a\n' },
    });
    const parts = await new Response(new Uint8Array(received.body), {
      headers: { 'content-type': received.contentType! },
    }).formData();
    assert.deepStrictEqual(
      [seen(received), parts.get('note'), (parts.get('file') as File).type],
      [expected(request, text(request)), HOSTILE, 'image/png'],
    );
  });

  for (const header of ['multipart/form-data; boundary="a\\:b c?"', 'multipart/form-data; boundary=""']) {
    it(`sends a multipart body under ${header.slice(21)} with header and body agreeing, as undici reads them`, async () => {
      const { request, received } = await run('POST', '/upload', {
        headers: { 'Content-Type': header },
        body: { note: HOSTILE, count: 2, file: 'F' },
      });
      const parts = await new Response(new Uint8Array(received.body), {
        headers: { 'content-type': received.contentType! },
      }).formData();
      assert.deepStrictEqual([seen(received), parts.get('note')], [expected(request, text(request)), HOSTILE]);
    });
  }

  it('sends a text/plain body exactly as written, a carriage return and a tab included', async () => {
    const body = `${HOSTILE}\r\n\tend`;
    const { request, received } = await run('POST', '/text', { body });
    assert.deepStrictEqual(seen(received), expected(request, body));
  });

  it('reads a JSON body over the inline limit from the file the note names, saved as the note says', async () => {
    const body = { note: HOSTILE, pad: 'x'.repeat(20_000) };
    const decision = buildProbeUrl(base, '/json');
    if ('refusal' in decision) throw new Error(decision.refusal);
    const drafted = draftRequest(loaded, {
      method: 'POST',
      url: decision.url,
      basePrefix: '/v2',
      keyHeader: 'Authorization',
      body,
    });
    // The note: "a string body as its text, any other as its JSON".
    assert.deepStrictEqual(
      [drafted.request.bodyFile, bodyFileContents(drafted.request)],
      ['request-body.json', 'a string body as its text, any other as its JSON'],
    );
    await writeFile(join(scratch, drafted.request.bodyFile!), JSON.stringify(body));
    const { request, received } = await run('POST', '/json', { body });
    assert.deepStrictEqual(seen(received), expected(request, JSON.stringify(body)));
  });

  it('reads a form body over the inline limit from request-body.txt, written as the note says (URLSearchParams)', async () => {
    const body = { note: HOSTILE.repeat(400), count: 1 };
    const decision = buildProbeUrl(base, '/form');
    if ('refusal' in decision) throw new Error(decision.refusal);
    const drafted = draftRequest(loaded, { method: 'POST', url: decision.url, basePrefix: '/v2', body });
    assert.deepStrictEqual(
      [drafted.request.bodyFile, bodyFileContents(drafted.request)],
      ['request-body.txt', 'the fields encoded as application/x-www-form-urlencoded, as URLSearchParams writes them'],
    );
    const encoded = new URLSearchParams({ note: body.note, count: '1' }).toString();
    await writeFile(join(scratch, 'request-body.txt'), encoded);
    const { request, received } = await run('POST', '/form', { body });
    assert.deepStrictEqual(seen(received), expected(request, encoded));
  });

  it('reads a text body over the inline limit from request-body.txt', async () => {
    const body = `${HOSTILE}\r\n`.repeat(400);
    await writeFile(join(scratch, 'request-body.txt'), body);
    const { request, received } = await run('POST', '/text', { body });
    assert.deepStrictEqual(
      [seen(received), request.bodyFile, request.curl.endsWith('--data-binary @request-body.txt')],
      [expected(request, body), 'request-body.txt', true],
    );
  });

  it('sends a HEAD with -I, which reads no body (curl -X HEAD waits for one until it times out)', async () => {
    const { request, received } = await run('HEAD', '/search?q=1');
    assert.deepStrictEqual(
      [seen(received), request.curl.startsWith("curl -g -I 'http")],
      [expected(request, undefined), true],
    );
  });

  it('sends a Latin-1 header value as its Latin-1 bytes, not UTF-8 (RFC 9110, 5.5)', async () => {
    const { request, received } = await run('POST', '/json', { body: {}, headers: { 'X-Note': "café 'à' $HOME" } });
    assert.deepStrictEqual([received.note, request.headers['X-Note']], ["café 'à' $HOME", "café 'à' $HOME"]);
  });

  it('never puts the key in the curl line: the shell fills $API_KEY in', async () => {
    const { request, received } = await run('POST', '/json', { body: {}, headers: { Authorization: `Bearer ${KEY}` } });
    assert.deepStrictEqual(
      [request.curl.includes(KEY), request.headers.Authorization, received.authorization],
      [false, 'Bearer $API_KEY', `Bearer ${KEY}`],
    );
  });
});

describe('case 69 over stdio: draft_request calls A-E through the spawned server (tools/call)', () => {
  let client: StdioClient;
  let scratch: string;
  let calls: { label: string; tool: string; arguments: Record<string, unknown> }[];
  before(async () => {
    const known = JSON.parse(
      await readFile(new URL('../fixtures/cases/69-draft-form-urlencoded-body.json', import.meta.url), 'utf8'),
    );
    calls = known.input.sessions[0].calls;
    scratch = await mkdtemp(join(tmpdir(), 'case-69-'));
    await writeFile(join(scratch, 'openapi.json'), JSON.stringify(known.input.sessions[0].openapi));
    // Drafts send nothing, so the base URL names a port nothing listens on.
    client = spawnServer({
      API_BASE_URL: 'http://127.0.0.1:9',
      API_KEY: KEY,
      OPENAPI_DOC: join(scratch, 'openapi.json'),
    });
    await client.initialize();
  });
  after(async () => {
    await client.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('answers A-E as the case expects: form text and object bodies checked field by field, drafted as a form', async () => {
    const answers: unknown[] = [];
    for (const call of calls.filter((entry) => entry.tool === 'draft_request')) {
      const { structuredContent } = await client.callTool('draft_request', call.arguments);
      answers.push([
        call.label,
        structuredContent.matchesContract,
        structuredContent.problems.map((problem: { name: string; kind: string }) => `${problem.kind} ${problem.name}`),
        structuredContent.request.headers['Content-Type'],
        structuredContent.request.body,
      ]);
    }
    const form = 'application/x-www-form-urlencoded';
    assert.deepStrictEqual(answers, [
      ['A', true, [], form, 'grant_type=client_credentials&scope=read+write&max_age=60'],
      ['B', false, ['missing $.grant_type'], form, 'scope=read'],
      ['C', false, ['enum $.grant_type', 'wrongType $.max_age'], form, 'grant_type=refresh_token&max_age=soon'],
      ['D', true, [], form, 'grant_type=client_credentials&scope=read'],
      ['E', false, ['wrongType $.max_age'], form, 'grant_type=password&max_age=x'],
    ]);
  });
});
