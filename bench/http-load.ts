/**
 * `npm run bench:http`: the load figures of issue 19 (Scale). Two `serve --http` instances behind nginx
 * (deploy/nginx.conf), a real authorization server (oidc-provider, harness/authorization-server.ts) issuing one
 * access token per caller, a tenant credentials file and an entitlements file naming one stand-in API. `CALLERS`
 * callers, each with its own client and token (a distinct verified subject), call `probe` at once over the 2026-07-28
 * stateless era, `ROUNDS` calls each. Printed: throughput, p50/p99 latency, each instance's peak RSS, whether every
 * request got exactly one answer under its own id, and whether every tool call has its audit line. Then the same
 * run again with instance b killed (SIGKILL) when half the calls have answered, and what the clients saw, by outcome.
 * Prints figures; asserts nothing. Needs nginx (Debian package).
 *
 * Flags: `--callers N` (default 1000), `--rounds N` (default 3).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { start } from '../stand-in-api.ts';
import { nodeArgsFor } from '../harness/stdio-client.ts';
import { startAuthorizationServer } from '../harness/authorization-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLERS = flag('--callers', 1000);
const ROUNDS = flag('--rounds', 3);
const AUDIENCE = 'http://127.0.0.1:8787/mcp';
const KEY = 'load-upstream-key-6Tq9Wm2';
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Instance = { name: string; child: ChildProcessWithoutNullStreams; port: number; audit: string };

async function spawnInstance(name: string, env: Record<string, string>, dir: string): Promise<Instance> {
  const audit = join(dir, `audit-${name}.jsonl`);
  const child = spawn(process.execPath, [...nodeArgsFor(`${ROOT}probe-server.ts`), 'serve', '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env: { ...env, PROBE_HTTP_INSTANCE: name, PROBE_AUDIT_LOG: audit, PROBE_LOG_LEVEL: 'error' },
  });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = / port=(\d+)/.exec(stderr);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`instance ${name} exited ${code}: ${stderr}`)));
  });
  // Readiness: the check worker takes jobs.
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { name, child, port, audit };
}

/** The peak resident set of a live process, in MiB (Linux `VmHWM`), or undefined once it has exited. */
function peakRssMb(pid: number | undefined): number | undefined {
  try {
    const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return found ? Math.round(Number(found[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

type Outcome = { ok: boolean; label: string; ms: number };

/** One stateless-era tools/call of probe through nginx; never rejects. */
function call(agent: Agent, host: string, token: string, id: number, path: string): Promise<Outcome> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'probe',
      arguments: { path },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const began = performance.now();
  const [hostname, port] = host.split(':');
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        hostname,
        port: Number(port),
        path: '/mcp',
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-tenant': 't',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'probe',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const ms = performance.now() - began;
          if (response.statusCode !== 200) return resolve({ ok: false, label: `HTTP ${response.statusCode}`, ms });
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              id?: unknown;
              result?: { isError?: boolean; structuredContent?: { status?: number } };
            };
            if (answer.id !== id) return resolve({ ok: false, label: 'answer under another id', ms });
            if (answer.result?.isError) return resolve({ ok: false, label: 'isError result', ms });
            resolve({ ok: true, label: `probe status ${answer.result?.structuredContent?.status}`, ms });
          } catch {
            resolve({ ok: false, label: 'unparsable answer', ms });
          }
        });
        response.on('error', () => resolve({ ok: false, label: 'response cut', ms: performance.now() - began }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ ok: false, label: `connection ${error.code ?? 'error'}`, ms: performance.now() - began }),
    );
    req.end(body);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN;
}

