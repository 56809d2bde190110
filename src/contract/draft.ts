/**
 * A request of any method checked against the contract and never sent: parameters and body problems, and the
 * request as an envelope and a curl command for a person to run, the key as $API_KEY.
 */
import { repeatedPrefixHint } from '../shared/url-path.ts';
import { boundedText } from '../shared/text.ts';
import { checkRequestBody } from '../../validate.ts';
import { resolvePointer } from '../shared/json-pointer.ts';
import type { Finding } from '../../validate.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';
import { pickMediaType } from '../shared/media-type.ts';
import { instancePath } from '../shared/json-pointer.ts';
import { describeType } from '../shared/values.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { isPlainObject } from '../shared/values.ts';

import { pickContent, resolveSchema } from './operation.ts';
import { MAX_TEXT, summarize } from './operation.ts';
import { operationKey } from '../document/model.ts';
import { findOperation } from './operation.ts';
import { checkParameters, queryPairsOf } from './parameters.ts';
import { parse, serializationOf, serialize, splitQuery } from '../document/parameter-style.ts';
import type { Serialization } from '../document/parameter-style.ts';
import { safeDecode } from '../shared/text.ts';
import { nearestName } from './operation.ts';
import {
  boundaryFor,
  boundaryOf,
  isValidBoundary,
  withBoundary,
  draftContentType,
  encodingFor,
  encodingOf,
  fieldsOfFormText,
} from './body-encoding.ts';
import { fieldsOfMultipartText, fieldsOfObject, formText, multipartText } from './body-encoding.ts';
import { objectOfFields, rangeAdmits } from './body-encoding.ts';
import type { BodyField } from './body-encoding.ts';
/** One way a draft request breaks the contract. `name` is the parameter name, or for the body the instance path (`$.photoUrls`). */
export type DraftProblem = {
  in: 'operation' | 'path' | 'query' | 'header' | 'cookie' | 'body';
  name: string;
  kind: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
};

/**
 * A request as a person would run it: the key is the placeholder `$API_KEY`, never its value. A body whose text is
 * longer than `MAX_ECHOED_BODY` is not repeated: `bodyFile` names the file `curl` reads it from and `bodyLength` gives
 * its length in characters.
 */
export type RequestEnvelope = {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  bodyFile?: string;
  bodyLength?: number;
  curl: string;
};

/**
 * Longest body text (in characters) a draft's envelope repeats, in `body` and in `curl`: the caller sent it, and a
 * large body repeated in the answer costs the server's main thread to redact and write it again (issue 8). Past it
 * `curl` reads the body from `BODY_FILE`.
 */
const MAX_ECHOED_BODY = 16 * 1024;

/** The file `curl` reads a body longer than `MAX_ECHOED_BODY` from (`--data-binary @request-body.json`). */
const BODY_FILE = 'request-body.json';

/** What `draftRequest` checks: the full URL already built from API_BASE_URL (so its path prefix is `basePrefix`). */
export type Draft = {
  method: string;
  url: URL;
  /** The path prefix of API_BASE_URL without a trailing slash (`/v2`, or `''`). */
  basePrefix: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Query names API_BASE_URL itself carries: not the operation's to declare. */
  baseQuery?: string[];
  /**
   * Query parameters given as values (arrays, objects, or a `content` parameter's JSON value), by name: each is
   * written into the URL by its parameter's style (`serialize` of parameter-style.ts; `form` for a name the
   * operation does not declare), after the query `url` already has.
   */
  queryValues?: Record<string, unknown>;
  /** Where the key goes: a header name such as `X-API-Key` (raw key), `Authorization` (Bearer), or undefined for no key. */
  keyHeader?: string;
  /** The key redactor's `text`, applied to the document values a problem quotes before they are cut (issue 18). */
  clean?: (text: string) => string;
};

const KEY_PLACEHOLDER = '$API_KEY';

/**
 * Quotes a word for a POSIX shell: in single quotes, each `'` written as `'\''` (POSIX.1-2017, Shell
 * Command Language 2.2.2). Nothing inside is expanded.
 */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Quotes a word for the shell a person pastes the curl line into: `shellQuote` for text without control characters
 * (a line feed is fine inside single quotes), else ANSI-C quoting `$'...'` (POSIX.1-2024, 2.2.4; bash, zsh, ksh),
 * where `\r`, `\n`, `\t` and `\xHH` spell each control character, so a carriage return is not lost when pasted.
 * A NUL cannot be passed in an argument at all: such a body goes through a file (`requestEnvelope`).
 */
