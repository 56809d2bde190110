import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDocument } from '../document/openapi-document.ts';
import type { LoadedDocument } from '../document/model.ts';
import { draftRequest } from './draft.ts';
import { fieldsOfFormText, fieldsOfMultipartText } from './body-encoding.ts';

const CASES = fileURLToPath(new URL('../../fixtures/cases/', import.meta.url));

let scratch = '';
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'body-encoding-test-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let written = 0;
/** Loads a document given as an object (written to a scratch file, as the loader reads files). */
async function loadObject(document: unknown): Promise<LoadedDocument> {
  const file = join(scratch, `${written++}.json`);
  await writeFile(file, JSON.stringify(document));
  return loadDocument(file);
}

/** A document with one `POST /things` whose request body is `content`. */
function documentWith(content: Record<string, unknown>): unknown {
  return {
    openapi: '3.0.3',
    info: { title: 'bodies', version: '1' },
    paths: {
      '/things': {
        post: {
          operationId: 'addThing',
          requestBody: { required: true, content },
          responses: { '201': { description: 'ok' } },
        },
      },
    },
  };
}

/** A POST /things draft against https://api.test with the key in Authorization. */
function post(loaded: LoadedDocument, body: unknown, headers?: Record<string, string>) {
  return draftRequest(loaded, {
    method: 'POST',
    url: new URL('https://api.test/things'),
    basePrefix: '',
    keyHeader: 'Authorization',
    ...(headers ? { headers } : {}),
    body,
  });
}

/** A multipart/form-data text read by undici's own parser (Response.formData, WHATWG Fetch): the oracle. */
async function partsOf(text: string, contentType: string): Promise<[string, string, string?][]> {
  const form = await new Response(text, { headers: { 'content-type': contentType } }).formData();
  const parts: [string, string, string?][] = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') parts.push([name, value]);
    else parts.push([name, await value.text(), value.type]);
  }
  return parts;
}

describe('case 69: draft_request with an application/x-www-form-urlencoded body (OAS 3.0.3 4.7.13-14)', () => {
  let token: LoadedDocument;
  let calls: Record<string, { method: string; path: string; headers?: Record<string, string>; body: unknown }>;
  before(async () => {
    const known = JSON.parse(await readFile(join(CASES, '69-draft-form-urlencoded-body.json'), 'utf8'));
    const session = known.input.sessions[0];
    token = await loadObject(session.openapi);
    calls = Object.fromEntries(session.calls.map((call: any) => [call.label, call.arguments]));
  });
  const drafted = (label: string) => {
    const call = calls[label]!;
    return draftRequest(token, {
      method: call.method,
      url: new URL(`https://api.test${call.path}`),
      basePrefix: '',
      keyHeader: 'Authorization',
      ...(call.headers ? { headers: call.headers } : {}),
      body: call.body,
    });
  };
  const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Bearer $API_KEY' };

  it('A: passes a correct form body given as text, max_age "60" read as the integer 60', () => {
    const answer = drafted('A');
    assert.deepStrictEqual(
      [answer.matchesContract, answer.problems, answer.request.body],
      [true, [], 'grant_type=client_credentials&scope=read+write&max_age=60'],
    );
  });

  it('B: reports the missing grant_type of a form text', () => {
    assert.deepStrictEqual(drafted('B').problems, [
      { in: 'body', name: '$.grant_type', kind: 'missing', severity: 'error', message: 'is required but missing' },
    ]);
  });

  it('C: reports grant_type outside its enum and max_age "soon" as no integer', () => {
    assert.deepStrictEqual(drafted('C').problems, [
      {
        in: 'body',
        name: '$.grant_type',
        kind: 'enum',
        severity: 'error',
        message: 'is "refresh_token", not one of the allowed values ["client_credentials","password"]',
      },
      { in: 'body', name: '$.max_age', kind: 'wrongType', severity: 'error', message: 'is string, expected integer' },
    ]);
  });

  it('D: checks an object body without Content-Type as the form the operation documents, and drafts it as a form', () => {
    const answer = drafted('D');
    assert.deepStrictEqual(
      [answer.matchesContract, answer.problems, answer.request],
      [
        true,
        [],
        {
          method: 'POST',
          url: 'https://api.test/oauth2/token',
          headers: formHeaders,
          body: 'grant_type=client_credentials&scope=read',
          curl: `curl -g -X 'POST' 'https://api.test/oauth2/token' -H 'Content-Type: application/x-www-form-urlencoded' -H 'Authorization: Bearer '"$API_KEY" --data-raw 'grant_type=client_credentials&scope=read'`,
        },
      ],
    );
  });

  it('E: checks an object body under a form Content-Type field by field, and sends its form encoding, not JSON', () => {
    const answer = drafted('E');
    assert.deepStrictEqual(
      [
        answer.problems,
        answer.request.body,
        answer.request.curl.endsWith(`--data-raw 'grant_type=password&max_age=x'`),
      ],
      [
        [
          {
            in: 'body',
            name: '$.max_age',
            kind: 'wrongType',
            severity: 'error',
            message: 'is string, expected integer',
          },
        ],
        'grant_type=password&max_age=x',
        true,
      ],
    );
  });
});

