/**
 * CI only (`.ci/run`, after the real clients): the MCP conformance suite (`@modelcontextprotocol/conformance`, its
 * active server scenarios) run natively against the Streamable HTTP transport of the installed bin
 * (`openapi-probe serve --http 127.0.0.1:0`, stand-in API behind it), with the suite's own baseline,
 * `.ci/conformance-expected-failures.yml`, which lists each scenario expected to fail and why (issue 19). The suite
 * fails the step on any failure not listed there and on a listed one that now passes. Scenarios of the 2026-07-28
 * revision are run too when the suite has any (`--spec-version 2026-07-28`, else `draft`); the count is printed.
 * Run with Node >= 22: `node scripts/conformance-http.ts --bin PATH --clients DIR` (DIR holds the installed suite).
 * Exits with the suite's code, or 1 when the server does not start.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { start } from '../stand-in-api.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { bin: { type: 'string' }, clients: { type: 'string' } } });
if (!values.bin || !values.clients) {
  process.stderr.write('usage: node scripts/conformance-http.ts --bin PATH --clients DIR\n');
  process.exit(2);
}
const SUITE = join(values.clients, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = join(ROOT, '.ci', 'conformance-expected-failures.yml');
const KEY = 'conformance-http-key';
const standIn = await start({ key: KEY });
const server = spawn(values.bin, ['serve', '--http', '127.0.0.1:0'], {
  env: {
    PATH: process.env.PATH ?? '',
    API_BASE_URL: standIn.url,
    API_KEY: KEY,
    OPENAPI_DOC: join(ROOT, 'openapi.json'),
    // The suite opens a session per scenario and ends none of them.
    PROBE_HTTP_MAX_SESSIONS: '1000',
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
const url = await new Promise<string | undefined>((resolve) => {
  server.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const found = / url=(http:\/\/\S+\/mcp) /.exec(stderr);
    if (found) resolve(found[1]);
  });
  server.once('exit', () => resolve(undefined));
});

/** Runs the suite with `args`; its output and exit code, never throwing. */
async function suite(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr: err } = await promisify(execFile)(process.execPath, [SUITE, ...args], {
      encoding: 'utf8',
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: stdout + err };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof failure.code === 'number' ? failure.code : 1,
      out: (failure.stdout ?? '') + (failure.stderr ?? ''),
    };
  }
}

let code = 1;
try {
  if (!url) throw new Error(`the server did not start: ${stderr.slice(-600)}`);
  const legacy = await suite(['server', '--url', url, '--expected-failures', BASELINE]);
  const summary = legacy.out.slice(legacy.out.indexOf('=== SUMMARY ==='));
  process.stdout.write(`${summary.trim()}\n`);
  code = legacy.code;
  // The 2026-07-28 revision, under its name or as the suite's `draft`, when the suite has scenarios for it.
  for (const version of ['2026-07-28', 'draft']) {
    const listed = await suite(['list', '--server', '--spec-version', version]);
    const names = [...listed.out.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    process.stdout.write(
      `conformance server scenarios for ${version}: ${names.length}${listed.code ? ` (${listed.out.trim().split('\n')[0]})` : ''}\n`,
    );
    if (names.length === 0) continue;
    const modern = await suite(['server', '--url', url, '--spec-version', version, '--expected-failures', BASELINE]);
    process.stdout.write(`${modern.out.slice(modern.out.indexOf('=== SUMMARY ===')).trim()}\n`);
    code ||= modern.code;
    break;
  }
} catch (error) {
  process.stdout.write(`FAIL conformance over HTTP: ${(error as Error).message}\n`);
  code = 1;
} finally {
  server.kill('SIGTERM');
  await standIn.close();
}
process.stdout.write(`conformance over HTTP: ${code === 0 ? 'baseline check passed' : 'FAILED'}\n`);
process.exit(code);
