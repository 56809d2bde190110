/**
 * The walkthrough: `node demo.ts` (Node >= 22.18) or `npm run demo` (Node 20).
 *
 * Starts the stand-in API on 127.0.0.1, spawns `probe-server.ts` over stdio exactly as an editor
 * would, and prints what an agent sees: the tools, three probes with their findings, how often each
 * optional field was present, what a shape inferred from the first probe says of the third, how a
 * fixture recorded last month differs from today's record, what the server refuses, the
 * requests the API actually received, and then the contract tools: the meter type as TypeScript and
 * a PATCH drafted and checked but never sent. Every block is compared with what the stand-in scripts;
 * the exit code is 1 when any block differs.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { start, METERS } from './stand-in-api.ts';
import { spawnServer } from './harness/stdio-client.ts';
import type { StdioClient } from './harness/stdio-client.ts';
import type { StandIn } from './stand-in-api.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const KEY = 'demo-key-7f3a9c';

const mismatches: string[] = [];
function expect(block: string, actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) {
    mismatches.push(`${block}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

function heading(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

function line(text: string): void {
  process.stdout.write(`   ${text}\n`);
}

type Finding = { kind: string; path: string; severity: string; message: string };

/** Runs the walkthrough, printing to stdout; resolves with the exit code (0 when every block is as scripted). */
export async function run(): Promise<number> {
  const api = await start({ key: KEY });
  const server = spawnServer({ API_BASE_URL: api.url, API_KEY: KEY, OPENAPI_DOC: `${HERE}openapi.json` });
  try {
    const init = await server.initialize();
    heading(
      `Connected to ${init.serverInfo.name} ${init.serverInfo.version} (MCP ${init.protocolVersion}); API at ${api.url}`,
    );

    heading('1. Tools the agent gets');
    const { result: listed } = await server.request('tools/list');
    for (const tool of listed.tools) {
      const hints = Object.entries(tool.annotations ?? {})
        .filter(([name]) => name.endsWith('Hint'))
        .map(([name, value]) => `${name}=${value}`);
      line(`${tool.name.padEnd(16)} ${hints.join(' ')}`);
    }
    expect(
      'tools',
      listed.tools.map((tool: { name: string }) => tool.name),
      [
        'probe',
        'field_presence',
        'compare_fixture',
        'probe_sample',
        'describe_operation',
        'draft_request',
        'find_operation',
      ],
    );
    expect(
      'probe hints',
      [listed.tools[0].annotations.readOnlyHint, listed.tools[0].annotations.openWorldHint],
      [true, true],
    );
    expect('no method parameter', Object.keys(listed.tools[0].inputSchema.properties), ['path', 'query', 'select']);

    heading('2. Three probes of GET /meters/{meterId}, each checked against openapi.json');
    const probes = [];
    for (const id of ['mtr_1', 'mtr_2', 'mtr_3']) {
      const called = await server.callTool('probe', { path: `/meters/${id}` });
      const result = called.structuredContent;
      probes.push(result);
      line(
        `GET /meters/${id} -> ${result.status}, ${result.bytes} bytes, operation ${result.operation?.operationId}, matchesContract=${result.matchesContract}`,
      );
      for (const finding of result.findings as Finding[])
        line(`   ${finding.kind} ${finding.path}: ${finding.message}`);
    }
    const undocumentedOnly = [{ kind: 'undocumented', path: '$.firmwareVersion' }];
    for (const [index, result] of probes.entries()) {
      expect(`probe ${index + 1} status`, result.status, 200);
      expect(
        `probe ${index + 1} findings`,
        (result.findings as Finding[]).map(({ kind, path }) => ({ kind, path })),
        undocumentedOnly,
      );
      expect(`probe ${index + 1} contract`, result.matchesContract, true);
    }
    expect(
      'probe bytes',
      probes.map((result) => result.bytes),
      Object.values(METERS).map((meter) => Buffer.byteLength(JSON.stringify(meter))),
    );

    heading('3. Optional fields across the three probes');
    const presence = (await server.callTool('field_presence', { operation: 'getMeter' })).structuredContent;
    for (const text of presence.optionalFields) line(`optional      ${text}`);
    for (const text of presence.undocumentedFields) line(`undocumented  ${text}`);
    expect('optional fields', presence.optionalFields, [
      '$.lastReading.source: present in 2 of 2',
      '$.location: present in 2 of 3',
      '$.location.floor: present in 2 of 2',
      '$.note: present in 0 of 3',
    ]);
    expect('undocumented fields', presence.undocumentedFields, ['$.firmwareVersion: present in 3 of 3']);

    heading('4. A shape inferred from the first probe alone, applied to the third');
    const third = presence.inferredFromFirst.against.find((entry: { path: string }) => entry.path === '/meters/mtr_3');
    line(`inferred from ${presence.inferredFromFirst.from}: every field seen is required, every type as seen`);
    for (const finding of third.findings as Finding[]) line(`   ${finding.kind} ${finding.path}: ${finding.message}`);
    line(
      'The document allows all of this (location is optional, lastReading is nullable): a client built from one example would reject a valid record.',
    );
    expect(
      'inferred vs third',
      (third.findings as Finding[]).map(({ kind, path }) => ({ kind, path })),
      [
        { kind: 'wrongType', path: '$.lastReading' },
        { kind: 'missing', path: '$.location' },
      ],
    );

    heading("5. A fixture recorded last month against today's record of mtr_1");
    const fixture = JSON.parse(readFileSync(`${HERE}fixtures/mtr_1.recorded.json`, 'utf8'));
    const diff = (await server.callTool('compare_fixture', { path: '/meters/mtr_1', fixture })).structuredContent;
    for (const path of diff.onlyLive) line(`only live     ${path}`);
    for (const path of diff.onlyFixture) line(`only fixture  ${path}`);
    for (const change of diff.changed)
      line(`moved         ${change.path}: ${JSON.stringify(change.fixture)} -> ${JSON.stringify(change.live)}`);
    expect('fixture only live', diff.onlyLive, ['$.firmwareVersion']);
    expect('fixture only fixture', diff.onlyFixture, []);
    expect(
      'fixture moved',
      diff.changed.map((change: { path: string }) => change.path),
      ['$.lastReading.kwh', '$.lastReading.takenAt'],
    );

    heading('6. What the server refuses (nothing is sent)');
    const refused = ['https://evil.example/meters', '//evil.example/meters', '/meters\\mtr_1', '/meters/../../admin'];
    for (const path of refused) {
      const called = await server.callTool('probe', { path });
      line(`${JSON.stringify(path).padEnd(32)} isError=${called.isError}: ${called.content[0].text.slice(0, 110)}...`);
      expect(
        `refusal ${path}`,
        [called.isError, called.content[0].text.startsWith('Refused, nothing was sent')],
        [true, true],
      );
    }

    heading('7. Requests the API received');
    for (const seen of api.requests) line(`${seen.method} ${seen.path}  key accepted: ${seen.authorized}`);
    expect(
      'requests seen',
      api.requests,
      ['mtr_1', 'mtr_2', 'mtr_3'].map((id) => ({ method: 'GET', path: `/v2/meters/${id}`, authorized: true })),
    );
    // The contract tools, in the order an agent writing a client uses them: find, describe, sample, draft.
    await findBlock(server);
    await describeBlock(server);
    await sampleBlock(server, api);
    await draftBlock(server, api);
    const everything = server.stdoutLines.join('\n') + server.stderr();
    expect('key never shown', everything.includes(KEY), false);
  } finally {
    const code = await server.close();
    expect('server exit code', code, 0);
    await api.close();
  }
  heading(
    mismatches.length === 0 ? 'Every block is as the stand-in scripts it.' : `${mismatches.length} block(s) differ:`,
  );
  for (const mismatch of mismatches) line(mismatch);
  return mismatches.length === 0 ? 0 : 1;
}