describe('form bodies', () => {
  let form: LoadedDocument;
  before(async () => {
    form = await loadObject(
      documentWith({
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              age: { type: 'integer' },
              ratio: { type: 'number' },
              active: { type: 'boolean' },
              tags: { type: 'array', items: { type: 'integer' } },
              address: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
            },
            additionalProperties: false,
          },
        },
      }),
    );
  });

  it('reads a form text as WHATWG URL does: "+" is a space, escapes decoded, a bad escape kept', () => {
    // The WHATWG URL standard's own example pairs (application/x-www-form-urlencoded parsing), and a lone "%zz".
    assert.deepStrictEqual(fieldsOfFormText('a=b+c&d=%F0%9F%98%80&e=%zz&=f&g'), [
      { name: 'a', value: 'b c' },
      { name: 'd', value: '😀' },
      { name: 'e', value: '%zz' },
      { name: '', value: 'f' },
      { name: 'g', value: '' },
    ]);
  });

  it("turns each field of a form text into its property's type before the check: integer, number, boolean, a repeated name as an array", () => {
    const answer = post(
      form,
      'name=Rex&age=7&ratio=0.5&active=true&tags=1&tags=2&address=%7B%22city%22%3A%22Oslo%22%7D',
      {
        'Content-Type': 'application/x-www-form-urlencoded',
      },
    );
    assert.deepStrictEqual([answer.matchesContract, answer.problems], [true, []]);
  });

  it('reports fields of a form text that fit no type, by instance path', () => {
    const answer = post(form, 'name=Rex&age=7.5&active=yes&tags=1&tags=two&address=%7B%7D', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    assert.deepStrictEqual(answer.problems, [
      { in: 'body', name: '$.active', kind: 'wrongType', severity: 'error', message: 'is string, expected boolean' },
      { in: 'body', name: '$.address.city', kind: 'missing', severity: 'error', message: 'is required but missing' },
      { in: 'body', name: '$.age', kind: 'wrongType', severity: 'error', message: 'is string, expected integer' },
      { in: 'body', name: '$.tags[1]', kind: 'wrongType', severity: 'error', message: 'is string, expected integer' },
    ]);
  });

  it('encodes a JSON object as a form: an array as one field per item, an object as JSON text (OAS 3.0.3 4.7.15 contentType)', () => {
    const answer = post(form, { name: 'Ann & Bob', tags: [1, 2], address: { city: 'Zürich' }, active: false });
    assert.deepStrictEqual(
      [answer.matchesContract, answer.request.headers['Content-Type'], answer.request.body],
      [
        true,
        'application/x-www-form-urlencoded',
        'name=Ann+%26+Bob&tags=1&tags=2&address=%7B%22city%22%3A%22Z%C3%BCrich%22%7D&active=false',
      ],
    );
  });

  it('reports a form field the schema does not declare', () => {
    assert.deepStrictEqual(post(form, 'name=Rex&colour=red').problems, [
      {
        in: 'body',
        name: '$.colour',
        kind: 'undocumented',
        severity: 'error',
        message: 'is present but not documented, and the schema closes the object with additionalProperties: false',
      },
    ]);
  });

  it('refuses an array as a form body: a form is an object of fields', () => {
    assert.deepStrictEqual(post(form, [1, 2]).problems, [
      {
        in: 'body',
        name: '$',
        kind: 'wrongType',
        severity: 'error',
        message: 'is an array, but application/x-www-form-urlencoded takes an object of fields, or their encoded text',
      },
    ]);
  });

  it('reads a form body over the inline limit from request-body.txt and does not repeat it', () => {
    const answer = post(form, { name: 'x'.repeat(20_000) });
    assert.deepStrictEqual(answer.request, {
      method: 'POST',
      url: 'https://api.test/things',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Bearer $API_KEY' },
      bodyFile: 'request-body.txt',
      bodyLength: 20_005,
      curl: `curl -g -X 'POST' 'https://api.test/things' -H 'Content-Type: application/x-www-form-urlencoded' -H 'Authorization: Bearer '"$API_KEY" --data-binary @request-body.txt`,
    });
  });
});

