import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, realpath, rm, writeFile, mkdir, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DocumentError } from './model.ts';
import { MAX_DOCUMENT_BYTES, loadDocument, parseDocumentText } from './openapi-document.ts';
import { createDocumentSource } from './source.ts';
import { indexOperations } from './operations.ts';
import { matchOperation } from './match.ts';
import { readCappedStream } from '../shared/capped-read.ts';
import type { LoadedDocument } from './model.ts';
import type { PathMatch } from './match.ts';
import { editDistance } from '../shared/text.ts';
import { follow, resolveSchemaRef, responseForStatus } from './refs.ts';
import { readCapped } from './openapi-document.ts';
import { lookupPointer } from '../shared/json-pointer.ts';
import { pickMediaType } from '../shared/media-type.ts';
import { githubDescriptionPath } from '../../harness/fixture-documents.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'fixtures', 'documents');
const CASES = join(ROOT, 'fixtures', 'cases');
const OAS_EXAMPLES = join(ROOT, 'node_modules', '@readme', 'oas-examples');
const GITHUB = githubDescriptionPath();

let scratch = '';
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'openapi-document-test-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let counter = 0;
async function writeScratch(name: string, content: string): Promise<string> {
  const dir = join(scratch, String(counter++));
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

async function loadObject(doc: unknown): Promise<LoadedDocument> {
  return loadDocument(await writeScratch('openapi.json', JSON.stringify(doc)));
}

/** Resolves with the DocumentError a promise rejects with (fails when it resolves). */
async function documentError(promise: Promise<unknown>): Promise<DocumentError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DocumentError, `expected DocumentError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a DocumentError');
}

function summary(match: PathMatch): { operation: string | null; params?: Record<string, string>; note?: string } {
  if (!match.operation) return { operation: null };
  const out: { operation: string; params: Record<string, string>; note?: string } = {
    operation: `${match.operation.method} ${match.operation.pathTemplate}`,
    params: match.params,
  };
  if (match.note !== undefined) out.note = match.note;
  return out;
}

function allRefs(root: unknown): string[] {
  const refs: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') refs.push(value);
      else stack.push(value);
    }
  }
  return refs.sort();
}

describe('DocumentError', () => {
  test('names the file, the pointer and the reason in its message', () => {
    const error = new DocumentError('api.json', '#/paths', 'broken');
    assert.deepEqual(
      { name: error.name, file: error.file, pointer: error.pointer, reason: error.reason, message: error.message },
      {
        name: 'DocumentError',
        file: 'api.json',
        pointer: '#/paths',
        reason: 'broken',
        message: 'Cannot load OpenAPI document api.json at #/paths: broken',
      },
    );
  });
});

describe('parseDocumentText', () => {
  test('parses YAML content that is not JSON even without a YAML extension', async () => {
    assert.deepEqual(await parseDocumentText('openapi: 3.0.3\ninfo: {title: t, version: "1"}\n', 'doc.txt'), {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
    });
  });

  test('tells how to get YAML support when the yaml package cannot be imported', async () => {
    const error = await documentError(
      parseDocumentText('openapi: 3.0.3\n', 'api.yaml', () => Promise.reject(new Error("Cannot find package 'yaml'"))),
    );
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [
        'api.yaml',
        '#',
        'install the optional `yaml` package beside the server (`npm install yaml`) or convert the document to JSON',
      ],
    );
  });

  test('rejects invalid JSON in a .json file', async () => {
    const error = await documentError(parseDocumentText('{"openapi": ', 'api.json'));
    assert.deepEqual([error.file, error.pointer, error.reason.startsWith('invalid JSON: ')], ['api.json', '#', true]);
  });

  test('rejects invalid YAML', async () => {
    const error = await documentError(parseDocumentText('a: b\na: c\n', 'api.yaml'));
    assert.deepEqual([error.file, error.pointer, error.reason.startsWith('invalid YAML: ')], ['api.yaml', '#', true]);
  });
});

describe('loadDocument from files', () => {
  test('loads Swagger 2.0 JSON natively (definitions, in: body, produces, basePath)', async () => {
    const doc = await loadDocument(join(OAS_EXAMPLES, '2.0', 'json', 'petstore.json'));
    assert.deepEqual(
      [doc.version, doc.title, doc.infoVersion, doc.basePaths, doc.operations.length, doc.problems],
      ['2.0', 'Swagger Petstore', '1.0.0', ['/v2'], 20, []],
    );
    const addPet = doc.operations.find((o) => o.operationId === 'addPet');
    assert.deepEqual(addPet?.requestBody, {
      content: {
        'application/json': { schema: { $ref: '#/definitions/Pet' } },
        'application/xml': { schema: { $ref: '#/definitions/Pet' } },
      },
      description: 'Pet object that needs to be added to the store',
      required: true,
    });
    const getPet = doc.operations.find((o) => o.operationId === 'getPetById');
    assert.deepEqual(getPet?.parameters, [
      {
        name: 'petId',
        in: 'path',
        required: true,
        pointer: '#/paths/~1pet~1{petId}/get/parameters/0',
        schema: { type: 'integer', format: 'int64' },
        description: 'ID of pet to return',
      },
    ]);
    assert.deepEqual(getPet?.responses['200'], {
      description: 'successful operation',
      schema: { $ref: '#/definitions/Pet' },
      content: {
        'application/xml': { schema: { $ref: '#/definitions/Pet' } },
        'application/json': { schema: { $ref: '#/definitions/Pet' } },
      },
    });
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/v2/pet/42')), {
      operation: 'GET /pet/{petId}',
      params: { petId: '42' },
      note: 'base path /v2 stripped',
    });
  });

  test('loads an OpenAPI 3.1 YAML document', async () => {
    const doc = await loadDocument(join(OAS_EXAMPLES, '3.1', 'yaml', 'train-travel.yaml'));
    assert.deepEqual(
      [doc.version, doc.title, doc.infoVersion, doc.basePaths, doc.problems],
      ['3.1', 'Train Travel API', '1.0.0', [], []],
    );
    assert.deepEqual(
      doc.operations.map((o) => `${o.method} ${o.pathTemplate} ${o.operationId}`),
      [
        'GET /stations get-stations',
        'GET /trips get-trips',
        'GET /bookings get-bookings',
        'POST /bookings create-booking',
        'GET /bookings/{bookingId} get-booking',
        'DELETE /bookings/{bookingId} delete-booking',
        'POST /bookings/{bookingId}/payment create-booking-payment',
      ],
    );
  });

  test('loads a Swagger 2.0 YAML document', async () => {
    const doc = await loadDocument(join(OAS_EXAMPLES, '2.0', 'yaml', 'petstore.yaml'));
    assert.deepEqual(
      [doc.version, doc.title, doc.basePaths, doc.operations.length],
      ['2.0', 'Swagger Petstore', ['/v2'], 20],
    );
  });

  test('substitutes server variable defaults into base paths', async () => {
    const doc = await loadDocument(join(OAS_EXAMPLES, '3.0', 'yaml', 'server-variables.yaml'));
    assert.deepEqual([doc.version, doc.basePaths], ['3.0', ['/v2', '/v1']]);
  });

  test('rejects a missing file', async () => {
    const file = join(DOCS, 'no-such-file.json');
    const error = await documentError(loadDocument(file));
    assert.deepEqual(
      [error.file, error.pointer, error.reason.startsWith('cannot read file: ENOENT')],
      [file, '#', true],
    );
  });

  test('rejects a document that is not OpenAPI 3.x or Swagger 2.0', async () => {
    const file = join(DOCS, 'not-openapi.json');
    const error = await documentError(loadDocument(file));
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [
        file,
        '#/openapi',
        'not an OpenAPI document: expected `openapi: 3.x` or `swagger: "2.0"`, found openapi: "2.5.0"',
      ],
    );
  });

  test('rejects a top level without openapi or swagger', async () => {
    const file = await writeScratch('package.json', '{"name": "x"}');
    const error = await documentError(loadDocument(file));
    assert.deepEqual(
      [error.pointer, error.reason],
      ['#', 'not an OpenAPI document: expected `openapi: 3.x` or `swagger: "2.0"`, found neither field'],
    );
  });

  test('rejects a local $ref that points nowhere, naming file, pointer and reason', async () => {
    const file = join(DOCS, 'dangling-ref.json');
    const error = await documentError(loadDocument(file));
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [
        file,
        '#/paths/~1x/get/responses/200/content/application~1json/schema',
        '$ref #/components/schemas/Missing points nowhere',
      ],
    );
  });

  test('survives 5000-deep nesting with a circular $ref at the bottom', async () => {
    const depth = 5000;
    const deep =
      '{"type":"object","properties":{"a":'.repeat(depth) + '{"$ref":"#/components/schemas/Deep"}' + '}}'.repeat(depth);
    const text =
      '{"openapi":"3.0.3","info":{"title":"deep","version":"1"},' +
      '"paths":{"/deep":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Deep"}}}}}}}},' +
      `"components":{"schemas":{"Deep":${deep}}}}`;
    const doc = await loadDocument(await writeScratch('deep.json', text));
    assert.deepEqual([doc.operations.map((o) => o.pointer), doc.problems], [['#/paths/~1deep/get'], []]);
  });

  test('names the 5000-deep pointer of a dangling $ref', async () => {
    const depth = 5000;
    const deep = '{"properties":{"a":'.repeat(depth) + '{"$ref":"#/nowhere"}' + '}}'.repeat(depth);
    const text = `{"openapi":"3.1.0","info":{"title":"deep","version":"1"},"paths":{},"components":{"schemas":{"Deep":${deep}}}}`;
    const error = await documentError(loadDocument(await writeScratch('deep.json', text)));
    assert.deepEqual(
      [error.pointer, error.reason],
      ['#/components/schemas/Deep' + '/properties/a'.repeat(depth), '$ref #/nowhere points nowhere'],
    );
  });

  test('reports a 5000-long $ref chain that loops as a problem, once', async () => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) schemas[`S${i}`] = { $ref: `#/components/schemas/S${(i + 1) % 5000}` };
    const doc = await loadObject({
      openapi: '3.0.3',
      info: { title: 'chain', version: '1' },
      paths: {
        '/c': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } },
              },
            },
          },
        },
      },
      components: { schemas },
    });
    assert.deepEqual(doc.problems, [
      '$ref #/components/schemas/S0 at #/paths/~1c/get/responses/200/content/application~1json/schema is part of a $ref cycle that never reaches a value',
    ]);
  });
});