async function main(): Promise<void> {
  if (!NGINX) {
    console.log('bench:http needs nginx (Debian package nginx); not run.');
    return;
  }
  console.log(
    `bench:http: ${CALLERS} callers x ${ROUNDS} calls, two instances behind nginx; Node ${process.version}, ${cpus().length} cores, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'probe-load-'));
  const clients = Array.from({ length: CALLERS }, (_, index) => `agent-${String(index).padStart(4, '0')}`);
  const issuer = await startAuthorizationServer({ audience: AUDIENCE, clients });
  const api = await start({ key: KEY });
  const tokensBegan = performance.now();
  const tokens: string[] = [];
  for (const client of clients) tokens.push(await issuer.token([], { client }));
  console.log(
    `  tokens: ${tokens.length} distinct subjects issued in ${Math.round(performance.now() - tokensBegan)} ms`,
  );
  writeFileSync(join(dir, 'tenants.json'), JSON.stringify({ t: { baseUrl: api.url, apiKey: KEY } }));
  writeFileSync(join(dir, 'entitlements.json'), JSON.stringify(Object.fromEntries(clients.map((c) => [c, ['t']]))));
  const proxyPort = await freePort();
  const host = `127.0.0.1:${proxyPort}`;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    API_BASE_URL: api.url,
    OPENAPI_DOC: `${ROOT}openapi.json`,
    AUTH_ISSUER: issuer.issuer,
    AUTH_AUDIENCE: AUDIENCE,
    TENANT_KEYS_FILE: join(dir, 'tenants.json'),
    ENTITLEMENTS_FILE: join(dir, 'entitlements.json'),
    PROBE_HTTP_ALLOWED_HOSTS: host,
    PROBE_RATE_PER_MIN: '100000',
    PROBE_RATE_PER_TENANT_PER_MIN: '1000000',
    PROBE_CONCURRENCY: '64',
    PROBE_HTTP_MAX_CONNECTIONS: '4096',
    PROBE_CACHE_DIR: 'off',
  };
  let instances = [await spawnInstance('a', env, dir), await spawnInstance('b', env, dir)];
  const nginx = await startNginx(dir, instances, host);
  try {
    await run('steady', instances, host, tokens, undefined);
    for (const instance of instances) instance.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(join(dir, 'audit-a.jsonl'), { force: true });
    rmSync(join(dir, 'audit-b.jsonl'), { force: true });
    instances = [await spawnInstance('a', env, dir), await spawnInstance('b', env, dir)];
    await restartNginx(nginx, dir, instances, host);
    await run('instance b killed halfway', instances, host, tokens, instances[1]!);
  } finally {
    for (const instance of instances) instance.child.kill('SIGTERM');
    nginx.child.kill('SIGTERM');
    await Promise.all([api.close(), issuer.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

type Nginx = { child: ChildProcess };

function nginxConfig(instances: Instance[], host: string): string {
  return readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8')
    .replaceAll('127.0.0.1:8787', `127.0.0.1:${instances[0]!.port}`)
    .replaceAll('127.0.0.1:8788', `127.0.0.1:${instances[1]!.port}`)
    .replaceAll('127.0.0.1:8080', host)
    .replace('worker_connections 1024;', 'worker_connections 8192;');
}

async function startNginx(dir: string, instances: Instance[], host: string): Promise<Nginx> {
  mkdirSync(join(dir, 'temp'), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(instances, host));
  const child = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}`);
    if (
      await fetch(`http://${host}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child };
}

async function restartNginx(nginx: Nginx, dir: string, instances: Instance[], host: string): Promise<void> {
  const exited = new Promise((resolve) => nginx.child.once('exit', resolve));
  nginx.child.kill('SIGTERM');
  await exited;
  nginx.child = (await startNginx(dir, instances, host)).child;
}

async function run(
  label: string,
  instances: Instance[],
  host: string,
  tokens: string[],
  victim: Instance | undefined,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: tokens.length });
  const total = tokens.length * ROUNDS;
  const outcomes: Outcome[] = [];
  let killedAt: number | undefined;
  const began = performance.now();
  let nextId = 1;
  await Promise.all(
    tokens.map(async (token, caller) => {
      for (let round = 0; round < ROUNDS; round++) {
        const outcome = await call(agent, host, token, nextId++, `/meters/mtr_${(caller % 3) + 1}`);
        outcomes.push(outcome);
        if (victim && killedAt === undefined && outcomes.length >= total / 2) {
          killedAt = outcomes.length;
          victim.child.kill('SIGKILL');
        }
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  agent.destroy();
  const latencies = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  const byLabel = new Map<string, number>();
  for (const outcome of outcomes) byLabel.set(outcome.label, (byLabel.get(outcome.label) ?? 0) + 1);
  const audited = instances
    .map((instance) => (existsSync(instance.audit) ? readFileSync(instance.audit, 'utf8').trim().split('\n') : []))
    .flat()
    .filter((line) => line.includes('"tool":"probe"')).length;
  const okCount = outcomes.filter((outcome) => outcome.ok).length;
  console.log(`\n  ${label}:`);
  console.log(
    `    requests: ${total}, answers: ${outcomes.length} (${outcomes.length === total ? 'one per request' : 'MISSING'})`,
  );
  console.log(`    throughput: ${(outcomes.length / seconds).toFixed(0)} calls/s over ${seconds.toFixed(1)} s`);
  console.log(
    `    latency: p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms`,
  );
  console.log(
    `    peak RSS: ${instances.map((instance) => `${instance.name} ${peakRssMb(instance.child.pid) ?? 'exited'}${peakRssMb(instance.child.pid) ? ' MiB' : ''}`).join(', ')}`,
  );
  console.log(`    outcomes: ${[...byLabel].map(([name, count]) => `${name} ${count}`).join(', ')}`);
  console.log(
    `    audit lines for probe: ${audited}; successful calls: ${okCount}${victim ? ` (b killed after ${killedAt} answers; its audit file keeps what it wrote)` : ''}`,
  );
}

await main();
