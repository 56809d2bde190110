/**
 * CI only (`.ci/run`): the installed `openapi-probe` bin (from the packed tarball) driven by real MCP
 * clients against the stand-in API on 127.0.0.1: the official SDK client, the MCP Inspector's CLI mode
 * v1 (`@modelcontextprotocol/inspector-cli`) and v2 (`@modelcontextprotocol/inspector`), and the
 * `server-initialize`, `ping` and `tools-list` scenarios of `@modelcontextprotocol/conformance` through
 * `conformance-bridge.ts`. The clients are installed by `.ci/run` into a temp folder, not as dev
 * dependencies (they carry a Windows-only optional dependency the registry lacks).
 * Run with Node >= 22.19: `node scripts/real-clients.ts --bin PATH --clients DIR`.
 * Prints one PASS or FAIL line per check and ends with `N passed, N failed`; exits 1 on any failure.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { start } from '../stand-in-api.ts';
import { startBridge } from './conformance-bridge.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { bin: { type: 'string' }, clients: { type: 'string' } } });
if (!values.bin || !values.clients) {
  process.stderr.write('usage: node scripts/real-clients.ts --bin PATH --clients DIR\n');
  process.exit(2);
}
const BIN = values.bin;
const MODULES = join(values.clients, 'node_modules', '@modelcontextprotocol');
const KEY = 'real-clients-key';
const standIn = await start({ key: KEY });
const serverEnv = { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: join(ROOT, 'openapi.json') };
const scratch = mkdtempSync(join(tmpdir(), 'openapi-probe-clients-'));
let passed = 0;
let failed = 0;

async function verify(name: string, body: () => Promise<string> | string): Promise<void> {
  try {
    const detail = await body();
    passed++;
    process.stdout.write(`PASS ${name}: ${detail}\n`);
  } catch (error) {
    failed++;
    process.stdout.write(`FAIL ${name}: ${(error as Error).message}\n`);
  }
}

/** The first JSON object in a client's stdout (v1 prints a deprecation banner before it). */
function jsonOut(stdout: string): Record<string, any> {
  const at = stdout.indexOf('{');
  if (at === -1) throw new Error(`no JSON in output: ${stdout.slice(0, 300)}`);
  return JSON.parse(stdout.slice(at));
}

/** What a probe of /meters/mtr_1 must show: 200, checked against getMeter, matching, one undocumented field. */
function probeSummary(result: Record<string, any>): string {
  const s = result.structuredContent;
  const summary = `status ${s?.status}, operation ${s?.operation?.operationId}, matchesContract ${s?.matchesContract}, findings ${s?.findings?.map((f: { path: string }) => f.path).join(' ')}`;
  if (summary !== 'status 200, operation getMeter, matchesContract true, findings $.firmwareVersion')
    throw new Error(summary);
  return summary;
}

function toolNames(result: Record<string, any>): string {
  const names = (result.tools as { name: string }[]).map((tool) => tool.name);
  if (!names.includes('probe')) throw new Error(`tools: ${names.join(', ')}`);
  return `tools ${names.join(', ')}`;
}

/** Runs a client to its end, asynchronously: the stand-in and the bridge answer from this same process. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  try {
    return (await promisify(execFile)(command, args, { cwd, env, encoding: 'utf8', timeout: 60_000 })).stdout;
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    throw new Error(`exit ${String(failure.code)}: ${(failure.stderr || failure.stdout || '').slice(-600)}`);
  }
}

await verify('bin --version', async () => {
  const out = (await run(BIN, ['--version'], scratch)).trim();
  if (!/^openapi-probe \d+\.\d+\.\d+$/.test(out)) throw new Error(out);
  return out;
});

await verify('SDK client (@modelcontextprotocol/sdk) via the packed bin', async () => {
  const transport = new StdioClientTransport({
    command: BIN,
    args: [],
    env: { PATH: process.env.PATH ?? '', ...serverEnv },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'real-clients', version: '1.0.0' });
  await client.connect(transport);
  try {
    const listed = toolNames(await client.listTools());
    return `${listed}; ${probeSummary(await client.callTool({ name: 'probe', arguments: { path: '/meters/mtr_1' } }))}`;
  } finally {
    await client.close();
  }
});

const envFlags = Object.entries(serverEnv).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
const inspectors = [
  // v1 finds its own files only when started from its build/ folder.
  {
    name: 'MCP Inspector v1 CLI (@modelcontextprotocol/inspector-cli)',
    cwd: join(MODULES, 'inspector-cli', 'build'),
    entry: 'cli.js',
  },
  {
    name: 'MCP Inspector v2 CLI (@modelcontextprotocol/inspector)',
    cwd: scratch,
    entry: join(MODULES, 'inspector', 'clients', 'launcher', 'build', 'index.js'),
  },
];
for (const inspector of inspectors) {
  const env = { ...process.env, MCP_CATALOG_PATH: join(scratch, 'catalog.json') };
  const base = [inspector.entry, '--cli', ...envFlags, BIN];
  await verify(`${inspector.name} tools/list`, async () =>
    toolNames(jsonOut(await run(process.execPath, [...base, '--method', 'tools/list'], inspector.cwd, env))),
  );
  await verify(`${inspector.name} tools/call probe`, async () =>
    probeSummary(
      jsonOut(
        await run(
          process.execPath,
          [...base, '--method', 'tools/call', '--tool-name', 'probe', '--tool-arg', 'path=/meters/mtr_1'],
          inspector.cwd,
          env,
        ),
      ),
    ),
  );
}

const bridge = await startBridge({ command: BIN, args: [], env: { PATH: process.env.PATH ?? '', ...serverEnv } });
try {
  for (const scenario of ['server-initialize', 'ping', 'tools-list']) {
    await verify(`conformance ${scenario} (stdio via the HTTP bridge)`, async () => {
      const out = await run(
        process.execPath,
        [join(MODULES, 'conformance', 'dist', 'index.js'), 'server', '--url', bridge.url, '--scenario', scenario],
        scratch,
      );
      const line = /Passed: \d+\/\d+, \d+ failed, \d+ warnings/.exec(out)?.[0];
      if (!line || !/, 0 failed/.test(line)) throw new Error(out.slice(-600));
      return line;
    });
  }
} finally {
  await bridge.close();
  await standIn.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`real clients: ${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
