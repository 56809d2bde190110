/**
 * Prints the runtime figures of issue 8; asserts nothing. `node --import tsx scripts/burst.ts` (Node 20)
 * or `node scripts/burst.ts` (Node >= 22.18).
 *
 * Options: `--counts=100,1000,5000` (burst sizes), `--burst-only` (skip part 2).
 *
 * 1. Case 52: spawns `probe-server.ts` with `PROBE_MAX_BYTES=524288` against an endless body on
 *    127.0.0.1, writes N probe calls in one write (N = 100 and 1,000), waits for every reply and
 *    reports the server's peak RSS (VmHWM from /proc, MiB), how many were probed and how many refused.
 * 2. Section 4: how long a `ping` takes while the server judges a large body. The body budget is at
 *    most 512 KiB, so the ~8 MiB case is timed in this process (`judge` on an 8 MiB JSON list); the
 *    spawned server is timed with pings every 5 ms during 20 probes of a 512 KiB JSON list.
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeArgsFor } from '../stdio-client.ts';
import { loadDocument } from '../openapi-document.ts';
import { findOperation, judge } from '../contract.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

/** The upstream runs in its own process, so its buffers do not count in the server's memory. */
const UPSTREAM = `
const http = require('node:http');
const block = Buffer.alloc(64 * 1024, 0x20);
const meter = (i) => ({ id: 'mtr_' + i, serial: 'SN-0041-' + i, status: 'active', installedAt: '2023-03-14T09:30:00Z',
  lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z', source: 'smart' }, location: { site: 'Harbour Road 12', floor: 0 } });
const list = (bytes) => { const meters = []; let size = 0; while (size < bytes) { const m = meter(meters.length); size += JSON.stringify(m).length + 1; meters.push(m); } return JSON.stringify({ meters, nextCursor: null }); };
const large = list(500 * 1024);
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/v2/meters')) { res.writeHead(200, { 'content-type': 'application/json' }); return res.end(large); }
  res.writeHead(200, { 'content-type': 'application/json' });
  const pump = () => { while (!res.destroyed) if (!res.write(block)) return res.once('drain', pump); };
  pump();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function upstream(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.stdin.end())) };
}

/** A spawned server: replies collected by id, `peakRss()` from /proc/<pid>/status. */
function server(env: Record<string, string>) {
  const child = spawn(process.execPath, nodeArgsFor(`${ROOT}probe-server.ts`), { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error', ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  const replies = new Map<string, { at: number; message: any }>();
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const message = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      replies.set(String(message.id), { at: performance.now(), message });
    }
  });
  const status = (field: string) => Number(/(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').find((line) => line.startsWith(field)) ?? '')?.[1] ?? 0) * 1024;
  return {
    child,
    replies,
    peakRss: () => status('VmHWM:'),
    rss: () => status('VmRSS:'),
    send: (text: string) => child.stdin.write(text),
    async waitFor(ids: string[], ms: number) {
      const deadline = Date.now() + ms;
      while (ids.some((id) => !replies.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    close: () => new Promise<number | null>((resolve) => (child.once('exit', (code) => resolve(code)), child.stdin.end())),
  };
}

const probeCall = (id: string, path: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'probe', arguments: { path } } }) + '\n';

async function burst(): Promise<void> {
  const api = await upstream();
  console.log('Case 52: N probes of an endless body in one write, PROBE_MAX_BYTES=524288, PROBE_CONCURRENCY=4, PROBE_RATE_PER_MIN=100000');
  const counts = process.argv.find((arg) => arg.startsWith('--counts='))?.slice('--counts='.length).split(',').map(Number) ?? [100, 1000];
  for (const count of counts) {
    const probe = server({ API_BASE_URL: api.url, PROBE_MAX_BYTES: '524288', PROBE_RATE_PER_MIN: '100000' });
    probe.send('{"jsonrpc":"2.0","id":"warm","method":"ping"}\n');
    await probe.waitFor(['warm'], 10000);
    const idle = probe.rss();
    const ids = Array.from({ length: count }, (_, index) => String(index));
    const began = performance.now();
    probe.send(ids.map((id) => probeCall(id, '/endless')).join(''));
    await probe.waitFor(ids, 120000);
    const took = performance.now() - began;
    probe.send('{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
    await probe.waitFor(['after'], 10000);
    const answered = ids.filter((id) => probe.replies.has(id));
    const truncated = answered.filter((id) => probe.replies.get(id)!.message.result?.structuredContent?.truncated === true).length;
    const busy = answered.filter((id) => /^Busy: /.test(probe.replies.get(id)!.message.result?.content?.[0]?.text ?? '')).length;
    const peak = probe.peakRss();
    const code = await probe.close();
    console.log(`  ${String(count).padStart(5)} calls: ${answered.length} replies (${truncated} probed, ${busy} refused as busy) in ${took.toFixed(0)} ms; ping after: ${probe.replies.has('after') ? 'answered' : 'NO ANSWER'}; RSS idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB; exit ${code}`);
  }
  await api.close();
}

async function pingDuringCheck(): Promise<void> {
  console.log('\nSection 4: ping latency while a large body is checked');
  const loaded = await loadDocument(`${ROOT}openapi.json`);
  const match = findOperation(loaded, '', '/meters', '/meters');
  const meter = (i: number) => ({ id: `mtr_${i}`, serial: `SN-0041-${i}`, status: 'active', installedAt: '2023-03-14T09:30:00Z', lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z', source: 'smart' }, location: { site: 'Harbour Road 12', floor: 0 }, firmwareVersion: '4.2.1' });
  const meters = [];
  for (let size = 0; size < 8 * MiB; ) {
    const item = meter(meters.length);
    size += JSON.stringify(item).length + 1;
    meters.push(item);
  }
  const text = JSON.stringify({ meters, nextCursor: null });
  for (let round = 0; round < 2; round++) {
    const began = performance.now();
    const body = JSON.parse(text);
    const judged = judge(loaded, match.operation!, { status: 200, contentType: 'application/json', bytes: text.length, truncated: false, body });
    const took = performance.now() - began;
    console.log(`  in process: JSON.parse + judge of ${(text.length / MiB).toFixed(1)} MiB (${meters.length} meters, ${(judged.findings as unknown[]).length} findings): the thread is held ${took.toFixed(0)} ms (round ${round + 1})`);
  }

  const api = await upstream();
  const probe = server({ API_BASE_URL: `${api.url}/v2`, OPENAPI_DOC: `${ROOT}openapi.json`, PROBE_MAX_BYTES: '524288', PROBE_RATE_PER_MIN: '100000' });
  probe.send('{"jsonrpc":"2.0","id":"warm","method":"ping"}\n' + probeCall('warm-probe', '/meters'));
  await probe.waitFor(['warm', 'warm-probe'], 20000);
  const latencies: number[] = [];
  let pingId = 0;
  let probing = true;
  const pinger = (async () => {
    while (probing) {
      const id = `ping-${pingId++}`;
      const sent = performance.now();
      probe.send(`{"jsonrpc":"2.0","id":"${id}","method":"ping"}\n`);
      await probe.waitFor([id], 10000);
      latencies.push(probe.replies.get(id)!.at - sent);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const ids = Array.from({ length: 20 }, (_, index) => `p${index}`);
  for (const id of ids) {
    probe.send(probeCall(id, '/meters'));
    await probe.waitFor([id], 20000);
  }
  probing = false;
  await pinger;
  const bytes = probe.replies.get('p0')?.message.result?.structuredContent?.bytes;
  latencies.sort((a, b) => a - b);
  console.log(`  spawned server: ${latencies.length} pings during 20 probes of a ${bytes} B JSON list (checked): median ${latencies[latencies.length >> 1]!.toFixed(1)} ms, worst ${latencies.at(-1)!.toFixed(1)} ms`);
  await probe.close();
  await api.close();
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${process.arch}`);
  await burst();
  if (!process.argv.includes("--burst-only")) await pingDuringCheck();
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
