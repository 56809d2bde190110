/**
 * The contract: what a probed response, a draft request or an intent means against the OpenAPI
 * document. No MCP, no HTTP: plain data in, plain data out. The server and the CLI sit on top of it;
 * it sits on the schema checks (`validate.ts`) and the document core (`openapi-document.ts`).
 */
import { check, checkResponse, fieldPresence, inferShape, schemaFor } from './validate.ts';
import type { FieldPresence, Finding } from './validate.ts';
import type { BodyWarning } from './http-body.ts';
import { escapePointerToken, isJsonMediaType, matchOperation, responseForStatus } from './openapi-document.ts';
import type { LoadedDocument, Operation, PathMatch } from './openapi-document.ts';

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
};

/** The operation's key in session memory: `GET /meters/{meterId}`. */
export function operationKey(operation: Operation): string {
  return `${operation.method} ${operation.pathTemplate}`;
}

/** The operation as results show it: method, path template, operationId when it has one. */
export function summarize(operation: Operation): { method: string; pathTemplate: string; operationId?: string } {
  return { method: operation.method, pathTemplate: operation.pathTemplate, ...(operation.operationId ? { operationId: operation.operationId } : {}) };
}


/**
 * Matches a probed GET to an operation: the whole request path first (the document's base path, from
 * `servers` or `basePath`, stripped), then the path relative to API_BASE_URL as it is, for a document
 * without a matching base path. Never strips twice: `/v1` + `/v1/x` is `/v1/v1/x`, not `/x`.
 * @param basePrefix The path prefix of API_BASE_URL without a trailing slash (`/v2`, or `''`).
 * @param requestPath The whole path requested (`/v2/meters/1`); `relativePath` the part after the prefix (`/meters/1`).
 * @returns The path match; never throws.
 */
export function findOperation(loaded: LoadedDocument, basePrefix: string, requestPath: string, relativePath: string): PathMatch {
  const prefix = basePrefix;
  const whole = matchOperation(loaded, 'GET', requestPath);
  if (whole.operation) {
    // Stripping the base URL's own prefix is the normal case, not worth a note.
    const note = whole.note?.split('; ').filter((part) => part !== `base path ${prefix} stripped`).join('; ');
    return { ...whole, note: note || undefined };
  }
  if (prefix === '') return whole;
  const relative = matchOperation(loaded, 'GET', relativePath, { stripBasePaths: false });
  return relative.operation ? relative : whole;
}


/**
 * Checks a probe's body against the operation's documented response. A body that is cut, binary,
 * unparsable or too deep is not checked (`validated: false` and why). An empty body is judged by
 * what the document declares for the status: nothing (fine) or content (a `missing` finding at `$`).
 * `matchesContract` is given once there is a verdict: checked with no `error` finding.
 * Line-framed JSON (`records`) is checked record by record against the media type's schema, each
 * finding's path prefixed with the record's index (`$[2].id`); a record that does not parse is an
 * `error` finding of kind `wrongType` at `$[n]`. The body's own `warnings` (RFC 8259: duplicate
 * names, changed numbers, depth) follow the schema findings.
 */
export function judge(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse): Record<string, unknown> {
  const verdict = judgeBody(loaded, operation, probed);
  if (!probed.warnings?.length) return verdict;
  const findings = [...((verdict.findings as (Finding | BodyWarning)[] | undefined) ?? []), ...probed.warnings];
  return { ...verdict, findings };
}

function judgeBody(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse): Record<string, unknown> {
  if (probed.records && !probed.truncated) return judgeRecords(loaded, operation, probed, probed.records);
  if (probed.truncated) {
    return { validated: false, validationNote: 'The body was truncated, so it was not checked: a cut-off JSON text says nothing about the contract.' };
  }
  const unparsed = probed.body === null || (typeof probed.body === 'string' && isJsonMediaType(probed.contentType));
  if (probed.note && unparsed) return { validated: false, validationNote: probed.note };
  const empty = probed.bytes === 0;
  // An empty body has no media type worth the name: judge it against what the status declares at all.
  const checked = checkResponse(loaded.doc, 'GET', operation.pathTemplate, empty ? { status: probed.status, body: undefined } : { status: probed.status, contentType: probed.contentType ?? undefined, body: probed.body });
  const findings: Finding[] = [...checked.findings];
  let validated = checked.validated;
  let validationNote = checked.validated ? undefined : checked.reason;
  const unresolvedRoot = findings.find((finding) => finding.kind === 'unresolvedRef' && finding.path === '$');
  if (validated && unresolvedRoot) {
    // The schema itself could not be followed: nothing was checked, whatever the findings say.
    validated = false;
    validationNote = `The response schema could not be followed, so the body was not checked: ${unresolvedRoot.message}`;
  }
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

/** Checks line-framed JSON record by record (NDJSON, JSON Lines, json-seq; case 40). */
function judgeRecords(loaded: LoadedDocument, operation: Operation, probed: ProbedResponse, records: NonNullable<ProbedResponse['records']>): Record<string, unknown> {
  const findings: Finding[] = [];
  let schemaPath: string | undefined;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const at = `$[${index}]`;
    if (record.problem !== undefined) {
      findings.push({ kind: 'wrongType', severity: 'error', path: at, schemaPath: schemaPath ?? '', expected: 'one JSON text', actual: 'text that does not parse', message: `line ${record.line} is not JSON: ${record.problem}` });
      continue;
    }
    const checked = checkResponse(loaded.doc, 'GET', operation.pathTemplate, { status: probed.status, contentType: probed.contentType ?? undefined, body: record.value });
    if (!checked.validated) {
      return { validated: false, validationNote: `The records could not be checked: ${checked.reason}`, findings: checked.findings };
    }
    schemaPath ??= checked.target?.schemaPath;
    for (const finding of checked.findings) findings.push({ ...finding, path: finding.path.replace(/^\$/, at) });
  }
  const errors = findings.some((finding) => finding.severity === 'error');
  return { validated: true, ...(schemaPath ? { schemaPath } : {}), findings, matchesContract: !errors };
}

