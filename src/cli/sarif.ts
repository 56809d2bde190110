/**
 * The SARIF 2.1.0 report of `check` (OASIS SARIF 2.1.0), which GitHub code scanning and CI dashboards read: one
 * result per finding, per fixture that could not be checked, per live GET not compared and per drift (issue 17).
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { operationKey } from '../document/model.ts';
import { SERVER_INFO } from '../runtime/server-info.ts';
import { driftLines, entryText, leftOutText, summaryLine } from './reports.ts';
import type { Report } from './reports.ts';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');

/** The `$schema` a SARIF 2.1.0 log names (SARIF 2.1.0, 3.13.3), as GitHub's own examples give it. */
export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** One line on each rule, shown by GitHub at the head of an alert (`shortDescription`, SARIF 2.1.0, 3.49.9). */
const RULES: Record<string, string> = {
  missing: 'A field the document requires is missing',
  wrongType: 'A value of another type than the document says',
  undocumented: 'A field or body the document does not describe',
  enum: 'A value outside the values the document allows',
  constraint: 'A value that breaks a documented constraint (minimum, maxLength, pattern, ...)',
  format: 'A value that breaks its documented format',
  writeOnly: 'A writeOnly field in a response',
  readOnly: 'A readOnly field where the document forbids it',
  undocumentedStatus: 'A status the operation does not document',
  unresolvedRef: 'A $ref that could not be followed, so that part was not checked',
  notChecked: 'A part of the body that could not be checked',
  duplicateName: 'A JSON object with a member name twice (RFC 8259, 4)',
  tooDeep: 'A JSON value nested too deep to check (RFC 8259, 9)',
  inexactNumber: 'A JSON number that parsing changes (RFC 8259, 6)',
  unchecked: 'A fixture that could not be checked: never a pass',
  liveNotCompared: 'A live GET that could not be made or answered another status, so nothing was compared',
  drift: 'A difference between the fixture and what the live API sends now',
};

const LEVELS = { error: 'error', warning: 'warning', info: 'note' } as const;

/** A fixture's file as a SARIF `artifactLocation.uri` (SARIF 2.1.0, 3.4.3): relative paths stay relative, `/` between segments. */
function fileUri(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}

/**
 * The SARIF 2.1.0 log of a run: one run, the tool `openapi-probe`, its rules (one per finding kind met), and a
 * result per finding. Each result's location names the fixture's file (`physicalLocation.artifactLocation.uri`,
 * relative as given; `region.startLine` 1, since a fixture is a whole file or a HAR entry and GitHub needs a line)
 * and the document's JSON Pointer of the rule as a `logicalLocation` (`fullyQualifiedName`, SARIF 2.1.0, 3.33):
 * a place that has no line of its own, which viewers list with the result, where a property bag is opaque to them.
 * The instance path, operation, fixture (with `#entry` for a HAR) and request are in `properties`. A finding the
 * baseline lists carries an `external` suppression with status `accepted` (SARIF 2.1.0, 3.35).
 * `partialFingerprints.primaryLocationLineHash` is derived from the fixture, operation, instance path and kind, so
 * GitHub does not merge results that share line 1 of a file. Left-out HAR entries, the baseline and the summary
 * are in the run's `properties`.
 * @returns The log as JSON text, two-space indented, ending in a newline.
 */
export function formatSarif(report: Report, documentFile?: string): string {
  const { results, fixtures, loaded } = report;
  const used = new Set<string>();
  const sarifResults: unknown[] = [];
  const add = (
    index: number,
    ruleId: string,
    level: 'error' | 'warning' | 'note',
    text: string,
    pointer: string | undefined,
    extra: Record<string, unknown>,
    accepted = false,
  ) => {
    const result = results[index]!;
    const fixture = fixtures[index]!;
    const file = fixture.url !== undefined ? result.source.replace(/#\d+$/, '') : result.source;
    const operation = result.operation ? `${result.operation.method} ${result.operation.pathTemplate}` : undefined;
    used.add(ruleId);
    const fingerprint = crypto()
      .createHash('sha256')
      .update(JSON.stringify([result.source, operation ?? result.request, ruleId, extra.instancePath ?? text]))
      .digest('hex')
      .slice(0, 32);
    sarifResults.push({
      ruleId,
      level,
      message: { text },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: fileUri(file) }, region: { startLine: 1 } },
          ...(pointer ? { logicalLocations: [{ fullyQualifiedName: pointer }] } : {}),
        },
      ],
      ...(documentFile && pointer
        ? {
            relatedLocations: [
              {
                id: 0,
                physicalLocation: { artifactLocation: { uri: fileUri(documentFile) } },
                logicalLocations: [{ fullyQualifiedName: pointer }],
                message: { text: 'the rule in the OpenAPI document' },
              },
            ],
          }
        : {}),
      partialFingerprints: { primaryLocationLineHash: `${fingerprint}:1` },
      ...(accepted
        ? {
            suppressions: [
              {
                kind: 'external',
                status: 'accepted',
                justification: `listed in the baseline ${report.baseline?.file ?? ''}`,
              },
            ],
          }
        : {}),
      properties: {
        fixture: result.source,
        request: `${result.request} -> ${result.status}`,
        ...(operation ? { operation } : {}),
        ...extra,
      },
    });
  };
  results.forEach((result, index) => {
    const key = result.operation ? operationKey(result.operation) : undefined;
    const operation = key ? loaded.operations.find((candidate) => operationKey(candidate) === key) : undefined;
    for (const finding of result.findings) {
      add(
        index,
        finding.kind,
        LEVELS[finding.severity],
        `${result.request} -> ${result.status}: ${finding.path} ${finding.message}`,
        finding.schemaPath,
        { instancePath: finding.path },
        finding.accepted === true,
      );
    }
    if (result.outcome === 'unchecked')
      add(
        index,
        'unchecked',
        'error',
        `${result.request} -> ${result.status}: not checked. ${result.note ?? ''}`.trim(),
        operation?.pointer,
        {},
      );
    if (result.drift && 'error' in result.drift)
      add(
        index,
        'liveNotCompared',
        'error',
        `${result.request}: not compared: ${result.drift.error}`,
        operation?.pointer,
        {},
      );
    else if (result.drift)
      for (const line of driftLines(result.drift).slice(1))
        if (line !== 'no drift')
          add(index, 'drift', 'note', `${result.request}: drift: ${line}`, operation?.pointer, { drift: line });
  });
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: SERVER_INFO.name,
            version: SERVER_INFO.version,
            rules: [...used].sort().map((id) => ({
              id,
              shortDescription: { text: Object.hasOwn(RULES, id) ? RULES[id]! : `A finding of kind ${id}` },
            })),
          },
        },
        results: sarifResults,
        properties: {
          summary: summaryLine(results, report.baseline),
          ...(report.leftOut.length ? { leftOut: report.leftOut.map((left) => leftOutText(left, report.scope)) } : {}),
          ...(report.baseline
            ? {
                baseline: {
                  file: report.baseline.file,
                  accepted: report.baseline.accepted,
                  fixed: report.baseline.fixed.map(entryText),
                },
              }
            : {}),
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
