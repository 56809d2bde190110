/**
 * The single file a user copies: built exactly as `npm run build` does (scripts/build.ts `buildSingleFile`: the server
 * and its deferred part, carried as base64 in a comment), then copied ALONE into an empty directory
 * (no package.json, no node_modules, no openapi.json) and run with plain `node` (no tsx), speaking
 * newline-delimited JSON-RPC (MCP 2025-11-25, Transports, stdio).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSingleFile } from '../scripts/build.ts';
import { DEFERRED_MARK } from '../src/runtime/deferred.ts';
import { compileCacheAvailable } from '../src/runtime/compile-cache.ts';
import { start, METERS } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const DOCUMENT = `${HERE}openapi.json`;
const KEY = 'bundle-test-key';
const PACKAGE = JSON.parse(readFileSync(`${HERE}package.json`, 'utf8')) as { name: string; version: string };

/** Every module specifier in an ES module text: `from "x"`, bare `import "x"`, `import("x")`, `require("x")`. */
function moduleSpecifiers(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.add(match[1]!);
  return [...found].sort();
}

type Run = {
  messages: Record<string, any>[];
  stdoutLines: string[];
  stderr: string;
  exit: { code: number | null; signal: NodeJS.Signals | null };
};

/**
 * Runs `node <file>` with only the given environment, sends `initialize`, `notifications/initialized`
 * and one `tools/call`, each after the previous answer, closes stdin and waits for the exit.
 * Gives up after `timeoutMs` (kills the child) so a silent server fails the test instead of hanging it.
 */