describe('loadDocument bundling of file $refs', () => {
  let doc: LoadedDocument;
  before(async () => {
    doc = await loadDocument(join(DOCS, 'bundle', 'openapi.json'));
  });

  test('copies referenced files under x-bundled and rewrites refs to local pointers', () => {
    assert.deepEqual(Object.keys(doc.doc['x-bundled']).sort(), ['common.json', 'schemas/pet.yaml']);
    assert.deepEqual(doc.doc.paths['/pets/{petId}'].parameters, [
      { $ref: '#/x-bundled/common.json/components/parameters/PetId' },
    ]);
    assert.deepEqual(doc.doc['x-bundled']['schemas/pet.yaml'].properties, {
      id: { type: 'integer' },
      name: { type: 'string' },
      tag: { $ref: '#/x-bundled/schemas~1pet.yaml/definitions/Tag' },
      error: { $ref: '#/x-bundled/common.json/components/schemas/Error' },
      owner: { $ref: '#/components/schemas/Owner' },
    });
  });

  test('leaves only the remote and the outside $refs non-local, each named in problems', () => {
    assert.deepEqual(
      allRefs(doc.doc).filter((ref) => !ref.startsWith('#/')),
      ['../../cases/29-path-concrete-beats-template.json', 'https://schemas.example.test/thing.json#/Thing'],
    );
    assert.deepEqual(doc.problems, [
      'remote $ref https://schemas.example.test/thing.json#/Thing at #/paths/~1remote/get/responses/200/content/application~1json/schema not fetched',
      "$ref ../../cases/29-path-concrete-beats-template.json at #/paths/~1outside/get/responses/200/content/application~1json/schema points outside the document's directory; not read",
    ]);
  });

  test('resolves parameter and response $refs into bundled files', () => {
    const op = doc.operations.find((o) => o.operationId === 'getPet');
    assert.deepEqual(op?.parameters, [
      {
        name: 'petId',
        in: 'path',
        required: true,
        schema: { type: 'integer', minimum: 1 },
        pointer: '#/x-bundled/common.json/components/parameters/PetId',
      },
    ]);
    assert.deepEqual(op?.responses.default, {
      description: 'error',
      content: { 'application/json': { schema: { $ref: '#/x-bundled/common.json/components/schemas/Error' } } },
    });
    assert.deepEqual(doc.basePaths, ['/v1']);
  });

  test('rejects a dangling local $ref inside a bundled file, naming that file', async () => {
    const root = await writeScratch(
      'openapi.json',
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: 'a.json' } } },
      }),
    );
    const aFile = join(root, '..', 'a.json');
    await writeFile(aFile, JSON.stringify({ type: 'object', properties: { b: { $ref: '#/nope' } } }));
    const error = await documentError(loadDocument(root));
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [aFile, '#/properties/b', '$ref #/nope points nowhere'],
    );
  });

  test('rejects a $ref to a missing sibling file', async () => {
    const root = await writeScratch(
      'openapi.json',
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: 'missing.json' } } },
      }),
    );
    const error = await documentError(loadDocument(root));
    assert.deepEqual(
      [error.file, error.pointer, error.reason.startsWith('$ref missing.json: cannot read ')],
      [root, '#/components/schemas/A', true],
    );
  });
});

