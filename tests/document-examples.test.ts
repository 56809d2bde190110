/**
 * Issue 17: examples in tool descriptions, refusals and errors come from the loaded document (an operationId and a
 * path it has), never the demo's `/meters/mtr_1` on GitHub. Before the document has loaded, the descriptions quote
 * no example; a legacy client is told when they change (notifications/tools/list_changed).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';
import { TOOLS } from '../src/mcp/tools.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { matchOperation } from '../src/document/match.ts';
import { documentExamples } from '../src/document/examples.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { fixtureFrom } from '../src/cli/fixtures.ts';
import { readBaseline } from '../src/cli/baseline.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The descriptions of tools/list by tool and argument: `{probe: {'': ..., path: ...}}`. */
function descriptions(tools: { name: string; description: string; inputSchema: any }[]): Record<string, any> {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        '': tool.description,
        ...Object.fromEntries(
          Object.entries(tool.inputSchema.properties ?? {})
            .filter(([, schema]: [string, any]) => schema.description !== undefined)
            .map(([name, schema]: [string, any]) => [name, schema.description]),
        ),
      },
    ]),
  );
}

/** Every quoted string of `text` that starts with "/" (the example paths and templates it names). */
function quotedPaths(text: string): string[] {
  return [...text.matchAll(/"(\/[^"]*)"/g)].map((match) => match[1]!);
}

/** Whether `text` names the demo API: "meter" (not inside "parameter") or a meter id. */
const demoWords = (text: string) => /meter|mtr_/i.test(text.replace(/parameter/gi, ''));

/** Tokens as the size tests count them: bytes / 4, rounded up. */
const tokens = (value: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(value)) / 4);