/**
 * The `probe_sample` block: the three meters in one call (for clients that start a new server per
 * call, where field_presence never sees earlier probes), then a sample mixing two operations, refused.
 */
async function sampleBlock(
  server: ReturnType<typeof spawnServer>,
  api: Awaited<ReturnType<typeof start>>,
): Promise<void> {
  heading('10. probe_sample: the three meters in one call');
  const before = api.requests.length;
  const called = await server.callTool('probe_sample', { paths: ['/meters/mtr_1', '/meters/mtr_2', '/meters/mtr_3'] });
  const sample = called.structuredContent;
  for (const probed of sample.probes)
    line(`${probed.path} -> ${probed.status}, ${probed.bytes} bytes, ${probed.findings.length} finding(s)`);
  for (const text of sample.optionalFields) line(`optional      ${text}`);
  for (const text of sample.undocumentedFields) line(`undocumented  ${text}`);
  for (const entry of sample.inferredFromFirst.against) {
    for (const finding of entry.findings as Finding[])
      line(`shape of ${sample.inferredFromFirst.from} vs ${entry.path}: ${finding.kind} ${finding.path}`);
  }
  expect('sample operation', sample.operation.operationId, 'getMeter');
  expect(
    'sample statuses',
    sample.probes.map((probed: { status: number }) => probed.status),
    [200, 200, 200],
  );
  expect('sample optional fields', sample.optionalFields, [
    '$.lastReading.source: present in 2 of 2',
    '$.location: present in 2 of 3',
    '$.location.floor: present in 2 of 2',
    '$.note: present in 0 of 3',
  ]);
  expect('sample undocumented fields', sample.undocumentedFields, ['$.firmwareVersion: present in 3 of 3']);
  expect(
    'sample vs first shape',
    sample.inferredFromFirst.against.map((entry: { path: string; findings: Finding[] }) => [
      entry.path,
      entry.findings.map(({ kind, path }) => `${kind} ${path}`),
    ]),
    // The summary lists only the later records that break the shape: mtr_2 fits it.
    [['/meters/mtr_3', ['wrongType $.lastReading', 'missing $.location']]],
  );
  const mixed = await server.callTool('probe_sample', { paths: ['/meters/mtr_1', '/meters'] });
  line(`["/meters/mtr_1", "/meters"] isError=${mixed.isError}: ${mixed.content[0].text}`);
  expect('sample of two operations refused', mixed.isError, true);
  expect(
    'sample requests',
    api.requests.slice(before).map((seen) => seen.path),
    ['/v2/meters/mtr_1', '/v2/meters/mtr_2', '/v2/meters/mtr_3'],
  );
  expect('key never shown in the sample', (server.stdoutLines.join('\n') + server.stderr()).includes(KEY), false);
}

