/**
 * Prints speed and memory figures; asserts nothing. `npm run bench` (Node 20) or `node bench.ts`.
 *
 * 1. Memory of the capped read: probes of an endless body and of a 1 GiB gzip-inflating body, at the
 *    default budget and at the largest, report peak RSS growth (MiB) over the process before them.
 * 2. Time to load and index GitHub's description, and to check one recorded-size response against it.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { probe, MAX_BODY_BUDGET } from './probe-server.ts';
import { loadDocument, matchOperation } from './openapi-document.ts';
import { checkResponse } from './validate.ts';
import { githubDescriptionPath } from './fixture-documents.ts';

const MiB = 1024 * 1024;

/** The upstream runs in a child process, so its send buffers do not count in this process's memory. */
const UPSTREAM = `
const http = require('node:http'); const zlib = require('node:zlib');
const block = Buffer.alloc(64 * 1024, 0x20);
const server = http.createServer((req, res) => {
  if (req.url === '/gzip') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const gzip = zlib.createGzip(); gzip.pipe(res); let sent = 0;
    const pump = () => { while (sent < 1024 * 1024 * 1024) { sent += block.length; if (!gzip.write(block)) return gzip.once('drain', pump); } gzip.end(); };
    res.on('close', () => gzip.destroy()); pump(); return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  const pump = () => { while (!res.destroyed) if (!res.write(block)) return res.once('drain', pump); };
  pump();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function endlessServer(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.stdin.end();
    }),
  };
}

async function memory(): Promise<void> {
  const upstream = await endlessServer();
  // Warm up: the first fetch loads and compiles the HTTP client, which is not the probe's cost.
  await probe(new URL(upstream.url + '/endless'), { headers: {}, timeoutMs: 30000, maxBytes: 1024 });
  console.log('Capped read (20 probes each; RSS growth is the peak over the process before the probes)');
  for (const [name, path] of [['endless body', '/endless'], ['1 GiB gzip body', '/gzip']]) {
    for (const budget of [16384, MAX_BODY_BUDGET]) {
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const began = performance.now();
      let bytes = 0;
      for (let i = 0; i < 20; i++) {
        const result = await probe(new URL(upstream.url + path), { headers: {}, timeoutMs: 30000, maxBytes: budget });
        bytes = result.bytes;
      }
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const ms = (performance.now() - began) / 20;
      console.log(`  ${name.padEnd(16)} budget ${String(budget).padStart(6)} B: ${ms.toFixed(1).padStart(6)} ms per probe, ${bytes} bytes read before stopping, peak RSS growth ${((peak - before) / MiB).toFixed(1)} MiB`);
    }
  }
  await upstream.close();
}

async function github(): Promise<void> {
  const file = githubDescriptionPath();
  let began = performance.now();
  const loaded = await loadDocument(file);
  console.log(`\nGitHub description: loaded and indexed ${loaded.operations.length} operations in ${(performance.now() - began).toFixed(0)} ms`);
  began = performance.now();
  const rounds = 2000;
  for (let i = 0; i < rounds; i++) matchOperation(loaded, 'GET', `/repos/octokit/rest.js/issues/${i}`);
  console.log(`  matchOperation: ${(((performance.now() - began) / rounds) * 1000).toFixed(1)} µs per path`);
  const match = matchOperation(loaded, 'GET', '/repos/octokit/rest.js');
  const body = Object.fromEntries(Object.keys((loaded.doc.components.schemas['full-repository'] as { properties: object }).properties).map((key) => [key, null]));
  began = performance.now();
  for (let i = 0; i < 200; i++) checkResponse(loaded.doc, 'GET', match.operation!.pathTemplate, { status: 200, contentType: 'application/json', body });
  console.log(`  checkResponse (GET /repos/{owner}/{repo}, ${Object.keys(body).length} fields): ${((performance.now() - began) / 200).toFixed(2)} ms per response`);
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${process.arch}`);
  await memory();
  await github();
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
