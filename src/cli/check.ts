/**
 * The `check` command: saved responses checked against the document and, with `--live`, compared with the live
 * API, reported in the format asked for, with an exit code CI can read (0 pass, 1 fail, 2 bad input).
 */
import { probe, probeHeaders } from '../api/probe.ts';
import { buildProbeUrl } from '../api/url-policy.ts';
import { compareWithFixture } from '../contract/fixture-diff.ts';
import type { LoadedDocument } from '../document/model.ts';
import { loadDocument } from '../document/openapi-document.ts';
import { keyNote } from '../jobs/pipeline.ts';
import { redactor, redactorForKeys } from '../redaction/redaction.ts';
import { configuredDocument, readConfig } from '../runtime/config.ts';
import { pathAfterBase, trimSlash } from '../shared/url-path.ts';
import { InputError, checkFixture, liveFailures, readFixtures } from './fixtures.ts';
import type { CheckedFixture, Fixture, LeftOut, Scope } from './fixtures.ts';
import { formatJson, formatJunit, formatMarkdown, formatText, leftOutText } from './reports.ts';
import { applyBaseline, baselineEntries, baselineText, readBaseline } from './baseline.ts';
import type { BaselineEntry, BaselineOutcome } from './baseline.ts';
import { formatSarif } from './sarif.ts';
import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { documentExamples } from '../document/examples.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';
import type { Environment, Format, Output } from './output.ts';

/**
 * Runs `check`: loads the document (`--doc` / OPENAPI_DOC, else `openapi.json` in the working folder), reads the
 * fixtures (a HAR file's entries only on the base's origin and under its prefix: `--base-url`, else the document's
 * first server URL), judges each with the contract (`findOperation`, `judge`), with `live` probes each path and
 * compares (`compareWithFixture`), accepts the findings `baseline` lists (and with `updateBaseline` first writes
 * the file anew from this run's findings), and prints the report in `format`.
 * @returns The exit code: 0 all pass, 1 any fail or unchecked, 2 bad input (message on stderr), including a baseline
 *   that cannot be read or written.
 */
