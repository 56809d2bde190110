/**
 * The command line of openapi-probe, beside the server: flags that set the configuration (`--base-url`,
 * `--doc`, `--max-bytes`, `--key-header`; the key only from API_KEY), `--help`, `--version`, and
 * `check`, which re-checks saved responses (fixtures) against the OpenAPI document offline with the
 * contract layer, and with `--live` compares each with what the API sends now.
 * With no command, `main` in probe-server.ts serves MCP on stdio with the environment returned here.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { findOperation, judge, operationKey, summarize } from '../contract/contract.ts';
import type { ProbedResponse } from '../contract/contract.ts';
import { loadDocument } from '../document/openapi-document.ts';
import { keyNote } from '../jobs/pipeline.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { compareWithFixture, fieldPresence, schemaFor } from '../../validate.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import type { Finding, FixtureDiff } from '../../validate.ts';
import { buildProbeUrl } from '../api/url-policy.ts';
import { probe, probeHeaders } from '../api/probe.ts';
import { readConfig } from '../runtime/config.ts';
import { redactor } from '../redaction/redaction.ts';
import { SERVER_INFO } from '../runtime/server-info.ts';

/** The usage text `--help` prints, and an unknown flag prints to stderr. */
export const USAGE = `Usage:
  openapi-probe [flags]                  serve MCP on stdio (what an editor runs)
  openapi-probe check --doc FILE [--format text|json|junit|markdown] [--live]
                      FIXTURE...         re-check saved responses against the document
  openapi-probe --help | --version

Flags (each overrides its environment variable):
  --base-url URL     API_BASE_URL   the API's base URL, e.g. https://api.example.com/v2
  --doc PATH|URL     OPENAPI_DOC    the OpenAPI document (default ./openapi.json)
  --max-bytes N      PROBE_MAX_BYTES  body budget per probe in bytes (default 16384)
  --key-header NAME  API_KEY_HEADER send API_KEY in this header, not Authorization
The key itself is read only from the environment: API_KEY.

check: a FIXTURE is a JSON file {method, path, status, body, contentType?},
a folder of them, or a HAR file (its GET entries). Exit 0 when every fixture
matches the document, 1 when any has an error finding or could not be
checked, 2 on bad input. --live also GETs each path (needs --base-url) and
reports drift between the fixture and the live response; a live GET that
fails is reported and exits 1.
`;

const FLAG_VARIABLES = { '--base-url': 'API_BASE_URL', '--doc': 'OPENAPI_DOC', '--max-bytes': 'PROBE_MAX_BYTES', '--key-header': 'API_KEY_HEADER' } as const;
const FORMATS = ['text', 'json', 'junit', 'markdown'] as const;
type Format = (typeof FORMATS)[number];
type Environment = Record<string, string | undefined>;

/** Where output goes; tests pass collectors. `stderrIsTerminal` enables progress lines. */
export type Output = { out: (text: string) => void; err: (text: string) => void; stderrIsTerminal?: boolean; fetch?: typeof fetch };

/**
 * Reads the command line. Flags become environment variables (so `readConfig` checks them with one
 * set of messages); `--help` and `--version` print to stdout; `check` runs to its end.
 * @param args `process.argv.slice(2)`.
 * @returns `{env}` to serve MCP with, or `{exitCode}`: 0 after help, version or a passing check,
 *   1 for a failing check, 2 for an unknown flag, a missing value or bad input (usage on stderr).
 */
