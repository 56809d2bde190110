/**
 * Prints how long `ping` takes while the server checks hostile bodies (issue 8, "Nothing stalls the
 * server"); asserts nothing. `node --import tsx scripts/ping-latency.ts` (Node 20) or
 * `node scripts/ping-latency.ts` (Node >= 22.18).
 *
 * Options: `--server=FILE` (default `probe-server.ts`; a `.mjs` such as `dist/probe-server.mjs` runs
 * with plain node), `--node=PATH` (the node binary for the server, default this one), `--rounds=N`
 * (probes per input, default 5), `--rss` (also RSS with GitHub's description configured), `--document` (also
 * `documentScenarios`: large document load, TTL reload, describe, draft, a 4.5 MB line; `--graph=FILE` adds
 * Microsoft Graph beta's load).
 *
 * Spawns the server against an upstream on 127.0.0.1 (`startHostileApi`, in this process) and a
 * document written to a temporary folder. For each input it sends the probes one after the other while a `ping` goes out every 5 ms, independently of the answers, and prints per input: the
 * probes' time (median, worst, ms) and the pings' latency (count, median, p99, worst, ms).
 * Inputs: (a) case 50, pattern `^(a+)+$` against 34 `a` and `!`; (b) 40 levels of `anyOf: [S, S]`;
 * (c) a 512 KiB and an 8 MiB (8,000,000 bytes) JSON list; (d) 8,000,000 bytes of items nested 40
 * deep, each object holding duplicate member names.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeArgsFor } from '../harness/stdio-client.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MiB = 1024 * 1024;

/** The hostile bodies by path, built once: JSON text. */
export function hostileBodies(): Record<string, string> {
  const item = (i: number) => ({
    id: `mtr_${i}`,
    serial: `SN-0041-${i}`,
    status: 'active',
    lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z' },
  });
  const list = (bytes: number) => {
    const items = [];
    for (let size = 0; size < bytes;) {
      const next = item(items.length);
      size += JSON.stringify(next).length + 1;
      items.push(next);
    }
    return JSON.stringify({ items });
  };
  let one = '1';
  for (let depth = 0; depth < 40; depth++) one = `{"a":${one},"a":2,"b":[${depth}]}`;
  const nested = `{"items":[${Array(Math.floor((8000000 - 20) / (one.length + 1)))
    .fill(one)
    .join(',')}]}`;
  return {
    '/pattern': JSON.stringify({ code: `${'a'.repeat(34)}!` }),
    '/any-of': '1',
    '/list-small': list(512 * 1024),
    '/list-large': list(8000000),
    '/nested': nested,
  };
}

/**
 * A record of `/records/{id}` (about 10 KB of JSON): 40 fields, some present only for some ids, and a
 * list of 40 readings, so `describe_operation` as TypeScript has work to do over 50 of them.
 */
export function recordBody(id: number): Record<string, unknown> {
  const record: Record<string, unknown> = { id: `rec_${id}`, status: id % 3 ? 'active' : 'retired' };
  for (let field = 0; field < 40; field++)
    if ((id + field) % 4) record[`field${field}`] = field % 2 ? `value ${id}-${field}` : id * field;
  record.readings = Array.from({ length: 40 }, (_, index) => ({
    at: `2026-11-${String(1 + (index % 28)).padStart(2, '0')}T00:00:00Z`,
    kwh: index * 1.5,
    ...(index % 5 ? {} : { note: `n${index}` }),
  }));
  return record;
}

/**
 * A document of `operations` GET operations, each its own path template and parameters, a small
 * response schema and a description, about 330 bytes each (20,000: about 6.6 MB): slow to load, bundle
 * and index, harmless to check.
 */
