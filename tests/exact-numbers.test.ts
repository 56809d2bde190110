// Issue 15, case 71: numbers checked as the API wrote them, end to end. The case's document is written to a file,
// a local API answers /ids with the case's raw body, and the probe server is spawned over stdio as an editor runs it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../harness/stdio-client.ts';
import type { StdioClient } from '../harness/stdio-client.ts';
import { scanJson } from '../src/api/body.ts';

const CASE = JSON.parse(
  readFileSync(new URL('../fixtures/cases/71-val-int64-range-boundaries.json', import.meta.url), 'utf8'),
);
const SESSION = CASE.input.sessions[0];
const SCHEMA = '#/paths/~1ids/get/responses/200/content/application~1json/schema';
const RANGE = '-9223372036854775808..9223372036854775807';

/**
 * A local API on 127.0.0.1 answering each GET with `respond(url)` as JSON, and the probe server spawned over stdio on
 * `document` (written to a file), initialized.
 */
async function startApi(
  document: unknown,
  respond: (url: string) => [number, string],
): Promise<{ client: StdioClient; close: () => void }> {
  const server = createServer((request, response) => {
    const [status, text] = respond(request.url ?? '/');
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const folder = mkdtempSync(join(tmpdir(), 'exact-numbers-'));
  writeFileSync(join(folder, 'openapi.json'), JSON.stringify(document));
  const client = spawnServer({
    API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    OPENAPI_DOC: join(folder, 'openapi.json'),
  });
  await client.initialize();
  return { client, close: () => server.close() };
}

describe('case 71-val-int64-range-boundaries (issue 15)', () => {
  let client: StdioClient;
  let close: () => void;
  before(async () => {
    ({ client, close } = await startApi(SESSION.openapi, (url) => {
      const route = SESSION.api[url.split('?')[0]!];
      return route ? [200, route.raw] : [404, '{}'];
    }));
  });
  after(async () => {
    await client.close();
    close();
  });

  it('finds int64 overflows at $.over, $.under and $.twoTo64 with exact bounds, and checks the snowflake', async () => {
    const result = await client.callToolUntraced('probe', SESSION.calls[0].arguments);
    const { validated, matchesContract, findings } = result.structuredContent;
    const inexact = (path: string, written: string, read: string) => ({
      kind: 'inexactNumber',
      severity: 'warning',
      path,
      rule: 'RFC 8259, 6',
      values: [written, read],
      message: `the number ${written} cannot be held exactly in a double and reads as ${read}: read it as a string or BigInt`,
    });
    const int64 = (path: string, written: string) => ({
      kind: 'format',
      severity: 'info',
      path,
      schemaPath: `${SCHEMA}/properties/${path.slice(2)}/format`,
      keyword: 'int64',
      message: `is ${written}, outside the int64 range ${RANGE}`,
    });
    assert.deepStrictEqual(
      { validated, matchesContract, findings },
      {
        validated: true,
        matchesContract: true,
        findings: [
          int64('$.over', '9223372036854775808'),
          int64('$.twoTo64', '18446744073709551616'),
          int64('$.under', '-9223372036854775809'),
          inexact('$.max', '9223372036854775807', '9223372036854776000'),
          inexact('$.under', '-9223372036854775809', '-9223372036854776000'),
          inexact('$.snowflake', '1234567890123456789', '1234567890123456800'),
        ],
      },
    );
  });
});

// Issue 15, attack round: a number whose text is not kept is `notChecked`, never a type error; a kept text is
// judged exactly, however long. The oracle is exact decimal arithmetic on BigInt (`exactly` below) and, where a
// double holds the number well enough to decide, ajv.
const MAXIMUM = 1e300;
const VALUE_SCHEMA = { type: 'integer', minimum: -MAXIMUM, maximum: MAXIMUM };
const LONG_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'long numbers', version: '1' },
  paths: {
    '/value': {
      get: {
        responses: { '200': { description: 'v', content: { 'application/json': { schema: VALUE_SCHEMA } } } },
      },
    },
    '/list': {
      get: {
        responses: {
          '200': {
            description: 'l',
            content: { 'application/json': { schema: { type: 'array', items: { type: 'integer' } } } },
          },
        },
      },
    },
  },
};

