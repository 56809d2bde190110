/**
 * The body pipeline of a probe, after the bytes have arrived: decode (charset, `JSON.parse`, the
 * JSON text scan), redaction of the key, the view the agent sees, and the judgement against the
 * document. Plain data in, plain data out, so it runs the same on the main thread and in the check
 * worker (`check-worker.ts`), which keeps the CPU-heavy part off the thread that answers `ping`
 * (issue 8, "Nothing stalls the server").
 */
import { findOperation } from '../contract/operation.ts';
import { judge } from '../contract/judge.ts';
import { operationKey } from '../document/model.ts';
import { summarize } from '../contract/operation.ts';
import { checkParameters, queryPairsOf } from '../contract/parameters.ts';
import { apiKeySlip } from '../runtime/config.ts';
import type { Config } from '../runtime/config.ts';
import type { DocumentSource } from '../document/source.ts';
import type { LoadedDocument } from '../document/model.ts';
import { hideSourceSecrets, withheldNote } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { fitView, selectPart } from '../api/body-view.ts';
import type { Selector } from '../api/body-view.ts';

import { trimSlash } from '../shared/url-path.ts';
import { decodeProbe } from '../api/probe.ts';
import type { RawResponse } from '../api/probe.ts';
import { missingServerPath, pathAfterBase, repeatedPrefixHint } from '../shared/url-path.ts';
import { REMEMBER_MAX_BYTES, structuredTexts } from './answers.ts';
/**
 * A complete JSON 2xx body seen by a probe in this session, kept for `field_presence`, `describe_operation`
 * and `compare_fixture`: as its JSON text (`text`, redacted), so the main thread holds and passes a string,
 * never the parsed graph; `cost` is its `memoryCost` (bytes), what session memory is accounted by.
 */
export type Seen = { path: string; status: number; at: string; text: string; cost: number };

/**
 * Bytes a parsed JSON body is taken to hold in memory: its JSON text's byte count plus 64 bytes per
 * JSON value in it (every object, array, string, number, boolean and null; a JavaScript object or
 * boxed value costs about that on V8), so 1 MiB of `[{},{},…]` (349,000 values) costs about 22 MiB
 * and 1 MiB of long strings about 1 MiB. Counted without recursion. Session memory is accounted by it,
 * so the bodies a job parses back (field_presence, describe as TypeScript) are bounded the same way.
 * @param value Parsed JSON.
 * @param textBytes Byte count of its JSON text (the body as received).
 */
export function memoryCost(value: unknown, textBytes: number): number {
  let values = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const current = stack.pop();
    values++;
    if (current !== null && typeof current === 'object') for (const inner of Object.values(current)) stack.push(inner);
  }
  return textBytes + 64 * values;
}

/** What the pipeline needs: the configuration, the key redactor, the document source (if any). */
export type PipelineContext = { config: Config; redact: Redactor; documents?: DocumentSource };

/** The pipeline's answer: the tool result's structured content, whether it is an error, and what to remember. */
export type CheckedProbe = {
  structured: Record<string, unknown>;
  isError: boolean;
  /** A complete JSON 2xx body to keep in session memory, under its operation's key when one matched. */
  remember?: { operationKey?: string; seen: Seen };
  /** A complete JSON 2xx body over `REMEMBER_MAX_BYTES`, not kept: its path (with query) and size, so tools can say why it is missing. */
  tooLarge?: { operationKey?: string; path: string; bytes: number };
};

/**
 * `JSON.stringify(object)` of a plain object (no `toJSON` of its own, no replacer), with the member `key`
 * written as `valueText`, the JSON text of its value made beforehand: members in own-key order, those whose
 * value has no JSON form (`undefined`, a function) left out, as ECMA-262 SerializeJSONObject does.
 * @param valueText Must be `JSON.stringify(object[key])`; the caller keeps it so.
 */
