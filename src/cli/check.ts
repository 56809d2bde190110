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
import { redactor } from '../redaction/redaction.ts';
import { readConfig } from '../runtime/config.ts';
import { InputError, checkFixture, liveFailures, readFixtures } from './fixtures.ts';
import type { CheckedFixture, Fixture } from './fixtures.ts';
import { formatJson, formatJunit, formatMarkdown, formatText } from './reports.ts';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const FORMATS = ['text', 'json', 'junit', 'markdown'] as const;

export type Format = (typeof FORMATS)[number];

export type Environment = Record<string, string | undefined>;

/** Where output goes; tests pass collectors. `stderrIsTerminal` enables progress lines. */
export type Output = {
  out: (text: string) => void;
  err: (text: string) => void;
  stderrIsTerminal?: boolean;
  fetch?: typeof fetch;
};

/**
 * Runs `check`: loads the document (`--doc` / OPENAPI_DOC, else `openapi.json` in the working folder), reads the fixtures, judges each with the
 * contract (`findOperation`, `judge`), with `live` probes each path and compares (`compareWithFixture`),
 * and prints the report in `format`.
 * @returns The exit code: 0 all pass, 1 any fail or unchecked, 2 bad input (message on stderr).
 */
export async function runCheck(
  options: { env: Environment; format: Format; live: boolean; fixtures: string[] },
  output: Output,
): Promise<number> {
  const bad = (message: string) => {
    output.err(`openapi-probe check: ${message}\n`);
    return 2;
  };
  // As for the server (readConfig): `openapi.json` in the working folder when neither --doc nor OPENAPI_DOC names one.
  const docPath = options.env.OPENAPI_DOC?.trim() || (existsSync('openapi.json') ? resolve('openapi.json') : undefined);
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
      result = {
        source: fixture.source,
        request: `GET ${fixture.path}`,
        status: fixture.status,
        outcome: 'unchecked',
        findings: [],
        note: `The body could not be checked: ${(error as Error).message}`,
      };
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

export async function liveDrift(
  config: ReturnType<typeof readConfig>,
  redact: ReturnType<typeof redactor>,
  fixture: Fixture,
  output: Output,
): Promise<CheckedFixture['drift']> {
  if (fixture.unrecorded) return { error: 'the fixture holds no recorded body' };
  const decision = buildProbeUrl(config.baseUrl, fixture.path);
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