describe('loadDocument from URLs', () => {
  let server: Server;
  let base = '';
  const hits: Record<string, number> = {};
  // 4 KiB of JSON that gzip squeezes below 1 KiB: the limit must count decoded bytes.
  const gzipBody = gzipSync(
    JSON.stringify({ openapi: '3.0.3', info: { title: 'x'.repeat(4096), version: '1' }, paths: {} }),
  );
  let other: Server;
  let otherBase = '';
  const otherHits: string[] = [];
  const petstore = (title: string) =>
    JSON.stringify({
      openapi: '3.0.3',
      info: { title, version: '1' },
      paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } },
    });
  before(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '';
      hits[url] = (hits[url] ?? 0) + 1;
      if (url === '/openapi.json') {
        setTimeout(() => res.end(petstore(`hit ${hits[url]}`)), 20);
      } else if (url === '/spec') {
        res.end('openapi: 3.1.0\ninfo:\n  title: yaml over http\n  version: "7"\npaths: {}\n');
      } else if (url === '/relative.json') {
        res.end(
          JSON.stringify({
            openapi: '3.0.3',
            info: { title: 'r', version: '1' },
            paths: {},
            components: { schemas: { A: { $ref: 'other.json#/B' } } },
          }),
        );
      } else if (url === '/slow.json') {
        // never answers; the client must give up
      } else if (url === '/endless.json') {
        // an endless body: writes until the client hangs up
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = ' '.repeat(64 * 1024);
        let open = true;
        res.on('close', () => {
          open = false;
        });
        const pump = (): void => {
          while (open && res.write(chunk));
          if (open) res.once('drain', pump);
        };
        res.write('{"openapi":"3.0.3",');
        pump();
      } else if (url === '/gzip.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipBody);
      } else if (/^\/redirect\/\d+$/.test(url)) {
        const n = Number(url.slice('/redirect/'.length));
        res.writeHead(n % 2 === 0 ? 302 : 301, { location: n > 1 ? `/redirect/${n - 1}` : `${base}/spec` });
        res.end();
      } else if (url === '/away.json') {
        res.writeHead(302, { location: `${otherBase}/openapi.json` });
        res.end();
      } else {
        res.statusCode = 404;
        res.end('not here');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Another origin (same host, another port) that must never be asked.
    other = createServer((req, res) => {
      otherHits.push(req.url ?? '');
      res.end(petstore('elsewhere'));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of [server, other]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  test('loads JSON from an http URL', async () => {
    const doc = await loadDocument(`${base}/openapi.json`);
    assert.deepEqual(
      [doc.source, doc.version, doc.title.startsWith('hit '), doc.operations.map((o) => o.pointer)],
      [`${base}/openapi.json`, '3.0', true, ['#/paths/~1pets/get']],
    );
  });

  test('loads YAML from a URL without an extension', async () => {
    const doc = await loadDocument(`${base}/spec`);
    assert.deepEqual([doc.version, doc.title, doc.infoVersion], ['3.1', 'yaml over http', '7']);
  });

  test('does not fetch relative $refs of a document loaded from a URL', async () => {
    const doc = await loadDocument(`${base}/relative.json`);
    assert.deepEqual(
      [doc.problems, hits['/other.json']],
      [
        ['relative $ref other.json#/B at #/components/schemas/A not fetched (the document was loaded from a URL)'],
        undefined,
      ],
    );
  });

  test('rejects an HTTP error status', async () => {
    const error = await documentError(loadDocument(`${base}/missing.json`));
    assert.deepEqual([error.file, error.pointer, error.reason], [`${base}/missing.json`, '#', 'HTTP 404 Not Found']);
  });

  test('gives up after timeoutMs', async () => {
    const error = await documentError(loadDocument(`${base}/slow.json`, { timeoutMs: 100 }));
    assert.deepEqual([error.file, error.reason], [`${base}/slow.json`, 'no complete response within 100 ms']);
  });

  test('caps a document at 128 MiB by default', () => {
    assert.equal(MAX_DOCUMENT_BYTES, 134217728);
  });

  test('stops reading an endless body at maxBytes and names the limit in bytes', async () => {
    const error = await documentError(loadDocument(`${base}/endless.json`, { maxBytes: 1024 * 1024 }));
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [`${base}/endless.json`, '#', 'the document is larger than the limit of 1048576 bytes'],
    );
  });

  test('counts decoded bytes of a gzip body against maxBytes', async () => {
    const error = await documentError(loadDocument(`${base}/gzip.json`, { maxBytes: 1024 }));
    const loaded = await loadDocument(`${base}/gzip.json`, { maxBytes: 8192 });
    assert.deepEqual(
      [gzipBody.length < 1024, error.reason, loaded.title.length],
      [true, 'the document is larger than the limit of 1024 bytes', 4096],
    );
  });

  test('follows up to 5 redirects on the same origin, relative and absolute', async () => {
    const doc = await loadDocument(`${base}/redirect/5`);
    assert.deepEqual([doc.source, doc.title, hits['/redirect/1']], [`${base}/redirect/5`, 'yaml over http', 1]);
  });

  test('refuses a sixth redirect', async () => {
    const error = await documentError(loadDocument(`${base}/redirect/6`));
    assert.deepEqual(
      [error.file, error.reason],
      [`${base}/redirect/6`, 'more than 5 redirects; set OPENAPI_DOC to the final URL'],
    );
  });

  test('refuses a redirect to another origin without contacting it, naming that origin', async () => {
    const error = await documentError(loadDocument(`${base}/away.json`));
    assert.deepEqual(
      [error.file, error.reason, otherHits],
      [
        `${base}/away.json`,
        `redirected to another origin (${otherBase}); cross-origin redirects are not followed: set OPENAPI_DOC to the final URL`,
        [],
      ],
    );
  });

  test('names the socket\'s reason when the download fails, not only "fetch failed" (new-user trial)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await documentError(loadDocument(`http://127.0.0.1:${port}/openapi.json`));
    assert.equal(error.reason, `download failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  test('passes redirect: manual to the injected fetch', async () => {
    const seen: (RequestRedirect | undefined)[] = [];
    const fakeFetch = (async (_input: string | URL | Request, init?: RequestInit) => {
      seen.push(init?.redirect);
      return new Response(petstore('manual'), { status: 200 });
    }) as typeof fetch;
    await loadDocument('https://api.example.test/openapi.json', { fetch: fakeFetch });
    assert.deepEqual(seen, ['manual']);
  });

  test('uses the injected fetch', async () => {
    const seen: string[] = [];
    const fakeFetch = (async (input: string | URL | Request) => {
      seen.push(String(input));
      return new Response(petstore('injected'), { status: 200 });
    }) as typeof fetch;
    const doc = await loadDocument('https://api.example.test/openapi.json', { fetch: fakeFetch });
    assert.deepEqual([doc.title, seen], ['injected', ['https://api.example.test/openapi.json']]);
  });

  test('createDocumentSource shares one download between concurrent gets and caches it for ttlMs', async () => {
    const url = `${base}/openapi.json`;
    const before = hits['/openapi.json'] ?? 0;
    const source = createDocumentSource(url, { ttlMs: 200 });
    const [a, b, c] = await Promise.all([source.get(), source.get(), source.get()]);
    const d = await source.get();
    assert.deepEqual([a === b, b === c, c === d, (hits['/openapi.json'] ?? 0) - before], [true, true, true, 1]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const e = await source.get();
    assert.deepEqual([e === a, (hits['/openapi.json'] ?? 0) - before], [false, 2]);
  });
});

describe('createDocumentSource failures', () => {
  test('remembers a failed download for ttlMs instead of fetching it on every get', async () => {
    let calls = 0;
    const failing = (async () => {
      calls++;
      return new Response('not found', { status: 404 });
    }) as typeof fetch;
    const source = createDocumentSource('https://api.example.test/missing.json', { ttlMs: 200, fetch: failing });
    const first = await documentError(source.get());
    const second = await documentError(source.get());
    assert.deepEqual([first === second, calls], [true, 1]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await documentError(source.get());
    assert.equal(calls, 2);
  });
});

describe('loadDocument sources and size limits', () => {
  test('refuses a URL scheme other than http, https and file instead of reading it as a path', async () => {
    const error = await documentError(loadDocument('ftp://x/y.json'));
    assert.deepEqual(
      [error.file, error.pointer, error.reason],
      [
        'ftp://x/y.json',
        '#',
        'unsupported URL scheme ftp: only http(s) URLs and file paths (or file: URLs) are supported',
      ],
    );
  });

  test('refuses an unsupported scheme from createDocumentSource too', async () => {
    const error = await documentError(createDocumentSource('ftp://x/y.json').get());
    assert.equal(
      error.reason,
      'unsupported URL scheme ftp: only http(s) URLs and file paths (or file: URLs) are supported',
    );
  });

  test('reads a file: URL as a local file', async () => {
    const file = await writeScratch(
      'openapi.json',
      JSON.stringify({ openapi: '3.1.0', info: { title: 'by file URL', version: '1' }, paths: {} }),
    );
    const doc = await loadDocument(pathToFileURL(file).href);
    assert.deepEqual([doc.version, doc.title], ['3.1', 'by file URL']);
  });

  test('refuses a local file larger than maxBytes, naming the limit in bytes', async () => {
    const text = JSON.stringify({ openapi: '3.1.0', info: { title: 'x'.repeat(2000), version: '1' }, paths: {} });
    const file = await writeScratch('openapi.json', text);
    const error = await documentError(loadDocument(file, { maxBytes: 1000 }));
    const loaded = await loadDocument(file, { maxBytes: text.length });
    assert.deepEqual(
      [error.file, error.pointer, error.reason, loaded.title.length],
      [file, '#', 'the document is larger than the limit of 1000 bytes', 2000],
    );
  });

  test('refuses a bundled sibling file larger than maxBytes', async () => {
    const file = await writeScratch(
      'openapi.json',
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: 'big.json' } } },
      }),
    );
    const big = join(file, '..', 'big.json');
    await writeFile(big, JSON.stringify({ description: 'x'.repeat(2000) }));
    const error = await documentError(loadDocument(file, { maxBytes: 1000 }));
    assert.deepEqual(
      [error.pointer, error.reason],
      [
        '#/components/schemas/A',
        `$ref big.json: cannot read ${big}: the document is larger than the limit of 1000 bytes`,
      ],
    );
  });
});

describe('createDocumentSource for files', () => {
  test('re-reads the file only when its size or mtime changes', async () => {
    const file = await writeScratch(
      'openapi.json',
      JSON.stringify({ openapi: '3.0.3', info: { title: 'one', version: '1' }, paths: {} }),
    );
    const source = createDocumentSource(file);
    const first = await source.get();
    const again = await source.get();
    await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'second', version: '1' }, paths: {} }));
    const changed = await source.get();
    assert.deepEqual([first === again, first.title, changed === first, changed.title], [true, 'one', false, 'second']);
  });

  test('re-reads when a bundled file changes', async () => {
    const file = await writeScratch(
      'openapi.json',
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: 'a.json' } } },
      }),
    );
    const aFile = join(file, '..', 'a.json');
    await writeFile(aFile, '{"type":"string"}');
    const source = createDocumentSource(file);
    const first = await source.get();
    await writeFile(aFile, '{"type":"integer"}');
    const second = await source.get();
    assert.deepEqual(
      [first.doc['x-bundled']['a.json'], second.doc['x-bundled']['a.json']],
      [{ type: 'string' }, { type: 'integer' }],
    );
  });

  test('rejects with DocumentError and recovers when the file is fixed', async () => {
    const file = await writeScratch('openapi.json', '{');
    const source = createDocumentSource(file);
    const error = await documentError(source.get());
    await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'fixed', version: '1' }, paths: {} }));
    assert.deepEqual([error.file, (await source.get()).title], [file, 'fixed']);
  });
});

describe('indexOperations', () => {
  test('merges path-level parameters (operation wins) and resolves $ref parameters and responses', async () => {
    const doc = await loadDocument(join(DOCS, 'paths.json'));
    const getFile = doc.operations.find((o) => o.operationId === 'getFile');
    assert.deepEqual(getFile, {
      method: 'GET',
      pathTemplate: '/files/{name}',
      operationId: 'getFile',
      tags: ['files'],
      deprecated: false,
      parameters: [
        {
          name: 'X-Trace',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          pointer: '#/paths/~1files~1{name}/parameters/1',
        },
        {
          name: 'name',
          in: 'path',
          required: true,
          schema: { type: 'string', maxLength: 20 },
          description: 'operation-level',
          pointer: '#/paths/~1files~1{name}/get/parameters/0',
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer' },
          pointer: '#/components/parameters/Limit',
        },
      ],
      responses: { '200': { description: 'a file' } },
      pointer: '#/paths/~1files~1{name}/get',
    });
    const deleteFile = doc.operations.find((o) => o.operationId === 'deleteFile');
    assert.deepEqual(
      [deleteFile?.deprecated, deleteFile?.parameters.map((p) => p.description ?? p.name)],
      [true, ['path-level', 'X-Trace']],
    );
  });

  test('lists all eight methods in order and skips extensions', () => {
    const ok = { responses: { '200': { description: 'ok' } } };
    const ops = indexOperations(
      {
        openapi: '3.1.0',
        paths: {
          'x-ignored': { get: ok },
          '/m': {
            trace: ok,
            patch: ok,
            head: ok,
            options: ok,
            delete: ok,
            post: ok,
            put: ok,
            get: ok,
            summary: 'not an op',
            'x-foo': ok,
          },
        },
      },
      '3.1',
    );
    assert.deepEqual(
      ops.map((o) => o.method),
      ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'],
    );
  });

  test('resolves a 3.x requestBody $ref one level', () => {
    const body = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } };
    const ops = indexOperations(
      {
        openapi: '3.0.3',
        paths: { '/pets': { post: { requestBody: { $ref: '#/components/requestBodies/Pet' }, responses: {} } } },
        components: { requestBodies: { Pet: body }, schemas: { Pet: { type: 'object' } } },
      },
      '3.0',
    );
    assert.deepEqual(ops[0].requestBody, body);
  });
});

describe('matchOperation', () => {
  let doc: LoadedDocument;
  before(async () => {
    doc = await loadDocument(join(DOCS, 'paths.json'));
  });

  const rows: Array<[string, string, ReturnType<typeof summary>]> = [
    ['GET', '/files/report.json', { operation: 'GET /files/{name}.json', params: { name: 'report' } }],
    ['GET', '/files/report.txt', { operation: 'GET /files/{name}', params: { name: 'report.txt' } }],
    ['GET', '/range/1-5', { operation: 'GET /range/{from}-{to}', params: { from: '1', to: '5' } }],
    ['get', '/files/a?x=1#frag', { operation: 'GET /files/{name}', params: { name: 'a' } }],
    ['GET', '/v1/files/a', { operation: 'GET /files/{name}', params: { name: 'a' }, note: 'base path /v1 stripped' }],
    ['GET', '/v1', { operation: 'GET /', params: {}, note: 'base path /v1 stripped' }],
    // paths.json's server `/{base}` has no enum, so any first segment is a base path (issue 7).
    ['GET', '/v1x/files/a', { operation: 'GET /files/{name}', params: { name: 'a' }, note: 'base path /v1x stripped' }],
    [
      'GET',
      'http://localhost:8080/v1/files/a%20b',
      { operation: 'GET /files/{name}', params: { name: 'a b' }, note: 'base path /v1 stripped' },
    ],
    ['GET', '/a/b/c', { operation: 'GET /a/b/{y}', params: { y: 'c' } }],
    ['GET', '/a/z/c', { operation: 'GET /a/{x}/c', params: { x: 'z' } }],
    ['GET', '/', { operation: 'GET /', params: {} }],
  ];
  for (const [method, path, expected] of rows) {
    test(`matches ${method} ${path} as ${expected.operation}`, () => {
      assert.deepEqual(summary(matchOperation(doc, method, path)), expected);
    });
  }

  test('strips the base path before trying the path as given, so a leading template does not swallow it', async () => {
    const templated = await loadObject({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      servers: [{ url: 'https://api.example.com/v2' }],
      paths: Object.fromEntries(
        ['/meters/{id}', '/status', '/{org}/{project}', '/{org}/{project}/{item}'].map((path) => [
          path,
          { get: { responses: { 200: { description: 'ok' } } } },
        ]),
      ),
    });
    assert.deepEqual(
      ['/v2/meters/1', '/v2/status', '/v2/acme/web'].map((path) => summary(matchOperation(templated, 'GET', path))),
      [
        { operation: 'GET /meters/{id}', params: { id: '1' }, note: 'base path /v2 stripped' },
        { operation: 'GET /status', params: {}, note: 'base path /v2 stripped' },
        { operation: 'GET /{org}/{project}', params: { org: 'acme', project: 'web' }, note: 'base path /v2 stripped' },
      ],
    );
  });

  test('tries the path only as given with stripBasePaths: false', () => {
    assert.deepEqual(
      [
        summary(matchOperation(doc, 'GET', '/v1/files/a', { stripBasePaths: false })),
        summary(matchOperation(doc, 'GET', '/files/a', { stripBasePaths: false })),
      ],
      [{ operation: null }, { operation: 'GET /files/{name}', params: { name: 'a' } }],
    );
  });

  test('prefers the leftmost literal whatever the document order', () => {
    const ok = { get: { responses: {} } };
    for (const keys of [
      ['/a/{x}/c', '/a/b/{y}'],
      ['/a/b/{y}', '/a/{x}/c'],
    ]) {
      const paths = Object.fromEntries(keys.map((k) => [k, ok]));
      const loaded = { ...doc, operations: indexOperations({ openapi: '3.1.0', paths }, '3.1'), basePaths: [] };
      assert.deepEqual(summary(matchOperation(loaded, 'GET', '/a/b/c')), {
        operation: 'GET /a/b/{y}',
        params: { y: 'c' },
      });
    }
  });

  test('says when only the method differs and lists the path methods', () => {
    assert.deepEqual(matchOperation(doc, 'POST', '/files/a'), {
      operation: undefined,
      nearest: ['GET /files/{name}', 'DELETE /files/{name}'],
      note: '/files/{name} matches the path but documents no POST; it documents GET, DELETE',
    });
  });

  test('lists up to 3 nearest operations when nothing matches', () => {
    assert.deepEqual(matchOperation(doc, 'GET', '/filez/a'), {
      operation: undefined,
      nearest: ['GET /files/{name}', 'GET /files/{name}.json', 'GET /range/{from}-{to}'],
    });
  });
});

const OK_RESPONSES = { 200: { description: 'ok' } };

/** A 3.0.3 document whose every path has a GET with an empty-schema 200, plus the given top-level fields. */
function documentWith(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: '3.0.3', info: { title: 't', version: '1' }, ...extra, paths };
}

describe('multi-segment path parameters (issue 7)', () => {
  const CONTENTS = 'GET /repos/{owner}/{repo}/contents/{path}';

  test('case 47: a multi-segment parameter takes one or more segments, an empty value at the end, and no other parameter does', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '47-path-multi-segment-and-empty-params.json'), 'utf8'));
    const doc = await loadObject(fixture.input.openapi);
    const paths = fixture.input.paths as Record<string, string>;
    assert.deepEqual(
      Object.fromEntries(Object.entries(paths).map(([id, path]) => [id, summary(matchOperation(doc, 'GET', path))])),
      {
        A: { operation: CONTENTS, params: { owner: 'o', repo: 'r', path: 'README.md' } },
        B: { operation: CONTENTS, params: { owner: 'o', repo: 'r', path: 'src/lib/a.ts' } },
        C: { operation: CONTENTS, params: { owner: 'o', repo: 'r', path: '' }, note: 'path parameter "path" is empty' },
        D: { operation: null },
        E: { operation: CONTENTS, params: { owner: 'o', repo: 'r', path: 'docs/guide.md' } },
      },
    );
  });

  test('reads the mark from the path item parameters', async () => {
    const doc = await loadObject(
      documentWith({
        '/repos/{owner}/{repo}/git/ref/{ref}': {
          parameters: [
            { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'ref', in: 'path', required: true, schema: { type: 'string' }, 'x-multi-segment': true },
          ],
          get: { responses: OK_RESPONSES },
        },
      }),
    );
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/repos/o/r/git/ref/heads/feature/x')), {
      operation: 'GET /repos/{owner}/{repo}/git/ref/{ref}',
      params: { owner: 'o', repo: 'r', ref: 'heads/feature/x' },
    });
  });

  test('reads the mark through a $ref to components/parameters', async () => {
    const doc = await loadObject(
      documentWith(
        {
          '/repos/{owner}/{repo}/compare/{basehead}': {
            get: { parameters: [{ $ref: '#/components/parameters/basehead' }], responses: OK_RESPONSES },
          },
        },
        {
          components: {
            parameters: {
              basehead: {
                name: 'basehead',
                in: 'path',
                required: true,
                schema: { type: 'string' },
                'x-multi-segment': true,
              },
            },
          },
        },
      ),
    );
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/repos/o/r/compare/main...feature/x')), {
      operation: 'GET /repos/{owner}/{repo}/compare/{basehead}',
      params: { owner: 'o', repo: 'r', basehead: 'main...feature/x' },
    });
  });

  test('keeps an unmarked parameter to one segment', async () => {
    const doc = await loadObject(documentWith({ '/files/{name}': { get: { responses: OK_RESPONSES } } }));
    assert.deepEqual(matchOperation(doc, 'GET', '/files/a/b'), {
      operation: undefined,
      nearest: ['GET /files/{name}'],
    });
  });

  test('accepts an empty value only where the template ends in the parameter', async () => {
    const doc = await loadObject(
      documentWith({
        '/trees/{ref}/log': {
          get: {
            parameters: [
              { name: 'ref', in: 'path', required: true, schema: { type: 'string' }, 'x-multi-segment': true },
            ],
            responses: OK_RESPONSES,
          },
        },
      }),
    );
    assert.deepEqual(
      ['/trees//log', '/trees/a//b/log', '/trees/a/b/log'].map((path) => summary(matchOperation(doc, 'GET', path))),
      [{ operation: null }, { operation: null }, { operation: 'GET /trees/{ref}/log', params: { ref: 'a/b' } }],
    );
  });

  test('lets a literal template beat a multi-segment parameter', async () => {
    const marked = { name: 'path', in: 'path', required: true, schema: { type: 'string' }, 'x-multi-segment': true };
    const doc = await loadObject(
      documentWith({
        '/repos/{owner}/{repo}/contents/{path}': { get: { parameters: [marked], responses: OK_RESPONSES } },
        '/repos/{owner}/{repo}/contents/meta/{field}': { get: { responses: OK_RESPONSES } },
      }),
    );
    assert.deepEqual(
      ['/repos/o/r/contents/meta/size', '/repos/o/r/contents/meta/size/x'].map((path) =>
        summary(matchOperation(doc, 'GET', path)),
      ),
      [
        {
          operation: 'GET /repos/{owner}/{repo}/contents/meta/{field}',
          params: { owner: 'o', repo: 'r', field: 'size' },
        },
        { operation: CONTENTS, params: { owner: 'o', repo: 'r', path: 'meta/size/x' } },
      ],
    );
  });
});

describe('server variables and servers at every level (issue 7)', () => {
  const PETS = { '/pets/{id}': { get: { responses: OK_RESPONSES } } };

  test('strips every enum value of a variable and no value outside the enum', async () => {
    const doc = await loadObject(
      documentWith(PETS, {
        servers: [
          { url: 'https://api.example.test/{version}', variables: { version: { default: 'v1', enum: ['v1', 'v2'] } } },
        ],
      }),
    );
    assert.deepEqual(
      ['/v1/pets/7', '/v2/pets/7', '/v3/pets/7'].map((path) => summary(matchOperation(doc, 'GET', path))),
      [
        { operation: 'GET /pets/{id}', params: { id: '7' }, note: 'base path /v1 stripped' },
        { operation: 'GET /pets/{id}', params: { id: '7' }, note: 'base path /v2 stripped' },
        { operation: null },
      ],
    );
  });

  test('lets a variable without enum take any one segment', async () => {
    const doc = await loadObject(
      documentWith(PETS, {
        servers: [
          {
            url: 'https://{host}/tenants/{tenant}',
            variables: { host: { default: 'api.example.test' }, tenant: { default: 'acme' } },
          },
        ],
      }),
    );
    assert.deepEqual(
      ['/tenants/globex/pets/7', '/tenants/glo/bex/pets/7'].map((path) => summary(matchOperation(doc, 'GET', path))),
      [
        { operation: 'GET /pets/{id}', params: { id: '7' }, note: 'base path /tenants/globex stripped' },
        { operation: null },
      ],
    );
  });

  test('uses the default to break a tie between a stripped variable and the path as given', async () => {
    const doc = await loadObject(
      documentWith(
        {
          '/{org}/{item}': { get: { responses: OK_RESPONSES } },
          '/{item}': { get: { responses: OK_RESPONSES } },
        },
        { servers: [{ url: '/{tenant}', variables: { tenant: { default: 'acme' } } }] },
      ),
    );
    assert.deepEqual(
      ['/acme/box', '/globex/box'].map((path) => summary(matchOperation(doc, 'GET', path))),
      [
        { operation: 'GET /{item}', params: { item: 'box' }, note: 'base path /acme stripped' },
        { operation: 'GET /{org}/{item}', params: { org: 'globex', item: 'box' } },
      ],
    );
  });

  test('takes a default holding slashes as it is', async () => {
    const doc = await loadObject(
      documentWith(PETS, {
        servers: [
          {
            url: '{scheme}://api.example.test{basePath}',
            variables: { scheme: { default: 'https', enum: ['https', 'http'] }, basePath: { default: '/api/v2' } },
          },
        ],
      }),
    );
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/api/v2/pets/7')), {
      operation: 'GET /pets/{id}',
      params: { id: '7' },
      note: 'base path /api/v2 stripped',
    });
  });

  test('applies path item servers to that path only', async () => {
    const doc = await loadObject(
      documentWith(
        {
          '/pets/{id}': { servers: [{ url: '/v3' }], get: { responses: OK_RESPONSES } },
          '/users/{id}': { get: { responses: OK_RESPONSES } },
        },
        { servers: [{ url: '/v1' }] },
      ),
    );
    assert.deepEqual(
      ['/v3/pets/7', '/v1/pets/7', '/v1/users/7', '/v3/users/7'].map((path) =>
        summary(matchOperation(doc, 'GET', path)),
      ),
      [
        { operation: 'GET /pets/{id}', params: { id: '7' }, note: 'base path /v3 stripped' },
        { operation: null },
        { operation: 'GET /users/{id}', params: { id: '7' }, note: 'base path /v1 stripped' },
        { operation: null },
      ],
    );
  });

  test('applies operation servers to that operation only', async () => {
    const doc = await loadObject(
      documentWith(
        {
          '/pets/{id}': {
            servers: [{ url: '/v3' }],
            get: { servers: [{ url: '/beta' }], responses: OK_RESPONSES },
            delete: { responses: OK_RESPONSES },
          },
        },
        { servers: [{ url: '/v1' }] },
      ),
    );
    assert.deepEqual(
      [
        ['GET', '/beta/pets/7'],
        ['GET', '/v3/pets/7'],
        ['DELETE', '/v3/pets/7'],
        ['DELETE', '/beta/pets/7'],
      ].map(([method, path]) => summary(matchOperation(doc, method, path))),
      [
        { operation: 'GET /pets/{id}', params: { id: '7' }, note: 'base path /beta stripped' },
        { operation: null },
        { operation: 'DELETE /pets/{id}', params: { id: '7' }, note: 'base path /v3 stripped' },
        { operation: null },
      ],
    );
  });

  test('strips a literal base only at a segment boundary', async () => {
    const doc = await loadObject(documentWith(PETS, { servers: [{ url: 'https://api.example.test/v1' }] }));
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/v1x/pets/7')), { operation: null });
  });
});

describe('path templates from a hostile document (issue 8)', () => {
  const TWELVE = '/m/{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}.json';

  test('matches twelve adjacent parameters against 40 characters without backtracking', async (t) => {
    const doc = await loadObject(documentWith({ [TWELVE]: { get: { responses: OK_RESPONSES } } }));
    const started = performance.now();
    const miss = matchOperation(doc, 'GET', '/m/' + 'a'.repeat(40));
    const hit = matchOperation(doc, 'GET', '/m/' + 'a'.repeat(40) + '.json');
    t.diagnostic(
      `twelve adjacent parameters, 40 characters: ${(performance.now() - started).toFixed(2)} ms for a miss and a match`,
    );
    assert.deepEqual(
      [miss, summary(hit)],
      [
        { operation: undefined, nearest: [`GET ${TWELVE}`] },
        {
          operation: `GET ${TWELVE}`,
          params: {
            a: 'a',
            b: 'a',
            c: 'a',
            d: 'a',
            e: 'a',
            f: 'a',
            g: 'a',
            h: 'a',
            i: 'a',
            j: 'a',
            k: 'a',
            l: 'a'.repeat(29),
          },
        },
      ],
    );
  });
});

describe('$ref files behind symbolic links (issue 8)', () => {
  /** Writes docs/api.json (a schema whose $ref is `ref`) and outside/secret.json in a fresh folder; returns both folders. */
  async function layout(ref: string): Promise<{ docs: string; outside: string; api: string }> {
    const base = join(scratch, `links-${counter++}`);
    const docs = join(base, 'docs');
    const outside = join(base, 'outside');
    await mkdir(docs, { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.json'), JSON.stringify({ Secret: { enum: ['outside-value'] } }));
    const api = join(docs, 'api.json');
    await writeFile(api, JSON.stringify(documentWith({}, { components: { schemas: { S: { $ref: ref } } } })));
    return { docs, outside, api };
  }

  test('case 53: refuses a file symlink that leads outside the folder, naming the $ref and its pointer', async () => {
    const { docs, outside, api } = await layout('./link.json#/Secret');
    await symlink(join(outside, 'secret.json'), join(docs, 'link.json'));
    const doc = await loadDocument(api);
    assert.deepEqual(
      [doc.problems, doc.doc['x-bundled'], doc.doc.components.schemas.S],
      [
        [
          "$ref ./link.json#/Secret at #/components/schemas/S points outside the document's directory through a symbolic link; not read",
        ],
        undefined,
        { $ref: './link.json#/Secret' },
      ],
    );
  });

  test('reads a link back to the root document as the root, judged by the root as it was read (attack round 6, B5-6)', async () => {
    // The root is itself a link to a file outside its folder; a `$ref` link to that same file is the root, not outside.
    const { docs, outside } = await layout('./self.json#/components/schemas/T');
    const real = join(outside, 'real-api.json');
    await writeFile(
      real,
      JSON.stringify(
        documentWith(
          {},
          { components: { schemas: { S: { $ref: './self.json#/components/schemas/T' }, T: { type: 'string' } } } },
        ),
      ),
    );
    await rm(join(docs, 'api.json'));
    await symlink(real, join(docs, 'api.json'));
    await symlink(real, join(docs, 'self.json'));
    const doc = await loadDocument(join(docs, 'api.json'));
    assert.deepEqual(doc.problems, []);
  });

  test('case 53: refuses a file below a directory symlink that leads outside the folder', async () => {
    const { docs, outside, api } = await layout('./shared/secret.json#/Secret');
    await symlink(outside, join(docs, 'shared'));
    const doc = await loadDocument(api);
    assert.deepEqual(
      [doc.problems, doc.doc['x-bundled']],
      [
        [
          "$ref ./shared/secret.json#/Secret at #/components/schemas/S points outside the document's directory through a symbolic link; not read",
        ],
        undefined,
      ],
    );
  });

  test('follows a symlink that stays inside the folder', async () => {
    const { docs, api } = await layout('./alias.json#/Inside');
    await mkdir(join(docs, 'real'));
    await writeFile(join(docs, 'real', 'schemas.json'), JSON.stringify({ Inside: { type: 'string' } }));
    await symlink(join(docs, 'real', 'schemas.json'), join(docs, 'alias.json'));
    const doc = await loadDocument(api);
    assert.deepEqual(
      [doc.problems, doc.doc['x-bundled'], doc.doc.components.schemas.S],
      [[], { 'alias.json': { Inside: { type: 'string' } } }, { $ref: '#/x-bundled/alias.json/Inside' }],
    );
  });
});

describe('path cases', () => {
  for (const id of [
    '29-path-concrete-beats-template',
    '31-path-percent-encoded-params',
    '32-path-trailing-slash-policy',
  ]) {
    describe(id, () => {
      let fixture: any;
      let doc: LoadedDocument;
      before(async () => {
        fixture = JSON.parse(await readFile(join(CASES, `${id}.json`), 'utf8'));
        doc = await loadObject(fixture.input.openapi);
      });

      test(`case ${id}: every request matches its expected operation and params`, () => {
        for (const request of fixture.input.requests as string[]) {
          const expected = fixture.expected[request];
          if (expected.no_exception) continue; // the malformed rows are checked below
          const [method, path] = request.split(' ');
          const got = summary(matchOperation(doc, method, path));
          const want: Record<string, unknown> = { operation: expected.operation };
          if (expected.params) want.params = expected.params;
          const compared: Record<string, unknown> = { operation: got.operation };
          if (expected.params) compared.params = got.params;
          assert.deepEqual(compared, want, request);
        }
      });
    });
  }

  test('case 29: /users/me is matched with no note and /users/ gives no match', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '29-path-concrete-beats-template.json'), 'utf8'));
    const doc = await loadObject(fixture.input.openapi);
    assert.deepEqual(matchOperation(doc, 'GET', '/users/me').note, undefined);
    assert.deepEqual(matchOperation(doc, 'GET', '/users/'), {
      operation: undefined,
      nearest: ['GET /users/{id}', 'GET /users/me'],
    });
  });

  test('case 31: malformed percent-encoding keeps the raw value with a note and never throws', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '31-path-percent-encoded-params.json'), 'utf8'));
    const doc = await loadObject(fixture.input.openapi);
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/files/%ZZ')), {
      operation: 'GET /files/{name}',
      params: { name: '%ZZ' },
      note: 'malformed percent-encoding in "%ZZ"; raw value kept',
    });
    assert.deepEqual(summary(matchOperation(doc, 'GET', '/files/%E2%82')), {
      operation: 'GET /files/{name}',
      params: { name: '%E2%82' },
      note: 'malformed percent-encoding in "%E2%82"; raw value kept',
    });
  });

  test('case 32: the trailing slash fallback carries a note', async () => {
    const fixture = JSON.parse(await readFile(join(CASES, '32-path-trailing-slash-policy.json'), 'utf8'));
    const doc = await loadObject(fixture.input.openapi);
    assert.deepEqual(
      ['/jobs/', '/jobs/j1/', '/api/user/notes', '/pets/', '/jobs'].map((p) => summary(matchOperation(doc, 'GET', p))),
      [
        { operation: 'GET /jobs', params: {}, note: 'matched without the trailing slash' },
        { operation: 'GET /jobs/{id}', params: { id: 'j1' }, note: 'matched without the trailing slash' },
        { operation: 'GET /api/user/notes/', params: {}, note: 'matched with a trailing slash added' },
        { operation: 'GET /pets/', params: {} },
        { operation: 'GET /jobs', params: {} },
      ],
    );
  });
});

describe('the GitHub REST API description', () => {
  let doc: LoadedDocument;
  let loadMs = 0;
  before(async () => {
    const started = performance.now();
    doc = await loadDocument(GITHUB);
    loadMs = performance.now() - started;
  });

  test('loads and indexes every operation without problems', (t) => {
    t.diagnostic(`GitHub description: loaded and indexed in ${Math.round(loadMs)} ms`);
    assert.deepEqual([doc.version, doc.basePaths, doc.problems, doc.operations.length > 1000], ['3.0', [], [], true]);
  });

  test('matches /issues/comments to the literal template, not {issue_number}', () => {
    const match = matchOperation(doc, 'GET', '/repos/octocat/hello-world/issues/comments');
    assert.deepEqual(
      [summary(match), match.operation?.operationId],
      [
        { operation: 'GET /repos/{owner}/{repo}/issues/comments', params: { owner: 'octocat', repo: 'hello-world' } },
        'issues/list-comments-for-repo',
      ],
    );
  });

  test('matches /issues/42 to {issue_number}', () => {
    const match = matchOperation(doc, 'GET', '/repos/octocat/hello-world/issues/42');
    assert.deepEqual(
      [summary(match), match.operation?.operationId],
      [
        {
          operation: 'GET /repos/{owner}/{repo}/issues/{issue_number}',
          params: { owner: 'octocat', repo: 'hello-world', issue_number: '42' },
        },
        'issues/get',
      ],
    );
  });
});

describe('document core lookups (issue 6)', () => {
  test('follow reaches the end of a 300-hop $ref chain (case 51: no cut at 64 hops)', () => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 299; i++) schemas[`S${i}`] = { $ref: `#/components/schemas/S${i + 1}` };
    schemas.S299 = { type: 'object', required: ['mustHave'] };
    const doc = { components: { schemas } };
    assert.deepEqual(follow(doc, { $ref: '#/components/schemas/S0' }), {
      value: { type: 'object', required: ['mustHave'] },
      pointer: '#/components/schemas/S299',
    });
  });
  test('follow names a loop and keeps the last value reached', () => {
    const doc = { a: { $ref: '#/b' }, b: { $ref: '#/a' } };
    assert.deepEqual(follow(doc, { $ref: '#/a' }), {
      value: { $ref: '#/a' },
      pointer: '#/b',
      looped: true,
      error: 'the $ref chain #/a -> #/b -> #/a loops without reaching an object',
    });
  });
  test('lookupPointer reads malformed percent-encoding as raw text and says why a pointer misses', () => {
    const doc = { a: { '100%': 1 } };
    assert.deepEqual(
      [lookupPointer(doc, '#/a/100%'), lookupPointer(doc, '#/a/x'), lookupPointer(doc, 'other.json#/a')],
      [
        { found: true, value: 1 },
        { found: false, reason: 'Cannot resolve `#/a/x`: nothing at `x`' },
        {
          found: false,
          reason:
            'Cannot resolve `other.json#/a`: not a local JSON Pointer (expected `#/...`); external references must be bundled first',
        },
      ],
    );
  });
  test('responseForStatus prefers the exact code, then NXX, then default', () => {
    const responses = { 200: 'exact', '2XX': 'range', '4xx': 'lower range', default: 'fallback' };
    assert.deepEqual(
      [200, 204, 404, 500].map((status) => responseForStatus(responses, status)),
      [
        { key: '200', response: 'exact' },
        { key: '2XX', response: 'range' },
        { key: '4xx', response: 'lower range' },
        { key: 'default', response: 'fallback' },
      ],
    );
  });
  test('pickMediaType matches by essence, then type/*, then */*', () => {
    const content = { 'application/json; charset=utf-8': { schema: {} }, 'text/*': {}, '*/*': {} };
    assert.deepEqual(
      ['Application/JSON', 'text/html', 'image/png', undefined].map((type) => pickMediaType(content, type)),
      ['application/json; charset=utf-8', 'text/*', '*/*', 'application/json; charset=utf-8'],
    );
  });
});

describe('readCappedStream', () => {
  // One chunk per pull, then the end or (`fail`) an error, as a socket would deliver them.
  const streamOf = (chunks: string[], fail = false) => {
    let next = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (next < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[next++]));
          else if (fail) controller.error(new Error('connection reset'));
          else controller.close();
        },
      }),
    );
  };

  const bodyOf = (chunks: string[], fail = false) =>
    streamOf(chunks, fail).body as unknown as AsyncIterable<Uint8Array>;

  test('stops one chunk past the cap and says the body was longer', async () => {
    const read = await readCappedStream(bodyOf(['abcd', 'efgh', 'ijkl']), 5);
    assert.deepEqual(
      [read.all.toString(), read.bytes, read.truncated, 'failure' in read],
      ['abcdefgh', 8, true, false],
    );
  });

  test('reads a body within the cap whole', async () => {
    const read = await readCappedStream(bodyOf(['abcd', 'efgh']), 8);
    assert.deepEqual(
      [read.all.toString(), read.bytes, read.truncated, 'failure' in read],
      ['abcdefgh', 8, false, false],
    );
  });

  test('returns what arrived before a broken stream, with the failure', async () => {
    const read = await readCappedStream(bodyOf(['abcd'], true), 100);
    assert.deepEqual(
      [read.all.toString(), read.bytes, read.truncated, (read.failure as Error).message],
      ['abcd', 4, false, 'connection reset'],
    );
  });
});