export async function commandLine(args: string[], env: Environment, output: Output = processOutput()): Promise<{ env: Environment } | { exitCode: number }> {
  const parsed = parseArguments(args, env);
  if ('problem' in parsed) {
    output.err(`openapi-probe: ${parsed.problem}\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  if (parsed.help) {
    output.out(USAGE);
    return { exitCode: 0 };
  }
  if (parsed.version) {
    output.out(`${SERVER_INFO.name} ${SERVER_INFO.version}\n`);
    return { exitCode: 0 };
  }
  if (parsed.command === 'check') return { exitCode: await runCheck({ env: parsed.env, format: parsed.format, live: parsed.live, fixtures: parsed.operands }, output) };
  if (parsed.operands.length) {
    output.err(`openapi-probe: unknown command \`${parsed.operands[0]}\`\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  return { env: parsed.env };
}

type Parsed = { command?: 'check'; help: boolean; version: boolean; live: boolean; format: Format; env: Environment; operands: string[] };

function parseArguments(args: string[], env: Environment): Parsed | { problem: string } {
  const parsed: Parsed = { help: false, version: false, live: false, format: 'text', env: { ...env }, operands: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    const inline = equals > 0 ? arg.slice(equals + 1) : undefined;
    const value = (): string | undefined => inline ?? (index + 1 < args.length ? args[++index] : undefined);
    if (name === '--help' || name === '-h') parsed.help = true;
    else if (name === '--version' || name === '-v') parsed.version = true;
    else if (name === '--live') parsed.live = true;
    else if (name === '--format') {
      const format = value();
      if (!FORMATS.includes(format as Format)) return { problem: `--format must be one of ${FORMATS.join(', ')}, got \`${format ?? ''}\`` };
      parsed.format = format as Format;
    } else if (Object.hasOwn(FLAG_VARIABLES, name)) {
      const given = value();
      if (given === undefined || given === '') return { problem: `${name} needs a value` };
      parsed.env[FLAG_VARIABLES[name as keyof typeof FLAG_VARIABLES]] = given;
    } else if (name === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    } else if (name.startsWith('-') && name !== '-') return { problem: `unknown flag \`${name}\`` };
    else if (parsed.command === undefined && parsed.operands.length === 0 && arg === 'check') parsed.command = 'check';
    else parsed.operands.push(arg);
  }
  return parsed;
}

function processOutput(): Output {
  return { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text), stderrIsTerminal: process.stderr.isTTY === true };
}

/** One saved response. `source` names the file (and the HAR entry). */
export type Fixture = { source: string; method: string; path: string; status: number; contentType?: string; body: unknown; text?: string; unrecorded?: true };

/** Raised for unusable input; the message names the file and what is wrong. */
class InputError extends Error {}

/**
 * Reads fixtures from files, folders (every `.json` and `.har` file inside, sorted, recursively) and HAR
 * files (HAR 1.2: GET entries, response `content.text`, base64 decoded when `encoding` says so).
 * @returns The fixtures in order; throws InputError naming the file and the problem.
 */
export function readFixtures(paths: string[], cwd = process.cwd()): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    let stats;
    try {
      stats = statSync(path);
    } catch {
      throw new InputError(`${given}: no such file or folder`);
    }
    if (stats.isDirectory()) {
      const inside = listFixtureFiles(path);
      if (inside.length === 0) throw new InputError(`${given}: the folder holds no .json or .har file`);
      fixtures.push(...readFixtures(inside.map((file) => relative(cwd, file) || file), cwd));
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new InputError(`${given}: not JSON (${(error as Error).message})`);
    }
    const log = (data as { log?: { entries?: unknown } } | null)?.log;
    if (log !== undefined) fixtures.push(...harFixtures(given, log));
    else fixtures.push(fixtureFrom(given, data));
  }
  return fixtures;
}

function listFixtureFiles(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...listFixtureFiles(path));
    else if (entry.name.endsWith('.json') || entry.name.endsWith('.har')) out.push(path);
  }
  return out;
}

