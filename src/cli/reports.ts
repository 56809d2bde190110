/**
 * The reports of `check`: text, JSON, JUnit XML and Markdown, each made from the same checked fixtures.
 */
import { fieldPresence, schemaFor } from '../../validate.ts';
import type { Finding } from '../../validate.ts';
import { operationKey } from '../document/model.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import type { BaselineOutcome } from './baseline.ts';
import { liveFailures } from './fixtures.ts';
import type { CheckedFixture, Fixture, LeftOut, Scope } from './fixtures.ts';

/**
 * What every format reports: the checked fixtures (in input order, `fixtures` beside them), the document, the HAR
 * entries left out and the scope that decided it, and what the baseline accepted and found fixed.
 */
export type Report = {
  results: CheckedFixture[];
  loaded: LoadedDocument;
  fixtures: Fixture[];
  leftOut: LeftOut[];
  scope?: Scope;
  baseline?: BaselineOutcome;
};

export const WIDTH = 80;

/** Wraps `prefix + text` to 80 columns at spaces; continuation lines are indented by `indent` spaces. A word longer than a line stays whole. */
export function wrap(text: string, indent: number, prefix = ''): string {
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

export function operationName(operation: CheckedFixture['operation']): string {
  return operation
    ? `${operation.method} ${operation.pathTemplate}${operation.operationId ? ` (${operation.operationId})` : ''}`
    : 'no operation';
}

export function summaryLine(results: CheckedFixture[], baseline?: BaselineOutcome): string {
  const count = (outcome: CheckedFixture['outcome']) => results.filter((result) => result.outcome === outcome).length;
  const liveFailed = liveFailures(results);
  return `${results.length} fixture(s): ${count('pass')} passed, ${count('fail')} failed, ${count('unchecked')} not checked${liveFailed ? `; ${liveFailed} live GET(s) failed, not compared` : ''}${baseline ? `; ${baseline.accepted} finding(s) accepted by the baseline, ${baseline.fixed.length} fixed` : ''}`;
}

/**
 * One sentence on the entries of a HAR file that were left out, by reason, e.g. `session.har: 3 of 9 HAR entries
 * left out: 2 on another origin than https://api.example.com, 1 not a GET`. Reasons with no entry are not named.
 */
export function leftOutText(left: LeftOut, scope: Scope | undefined): string {
  const reasons = [
    left.otherOrigin ? `${left.otherOrigin} on another origin than ${scope?.origin ?? 'the base'}` : '',
    left.outsidePrefix ? `${left.outsidePrefix} outside ${scope?.prefix ?? 'the base path'}` : '',
    left.notGet ? `${left.notGet} not a GET` : '',
    left.notModified ? `${left.notModified} a 304 (no body of its own)` : '',
    left.noResponse ? `${left.noResponse} with no response (status 0)` : '',
  ].filter(Boolean);
  const count = left.otherOrigin + left.outsidePrefix + left.notGet + left.notModified + left.noResponse;
  return `${left.source}: ${count} of ${left.entries} HAR entries left out: ${reasons.join(', ')}`;
}

/** A baseline entry as the reports name it: `GET /meters/{meterId} $.location wrongType`. */
export function entryText(entry: { operation: string; path: string; kind: string }): string {
  return `${entry.operation} ${entry.path} ${entry.kind}`;
}

/** The lines every format adds after the fixtures: HAR entries left out, baseline entries fixed, a baseline written. */
export function closingLines(report: Report): string[] {
  return [
    ...report.leftOut.map((left) => leftOutText(left, report.scope)),
    ...(report.baseline?.fixed ?? []).map((entry) => `fixed: ${entryText(entry)} (in the baseline, no longer found)`),
  ];
}

function findingText(finding: CheckedFixture['findings'][number]): string {
  return `${finding.accepted ? 'accepted ' : ''}${finding.severity} ${finding.path} ${finding.message}`;
}

export function driftLines(drift: NonNullable<CheckedFixture['drift']>): string[] {
  if ('error' in drift) return [`not compared: ${drift.error}`];
  const lines = [`live status ${drift.liveStatus}`];
  for (const path of drift.onlyLive) lines.push(`only live: ${path}`);
  for (const path of drift.onlyFixture) lines.push(`only in fixture: ${path}`);
  for (const change of drift.changed)
    lines.push(`moved: ${change.path} ${JSON.stringify(change.fixture)} -> ${JSON.stringify(change.live)}`);
  if (lines.length === 1) lines.push('no drift');
  return lines;
}

/** The text report: one block per fixture within 80 columns, then the closing lines and the summary line. */
export function formatText(report: Report): string {
  const { results } = report;
  const out: string[] = [];
  for (const result of results) {
    const label = result.outcome === 'pass' ? 'PASS' : result.outcome === 'fail' ? 'FAIL' : 'NOT CHECKED';
    out.push(
      wrap(`${label} ${result.source}: ${result.request} -> ${result.status}, ${operationName(result.operation)}`, 4),
    );
    for (const finding of result.findings) out.push(wrap(findingText(finding), 4, '  '));
    if (result.note) out.push(wrap(result.note, 4, '  '));
    if (result.drift) for (const line of driftLines(result.drift)) out.push(wrap(`drift: ${line}`, 4, '  '));
  }
  for (const line of closingLines(report)) out.push(wrap(line, 4));
  out.push(wrap(summaryLine(results, report.baseline), 4));
  return `${out.join('\n')}\n`;
}

/**
 * The JSON report: `{fixtures, summary}`, with `leftOut: {base, files}` when HAR entries were left out and
 * `baseline: {file, accepted, fixed, written?}` with `--baseline`.
 */
export function formatJson(report: Report): string {
  const { results } = report;
  const count = (outcome: CheckedFixture['outcome']) => results.filter((result) => result.outcome === outcome).length;
  const liveFailed = liveFailures(results);
  return `${JSON.stringify(
    {
      fixtures: results,
      summary: {
        fixtures: results.length,
        passed: count('pass'),
        failed: count('fail'),
        notChecked: count('unchecked'),
        ...(results.some((result) => result.drift) ? { liveFailed } : {}),
      },
      ...(report.leftOut.length ? { leftOut: { base: report.scope?.base ?? null, files: report.leftOut } } : {}),
      ...(report.baseline ? { baseline: report.baseline } : {}),
    },
    null,
    2,
  )}\n`;
}

export function xml(text: string): string {
  return (
    text
      .replace(
        /[&<>"']/g,
        (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character]!,
      )
      // XML 1.0 forbids most control characters even escaped.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

/**
 * The JUnit XML report: one test case per fixture (a failure for `fail` and `unchecked`), and the closing lines as
 * the suite's `system-out`.
 */
export function formatJunit(report: Report): string {
  const { results } = report;
  const failures = results.filter((result) => result.outcome !== 'pass').length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="openapi-probe check" tests="${results.length}" failures="${failures}">`,
    `  <testsuite name="openapi-probe check" tests="${results.length}" failures="${failures}">`,
  ];
  for (const result of results) {
    const head = `    <testcase classname="${xml(operationName(result.operation))}" name="${xml(`${result.source}: ${result.request} -> ${result.status}`)}"`;
    const details = [
      ...result.findings.map(findingText),
      ...(result.note ? [result.note] : []),
      ...(result.drift ? driftLines(result.drift).map((line) => `drift: ${line}`) : []),
    ];
    if (result.outcome === 'pass') {
      lines.push(
        details.length
          ? `${head}>\n      <system-out>${xml(details.join('\n'))}</system-out>\n    </testcase>`
          : `${head}/>`,
      );
    } else {
      const errors = result.findings.filter((finding) => finding.severity === 'error').length;
      const message = result.outcome === 'fail' ? `${errors} error finding(s)` : `not checked: ${result.note ?? ''}`;
      lines.push(
        `${head}>\n      <failure message="${xml(message)}">${xml(details.join('\n'))}</failure>\n    </testcase>`,
      );
    }
  }
  const closing = [...closingLines(report), ...(report.baseline ? [summaryLine(results, report.baseline)] : [])];
  if (closing.length) lines.push(`    <system-out>${xml(closing.join('\n'))}</system-out>`);
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

/**
 * A report against the API's documentation, one section per operation, with evidence: fields the API
 * returns that the document omits, optional fields never seen (across every 2xx JSON fixture of the
 * operation, `fieldPresence`), enum values the document lacks, nulls it does not allow, other findings.
 */
export function formatMarkdown(report: Report): string {
  const { results, loaded, fixtures } = report;
  const closing = closingLines(report);
  const out = [
    `# ${loaded.title} ${loaded.infoVersion}: what the API returns that the document does not say`,
    '',
    summaryLine(results, report.baseline),
    '',
    ...(closing.length ? [...closing.map((line) => `- ${line}`), ''] : []),
  ];
  const byOperation = new Map<string, { operation: Operation; indexes: number[] }>();
  results.forEach((result, index) => {
    if (!result.operation) return;
    const key = operationKey(result.operation);
    const operation = loaded.operations.find((candidate) => operationKey(candidate) === key)!;
    const entry = byOperation.get(key) ?? { operation, indexes: [] };
    entry.indexes.push(index);
    byOperation.set(key, entry);
  });
  for (const [key, { operation, indexes }] of [...byOperation].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push(`## ${key}${operation.operationId ? ` (${operation.operationId})` : ''}`, '');
    out.push(`Fixtures: ${indexes.map((index) => `\`${results[index]!.source}\``).join(', ')}`, '');
    const all = indexes.flatMap((index) =>
      results[index]!.findings.map((finding) => ({ finding, source: results[index]!.source })),
    );
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
    section(
      'Fields the API returns that the document omits',
      bullets(all.filter((row) => row.finding.kind === 'undocumented')),
    );
    const json2xx = indexes.filter(
      (index) =>
        results[index]!.status >= 200 &&
        results[index]!.status < 300 &&
        fixtures[index]!.body !== null &&
        typeof fixtures[index]!.body === 'object',
    );
    // Presence is counted over responses of one status, the first 2xx seen, as field_presence does.
    const ok = json2xx.filter((index) => results[index]!.status === results[json2xx[0]!]?.status);
    if (ok.length) {
      const status = results[ok[0]!]!.status;
      const target = schemaFor(loaded.doc, operation.method, operation.pathTemplate, status, 'application/json');
      if (target) {
        const presence = fieldPresence(
          loaded.doc,
          target.schema,
          ok.map((index) => fixtures[index]!.body),
          { at: target.schemaPath },
        );
        section(
          `Optional fields never seen (in ${ok.length} response(s) with status ${status})`,
          presence
            .filter((field) => field.documented && !field.required && field.present === 0)
            .map((field) => `- \`${field.path}\``),
        );
      }
    }
    section('Enum values the document lacks', bullets(all.filter((row) => row.finding.kind === 'enum')));
    section(
      'Nulls the document does not allow',
      bullets(all.filter((row) => row.finding.kind === 'wrongType' && row.finding.actual === 'null')),
    );
    section(
      'Other findings',
      bullets(
        all.filter(
          (row) =>
            row.finding.kind !== 'undocumented' &&
            row.finding.kind !== 'enum' &&
            !(row.finding.kind === 'wrongType' && row.finding.actual === 'null'),
        ),
        (finding) => `${finding.severity} ${finding.kind}: `,
      ),
    );
  }
  const unmatched = results.filter((result) => !result.operation);
  if (unmatched.length)
    out.push(
      '## Not in the document',
      '',
      ...unmatched.map((result) => `- \`${result.source}\`: ${result.note ?? result.request}`),
      '',
    );
  const drifted = results.filter((result) => result.drift);
  if (drifted.length) {
    out.push('## Drift against the live API', '');
    for (const result of drifted)
      out.push(`- \`${result.source}\` (${result.request}): ${driftLines(result.drift!).join('; ')}`);
    out.push('');
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}