export function stringifyWith(object: Record<string, unknown>, key: string, valueText: string): string {
  const members: string[] = [];
  for (const name of Object.keys(object)) {
    const text = name === key ? valueText : JSON.stringify(object[name]);
    if (text !== undefined) members.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * The pipeline's answer, its structured content's text registered in `structuredTexts`: the remembered body's JSON
 * text reused when `structured.body` is that body itself, so the body is serialized once per probe.
 */
function checked(
  structured: Record<string, unknown>,
  isError: boolean,
  remember: CheckedProbe['remember'],
  body: unknown,
  tooLarge?: CheckedProbe['tooLarge'],
): CheckedProbe {
  structuredTexts.set(
    structured,
    remember && structured.body === body
      ? stringifyWith(structured, 'body', remember.seen.text)
      : JSON.stringify(structured),
  );
  return { structured, isError, ...(remember ? { remember } : {}), ...(tooLarge ? { tooLarge } : {}) };
}

/**
 * The document, or why there is none: `problem` as a probe's `validationNote` says it ("…, so the response was
 * not checked"), `reason` for the tools that need the document to answer at all. Neither carries a password
 * or token of `OPENAPI_DOC`.
 */
export type DocumentState = { loaded?: LoadedDocument; problem?: string; reason?: string };

/** The document, or why there is none (see `DocumentState`). Never throws. */
export async function loadDocumentState(context: {
  config: Config;
  documents?: DocumentSource;
}): Promise<DocumentState> {
  if (!context.documents)
    return {
      problem: 'No OpenAPI document configured (set OPENAPI_DOC), so the response was not checked.',
      reason: 'No OpenAPI document is configured: set OPENAPI_DOC.',
    };
  try {
    return { loaded: await context.documents.get() };
  } catch (error) {
    // The message may name OPENAPI_DOC; its password or token never goes out (issue 8).
    const why = hideSourceSecrets((error as Error).message, context.config.openapiDoc);
    return {
      problem: `The OpenAPI document could not be loaded, so the response was not checked: ${why}`,
      reason: `The OpenAPI document could not be loaded: ${why}`,
    };
  }
}

/** At most this many findings are listed in a probe's result; `findingCount` then gives them all. */
const MAX_FINDINGS_SHOWN = 200;

/** The note of a body cut at `PROBE_CHECK_MAX_BYTES`. */
export function cutNoteFor(config: Config): string {
  return `Body longer than ${config.checkMaxBytes} bytes (PROBE_CHECK_MAX_BYTES); cut there and not parsed or checked. Probe a smaller resource (a page size or filter parameter), or raise PROBE_CHECK_MAX_BYTES; PROBE_MAX_BYTES (${config.maxBytes}) only limits what is shown.`;
}

/**
 * For a 401 or 403 (RFC 9110, 15.5.2 and 15.5.4): how the key was sent, or that none was, and what to check.
 * Names the header, never the key.
 */
export function keyNote(config: Config, status: number): string {
  if (!config.apiKey)
    return `The API answered ${status} and no key was sent: API_KEY is not set in the server's environment.`;
  // A host that does not expand variables passes `${API_KEY}` on as it is written.
  if (apiKeySlip(config) === 'unexpanded') {
    return `The API answered ${status}; API_KEY holds a variable reference ($NAME or \${NAME}), not a key: the host passed it on without expanding it. Put the key itself in the configuration's env.`;
  }
  // The usual slip: the scheme pasted into the key, so the header reads `Bearer Bearer …`.
  if (apiKeySlip(config) === 'bearer') {
    return `The API answered ${status}; API_KEY starts with "Bearer ", and the key is sent as \`Authorization: Bearer <API_KEY>\`, so the header says Bearer twice. Set API_KEY to the key alone.`;
  }
  const sent = config.apiKeyHeader
    ? `raw in the header ${config.apiKeyHeader} (API_KEY_HEADER)`
    : 'as `Authorization: Bearer <API_KEY>` (set API_KEY_HEADER, e.g. X-API-Key, to send it raw in another header)';
  return `The API answered ${status}; the key was sent ${sent}. Check the key, and the header the API expects it in.`;
}

/**
 * The body pipeline of one probe: decodes the response, redacts the key from everything the API sent
 * (before findings, notes or session memory derive from it), fits the view to `PROBE_MAX_BYTES`,
 * matches the operation, checks the request's parameters and judges the response (src/contract/).
 * @param raw The response as read (`RawResponse`).
 * @param request.url The probe's URL (`href`).
 * @param request.selector The parsed `select`, if any.
 * @param ready The document as the caller already made it ready (`loadDocumentState`, as the probe job does
 *   before its deadline starts); looked up here when not given. One lookup per probe: each one checks the
 *   document file's stamp (two `stat` calls, a thread-pool round trip each).
 * @returns The structured content of the tool result (isError for an HTTP status >= 400) and the body to remember.
 */
export async function checkProbe(
  raw: RawResponse,
  request: { url: string; selector?: Exclude<Selector, { problem: string }> },
  context: PipelineContext,
  ready?: DocumentState,
): Promise<CheckedProbe> {
  const { config } = context;
  const url = new URL(request.url);
  const selector = request.selector;
  let probed = decodeProbe(raw, {
    maxBytes: config.checkMaxBytes,
    cutNote: cutNoteFor(config),
    redact: context.redact,
  });
  // Whatever the API sent is cleaned of the key here, before anything (findings, notes, session memory) derives from
  // it. A body cut at the budget may end in the first characters of an echoed key: its end is withheld whatever it
  // holds, so what is shown never depends on whether a guess matches part of the key (issue 8).
  probed = context.redact.value(probed, true);
  if (probed.truncated && typeof probed.body === 'string' && context.redact.withheld > 0) {
    probed.body = context.redact.tail(probed.body);
    probed.note = `${probed.note ?? ''} ${withheldNote(context.redact)}`.trim();
  }
  const { records, warnings, numbers, ...shown } = probed;
  const structured: Record<string, unknown> = { ...shown };
  if (warnings?.length) structured.findings = warnings;
  const part = selector
    ? typeof probed.body === 'object' && probed.body !== null
      ? selectPart(probed.body, selector.segments)
      : { found: false as const, problem: 'the body is not parsed JSON' }
    : { found: true as const, value: probed.body };
  // A complete JSON 2xx body is kept in session memory when it fits (`tooLarge` below when it does not).
  const completeJson2xx =
    !probed.truncated &&
    probed.status >= 200 &&
    probed.status < 300 &&
    probed.body !== null &&
    typeof probed.body === 'object';
  const remember = completeJson2xx && probed.bytes <= Math.max(config.maxBytes, REMEMBER_MAX_BYTES);
  // The body's JSON text, made once: it sizes the view (as `fitView` would), session memory keeps it, and the
  // result's text holds it (`checked`). Not made for a `select` of a body that is not remembered.
  const bodyText =
    probed.body !== null && typeof probed.body === 'object' && (!selector || remember)
      ? JSON.stringify(probed.body)
      : undefined;
  const wholeBytes = !selector && bodyText !== undefined ? Buffer.byteLength(bodyText) : undefined;
  const view =
    wholeBytes !== undefined && wholeBytes <= config.maxBytes
      ? { value: probed.body, cut: false, bytes: wholeBytes }
      : fitView(part.found ? part.value : null, config.maxBytes);
  structured.body = view.value;
  if (selector || view.cut) {
    structured.view = {
      ...(selector ? { select: selector.shown, found: part.found } : {}),
      cut: view.cut,
      bytes: view.bytes,
      note: [
        selector && !part.found
          ? `\`select\` ${selector.shown} matched nothing (${(part as { problem: string }).problem.replace(/\.$/, '')}); body is null.`
          : selector
            ? `Only ${selector.shown} is shown.`
            : '',
        view.cut
          ? `Cut to fit PROBE_MAX_BYTES (${config.maxBytes} bytes): arrays, objects and strings end where marked with what was left out ("… N more items"). ${probed.truncated ? 'The body was not parsed (it is longer than PROBE_CHECK_MAX_BYTES), so `select` cannot pick a part of it.' : `The body is ${probed.bytes} bytes; use \`select\` ("$.items[3]" or "/items/3") to see one part whole.`}`
          : '',
        probed.truncated ? '' : 'Findings cover the whole body.',
      ]
        .filter(Boolean)
        .join(' '),
    };
  }
  const prefix = trimSlash(config.baseUrl.pathname);
  const relativePath = pathAfterBase(url, config.baseUrl);
  const seen: Seen | undefined =
    remember && bodyText !== undefined
      ? {
          path: relativePath + url.search,
          status: probed.status,
          at: new Date().toISOString(),
          text: bodyText,
          cost: memoryCost(probed.body, probed.bytes),
        }
      : undefined;
  // A 401 or 403 says how the key went, so a wrong header or a missing key shows at once.
  if (probed.status === 401 || probed.status === 403)
    structured.note = `${structured.note ?? ''} ${keyNote(config, probed.status)}`.trim();
  // A complete JSON 2xx body past the memory cap is checked and shown, not kept: the result says so, and the tools
  // that read session memory can give that reason instead of "not probed".
  const tooLarge = completeJson2xx && !remember ? { path: relativePath + url.search, bytes: probed.bytes } : undefined;
  if (tooLarge) {
    structured.note =
      `${structured.note ?? ''} Not kept for field_presence or compare_fixture: the body is ${tooLarge.bytes} bytes, over the ${REMEMBER_MAX_BYTES} bytes a session keeps per body.`.trim();
  }
  const isError = probed.status >= 400;
  const state = ready ?? (await loadDocumentState(context));
  if (!state.loaded) {
    structured.validated = false;
    structured.validationNote = state.problem;
    return checked(structured, isError, seen ? { seen } : undefined, probed.body, tooLarge);
  }
  const loaded = state.loaded;
  structured.document = { title: loaded.title, version: loaded.infoVersion, loadedAt: loaded.loadedAt };
  const match = findOperation(loaded, prefix, url.pathname, relativePath);
  if (!match.operation) {
    structured.operation = null;
    structured.validated = false;
    // The base URL's prefix given again in the path (`/v2` + `/v2/meters`): say so, it is the usual cause.
    const hint = repeatedPrefixHint(prefix, relativePath);
    const doubled = hint ? ` ${hint}` : '';
    structured.validationNote = `No GET operation in the document matches ${relativePath}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}${match.note ? `. ${match.note}` : ''}.${doubled}`;
    return checked(structured, isError, seen ? { seen } : undefined, probed.body, tooLarge);
  }
  structured.operation = summarize(match.operation);
  if (match.note) structured.matchNote = match.note;
  // A 404 on a path the document has, under a base without the document's server path: the base is the likely cause.
  const lacks = probed.status === 404 ? missingServerPath(config.baseUrl.pathname, loaded.basePaths) : undefined;
  if (lacks)
    structured.note =
      `${structured.note ?? ''} The document serves its paths under ${lacks}, which API_BASE_URL lacks: the 404 may be the base's, not the API's; try API_BASE_URL=${config.baseUrl.origin}${prefix}${lacks}.`.trim();
  // Path values go in `parameterProblems`; the query sent is checked too, as `requestProblems`.
  const problems = checkParameters(
    loaded,
    match.operation,
    {
      path: match.params,
      pathRaw: match.rawParams,
      queryPairs: queryPairsOf(url, config.baseUrl.searchParams.keys()),
    },
    { clean: context.redact.text },
  );
  const parameterProblems = problems.filter((problem) => problem.in === 'path');
  const requestProblems = problems.filter((problem) => problem.in === 'query');
  if (parameterProblems.length) structured.parameterProblems = parameterProblems;
  if (requestProblems.length) structured.requestProblems = requestProblems;
  Object.assign(structured, judge(loaded, match.operation, probed, context.redact.text));
  const findings = structured.findings as unknown[] | undefined;
  if (findings && findings.length > MAX_FINDINGS_SHOWN) {
    // A whole 8 MiB body can hold a finding per item: list the first ones, count them all, keep the line small.
    structured.findingCount = findings.length;
    structured.findings = findings.slice(0, MAX_FINDINGS_SHOWN);
  }
  return checked(
    structured,
    isError,
    seen ? { operationKey: operationKey(match.operation), seen } : undefined,
    probed.body,
    tooLarge && { operationKey: operationKey(match.operation), ...tooLarge },
  );
}