function fixtureFrom(source: string, data: unknown): Fixture {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new InputError(`${source}: a fixture must be an object {method, path, status, body, contentType?}`);
  const record = data as Record<string, unknown>;
  const method = typeof record.method === 'string' ? record.method.toUpperCase() : undefined;
  if (method !== 'GET') throw new InputError(`${source}: \`method\` must be "GET" (the probe sends only GET), got ${JSON.stringify(record.method) ?? 'nothing'}`);
  if (typeof record.path !== 'string' || !record.path.startsWith('/')) throw new InputError(`${source}: \`path\` must be a string starting with "/", e.g. "/meters/mtr_1", got ${JSON.stringify(record.path) ?? 'nothing'}`);
  if (!Number.isInteger(record.status) || (record.status as number) < 100 || (record.status as number) > 599) {
    throw new InputError(`${source}: \`status\` must be an HTTP status code from 100 to 599, got ${JSON.stringify(record.status) ?? 'nothing'}`);
  }
  if (!('body' in record)) throw new InputError(`${source}: \`body\` is missing (use "" for an empty body)`);
  if (record.contentType !== undefined && typeof record.contentType !== 'string') throw new InputError(`${source}: \`contentType\` must be a string such as "application/json"`);
  return { source, method, path: record.path, status: record.status as number, body: record.body, ...(record.contentType !== undefined ? { contentType: record.contentType as string } : {}) };
}

function harFixtures(source: string, log: unknown): Fixture[] {
  const entries = (log as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) throw new InputError(`${source}: a HAR file needs log.entries, an array`);
  const fixtures: Fixture[] = [];
  entries.forEach((entry, index) => {
    const where = `${source}#${index}`;
    const request = (entry as { request?: { method?: unknown; url?: unknown } } | null)?.request;
    const response = (entry as { response?: { status?: unknown; content?: { mimeType?: unknown; text?: unknown; encoding?: unknown } } } | null)?.response;
    if (typeof request?.method !== 'string' || typeof request.url !== 'string' || !response) throw new InputError(`${where}: a HAR entry needs request.method, request.url and response`);
    if (request.method.toUpperCase() !== 'GET') return;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new InputError(`${where}: request.url is not an absolute URL: ${request.url}`);
    }
    if (!Number.isInteger(response.status)) throw new InputError(`${where}: response.status must be an integer`);
    const content = (response.content ?? {}) as { mimeType?: unknown; text?: unknown; encoding?: unknown; size?: unknown };
    const contentType = typeof content.mimeType === 'string' && content.mimeType !== '' ? content.mimeType : undefined;
    // HAR 1.2: `text` is optional; an exporter that does not keep bodies leaves it out. Without it, only a size of 0 says the body was empty.
    if (typeof content.text !== 'string' && content.size !== 0) {
      fixtures.push({ source: where, method: 'GET', path: url.pathname + url.search, status: response.status as number, body: null, unrecorded: true, ...(contentType ? { contentType } : {}) });
      return;
    }
    let text = typeof content.text === 'string' ? content.text : '';
    if (content.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
    let body: unknown = text;
    if (text !== '' && (isJsonMediaType(contentType ?? null) || contentType === undefined)) {
      try {
        body = JSON.parse(text);
      } catch {
        if (isJsonMediaType(contentType ?? null)) throw new InputError(`${where}: the response says JSON but content.text does not parse`);
      }
    }
    fixtures.push({ source: where, method: 'GET', path: url.pathname + url.search, status: response.status as number, body, text, ...(contentType ? { contentType } : {}) });
  });
  return fixtures;
}

/** One fixture's verdict. `outcome`: pass, fail (an error finding) or unchecked (with `note`). */
export type CheckedFixture = {
  source: string;
  request: string;
  status: number;
  operation?: { method: string; pathTemplate: string; operationId?: string };
  outcome: 'pass' | 'fail' | 'unchecked';
  findings: Finding[];
  note?: string;
  /** With `--live`: the differences, or `error` when the live GET could not be made (then nothing was compared). */
  drift?: (FixtureDiff & { liveStatus: number }) | { error: string };
};

