/**
 * Parameters read the way they were serialized (issue 15), end to end through the session (`createHandler`, the
 * tools as a client calls them) against a 127.0.0.1 API this file starts: case 67 (deepObject query parameters)
 * and the issue's own cases for each style and location (fixtures/cases/issue-15-parameter-styles.json).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const KEY = 'styles-key-3c81d0';

function caseFile(id: string): any {
  return JSON.parse(readFileSync(`${HERE}fixtures/cases/${id}.json`, 'utf8'));
}

/** Runs every call of every session of a case; returns each call's tool result by label. */
async function runCase(fixture: any, url: string, dir: string): Promise<Record<string, any>> {
  const results: Record<string, any> = {};
  fixture.input.sessions.forEach((session: any, index: number) => {
    writeFileSync(join(dir, `doc-${index}.json`), JSON.stringify(session.openapi));
  });
  for (const [index, session] of (fixture.input.sessions as any[]).entries()) {
    const handler = createHandler(
      readConfig({ API_KEY: KEY, API_BASE_URL: url, OPENAPI_DOC: join(dir, `doc-${index}.json`) }, dir),
    );
    let id = 1;
    for (const call of session.calls) {
      const reply: any = await handler.handle({
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: { name: call.tool, arguments: call.arguments },
      });
      results[call.label] = reply.result;
    }
  }
  return results;
}

/** The probe's problems as the cases state them: only the keys present. */
function probeProblems(result: any): Record<string, unknown> {
  const s = result.structuredContent;
  return {
    ...(s.parameterProblems ? { parameterProblems: s.parameterProblems } : {}),
    ...(s.requestProblems ? { requestProblems: s.requestProblems } : {}),
  };
}

describe('parameters read by style through the tools (issue 15)', () => {
  let server: Server;
  let url: string;
  let dir: string;
  let case67: Record<string, any>;
  let styles: Record<string, any>;
  const stylesCase = caseFile('issue-15-parameter-styles');
  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'styles-'));
    case67 = await runCase(caseFile('67-query-deepobject-params'), url, dir);
    styles = await runCase(stylesCase, url, dir);
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('case 67 A: a deepObject filter of three members has no requestProblems', () => {
    assert.deepEqual(probeProblems(case67.A), {});
  });
  it('case 67 B: percent-encoded brackets read the same, beside another parameter', () => {
    assert.deepEqual(probeProblems(case67.B), {});
  });
  it('case 67 C: a member outside its enum is one invalid problem of filter', () => {
    assert.deepEqual(probeProblems(case67.C), {
      requestProblems: [
        {
          in: 'query',
          name: 'filter',
          kind: 'invalid',
          value: 'filter[status]=zombie',
          problem: 'at filter.status: is "zombie", not one of the allowed values ["active","gone"]',
        },
      ],
    });
  });
  it('case 67 D: a member that is not an integer is one invalid problem of filter', () => {
    assert.deepEqual(probeProblems(case67.D), {
      requestProblems: [
        {
          in: 'query',
          name: 'filter',
          kind: 'invalid',
          value: 'filter[edition]=second',
          problem: 'at filter.edition: is not of type integer',
        },
      ],
    });
  });
  it('case 67 E: a misspelt bracketed name is unknown, with did you mean filter', () => {
    assert.deepEqual(probeProblems(case67.E), {
      requestProblems: [
        {
          in: 'query',
          name: 'filtr[status]',
          kind: 'unknown',
          value: 'active',
          problem: 'is not a query parameter of GET /books; did you mean filter?',
        },
      ],
    });
  });
  it('case 67 A-draft: the same deepObject request drafted has no problems', () => {
    assert.deepEqual(
      [case67['A-draft'].structuredContent.matchesContract, case67['A-draft'].structuredContent.problems],
      [true, []],
    );
  });
  it('case 67 C-draft: the drafted request has one problem, on the enum of filter.status', () => {
    assert.deepEqual(case67['C-draft'].structuredContent.problems, [
      {
        in: 'query',
        name: 'filter',
        kind: 'invalid',
        severity: 'error',
        message: 'at filter.status: is "zombie", not one of the allowed values ["active","gone"]',
      },
    ]);
  });

  for (const session of stylesCase.input.sessions) {
    for (const call of session.calls) {
      it(`issue 15 ${call.label}: ${call.tool} ${call.arguments.path} gives exactly the expected problems${call.arguments.query ? ' (query given as values)' : ''}`, () => {
        const result = styles[call.label];
        const expected = stylesCase.expected[call.label];
        const drafted = result.structuredContent;
        const got =
          call.tool === 'probe'
            ? probeProblems(result)
            : Array.isArray(expected)
              ? drafted.problems
              : { url: drafted.request.url.slice(url.length), problems: drafted.problems };
        assert.deepEqual(got, expected);
      });
    }
  }
});