async function runSession(
  file: string,
  cwd: string,
  env: Record<string, string>,
  call: Record<string, unknown>,
  timeoutMs = 10000,
): Promise<Run> {
  const child = spawn(process.execPath, [file], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdoutLines: string[] = [];
  const messages: Record<string, any>[] = [];
  let stderr = '';
  let pending = '';
  const waiters = new Map<number, (message: Record<string, any>) => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      stdoutLines.push(line);
      const message = JSON.parse(line);
      messages.push(message);
      waiters.get(message.id)?.(message);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<Run['exit']>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  exit.finally(() => clearTimeout(timer));
  const request = (id: number, method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      waiters.set(id, resolve);
      exit.then((ended) =>
        reject(new Error(`server exited (${JSON.stringify(ended)}) before answering ${method}; stderr: ${stderr}`)),
      );
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  try {
    await request(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bundle-test', version: '0.0.0' },
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    await request(1, 'tools/call', call);
  } finally {
    child.stdin.end();
  }
  return { messages, stdoutLines, stderr, exit: await exit };
}

describe('dist/probe-server.mjs, the single-file build', () => {
  let standIn: StandIn;
  let buildDir: string;
  let runDir: string;
  let bundle: string;
  let copied: string;
  let serverInputs: string[];

  before(async () => {
    standIn = await start({ key: KEY });
    buildDir = mkdtempSync(join(tmpdir(), 'openapi-probe-build-'));
    runDir = mkdtempSync(join(tmpdir(), 'openapi-probe-copy-'));
    bundle = join(buildDir, 'probe-server.mjs');
    serverInputs = (await buildSingleFile(bundle, { logLevel: 'silent' })).serverInputs;
    copied = join(runDir, 'probe-server.mjs');
    copyFileSync(bundle, copied);
  });

  after(async () => {
    await standIn?.close();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
    if (runDir) rmSync(runDir, { recursive: true, force: true });
  });

  test('imports node: modules only', (t) => {
    const code = readFileSync(bundle, 'utf8');
    const specifiers = moduleSpecifiers(code);
    t.diagnostic(`bundle: ${statSync(bundle).size} bytes; imports: ${specifiers.join(', ')}`);
    assert.ok(specifiers.includes('node:fs'), `expected node:fs among ${specifiers.join(', ')}`);
    assert.deepEqual(
      specifiers.filter((specifier) => !specifier.startsWith('node:')),
      [],
    );
  });

  test('carries a deferred part that imports node: modules only', () => {
    const text = readFileSync(bundle, 'latin1');
    const at = text.lastIndexOf(DEFERRED_MARK);
    assert.ok(at > 0, 'no deferred part');
    const code = Buffer.from(text.slice(at + DEFERRED_MARK.length, text.indexOf(' *' + '/', at)), 'base64').toString();
    assert.match(code, /function runWorker\(/);
    assert.deepEqual(
      moduleSpecifiers(code).filter((specifier) => !specifier.startsWith('node:')),
      [],
    );
  });

  test('compiles on the main thread none of the jobs, the contract or the document but the modules of values', () => {
    // What the server's part may hold of the layers whose code runs in the check worker (issue 20).
    assert.deepEqual(
      serverInputs.filter((file) => /^src\/(jobs|contract|document)\//.test(file)),
      [
        'src/contract/search-limits.ts',
        'src/document/demo-examples.ts',
        // The validator's, for the tools' argument checks (src/mcp/arguments.ts).
        'src/document/refs.ts',
        'src/jobs/answers.ts',
        'src/jobs/check-worker.ts',
      ],
    );
  });

  test('a copy without its deferred part answers a probe unchecked, naming the rebuild', async () => {
    const cut = join(runDir, 'cut');
    mkdirSync(cut);
    const text = readFileSync(bundle, 'latin1');
    writeFileSync(join(cut, 'probe-server.mjs'), text.slice(0, text.lastIndexOf(DEFERRED_MARK)), 'latin1');
    const run = await runSession(
      join(cut, 'probe-server.mjs'),
      cut,
      { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
      { name: 'probe', arguments: { path: '/meters/mtr_3' } },
    );
    const structured = (run.messages[1] as Record<string, any>).result.structuredContent;
    assert.equal(structured.validated, false);
    assert.equal(structured.status, 200);
    assert.match(structured.note, /carries no deferred part; build it with npm run build/);
    rmSync(cut, { recursive: true, force: true });
  });

  test("a copy whose deferred part is another build's (replaced while it ran) answers a probe unchecked, naming the restart", async () => {
    const other = join(runDir, 'other');
    mkdirSync(other);
    const text = readFileSync(bundle, 'latin1');
    const at = text.lastIndexOf(DEFERRED_MARK) + DEFERRED_MARK.length;
    const code = Buffer.from(text.slice(at, text.indexOf(' *' + '/', at)), 'base64').toString();
    const swapped = `${text.slice(0, at)}${Buffer.from(`${code}\n// another build\n`).toString('base64')} *` + '/\n';
    writeFileSync(join(other, 'probe-server.mjs'), swapped, 'latin1');
    const run = await runSession(
      join(other, 'probe-server.mjs'),
      other,
      { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
      { name: 'probe', arguments: { path: '/meters/mtr_3' } },
    );
    const structured = (run.messages[1] as Record<string, any>).result.structuredContent;
    assert.equal(structured.validated, false);
    assert.match(
      structured.note,
      /changed since this server started \(its deferred part is another build's\); restart the server/,
    );
    rmSync(other, { recursive: true, force: true });
  });

  test('checks a probe with nowhere to write its deferred part (no cache, no temporary folder)', async () => {
    const run = await runSession(
      copied,
      runDir,
      {
        API_BASE_URL: standIn.url,
        API_KEY: KEY,
        OPENAPI_DOC: DOCUMENT,
        PROBE_CACHE_DIR: 'off',
        TMPDIR: join(runDir, 'no-such-folder'),
      },
      { name: 'probe', arguments: { path: '/meters/mtr_3' } },
    );
    assert.equal((run.messages[1] as Record<string, any>).result.structuredContent.validated, true);
  });

  test('leaves no temporary folder when stopped (SIGTERM, SIGHUP) while its worker loads, at any moment after tools/list', async () => {
    const temporary = mkdtempSync(join(tmpdir(), 'openapi-probe-tmpdir-'));
    try {
      for (const [signal, delayMs] of (['SIGTERM', 'SIGHUP'] as const).flatMap((signal) =>
        [0, 20, 40, 60, 80].map((delayMs) => [signal, delayMs] as const),
      )) {
        const child = spawn(process.execPath, [copied], {
          cwd: runDir,
          env: {
            API_BASE_URL: standIn.url,
            API_KEY: KEY,
            OPENAPI_DOC: DOCUMENT,
            PROBE_CACHE_DIR: 'off',
            TMPDIR: temporary,
          },
          stdio: ['pipe', 'pipe', 'ignore'],
        });
        const exited = new Promise((done) => child.on('exit', done));
        let listed = false;
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          if (!listed && chunk.includes('"id":2')) {
            listed = true;
            setTimeout(() => child.kill(signal), delayMs);
          }
        });
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`,
        );
        await exited;
      }
      assert.deepEqual(readdirSync(temporary), []);
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  });

  test('two copies started at once on one cache folder both check a probe, and leave no temporary file', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'openapi-probe-cache-'));
    try {
      const settings = { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT, PROBE_CACHE_DIR: cache };
      const call = { name: 'probe', arguments: { path: '/meters/mtr_3' } };
      const runs = await Promise.all([
        runSession(copied, runDir, settings, call),
        runSession(copied, runDir, settings, call),
      ]);
      assert.deepEqual(
        runs.map((run) => (run.messages[1] as Record<string, any>).result.structuredContent.validated),
        [true, true],
      );
      // Where Node has a compile cache (>= 22.1) the part is kept there once, under its hash; never a partial file.
      const kept = existsSync(join(cache, 'compile')) ? readdirSync(join(cache, 'compile')) : [];
      assert.deepEqual(
        kept.filter((name) => name.startsWith('deferred-')).map((name) => /^deferred-[0-9a-f]{32}\.mjs$/.test(name)),
        kept.some((name) => name.startsWith('deferred-')) ? [true] : [],
      );
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("a FIFO or a folder planted at the cache folder's deferred file name neither stalls the worker nor leaves a partial file", async (t) => {
    if (!compileCacheAvailable()) return t.skip('no compile cache on this Node, so no cache folder for the part');
    const text = readFileSync(copied, 'latin1');
    const end = text.lastIndexOf(' */');
    const part = text.slice(text.lastIndexOf(DEFERRED_MARK, end) + DEFERRED_MARK.length, end);
    const hash = createHash('sha256').update(Buffer.from(part, 'base64')).digest('hex').slice(0, 32);
    for (const plant of ['fifo', 'folder'] as const) {
      const cache = mkdtempSync(join(tmpdir(), 'openapi-probe-cache-'));
      try {
        mkdirSync(join(cache, 'compile'), { mode: 0o700 });
        const name = join(cache, 'compile', `deferred-${hash}.mjs`);
        if (plant === 'fifo') execFileSync('mkfifo', [name]);
        else mkdirSync(join(name, 'inside'), { recursive: true });
        const run = await runSession(
          copied,
          runDir,
          { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT, PROBE_CACHE_DIR: cache },
          { name: 'probe', arguments: { path: '/meters/mtr_3' } },
        );
        assert.equal((run.messages[1] as Record<string, any>).result.structuredContent.validated, true, plant);
        assert.deepEqual(run.exit, { code: 0, signal: null }, plant);
        const left = readdirSync(join(cache, 'compile')).filter((file) => file.endsWith('.part'));
        assert.deepEqual(left, [], plant);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }
  });

  test('sits alone in its directory', () => {
    assert.deepEqual(
      readdirSync(runDir).filter((name) => name !== 'cut' && name !== 'other'),
      ['probe-server.mjs'],
    );
  });

  test('answers initialize and a probe of /meters/mtr_3 under plain node, from an empty directory', async () => {
    const run = await runSession(
      copied,
      runDir,
      { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
      { name: 'probe', arguments: { path: '/meters/mtr_3' } },
    );
    assert.deepEqual(run.exit, { code: 0, signal: null }, `stderr: ${run.stderr}`);
    assert.deepEqual(
      run.messages.map((message) => message.id),
      [0, 1],
      `stdout: ${run.stdoutLines.join('\n')}`,
    );
    const [initialized, called] = run.messages as [Record<string, any>, Record<string, any>];
    assert.equal(initialized.result.protocolVersion, '2025-11-25');
    assert.deepEqual(initialized.result.capabilities, { tools: { listChanged: true } });
    assert.equal(initialized.result.serverInfo.name, 'openapi-probe');
    assert.equal(typeof initialized.result.serverInfo.version, 'string');
    const structured = called.result.structuredContent;
    assert.match(structured.requestId, /^[0-9a-f]{12}$/);
    assert.deepEqual(structured, {
      url: `${standIn.url}/meters/mtr_3`,
      status: 200,
      contentType: 'application/json; charset=utf-8',
      bytes: Buffer.byteLength(JSON.stringify(METERS.mtr_3)),
      truncated: false,
      body: METERS.mtr_3,
      document: { title: 'Meter Readings API', version: '2.3.0', loadedAt: structured.document?.loadedAt },
      operation: { method: 'GET', pathTemplate: '/meters/{meterId}', operationId: 'getMeter' },
      validated: true,
      schemaPath: '#/paths/~1meters~1{meterId}/get/responses/200/content/application~1json/schema',
      findings: [
        {
          kind: 'undocumented',
          severity: 'warning',
          path: '$.firmwareVersion',
          schemaPath: '#/components/schemas/Meter/properties',
          message: 'is present but not documented in the schema',
        },
      ],
      matchesContract: true,
      requestId: structured.requestId,
    });
    assert.deepEqual(called.result.content, [{ type: 'text', text: JSON.stringify(structured) }]);
    assert.deepEqual(standIn.requests.at(-1), { method: 'GET', path: '/v2/meters/mtr_3', authorized: true });
  });

  test('reports the version of package.json although no package.json is beside it', async () => {
    // The copy falls back to the constant in readServerInfo (probe-server.ts); it must track package.json.
    const run = await runSession(
      copied,
      runDir,
      { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
      { name: 'probe', arguments: { path: '/meters/mtr_1' } },
    );
    assert.deepEqual(run.messages[0]?.result.serverInfo, {
      name: PACKAGE.name,
      version: PACKAGE.version,
      title: 'OpenAPI Probe',
    });
  });

  test('answers when started through a symlinked directory', async () => {
    const linked = `${runDir}-link`;
    symlinkSync(runDir, linked);
    try {
      const run = await runSession(
        join(linked, 'probe-server.mjs'),
        linked,
        { API_BASE_URL: standIn.url, API_KEY: KEY, OPENAPI_DOC: DOCUMENT },
        { name: 'probe', arguments: { path: '/meters/mtr_2' } },
        5000,
      );
      assert.deepEqual(
        run.messages.map((message) => [message.id, message.result?.structuredContent?.status]),
        [
          [0, undefined],
          [1, 200],
        ],
      );
    } finally {
      rmSync(linked, { force: true });
    }
  });
});

describe('npm run build and npm run demo in a clone without npm install', () => {
  const scripts = (JSON.parse(readFileSync(`${HERE}package.json`, 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  /** Runs a package.json script's command in an empty folder: its exit code and stderr. */
  async function runEmpty(command: string): Promise<{ code: number | null; stderr: string }> {
    const empty = mkdtempSync(join(tmpdir(), 'openapi-probe-no-install-'));
    try {
      const child = spawn(command, { cwd: empty, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const code = await new Promise<number | null>((done) => child.on('close', done));
      return { code, stderr: stderr.trim() };
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }

  test('prebuild stops with "run npm install first" where esbuild cannot be found', async () => {
    assert.deepEqual(await runEmpty(scripts.prebuild!), {
      code: 1,
      stderr: 'openapi-probe: esbuild is not installed here; run npm install first, then npm run build (or npm pack).',
    });
  });

  test('predemo stops with "run npm install first" where tsx cannot be found', async () => {
    assert.deepEqual(await runEmpty(scripts.predemo!), {
      code: 1,
      stderr:
        'openapi-probe: tsx is not installed here; run npm install first, then npm run demo (on Node 22.18 or later, node demo.ts needs no install).',
    });
  });
});