describe("form fields by their Encoding Object's style and explode (OAS 3.0.3 4.7.15, the Style Examples table)", () => {
  let styled: LoadedDocument;
  before(async () => {
    const rgb = {
      type: 'object',
      properties: { R: { type: 'integer' }, G: { type: 'integer' }, B: { type: 'integer' } },
    };
    const colours = { type: 'array', items: { type: 'string' } };
    styled = await loadObject(
      documentWith({
        'application/x-www-form-urlencoded': {
          schema: { type: 'object', properties: { color: rgb, tags: colours, ids: colours, shade: rgb } },
          encoding: {
            color: { style: 'deepObject', explode: true },
            tags: { style: 'form', explode: false },
            ids: { style: 'pipeDelimited' },
            shade: { style: 'deepObject' },
          },
        },
      }),
    );
  });

  it('writes deepObject, form without explode and pipeDelimited fields as the table does, then URLSearchParams-encoded', () => {
    // Style Examples: color[R]=100&color[G]=200&color[B]=150, color=blue,black,brown, color=blue|black|brown.
    const answer = post(styled, {
      color: { R: 100, G: 200, B: 150 },
      tags: ['blue', 'black', 'brown'],
      ids: ['blue', 'black', 'brown'],
    });
    assert.deepStrictEqual(
      [answer.problems, answer.request.body],
      [[], 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150&tags=blue%2Cblack%2Cbrown&ids=blue%7Cblack%7Cbrown'],
    );
  });

  it('reads a form text by the same styles and checks each value by its own schema', () => {
    const answer = post(styled, 'color[R]=100&color[G]=green&tags=blue,black&ids=1|2', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    assert.deepStrictEqual(answer.problems, [
      { in: 'body', name: '$.color.G', kind: 'wrongType', severity: 'error', message: 'is string, expected integer' },
    ]);
  });

  it('sends a field whose style the specification leaves undefined (deepObject without explode) as a plain field, and says so', () => {
    assert.deepStrictEqual(post(styled, { shade: { R: 1 } }).problems, [
      {
        in: 'body',
        name: '$.shade',
        kind: 'style',
        severity: 'warning',
        message:
          "is sent as a plain field: its Encoding Object's style cannot write it (style deepObject with explode false is not defined)",
      },
    ]);
  });
});

describe('multipart/form-data bodies (RFC 7578, OAS 3.0.3 4.7.15 Encoding Object)', () => {
  let upload: LoadedDocument;
  const boundary = 'openapi-probe-000000';
  before(async () => {
    upload = await loadObject(
      documentWith({
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['id', 'photo'],
            properties: {
              id: { type: 'integer' },
              meta: { type: 'object', properties: { tag: { type: 'string' } } },
              tags: { type: 'array', items: { type: 'string' } },
              photo: { type: 'string', format: 'binary' },
              note: { type: 'string' },
            },
          },
          encoding: {
            photo: {
              contentType: 'image/png, image/jpeg',
              headers: { 'X-Rate-Limit': { required: true, schema: { type: 'integer' } } },
            },
            note: { contentType: 'text/plain' },
          },
        },
      }),
    );
  });

  it("drafts an object as parts: an object as application/json, an array's items as parts of one name, a binary field as a file of its Encoding contentType", async () => {
    const answer = post(upload, { id: 7, meta: { tag: 'a' }, tags: ['x', 'y'], photo: 'PNG…' });
    const contentType = answer.request.headers['Content-Type']!;
    assert.deepStrictEqual(
      [contentType, await partsOf(answer.request.body as string, contentType)],
      [
        `multipart/form-data; boundary=${boundary}`,
        [
          ['id', '7'],
          ['meta', '{"tag":"a"}'],
          ['tags', 'x'],
          ['tags', 'y'],
          ['photo', 'PNG…', 'image/png'],
        ],
      ],
    );
  });

  it('picks a boundary that no part holds', async () => {
    const answer = post(upload, { id: 1, note: `--${boundary}\r\n--openapi-probe-000001x`, photo: 'P' });
    const contentType = answer.request.headers['Content-Type']!;
    assert.deepStrictEqual(
      [contentType, (await partsOf(answer.request.body as string, contentType))[1]],
      ['multipart/form-data; boundary=openapi-probe-000002', ['note', `--${boundary}\r\n--openapi-probe-000001x`]],
    );
  });

  it('reports a part holding the boundary the given Content-Type names', () => {
    assert.deepStrictEqual(
      post(upload, { id: 1, note: 'a\r\n--given\r\n' }, { 'Content-Type': 'multipart/form-data; boundary=given' })
        .problems,
      [
        {
          in: 'body',
          name: '$',
          kind: 'invalid',
          severity: 'error',
          message: 'holds --given, the boundary its Content-Type names: leave the boundary out',
        },
      ],
    );
  });

  // RFC 2046, 5.1.1 boundaries in a Content-Type read as RFC 9110, 5.6.6 parameters (issue 15, attack round).
  const parts = [
    ['id', '1'],
    ['photo', 'P', 'image/png'],
  ];
  for (const [header, boundaryUsed] of [
    ['multipart/form-data; boundary="a\\:b c"', 'a:b c'],
    [`multipart/form-data; boundary=${'b'.repeat(70)}`, 'b'.repeat(70)],
    [`multipart/form-data; BOUNDARY="${"'()+_,-./:=? ".repeat(5)}z"`, "'()+_,-./:=? ".repeat(5) + 'z'],
  ] as const) {
    it(`writes the body under the boundary the Content-Type ${header.slice(21, 60)} names, unescaped`, async () => {
      const answer = post(upload, { id: 1, photo: 'P' }, { 'Content-Type': header });
      const contentType = answer.request.headers['Content-Type']!;
      const body = answer.request.body as string;
      assert.deepStrictEqual(
        [
          contentType,
          body.startsWith(`--${boundaryUsed}\r\n`),
          boundaryProblems(answer),
          await partsOf(body, contentType),
        ],
        [header, true, [], parts],
      );
    });
  }
  // The photo part's required X-Rate-Limit header is reported too (an object body cannot carry it): left out here.
  const boundaryProblems = (answer: ReturnType<typeof post>) =>
    answer.problems.filter((problem) => problem.kind === 'invalid');
  const invalid = (given: string, used: string, how = 'chosen') => ({
    in: 'body',
    name: '$',
    kind: 'invalid',
    severity: 'warning',
    message: `has the Content-Type boundary ${JSON.stringify(given)} (${given.length} characters), which RFC 2046, 5.1.1 does not allow (1 to 70 of 0-9 A-Z a-z '()+_,-./:=? and space, not ending in a space): the draft uses boundary=${JSON.stringify(used)} (${how}) in the Content-Type and the body; give a valid boundary or leave it out`,
  });
  for (const [header, given, rest] of [
    ['multipart/form-data; boundary=""', '', ''],
    ['multipart/form-data; boundary="a\\"b"', 'a"b', ''],
    [`multipart/form-data; boundary=${'c'.repeat(71)}`, 'c'.repeat(71), ''],
    ['multipart/form-data; boundary="ends in space "; charset=utf-8', 'ends in space ', '; charset=utf-8'],
    ['multipart/form-data; boundary=semi;colon', 'semi', ''],
    ['multipart/form-data; boundary=caf\u00e9', 'caf\u00e9', ''],
  ] as const) {
    it(`flags the boundary of ${JSON.stringify(header.slice(21, 60))} and writes one boundary in header and body alike`, async () => {
      const answer = post(upload, { id: 1, photo: 'P' }, { 'Content-Type': header });
      const contentType = answer.request.headers['Content-Type']!;
      if (given === 'semi') {
        // `colon` is no parameter (RFC 9110, 5.6.6: name=value): the boundary `semi` is valid, and used.
        assert.deepStrictEqual([contentType, boundaryProblems(answer)], [header, []]);
        return;
      }
      assert.deepStrictEqual(
        [contentType, boundaryProblems(answer), await partsOf(answer.request.body as string, contentType)],
        [`multipart/form-data${rest}; boundary=${boundary}`, [invalid(given, boundary)], parts],
      );
    });
  }
  it("reads a multipart text under its first line's boundary when the Content-Type's is invalid, and names that one", async () => {
    const text = '--b1\r\nContent-Disposition: form-data; name="id"\r\n\r\n1\r\n--b1--\r\n';
    const answer = post(upload, text, { 'Content-Type': 'multipart/form-data; boundary=""' });
    const contentType = answer.request.headers['Content-Type']!;
    assert.deepStrictEqual(
      [contentType, boundaryProblems(answer), await partsOf(text, contentType)],
      ['multipart/form-data; boundary=b1', [invalid('', 'b1', "read from the text's first line")], [['id', '1']]],
    );
  });

  it("reports the part header the photo's Encoding Object requires, which an object body cannot carry", () => {
    assert.deepStrictEqual(post(upload, { id: 7, photo: 'PNG' }).problems, [
      {
        in: 'body',
        name: '$.photo',
        kind: 'missing',
        severity: 'error',
        message:
          'is a part that needs the header X-Rate-Limit (its Encoding Object requires it): give the body as multipart/form-data text to send part headers',
      },
    ]);
  });

  it('reads a multipart text under its boundary: part headers, a part type the Encoding Object does not accept, values typed', () => {
    const text = [
      '--XyZ',
      'Content-Disposition: form-data; name="id"',
      '',
      'seven',
      '--XyZ',
      'Content-Disposition: form-data; name="photo"; filename="a.gif"',
      'Content-Type: image/gif',
      'X-Rate-Limit: 5',
      '',
      'GIF89a',
      '--XyZ--',
      '',
    ].join('\r\n');
    const answer = post(upload, text, { 'Content-Type': 'multipart/form-data; boundary=XyZ' });
    assert.deepStrictEqual(
      [answer.problems, answer.request.body, answer.request.headers['Content-Type']],
      [
        [
          {
            in: 'body',
            name: '$.photo',
            kind: 'contentType',
            severity: 'error',
            message: 'is a part of type image/gif, but its Encoding Object accepts image/png, image/jpeg',
          },
          { in: 'body', name: '$.id', kind: 'wrongType', severity: 'error', message: 'is string, expected integer' },
        ],
        text,
        'multipart/form-data; boundary=XyZ',
      ],
    );
  });

  it('passes a multipart text whose parts fit, the boundary read from its first line when the Content-Type names none', async () => {
    const text =
      '--b1\r\nContent-Disposition: form-data; name="id"\r\n\r\n42\r\n' +
      '--b1\r\nContent-Disposition: form-data; name="photo"; filename="p.png"\r\nContent-Type: image/png\r\nX-Rate-Limit: 1\r\n\r\n\x89PNG\r\n' +
      '--b1--\r\n';
    const answer = post(upload, text, { 'Content-Type': 'multipart/form-data' });
    assert.deepStrictEqual(
      [answer.matchesContract, answer.problems, answer.request.headers['Content-Type']],
      [true, [], 'multipart/form-data; boundary=b1'],
    );
  });

  it("reads a multipart text's parts as undici does, and the same past a preamble and before an epilogue (RFC 2046, 5.1.1)", async () => {
    const text =
      '--q\r\nContent-Disposition: form-data; name="a"\r\n\r\none\r\ntwo\r\n' +
      '--q\r\nContent-Disposition: form-data; name="f"; filename="f.txt"\r\nContent-Type: text/csv\r\n\r\nx,y\r\n--q--\r\n';
    const read = (multipart: string) => {
      const fields = fieldsOfMultipartText(multipart, 'q');
      return Array.isArray(fields) ? fields.map((field) => [field.name, field.value, field.contentType]) : fields;
    };
    // undici (Node 20) refuses a preamble and an epilogue, which RFC 2046 says to ignore: it reads the bare text only.
    const undici = (await partsOf(text, 'multipart/form-data; boundary=q')).map(([name, value, type]) => [
      name,
      value,
      type?.split(';')[0],
    ]);
    assert.deepStrictEqual([read(text), read(`preamble\r\n${text}epilogue`)], [undici, undici]);
  });

  it('reports a multipart text with no closing delimiter, not checked', () => {
    const answer = post(upload, '--b1\r\nContent-Disposition: form-data; name="id"\r\n\r\n42\r\n', {
      'Content-Type': 'multipart/form-data; boundary=b1',
    });
    assert.deepStrictEqual(answer.problems, [
      {
        in: 'body',
        name: '$',
        kind: 'invalid',
        severity: 'error',
        message: 'is a multipart/form-data text that has no closing delimiter --b1--; not checked',
      },
    ]);
  });
});