export async function runCheck(
  options: {
    env: Environment;
    format: Format;
    live: boolean;
    fixtures: string[];
    baseline?: string;
    updateBaseline?: boolean;
  },
  given: Output,
): Promise<number> {
  // Every line check writes passes the key's redaction, and the credentials recorded in the fixtures' (issue 18).
  const secrets: string[] = [];
  const key = options.env.API_KEY?.trim();
  // One redactor of the key and every recorded value (`redactorForKeys`: each found in every form the key's redaction
  // reads, percent-encoded, JSON-escaped, base64..., in one scan however many there are); rebuilt once the fixtures add
  // values.
  let redact = redactorForKeys([key]);
  let redactedCount = 0;
  const hide = (text: string): string => {
    if (redactedCount !== secrets.length) {
      redact = redactorForKeys([key, ...secrets]);
      redactedCount = secrets.length;
    }
    return redact.text(text);
  };
  const output: Output = { ...given, out: (text) => given.out(hide(text)), err: (text) => given.err(hide(text)) };
  const bad = (message: string) => {
    output.err(`openapi-probe check: ${message}\n`);
    return 2;
  };
  // As for the server (readConfig): `openapi.json` in the working folder when neither --doc nor OPENAPI_DOC names one.
  const docPath = configuredDocument(options.env);
  if (!docPath)
    return bad(
      'no OpenAPI document: give --doc (or OPENAPI_DOC), a path or an http(s) URL, or run where openapi.json is',
    );
  if (options.fixtures.length === 0) return bad('no FIXTURE given: name fixture files, folders of them, or HAR files');
  let loaded: LoadedDocument;
  try {
    loaded = await loadDocument(docPath);
  } catch (error) {
    return bad(`${docPath}: ${(error as Error).message}`);
  }
  // Errors quote this document's operation and path, not another API's (issue 17).
  const examples = documentExamples(loaded);
  let live: { config: ReturnType<typeof readConfig>; redact: ReturnType<typeof redactor> } | undefined;
  let basePrefix = '';
  let scope: Scope | undefined = documentScope(loaded);
  if (options.env.API_BASE_URL?.trim() || options.live) {
    try {
      const config = readConfig(options.env);
      basePrefix = trimSlash(config.baseUrl.pathname);
      scope = { base: `${config.baseUrl.origin}${basePrefix}`, origin: config.baseUrl.origin, prefix: basePrefix };
      if (options.live) live = { config, redact: redactor(config.apiKey) };
    } catch (error) {
      return bad(`${(error as Error).message}${options.live ? ' (--live needs --base-url)' : ''}`);
    }
  }
  let known: BaselineEntry[] = [];
  if (options.baseline !== undefined && !(options.updateBaseline && !existsSync(options.baseline))) {
    try {
      known = readBaseline(options.baseline, examples);
    } catch (error) {
      if (error instanceof InputError)
        return bad(`${error.message}${options.updateBaseline ? '; remove the file to write it afresh' : ''}`);
      throw error;
    }
  }
  let fixtures: Fixture[];
  const leftOut: LeftOut[] = [];
  try {
    fixtures = readFixtures(options.fixtures, process.cwd(), scope, leftOut, secrets, examples);
  } catch (error) {
    if (error instanceof InputError) return bad(error.message);
    throw error;
  }
  if (fixtures.length === 0)
    return bad(
      `${options.fixtures.join(', ')}: no GET fixture found${leftOut.length ? ` (${leftOut.map((left) => leftOutText(left, scope)).join('; ')})` : ''}${leftOut.some((left) => left.otherOrigin + left.outsidePrefix > 0) ? `; if the API was recorded elsewhere than ${scope?.base}, give that base with --base-url` : ''}`,
    );
  const results: CheckedFixture[] = [];
  for (const [index, fixture] of fixtures.entries()) {
    if (output.stderrIsTerminal && fixtures.length > 1) output.err(`\rchecking ${index + 1}/${fixtures.length} `);
    let result: CheckedFixture;
    try {
      result = checkFixture(loaded, basePrefix, fixture, hide);
    } catch (error) {
      // A body too deep for the checks (stack overflow) or any other surprise: said, never a pass.
      result = {
        source: fixture.source,
        request: `GET ${fixture.path}`,
        status: fixture.status,
        outcome: 'unchecked',
        findings: [],
        note: `The body could not be checked: ${(error as Error).message}`,
      };
    }
    if (live) result.drift = await liveDrift(live.config, live.redact, fixture, output, examples);
    results.push(result);
  }
  if (output.stderrIsTerminal && fixtures.length > 1) output.err('\r\u001b[K');
  let baseline: BaselineOutcome | undefined;
  if (options.baseline !== undefined) {
    baseline = applyBaseline(results, known, options.baseline);
    if (options.updateBaseline) {
      // Exactly this run's findings: the fixed ones drop out, and every finding now is accepted.
      const current = baselineEntries(results, known);
      try {
        writeFileSync(options.baseline, baselineText(current));
      } catch (error) {
        return bad(`${options.baseline}: the baseline could not be written (${(error as Error).message})`);
      }
      baseline = {
        ...applyBaseline(results, current, options.baseline),
        fixed: baseline.fixed,
        written: current.length,
      };
      output.err(`openapi-probe check: wrote ${current.length} finding(s) to the baseline ${options.baseline}\n`);
    }
  }
  const report = { results, loaded, fixtures, leftOut, ...(scope ? { scope } : {}), ...(baseline ? { baseline } : {}) };
  const documentFile = /^https?:/i.test(docPath)
    ? docPath
    : isAbsolute(docPath)
      ? relative(process.cwd(), docPath)
      : docPath;
  const formatters = {
    text: formatText,
    json: formatJson,
    junit: formatJunit,
    markdown: formatMarkdown,
    sarif: (given: typeof report) => formatSarif(given, documentFile),
  } as const;
  output.out(formatters[options.format](report));
  if (secrets.length)
    output.err(
      `openapi-probe check: ${secrets.length} credential value(s) recorded in the fixtures (Authorization, Cookie, Set-Cookie and API-key headers; *_key, token, secret and password fields, query parameters and form fields) are shown as [redacted]\n`,
    );
  // A live GET that could not be made is a comparison that did not run: never a silent pass.
  return results.every((result) => result.outcome === 'pass') && liveFailures(results) === 0 ? 0 : 1;
}

