/**
 * What a probed response means against the document: the operation it belongs to, and the judgement of its
 * status and body against the schema the operation declares (OpenAPI 3.x, Operation and Responses Objects).
 */
import { checkResponse } from '../../validate.ts';
import type { Finding, InexactNumbers } from '../../validate.ts';
import type { BodyWarning, ChangedNumbers } from '../shared/json-text.ts';
import { parseDecimal } from '../shared/decimal.ts';
import { escapePointerToken } from '../shared/json-pointer.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';

import { MAX_TEXT, cleanedOnce, cutValue, documentedResponse, hasContent } from './operation.ts';
import { boundedText } from '../shared/text.ts';
/** What the contract needs of one GET's outcome (the server's `ProbeResult` has these fields). */
export type ProbedResponse = {
  status: number;
  /** The Content-Type header as sent, or null. */
  contentType: string | null;
  /** Body bytes after content decoding. */
  bytes: number;
  /** True when the body was cut at the budget. */
  truncated: boolean;
  /** Parsed JSON, text, or null for a binary body. */
  body: unknown;
  /** Set when the body could not be read as the media type says (binary, cut, unparsable JSON). */
  note?: string;
  /** Remarks about the JSON text itself (duplicate names, changed numbers, depth): added to the findings as they are. */
  warnings?: BodyWarning[];
  /** Line-framed JSON (NDJSON, JSON Lines, json-seq): each record parsed; checked one by one against the schema. */
  records?: { line: number; value?: unknown; problem?: string }[];
  /** Every number JSON parsing changed, as written (the warnings list only 20); checked as written. */
  numbers?: ChangedNumbers;
};

/**
 * Checks a probe's body against the operation's documented response. A body that is cut, binary,
 * unparsable or too deep is not checked (`validated: false` and why). An empty body is judged by
 * what the document declares for the status: nothing (fine) or content (a `missing` finding at `$`).
 * `matchesContract` is given once there is a verdict: checked with no `error` finding.
 * Line-framed JSON (`records`) is checked record by record against the media type's schema, each
 * finding's path prefixed with the record's index (`$[2].id`); a record that does not parse is an
 * `error` finding of kind `wrongType` at `$[n]`. The body's own `warnings` (RFC 8259: duplicate
 * names, changed numbers, depth) follow the schema findings. Schema findings are bounded (`boundFindings`), so a
 * hostile document cannot make the answer large.
 * @param clean The key redactor's `text`, applied to the document text a finding repeats before it is cut.
 */
export function judge(
  loaded: LoadedDocument,
  operation: Operation,
  probed: ProbedResponse,
  clean?: (text: string) => string,
): Record<string, unknown> {
  const verdict = judgeBody(loaded, operation, probed, clean);
  if (Array.isArray(verdict.findings)) verdict.findings = boundFindings(verdict.findings as Finding[], clean);
  if (!probed.warnings?.length) return verdict;
  const findings = [...((verdict.findings as (Finding | BodyWarning)[] | undefined) ?? []), ...probed.warnings];
  return { ...verdict, findings };
}

function judgeBody(
  loaded: LoadedDocument,
  operation: Operation,
  probed: ProbedResponse,
  clean?: (text: string) => string,
): Record<string, unknown> {
  if (probed.records && !probed.truncated) return judgeRecords(loaded, operation, probed, probed.records, clean);
  if (probed.truncated) {
    return {
      validated: false,
      validationNote:
        'The body was truncated, so it was not checked: a cut-off JSON text says nothing about the contract.',
    };
  }
  const unparsed = probed.body === null || (typeof probed.body === 'string' && isJsonMediaType(probed.contentType));
  if (probed.note && unparsed) return { validated: false, validationNote: probed.note };
  const empty = probed.bytes === 0;
  // An empty body has no media type worth the name: judge it against what the status declares at all.
  const checked = checkResponse(
    loaded.doc,
    'GET',
    operation.pathTemplate,
    empty
      ? { status: probed.status, body: undefined }
      : { status: probed.status, contentType: probed.contentType ?? undefined, body: probed.body },
    { ...inexactNumbersOf(probed), clean },
  );
  const findings: Finding[] = [...checked.findings];
  let validated = checked.validated;
  let validationNote = checked.validated ? undefined : checked.reason;
  if (empty && !findings.some((finding) => finding.kind === 'undocumentedStatus')) {
    validated = true;
    validationNote = undefined;
    if (checked.target) {
      findings.push({
        kind: 'missing',
        severity: 'error',
        path: '$',
        schemaPath: checked.target.schemaPath,
        message: `the body is empty, but the document declares ${checked.target.mediaType ?? 'a'} content for status ${checked.target.statusKey}`,
      });
    }
  }
  const declared = documentedResponse(operation, probed.status);
  if (!empty && declared && !hasContent(declared.response)) {
    // A body the document says this status never has: drift worth seeing, though nothing to check it against.
    findings.push({
      kind: 'undocumented',
      severity: 'warning',
      path: '$',
      schemaPath: `${operation.pointer}/responses/${escapePointerToken(declared.key)}`,
      message: `a ${probed.bytes}-byte body was sent, but the document declares no content for status ${declared.key}`,
    });
  }
  const errors = findings.some((finding) => finding.severity === 'error');
  return {
    validated,
    ...(validationNote ? { validationNote } : {}),
    ...(checked.target ? { schemaPath: checked.target.schemaPath } : {}),
    findings,
    ...(validated || errors ? { matchesContract: validated && !errors } : {}),
  };
}

