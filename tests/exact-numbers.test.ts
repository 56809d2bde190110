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

const CASE = JSON.parse(
  readFileSync(new URL('../fixtures/cases/71-val-int64-range-boundaries.json', import.meta.url), 'utf8'),
);
const SESSION = CASE.input.sessions[0];
const SCHEMA = '#/paths/~1ids/get/responses/200/content/application~1json/schema';
const RANGE = '-9223372036854775808..9223372036854775807';

describe('case 71-val-int64-range-boundaries (issue 15)', () => {
  let client: StdioClient;
  let close: () => void;
  before(async () => {
    const server = createServer((request, response) => {
      const route = SESSION.api[(request.url ?? '/').split('?')[0]!];
      response.writeHead(route ? 200 : 404, { 'content-type': 'application/json' });
      response.end(route ? route.raw : '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    close = () => server.close();
    const folder = mkdtempSync(join(tmpdir(), 'case-71-'));
    writeFileSync(join(folder, 'openapi.json'), JSON.stringify(SESSION.openapi));
    client = spawnServer({
      API_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      OPENAPI_DOC: join(folder, 'openapi.json'),
    });
    await client.initialize();
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
