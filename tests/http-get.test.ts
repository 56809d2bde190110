/**
 * The probe's GET on node:http (http-get.ts), against servers on 127.0.0.1 that each test starts and stops:
 * what is sent, what is read, content codings, redirects, the bad-port list, aborts and the read cap.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { createServer as createNetServer } from 'node:net';
import { BAD_PORTS, httpGet } from '../src/api/http-get.ts';
import { readCappedStream } from '../src/shared/capped-read.ts';
import { spawnServer } from '../harness/stdio-client.ts';
import { probe } from '../src/api/probe.ts';

const TLS = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));

const BODY = JSON.stringify({ id: 'mtr_1', serial: 'SN-0041-7781', status: 'active' });

/** Reads a whole body as text. */
async function text(body: AsyncIterable<Uint8Array> | null): Promise<string> {
  const read = await readCappedStream(body, 1024 * 1024);
  if (read.failure) throw read.failure;
  return read.all.toString('utf8');
}

describe('httpGet (http-get.ts)', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let closedEarly = 0;
  const routes: Record<string, (response: ServerResponse) => void> = {
    '/json': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] });
      response.end(BODY);
    },
    '/gzip': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(BODY));
    },
    '/deflate': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      response.end(deflateSync(BODY));
    },
    '/br': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
      response.end(brotliCompressSync(BODY));
    },
    '/gzip-then-br': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip, br' });
      response.end(brotliCompressSync(gzipSync(BODY)));
    },
    '/raw-deflate': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      response.end(deflateRawSync(BODY));
    },
    '/raw-deflate-bomb': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      response.end(deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 }));
    },
    '/six-codings': (response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip, gzip, gzip, gzip, gzip, gzip',
      });
      response.end('junk');
    },
    '/unknown-coding': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'compress' });
      response.end('raw bytes');
    },
    '/gzip-cut': (response) => {
      const whole = gzipSync('x'.repeat(1000));
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(whole.subarray(0, whole.length - 12));
    },
    '/gzip-lie': (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(BODY);
    },
    '/redirect': (response) => {
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      response.end();
    },
    '/endless': (response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const write = () => {
        while (response.write(chunk));
        response.once('drain', write);
      };
      response.on('close', () => closedEarly++);
      write();
    },
    '/silent': () => {},
  };
  before(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      seen.push({ url: request.url!, headers: request.headers });
      routes[request.url!]!(response);
    });
    server.on('connection', (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const get = (path: string, signal = never()) =>
    httpGet(new URL(path, base), { headers: { accept: 'application/json', authorization: 'Bearer k' }, signal });

  it('sends a GET with the given headers and Accept-Encoding, and reads status, header fields and body', async () => {
    const answer = await get('/json');
    const body = await text(answer.body);
    const sent = seen.at(-1)!;
    assert.deepEqual(
      [
        answer.status,
        answer.header('Content-Type'),
        answer.header('x-twice'),
        answer.header('location'),
        body,
        sent.headers.accept,
        sent.headers.authorization,
        sent.headers['accept-encoding'],
      ],
      [200, 'application/json', 'a, b', null, BODY, 'application/json', 'Bearer k', 'gzip, deflate, br'],
    );
  });

  it('keeps the connection alive between two GETs', async () => {
    await text((await get('/json')).body);
    const before = connections;
    await text((await get('/json')).body);
    assert.equal(connections - before, 0);
  });

  it('decodes gzip, deflate, br, and codings applied in turn (RFC 9110, 8.4)', async () => {
    const bodies = [];
    for (const path of ['/gzip', '/deflate', '/br', '/gzip-then-br']) bodies.push(await text((await get(path)).body));
    assert.deepEqual(bodies, [BODY, BODY, BODY, BODY]);
  });

  it('decodes raw deflate sent as deflate, as fetch does (attack round 5, B6)', async () => {
    assert.equal(await text((await get('/raw-deflate')).body), BODY);
  });

  it('stops a raw deflate bomb at the cap, one decoded chunk past it', async () => {
    const read = await readCappedStream((await get('/raw-deflate-bomb')).body, 1024 * 1024);
    assert.deepEqual(
      [read.truncated, read.failure, read.bytes > 1024 * 1024, read.bytes <= 1024 * 1024 + 64 * 1024],
      [true, undefined, true, true],
    );
  });

  it('fails a body with more than 5 content codings before building a decoder, as fetch does (attack round 5, B2)', async () => {
    const read = await readCappedStream((await get('/six-codings')).body, 1024 * 1024);
    assert.deepEqual(
      [read.bytes, (read.failure as { code?: string }).code, (read.failure as Error).message],
      [0, 'TOO_MANY_CODINGS', 'too many content codings: 6, at most 5 are decoded'],
    );
  });

  it('rejects a 101 Switching Protocols answer instead of waiting forever (attack round 5, B1)', async () => {
    const upgrading = createNetServer((socket) =>
      socket.once('data', () =>
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      ),
    );
    await new Promise<void>((resolve) => upgrading.listen(0, '127.0.0.1', resolve));
    try {
      await assert.rejects(
        httpGet(new URL(`http://127.0.0.1:${(upgrading.address() as AddressInfo).port}/x`), {
          headers: {},
          signal: never(),
        }),
        {
          code: 'UPGRADE',
          message: 'the API answered 101 Switching Protocols, a protocol switch the probe does not take',
        },
      );
    } finally {
      await new Promise<void>((resolve) => upgrading.close(() => resolve()));
    }
  });

  it('returns a body with an unknown coding as sent, as fetch does', async () => {
    const answer = await get('/unknown-coding');
    assert.deepEqual([answer.header('content-encoding'), await text(answer.body)], ['compress', 'raw bytes']);
  });

  it('gives what a gzip stream cut short held, without an error, as fetch does', async () => {
    const read = await readCappedStream((await get('/gzip-cut')).body, 1024 * 1024);
    assert.deepEqual(
      [read.failure, read.all.toString('utf8').replace(/x/g, '').length, read.bytes <= 1000],
      [undefined, 0, true],
    );
  });

  it("fails the body of plain bytes labelled gzip with zlib's error", async () => {
    const read = await readCappedStream((await get('/gzip-lie')).body, 1024 * 1024);
    assert.deepEqual(
      [read.bytes, (read.failure as { code?: string }).code, (read.failure as Error).message],
      [0, 'Z_DATA_ERROR', 'incorrect header check'],
    );
  });

  it('returns a redirect without following it', async () => {
    const count = seen.length;
    const answer = await get('/redirect');
    assert.deepEqual(
      [answer.status, answer.header('location'), await text(answer.body), seen.length - count],
      [302, 'http://127.0.0.1:1/elsewhere', '', 1],
    );
  });

  it('closes the connection when the reader stops at its cap', async () => {
    const closed = closedEarly;
    const read = await readCappedStream((await get('/endless')).body, 100_000);
    while (closedEarly === closed) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      [read.truncated, read.bytes > 100_000, read.bytes < 100_000 + 70_000, closedEarly - closed],
      [true, true, true, 1],
    );
  });

  it('rejects with the abort reason when aborted before the status line', async () => {
    const controller = new AbortController();
    const pending = httpGet(new URL('/silent', base), { headers: {}, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, { name: 'AbortError' });
  });

  it('ends the body with the abort when aborted while the body arrives', async () => {
    const controller = new AbortController();
    const answer = await httpGet(new URL('/endless', base), { headers: {}, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const read = await readCappedStream(answer.body, 1024 * 1024 * 1024);
    assert.deepEqual(
      [(read.failure as { code?: string }).code, (read.failure as Error).message, read.truncated],
      ['ECONNRESET', 'aborted', false],
    );
  });

  it('refuses every port of the WHATWG bad-port list without connecting', async () => {
    const before = connections;
    await assert.rejects(httpGet(new URL('http://127.0.0.1:6000/x'), { headers: {}, signal: never() }), {
      name: 'TypeError',
      message: 'bad port',
    });
    assert.deepEqual(
      [BAD_PORTS.size, BAD_PORTS.has(9), BAD_PORTS.has(10080), BAD_PORTS.has(8080), connections - before],
      [82, true, true, false, 0],
    );
  });

  it("rejects with the socket's code when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(httpGet(new URL(`http://127.0.0.1:${port}/x`), { headers: {}, signal: never() }), {
      code: 'ECONNREFUSED',
    });
  });

  it('refuses a scheme other than http and https', async () => {
    await assert.rejects(httpGet(new URL('ftp://127.0.0.1/x'), { headers: {}, signal: never() }), {
      name: 'TypeError',
      message: 'unsupported scheme ftp:',
    });
  });
});

