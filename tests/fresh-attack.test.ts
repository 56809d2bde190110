/**
 * Issue 18's fresh attack: inputs the earlier rounds did not try, each of which broke main. A document or baseline
 * that is not JSON had V8's parse error quote the ten characters around the fault, a prefix of the key written there.
 * Without API_KEY, `check` showed credentials a HAR recorded under other header names, auth schemes, in a URL's
 * userinfo and in multipart form fields, and a HAR header name of 120,000 characters held it 19 s. An enum, const or
 * pattern of the document with the key 60 characters in was quoted in a finding's message cut after 77 characters:
 * the key's first 15 reached probe's findings, a parameter's problems and draft_request's body problems.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { nodeArgsFor, spawnServer } from '../harness/stdio-client.ts';
import { commandLine } from '../src/cli/command-line.ts';
import { recordedSecrets } from '../src/cli/fixtures.ts';
import { judge } from '../src/contract/judge.ts';
import { checkParameters } from '../src/contract/parameters.ts';
import { draftRequest } from '../src/contract/draft.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { redactor } from '../src/redaction/redaction.ts';
import { METERS } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
/** 21 characters: V8's excerpt of a parse error keeps its first 10. */
const KEY = 'sk-live-0123456789abc';
/** A JSON text whose fault is the key's first character: V8 says `Unexpected token 's', ..."info": sk-live-01"...`. */
const KEY_AT_FAULT = `{"openapi": "3.1.0", "info": ${KEY}}`;

let folder = '';
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'fresh-attack-'));
  writeFileSync(join(folder, 'broken.json'), KEY_AT_FAULT);
  writeFileSync(
    join(folder, 'meter.json'),
    JSON.stringify({ method: 'GET', path: '/meters/mtr_1', status: 200, body: METERS.mtr_1 }),
  );
});
after(() => rmSync(folder, { recursive: true, force: true }));

async function check(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const result = await commandLine(['check', ...args], env, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    stderrIsTerminal: false,
  });
  return {
    exitCode: 'exitCode' in result ? result.exitCode : undefined,
    stdout,
    stderr: stderr.replaceAll(folder, '<f>'),
  };
}

describe('a document or baseline that is not JSON is reported without quoting its text (issue 18)', () => {
  it('answers the contract tools with the set-up problem, no prefix of the key written at the fault', async () => {
    const client = spawnServer({
      API_BASE_URL: 'http://127.0.0.1:9',
      API_KEY: KEY,
      OPENAPI_DOC: join(folder, 'broken.json'),
    });
    await client.initialize();
    const result = await client.callToolUntraced('describe_operation', { operation: 'getMeter' });
    const stderr = client.stderr();
    await client.close();
    assert.deepEqual(
      [result.content[0].text.replaceAll(folder, '<f>'), stderr.includes(KEY.slice(0, 8))],
      [
        'Set-up problem: the OpenAPI document (OPENAPI_DOC) was not loaded, so probes are not checked and the contract tools cannot answer: Cannot load OpenAPI document <f>/broken.json at #: invalid JSON: it does not parse. Tell the person who configured this server.',
        false,
      ],
    );
  });

  it('check --doc names the document and says it does not parse', async () => {
    const ran = await check(['--doc', join(folder, 'broken.json'), join(folder, 'meter.json')], { API_KEY: KEY });
    assert.deepEqual(ran, {
      exitCode: 2,
      stdout: '',
      stderr:
        'openapi-probe check: <f>/broken.json: Cannot load OpenAPI document <f>/broken.json at #: invalid JSON: it does not parse\n',
    });
  });

  it('check --baseline names the baseline and says it does not parse', async () => {
    writeFileSync(join(folder, 'baseline.json'), `{"version": 1, "accepted": [${KEY}]}`);
    const ran = await check(
      ['--doc', `${HERE}openapi.json`, '--baseline', join(folder, 'baseline.json'), join(folder, 'meter.json')],
      { API_KEY: KEY },
    );
    assert.deepEqual(ran, {
      exitCode: 2,
      stdout: '',
      stderr: 'openapi-probe check: <f>/baseline.json: the baseline is not JSON (it does not parse)\n',
    });
  });
});