describe('editDistance (the one copy: path suggestions, "did you mean", search spelling)', () => {
  test('counts insertions, deletions and substitutions', () => {
    assert.deepEqual(
      [
        editDistance('kitten', 'sitting'),
        editDistance('', 'abc'),
        editDistance('photoUrl', 'photoUrls'),
        editDistance('same', 'same'),
      ],
      [3, 3, 1, 0],
    );
  });
  test('stops past the limit and says limit + 1, from the lengths or from a row', () => {
    assert.deepEqual(
      [
        editDistance('kitten', 'sitting', 2),
        editDistance('a', 'abcd', 2),
        editDistance('abcd', 'wxyz', 1),
        editDistance('abcd', 'abce', 1),
      ],
      [3, 3, 2, 1],
    );
  });
});

describe('readCapped checks the file it opened (attack round 5, B5: a link swapped between the check and the open)', () => {
  test('refuses a path that leads outside the folder when it is opened, and reads one that does not', async () => {
    const root = await mkdtemp(join(tmpdir(), 'opened-'));
    try {
      await mkdir(join(root, 'inside'));
      await mkdir(join(root, 'outside'));
      await writeFile(join(root, 'outside', 's.json'), '{"secret":true}');
      await writeFile(join(root, 'inside', 'own.json'), '{"own":true}');
      // The state a race leaves: a folder of the checked path is a link out of the document's folder by the time it is opened.
      await symlink(join(root, 'outside'), join(root, 'inside', 'sub'));
      const insideReal = await realpath(join(root, 'inside'));
      const allowed = async (opened: string) => opened.startsWith(insideReal + '/');
      await assert.rejects(readCapped(join(root, 'inside', 'sub', 's.json'), 1024, 5000, allowed), {
        message:
          "the file opened is outside the document's directory (a symbolic link changed while it was opened); not read",
      });
      assert.equal(await readCapped(join(root, 'inside', 'own.json'), 1024, 5000, allowed), '{"own":true}');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('matchOperation and the index read parameter styles (issue 15)', () => {
  let styled: LoadedDocument;
  before(async () => {
    const path = (name: string, style?: string) => ({ name, in: 'path', required: true, ...(style ? { style } : {}) });
    styled = await loadObject({
      openapi: '3.0.3',
      info: { title: 's', version: '1' },
      paths: {
        '/points/{x}{y}': { get: { parameters: [path('x', 'matrix'), path('y', 'matrix')], responses: {} } },
        '/files/{name}{ext}': { get: { parameters: [path('name'), path('ext', 'label')], responses: {} } },
        '/kinds/{kind}': { get: { parameters: [path('kind')], responses: {} } },
        '/q': {
          get: {
            parameters: [
              { name: 'f', in: 'query', style: 'deepObject', explode: true, allowReserved: true, schema: {} },
              { name: 'j', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
            ],
            responses: {},
          },
        },
      },
    });
  });

  test('splits two matrix parameters of one segment where the second one\'s ";name" begins, values as written', () => {
    const match = matchOperation(styled, 'GET', '/points/;x=1;y=2');
    assert.deepEqual(match.operation && { params: match.params, rawParams: match.rawParams }, {
      params: { x: ';x=1', y: ';y=2' },
      rawParams: { x: ';x=1', y: ';y=2' },
    });
  });

  test('gives a label parameter after a simple one the text from its "." on', () => {
    const match = matchOperation(styled, 'GET', '/files/report.tar.gz');
    assert.deepEqual(match.operation && match.params, { name: 'report', ext: '.tar.gz' });
  });

  test('keeps the raw segment beside the decoded value: %2C stays data for the style reader', () => {
    const match = matchOperation(styled, 'GET', '/kinds/a%2Cb');
    assert.deepEqual(match.operation && [match.params, match.rawParams], [{ kind: 'a,b' }, { kind: 'a%2Cb' }]);
  });

  test('keeps style, explode, allowReserved and the content media type of each parameter in the index', () => {
    const operation = styled.operations.find((candidate) => candidate.pathTemplate === '/q')!;
    assert.deepEqual(
      operation.parameters.map(({ style, explode, allowReserved, contentType }) => ({
        style,
        explode,
        allowReserved,
        contentType,
      })),
      [
        { style: 'deepObject', explode: true, allowReserved: true, contentType: undefined },
        { style: undefined, explode: undefined, allowReserved: undefined, contentType: 'application/json' },
      ],
    );
  });

  test('gives a Swagger 2.0 array its collectionFormat, csv when none is written', async () => {
    const swagger = await loadObject({
      swagger: '2.0',
      info: { title: 's', version: '1' },
      paths: {
        '/v': {
          get: {
            parameters: [
              { name: 'a', in: 'query', type: 'array', items: { type: 'string' } },
              { name: 'b', in: 'query', type: 'array', collectionFormat: 'multi', items: { type: 'string' } },
              { name: 'c', in: 'query', type: 'string' },
            ],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    assert.deepEqual(
      swagger.operations[0]!.parameters.map((parameter) => parameter.collectionFormat),
      ['csv', 'multi', undefined],
    );
  });
});

describe('$id, $anchor and relative $refs in a 3.1 document (issue 15)', () => {
  const FIXTURE = join(DOCS, 'schema-ids.json');

  test('loads a document whose relative $ref sits under an $id, naming only the $ref that leaves it', async () => {
    const loaded = await loadDocument(FIXTURE);
    assert.deepEqual(loaded.problems, [
      '$ref vet at #/components/schemas/Pet/properties/vet is not followed: `$ref: vet` resolves to https://example.test/schemas/vet, which no `$id` of the document declares, and is not a local JSON Pointer (external references must be bundled into the document); that schema is not checked',
    ]);
  });

  test('leaves $refs to $ids and anchors as written, neither read as files nor rewritten', async () => {
    const { doc } = await loadDocument(FIXTURE);
    assert.deepEqual(
      [
        doc.components.schemas.Pet.properties.tag,
        doc.components.schemas.Pet.properties.id,
        doc.paths['/owners/{ownerId}'].get.responses['200'].content['application/json'].schema,
        doc['x-bundled'],
      ],
      [{ $ref: 'tag' }, { $ref: '#/$defs/id' }, { $ref: '#owner' }, undefined],
    );
  });

  test('resolves each against the base URI where it stands: an $id, #/... from that resource, an anchor', async () => {
    const { doc } = await loadDocument(FIXTURE);
    const pointers = (
      [
        ['tag', '#/components/schemas/Pet/properties/tag'],
        ['#/$defs/id', '#/components/schemas/Pet/properties/id'],
        ['#owner', '#/paths/~1owners~1{ownerId}/get/responses/200/content/application~1json/schema'],
        ['https://example.test/schemas/pet', '#/components/schemas/Owner/properties/pet'],
      ] as const
    ).map(([ref, at]) => {
      const hit = resolveSchemaRef(doc, ref, at);
      return hit.found ? hit.pointer : hit.reason;
    });
    assert.deepEqual(pointers, [
      '#/components/schemas/Tag',
      '#/components/schemas/Pet/$defs/id',
      '#/components/schemas/Owner',
      '#/components/schemas/Pet',
    ]);
  });

  test('follows a $ref chain through an $id and an anchor to its pointers', async () => {
    const { doc } = await loadDocument(FIXTURE);
    const pet = follow(doc, { $ref: 'https://example.test/schemas/pet' });
    const owner = follow(doc, { $ref: '#owner' });
    assert.deepEqual(
      [pet.pointer, pet.error, owner.pointer, owner.error],
      ['#/components/schemas/Pet', undefined, '#/components/schemas/Owner', undefined],
    );
  });

  test('loads a document whose #/... under an $id points nowhere in that resource, saying so for that schema', async () => {
    const loaded = await loadObject({
      openapi: '3.1.0',
      info: { title: 'ids', version: '1' },
      paths: {},
      components: {
        schemas: {
          Pet: { $id: 'https://example.test/pet', properties: { a: { $ref: '#/$defs/missing' } } },
          Other: { $defs: { missing: { type: 'string' } } },
        },
      },
    });
    assert.deepEqual(loaded.problems, [
      '$ref #/$defs/missing at #/components/schemas/Pet/properties/a is not followed: `$ref: #/$defs/missing` points nowhere in the document; that schema is not checked',
    ]);
  });

  test("names a jsonSchemaDialect other than 2020-12 or OAS 3.1's base dialect, which it reads as 2020-12", async () => {
    const problems = await Promise.all(
      [
        'https://spec.openapis.org/oas/3.1/dialect/base',
        'https://json-schema.org/draft/2020-12/schema',
        'https://json-schema.org/draft-07/schema#',
      ].map(
        async (jsonSchemaDialect) =>
          (await loadObject({ openapi: '3.1.0', jsonSchemaDialect, info: { title: 'd', version: '1' }, paths: {} }))
            .problems,
      ),
    );
    assert.deepEqual(problems, [
      [],
      [],
      [
        'jsonSchemaDialect "https://json-schema.org/draft-07/schema#" is not JSON Schema 2020-12; schemas are read as 2020-12',
      ],
    ]);
  });

  test('still rejects a #/... $ref that points nowhere outside any $id', async () => {
    const error = await documentError(
      loadObject({
        openapi: '3.1.0',
        info: { title: 'ids', version: '1' },
        paths: {},
        components: {
          schemas: {
            Pet: { $id: 'https://example.test/pet', type: 'object' },
            Owner: { properties: { pet: { $ref: '#/components/schemas/Nope' } } },
          },
        },
      }),
    );
    assert.deepEqual(
      [error.pointer, error.reason],
      ['#/components/schemas/Owner/properties/pet', '$ref #/components/schemas/Nope points nowhere'],
    );
  });
});

// Issue 15, attack round: `$ref`s resolve against the document's retrieval URI (RFC 3986, 5.1.3; JSON Schema 2020-12,
// 9.1.1), or its `$self` (OpenAPI 3.2), never against a placeholder; a reference to another document stays unresolved.
describe('the base URI of a document is where it was loaded from', () => {
  let server: Server;
  let origin = '';
  const served = new Map<string, string>();
  before(async () => {
    server = createServer((request, response) => {
      const text = served.get(request.url ?? '');
      response.writeHead(text === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(text ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  /** A 3.x document whose GET /pets answers `ref`, and a Pet schema (with an `$id` relative to the document in 3.1). */
  const petDocument = (version: string, ref: string, extra: Record<string, unknown> = {}) => ({
    openapi: version,
    info: { title: 'base', version: '1' },
    ...extra,
    paths: {
      '/pets': {
        get: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
        },
      },
    },
    components: {
      schemas: {
        Pet: { type: 'object', properties: { id: { type: 'integer' } } },
        ...(version === '3.1.0' ? { Tag: { $id: 'schemas/tag.json', type: 'string' } } : {}),
      },
    },
  });
  /** Where the response schema's `$ref` leads, and the load's problems. */
  const resolved = (loaded: LoadedDocument) => {
    const at = '#/paths/~1pets/get/responses/200/content/application~1json/schema';
    const ref = lookupRef(loaded.doc, at);
    const hit = resolveSchemaRef(loaded.doc, ref, at);
    return { pointer: hit.found ? hit.pointer : undefined, problems: loaded.problems };
  };
  const lookupRef = (doc: any, at: string): string =>
    at
      .slice(2)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node, token) => node[token], doc).$ref;

  for (const version of ['3.0.3', '3.1.0']) {
    test(`${version}: a $ref written with the document's own http URL, absolute or relative, stays inside it`, async () => {
      const results = [];
      for (const ref of [`${origin}/specs/api.json#/components/schemas/Pet`, 'api.json#/components/schemas/Pet']) {
        served.set('/specs/api.json', JSON.stringify(petDocument(version, ref)));
        results.push(resolved(await loadDocument(`${origin}/specs/api.json`)));
      }
      assert.deepStrictEqual(results, [
        { pointer: '#/components/schemas/Pet', problems: [] },
        { pointer: '#/components/schemas/Pet', problems: [] },
      ]);
    });
    test(`${version}: a $ref written with the document's own file: URL stays inside it`, async () => {
      const folder = await mkdtemp(join(tmpdir(), 'base-uri-'));
      const file = join(folder, 'api.json');
      await writeFile(
        file,
        JSON.stringify(petDocument(version, `${pathToFileURL(file).href}#/components/schemas/Pet`)),
      );
      try {
        assert.deepStrictEqual(resolved(await loadDocument(file)), {
          pointer: '#/components/schemas/Pet',
          problems: [],
        });
      } finally {
        await rm(folder, { recursive: true });
      }
    });
    test(`${version}: a $ref to another document on the same host is not resolved, and says so`, async () => {
      const ref = `${origin}/specs/other.json#/components/schemas/Pet`;
      served.set('/specs/other.json', JSON.stringify(petDocument(version, '#/components/schemas/Pet')));
      served.set('/specs/api.json', JSON.stringify(petDocument(version, ref)));
      const loaded = await loadDocument(`${origin}/specs/api.json`);
      const at = '#/paths/~1pets/get/responses/200/content/application~1json/schema';
      assert.deepStrictEqual(
        [loaded.problems, resolveSchemaRef(loaded.doc, ref, at)],
        [
          [`remote $ref ${ref} at ${at} not fetched`],
          {
            found: false,
            reason: `\`$ref: ${ref}\` is not a local JSON Pointer (external references must be bundled into the document)`,
            outside: true,
          },
        ],
      );
    });
  }
  test("3.1: an absolute $ref to an $id written relative to the document's URL resolves to that schema", async () => {
    served.set('/specs/api.json', JSON.stringify(petDocument('3.1.0', `${origin}/specs/schemas/tag.json`)));
    assert.deepStrictEqual(resolved(await loadDocument(`${origin}/specs/api.json`)), {
      pointer: '#/components/schemas/Tag',
      problems: [],
    });
  });
  test('$self (OpenAPI 3.2) sets the base URI: a $ref written with it stays inside the document', async () => {
    const self = 'https://example.com/apis/pets/openapi.json';
    served.set(
      '/specs/api.json',
      JSON.stringify(petDocument('3.1.0', `${self}#/components/schemas/Pet`, { $self: self })),
    );
    assert.deepStrictEqual(resolved(await loadDocument(`${origin}/specs/api.json`)), {
      pointer: '#/components/schemas/Pet',
      problems: [],
    });
  });
});