/**
 * Runs `check`: loads the document (`--doc` / OPENAPI_DOC, else `openapi.json` in the working folder), reads the fixtures, judges each with the
 * contract (`findOperation`, `judge`), with `live` probes each path and compares (`compareWithFixture`),
 * and prints the report in `format`.
 * @returns The exit code: 0 all pass, 1 any fail or unchecked, 2 bad input (message on stderr).
 */
export async function runCheck(options: { env: Environment; format: Format; live: boolean; fixtures: string[] }, output: Output): Promise<number> {
  const bad = (message: string) => {
    output.err(`openapi-probe check: ${message}\n`);
    return 2;
  };
  // As for the server (readConfig): `openapi.json` in the working folder when neither --doc nor OPENAPI_DOC names one.
  const docPath = options.env.OPENAPI_DOC?.trim() || (existsSync('openapi.json') ? resolve('openapi.json') : undefined);
  if (!docPath) return bad('no OpenAPI document: give --doc (or OPENAPI_DOC), a path or an http(s) URL, or run where openapi.json is');
  if (options.fixtures.length === 0) return bad('no FIXTURE given: name fixture files, folders of them, or HAR files');
  let loaded: LoadedDocument;
  try {
    loaded = await loadDocument(docPath);
  } catch (error) {
    return bad(`${docPath}: ${(error as Error).message}`);
  }
  let fixtures: Fixture[];
  try {
    fixtures = readFixtures(options.fixtures);
  } catch (error) {
    if (error instanceof InputError) return bad(error.message);
    throw error;
  }
  if (fixtures.length === 0) return bad(`${options.fixtures.join(', ')}: no GET fixture found`);
  let live: { config: ReturnType<typeof readConfig>; redact: ReturnType<typeof redactor> } | undefined;
  let basePrefix = '';
  if (options.env.API_BASE_URL?.trim() || options.live) {
    try {
      const config = readConfig(options.env);
      basePrefix = config.baseUrl.pathname.replace(/\/+$/, '');
      if (options.live) live = { config, redact: redactor(config.apiKey) };
    } catch (error) {
      return bad(`${(error as Error).message}${options.live ? ' (--live needs --base-url)' : ''}`);
    }
  }
  const results: CheckedFixture[] = [];
  for (const [index, fixture] of fixtures.entries()) {
    if (output.stderrIsTerminal && fixtures.length > 1) output.err(`\rchecking ${index + 1}/${fixtures.length} `);
    let result: CheckedFixture;
    try {
      result = checkFixture(loaded, basePrefix, fixture);
    } catch (error) {
      // A body too deep for the checks (stack overflow) or any other surprise: said, never a pass.
      result = { source: fixture.source, request: `GET ${fixture.path}`, status: fixture.status, outcome: 'unchecked', findings: [], note: `The body could not be checked: ${(error as Error).message}` };
    }
    if (live) result.drift = await liveDrift(live.config, live.redact, fixture, output);
    results.push(result);
  }
  if (output.stderrIsTerminal && fixtures.length > 1) output.err('\r\u001b[K');
  const formatters = { text: formatText, json: formatJson, junit: formatJunit, markdown: formatMarkdown } as const;
  output.out(formatters[options.format](results, loaded, fixtures));
  // A live GET that could not be made is a comparison that did not run: never a silent pass.
  return results.every((result) => result.outcome === 'pass') && liveFailures(results) === 0 ? 0 : 1;
}

/** How many fixtures' live GET could not be made (`--live`): their drift is an `error`, nothing was compared. */
function liveFailures(results: CheckedFixture[]): number {
  return results.filter((result) => result.drift && 'error' in result.drift).length;
}

/**
 * Judges one fixture against the document as the probe judges a response.
 * @param basePrefix The base URL's path prefix without a trailing slash (`''` when none is known).
 */