/** The response entry for a status: exact code, then `NXX`, then `default` (OpenAPI 3.0.3, Responses Object). */
export function documentedResponse(operation: Operation, status: number): { key: string; response: unknown } | undefined {
  return responseForStatus(operation.responses, status);
}

function hasContent(response: unknown): boolean {
  const content = (response as { content?: unknown } | null)?.content;
  return content !== null && typeof content === 'object' && Object.keys(content).length > 0;
}

/**
 * Resolves `operation` (operationId, "GET /template" or a concrete path) to an operation of the document.
 * @returns The operation, or a message saying what was not found and what to give instead.
 */
export function resolveOperation(loaded: LoadedDocument, basePrefix: string, operation: string): Operation | string {
  const byId = loaded.operations.find((candidate) => candidate.operationId === operation);
  if (byId) return byId;
  const spaced = /^([A-Za-z]+)\s+(\/.*)$/.exec(operation.trim());
  const method = spaced ? spaced[1]!.toUpperCase() : 'GET';
  const path = spaced ? spaced[2]! : operation.trim();
  const exact = loaded.operations.find((candidate) => candidate.method === method && candidate.pathTemplate === path);
  if (exact) return exact;
  if (method === 'GET' && path.startsWith('/')) {
    const match = findOperation(loaded, basePrefix, basePrefix + path, path);
    if (match.operation) return match.operation;
    return `No GET operation matches ${path}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}.`;
  }
  return `No operation \`${operation}\` in the document: give an operationId, "GET /path/{template}" or a concrete path such as /meters/mtr_1.`;
}

/** One record of a sample: a complete JSON 2xx response of one operation. */
export type SampleRecord = {
  /** The concrete path probed, query included, relative to API_BASE_URL: `/meters/mtr_1`. */
  path: string;
  status: number;
  /** The parsed JSON body. */
  body: unknown;
};

/** What several records of one operation show together; see `analyzeSample`. */
export type SampleAnalysis = {
  /** The concrete paths analysed, in probe order. */
  probes: string[];
  /** Every field seen or declared, with how often it was present: `present in 2 of 3`. */
  fields: FieldPresence[];
  /** Fields the document declares but does not require, as `$.location: present in 2 of 3`. */
  optionalFields: string[];
  /** Fields the document never mentions, same form. */
  undocumentedFields: string[];
  /** The shape a client would infer from the first record alone, and what each later record breaks in it. */
  inferredFromFirst: {
    from: string;
    note: string;
    /** JSON Schema 2020-12 written from the first body (`inferShape`). */
    shape: unknown;
    against: { path: string; findings: Finding[] }[];
  };
};

/**
 * Analyses several records of ONE operation: field presence against the response schema the document
 * gives for the first record's status (`application/json`), the fields it never mentions, and the
 * findings a shape inferred from the first record alone (every field seen required, types as seen)
 * yields on each later record. Those findings are not API faults: the document is the contract.
 * Used by `probe_sample` (records probed in one call) and `field_presence` (records of the session).
 * @param records At least one record, in probe order.
 * @returns The analysis; never throws on data.
 * @throws RangeError when `records` is empty (a caller's mistake, not data).
 */
export function analyzeSample(loaded: LoadedDocument, operation: Operation, records: SampleRecord[]): SampleAnalysis {
  const first = records[0];
  if (!first) throw new RangeError('analyzeSample needs at least one record');
  const target = schemaFor(loaded.doc, operation.method, operation.pathTemplate, first.status, 'application/json');
  const bodies = records.map((record) => record.body);
  const fields = fieldPresence(loaded.doc, target?.schema ?? {}, bodies, target ? { at: target.schemaPath } : undefined);
  const shape = inferShape(first.body);
  return {
    probes: records.map((record) => record.path),
    fields,
    optionalFields: fields.filter((field) => field.documented && !field.required).map((field) => `${field.path}: ${field.text}`),
    undocumentedFields: fields.filter((field) => !field.documented).map((field) => `${field.path}: ${field.text}`),
    inferredFromFirst: {
      from: first.path,
      note: 'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.',
      shape,
      against: records.slice(1).map((record) => ({ path: record.path, findings: check({}, shape, record.body) })),
    },
  };
}
