/**
 * Prints the case 52 figures of issue 8; asserts nothing. `node --import tsx scripts/burst.ts` (Node 20)
 * or `node scripts/burst.ts` (Node >= 22.18). Option: `--counts=100,1000,5000` (burst sizes).
 *
 * Spawns `probe-server.ts` with `PROBE_MAX_BYTES=524288` against an endless body on 127.0.0.1, writes N
 * probe calls in one write (N = 100 and 1,000 by default), waits for every reply and reports the server's
 * peak RSS (VmHWM from /proc, MiB), how many were probed and how many refused as busy. The ping latency
 * while bodies are checked is `scripts/ping-latency.ts`, whose spawned-server helper this uses.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { server } from './ping-latency.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MiB = 1024 * 1024;

/** An endless JSON body on 127.0.0.1, in a child process so its buffers do not count in ours. */
const UPSTREAM = `
const http = require('node:http');
const block = Buffer.alloc(64 * 1024, 0x20);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const pump = () => { while (!res.destroyed) if (!res.write(block)) return res.once('drain', pump); };
  pump();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function upstream(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (chunk) => resolve(String(chunk).trim())),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.stdin.end())),
  };
}

const probeCall = (id: string, path: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'probe', arguments: { path } } }) + '\n';

async function burst(): Promise<void> {
  const api = await upstream();
  console.log(
    'Case 52: N probes of an endless body in one write, PROBE_MAX_BYTES=524288, PROBE_CONCURRENCY=4, PROBE_RATE_PER_MIN=100000',
  );
  const counts = process.argv
    .find((arg) => arg.startsWith('--counts='))
    ?.slice('--counts='.length)
    .split(',')
    .map(Number) ?? [100, 1000];
  for (const count of counts) {
    const probe = server(
      { file: `${ROOT}probe-server.ts`, node: process.execPath },
      { API_BASE_URL: api.url, PROBE_MAX_BYTES: '524288' },
    );
    probe.send({ id: 'warm', method: 'ping' });
    await probe.answer('warm', 10000);
    const idle = probe.rss();
    const ids = Array.from({ length: count }, (_, index) => String(index));
    const began = performance.now();
    probe.write(ids.map((id) => probeCall(id, '/endless')).join(''));
    await Promise.all(ids.map((id) => probe.answer(id, 120000).catch(() => undefined)));
    const took = performance.now() - began;
    probe.send({ id: 'after', method: 'ping' });
    const after = await probe.answer('after', 10000).catch(() => undefined);
    const answered = ids.filter((id) => probe.replies.has(id));
    const truncated = answered.filter(
      (id) => probe.replies.get(id)!.message.result?.structuredContent?.truncated === true,
    ).length;
    const busy = answered.filter((id) =>
      /^Busy: /.test(probe.replies.get(id)!.message.result?.content?.[0]?.text ?? ''),
    ).length;
    const peak = probe.peakRss();
    const code = await probe.close();
    console.log(
      `  ${String(count).padStart(5)} calls: ${answered.length} replies (${truncated} probed, ${busy} refused as busy) in ${took.toFixed(0)} ms; ping after: ${after ? 'answered' : 'NO ANSWER'}; RSS idle ${(idle / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB; exit ${code}`,
    );
  }
  await api.close();
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${process.arch}`);
  await burst();
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