describe('httpGet over https (fixtures/tls: a self-signed certificate for 127.0.0.1)', () => {
  let server: ReturnType<typeof createTlsServer>;
  let base: string;
  before(async () => {
    server = createTlsServer(
      { key: readFileSync(`${TLS}key.pem`), cert: readFileSync(`${TLS}cert.pem`) },
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(BODY));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a certificate Node does not trust, naming the check', async () => {
    await assert.rejects(httpGet(new URL('/meters/mtr_1', base), { headers: {}, signal: never() }), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });

  it('says what to do when Node does not trust the certificate: NODE_EXTRA_CA_CERTS', async () => {
    // Node's own wording of the check differs by version (Node 24 adds a hint of its own); the code and the advice do not.
    const failed = await probe(new URL('/meters/mtr_1', base), { headers: {}, timeoutMs: 5000, maxBytes: 1024 }).then(
      () => '',
      (error: Error) => error.message,
    );
    assert.deepEqual(
      [
        failed.startsWith(`GET ${base}/meters/mtr_1 failed: self-signed certificate`),
        failed.endsWith(
          " (DEPTH_ZERO_SELF_SIGNED_CERT). Node does not trust the API's certificate: if you do, give the server NODE_EXTRA_CA_CERTS=/path/to/ca.pem in its environment (in an editor, the server entry's env).",
        ),
      ],
      [true, true],
    );
  });

  it('says when an https:// base URL names a server that speaks plain http', async () => {
    const plain = createServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(plain.address() as AddressInfo).port}/x`;
    try {
      const failed = await probe(new URL(url), { headers: {}, timeoutMs: 5000, maxBytes: 1024 }).then(
        () => '',
        (error: Error) => error.message,
      );
      assert.deepEqual(
        [
          failed.startsWith(`GET ${url} failed: `),
          failed.includes('\n'),
          failed.endsWith(
            '. The server did not answer TLS: API_BASE_URL may say https:// for a server that speaks plain http://.',
          ),
        ],
        [true, false, true],
      );
    } finally {
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('probes over https once the certificate is trusted (NODE_EXTRA_CA_CERTS), through the spawned server', async () => {
    const client = spawnServer({
      API_BASE_URL: base,
      API_KEY: 'https-test-key-0123456789',
      NODE_EXTRA_CA_CERTS: `${TLS}cert.pem`,
    });
    try {
      await client.initialize();
      const called = await client.callToolUntraced('probe', { path: '/meters/mtr_1' });
      assert.deepEqual([called.structuredContent.status, called.structuredContent.body], [200, JSON.parse(BODY)]);
    } finally {
      await client.close();
    }
  });
});

describe("httpGet through the environment's proxy (NODE_USE_ENV_PROXY=1, Node >= 24.5)", () => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const supported = major > 24 || (major === 24 && minor >= 5);

  it(
    'sends the probe to HTTP_PROXY in absolute form, as fetch does there',
    { skip: supported ? false : `Node ${process.versions.node} has no proxy support in its HTTP agents` },
    async () => {
      const asked: { url: string; authorization?: string }[] = [];
      const proxy = createServer((request, response) => {
        asked.push({ url: request.url!, authorization: request.headers.authorization });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(BODY);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const client = spawnServer({
        API_BASE_URL: 'http://api.example.test/v2',
        API_KEY: 'proxy-test-key-0123456789',
        NODE_USE_ENV_PROXY: '1',
        HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      });
      try {
        await client.initialize();
        const called = await client.callToolUntraced('probe', { path: '/meters/mtr_1' });
        assert.deepEqual(
          [called.structuredContent.status, asked],
          [
            200,
            [{ url: 'http://api.example.test/v2/meters/mtr_1', authorization: 'Bearer proxy-test-key-0123456789' }],
          ],
        );
      } finally {
        await client.close();
        await new Promise<void>((resolve) => proxy.close(() => resolve()));
      }
    },
  );
});

/** A signal that never aborts. */
function never(): AbortSignal {
  return new AbortController().signal;
}
