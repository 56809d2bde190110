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
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { start } from '../stand-in-api.ts';
import { startAuthorizationServer } from '../harness/authorization-server.ts';
import {
  NGINX,
  freePort,
  spawnHttpServer,
  startNginx,
  statelessProbe,
  teamEnvironment,
} from '../harness/http-server.ts';
import type { HttpServerProcess, NginxProcess } from '../harness/http-server.ts';

const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLERS = flag('--callers', 1000);
const ROUNDS = flag('--rounds', 3);
const AUDIENCE = 'http://127.0.0.1:8787/mcp';
const KEY = 'load-upstream-key-6Tq9Wm2';

type Instance = HttpServerProcess & { name: string; audit: string };

/** Spawns instance `name` with its own audit file in `dir`, and waits until it is ready (the check worker takes jobs). */
async function spawnInstance(name: string, env: Record<string, string>, dir: string): Promise<Instance> {
  const audit = join(dir, `audit-${name}.jsonl`);
  const server = await spawnHttpServer(
    { ...env, PROBE_HTTP_INSTANCE: name, PROBE_AUDIT_LOG: audit, PROBE_LOG_LEVEL: 'error' },
    { ready: true },
  );
  return { ...server, name, audit };
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
  const { headers, body } = statelessProbe(path, { id });
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
          ...headers,
          authorization: `Bearer ${token}`,
          'x-tenant': 't',
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
  const host = `127.0.0.1:${await freePort()}`;
  const env = teamEnvironment(dir, issuer.issuer, AUDIENCE, {
    tenants: { t: { baseUrl: api.url, apiKey: KEY } },
    entitlements: Object.fromEntries(clients.map((client) => [client, ['t']])),
    more: {
      HOME: process.env.HOME ?? '',
      PROBE_HTTP_ALLOWED_HOSTS: host,
      PROBE_RATE_PER_MIN: '100000',
      PROBE_RATE_PER_TENANT_PER_MIN: '1000000',
      PROBE_CONCURRENCY: '64',
      PROBE_HTTP_MAX_CONNECTIONS: '4096',
    },
  });
  let instances = [await spawnInstance('a', env, dir), await spawnInstance('b', env, dir)];
  let nginx = await startProxy(dir, instances, host);
  try {
    await run('steady', instances, host, tokens, undefined);
    await Promise.all(instances.map((instance) => instance.stop()));
    rmSync(join(dir, 'audit-a.jsonl'), { force: true });
    rmSync(join(dir, 'audit-b.jsonl'), { force: true });
    instances = [await spawnInstance('a', env, dir), await spawnInstance('b', env, dir)];
    await nginx.stop();
    nginx = await startProxy(dir, instances, host);
    await run('instance b killed halfway', instances, host, tokens, instances[1]!);
  } finally {
    await Promise.all([...instances.map((instance) => instance.stop()), nginx.stop()]);
    await Promise.all([api.close(), issuer.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** nginx in front of both instances, with room for every caller's connection. */
function startProxy(dir: string, instances: Instance[], host: string): Promise<NginxProcess> {
  return startNginx({
    prefix: dir,
    ports: [instances[0]!.port, instances[1]!.port],
    host,
    replace: [
      ['worker_connections 1024;', 'worker_connections 8192;'],
      // Every caller connects from 127.0.0.1 here: the per-address limit would stop all but 32.
      ['limit_conn probe_per_address 32;', 'limit_conn probe_per_address 8192;'],
    ],
  });
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
