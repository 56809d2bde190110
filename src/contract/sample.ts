/**
 * Several records of one operation compared: how often each field was present, which the document requires,
 * undocumented fields, and what a shape inferred from the first record gets wrong.
 */
import { check, DEFAULT_CHECK_TIMEOUT_MS, measurePresence, schemaFor } from '../../validate.ts';
import { inferShape } from './shape.ts';
import type { FieldPresence, Finding } from '../../validate.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';

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
    against: { path: string; findings: Finding[]; findingsMore?: number }[];
  };
  /** How many rows `fields` would have had, when it was cut to `MAX_LISTED_FIELDS`. */
  fieldsTotal?: number;
  /** What was left out or not compared, and why (lists cut at the source, the presence walk's budget); absent when nothing was. */
  cut?: string;
};

/**
 * Rows each list of `analyzeSample` holds at most (`fields`, `optionalFields`, `undocumentedFields`), first by
 * path order; findings per later record at most `MAX_LISTED_FINDINGS`; the inferred shape at most
 * `MAX_SHAPE_CHARS` characters of JSON (issue 8).
 */
export const MAX_LISTED_FIELDS = 500;
export const MAX_LISTED_FINDINGS = 100;
export const MAX_SHAPE_CHARS = 20_000;
/**
 * Step budget (schema applications, as `check` counts them) shared by the checks of all later records against the
 * first one's shape in `analyzeSample`: the same records give the same findings on a busy machine and a quiet one.
 */
export const SAMPLE_CHECK_STEPS = 400_000;
/** Step budget shared by the null checks of all bodies in `observeBodies` (describe_operation). */
export const OBSERVE_CHECK_STEPS = 200_000;
/**
 * A last guard in ms over all the checks one of those budgets covers, only against a stalled thread: the checks'
 * own guard, far above what the steps cost (measured at `DEFAULT_CHECK_TIMEOUT_MS` in validate.ts).
 */
export const SHARED_CHECKS_GUARD_MS = DEFAULT_CHECK_TIMEOUT_MS;

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
  const presence = measurePresence(
    loaded.doc,
    target?.schema ?? {},
    bodies,
    target ? { at: target.schemaPath } : undefined,
  );
  const all = presence.fields;
  const notes = [...presence.notes];
  const listed = (rows: FieldPresence[], what: string): string[] => {
    if (rows.length > MAX_LISTED_FIELDS)
      notes.push(`${what} lists the first ${MAX_LISTED_FIELDS} of ${rows.length} (by path).`);
    return rows.slice(0, MAX_LISTED_FIELDS).map((field) => `${field.path}: ${field.text}`);
  };
  if (all.length > MAX_LISTED_FIELDS)
    notes.unshift(
      `fields lists the first ${MAX_LISTED_FIELDS} of ${all.length} (by path; fieldsTotal counts them all).`,
    );
  const optionalFields = listed(
    all.filter((field) => field.documented && !field.required),
    'optionalFields',
  );
  const undocumentedFields = listed(
    all.filter((field) => !field.documented),
    'undocumentedFields',
  );
  const inferred = inferShape(first.body);
  const shapeChars = JSON.stringify(inferred).length;
  let shape = inferred;
  if (shapeChars > MAX_SHAPE_CHARS) {
    shape = { $comment: `not shown: ${shapeChars} characters of JSON, past ${MAX_SHAPE_CHARS}` };
    notes.push(
      `inferredFromFirst.shape is ${shapeChars} characters of JSON, past ${MAX_SHAPE_CHARS}, so it is not shown; the later records were still checked against it.`,
    );
  }
  // One step budget for all the later records (issues 8 and 15): a check past it says `notChecked`, never passes.
  const spent = { steps: 0 };
  const guard = performance.now() + SHARED_CHECKS_GUARD_MS;
  // One document for every record: validate.ts caches its plans per document object.
  const shapeDocument = {};
  const against = records.slice(1).map((record) => {
    const findings = check(shapeDocument, inferred, record.body, {
      maxSteps: Math.max(0, SAMPLE_CHECK_STEPS - spent.steps),
      timeoutMs: Math.max(0, guard - performance.now()),
      spent,
    });
    if (findings.length <= MAX_LISTED_FINDINGS) return { path: record.path, findings };
    return {
      path: record.path,
      findings: findings.slice(0, MAX_LISTED_FINDINGS),
      findingsMore: findings.length - MAX_LISTED_FINDINGS,
    };
  });
  if (against.some((entry) => entry.findingsMore !== undefined))
    notes.push(
      `inferredFromFirst.against lists the first ${MAX_LISTED_FINDINGS} findings per record; findingsMore counts the rest.`,
    );
  const listsCut = notes.length > presence.notes.length;
  return {
    probes: records.map((record) => record.path),
    fields: all.slice(0, MAX_LISTED_FIELDS),
    optionalFields,
    undocumentedFields,
    inferredFromFirst: {
      from: first.path,
      note: 'What a client would get wrong if it took the first probe as the shape (every field seen made required, every type as seen). The document is the contract; these are not API faults.',
      shape,
      against,
    },
    ...(all.length > MAX_LISTED_FIELDS ? { fieldsTotal: all.length } : {}),
    ...(notes.length
      ? {
          cut: `Not all listed or compared (issue 8): ${notes.join(' ')}${listsCut ? " Compare fewer or smaller records, or a part of them with probe's `select`." : ''}`,
        }
      : {}),
  };
}