export function shellWord(word: string): string {
  if (!/[\x00-\x09\x0b-\x1f\x7f]/.test(word)) return shellQuote(word);
  const escaped = word.replace(/[\\'\x00-\x1f\x7f]/g, (char) => {
    if (char === '\\' || char === "'") return `\\${char}`;
    if (char === '\r') return '\\r';
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
  return `$'${escaped}'`;
}

/**
 * Quotes a header line for the shell so curl sends each character as one byte: a header value is Latin-1 text (RFC
 * 9110, 5.5: obs-text), but a shell passes `é` as its UTF-8 bytes, so a line with characters past U+007F is ANSI-C
 * quoted with `\xHH` for each of them; others as `shellQuote`.
 */
function headerWord(line: string): string {
  if (!/[\x80-\xff]/.test(line)) return shellQuote(line);
  const escaped = line.replace(/[\\'\x80-\xff]/g, (char) =>
    char === '\\' || char === "'" ? `\\${char}` : `\\x${char.charCodeAt(0).toString(16)}`,
  );
  return `$'${escaped}'`;
}

/** The file `curl` reads a body from when it is not written inline: JSON bodies as `.json`, every other as `.txt`. */
function bodyFileFor(contentType: string): string {
  return encodingOf(contentType) === 'json' ? BODY_FILE : 'request-body.txt';
}

/**
 * What the file `request.bodyFile` must hold, for the note beside an envelope whose body is not repeated: for JSON,
 * the body as drafted (a string as its text, any other value as its JSON); for a form, its encoded text; for
 * multipart, the parts under the boundary the Content-Type names; for any other type, the body's text.
 */
export function bodyFileContents(request: RequestEnvelope): string {
  const contentType = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const encoding = contentType === undefined ? 'json' : encodingOf(contentType);
  if (encoding === 'json') return 'a string body as its text, any other as its JSON';
  if (encoding === 'form')
    return 'the fields encoded as application/x-www-form-urlencoded, as URLSearchParams writes them';
  if (encoding === 'multipart')
    return 'the multipart/form-data parts under the boundary of its Content-Type, CRLF line ends (RFC 7578)';
  return 'the body as its text, UTF-8';
}

/**
 * Builds the runnable envelope of a draft: the headers as given (the Content-Type the body preparation settled on, see
 * `prepareBody`), and the key header with the placeholder `$API_KEY` (any value the caller put in that header is
 * replaced). `curl -g` turns URL globbing off, so brackets and braces in the URL go as written; every word is quoted
 * with `shellWord`; the placeholder is left outside the quotes, in double quotes, so the shell fills it in from the
 * environment. The body goes as its exact text (`--data-raw`); a text longer than `MAX_ECHOED_BODY` characters, or
 * one holding a NUL, is left out: `curl` reads it with `--data-binary @<bodyFile>`.
 */
function requestEnvelope(draft: Draft, prepared: PreparedBody): RequestEnvelope {
  const method = draft.method.toUpperCase();
  const headers: Record<string, string> = {};
  const keyHeader = draft.keyHeader?.toLowerCase();
  for (const [name, value] of Object.entries(draft.headers ?? {})) {
    if (keyHeader !== undefined && name.toLowerCase() === keyHeader) continue;
    if (prepared.text !== undefined && name.toLowerCase() === 'content-type') continue;
    headers[name] = value;
  }
  const hasBody = prepared.text !== undefined;
  if (hasBody) headers[prepared.contentTypeName] = prepared.contentType;
  let keyPrefix = '';
  if (draft.keyHeader !== undefined) {
    keyPrefix = keyHeader === 'authorization' ? 'Bearer ' : '';
    headers[draft.keyHeader] = `${keyPrefix}${KEY_PLACEHOLDER}`;
  }
  const words = ['curl', '-g'];
  // `-X HEAD` makes curl wait for a body the response never carries: `-I` sends HEAD and reads none.
  if (method === 'HEAD' && !hasBody) words.push('-I');
  else if (method !== 'GET' || hasBody) words.push('-X', shellQuote(method));
  words.push(shellQuote(draft.url.href));
  for (const [name, value] of Object.entries(headers)) {
    if (draft.keyHeader !== undefined && name === draft.keyHeader)
      words.push('-H', `${shellQuote(`${name}: ${keyPrefix}`)}"${KEY_PLACEHOLDER}"`);
    else words.push('-H', headerWord(`${name}: ${value}`));
  }
  if (!hasBody) return { method, url: draft.url.href, headers, curl: words.join(' ') };
  const bodyText = prepared.text!;
  if (bodyText.length > MAX_ECHOED_BODY || bodyText.includes('\0')) {
    const bodyFile = bodyFileFor(prepared.contentType);
    words.push('--data-binary', `@${bodyFile}`);
    return { method, url: draft.url.href, headers, bodyFile, bodyLength: bodyText.length, curl: words.join(' ') };
  }
  words.push('--data-raw', shellWord(bodyText));
  return { method, url: draft.url.href, headers, body: prepared.sent, curl: words.join(' ') };
}

/**
 * A draft's body as it will be sent and as it is checked. `contentType` is the Content-Type sent (the caller's, a
 * multipart one with the boundary added, or the document's choice); `sent` the envelope's `body` (the caller's JSON
 * value, or the encoded text of a form or multipart body); `text` the exact bytes as text, undefined for no body;
 * `checked` the value the body schema is checked against (a form's fields read back into an object), undefined when
 * the body could not be read (then `problems` say why).
 */
type PreparedBody = {
  contentTypeName: string;
  contentType: string;
  sent?: unknown;
  text?: string;
  checked?: unknown;
  problems: DraftProblem[];
};

/** A lone surrogate as U+FFFD, as the UTF-8 a shell or socket writes (WHATWG Encoding, UTF-8 encode). */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function bodyProblem(
  name: string,
  kind: string,
  message: string,
  severity: DraftProblem['severity'] = 'error',
): DraftProblem {
  return { in: 'body', name, kind, severity, message };
}

/**
 * Settles how a draft's body travels (OpenAPI 3.0.3, 4.7.13-4.7.15): the Content-Type the caller gave, else the
 * document's (`draftContentType`), else `application/json`; then by its encoding: JSON (a string is its JSON text),
 * a form (an object's fields, or the encoded text, read back and each value turned into its property's type), a
 * multipart body (the same, per RFC 7578, with the part types and the Encoding Object's required headers checked), or
 * text sent as written (a string only).
 */
function prepareBody(loaded: LoadedDocument, operation: Operation | undefined, draft: Draft): PreparedBody {
  const given = Object.entries(draft.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type');
  const body = draft.body;
  const contentTypeName = given?.[0] ?? 'Content-Type';
  if (body === undefined) return { contentTypeName, contentType: given?.[1] ?? '', problems: [] };
  const requestBody = operation === undefined ? undefined : resolveSchema(loaded.doc, operation.requestBody).node;
  const content = isPlainObject(requestBody?.content) ? requestBody.content : undefined;
  const problems: DraftProblem[] = [];
  let contentType = given?.[1];
  if (contentType === undefined && content !== undefined) {
    contentType = draftContentType(content, body);
    if (contentType === undefined) {
      contentType = 'application/octet-stream';
      problems.push(
        bodyProblem(
          '$',
          'contentType',
          `is sent as application/octet-stream, but ${operationKey(operation!)} accepts ${Object.keys(content).join(', ')}: give the exact type in the Content-Type header`,
        ),
      );
    }
  }
  contentType ??= 'application/json';
  const key = content === undefined ? undefined : pickMediaType(content, contentType);
  const media = key !== undefined && isPlainObject(content![key]) ? (content![key] as Record<string, unknown>) : {};
  const encoding = encodingOf(contentType);
  const described = describeType(body);
  if (encoding === 'json') {
    const text = typeof body === 'string' ? wellFormed(body) : JSON.stringify(body);
    const value = typeof body === 'string' ? text : body;
    return { contentTypeName, contentType, sent: value, text, checked: value, problems };
  }
  if (encoding === 'text') {
    if (typeof body === 'string') {
      const text = wellFormed(body);
      return { contentTypeName, contentType, sent: text, text, checked: text, problems };
    }
    problems.push(
      bodyProblem('$', 'wrongType', `is ${described}, but ${contentType} is sent as text: give the body as a string`),
    );
    return { contentTypeName, contentType, sent: body, text: JSON.stringify(body), problems };
  }
  if (typeof body !== 'string' && !isPlainObject(body)) {
    problems.push(
      bodyProblem(
        '$',
        'wrongType',
        `is ${described}, but ${contentType} takes an object of fields, or their encoded text`,
      ),
    );
    return { contentTypeName, contentType, sent: body, text: JSON.stringify(body), problems };
  }
  if (encoding === 'form') {
    const refused: [string, string][] = [];
    const unread: [string, string, boolean][] = [];
    const fields =
      typeof body === 'string' ? fieldsOfFormText(body) : fieldsOfObject(loaded.doc, media, body, false, refused);
    const text = formText(fields);
    const checked = objectOfFields(loaded.doc, media, fields, false, unread);
    for (const [name, reason] of refused)
      problems.push(
        bodyProblem(
          instancePath([name]),
          'style',
          `is sent as a plain field: its Encoding Object's style cannot write it (${reason})`,
          'warning',
        ),
      );
    // A set, not refused.some per name: an object of many styled fields would make this quadratic.
    const refusedNames = new Set(refused.map(([name]) => name));
    for (const [name, reason, broken] of unread.filter(([name]) => !refusedNames.has(name)))
      problems.push(
        broken
          ? bodyProblem(instancePath([name]), 'invalid', `${reason}, as its Encoding Object's style reads it`)
          : bodyProblem(
              instancePath([name]),
              'style',
              `is read as a plain field: its Encoding Object's style cannot read it (${reason})`,
              'warning',
            ),
      );
    return {
      contentTypeName,
      contentType,
      sent: text,
      text,
      checked,
      problems,
    };
  }
  if (typeof body === 'string') {
    const text = wellFormed(body);
    const named = boundaryOf(contentType);
    // The text's first delimiter line names its boundary when the Content-Type names none it may use (transport
    // padding after it is not part of it, RFC 2046 5.1.1).
    const firstLine = /^--([^\r\n]*)\r?\n/.exec(text)?.[1]?.trimEnd();
    const boundary = named?.valid
      ? named.value
      : firstLine !== undefined && isValidBoundary(firstLine)
        ? firstLine
        : undefined;
    const fields = boundary === undefined ? { reason: 'names no boundary' } : fieldsOfMultipartText(text, boundary);
    if (named && !named.valid) problems.push(invalidBoundary(named.value, boundary, "read from the text's first line"));
    if (boundary !== undefined && !named?.valid) contentType = withBoundary(contentType, boundary);
    if ('reason' in fields) {
      problems.push(bodyProblem('$', 'invalid', `is a multipart/form-data text that ${fields.reason}; not checked`));
      return { contentTypeName, contentType, sent: text, text, problems };
    }
    for (const problem of partProblems(loaded.doc, media, fields, true)) problems.push(problem);
    return {
      contentTypeName,
      contentType,
      sent: text,
      text,
      checked: objectOfFields(loaded.doc, media, fields, true),
      problems,
    };
  }
  const fields = fieldsOfObject(loaded.doc, media, body, true);
  const named = boundaryOf(contentType);
  let boundary: string;
  if (!named?.valid) {
    boundary = boundaryFor(fields);
    if (named) problems.push(invalidBoundary(named.value, boundary, 'chosen'));
    contentType = withBoundary(contentType, boundary);
  } else if (((boundary = named.value), fields.some((field) => field.value.includes(`--${boundary}`))))
    // RFC 2046, 5.1.1: the boundary must not occur in any part, or the server reads the part as ending there.
    problems.push(
      bodyProblem('$', 'invalid', `holds --${boundary}, the boundary its Content-Type names: leave the boundary out`),
    );
  for (const problem of partProblems(loaded.doc, media, fields, false)) problems.push(problem);
  const text = wellFormed(multipartText(fields, boundary));
  return {
    contentTypeName,
    contentType,
    sent: text,
    text,
    checked: objectOfFields(loaded.doc, media, fields, true),
    problems,
  };
}

/**
 * The problem of a Content-Type whose boundary RFC 2046, 5.1.1 does not allow (empty, over 70 characters, a
 * character outside its set, a space last, a quoted-string left open): the draft names the one it used in the header
 * and the body alike, so the agent can keep it or give a valid one.
 */
function invalidBoundary(given: string, used: string | undefined, how: string): DraftProblem {
  const shown = JSON.stringify(given.length > 80 ? `${given.slice(0, 77)}...` : given);
  const instead =
    used === undefined
      ? 'no boundary could be used'
      : `the draft uses boundary=${JSON.stringify(used)} (${how}) in the Content-Type and the body`;
  return bodyProblem(
    '$',
    'invalid',
    `has the Content-Type boundary ${shown} (${given.length} characters), which RFC 2046, 5.1.1 does not allow (1 to 70 of 0-9 A-Z a-z '()+_,-./:=? and space, not ending in a space): ${instead}; give a valid boundary or leave it out`,
    'warning',
  );
}

/** Steps `partProblems` may take per draft: one per part, and one per media range and header its Encoding Object names. */
export const PART_CHECK_STEPS = 20_000;

/**
 * The parts of a multipart body against the Encoding Object of each (OpenAPI 3.0.3, 4.7.15): a part whose
 * Content-Type no entry of `contentType` admits (RFC 9110, 12.5.1), and a header `headers` marks required that the
 * part lacks. A body given as an object carries no part headers: a required one is reported as something only a
 * multipart text can carry. Every part and every media range and header its Encoding Object names costs a step, out of
 * `PART_CHECK_STEPS`: where they run out, a `notChecked` warning names the part the checks stopped at and the parts
 * left (a text of many parts under an encoding of many headers is the agent's times the document's size).
 */
function partProblems(
  doc: unknown,
  media: Record<string, unknown>,
  fields: BodyField[],
  fromText: boolean,
): DraftProblem[] {
  const problems: DraftProblem[] = [];
  const reported = new Set<string>();
  const rangesByName = new Map<string, string[]>();
  let steps = 0;
  for (let at = 0; at < fields.length; at++) {
    const field = fields[at]!;
    const encoding = reported.has(field.name) ? undefined : encodingFor(media, field.name);
    const headers = isPlainObject(encoding?.headers) ? encoding.headers : {};
    const headerNames = Object.keys(headers);
    // Split once per name: a long contentType list must not be read again for every part of that name.
    let ranges = encoding === undefined ? [] : rangesByName.get(field.name);
    if (ranges === undefined) {
      ranges =
        typeof encoding!.contentType === 'string' ? encoding!.contentType.split(',').map((entry) => entry.trim()) : [];
      rangesByName.set(field.name, ranges);
    }
    steps += 1 + headerNames.length + ranges.length;
    if (steps > PART_CHECK_STEPS) {
      problems.push(
        bodyProblem(
          '$',
          'notChecked',
          `was not checked against its Encoding Objects from part ${at + 1} of ${fields.length} (${instancePath([field.name])}) on: the part checks' step budget (${PART_CHECK_STEPS} parts, media ranges and part headers) ran out`,
          'warning',
        ),
      );
      break;
    }
    if (encoding === undefined) continue;
    const path = instancePath([field.name]);
    const partType = field.contentType ?? 'text/plain';
    if (ranges.length > 0 && !ranges.some((range) => rangeAdmits(range, partType))) {
      reported.add(field.name);
      problems.push(
        bodyProblem(
          path,
          'contentType',
          `is a part of type ${partType}, but its Encoding Object accepts ${ranges.join(', ')}`,
        ),
      );
    }
    for (const name of headerNames) {
      const header = headers[name];
      if (name.toLowerCase() === 'content-type') continue;
      const required = resolveSchema(doc, header).node?.required === true;
      const present = Object.hasOwn(field.headers ?? {}, name.toLowerCase());
      if (!required || present) continue;
      reported.add(field.name);
      problems.push(
        bodyProblem(
          path,
          'missing',
          fromText
            ? `is a part without the header ${name}, which its Encoding Object requires`
            : `is a part that needs the header ${name} (its Encoding Object requires it): give the body as multipart/form-data text to send part headers`,
        ),
      );
    }
  }
  return problems;
}

/**
 * A problem for each header name the draft gives twice in different case (`Content-Type` and `content-type`): header
 * names are case-insensitive (RFC 9110, 5.1), so the request would carry one field twice and the check reads the first.
 */
function repeatedHeaders(headers: Record<string, string>): DraftProblem[] {
  const seen = new Map<string, string>();
  const problems: DraftProblem[] = [];
  for (const name of Object.keys(headers)) {
    const first = seen.get(name.toLowerCase());
    if (first === undefined) seen.set(name.toLowerCase(), name);
    else
      problems.push({
        in: 'header',
        name,
        kind: 'repeated',
        severity: 'error',
        message: `is given twice, as ${first} and ${name}: header names are case-insensitive (RFC 9110, 5.1), so the check read ${first} only; give it once`,
      });
  }
  return problems;
}

/**
 * Checks a request against the contract without sending it: the operation (method + path, with
 * suggestions when there is none), its path, query and header parameters (`checkParameters`), and the
 * body in the media type it is sent as (`prepareBody`: JSON, form, multipart or text), its value checked by
 * `checkRequestBody` from validate.ts (request direction: a readOnly field sent is reported), each body field the
 * schema lacks with "did you mean" for a near documented name.
 * @returns `matchesContract` (no problem above `info`, over all of them), the problems (operation, then parameters in
 *   parameter order, then body findings by instance path; the first `MAX_LISTED_PROBLEMS` (200), `problemsMore`
 *   counting the rest, names past 1,000 characters cut), the operation when one matched, and the
 *   runnable envelope (`requestEnvelope`). Never throws on input.
 */
export function draftRequest(
  loaded: LoadedDocument,
  draft: Draft,
): {
  matchesContract: boolean;
  operation?: ReturnType<typeof summarize>;
  problems: DraftProblem[];
  problemsMore?: number;
  request: RequestEnvelope;
} {
  const method = draft.method.toUpperCase();
  const relativePath = draft.url.pathname.slice(draft.basePrefix.length) || '/';
  const match = findOperation(loaded, draft.basePrefix, draft.url.pathname, relativePath, method);
  const written = writeQueryValues(draft, match.operation);
  const prepared = prepareBody(loaded, match.operation, draft);
  const request = requestEnvelope({ ...draft, url: written.url }, prepared);
  if (!match.operation) {
    const message = match.note
      ? `${match.note}: use one of ${match.nearest.join(', ')}`
      : `no ${method} operation matches ${relativePath}${match.nearest.length ? `; nearest: ${match.nearest.join(', ')}` : ''}${repeatedPrefixHint(draft.basePrefix, relativePath) ? `. ${repeatedPrefixHint(draft.basePrefix, relativePath).replace(/\.$/, '')}` : ''}`;
    return {
      matchesContract: false,
      problems: [
        { in: 'operation', name: `${method} ${relativePath}`, kind: 'noOperation', severity: 'error', message },
      ],
      request,
    };
  }
  const operation = match.operation;
  const problems: DraftProblem[] = [...written.problems, ...repeatedHeaders(draft.headers ?? {})];
  const parameterProblems = checkParameters(
    loaded,
    operation,
    {
      path: match.params,
      pathRaw: match.rawParams,
      queryPairs: queryPairsOf(written.url, draft.baseQuery),
      headers: draft.headers ?? {},
    },
    draft.clean ? { clean: draft.clean } : {},
  ).map((problem) => ({
    in: problem.in,
    name: problem.name,
    kind: problem.kind,
    severity: problem.kind === 'notChecked' ? ('warning' as const) : ('error' as const),
    message: problem.problem,
  }));
  // A path segment its style cannot read: the problem names the segment the document expects for the same value.
  for (const problem of parameterProblems) {
    if (problem.in !== 'path' || problem.kind !== 'invalid') continue;
    const raw = match.rawParams?.[problem.name];
    const parameter = operation.parameters.find((one) => one.in === 'path' && one.name === problem.name);
    const expected = raw === undefined || !parameter ? undefined : expectedSegment(loaded, parameter, raw);
    if (expected) problem.message += `; ${expected}`;
  }
  // Loops, not push(...): a form of 200,000 fields gives as many problems, past the engine's argument limit.
  for (const problem of parameterProblems) problems.push(problem);
  for (const problem of bodyProblems(loaded, operation, draft, prepared)) problems.push(problem);
  const matchesContract = !problems.some((problem) => problem.severity !== 'info');
  // Issue 8: a body of 90,000 unknown fields must not give 90,000 problems; names are bounded too.
  const listed = problems
    .slice(0, MAX_LISTED_PROBLEMS)
    .map((problem) =>
      problem.name.length > MAX_TEXT ? { ...problem, name: boundedText(problem.name, MAX_TEXT) } : problem,
    );
  return {
    matchesContract,
    operation: summarize(operation),
    problems: listed,
    ...(problems.length > MAX_LISTED_PROBLEMS ? { problemsMore: problems.length - MAX_LISTED_PROBLEMS } : {}),
    request,
  };
}

/** The path styles a segment may have been written in (OpenAPI 3.0.3 §4.7.12, Style Values), in the order tried. */
const PATH_STYLES: readonly { style: string; explode: boolean }[] = [
  // The styles with a leading `;` or `.` first: simple reads any text, so it is the last resort.
  { style: 'matrix', explode: false },
  { style: 'matrix', explode: true },
  { style: 'label', explode: false },
  { style: 'label', explode: true },
  { style: 'simple', explode: false },
  { style: 'simple', explode: true },
];

/**
 * For a path segment its parameter's style cannot read (`parse` from parameter-style.ts, the reader `probe` uses):
 * the segment the document expects, when the segment reads as a value in another path style (`5` or `.5` for a
 * matrix `id`: `;id=5`; `;id=a,b` for a simple list: `a,b`) and the parameter's own style writes that value.
 * @returns "the document expects the segment `;id=5` (style matrix, explode false)", or undefined when no other
 *   style reads it or its own style cannot write it (then the reader's problem stands alone). Never throws.
 */
function expectedSegment(
  loaded: LoadedDocument,
  parameter: Operation['parameters'][number],
  raw: string,
): string | undefined {
  const own = serializationOf(parameter);
  if (!own) return undefined;
  const style = own.style ?? 'simple';
  const explode = own.explode ?? false;
  // `.blue.black.brown` reads as one item (label) and as three (label, exploded): the reading with the most items
  // wins, the earlier style on a tie.
  let best: { text: string; other: (typeof PATH_STYLES)[number]; size: number } | undefined;
  for (const other of PATH_STYLES) {
    if (other.style === style && other.explode === explode) continue;
    const options: Serialization = { ...own, ...other };
    const read = parse(raw, { ...options, schema: parameter.schema, doc: loaded.doc });
    if (!('value' in read)) continue;
    const written = serialize(read.value, own);
    if (!('text' in written) || written.text === raw) continue;
    const value = read.value;
    const size = Array.isArray(value) ? value.length : isPlainObject(value) ? Object.keys(value).length : 1;
    if (!best || size > best.size) best = { text: written.text, other, size };
  }
  return best
    ? `the document expects the segment \`${best.text}\` (style ${style}, explode ${explode}), read here as style ${best.other.style}, explode ${best.other.explode}`
    : undefined;
}

/**
 * The draft's URL with its `queryValues` written in by each parameter's style (OpenAPI 3.0.3 §4.7.12; `serialize`),
 * in the order given, after the query the URL has. A value its style cannot write (`refused`), or a pair that
 * would set a name API_BASE_URL fixes, is left out and listed as a problem (`unwritable`).
 */
function writeQueryValues(draft: Draft, operation: Operation | undefined): { url: URL; problems: DraftProblem[] } {
  const problems: DraftProblem[] = [];
  if (!draft.queryValues) return { url: draft.url, problems };
  const fixed = new Set(draft.baseQuery ?? []);
  const texts: string[] = [];
  for (const [name, value] of Object.entries(draft.queryValues)) {
    const parameter = operation?.parameters.find((candidate) => candidate.in === 'query' && candidate.name === name);
    const options = (parameter && serializationOf(parameter)) ?? { name, location: 'query' as const };
    const result = serialize(value, options);
    const unwritable = (message: string) =>
      problems.push({ in: 'query', name, kind: 'unwritable', severity: 'error', message });
    if ('refused' in result) {
      unwritable(`cannot be written in the URL: ${result.refused}`);
      continue;
    }
    const clash = splitQuery(result.text).find(([key]) => fixed.has(safeDecode(key) ?? key));
    if (clash) {
      unwritable(`would set ${safeDecode(clash[0]) ?? clash[0]}, which API_BASE_URL fixes; it is left out`);
      continue;
    }
    if (result.text !== '') texts.push(result.text);
  }
  if (texts.length === 0) return { url: draft.url, problems };
  const url = new URL(draft.url.href);
  url.search = [draft.url.search.slice(1), ...texts].filter(Boolean).join('&');
  return { url, problems };
}

/** Problems `draftRequest` lists at most (in their order); `problemsMore` counts the rest. */
export const MAX_LISTED_PROBLEMS = 200;

function bodyProblems(
  loaded: LoadedDocument,
  operation: Operation,
  draft: Draft,
  prepared: PreparedBody,
): DraftProblem[] {
  const declared = operation.requestBody as { required?: unknown } | undefined;
  const key = operationKey(operation);
  if (draft.body === undefined) {
    return declared?.required === true
      ? [
          {
            in: 'body',
            name: '$',
            kind: 'missing',
            severity: 'error',
            message: `is required: ${key} declares a required request body`,
          },
        ]
      : [];
  }
  if (declared === undefined)
    return [
      {
        in: 'body',
        name: '$',
        kind: 'undocumented',
        severity: 'error',
        message: `is sent, but ${key} declares no request body`,
      },
    ];
  const contentType = prepared.contentType;
  // A JSON body given as a string is sent as written (`curl --data-raw`): it is checked as the JSON text it holds.
  let body = prepared.checked;
  if (body === undefined || prepared.problems.some((problem) => problem.severity === 'error' && problem.name === '$'))
    return prepared.problems;
  if (typeof body === 'string' && encodingOf(contentType) === 'json') {
    // Never measured by the transport (it is a string there): measured before it is parsed and walked.
    if (measureJsonText(body).depth > MAX_BODY_DEPTH) {
      return [
        {
          in: 'body',
          name: '$',
          kind: 'tooDeep',
          severity: 'error',
          message: `is a string of JSON text nesting deeper than ${MAX_BODY_DEPTH} levels; not checked`,
        },
      ];
    }
    try {
      body = JSON.parse(body);
    } catch {
      return [
        {
          in: 'body',
          name: '$',
          kind: 'invalidJson',
          severity: 'error',
          message: `is a string that is not JSON text, and it is sent as written under Content-Type ${contentType}: pass the body as a JSON value (an object, an array...), or its JSON text`,
        },
      ];
    }
  }
  const checked = checkRequestBody(
    loaded.doc,
    operation.method,
    operation.pathTemplate,
    body,
    contentType,
    draft.clean ? { clean: draft.clean } : undefined,
  );
  if (!checked.validated)
    return [
      ...prepared.problems,
      {
        in: 'body',
        name: '$',
        kind: 'unchecked',
        severity: 'warning',
        message: `was not checked: ${checked.reason ?? 'no schema'}`,
      },
    ];
  const missing = checked.findings.filter((finding) => finding.kind === 'missing');
  let suggestions = 0;
  // Looked up once per draft, at the first undocumented top-level field (a hostile body can hold thousands).
  let readOnly: ((name: string) => string | undefined) | undefined;
  const found = checked.findings.map((finding): DraftProblem => {
    let message = finding.message;
    const copied =
      finding.kind === 'undocumented' && parentPath(finding.path) === '$'
        ? (readOnly ??= readOnlyInResponse(loaded, operation))(lastName(finding.path))
        : undefined;
    if (copied)
      return {
        in: 'body',
        name: finding.path,
        kind: 'readOnly',
        severity: finding.severity,
        message: `is not in the request schema and is readOnly in the response of ${copied}: copied from a GET? Leave it out`,
      };
    if (finding.kind === 'undocumented' && suggestions++ < MAX_SUGGESTIONS) {
      const near = nearestName(
        lastName(finding.path),
        documentedNames(loaded.doc, finding.schemaPath, missing, finding.path),
      );
      if (near) message += `; did you mean ${near}?`;
    }
    return { in: 'body', name: finding.path, kind: finding.kind, severity: finding.severity, message };
  });
  return [...prepared.problems, ...found];
}

/**
 * For a field name, the GET of the same path template whose first 2xx response has it as a readOnly
 * top-level property (a field such as `id` copied from a GET into a write), as "GET /template"; else
 * undefined. The GET and its response schema are found once, when this is called.
 */
function readOnlyInResponse(loaded: LoadedDocument, operation: Operation): (name: string) => string | undefined {
  const read = loaded.operations.find(
    (candidate) => candidate.method === 'GET' && candidate.pathTemplate === operation.pathTemplate,
  );
  const key = read === undefined ? undefined : Object.keys(read.responses).find((candidate) => /^2/.test(candidate));
  const schema =
    read === undefined || key === undefined
      ? undefined
      : resolveSchema(loaded.doc, pickContent(read.responses[key])?.schema).node;
  const properties = schema?.properties;
  return (name) => {
    if (!read || name === '' || !isPlainObject(properties) || !Object.hasOwn(properties, name)) return undefined;
    return resolveSchema(loaded.doc, properties[name]).node?.readOnly === true ? operationKey(read) : undefined;
  };
}

/** "Did you mean" is offered for this many unknown body fields at most (bounded work on a hostile body). */
const MAX_SUGGESTIONS = 20;

/** The last property name of an instance path: `$.a['x-id']` gives `x-id`. */
function lastName(path: string): string {
  const quoted = /\['((?:[^'\\]|\\.)*)'\]$/.exec(path);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const dotted = /\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
  return dotted ? dotted[1]! : '';
}

/** The instance path of a field's parent: `$.a['x-id']` gives `$.a`. */
function parentPath(path: string): string {
  const quoted = /\['(?:[^'\\]|\\.)*'\]$/.exec(path);
  if (quoted) return path.slice(0, quoted.index);
  const dotted = /\.[A-Za-z_][A-Za-z0-9_]*$/.exec(path);
  return dotted ? path.slice(0, dotted.index) : path;
}

/** Property names the schema documents beside an undocumented field, and the missing fields of the same parent. */
function documentedNames(doc: unknown, schemaPath: string, missing: Finding[], path: string): string[] {
  const names = new Set<string>();
  const parent = parentPath(path);
  for (const finding of missing) {
    const name = lastName(finding.path);
    if (name && parentPath(finding.path) === parent) names.add(name);
  }
  try {
    const schema = resolvePointer(doc, schemaPath.replace(/\/(properties|additionalProperties)$/, '')) as {
      properties?: unknown;
    };
    if (schema && typeof schema.properties === 'object' && schema.properties !== null)
      for (const name of Object.keys(schema.properties)) names.add(name);
  } catch {
    // No schema to read names from: the missing siblings are all there is.
  }
  return [...names];
}