export function checkFixture(loaded: LoadedDocument, basePrefix: string, fixture: Fixture): CheckedFixture {
  const queryAt = fixture.path.indexOf('?');
  const pathOnly = queryAt === -1 ? fixture.path : fixture.path.slice(0, queryAt);
  const request = `GET ${fixture.path}`;
  const relativePath = basePrefix && pathOnly.startsWith(`${basePrefix}/`) ? pathOnly.slice(basePrefix.length) : pathOnly;
  const match = findOperation(loaded, basePrefix, basePrefix && !pathOnly.startsWith(`${basePrefix}/`) ? basePrefix + pathOnly : pathOnly, relativePath);
  if (!match.operation) {
    const note = `No GET operation in the document matches ${pathOnly}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}.`;
    return { source: fixture.source, request, status: fixture.status, outcome: 'unchecked', findings: [], note };
  }
  if (fixture.unrecorded) {
    return { source: fixture.source, request, status: fixture.status, operation: summarize(match.operation), outcome: 'unchecked', findings: [], note: 'The HAR entry holds no body (content.text is missing: the exporter did not keep it), so there is nothing to check.' };
  }
  const text = fixture.text ?? (typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body));
  const contentType = fixture.contentType ?? (typeof fixture.body === 'string' ? (fixture.body === '' ? null : 'text/plain') : 'application/json');
  const probed: ProbedResponse = { status: fixture.status, contentType, bytes: Buffer.byteLength(text ?? ''), truncated: false, body: fixture.body };
  const verdict = judge(loaded, match.operation, probed) as { validated: boolean; validationNote?: string; findings?: Finding[]; matchesContract?: boolean };
  const findings = verdict.findings ?? [];
  const outcome = verdict.matchesContract === true ? 'pass' : verdict.matchesContract === false ? 'fail' : 'unchecked';
  return { source: fixture.source, request, status: fixture.status, operation: summarize(match.operation), outcome, findings, ...(verdict.validationNote ? { note: verdict.validationNote } : {}) };
}

async function liveDrift(config: ReturnType<typeof readConfig>, redact: ReturnType<typeof redactor>, fixture: Fixture, output: Output): Promise<CheckedFixture['drift']> {
  if (fixture.unrecorded) return { error: 'the fixture holds no recorded body' };
  const decision = buildProbeUrl(config.baseUrl, fixture.path);
  if ('refusal' in decision) return { error: `not sent: ${decision.refusal}` };
  try {
    const probed = redact.value(await probe(decision.url, { headers: probeHeaders(config), timeoutMs: config.timeoutMs, maxBytes: config.maxBytes, fetch: output.fetch }), true);
    // Another status than the fixture's is another kind of answer (an error body, a redirect): its fields are not drift.
    if (probed.status !== fixture.status) {
      const why = probed.status === 401 || probed.status === 403 ? ` ${keyNote(config, probed.status)}` : '';
      return { error: `the live GET answered ${probed.status}, the fixture holds ${fixture.status}; an answer of another status is not compared.${why}` };
    }
    const diff = probed.truncated ? { onlyLive: [], onlyFixture: [], changed: [{ path: '$', fixture: '(fixture)', live: probed.note ?? 'truncated' }] } : compareWithFixture(fixture.body, probed.body);
    return { liveStatus: probed.status, ...diff };
  } catch (error) {
    return { error: redact.text((error as Error).message) };
  }
}

// ─────────────── formats ───────────────

const WIDTH = 80;

/** Wraps `prefix + text` to 80 columns at spaces; continuation lines are indented by `indent` spaces. A word longer than a line stays whole. */
function wrap(text: string, indent: number, prefix = ''): string {
  const lines: string[] = [];
  let line = prefix;
  for (const word of text.split(' ')) {
    const next = line.trim() ? `${line} ${word}` : `${line}${word}`;
    if (next.length > WIDTH && line.trim()) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = next;
  }
  lines.push(line);
  return lines.join('\n');
}

function operationName(operation: CheckedFixture['operation']): string {
  return operation ? `${operation.method} ${operation.pathTemplate}${operation.operationId ? ` (${operation.operationId})` : ''}` : 'no operation';
}

