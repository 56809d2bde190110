/**
 * Drivers for tests and the bench that run the HTTP transport as a user does: `serve --http 127.0.0.1:0` spawned
 * from the clone (its bound port read from the `event=http.listen` line on stderr), a wait until an address answers,
 * and nginx started on 127.0.0.1 with `deploy/nginx.conf`, its addresses replaced. Used by tests/http-nginx.test.ts,
 * tests/http-auth-chain.test.ts, tests/http-limits.test.ts and bench/http-load.ts.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from './stdio-client.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The nginx binary: the Debian package's path, else the first on PATH; undefined when none is installed. */
export const NGINX = [
  '/usr/sbin/nginx',
  ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nginx')),
].find((path) => existsSync(path));

/** A port free on 127.0.0.1 now (for a listen address that must be written into a configuration). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A spawned `serve --http` process. */
export type HttpServerProcess = {
  child: ChildProcessWithoutNullStreams;
  /** The bound port, from `event=http.listen`. */
  port: number;
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Everything it wrote to stderr so far. */
  stderr: () => string;
  /** SIGTERM, resolved once it has exited (at once when it already has). */
  stop: () => Promise<void>;
};

/**
 * Spawns `probe-server.ts serve --http 127.0.0.1:0` with exactly `env` (nothing of this process's environment but
 * what `env` names), from the project root, and resolves once stderr names the bound port.
 * @param options.ready Also wait until `/readyz` answers 200 (the document loaded, the check worker up).
 * @throws Error with its exit code and stderr when it exits before listening.
 */
export async function spawnHttpServer(
  env: Record<string, string>,
  options: { ready?: boolean } = {},
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [...nodeArgsFor(`${ROOT}probe-server.ts`), 'serve', '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env,
  });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = / url=http:\/\/127\.0\.0\.1:\d+\/mcp port=(\d+)/.exec(stderr);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  if (options.ready) await waitUntilAnswered(`http://127.0.0.1:${port}/readyz`, child);
  return { child, port, url: `http://127.0.0.1:${port}/mcp`, stderr: () => stderr, stop: () => stopChild(child) };
}

/**
 * Asks `url` every 50 ms until it answers 2xx; used where a server says nothing once it is ready.
 * @throws Error when `child` exits first, or after 2,400 asks (2 minutes and more), naming the last answer.
 */
export async function waitUntilAnswered(url: string, child: ChildProcess): Promise<void> {
  let last = 'no answer';
  for (let ask = 0; ask < 2400; ask++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    const status = await fetch(url).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => undefined,
    );
    if (status !== undefined && status >= 200 && status < 300) return;
    if (status !== undefined) last = `status ${status}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} did not answer 2xx in 2,400 asks (last: ${last})`);
}

/**
 * The environment of a team server (docs/deploy.md) whose files are in `dir`: `tenants` written to `<dir>/tenants.json` (TENANT_KEYS_FILE)
 * and `entitlements` to `<dir>/entitlements.json` (ENTITLEMENTS_FILE), tokens from `issuer` for `audience`, the
 * project's openapi.json, API_BASE_URL the first tenant's `baseUrl`, no document cache, and PATH; `more` added last.
 */
export function teamEnvironment(
  dir: string,
  issuer: string,
  audience: string,
  options: {
    tenants: Record<string, { baseUrl: string; apiKey: string }>;
    entitlements: Record<string, string[]>;
    more?: Record<string, string>;
  },
): Record<string, string> {
  writeFileSync(join(dir, 'tenants.json'), JSON.stringify(options.tenants));
  writeFileSync(join(dir, 'entitlements.json'), JSON.stringify(options.entitlements));
  return {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: Object.values(options.tenants)[0]!.baseUrl,
    OPENAPI_DOC: `${ROOT}openapi.json`,
    AUTH_ISSUER: issuer,
    AUTH_AUDIENCE: audience,
    TENANT_KEYS_FILE: join(dir, 'tenants.json'),
    ENTITLEMENTS_FILE: join(dir, 'entitlements.json'),
    PROBE_CACHE_DIR: 'off',
    ...options.more,
  };
}

/**
 * A stateless-era (MCP 2026-07-28) `tools/call` of `probe` for `path`, with the three headers that era asks for
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; Transports) beside `Content-Type` and `Accept`.
 * @param options.id The JSON-RPC id; default 1.
 * @param options.meta More `_meta` members (e.g. `traceparent`).
 */
export function statelessProbe(
  path: string,
  options: { id?: number; meta?: Record<string, unknown> } = {},
): { headers: Record<string, string>; body: string } {
  const version = '2026-07-28';
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': 'tools/call',
      'mcp-name': 'probe',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method: 'tools/call',
      params: {
        name: 'probe',
        arguments: { path },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientCapabilities': {},
          ...options.meta,
        },
      },
    }),
  };
}

/** Sends SIGTERM and resolves once the process has exited; at once when it already has. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A running nginx (`startNginx`). */
export type NginxProcess = {
  child: ChildProcess;
  /** What it wrote to stderr (its `error_log`). */
  log: () => string;
  stop: () => Promise<void>;
};

/**
 * Starts nginx in the foreground with `deploy/nginx.conf`, its addresses replaced: the instances `127.0.0.1:8787` and
 * `127.0.0.1:8788` by `ports`, its own listen `127.0.0.1:8080` by `host`; `replace` rewrites more of the text
 * (e.g. `worker_connections`). Its prefix is `prefix` (its configuration and temporary paths are written there).
 * Resolves once `http://<host>/healthz` answers through it.
 * @throws Error with nginx's stderr when it exits first.
 */
export async function startNginx(options: {
  prefix: string;
  ports: [number, number];
  host: string;
  replace?: [string, string][];
}): Promise<NginxProcess> {
  let config = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8')
    .replaceAll('127.0.0.1:8787', `127.0.0.1:${options.ports[0]}`)
    .replaceAll('127.0.0.1:8788', `127.0.0.1:${options.ports[1]}`)
    .replaceAll('127.0.0.1:8080', options.host);
  for (const [from, to] of options.replace ?? []) config = config.replaceAll(from, to);
  mkdirSync(join(options.prefix, 'temp'), { recursive: true });
  writeFileSync(join(options.prefix, 'nginx.conf'), config);
  const child = spawn(NGINX!, ['-p', options.prefix, '-c', join(options.prefix, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  try {
    // nginx says nothing once it listens: ask until it answers.
    await waitUntilAnswered(`http://${options.host}/healthz`, child);
  } catch (error) {
    throw new Error(`nginx: ${(error as Error).message}: ${log}`);
  }
  return { child, log: () => log, stop: () => stopChild(child) };
}