/** How much of a sample analysis a tool returns: the part an agent acts on, or every row. */
export type SampleDetail = 'summary' | 'full';

/**
 * The analysis as `probe_sample` and `field_presence` return it. Both details leave out rows of fields whose parent
 * never appeared (`present in 0 of 0`: nothing was seen to count). `summary` (the default) keeps what a client needs
 * to act on: the optional fields with their counts, the undocumented fields, and the later records that break the
 * shape inferred from the first one, each with its findings; it leaves out the per-field table (`fields`), the
 * inferred shape, later records that break nothing, and every empty list, and says how to get them. `full` is
 * `analyzeSample`'s answer less the 0-of-0 rows.
 * @param analysis From `analyzeSample`.
 * @returns A new object; `analysis` is not changed. Never throws.
 */
export function presentSample(analysis: SampleAnalysis, detail: SampleDetail): Record<string, unknown> {
  const counted = (row: string) => !row.endsWith(': present in 0 of 0');
  const fields = analysis.fields.filter((field) => field.of > 0);
  const optionalFields = analysis.optionalFields.filter(counted);
  const undocumentedFields = analysis.undocumentedFields.filter(counted);
  const unseen = analysis.fields.length - fields.length;
  const { cut, fieldsTotal, inferredFromFirst } = analysis;
  if (detail === 'full')
    return {
      ...analysis,
      fields,
      optionalFields,
      undocumentedFields,
      ...(unseen ? { unseenFields: unseen } : {}),
    };
  const breaking = inferredFromFirst.against.filter((entry) => entry.findings.length > 0);
  const left = [
    'fields (each field with its count)',
    'inferredFromFirst.shape',
    ...(breaking.length < inferredFromFirst.against.length ? ['the later records that break nothing'] : []),
  ];
  return {
    probes: analysis.probes,
    ...(optionalFields.length ? { optionalFields } : {}),
    ...(undocumentedFields.length ? { undocumentedFields } : {}),
    inferredFromFirst: {
      from: inferredFromFirst.from,
      note: inferredFromFirst.note,
      ...(breaking.length
        ? { against: breaking }
        : {
            matched: inferredFromFirst.against.length
              ? `Every later record fits the shape of ${inferredFromFirst.from}.`
              : 'One record only: no later record to check against its shape.',
          }),
    },
    ...(fieldsTotal !== undefined ? { fieldsTotal } : {}),
    ...(cut ? { cut } : {}),
    detail: `A summary: ${left.join(', ')} are left out${unseen ? `, and ${unseen} fields under parents no record had are not counted` : ''}; detail: "full" gives them.`,
  };
}