/**
 * The numbers the body scan found changed by JSON parsing (RFC 8259, 6), for `checkResponse`: where the number as
 * written is known and a JSON number, the check compares it exactly (`texts`); where it is not (too long to keep, or
 * redacted), its numeric constraints are not checked (`paths`); `unlisted` when the scan stopped listing. Read from
 * the scan's full list (`numbers`) when there is one, else from the warnings (each one's first value is the number as
 * written, cut past 60 characters; a warning without `values` is the scan's "N more not listed").
 * @param prefix Only numbers under this instance path (a record's `$[2]`), read relative to it.
 */
function inexactNumbersOf(probed: ProbedResponse, prefix = '$'): { inexactNumbers: InexactNumbers } | undefined {
  const under = (path: string) =>
    prefix === '$' || path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  const relative = (path: string) => `$${path.slice(prefix.length)}`;
  const texts = new Map<string, string>();
  const paths = new Set<string>();
  let unlisted = false;
  const numbers: ChangedNumbers | undefined = probed.numbers;
  if (numbers) {
    for (const [path, written] of numbers.written)
      if (under(path)) {
        if (parseDecimal(written)) texts.set(relative(path), written);
        else paths.add(relative(path));
      }
    for (const path of numbers.unknown) if (under(path)) paths.add(relative(path));
    unlisted = numbers.unlisted;
  } else {
    for (const warning of probed.warnings ?? []) {
      if (warning.kind !== 'inexactNumber' || !under(warning.path)) continue;
      if (!warning.values) {
        unlisted = true;
        continue;
      }
      const written = warning.values[0]!;
      if (parseDecimal(written)) texts.set(relative(warning.path), written);
      else paths.add(relative(warning.path));
    }
  }
  if (texts.size === 0 && paths.size === 0 && !unlisted) return undefined;
  return { inexactNumbers: { paths, texts, unlisted } };
}

/** Checks line-framed JSON record by record (NDJSON, JSON Lines, json-seq). */
function judgeRecords(
  loaded: LoadedDocument,
  operation: Operation,
  probed: ProbedResponse,
  records: NonNullable<ProbedResponse['records']>,
  clean?: (text: string) => string,
): Record<string, unknown> {
  const findings: Finding[] = [];
  let schemaPath: string | undefined;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const at = `$[${index}]`;
    if (record.problem !== undefined) {
      findings.push({
        kind: 'wrongType',
        severity: 'error',
        path: at,
        schemaPath: schemaPath ?? '',
        expected: 'one JSON text',
        actual: 'text that does not parse',
        message: `line ${record.line} is not JSON: ${record.problem}`,
      });
      continue;
    }
    const checked = checkResponse(
      loaded.doc,
      'GET',
      operation.pathTemplate,
      { status: probed.status, contentType: probed.contentType ?? undefined, body: record.value },
      { ...inexactNumbersOf(probed, at), clean },
    );
    if (!checked.validated) {
      return {
        validated: false,
        validationNote: `The records could not be checked: ${checked.reason}`,
        findings: checked.findings,
      };
    }
    schemaPath ??= checked.target?.schemaPath;
    for (const finding of checked.findings) findings.push({ ...finding, path: finding.path.replace(/^\$/, at) });
  }
  const errors = findings.some((finding) => finding.severity === 'error');
  return { validated: true, ...(schemaPath ? { schemaPath } : {}), findings, matchesContract: !errors };
}

/** A finding as an answer shows it: `repeats` counts the further findings of its kind, path and keyword folded into it. */
export type BoundedFinding = Finding & { repeats?: number };

/**
 * Findings as an answer may show them, whatever the document holds (issue 18: document text is as hostile as the
 * API's bytes): one finding of each kind per instance path and keyword (`keyword`, else the schema path's last
 * token: `enum`, `const`, `required`...), the first kept and `repeats` counting the rest; the document text each
 * repeats cut by the rule `describe_operation` follows: `path`, `schemaPath`, `expected` and `keyword` to
 * `MAX_TEXT` characters, `message` to twice that, each `allowed` value by `cutValue` (lists are already at most 20
 * values with `allowedMore`). Order kept. Cost is linear in the number of findings.
 * @param clean Applied to each text before it is cut (the key redactor's `text`), so a cut never leaves a prefix of
 *   the key; default none.
 */
export function boundFindings(findings: Finding[], clean: (text: string) => string = (text) => text): BoundedFinding[] {
  const kept = new Map<string, BoundedFinding>();
  const out: BoundedFinding[] = [];
  // Every finding of an enum repeats the same document strings: each is cleaned once.
  const once = cleanedOnce(clean);
  const cut = (text: string, max = MAX_TEXT) => boundedText(once(text), max);
  for (const finding of findings) {
    const keyword = finding.keyword ?? finding.schemaPath.slice(finding.schemaPath.lastIndexOf('/') + 1);
    const key = `${finding.kind}\u0000${finding.path}\u0000${keyword}`;
    const first = kept.get(key);
    if (first) {
      first.repeats = (first.repeats ?? 0) + 1;
      continue;
    }
    const bounded: BoundedFinding = {
      ...finding,
      path: cut(finding.path),
      schemaPath: cut(finding.schemaPath),
      message: cut(finding.message, 2 * MAX_TEXT),
      ...(finding.expected !== undefined ? { expected: cut(finding.expected) } : {}),
      ...(finding.actual !== undefined ? { actual: cut(finding.actual) } : {}),
      ...(finding.keyword !== undefined ? { keyword: cut(finding.keyword) } : {}),
      ...(finding.allowed !== undefined
        ? { allowed: finding.allowed.map((value) => cutValue(value, undefined, once)) }
        : {}),
    };
    kept.set(key, bounded);
    out.push(bounded);
  }
  return out;
}