describe('text, binary and media ranges (RFC 9110 12.5.1)', () => {
  it('sends a text/plain string as written and checks it against its schema', async () => {
    const text = await loadObject(documentWith({ 'text/plain': { schema: { type: 'string', maxLength: 5 } } }));
    const answer = post(text, 'line 1\nline 2');
    assert.deepStrictEqual(
      [answer.problems, answer.request.headers['Content-Type'], answer.request.body],
      [
        [
          {
            in: 'body',
            name: '$',
            kind: 'constraint',
            severity: 'error',
            message: 'is 13 characters long, more than maxLength 5',
          },
        ],
        'text/plain',
        'line 1\nline 2',
      ],
    );
  });

  it('reports an object sent as text/plain', async () => {
    const text = await loadObject(documentWith({ 'text/plain; charset=utf-8': { schema: { type: 'string' } } }));
    const answer = post(text, { a: 1 });
    assert.deepStrictEqual(
      [answer.problems, answer.request.headers['Content-Type']],
      [
        [
          {
            in: 'body',
            name: '$',
            kind: 'wrongType',
            severity: 'error',
            message: 'is an object, but text/plain; charset=utf-8 is sent as text: give the body as a string',
          },
        ],
        'text/plain; charset=utf-8',
      ],
    );
  });

  it('sends an application/octet-stream string as written', async () => {
    const binary = await loadObject(
      documentWith({ 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }),
    );
    const answer = post(binary, 'bytes');
    assert.deepStrictEqual(
      [answer.matchesContract, answer.request.headers['Content-Type'], answer.request.body],
      [true, 'application/octet-stream', 'bytes'],
    );
  });

  it('sends an object under */* as application/json, and a string as text/plain', async () => {
    const any = await loadObject(documentWith({ '*/*': { schema: { type: ['object', 'string'] } } }));
    assert.deepStrictEqual(
      [post(any, { a: 1 }).request.headers['Content-Type'], post(any, 'hello').request.headers['Content-Type']],
      ['application/json', 'text/plain'],
    );
  });

  it('sends an object under application/* as application/json, a string as application/octet-stream', async () => {
    const any = await loadObject(documentWith({ 'application/*': { schema: {} } }));
    const object = post(any, { a: 1 });
    assert.deepStrictEqual(
      [object.matchesContract, object.request.headers['Content-Type'], post(any, 'x').request.headers['Content-Type']],
      [true, 'application/json', 'application/octet-stream'],
    );
  });

  it('picks the most specific media type for a given Content-Type: image/png over image/* over */*', async () => {
    const images = await loadObject(
      documentWith({
        '*/*': { schema: { type: 'string', maxLength: 1 } },
        'image/*': { schema: { type: 'string', maxLength: 2 } },
        'image/png': { schema: { type: 'string', maxLength: 3 } },
      }),
    );
    const limit = (contentType: string) => post(images, 'abcd', { 'Content-Type': contentType }).problems[0]?.message;
    assert.deepStrictEqual(
      [limit('image/png'), limit('image/gif'), limit('text/plain')],
      [
        'is 4 characters long, more than maxLength 3',
        'is 4 characters long, more than maxLength 2',
        'is 4 characters long, more than maxLength 1',
      ],
    );
  });

  it('asks for a Content-Type when the document only takes image/* and none is given', async () => {
    const images = await loadObject(documentWith({ 'image/*': { schema: { type: 'string' } } }));
    assert.deepStrictEqual(post(images, 'GIF89a').problems, [
      {
        in: 'body',
        name: '$',
        kind: 'contentType',
        severity: 'error',
        message:
          'is sent as application/octet-stream, but POST /things accepts image/*: give the exact type in the Content-Type header',
      },
    ]);
  });
});