export function largeDocument(operations: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let index = 0; index < operations; index++) {
    paths[`/area${index % 97}/item${index}/{id}`] = {
      get: {
        operationId: `getItem${index}`,
        summary: `Get item ${index} of area ${index % 97}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { id: { type: 'string' }, size: { type: 'integer' } },
                  required: ['id'],
                },
              },
            },
          },
        },
      },
    };
  }
  return { openapi: '3.0.3', info: { title: `large (${operations} operations)`, version: '1' }, paths };
}

/** Serves `hostileBodies()` on 127.0.0.1, port 0, as `application/json` (404 for other paths); `/records/N` is `recordBody(N)`, `/documents/NAME` one of `documents`. */
export async function startHostileApi(
  documents: Record<string, string> = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const bodies = hostileBodies();
  const api = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const record = /^\/records\/(\d+)$/.exec(path);
    const body = record
      ? JSON.stringify(recordBody(Number(record[1])))
      : path.startsWith('/documents/')
        ? documents[path.slice('/documents/'.length)]
        : bodies[path];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(body ?? '{"error":"not found"}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const { port } = api.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (api.closeAllConnections(), api.close(() => resolve()))),
  };
}

/** The OpenAPI document of `hostileBodies()`'s paths (OpenAPI 3.0.3). */
export function hostileDocument(): Record<string, unknown> {
  const ok = (schema: Record<string, unknown>) => ({
    get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } },
  });
  const schemas: Record<string, unknown> = {
    Item: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        serial: { type: 'string' },
        status: { type: 'string', enum: ['active', 'retired'] },
        lastReading: {
          type: 'object',
          properties: { kwh: { type: 'number' }, takenAt: { type: 'string', format: 'date-time' } },
        },
      },
      required: ['id', 'status'],
    },
  };
  for (let level = 0; level < 40; level++)
    schemas[`Level${level}`] = {
      anyOf: [{ $ref: `#/components/schemas/Level${level + 1}` }, { $ref: `#/components/schemas/Level${level + 1}` }],
    };
  schemas.Level40 = { type: 'string' };
  schemas.Record = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      status: { type: 'string' },
      field0: { type: 'integer' },
      readings: {
        type: 'array',
        items: { type: 'object', properties: { at: { type: 'string' }, kwh: { type: 'number' } } },
      },
    },
    required: ['id', 'status'],
  };
  schemas.Nested = {
    type: 'object',
    properties: { a: { $ref: '#/components/schemas/Nested' }, b: { type: 'array', items: { type: 'integer' } } },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'hostile', version: '1' },
    paths: {
      '/pattern': ok({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }),
      '/any-of': ok({ $ref: '#/components/schemas/Level0' }),
      '/list-small': ok({
        type: 'object',
        properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
      }),
      '/list-large': ok({
        type: 'object',
        properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
      }),
      '/nested': ok({
        type: 'object',
        properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Nested' } } },
      }),
      '/records/{id}': {
        get: {
          operationId: 'getRecord',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Record' } } },
            },
          },
        },
      },
      // A request body checked against 40 levels of anyOf [S, S]: draft_request's check meets the same 2^40 paths.
      '/drafts': {
        post: {
          operationId: 'postDraft',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Level0' } } },
            },
          },
          responses: { '201': { description: 'created' } },
        },
      },
    },
    components: { schemas },
  };
}

export type Server = ReturnType<typeof server>;

/**
 * A spawned server (`node [--import tsx] FILE`, or `NODE FILE` with `options.node`) with `env` on top of
 * PATH, HOME, LOG_LEVEL=error and PROBE_RATE_PER_MIN=100000: replies by id with their arrival time
 * (performance.now(), ms), `answer(id)` waits for one, RSS from /proc/<pid>/status in bytes.
 */