function summaryLine(results: CheckedFixture[]): string {
  const count = (outcome: CheckedFixture['outcome']) => results.filter((result) => result.outcome === outcome).length;
  const liveFailed = liveFailures(results);
  return `${results.length} fixture(s): ${count('pass')} passed, ${count('fail')} failed, ${count('unchecked')} not checked${liveFailed ? `; ${liveFailed} live GET(s) failed, not compared` : ''}`;
}

function driftLines(drift: NonNullable<CheckedFixture['drift']>): string[] {
  if ('error' in drift) return [`not compared: ${drift.error}`];
  const lines = [`live status ${drift.liveStatus}`];
  for (const path of drift.onlyLive) lines.push(`only live: ${path}`);
  for (const path of drift.onlyFixture) lines.push(`only in fixture: ${path}`);
  for (const change of drift.changed) lines.push(`moved: ${change.path} ${JSON.stringify(change.fixture)} -> ${JSON.stringify(change.live)}`);
  if (lines.length === 1) lines.push('no drift');
  return lines;
}

function formatText(results: CheckedFixture[]): string {
  const out: string[] = [];
  for (const result of results) {
    const label = result.outcome === 'pass' ? 'PASS' : result.outcome === 'fail' ? 'FAIL' : 'NOT CHECKED';
    out.push(wrap(`${label} ${result.source}: ${result.request} -> ${result.status}, ${operationName(result.operation)}`, 4));
    for (const finding of result.findings) out.push(wrap(`${finding.severity} ${finding.path} ${finding.message}`, 4, '  '));
    if (result.note) out.push(wrap(result.note, 4, '  '));
    if (result.drift) for (const line of driftLines(result.drift)) out.push(wrap(`drift: ${line}`, 4, '  '));
  }
  out.push(summaryLine(results));
  return `${out.join('\n')}\n`;
}

function formatJson(results: CheckedFixture[]): string {
  const count = (outcome: CheckedFixture['outcome']) => results.filter((result) => result.outcome === outcome).length;
  const liveFailed = liveFailures(results);
  return `${JSON.stringify({ fixtures: results, summary: { fixtures: results.length, passed: count('pass'), failed: count('fail'), notChecked: count('unchecked'), ...(results.some((result) => result.drift) ? { liveFailed } : {}) } }, null, 2)}\n`;
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character]!)
    // XML 1.0 forbids most control characters even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