/** A HAR 1.2 file of one entry with the request members given. */
function harOf(request: Record<string, unknown>) {
  return { log: { version: '1.2', entries: [{ request: { method: 'GET', ...request }, response: { status: 200 } }] } };
}

/** RFC 7616, 3.9.1: the example's Digest credentials. */
const DIGEST =
  'Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="8ca523f5e9506fed4657c9700eebdbec", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
/** The AWS Signature Version 4 documentation's example Authorization header. */
const AWS4 =
  'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024';

describe('recordedSecrets reads the credentials of the fresh attack (issue 18)', () => {
  const cases: { description: string; request: Record<string, unknown>; values: string[] }[] = [
    {
      description: 'an API-key header without the X- prefix (Azure API Management)',
      request: { headers: [{ name: 'Ocp-Apim-Subscription-Key', value: 'apim0123456789abcdef' }] },
      values: ['apim0123456789abcdef'],
    },
    {
      description: "a token header in capitals (GitLab's PRIVATE-TOKEN)",
      request: { headers: [{ name: 'PRIVATE-TOKEN', value: 'glpat-0123456789abcd' }] },
      values: ['glpat-0123456789abcd'],
    },
    {
      description: "Digest credentials' response, alone, but not its uri or nonces",
      request: { headers: [{ name: 'Authorization', value: DIGEST }] },
      values: [DIGEST, DIGEST.slice('Digest '.length), '8ca523f5e9506fed4657c9700eebdbec'],
    },
    {
      description: "AWS4 credentials' Signature and Credential, alone",
      request: { headers: [{ name: 'Authorization', value: AWS4 }] },
      values: [
        AWS4,
        AWS4.slice('AWS4-HMAC-SHA256 '.length),
        'fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024',
        'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request',
      ],
    },
    {
      description: "the password of a URL's userinfo, as written and percent-decoded",
      request: { url: 'https://ann:pw%2Fgreen-tea-42@api.example.com/v2/meters' },
      values: ['pw%2Fgreen-tea-42', 'pw/green-tea-42'],
    },
    {
      description: "a token written as a URL's user name",
      request: { url: 'https://ghp_0123456789abcdefABCD@api.example.com/v2/meters' },
      values: ['ghp_0123456789abcdefABCD'],
    },
    {
      description: 'a credential-named field of a multipart/form-data body, not its other fields',
      request: {
        postData: {
          mimeType: 'multipart/form-data; boundary="XyZ"',
          text: '--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\ngreen-tea-pot-42\r\n--XyZ\r\nContent-Disposition: form-data; name="note"\r\n\r\nordinary text here\r\n--XyZ--\r\n',
        },
      },
      values: ['green-tea-pot-42'],
    },
  ];
  for (const { description, request, values } of cases)
    it(`reads ${description}`, () => {
      assert.deepEqual(recordedSecrets(harOf(request)), { values, complete: true });
    });

  it("does not read an OAuth authorization code in a redirect's query, a name too common to treat as a credential (listed in docs/limits.md)", () => {
    const har = {
      log: {
        entries: [
          {
            request: { method: 'GET', url: 'https://api.example.com/v2/authorize' },
            response: { status: 302, redirectURL: 'https://app.example.com/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz' },
          },
        ],
      },
    };
    assert.deepEqual(recordedSecrets(har), { values: [], complete: true });
  });

  it('reads a header name of 600,002 characters in one pass (it took minutes: 19 s at 120,002)', () => {
    // In a child, so that the old pattern's minutes end the run at the time limit instead of holding the suite.
    const code = `import { recordedSecrets } from ${JSON.stringify(`${HERE}src/cli/fixtures.ts`)};
      const found = recordedSecrets({ headers: [{ name: 'x-' + 'key'.repeat(200000) + '!', value: 'abcdefghijk' }] });
      process.stdout.write(JSON.stringify(found));`;
    const run = spawnSync(process.execPath, [...nodeArgsFor('').slice(0, -1), '--input-type=module', '-e', code], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.deepEqual([run.signal, run.stdout], [null, '{"values":["abcdefghijk"],"complete":true}']);
  });
});

describe('a key in a document value a finding quotes is redacted before the message cuts it (issue 18)', () => {
  /** The key 60 characters into each value: the message's cut after 77 characters once kept its first 15. */
  const SCHEMA = {
    type: 'object',
    properties: {
      c: { const: `${'c'.repeat(60)}${KEY}` },
      e: { enum: [`${'e'.repeat(60)}${KEY}`] },
      p: { type: 'string', pattern: `^${'p'.repeat(60)}${KEY}$` },
    },
  };
  const CONTENT = { 'application/json': { schema: SCHEMA } };
  const DOCUMENT = {
    openapi: '3.1.0',
    info: { title: 'quoted', version: '1' },
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          parameters: [{ name: 'q', in: 'query', schema: { enum: [`${'q'.repeat(60)}${KEY}`] } }],
          responses: { '200': { description: 'ok', content: CONTENT } },
        },
        post: {
          operationId: 'addThing',
          requestBody: { content: CONTENT },
          responses: { '201': { description: 'ok' } },
        },
      },
    },
  };
  const clean = redactor(KEY).text;
  let loaded: LoadedDocument;
  before(async () => {
    writeFileSync(join(folder, 'quoted.json'), JSON.stringify(DOCUMENT));
    loaded = await loadDocument(join(folder, 'quoted.json'));
  });
  const operation = (id: string) => loaded.operations.find((candidate) => candidate.operationId === id)!;
  const BODY = { c: 'no', e: 'no', p: 'no' };
  const MESSAGES = [
    `is "no", but the schema requires the constant "${'c'.repeat(60)}[redacted]"`,
    `is "no", not one of the allowed values ["${'e'.repeat(60)}[redacted]"]`,
    `is "no", which does not match the pattern "^${'p'.repeat(60)}[redacted]$"`,
  ];

  it("probe's findings", () => {
    const probed = { status: 200, contentType: 'application/json', bytes: 30, truncated: false, body: BODY };
    const verdict = judge(loaded, operation('listThings'), probed, clean) as { findings: { message: string }[] };
    assert.deepEqual(
      verdict.findings.map((finding) => finding.message),
      MESSAGES,
    );
  });

  it("a query parameter's problem", () => {
    const problems = checkParameters(loaded, operation('listThings'), { queryPairs: [['q', 'no']] }, { clean });
    assert.deepEqual(
      problems.map((problem) => problem.problem),
      [`is "no", not one of the allowed values ["${'q'.repeat(60)}[redacted]"]`],
    );
  });

  for (const format of ['text', 'json', 'junit', 'markdown', 'sarif'])
    it(`check's ${format} report, with API_KEY set`, async () => {
      writeFileSync(
        join(folder, 'quoted-fixture.json'),
        JSON.stringify({ method: 'GET', path: '/things', status: 200, body: BODY }),
      );
      const ran = await check(
        ['--doc', join(folder, 'quoted.json'), '--format', format, join(folder, 'quoted-fixture.json')],
        { API_KEY: KEY },
      );
      assert.deepEqual(
        [ran.exitCode, ran.stdout.includes(KEY.slice(0, 8)), ran.stdout.includes('[redacted]')],
        [1, false, true],
      );
    });

  it("draft_request's body problems", () => {
    const drafted = draftRequest(loaded, {
      method: 'POST',
      url: new URL('http://127.0.0.1:9/things'),
      basePrefix: '',
      body: BODY,
      clean,
    });
    assert.deepEqual(
      drafted.problems.map((problem) => problem.message),
      MESSAGES,
    );
  });
});