export function server(options: { file: string; node: string }, env: Record<string, string>) {
  const args =
    options.file.endsWith('.ts') && options.node === process.execPath ? nodeArgsFor(options.file) : [options.file];
  const child = spawn(options.node, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'error',
      PROBE_RATE_PER_MIN: '100000',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const replies = new Map<string, { at: number; message: any }>();
  const waiters = new Map<string, () => void>();
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const message = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      replies.set(String(message.id), { at: performance.now(), message });
      waiters.get(String(message.id))?.();
    }
  });
  const status = (field: string) =>
    Number(
      /(\d+) kB/.exec(
        readFileSync(`/proc/${child.pid}/status`, 'utf8')
          .split('\n')
          .find((line) => line.startsWith(field)) ?? '',
      )?.[1] ?? 0,
    ) * 1024;
  return {
    replies,
    rss: () => status('VmRSS:'),
    peakRss: () => status('VmHWM:'),
    send: (message: Record<string, unknown>) =>
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n'),
    /** Writes raw text to stdin in one write (a burst of many lines). */
    write: (text: string) => child.stdin.write(text),
    answer: (id: string, ms = 60000) =>
      new Promise<any>((resolve, reject) => {
        if (replies.has(id)) return resolve(replies.get(id)!.message);
        const timer = setTimeout(() => reject(new Error(`no answer to ${id} in ${ms} ms`)), ms);
        waiters.set(id, () => (clearTimeout(timer), resolve(replies.get(id)!.message)));
      }),
    close: () =>
      new Promise<number | null>((resolve) => (child.once('exit', (code) => resolve(code)), child.stdin.end())),
  };
}

/** The q-quantile of numbers (nearest rank). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

let nextId = 0;

/**
 * Sends `rounds` probes of `path` one after the other while a ping goes out every 5 ms.
 * @returns Each probe's time and each ping's latency (ms), a summary of the last probe's result and its structured content.
 */
export async function measure(
  probeServer: Server,
  path: string,
  rounds: number,
): Promise<{ probes: number[]; pings: number[]; note: string; last: Record<string, any> }> {
  const sent = new Map<string, number>();
  let running = true;
  const pinger = setInterval(() => {
    if (!running) return;
    const id = `ping-${nextId++}`;
    sent.set(id, performance.now());
    probeServer.send({ id, method: 'ping' });
  }, 5);
  const probes: number[] = [];
  let note = '';
  let last: Record<string, any> = {};
  for (let round = 0; round < rounds; round++) {
    const id = `probe-${nextId++}`;
    const began = performance.now();
    probeServer.send({ id, method: 'tools/call', params: { name: 'probe', arguments: { path } } });
    const answer = await probeServer.answer(id);
    probes.push(performance.now() - began);
    const result = answer.result?.structuredContent ?? {};
    last = result;
    note = `validated=${result.validated} findings=${result.findingCount ?? result.findings?.length ?? 0}${result.validationNote ? ` note="${String(result.validationNote).slice(0, 140)}"` : ''}`;
  }
  running = false;
  clearInterval(pinger);
  await Promise.all([...sent.keys()].map((id) => probeServer.answer(id)));
  const pings = [...sent].map(([id, at]) => probeServer.replies.get(id)!.at - at);
  return { probes, pings, note, last };
}

/**
 * Sends a ping every 5 ms, independently of the answers, while `action` runs.
 * @returns The pings' latencies (ms), the action's time (ms) and what it returned.
 */
export async function pingsWhile<T>(
  probeServer: Server,
  action: () => Promise<T>,
): Promise<{ pings: number[]; took: number; value: T }> {
  const sent = new Map<string, number>();
  const pinger = setInterval(() => {
    const id = `ping-${nextId++}`;
    sent.set(id, performance.now());
    probeServer.send({ id, method: 'ping' });
  }, 5);
  const began = performance.now();
  let value: T;
  try {
    value = await action();
  } finally {
    clearInterval(pinger);
  }
  const took = performance.now() - began;
  await Promise.all([...sent.keys()].map((id) => probeServer.answer(id)));
  return { pings: [...sent].map(([id, at]) => probeServer.replies.get(id)!.at - at), took, value };
}

/** Sends one tools/call and waits for its answer (the JSON-RPC response). */
export async function callTool(
  probeServer: Server,
  name: string,
  args: Record<string, unknown>,
  ms = 120000,
): Promise<any> {
  const id = `call-${nextId++}`;
  probeServer.send({ id, method: 'tools/call', params: { name, arguments: args } });
  return probeServer.answer(id, ms);
}

/** One line of figures: count, median, p99 and worst ping latency, and what was measured. */
export function pingLine(label: string, measured: { pings: number[]; took: number }, note = ''): string {
  const { pings, took } = measured;
  return `  ${label.padEnd(44)} took ${took.toFixed(0)} ms | ${pings.length} pings: median ${quantile(pings, 0.5).toFixed(1)} ms, p99 ${quantile(pings, 0.99).toFixed(1)} ms, worst ${Math.max(...pings).toFixed(1)} ms${note ? ` | ${note}` : ''}`;
}