/**
 * The path to GET from the base for a fixture: a fixture file's `path` as it is (relative to the base); a HAR
 * entry's path after the base's prefix, query kept, since its URL already carries the prefix (issue 17: a base of
 * `/v2` fetched `/v2/v2/meters/...`). The prefix is stripped once, by segment.
 */
export function livePath(fixture: Fixture, base: URL): string {
  if (fixture.url === undefined) return fixture.path;
  const url = new URL(fixture.url);
  const prefix = trimSlash(base.pathname);
  if (
    url.origin !== base.origin ||
    (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
  )
    return fixture.path;
  return pathAfterBase(url, base) + url.search;
}

/**
 * The document's first server URL as the scope of a HAR file's entries, when no `--base-url` is given: OpenAPI 3.x
 * `servers[0].url` with its variables' defaults (Server Object), Swagger 2.0 `schemes[0]://host` + `basePath`. A
 * relative server URL (`/v2`) gives a prefix with no origin; no server, no scope (every entry is kept).
 */
export function documentScope(loaded: LoadedDocument): Scope | undefined {
  const doc = loaded.doc as Record<string, unknown>;
  let written: string | undefined;
  if (loaded.version === '2.0') {
    const scheme = Array.isArray(doc.schemes) && typeof doc.schemes[0] === 'string' ? doc.schemes[0] : 'https';
    const basePath = typeof doc.basePath === 'string' ? doc.basePath : '';
    if (typeof doc.host === 'string') written = `${scheme}://${doc.host}${basePath}`;
    else if (basePath) written = basePath;
  } else {
    const server = Array.isArray(doc.servers) ? (doc.servers[0] as Record<string, unknown> | undefined) : undefined;
    if (server && typeof server.url === 'string') {
      const variables = (
        server.variables !== null && typeof server.variables === 'object' ? server.variables : {}
      ) as Record<string, { default?: unknown } | undefined>;
      written = server.url.replace(/\{([^{}]*)\}/g, (whole: string, name: string) =>
        Object.hasOwn(variables, name) && variables[name]?.default !== undefined
          ? String(variables[name].default)
          : whole,
      );
    }
  }
  // A variable without a default leaves the server URL unknown: no scope rather than a wrong one.
  if (written === undefined || written.includes('{')) return undefined;
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    // A relative server URL is relative to where the document is served (OpenAPI 3.1, 4.8.5): only its path is known.
    try {
      url = new URL(written, 'http://relative.invalid');
    } catch {
      return undefined;
    }
    const prefix = trimSlash(url.pathname);
    return prefix ? { base: prefix, prefix } : undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const prefix = trimSlash(url.pathname);
  return { base: `${url.origin}${prefix}`, origin: url.origin, prefix };
}

export async function liveDrift(
  config: ReturnType<typeof readConfig>,
  redact: ReturnType<typeof redactor>,
  fixture: Fixture,
  output: Output,
  examples?: DocumentExamples,
): Promise<CheckedFixture['drift']> {
  if (fixture.unrecorded) return { error: 'the fixture holds no recorded body' };
  const decision = buildProbeUrl(config.baseUrl, livePath(fixture, config.baseUrl), undefined, examples?.paths[0]);
  if ('refusal' in decision) return { error: `not sent: ${decision.refusal}` };
  try {
    const probed = redact.value(
      await probe(decision.url, {
        headers: probeHeaders(config),
        timeoutMs: config.timeoutMs,
        maxBytes: config.maxBytes,
        fetch: output.fetch,
      }),
      true,
    );
    // Another status than the fixture's is another kind of answer (an error body, a redirect): its fields are not drift.
    if (probed.status !== fixture.status) {
      const why = probed.status === 401 || probed.status === 403 ? ` ${keyNote(config, probed.status)}` : '';
      return {
        error: `the live GET answered ${probed.status}, the fixture holds ${fixture.status}; an answer of another status is not compared.${why}`,
      };
    }
    const diff = probed.truncated
      ? {
          onlyLive: [],
          onlyFixture: [],
          changed: [{ path: '$', fixture: '(fixture)', live: probed.note ?? 'truncated' }],
        }
      : compareWithFixture(fixture.body, probed.body);
    return { liveStatus: probed.status, ...diff };
  } catch (error) {
    return { error: redact.text((error as Error).message) };
  }
}