/**
 * Exact decimal reasoning on a number text of the forms below (`123`, `-123.5`, `15e-401`): whether it is an integer
 * and whether it lies within ±MAXIMUM (the document's 1e300 is the double 10^300 + 52.5e282, below 1.000001e300).
 */
function exactly(text: string): { integer: boolean; over: boolean; under: boolean } {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:e(-?\d+))?$/.exec(text)!;
  const units = BigInt(whole! + fraction);
  const power = Number(exponent) - fraction.length;
  // value = units * 10^power; an integer when the fraction digits it keeps are zeros.
  const integer = power >= 0 || units % 10n ** BigInt(-power) === 0n;
  const bound = BigInt(MAXIMUM); // the double's exact integer value
  const beyond = power >= 0 ? units * 10n ** BigInt(power) > bound : units > bound * 10n ** BigInt(-power);
  return { integer, over: beyond && sign === '', under: beyond && sign === '-' };
}

describe('numbers whose text is long or not kept (issue 15, attack round)', () => {
  let client: StdioClient;
  let close: () => void;
  let body = '';
  before(async () => {
    ({ client, close } = await startApi(LONG_DOCUMENT, () => [200, body]));
  });
  after(async () => {
    await client.close();
    close();
  });
  /** The probe's verdict and its findings other than the body's own inexactNumber warnings. */
  const probeWith = async (path: string, text: string) => {
    body = text;
    const { matchesContract, findings } = (await client.callToolUntraced('probe', { path })).structuredContent;
    return {
      matchesContract,
      findings: (findings as { kind: string; path: string; schemaPath?: string; message: string }[])
        .filter((finding) => finding.kind !== 'inexactNumber')
        .map(
          (finding) =>
            `${finding.kind} ${finding.path} ${finding.schemaPath?.replace(/^.*\/schema/, '')}: ${finding.message}`,
        ),
    };
  };
  const kept = [
    '9'.repeat(309),
    '-' + '9'.repeat(309),
    '1' + '2'.repeat(308),
    '1' + '0'.repeat(399),
    '-' + '1' + '0'.repeat(399),
    '1' + '0'.repeat(399) + '.5',
    '1' + '0'.repeat(299) + '.' + '0'.repeat(99) + '1',
    '1e400',
    '-1e400',
    '15e-401',
    '1.5e400',
    '1e299',
  ];
  for (const text of kept) {
    it(`judges ${text.length > 24 ? `${text.slice(0, 12)}... (${text.length} characters)` : text} exactly`, async () => {
      const oracle = exactly(text);
      const shown = text.length <= 60 ? text : `${text.slice(0, 40)}... (${text.length} characters)`;
      // Findings sort by path, then kind: a bound's `constraint` before `wrongType`.
      const expected = [
        ...(oracle.over
          ? [
              `constraint $ /maximum: is ${shown}, more than maximum about 1.0000000000000000e+300 (the document's number as parsed; it stands for any number from about 9.9999999999999997e+299 to about 1.0000000000000001e+300)`,
            ]
          : []),
        ...(oracle.under
          ? [
              `constraint $ /minimum: is ${shown}, less than minimum about -1.0000000000000000e+300 (the document's number as parsed; it stands for any number from about -1.0000000000000001e+300 to about -9.9999999999999997e+299)`,
            ]
          : []),
        ...(oracle.integer ? [] : ['wrongType $ /type: is number, expected integer']),
      ];
      assert.deepStrictEqual(await probeWith('/value', text), {
        matchesContract: expected.length === 0,
        findings: expected,
      });
    });
  }
  it('agrees with ajv on a 309-digit integer a double holds closely (1.2e308)', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const text = '1' + '2'.repeat(308);
    const ajv = new Ajv2020({ strict: false });
    assert.deepStrictEqual(
      [ajv.validate(VALUE_SCHEMA, JSON.parse(text)), (await probeWith('/value', text)).matchesContract],
      [false, false],
    );
  });
  for (const text of [
    '9'.repeat(10_000),
    '-' + '9'.repeat(10_000),
    '1' + '0'.repeat(1000),
    '1.' + '0'.repeat(1000) + '1',
  ]) {
    it(`says a ${text.length}-character number whose text is not kept was not checked, never a type error`, async () => {
      const reason =
        'the number in the body cannot be held exactly in a double (RFC 8259, 6), so the check would compare a different number';
      assert.deepStrictEqual(await probeWith('/value', text), {
        matchesContract: undefined,
        findings: [
          'notChecked $ /type: was not checked against `type`: the number in the body cannot be held exactly in a double and its text was not kept (RFC 8259, 6), so whether it is an integer is not known',
          'notChecked $ /minimum: was not checked against `minimum`: ' + reason,
          'notChecked $ /maximum: was not checked against `maximum`: ' + reason,
        ],
      });
    });
  }
  it('judges a fraction whose text is not kept by its double: no integer text reads as 0.5', async () => {
    const text = '0.5' + '0'.repeat(2000) + '1';
    const reason =
      'the number in the body cannot be held exactly in a double (RFC 8259, 6), so the check would compare a different number';
    assert.deepStrictEqual(await probeWith('/value', text), {
      matchesContract: false,
      findings: [
        'notChecked $ /minimum: was not checked against `minimum`: ' + reason,
        'notChecked $ /maximum: was not checked against `maximum`: ' + reason,
        'wrongType $ /type: is number, expected integer',
      ],
    });
  });
  for (const count of [25, 1000]) {
    it(`checks all ${count} numbers past the double range in one array as written`, async () => {
      const items = Array.from({ length: count }, (_, index) =>
        index === count - 2 ? '1' + '0'.repeat(399) + '.5' : index % 2 ? '-1e400' : '9'.repeat(400),
      );
      const result = await probeWith('/list', `[${items.join(',')}]`);
      assert.deepStrictEqual(result, {
        matchesContract: false,
        findings: [`wrongType $[${count - 2}] /items/type: is number, expected integer`],
      });
    });
  }
});