/**
 * Ping latency while the server works on the document and on large arguments (issue 8, issue 9):
 * (a) a large document loads at start-up (`largeDocument(20000)`, and Microsoft Graph beta when `graph`
 * names its file), measured from spawn until the first probe is answered; (b) the document, served
 * over HTTP, reloads after its TTL (`OPENAPI_TTL_S=1`); (c) `describe_operation` as TypeScript over 50
 * remembered bodies; (d) `draft_request` with a body checked against 40 levels of anyOf; (e) a
 * JSON-RPC line of 4.5 MB (a `compare_fixture` fixture).
 */
export async function documentScenarios(file: string, node: string, graph?: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'ping-latency-doc-'));
  const large = JSON.stringify(largeDocument(20000));
  writeFileSync(join(folder, 'large.json'), large);
  const api = await startHostileApi({ 'large.json': large, 'hostile.json': JSON.stringify(hostileDocument()) });
  const loads: [string, string][] = [
    [`(a) load ${(large.length / 1e6).toFixed(1)} MB, 20,000 operations`, join(folder, 'large.json')],
  ];
  if (graph) loads.push(['(a) load Microsoft Graph beta (47 MB)', graph]);
  try {
    for (const [label, document] of loads) {
      const probeServer = server({ file, node }, { API_BASE_URL: api.url, OPENAPI_DOC: document });
      try {
        // From the first answer (the process is up), while the document loads, until the first probe is answered.
        probeServer.send({ id: 'first', method: 'ping' });
        await probeServer.answer('first');
        const measured = await pingsWhile(probeServer, () => callTool(probeServer, 'probe', { path: '/pattern' }));
        console.log(
          pingLine(
            label,
            measured,
            `first probe validationNote: ${String(measured.value.result?.structuredContent?.validationNote ?? 'none').slice(0, 80)}`,
          ),
        );
      } finally {
        await probeServer.close();
      }
    }
    const probeServer = server(
      { file, node },
      { API_BASE_URL: api.url, OPENAPI_DOC: `${api.url}/documents/large.json`, OPENAPI_TTL_S: '1' },
    );
    try {
      await callTool(probeServer, 'probe', { path: '/pattern' });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      console.log(
        pingLine(
          '(b) reload after the TTL (20,000 operations)',
          await pingsWhile(probeServer, () => callTool(probeServer, 'describe_operation', { operation: 'getItem0' })),
        ),
      );
    } finally {
      await probeServer.close();
    }
    const hostileServer = server(
      { file, node },
      { API_BASE_URL: api.url, OPENAPI_DOC: `${api.url}/documents/hostile.json` },
    );
    try {
      for (let id = 0; id < 50; id++) await callTool(hostileServer, 'probe', { path: `/records/${id}` });
      const described = await pingsWhile(hostileServer, () =>
        callTool(hostileServer, 'describe_operation', { operation: 'getRecord', as: 'typescript' }),
      );
      console.log(
        pingLine(
          '(c) describe as TypeScript, 50 bodies',
          described,
          `${String(described.value.result?.structuredContent?.typescript ?? described.value.result?.content?.[0]?.text).length} characters`,
        ),
      );
      const drafted = await pingsWhile(hostileServer, () =>
        callTool(hostileServer, 'draft_request', { method: 'POST', path: '/drafts', body: Array(1000).fill(1) }),
      );
      console.log(
        pingLine(
          '(d) draft_request, body against 40 anyOf levels',
          drafted,
          `matchesContract ${drafted.value.result?.structuredContent?.matchesContract}`,
        ),
      );
      const items = Array.from({ length: 60000 }, (_, index) => ({
        id: `x${index}`,
        name: 'abcdefghij',
        value: index,
        tags: ['a', 'b'],
      }));
      const line =
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'big-line',
          method: 'tools/call',
          params: { name: 'compare_fixture', arguments: { path: '/records/1', fixture: { items } } },
        }) + '\n';
      const big = await pingsWhile(hostileServer, async () => {
        hostileServer.write(line);
        // Answered under its id, or, when the line is over the limit, with id null.
        while (!hostileServer.replies.has('big-line') && !hostileServer.replies.has('null'))
          await new Promise((resolve) => setTimeout(resolve, 5));
        return (hostileServer.replies.get('big-line') ?? hostileServer.replies.get('null'))!.message;
      });
      console.log(
        pingLine(
          `(e) a JSON-RPC line of ${(line.length / 1e6).toFixed(1)} MB`,
          big,
          String(big.value.error?.message ?? big.value.result?.content?.[0]?.text ?? '').slice(0, 100),
        ),
      );
    } finally {
      await hostileServer.close();
    }
  } finally {
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const file = option('server') ? resolve(option('server')!) : `${ROOT}probe-server.ts`;
  const node = option('node') ?? process.execPath;
  const rounds = Number(option('rounds') ?? 5);
  const folder = mkdtempSync(join(tmpdir(), 'ping-latency-'));
  const document = join(folder, 'openapi.json');
  writeFileSync(document, JSON.stringify(hostileDocument()));
  const api = await startHostileApi();
  const probeServer = server({ file, node }, { API_BASE_URL: api.url, OPENAPI_DOC: document });
  console.log(
    `ping latency while probes are checked: server ${file} on ${node}, a ping every 5 ms, ${rounds} probe(s) per input`,
  );
  try {
    probeServer.send({ id: 'warm', method: 'ping' });
    await probeServer.answer('warm');
    await measure(probeServer, '/list-small', 1);
    const inputs = [
      ['(a) case 50 pattern ^(a+)+$', '/pattern'],
      ['(b) 40 levels of anyOf [S, S]', '/any-of'],
      ['(c) 512 KiB JSON list', '/list-small'],
      ['(c) 8 MB JSON list', '/list-large'],
      ['(d) 8 MB nested, duplicate names', '/nested'],
    ] as const;
    for (const [label, path] of inputs) {
      const { probes, pings, note } = await measure(probeServer, path, rounds);
      console.log(
        `  ${label.padEnd(36)} probe median ${quantile(probes, 0.5).toFixed(0)} ms, worst ${Math.max(...probes).toFixed(0)} ms | ${pings.length} pings: median ${quantile(pings, 0.5).toFixed(1)} ms, p99 ${quantile(pings, 0.99).toFixed(1)} ms, worst ${Math.max(...pings).toFixed(1)} ms | ${note}`,
      );
    }
    console.log(
      `  server RSS now ${(probeServer.rss() / MiB).toFixed(1)} MiB, peak ${(probeServer.peakRss() / MiB).toFixed(1)} MiB`,
    );
  } finally {
    await probeServer.close();
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  }
  if (process.argv.includes('--rss')) await githubRss(file, node);
  if (process.argv.includes('--document')) await documentScenarios(file, node, option('graph'));
}

/** RSS with GitHub's description configured: idle after the document loaded, then after one probe. */
async function githubRss(file: string, node: string): Promise<void> {
  const api = await startHostileApi();
  const probeServer = server({ file, node }, { API_BASE_URL: api.url, OPENAPI_DOC: githubDescriptionPath() });
  try {
    probeServer.send({
      id: 'describe',
      method: 'tools/call',
      params: { name: 'describe_operation', arguments: { operation: 'repos/get' } },
    });
    await probeServer.answer('describe');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = probeServer.rss();
    probeServer.send({
      id: 'probe',
      method: 'tools/call',
      params: { name: 'probe', arguments: { path: '/list-small' } },
    });
    await probeServer.answer('probe');
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(
      `GitHub's description (13 MB): RSS after describe_operation ${(loaded / MiB).toFixed(1)} MiB, after a probe ${(probeServer.rss() / MiB).toFixed(1)} MiB, peak ${(probeServer.peakRss() / MiB).toFixed(1)} MiB`,
    );
  } finally {
    await probeServer.close();
    await api.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
