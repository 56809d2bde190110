/**
 * CI only (`.ci/run`, after the real clients): the MCP conformance suite run natively against the Streamable HTTP
 * transport of the installed bin (`openapi-probe serve --http 127.0.0.1:0`, stand-in API behind it), for both live
 * revisions (issue 19):
 * - 2025-11-25: `@modelcontextprotocol/conformance` 0.1.16 (in `--clients`), its active server scenarios, with the
 *   suite's own scenario-level baseline `.ci/conformance-expected-failures.yml`;
 * - 2026-07-28: the first suite with that revision's scenarios (0.2.0-alpha.12, in `--next`), exactly the scenarios
 *   the revision requires (`--requirements 2026-07-28`), judged check by check against
 *   `.ci/conformance-2026-07-28-expected.json`, which lists every check expected to fail with why. A failing check
 *   that is not listed fails the step, and so does a listed check that passes (the list must shrink).
 * Run with Node >= 22: `node scripts/conformance-http.ts --bin PATH --clients DIR --next DIR`.
 * Exits 0 when both judgements hold, 1 otherwise or when the server does not start.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { start } from '../stand-in-api.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { bin: { type: 'string' }, clients: { type: 'string' }, next: { type: 'string' } },
});
if (!values.bin || !values.clients || !values.next) {
  process.stderr.write('usage: node scripts/conformance-http.ts --bin PATH --clients DIR --next DIR\n');
  process.exit(2);
}
const suiteIn = (folder: string) =>
  join(folder, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SUITE = suiteIn(values.clients);
const NEXT_SUITE = suiteIn(values.next);
const BASELINE = join(ROOT, '.ci', 'conformance-expected-failures.yml');
const MODERN_EXPECTED = join(ROOT, '.ci', 'conformance-2026-07-28-expected.json');
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

/** Runs the suite at `entry` (default: 0.1.16) with `args`; its output and exit code, never throwing. */
async function suite(args: string[], entry = SUITE): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr: err } = await promisify(execFile)(process.execPath, [entry, ...args], {
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
  const modern = await modernRevision(url);
  code = legacy.code || modern;
} catch (error) {
  process.stdout.write(`FAIL conformance over HTTP: ${(error as Error).message}\n`);
  code = 1;
} finally {
  server.kill('SIGTERM');
  await standIn.close();
}
process.stdout.write(`conformance over HTTP: ${code === 0 ? 'baseline check passed' : 'FAILED'}\n`);
process.exit(code);

/**
 * Runs the scenarios MCP 2026-07-28 requires against `url` with the next suite and judges each failing check against
 * the expected list; prints one line per scenario and every unexpected failure or stale expectation.
 * @returns 0 when every failing check is expected and every expected one fails, else 1.
 */
async function modernRevision(url: string): Promise<number> {
  const expected = JSON.parse(readFileSync(MODERN_EXPECTED, 'utf8')) as {
    expected: Record<string, { why: string; checks: string[] }>;
  };
  const listed = await suite(['list', '--server', '--requirements', '2026-07-28'], NEXT_SUITE);
  const section = listed.out.slice(listed.out.indexOf('Server scenarios'), listed.out.indexOf('Client scenarios'));
  const scored = [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
  if (scored.length === 0) {
    process.stdout.write(`FAIL conformance 2026-07-28: the suite lists no server scenarios\n${listed.out}\n`);
    return 1;
  }
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  try {
    await suite(['server', '--url', url, '--requirements', '2026-07-28', '-o', out], NEXT_SUITE);
    // One folder per scenario run: `server-<scenario>-<timestamp>/checks.json`.
    const results = new Map<string, { id: string; status: string; errorMessage?: string }[]>();
    for (const folder of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(folder)?.[1];
      if (scenario) results.set(scenario, JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')));
    }
    const problems: string[] = [];
    let passed = 0;
    let failedAsExpected = 0;
    for (const scenario of scored) {
      const checks = results.get(scenario);
      if (!checks) {
        problems.push(`${scenario}: did not run`);
        continue;
      }
      const failing = new Set(checks.filter((check) => check.status === 'FAILURE').map((check) => check.id));
      const allowed = new Set(expected.expected[scenario]?.checks ?? []);
      for (const check of checks.filter((one) => one.status === 'FAILURE' && !allowed.has(one.id)))
        problems.push(`${scenario}: ${check.id} fails: ${(check.errorMessage ?? '').slice(0, 300)}`);
      for (const id of allowed)
        if (!failing.has(id)) problems.push(`${scenario}: ${id} is listed as failing but did not fail; remove it`);
      passed += checks.filter((check) => check.status === 'SUCCESS').length;
      failedAsExpected += [...failing].filter((id) => allowed.has(id)).length;
      process.stdout.write(
        `2026-07-28 ${failing.size === 0 ? 'pass' : [...failing].every((id) => allowed.has(id)) ? 'expected failures' : 'FAIL'}: ${scenario} (${checks.filter((check) => check.status === 'SUCCESS').length} passed, ${failing.size} failed)\n`,
      );
    }
    for (const scenario of Object.keys(expected.expected))
      if (!scored.includes(scenario)) problems.push(`${scenario}: listed, but not a scenario 2026-07-28 requires`);
    process.stdout.write(
      `conformance 2026-07-28: ${scored.length} required server scenarios, ${passed} checks passed, ${failedAsExpected} failed as listed, ${problems.length} problems\n`,
    );
    for (const problem of problems) process.stdout.write(`FAIL conformance 2026-07-28: ${problem}\n`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