function formatJunit(results: CheckedFixture[]): string {
  const failures = results.filter((result) => result.outcome !== 'pass').length;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="openapi-probe check" tests="${results.length}" failures="${failures}">`, `  <testsuite name="openapi-probe check" tests="${results.length}" failures="${failures}">`];
  for (const result of results) {
    const head = `    <testcase classname="${xml(operationName(result.operation))}" name="${xml(`${result.source}: ${result.request} -> ${result.status}`)}"`;
    const details = [
      ...result.findings.map((finding) => `${finding.severity} ${finding.path} ${finding.message}`),
      ...(result.note ? [result.note] : []),
      ...(result.drift ? driftLines(result.drift).map((line) => `drift: ${line}`) : []),
    ];
    if (result.outcome === 'pass') {
      lines.push(details.length ? `${head}>\n      <system-out>${xml(details.join('\n'))}</system-out>\n    </testcase>` : `${head}/>`);
    } else {
      const errors = result.findings.filter((finding) => finding.severity === 'error').length;
      const message = result.outcome === 'fail' ? `${errors} error finding(s)` : `not checked: ${result.note ?? ''}`;
      lines.push(`${head}>\n      <failure message="${xml(message)}">${xml(details.join('\n'))}</failure>\n    </testcase>`);
    }
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

/**
 * A report against the API's documentation, one section per operation, with evidence: fields the API
 * returns that the document omits, optional fields never seen (across every 2xx JSON fixture of the
 * operation, `fieldPresence`), enum values the document lacks, nulls it does not allow, other findings.
 */
function formatMarkdown(results: CheckedFixture[], loaded: LoadedDocument, fixtures: Fixture[]): string {
  const out = [`# ${loaded.title} ${loaded.infoVersion}: what the API returns that the document does not say`, '', summaryLine(results), ''];
  const byOperation = new Map<string, { operation: Operation; indexes: number[] }>();
  results.forEach((result, index) => {
    if (!result.operation) return;
    const key = `${result.operation.method} ${result.operation.pathTemplate}`;
    const operation = loaded.operations.find((candidate) => operationKey(candidate) === key)!;
    const entry = byOperation.get(key) ?? { operation, indexes: [] };
    entry.indexes.push(index);
    byOperation.set(key, entry);
  });
  for (const [key, { operation, indexes }] of [...byOperation].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push(`## ${key}${operation.operationId ? ` (${operation.operationId})` : ''}`, '');
    out.push(`Fixtures: ${indexes.map((index) => `\`${results[index]!.source}\``).join(', ')}`, '');
    const all = indexes.flatMap((index) => results[index]!.findings.map((finding) => ({ finding, source: results[index]!.source })));
    const section = (title: string, rows: string[]) => {
      if (!rows.length) return;
      out.push(`### ${title}`, '', ...rows, '');
    };
    // One bullet per field and message, naming every fixture that shows it.
    const bullets = (rows: { finding: Finding; source: string }[], label: (finding: Finding) => string = () => '') => {
      const grouped = new Map<string, string[]>();
      for (const { finding, source } of rows) {
        const key = `${label(finding)}\`${finding.path}\` ${finding.message}`;
        grouped.set(key, [...(grouped.get(key) ?? []), `\`${source}\``]);
      }
      return [...grouped].map(([key, sources]) => `- ${key} (${sources.join(', ')})`);
    };
    section('Fields the API returns that the document omits', bullets(all.filter((row) => row.finding.kind === 'undocumented')));
    const json2xx = indexes.filter((index) => results[index]!.status >= 200 && results[index]!.status < 300 && fixtures[index]!.body !== null && typeof fixtures[index]!.body === 'object');
    // Presence is counted over responses of one status, the first 2xx seen, as field_presence does.
    const ok = json2xx.filter((index) => results[index]!.status === results[json2xx[0]!]?.status);
    if (ok.length) {
      const status = results[ok[0]!]!.status;
      const target = schemaFor(loaded.doc, operation.method, operation.pathTemplate, status, 'application/json');
      if (target) {
        const presence = fieldPresence(loaded.doc, target.schema, ok.map((index) => fixtures[index]!.body), { at: target.schemaPath });
        section(`Optional fields never seen (in ${ok.length} response(s) with status ${status})`, presence.filter((field) => field.documented && !field.required && field.present === 0).map((field) => `- \`${field.path}\``));
      }
    }
    section('Enum values the document lacks', bullets(all.filter((row) => row.finding.kind === 'enum')));
    section('Nulls the document does not allow', bullets(all.filter((row) => row.finding.kind === 'wrongType' && row.finding.actual === 'null')));
    section('Other findings', bullets(all.filter((row) => row.finding.kind !== 'undocumented' && row.finding.kind !== 'enum' && !(row.finding.kind === 'wrongType' && row.finding.actual === 'null')), (finding) => `${finding.severity} ${finding.kind}: `));
  }
  const unmatched = results.filter((result) => !result.operation);
  if (unmatched.length) out.push('## Not in the document', '', ...unmatched.map((result) => `- \`${result.source}\`: ${result.note ?? result.request}`), '');
  const drifted = results.filter((result) => result.drift);
  if (drifted.length) {
    out.push('## Drift against the live API', '');
    for (const result of drifted) out.push(`- \`${result.source}\` (${result.request}): ${driftLines(result.drift!).join('; ')}`);
    out.push('');
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}