describe('the scan keeps every changed number for the checks (issue 15, attack round)', () => {
  it("lists texts up to 1,000 characters as written, longer ones by path only, past the warnings' 20", () => {
    const items = ['9'.repeat(1000), '9'.repeat(1001), ...Array.from({ length: 30 }, (_, index) => `${index + 1}e400`)];
    const { numbers, warnings } = scanJson(`{"a":[${items.join(',')}]}`);
    assert.deepStrictEqual(
      [numbers, warnings.length],
      [
        {
          written: [['$.a[0]', '9'.repeat(1000)], ...items.slice(2).map((text, index) => [`$.a[${index + 2}]`, text])],
          unknown: ['$.a[1]'],
          unlisted: false,
        },
        21,
      ],
    );
  });
  it('stops listing past 1,000,000 characters of paths and texts, and says so', () => {
    const count = 1100;
    const { numbers } = scanJson(`[${Array.from({ length: count }, () => '9'.repeat(1000)).join(',')}]`);
    // Each entry costs its path (`$[0]`: 4 characters, `$[10]`: 5, `$[100]`: 6, `$[1000]`: 7) and its 1,000 digits.
    let listed = 0;
    for (let total = 0; (total += `$[${listed}]`.length + 1000) <= 1_000_000;) listed++;
    assert.deepStrictEqual([numbers?.written.length, numbers?.unknown.length, numbers?.unlisted], [listed, 0, true]);
    assert.equal(listed, 994);
  });
});