describe("examples on GitHub's description (issue 17)", () => {
  let github: LoadedDocument;
  const handler = createHandler(
    readConfig({ API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: githubDescriptionPath() }),
  );
  let id = 0;
  const request = async (method: string, params: Record<string, unknown> = {}): Promise<any> =>
    ((await handler.handle({ jsonrpc: '2.0', id: ++id, method, params })) as any).result;
  // A tool's texts, or the JSON-RPC error's message when the call is not one a tool answers.
  const call = async (name: string, args: unknown): Promise<string[]> => {
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    return reply.result ? reply.result.content.map((block: { text: string }) => block.text) : [reply.error.message];
  };
  let beforeLoad: any;

  before(async () => {
    beforeLoad = await request('tools/list');
    github = await loadDocument(githubDescriptionPath());
    // Any job loads the document (this handler runs the jobs on its own thread).
    await call('find_operation', { query: 'get an installation' });
  });

  it('lists descriptions without an example before the document has loaded, within 1,500 tokens', () => {
    const listed = descriptions(beforeLoad.tools);
    assert.deepEqual(
      [
        listed.probe.path,
        listed.probe.query,
        listed.probe_sample.paths,
        listed.describe_operation.operation,
        listed.field_presence.operation,
        demoWords(JSON.stringify(beforeLoad)),
        tokens(beforeLoad) < 1500,
      ],
      [
        'Path after the base URL, as find_operation gives it.',
        'Query parameters, name to value.',
        'concrete paths of one operation',
        'operationId, "METHOD /template" or a path',
        'operationId, "METHOD /template" or a path probed',
        false,
        true,
      ],
    );
  });

  it("lists GitHub's own examples once it has loaded, within 1,500 tokens", async (t) => {
    const after = await request('tools/list');
    t.diagnostic(`tools/list: ~${tokens(beforeLoad)} tokens before the load, ~${tokens(after)} after (bytes / 4)`);
    const listed = descriptions(after.tools);
    assert.deepEqual(
      [
        listed.probe.path,
        listed.probe.query,
        listed.probe_sample.paths,
        demoWords(JSON.stringify(after)),
        tokens(after) < 1500,
        after.tools.map((tool: { name: string }) => tool.name),
      ],
      [
        'Path after the base URL, e.g. "/app/installations/1".',
        'Query parameters, e.g. {"type":"reviewed"}.',
        'e.g. ["/app/installations/1", ...]',
        false,
        true,
        TOOLS.map((tool) => tool.name),
      ],
    );
  });

  it('names in tools/list only paths the document has, by its own matcher and by its `paths` keys', async () => {
    const after = await request('tools/list');
    // The descriptions of every `path` and `paths` argument (the JSON Pointer of `select` names no path).
    const named = after.tools.flatMap((tool: { inputSchema: any }) =>
      ['path', 'paths'].flatMap((name) => quotedPaths(tool.inputSchema.properties[name]?.description ?? '')),
    );
    const paths = github.doc.paths as Record<string, unknown>;
    assert.deepEqual(
      named.map((path: string) => {
        const template = matchOperation(github, 'GET', path).operation?.pathTemplate;
        return [path, template, template !== undefined && Object.hasOwn(paths, template)];
      }),
      [
        ['/app/installations/1', '/app/installations/{installation_id}', true],
        ['/app/installations/1', '/app/installations/{installation_id}', true],
      ],
    );
  });

  it("quotes GitHub's path in every refusal of the URL policy", async () => {
    const refusals = [
      await call('probe', { path: '' }),
      await call('probe', { path: 'https://evil.test/x' }),
      await call('probe', { path: '//evil.test/x' }),
      await call('compare_fixture', { path: '//evil.test/x', fixture: {} }),
      await call('draft_request', { method: 'POST', path: 'https://evil.test/x' }),
    ].map((texts) => texts[0]);
    assert.deepEqual(refusals, [
      'Refused, nothing was sent: `path` is empty; give the request path after the base URL, such as "/app/installations/1".',
      'Refused, nothing was sent: `path` "https://evil.test/x" is an absolute URL; give only the path relative to API_BASE_URL (http://127.0.0.1:9), such as "/app/installations/1". Other hosts are never probed.',
      'Refused, nothing was sent: `path` "//evil.test/x" starts with "//", which names another host; give a path with a single leading "/", such as "/app/installations/1".',
      'Refused, nothing was sent: `path` "//evil.test/x" starts with "//", which names another host; give a path with a single leading "/", such as "/app/installations/1".',
      'Not drafted: `path` "https://evil.test/x" is an absolute URL; give only the path relative to API_BASE_URL (http://127.0.0.1:9), such as "/app/installations/1". Other hosts are never probed.',
    ]);
  });

  it("quotes GitHub's examples in argument refusals and in an operation not found", async () => {
    const notFound = (await call('describe_operation', { operation: 'zzzz qqqq' }))[0]!;
    assert.deepEqual(
      [
        (await call('probe', {}))[0],
        (await call('probe_sample', { paths: ['/app/installations/1'] }))[0],
        notFound.slice(notFound.indexOf(': give')),
      ],
      [
        'Refused, nothing was sent: `path` is required (path: Path after the base URL, e.g. "/app/installations/1").',
        'Refused, nothing was sent: `paths` has 1 items, fewer than minItems 2 (paths: e.g. ["/app/installations/1", ...]).',
        ': give an operationId such as apps/get-installation, "DELETE /app/installations/{installation_id}" or a concrete path such as /app/installations/1.',
      ],
    );
  });

  it('says no word of the demo API in any refusal of any tool given bad arguments', async () => {
    const bad: unknown[] = [undefined, 42, '', '  ', '//evil.test/x', 'http://evil.test/', 'nowhere', {}, [1, 1], true];
    const texts: string[] = [];
    for (const tool of TOOLS) {
      texts.push(...(await call(tool.name, {})));
      for (const name of Object.keys((tool.inputSchema as { properties: object }).properties))
        for (const value of bad) texts.push(...(await call(tool.name, { [name]: value })));
    }
    texts.push(...(await call('describe_operation', { operation: 'getMetr' })));
    texts.push(...(await call('field_presence', { operation: 'GET /nowhere/{id}' })));
    const demo = texts.filter(demoWords);
    assert.deepEqual([texts.length > 300, demo], [true, []]);
  });

  it("names GitHub's path and operation in check's fixture and baseline errors", () => {
    const examples = documentExamples(github);
    const folder = mkdtempSync(join(tmpdir(), 'baseline-'));
    writeFileSync(
      join(folder, 'known.json'),
      JSON.stringify({ version: 1, accepted: [{ operation: 'x', path: '$', kind: 'missing' }] }),
    );
    const errors = [
      () =>
        fixtureFrom(
          'fixtures/check/malformed/relative-path.json',
          readJson(`${ROOT}fixtures/check/malformed/relative-path.json`),
          examples,
        ),
      () => readBaseline(join(folder, 'known.json'), examples),
    ].map((run) => {
      try {
        run();
        return 'no error';
      } catch (error) {
        return (error as Error).message.replace(folder, '<folder>');
      }
    });
    assert.deepEqual(errors, [
      'fixtures/check/malformed/relative-path.json: `path` must be a string starting with "/", e.g. "/app/installations/1", got "meters/mtr_1"',
      '<folder>/known.json: accepted[0].operation must be METHOD and path template, e.g. "GET /app/installations/{installation_id}", got "x"',
    ]);
  });
});

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('the demo document keeps its meter examples (issue 17)', () => {
  it('lists the meter examples once openapi.json has loaded, within 1,500 tokens', async () => {
    const handler = createHandler(
      readConfig({ API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: `${ROOT}openapi.json` }),
    );
    await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_operation', arguments: { query: 'meter' } },
    });
    const listed: any = ((await handler.handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' })) as any).result;
    const text = descriptions(listed.tools);
    assert.deepEqual(
      [text.probe.path, text.probe.query, text.probe_sample.paths, tokens(listed) < 1500],
      [
        'Path after the base URL, e.g. "/meters/mtr_1".',
        'Query parameters, e.g. {"status":"active"}.',
        'e.g. ["/meters/mtr_1", "/meters/mtr_2"]',
        true,
      ],
    );
  });
});

describe('a legacy SDK client is told when the examples arrive (notifications/tools/list_changed)', () => {
  // GitHub's description served by a server that holds it until the client has listed the tools once, so the list
  // is made before the load whatever the machine's speed.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = createServer(async (_request, response) => {
    await held;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(readFileSync(githubDescriptionPath()));
  });
  let client: Client;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    release();
    await client?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('receives it once the document has loaded, and lists GitHub examples again', async () => {
    const port = (server.address() as AddressInfo).port;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: nodeArgsFor(`${ROOT}probe-server.ts`),
      env: { API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: `http://127.0.0.1:${port}/github.json` },
      cwd: ROOT,
      stderr: 'pipe',
    });
    client = new Client({ name: 'list-changed-test', version: '0.0.0' });
    let changed = 0;
    const told = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed++;
        resolve();
      }),
    );
    await client.connect(transport);
    const first = await client.listTools();
    release();
    await told;
    const second = await client.listTools();
    const path = (listed: typeof first) =>
      (listed.tools.find((tool) => tool.name === 'probe')!.inputSchema.properties as any).path.description;
    assert.deepEqual(
      [client.getServerCapabilities(), path(first), path(second), changed],
      [
        { tools: { listChanged: true } },
        'Path after the base URL, as find_operation gives it.',
        'Path after the base URL, e.g. "/app/installations/1".',
        1,
      ],
    );
  });
});
