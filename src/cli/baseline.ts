/**
 * The baseline of `check` (issue 17): findings known and accepted, as linters' baselines are, so CI stays green on
 * faults of a vendor's document that no one here can fix, and turns red on any new one. One entry per accepted
 * finding, keyed by operation (`GET /meters/{meterId}`), instance path and finding kind; never by message text.
 */
import { readFileSync } from 'node:fs';
import { unquotedParseError } from '../shared/json-text.ts';
import { InputError } from './fixtures.ts';
import type { CheckedFixture } from './fixtures.ts';
import { DEMO_EXAMPLES } from '../document/demo-examples.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';

/**
 * One accepted finding: `operation` is METHOD + path template, `path` the instance path, `kind` the finding kind;
 * `reason`, optional, is a person's note on why it is accepted (kept when the file is written anew, never matched).
 */
export type BaselineEntry = { operation: string; path: string; kind: string; reason?: string };

/** What a baseline did to a run: findings accepted (each occurrence counted), entries no finding matched any more. */
export type BaselineOutcome = { file: string; accepted: number; fixed: BaselineEntry[]; written?: number };

/** The version field of the file; a file of another version is refused rather than read as if it were this one. */
export const BASELINE_VERSION = 1;

const FIELDS = ['operation', 'path', 'kind'] as const;

/**
 * Reads a baseline file: `{"version": 1, "accepted": [{"operation", "path", "kind", "reason"?}, ...]}`.
 * @returns Its entries, in file order. Throws InputError (`missing`, `not-json` or `bad-baseline`) naming the file
 *   and, for a bad entry, its index and field: a baseline that cannot be read accepts nothing.
 */
export function readBaseline(file: string, examples: DocumentExamples | undefined = DEMO_EXAMPLES): BaselineEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError('missing', `${file}: no such baseline file (write one with --update-baseline)`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError('not-json', `${file}: the baseline is not JSON (${unquotedParseError(error)})`);
  }
  const shape = `a baseline is {"version": ${BASELINE_VERSION}, "accepted": [{"operation": "GET /path/{template}", "path": "$.field", "kind": "enum"}, ...]}`;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InputError('bad-baseline', `${file}: ${shape}`);
  const record = data as Record<string, unknown>;
  if (record.version !== BASELINE_VERSION)
    throw new InputError(
      'bad-baseline',
      `${file}: \`version\` must be ${BASELINE_VERSION}, got ${JSON.stringify(record.version) ?? 'nothing'}; ${shape}`,
    );
  if (!Array.isArray(record.accepted))
    throw new InputError('bad-baseline', `${file}: \`accepted\` must be an array; ${shape}`);
  return record.accepted.map((entry: unknown, index) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw new InputError('bad-baseline', `${file}: accepted[${index}] must be an object {operation, path, kind}`);
    const fields = entry as Record<string, unknown>;
    for (const name of FIELDS) {
      if (typeof fields[name] !== 'string' || fields[name] === '')
        throw new InputError(
          'bad-baseline',
          `${file}: accepted[${index}].${name} must be a non-empty string, got ${JSON.stringify(fields[name]) ?? 'nothing'}`,
        );
    }
    // A misspelt field (`kinds`) must not pass unseen: only the known ones are allowed.
    const extra = Object.keys(fields).find(
      (name) => !(FIELDS as readonly string[]).includes(name) && name !== 'reason',
    );
    if (extra !== undefined)
      throw new InputError(
        'bad-baseline',
        `${file}: accepted[${index}] has \`${extra}\`; an entry holds only operation, path, kind and reason`,
      );
    if (fields.reason !== undefined && typeof fields.reason !== 'string')
      throw new InputError('bad-baseline', `${file}: accepted[${index}].reason must be a string`);
    if (!/^[A-Z]+ \//.test(fields.operation as string))
      throw new InputError(
        'bad-baseline',
        `${file}: accepted[${index}].operation must be METHOD and path template${examples ? `, e.g. ${JSON.stringify(`GET ${examples.template}`)}` : ''}, got ${JSON.stringify(fields.operation)}`,
      );
    return {
      operation: fields.operation as string,
      path: fields.path as string,
      kind: fields.kind as string,
      ...(typeof fields.reason === 'string' ? { reason: fields.reason } : {}),
    };
  });
}

/** The key an entry and a finding share: the three fields joined by a character none of them can hold unescaped. */
function keyOf(entry: BaselineEntry): string {
  return JSON.stringify([entry.operation, entry.path, entry.kind]);
}

/**
 * The baseline entries of a run's findings: one per operation, instance path and kind, sorted (code units), each
 * with the `reason` its entry in `known` had.
 */
export function baselineEntries(results: CheckedFixture[], known: BaselineEntry[] = []): BaselineEntry[] {
  const reasons = new Map(known.flatMap((entry) => (entry.reason !== undefined ? [[keyOf(entry), entry.reason]] : [])));
  const entries = new Map<string, BaselineEntry>();
  for (const result of results) {
    if (!result.operation) continue;
    const operation = `${result.operation.method} ${result.operation.pathTemplate}`;
    for (const finding of result.findings) {
      const entry: BaselineEntry = { operation, path: finding.path, kind: finding.kind };
      const reason = reasons.get(keyOf(entry));
      entries.set(keyOf(entry), reason !== undefined ? { ...entry, reason } : entry);
    }
  }
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...entries.values()].sort(
    (a, b) => compare(a.operation, b.operation) || compare(a.path, b.path) || compare(a.kind, b.kind),
  );
}

/** The text of a baseline file for `entries`: stable (sorted as given), one entry a line, ending in a newline. */
export function baselineText(entries: BaselineEntry[]): string {
  const lines = entries.map(
    (entry, index) =>
      `    ${JSON.stringify({ operation: entry.operation, path: entry.path, kind: entry.kind, ...(entry.reason !== undefined ? { reason: entry.reason } : {}) })}${index < entries.length - 1 ? ',' : ''}`,
  );
  return `{\n  "version": ${BASELINE_VERSION},\n  "accepted": [${lines.length ? `\n${lines.join('\n')}\n  ` : ''}]\n}\n`;
}

/**
 * Marks the findings `entries` list as accepted (`accepted: true`), in place, and settles each fixture again: a
 * `fail` whose every error finding is accepted passes, unless its body was not fully checked (it has a note), which
 * makes it `unchecked`: accepting a finding never makes a check that did not run a pass. Only exact keys count.
 * @returns How many findings were accepted and which entries matched no finding (fixed).
 */
export function applyBaseline(results: CheckedFixture[], entries: BaselineEntry[], file: string): BaselineOutcome {
  const listed = new Set(entries.map(keyOf));
  const seen = new Set<string>();
  let accepted = 0;
  for (const result of results) {
    if (!result.operation) continue;
    const operation = `${result.operation.method} ${result.operation.pathTemplate}`;
    for (const finding of result.findings) {
      const key = keyOf({ operation, path: finding.path, kind: finding.kind });
      seen.add(key);
      if (listed.has(key)) {
        finding.accepted = true;
        accepted++;
      }
    }
    if (
      result.outcome === 'fail' &&
      result.findings.every((finding) => finding.severity !== 'error' || finding.accepted)
    )
      result.outcome = result.note ? 'unchecked' : 'pass';
  }
  const fixed = new Map<string, BaselineEntry>();
  for (const entry of entries) if (!seen.has(keyOf(entry))) fixed.set(keyOf(entry), entry);
  return { file, accepted, fixed: [...fixed.values()] };
}