/** Block 8: find_operation turns an intent into the operation behind it, without sending anything. */
async function findBlock(server: StdioClient): Promise<void> {
  heading("8. find_operation: which operation changes a meter's note?");
  const found = (await server.callTool('find_operation', { query: 'change the note of a meter' })).structuredContent;
  for (const hit of found.hits as {
    method: string;
    path: string;
    operationId?: string;
    confidence: string;
    matched: string;
  }[]) {
    line(`${hit.method} ${hit.path} (${hit.operationId}) ${hit.confidence}: ${hit.matched}`);
  }
  expect(
    'find first hit',
    [found.hits[0].method, found.hits[0].path, found.hits[0].confidence],
    ['PATCH', '/meters/{meterId}', 'high'],
  );
}

/** Block 9: describe_operation as TypeScript after the probes, with what they showed beside the type. */
async function describeBlock(server: StdioClient): Promise<void> {
  heading('9. The meter as a TypeScript type, from the document, with what the probes showed beside it');
  const described = (await server.callTool('describe_operation', { operation: 'getMeter', as: 'typescript' }))
    .structuredContent;
  for (const text of (described.typescript as string).trimEnd().split('\n')) line(text);
  expect('typescript comment', (described.typescript as string).split('\n').slice(0, 2), [
    '// Seen in 3 probes this session, not in the document (not part of the type):',
    '// - $.firmwareVersion: undocumented, present in 3 of 3',
  ]);
  expect(
    'typescript optional and nullable',
    ['  location?: Location;', '  } | null;'].map((text) => (described.typescript as string).includes(text)),
    [true, true],
  );
}

/** Block 11: a PATCH drafted from a GET, checked with draft_request; nothing is sent. */
async function draftBlock(server: StdioClient, api: StandIn): Promise<void> {
  heading('11. A PATCH drafted from a GET, checked against the contract and never sent');
  const received = api.requests.length;
  const copied = { id: 'mtr_1', note: 'Moved to the basement', locaton: { site: 'Harbour Road 12', floor: -1 } };
  const first = (await server.callTool('draft_request', { method: 'PATCH', path: '/meters/mtr_1', body: copied }))
    .structuredContent;
  line(`PATCH /meters/mtr_1 ${JSON.stringify(copied)} -> matchesContract=${first.matchesContract}`);
  for (const problem of first.problems as { name: string; message: string }[])
    line(`   ${problem.name}: ${problem.message}`);
  expect(
    'draft problems',
    (first.problems as { name: string; kind: string }[]).map(({ name, kind }) => `${kind} ${name}`),
    ['readOnly $.id', 'undocumented $.locaton'],
  );
  const fixed = { note: 'Moved to the basement', location: { site: 'Harbour Road 12', floor: -1 } };
  const second = (await server.callTool('draft_request', { method: 'PATCH', path: '/meters/mtr_1', body: fixed }))
    .structuredContent;
  line(`fixed -> matchesContract=${second.matchesContract}; for a person to run:`);
  line(`   ${second.request.curl}`);
  expect('draft fixed', [second.matchesContract, second.request.headers.Authorization], [true, 'Bearer $API_KEY']);
  expect('drafts send nothing', api.requests.length, received);
}

async function main(): Promise<void> {
  process.exitCode = await run();
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
