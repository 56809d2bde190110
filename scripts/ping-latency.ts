/**
 * Prints how long `ping` takes while the server checks hostile bodies (issue 8, "Nothing stalls the
 * server"); asserts nothing. `node --import tsx scripts/ping-latency.ts` (Node 20) or
 * `node scripts/ping-latency.ts` (Node >= 22.18).
 *
 * Options: `--server=FILE` (default `probe-server.ts`; a `.mjs` such as `dist/probe-server.mjs` runs
 * with plain node), `--node=PATH` (the node binary for the server, default this one), `--rounds=N`
 * (probes per input, default 5), `--rss` (also RSS with GitHub's description configured).
 *
 * Spawns the server against an upstream on 127.0.0.1 (its own process, so its buffers do not count)
 * and a document written to a temporary folder. For each input it sends the probes one after the
 * other while a `ping` goes out every 5 ms, independently of the answers, and prints per input: the
 * probes' time (median, worst, ms) and the pings' latency (count, median, p99, worst, ms).
 * Inputs: (a) case 50, pattern `^(a+)+$` against 34 `a` and `!`; (b) 40 levels of `anyOf: [S, S]`;
 * (c) a 512 KiB and an 8 MiB (8,000,000 bytes) JSON list; (d) 8,000,000 bytes of items nested 40
 * deep, each object holding duplicate member names.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from '../stdio-client.ts';
import { githubDescriptionPath } from '../fixture-documents.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

/** The upstream: one path per hostile input; bodies are built once. */
const UPSTREAM = `
const http = require('node:http');
const item = (i) => ({ id: 'mtr_' + i, serial: 'SN-0041-' + i, status: 'active', lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z' } });
const list = (bytes) => { const items = []; let size = 0; while (size < bytes) { const m = item(items.length); size += JSON.stringify(m).length + 1; items.push(m); } return JSON.stringify({ items }); };
const nestedItem = (depth) => { let text = '1'; for (let d = 0; d < depth; d++) text = '{"a":' + text + ',"a":2,"b":[' + d + ']}'; return text; };
const nested = (bytes) => { const one = nestedItem(40); const count = Math.floor((bytes - 20) / (one.length + 1)); return '{"items":[' + Array(count).fill(one).join(',') + ']}'; };
const bodies = {
  '/pattern': JSON.stringify({ code: 'a'.repeat(34) + '!' }),
  '/any-of': '1',
  '/list-small': list(512 * 1024),
  '/list-large': list(8000000),
  '/nested': nested(8000000),
};
const server = http.createServer((req, res) => {
  const body = bodies[req.url.split('?')[0]];
  if (body === undefined) { res.writeHead(404, { 'content-type': 'application/json' }); return res.end('{"error":"not found"}'); }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

/** The OpenAPI document of the upstream's paths. */
function hostileDocument(): Record<string, unknown> {
  const ok = (schema: Record<string, unknown>) => ({ get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } } });
  const schemas: Record<string, unknown> = { Item: { type: 'object', properties: { id: { type: 'string' }, serial: { type: 'string' }, status: { type: 'string', enum: ['active', 'retired'] }, lastReading: { type: 'object', properties: { kwh: { type: 'number' }, takenAt: { type: 'string', format: 'date-time' } } } }, required: ['id', 'status'] } };
  for (let level = 0; level < 40; level++) schemas[`Level${level}`] = { anyOf: [{ $ref: `#/components/schemas/Level${level + 1}` }, { $ref: `#/components/schemas/Level${level + 1}` }] };
  schemas.Level40 = { type: 'string' };
  schemas.Nested = { type: 'object', properties: { a: { $ref: '#/components/schemas/Nested' }, b: { type: 'array', items: { type: 'integer' } } } };
  return {
    openapi: '3.0.3',
    info: { title: 'hostile', version: '1' },
    paths: {
      '/pattern': ok({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }),
      '/any-of': ok({ $ref: '#/components/schemas/Level0' }),
      '/list-small': ok({ type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } }),
      '/list-large': ok({ type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } }),
      '/nested': ok({ type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Nested' } } } }),
    },
    components: { schemas },
  };
}

async function upstream(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.stdin.end())) };
}

type Server = ReturnType<typeof server>;

