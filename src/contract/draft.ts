/**
 * A request of any method checked against the contract and never sent: parameters and body problems, and the
 * request as an envelope and a curl command for a person to run, the key as $API_KEY.
 */
import { boundedText } from '../shared/text.ts';
import { checkRequestBody } from '../../validate.ts';
import { resolvePointer } from '../shared/json-pointer.ts';
import type { Finding } from '../../validate.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { isPlainObject } from '../shared/values.ts';

import { pickContent, resolveSchema } from './operation.ts';
import { MAX_TEXT, summarize } from './operation.ts';
import { operationKey } from '../document/model.ts';
import { findOperation } from './operation.ts';
import { checkParameters, queryPairsOf } from './parameters.ts';
import { serializationOf, serialize, splitQuery } from '../document/parameter-style.ts';
import { safeDecode } from '../shared/text.ts';
import { nearestName } from './operation.ts';
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
 * Builds the runnable envelope of a draft: the headers as given, `Content-Type: application/json` when
 * there is a body and none was given, and the key header with the placeholder `$API_KEY` (any value the
 * caller put in that header is replaced). `curl` quotes every word with `shellQuote`; the placeholder is
 * left outside the quotes, in double quotes, so the shell fills it in from the environment. A body text longer
 * than `MAX_ECHOED_BODY` characters is left out: `curl` reads it with `--data-binary @request-body.json`.
 */
function requestEnvelope(draft: Draft): RequestEnvelope {
  const method = draft.method.toUpperCase();
  const headers: Record<string, string> = {};
  const keyHeader = draft.keyHeader?.toLowerCase();
  for (const [name, value] of Object.entries(draft.headers ?? {})) {
    if (keyHeader !== undefined && name.toLowerCase() === keyHeader) continue;
    headers[name] = value;
  }
  const hasBody = draft.body !== undefined;
  if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['Content-Type'] = 'application/json';
  let keyPrefix = '';
  if (draft.keyHeader !== undefined) {
    keyPrefix = keyHeader === 'authorization' ? 'Bearer ' : '';
    headers[draft.keyHeader] = `${keyPrefix}${KEY_PLACEHOLDER}`;
  }
  const words = ['curl'];
  if (method !== 'GET' || hasBody) words.push('-X', shellQuote(method));
  words.push(shellQuote(draft.url.href));
  for (const [name, value] of Object.entries(headers)) {
    if (draft.keyHeader !== undefined && name === draft.keyHeader)
      words.push('-H', `${shellQuote(`${name}: ${keyPrefix}`)}"${KEY_PLACEHOLDER}"`);
    else words.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (!hasBody) return { method, url: draft.url.href, headers, curl: words.join(' ') };
  const bodyText = typeof draft.body === 'string' ? draft.body : JSON.stringify(draft.body);
  if (bodyText.length > MAX_ECHOED_BODY) {
    words.push('--data-binary', `@${BODY_FILE}`);
    return {
      method,
      url: draft.url.href,
      headers,
      bodyFile: BODY_FILE,
      bodyLength: bodyText.length,
      curl: words.join(' '),
    };
  }
  words.push('--data-raw', shellQuote(bodyText));
  return { method, url: draft.url.href, headers, body: draft.body, curl: words.join(' ') };
}

/**
 * Checks a request against the contract without sending it: the operation (method + path, with
 * suggestions when there is none), its path, query and header parameters (`checkParameters`), and the
 * JSON body (`checkRequestBody` from validate.ts, request direction: a readOnly field sent is reported),
 * each body field the schema lacks with "did you mean" for a near documented name.
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
  const request = requestEnvelope({ ...draft, url: written.url });
  if (!match.operation) {
    const message = match.note
      ? `${match.note}: use one of ${match.nearest.join(', ')}`
      : `no ${method} operation matches ${relativePath}${match.nearest.length ? `; nearest: ${match.nearest.join(', ')}` : ''}`;
    return {
      matchesContract: false,
      problems: [
        { in: 'operation', name: `${method} ${relativePath}`, kind: 'noOperation', severity: 'error', message },
      ],
      request,
    };
  }
  const operation = match.operation;
  const problems: DraftProblem[] = written.problems;
  const parameterProblems = checkParameters(loaded, operation, {
    path: match.params,
    pathRaw: match.rawParams,
    queryPairs: queryPairsOf(written.url, draft.baseQuery),
    headers: draft.headers ?? {},
  }).map((problem) => ({
    in: problem.in,
    name: problem.name,
    kind: problem.kind,
    severity: problem.kind === 'notChecked' ? ('warning' as const) : ('error' as const),
    message: problem.problem,
  }));
  problems.push(...parameterProblems, ...bodyProblems(loaded, operation, draft));
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

function bodyProblems(loaded: LoadedDocument, operation: Operation, draft: Draft): DraftProblem[] {
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
  const contentType = Object.entries(draft.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  // A string body is sent as written (`curl --data-raw`): under a JSON content type it is checked as the JSON text it holds.
  let body = draft.body;
  if (typeof body === 'string' && (contentType === undefined || isJsonMediaType(contentType))) {
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
          message: `is a string that is not JSON text, and it is sent as written under Content-Type ${contentType ?? 'application/json'}: pass the body as a JSON value (an object, an array...), or its JSON text`,
        },
      ];
    }
  }
  const checked = checkRequestBody(loaded.doc, operation.method, operation.pathTemplate, body, contentType);
  if (!checked.validated)
    return [
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
  return checked.findings.map((finding): DraftProblem => {
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