describe('multipart part checks under a step budget (issue 15)', () => {
  it('stops checking parts against their Encoding Object where the step budget runs out, and says from which part', async () => {
    // 1,000 optional part headers under one Encoding Object and 100 parts of that name: each part costs 1 step, 1 per
    // media range (1) and 1 per header (1,000), so 19 parts take 19,038 of the 20,000 steps and the 20th passes them.
    const headers = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, at) => [`X-Part-${at}`, { schema: { type: 'string' } }]),
    );
    const loaded = await loadObject(
      documentWith({
        'multipart/form-data': {
          schema: { type: 'object', properties: { photo: { type: 'array', items: { type: 'string' } } } },
          encoding: { photo: { contentType: 'image/png', headers } },
        },
      }),
    );
    const part = '--b\r\nContent-Disposition: form-data; name="photo"\r\nContent-Type: image/png\r\n\r\nPNG\r\n';
    const answer = post(loaded, `${part.repeat(100)}--b--\r\n`, { 'Content-Type': 'multipart/form-data; boundary=b' });
    assert.deepEqual(answer.problems, [
      {
        in: 'body',
        name: '$',
        kind: 'notChecked',
        severity: 'warning',
        message:
          "was not checked against its Encoding Objects from part 20 of 100 ($.photo) on: the part checks' step budget (20000 parts, media ranges and part headers) ran out",
      },
    ]);
    assert.equal(answer.matchesContract, false);
  });
});