/** A spawned server: replies by id with their arrival time, RSS from /proc/<pid>/status. */
function server(options: { file: string; node: string }, env: Record<string, string>) {
  const args = options.file.endsWith('.ts') && options.node === process.execPath ? nodeArgsFor(options.file) : [options.file];
  const child = spawn(options.node, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', PROBE_RATE_PER_MIN: '100000', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
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
  const status = (field: string) => Number(/(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').find((line) => line.startsWith(field)) ?? '')?.[1] ?? 0) * 1024;
  return {
    replies,
    rss: () => status('VmRSS:'),
    peakRss: () => status('VmHWM:'),
    send: (message: Record<string, unknown>) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n'),
    answer: (id: string, ms = 60000) => new Promise<any>((resolve, reject) => {
      if (replies.has(id)) return resolve(replies.get(id)!.message);
      const timer = setTimeout(() => reject(new Error(`no answer to ${id} in ${ms} ms`)), ms);
      waiters.set(id, () => (clearTimeout(timer), resolve(replies.get(id)!.message)));
    }),
    close: () => new Promise<number | null>((resolve) => (child.once('exit', (code) => resolve(code)), child.stdin.end())),
  };
}

/** The q-quantile of numbers (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

let nextId = 0;

/** Sends `rounds` probes of `path` one after the other while pinging every 5 ms; returns the figures. */
async function measure(probeServer: Server, path: string, rounds: number): Promise<{ probes: number[]; pings: number[]; note: string }> {
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
  for (let round = 0; round < rounds; round++) {
    const id = `probe-${nextId++}`;
    const began = performance.now();
    probeServer.send({ id, method: 'tools/call', params: { name: 'probe', arguments: { path } } });
    const answer = await probeServer.answer(id);
    probes.push(performance.now() - began);
    const result = answer.result?.structuredContent ?? {};
    note = `validated=${result.validated} findings=${result.findingCount ?? result.findings?.length ?? 0}${result.validationNote ? ` note="${String(result.validationNote).slice(0, 140)}"` : ''}`;
  }
  running = false;
  clearInterval(pinger);
  await Promise.all([...sent.keys()].map((id) => probeServer.answer(id)));
  const pings = [...sent].map(([id, at]) => probeServer.replies.get(id)!.at - at);
  return { probes, pings, note };
}

async function main(): Promise<void> {
  const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const file = option('server') ? join(process.cwd(), option('server')!) : `${ROOT}probe-server.ts`;
  const node = option('node') ?? process.execPath;
  const rounds = Number(option('rounds') ?? 5);
  const folder = mkdtempSync(join(tmpdir(), 'ping-latency-'));
  const document = join(folder, 'openapi.json');
  writeFileSync(document, JSON.stringify(hostileDocument()));
  const api = await upstream();
  const probeServer = server({ file, node }, { API_BASE_URL: api.url, OPENAPI_DOC: document });
  console.log(`ping latency while probes are checked: server ${file} on ${node}, a ping every 5 ms, ${rounds} probe(s) per input`);
  try {
    probeServer.send({ id: 'warm', method: 'ping' });
    await probeServer.answer('warm');
    await measure(probeServer, '/list-small', 1);
    const inputs = [['(a) case 50 pattern ^(a+)+$', '/pattern'], ['(b) 40 levels of anyOf [S, S]', '/any-of'], ['(c) 512 KiB JSON list', '/list-small'], ['(c) 8 MB JSON list', '/list-large'], ['(d) 8 MB nested, duplicate names', '/nested']] as const;
    for (const [label, path] of inputs) {
      const { probes, pings, note } = await measure(probeServer, path, rounds);
      console.log(`  ${label.padEnd(36)} probe median ${quantile(probes, 0.5).toFixed(0)} ms, worst ${Math.max(...probes).toFixed(0)} ms | ${pings.length} pings: median ${quantile(pings, 0.5).toFixed(1)} ms, p99 ${quantile(pings, 0.99).toFixed(1)} ms, worst ${Math.max(...pings).toFixed(1)} ms | ${note}`);
    }
    console.log(`  server RSS now ${(probeServer.rss() / MiB).toFixed(1)} MiB, peak ${(probeServer.peakRss() / MiB).toFixed(1)} MiB`);
  } finally {
    await probeServer.close();
    await api.close();
    rmSync(folder, { recursive: true, force: true });
  }
  if (process.argv.includes('--rss')) await githubRss(file, node);
}

/** RSS with GitHub's description configured: idle after the document loaded, then after one probe. */
async function githubRss(file: string, node: string): Promise<void> {
  const api = await upstream();
  const probeServer = server({ file, node }, { API_BASE_URL: api.url, OPENAPI_DOC: githubDescriptionPath() });
  try {
    probeServer.send({ id: 'describe', method: 'tools/call', params: { name: 'describe_operation', arguments: { operation: 'repos/get' } } });
    await probeServer.answer('describe');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = probeServer.rss();
    probeServer.send({ id: 'probe', method: 'tools/call', params: { name: 'probe', arguments: { path: '/list-small' } } });
    await probeServer.answer('probe');
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`GitHub's description (13 MB): RSS after describe_operation ${(loaded / MiB).toFixed(1)} MiB, after a probe ${(probeServer.rss() / MiB).toFixed(1)} MiB, peak ${(probeServer.peakRss() / MiB).toFixed(1)} MiB`);
  } finally {
    await probeServer.close();
    await api.close();
  }
}

main();
