/**
 * Fixtures as `check` reads them (a fixture file, a folder of them, a HAR file's entries), and each one checked
 * against the document: the operation it belongs to and the findings of its body.
 */
import type { Finding } from '../../validate.ts';
import type { FixtureDiff } from '../contract/fixture-diff.ts';
import { judge } from '../contract/judge.ts';
import type { ProbedResponse } from '../contract/judge.ts';
import { findOperation, summarize } from '../contract/operation.ts';
import type { LoadedDocument } from '../document/model.ts';
import { unquotedParseError } from '../shared/json-text.ts';
import { isJsonMediaType } from '../shared/media-type.ts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DEMO_EXAMPLES } from '../document/demo-examples.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';

/** One saved response. `source` names the file (and the HAR entry). */
export type Fixture = {
  source: string;
  method: string;
  path: string;
  status: number;
  contentType?: string;
  body: unknown;
  text?: string;
  unrecorded?: true;
  /** A HAR entry's URL (its path starts at the origin, so it carries the base's prefix); absent for a fixture file. */
  url?: string;
};

/**
 * Which HAR entries `check` keeps: those on `origin` (absent when no absolute base is known) and under `prefix`
 * (a path prefix without trailing slash, `''` for none), compared by segment (`/v2-sw.js` is outside `/v2`).
 * `base` is the URL the two came from, for the report.
 */
export type Scope = { base: string; origin?: string; prefix: string };

/**
 * The entries of one HAR file that are not fixtures, counted by reason: on another origin than the scope's, outside
 * its path prefix, a method other than GET, a 304 (no body of its own: RFC 9110, 15.4.5), or no response at all
 * (status 0: what browsers record for a request that failed, was blocked or cancelled). `entries` counts all.
 */
export type LeftOut = {
  source: string;
  entries: number;
  otherOrigin: number;
  outsidePrefix: number;
  notGet: number;
  notModified: number;
  noResponse: number;
};

/** Why `check` could not read its input, one stable word per cause. */
export type InputProblem =
  'missing' | 'empty-folder' | 'not-json' | 'bad-fixture' | 'bad-har' | 'bad-baseline' | 'too-many-secrets';

/** Input `check` cannot use (exit 2): `message` names the file and the problem, `code` the kind of problem. */
export class InputError extends Error {
  code: InputProblem;
  constructor(code: InputProblem, message: string) {
    super(message);
    this.name = 'InputError';
    this.code = code;
  }
}

/**
 * Reads fixtures from files, folders (every `.json` and `.har` file inside, sorted, recursively) and HAR
 * files (HAR 1.2: GET entries, response `content.text`, base64 decoded when `encoding` says so).
 * @param scope Which HAR entries to keep (`harFixtures`); every entry when absent.
 * @param leftOut Receives, per HAR file that had any, the entries left out and why.
 * @param secrets Receives the credential values the files recorded (`recordedSecrets`), each once.
 * @param examples The checked document's examples (src/document/examples.ts), which errors quote; the demo's by default.
 * @returns The fixtures in order; throws InputError naming the file and the problem (`too-many-secrets` for a file
 *   whose credentials could not all be read).
 */
export function readFixtures(
  paths: string[],
  cwd = process.cwd(),
  scope?: Scope,
  leftOut: LeftOut[] = [],
  secrets: string[] = [],
  examples: DocumentExamples | undefined = DEMO_EXAMPLES,
): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    let stats;
    try {
      stats = statSync(path);
    } catch {
      throw new InputError('missing', `${given}: no such file or folder`);
    }
    if (stats.isDirectory()) {
      const inside = listFixtureFiles(path);
      if (inside.length === 0) throw new InputError('empty-folder', `${given}: the folder holds no .json or .har file`);
      fixtures.push(
        ...readFixtures(
          inside.map((file) => relative(cwd, file) || file),
          cwd,
          scope,
          leftOut,
          secrets,
          examples,
        ),
      );
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new InputError('not-json', `${given}: not JSON (${unquotedParseError(error)})`);
    }
    const recorded = recordedSecrets(data);
    if (!recorded.complete)
      throw new InputError(
        'too-many-secrets',
        `${given}: more than ${MAX_RECORDED_SECRETS} credential values or 5,000,000 JSON values recorded; check cannot promise to keep them all out of its report: split the file`,
      );
    for (const value of recorded.values) if (!secrets.includes(value)) secrets.push(value);
    const log = (data as { log?: { entries?: unknown } } | null)?.log;
    if (log !== undefined) fixtures.push(...harFixtures(given, log, scope, leftOut));
    else fixtures.push(fixtureFrom(given, data, examples));
  }
  return fixtures;
}

export function listFixtureFiles(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...listFixtureFiles(path));
    else if (entry.name.endsWith('.json') || entry.name.endsWith('.har')) out.push(path);
  }
  return out;
}

export function fixtureFrom(
  source: string,
  data: unknown,
  examples: DocumentExamples | undefined = DEMO_EXAMPLES,
): Fixture {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InputError(
      'bad-fixture',
      `${source}: a fixture must be an object {method, path, status, body, contentType?}`,
    );
  const record = data as Record<string, unknown>;
  const method = typeof record.method === 'string' ? record.method.toUpperCase() : undefined;
  if (method !== 'GET')
    throw new InputError(
      'bad-fixture',
      `${source}: \`method\` must be "GET" (the probe sends only GET), got ${JSON.stringify(record.method) ?? 'nothing'}`,
    );
  if (typeof record.path !== 'string' || !record.path.startsWith('/'))
    throw new InputError(
      'bad-fixture',
      `${source}: \`path\` must be a string starting with "/"${examples ? `, e.g. ${JSON.stringify(examples.paths[0])}` : ''}, got ${JSON.stringify(record.path) ?? 'nothing'}`,
    );
  if (!Number.isInteger(record.status) || (record.status as number) < 100 || (record.status as number) > 599) {
    throw new InputError(
      'bad-fixture',
      `${source}: \`status\` must be an HTTP status code from 100 to 599, got ${JSON.stringify(record.status) ?? 'nothing'}`,
    );
  }
  if (!('body' in record))
    throw new InputError('bad-fixture', `${source}: \`body\` is missing (use "" for an empty body)`);
  if (record.contentType !== undefined && typeof record.contentType !== 'string')
    throw new InputError('bad-fixture', `${source}: \`contentType\` must be a string such as "application/json"`);
  return {
    source,
    method,
    path: record.path,
    status: record.status as number,
    body: record.body,
    ...(record.contentType !== undefined ? { contentType: record.contentType as string } : {}),
  };
}

/**
 * The fixtures of one HAR file's `log` (HAR 1.2): its GET entries on the scope's origin and under its prefix, but
 * 304s. A browser session also holds a CDN's scripts, fonts, analytics beacons, CORS preflights and the page
 * itself: those are counted in `leftOut` (one row for the file, when any was left out), never checked (issue 17).
 * @returns The fixtures, `source#index` each; throws InputError (`bad-har`) for an entry HAR 1.2 does not allow.
 */
export function harFixtures(source: string, log: unknown, scope?: Scope, leftOut: LeftOut[] = []): Fixture[] {
  const entries = (log as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) throw new InputError('bad-har', `${source}: a HAR file needs log.entries, an array`);
  const fixtures: Fixture[] = [];
  const left: LeftOut = {
    source,
    entries: entries.length,
    otherOrigin: 0,
    outsidePrefix: 0,
    notGet: 0,
    notModified: 0,
    noResponse: 0,
  };
  entries.forEach((entry, index) => {
    const where = `${source}#${index}`;
    const request = (entry as { request?: { method?: unknown; url?: unknown } } | null)?.request;
    const response = (
      entry as {
        response?: { status?: unknown; content?: { mimeType?: unknown; text?: unknown; encoding?: unknown } };
      } | null
    )?.response;
    if (typeof request?.method !== 'string' || typeof request.url !== 'string' || !response)
      throw new InputError('bad-har', `${where}: a HAR entry needs request.method, request.url and response`);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new InputError('bad-har', `${where}: request.url is not an absolute URL: ${request.url}`);
    }
    if (!Number.isInteger(response.status))
      throw new InputError('bad-har', `${where}: response.status must be an integer`);
    // The origin first: a CDN's preflight is another origin's business, not a method the API was sent.
    if (scope?.origin !== undefined && url.origin !== scope.origin) return void left.otherOrigin++;
    const prefix = scope?.prefix ?? '';
    if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
      return void left.outsidePrefix++;
    if (request.method.toUpperCase() !== 'GET') return void left.notGet++;
    // A 304 carries no body (RFC 9110, 15.4.5): what a browser shows for it is its cache's copy.
    if (response.status === 304) return void left.notModified++;
    if (response.status === 0) return void left.noResponse++;
    const content = (response.content ?? {}) as {
      mimeType?: unknown;
      text?: unknown;
      encoding?: unknown;
      size?: unknown;
    };
    const contentType = typeof content.mimeType === 'string' && content.mimeType !== '' ? content.mimeType : undefined;
    // HAR 1.2: `text` is optional; an exporter that does not keep bodies leaves it out. Without it, only a size of 0 says the body was empty.
    if (typeof content.text !== 'string' && content.size !== 0) {
      fixtures.push({
        source: where,
        method: 'GET',
        path: url.pathname + url.search,
        status: response.status as number,
        body: null,
        unrecorded: true,
        ...(contentType ? { contentType } : {}),
        url: url.href,
      });
      return;
    }
    let text = typeof content.text === 'string' ? content.text : '';
    if (content.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
    let body: unknown = text;
    if (text !== '' && (isJsonMediaType(contentType ?? null) || contentType === undefined)) {
      try {
        body = JSON.parse(text);
      } catch {
        if (isJsonMediaType(contentType ?? null))
          throw new InputError('bad-har', `${where}: the response says JSON but content.text does not parse`);
      }
    }
    fixtures.push({
      source: where,
      method: 'GET',
      path: url.pathname + url.search,
      status: response.status as number,
      body,
      text,
      ...(contentType ? { contentType } : {}),
      url: url.href,
    });
  });
  if (left.otherOrigin + left.outsidePrefix + left.notGet + left.notModified + left.noResponse > 0) leftOut.push(left);
  return fixtures;
}

/** One fixture's verdict. `outcome`: pass, fail (an error finding) or unchecked (with `note`). */
export type CheckedFixture = {
  source: string;
  request: string;
  status: number;
  operation?: { method: string; pathTemplate: string; operationId?: string };
  outcome: 'pass' | 'fail' | 'unchecked';
  /** `accepted` marks a finding the baseline lists (`--baseline`). */
  findings: (Finding & { accepted?: true })[];
  note?: string;
  /** With `--live`: the differences, or `error` when the live GET could not be made (then nothing was compared). */
  drift?: (FixtureDiff & { liveStatus: number }) | { error: string };
};

/**
 * Judges one fixture against the document as the probe judges a response.
 * @param basePrefix The base URL's path prefix without a trailing slash (`''` when none is known).
 * @param clean The report's redaction, applied to the document text a finding quotes before it is cut (issue 18).
 */
export function checkFixture(
  loaded: LoadedDocument,
  basePrefix: string,
  fixture: Fixture,
  clean?: (text: string) => string,
): CheckedFixture {
  const queryAt = fixture.path.indexOf('?');
  const pathOnly = queryAt === -1 ? fixture.path : fixture.path.slice(0, queryAt);
  const request = `GET ${fixture.path}`;
  const relativePath =
    basePrefix && pathOnly.startsWith(`${basePrefix}/`) ? pathOnly.slice(basePrefix.length) : pathOnly;
  const match = findOperation(
    loaded,
    basePrefix,
    basePrefix && !pathOnly.startsWith(`${basePrefix}/`) ? basePrefix + pathOnly : pathOnly,
    relativePath,
  );
  if (!match.operation) {
    const note = `No GET operation in the document matches ${pathOnly}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}.`;
    return { source: fixture.source, request, status: fixture.status, outcome: 'unchecked', findings: [], note };
  }
  if (fixture.unrecorded) {
    return {
      source: fixture.source,
      request,
      status: fixture.status,
      operation: summarize(match.operation),
      outcome: 'unchecked',
      findings: [],
      note: 'The HAR entry holds no body (content.text is missing: the exporter did not keep it), so there is nothing to check.',
    };
  }
  const text = fixture.text ?? (typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body));
  const contentType =
    fixture.contentType ??
    (typeof fixture.body === 'string' ? (fixture.body === '' ? null : 'text/plain') : 'application/json');
  const probed: ProbedResponse = {
    status: fixture.status,
    contentType,
    bytes: Buffer.byteLength(text ?? ''),
    truncated: false,
    body: fixture.body,
  };
  const verdict = judge(loaded, match.operation, probed, clean) as {
    validated: boolean;
    validationNote?: string;
    findings?: Finding[];
    matchesContract?: boolean;
  };
  const findings = verdict.findings ?? [];
  const outcome = verdict.matchesContract === true ? 'pass' : verdict.matchesContract === false ? 'fail' : 'unchecked';
  return {
    source: fixture.source,
    request,
    status: fixture.status,
    operation: summarize(match.operation),
    outcome,
    findings,
    ...(verdict.validationNote ? { note: verdict.validationNote } : {}),
  };
}

/** How many fixtures' live GET could not be made (`--live`): their drift is an `error`, nothing was compared. */
export function liveFailures(results: CheckedFixture[]): number {
  return results.filter((result) => result.drift && 'error' in result.drift).length;
}

/**
 * Whether a header's values are credentials in a recording (RFC 9110 11.6.2, RFC 6265 cookies, API-key headers):
 * `Authorization`, `Cookie`, `X-…` names holding key, token, secret or auth (`X-AuthToken`), and any name with a
 * word such as key or token between its hyphens (`Ocp-Apim-Subscription-Key`, `Private-Token`). Linear in the
 * name's length: a pattern with a wildcard on each side of the word took 19 s over a 120,000-character name.
 */
function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_HEADERS.has(lower)) return true;
  if (lower.startsWith('x-') && ['key', 'token', 'secret', 'auth'].some((word) => lower.includes(word))) return true;
  return lower.split('-').some((word) => SECRET_HEADER_WORDS.has(word));
}
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'apikey', 'api-key']);
const SECRET_HEADER_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'auth',
  'signature',
  'password',
  'credential',
  'credentials',
]);
/** Header names whose values are URLs, whose query and fragment may carry a credential (`?access_token=`). */
const URL_HEADER = /^(location|content-location|referer|origin)$/i;
/**
 * Member, query-parameter and form-field names whose values are credentials: `api_key`, `access_token`,
 * `client_secret`, `password`, `X-Amz-Signature`, `auth`.
 */
const SECRET_FIELD =
  /(^|[_-])(key|token|secret|password|passwd|pwd|signature|sig|credential|credentials|auth|authorization)$|^(apiKey|accessToken|refreshToken|idToken|clientSecret|password|sessionId)$/i;
/** The shortest value treated as a credential: shorter ones would match ordinary text of the report. */
const MIN_SECRET = 8;
/** The most credential values `recordedSecrets` keeps; a recording with more is refused, not half redacted. */
export const MAX_RECORDED_SECRETS = 1000;
/** The most nodes `recordedSecrets` visits (the parsed file and the JSON bodies it reads), a step budget. */
const MAX_SECRET_VISITS = 5_000_000;

/**
 * The credential values recorded in fixtures and HAR files, so that `check` can keep them out of its report even when
 * no API_KEY is set. Every place a HAR 1.2 entry can carry one (HAR 1.2: request `headers`, `cookies`, `queryString`,
 * `url`, `postData.params` and `postData.text`; response `headers`, `cookies`, `redirectURL`, `content.text`), and
 * the same members anywhere in a fixture file: values of credential headers (each cookie's value, Set-Cookie's
 * cookie without its attributes, the token after an auth scheme, the password of `Basic` credentials, credential
 * parameters of other schemes such as Digest's `response`), the user name and password of a URL's userinfo, values of
 * credential-named query parameters and form fields (in `queryString` and `params` lists, in the query and fragment
 * of `url`, `redirectURL`, `Location` and `Referer`, in form-urlencoded `text` and in the parts of a
 * `multipart/form-data` one), and string values of
 * credential-named members in recorded JSON bodies (`text` that is JSON). Query and form values are kept both as
 * recorded and percent-decoded (`+` as a space: WHATWG URL, application/x-www-form-urlencoded).
 * @param data A parsed fixture file or HAR file.
 * @returns `values`, longest first, without duplicates, each of 8 to 4,096 characters; `complete` false when the
 *   recording holds more than `MAX_RECORDED_SECRETS` values or more than 5,000,000 nodes, so that some may have
 *   been missed. Never throws.
 */
export function recordedSecrets(data: unknown): { values: string[]; complete: boolean } {
  const found = new Set<string>();
  let complete = true;
  const add = (value: unknown) => {
    if (typeof value !== 'string') return;
    const text = value.trim();
    if (text.length < MIN_SECRET || text.length > 4096 || found.has(text)) return;
    if (found.size >= MAX_RECORDED_SECRETS) complete = false;
    else found.add(text);
  };
  /** A credential value, and the token after an auth scheme (`Bearer <token>`), which may appear alone elsewhere. */
  const credential = (value: unknown) => {
    if (typeof value !== 'string') return;
    add(value);
    const scheme = /^([A-Za-z][A-Za-z0-9._~+/-]*)\s+(\S.*)$/.exec(value.trim());
    if (!scheme) return;
    add(scheme[2]);
    // Credential parameters of other schemes (RFC 9110, 11.2), which may be echoed alone: Digest's `response`
    // (RFC 7616, 3.4), AWS4's `Signature`, OAuth 1.0's `oauth_signature`; not `uri` or `realm`, ordinary text.
    for (const pair of scheme[2]!.split(',')) {
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals).trim();
      if (equals !== -1 && (name.toLowerCase() === 'response' || SECRET_FIELD.test(name)))
        add(unquoted(pair.slice(equals + 1).trim()));
    }
    // Basic credentials are base64 of `user:password` (RFC 7617, 2): the password may be echoed decoded.
    if (scheme[1]!.toLowerCase() === 'basic' && /^[A-Za-z0-9+/]+=*$/.test(scheme[2]!)) {
      const decoded = Buffer.from(scheme[2]!, 'base64').toString('utf8');
      add(decoded);
      if (decoded.includes(':')) add(decoded.slice(decoded.indexOf(':') + 1));
    }
  };
  /** A query-parameter or form-field value; `recorded` (a HAR list's, which exporters keep encoded or not): also percent-decoded. */
  const parameter = (name: unknown, value: unknown, recorded: boolean) => {
    if (typeof name !== 'string' || typeof value !== 'string' || !SECRET_FIELD.test(name)) return;
    add(value);
    if (recorded) add(percentDecoded(value));
  };
  /** The credential-named pairs of a form-urlencoded text (a query, a fragment, a form body), decoded. */
  const form = (text: string) => {
    for (const [name, value] of new URLSearchParams(text)) parameter(name, value, false);
  };
  const url = (value: string) => {
    // Userinfo (RFC 3986, 3.2.1): `https://user:password@host`, or a token as the user name (`https://TOKEN@host`).
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    for (const part of [parsed?.username, parsed?.password]) {
      add(part);
      if (part) add(percentDecoded(part));
    }
    const query = value.indexOf('?');
    const fragment = value.indexOf('#');
    if (query !== -1) form(value.slice(query + 1, fragment > query ? fragment : undefined));
    if (fragment !== -1) form(value.slice(fragment + 1));
  };
  const header = (entry: unknown, cookie = false) => {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (typeof value !== 'string') return;
    if (cookie) return void add(value);
    if (typeof name !== 'string') return;
    if (URL_HEADER.test(name)) return void url(value);
    if (!isSecretHeader(name)) return;
    if (/^set-cookie$/i.test(name)) {
      // Set-Cookie: the cookie is the first pair; the attributes after it (Path, Expires) are not credentials (RFC 6265, 4.1.1).
      const pair = value.split(';')[0]!;
      add(pair);
      add(pair.slice(pair.indexOf('=') + 1));
      return;
    }
    credential(value);
    // Cookies: `a=1; session=abc`.
    if (/^cookie$/i.test(name)) for (const pair of value.split(';')) add(pair.slice(pair.indexOf('=') + 1));
  };
  // Iterative, so a deep body neither overflows the stack nor hides a member below some depth.
  const stack: unknown[] = [data];
  let visits = 0;
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (++visits > MAX_SECRET_VISITS) {
      complete = false;
      break;
    }
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'headers' || key === 'cookies') && Array.isArray(value)) {
        for (const entry of value) header(entry, key === 'cookies');
      } else if ((key === 'queryString' || key === 'params') && Array.isArray(value)) {
        for (const entry of value)
          parameter((entry as { name?: unknown })?.name, (entry as { value?: unknown })?.value, true);
      } else if ((key === 'url' || key === 'redirectURL') && typeof value === 'string') {
        url(value);
      } else if (key === 'text' && typeof value === 'string' && value.length <= 1 << 20) {
        // A recorded body (HAR content.text, postData.text): its JSON members, or its form fields, are read too.
        const boundary = multipartBoundary((node as { mimeType?: unknown }).mimeType);
        if (boundary) for (const [name, field] of multipartFields(value, boundary)) parameter(name, field, false);
        else if (/^\s*[[{]/.test(value)) {
          try {
            stack.push(JSON.parse(value));
          } catch {
            // not JSON: nothing to read
          }
        } else if (/^[^\s=&]+=[^\s]*$/.test(value)) form(value);
      } else if (SECRET_FIELD.test(key)) credential(value);
      stack.push(value);
    }
  }
  return { values: [...found].sort(longestFirst), complete };
}

/** Orders texts longest first, then by code unit, so the order never depends on where they were found. */
export function longestFirst(a: string, b: string): number {
  return b.length - a.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** A quoted-string's content (RFC 9110, 5.6.4: `\\` escapes the next character), or the text as it is when not quoted. */
function unquoted(text: string): string {
  return text.length > 1 && text.startsWith('"') && text.endsWith('"')
    ? text.slice(1, -1).replace(/\\(.)/g, '$1')
    : text;
}

/** The boundary of a `multipart/form-data` media type (RFC 7578, 4.1), or undefined for any other. */
function multipartBoundary(mimeType: unknown): string | undefined {
  if (typeof mimeType !== 'string' || !/^\s*multipart\/form-data\s*;/i.test(mimeType)) return undefined;
  for (const parameter of mimeType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (parameter.slice(0, equals).trim().toLowerCase() === 'boundary')
      return unquoted(parameter.slice(equals + 1).trim()) || undefined;
  }
  return undefined;
}

/**
 * The named text fields of a `multipart/form-data` body (RFC 7578, 4.2: each part's Content-Disposition names it),
 * found with `indexOf` only, so a hostile recording costs one pass. Parts without a name are skipped.
 */
function multipartFields(text: string, boundary: string): [name: string, value: string][] {
  const fields: [string, string][] = [];
  for (const part of text.split(`--${boundary}`)) {
    let end = part.indexOf('\r\n\r\n');
    let gap = 4;
    if (end === -1) [end, gap] = [part.indexOf('\n\n'), 2];
    if (end === -1) continue;
    const head = part.slice(0, end);
    const at = head.toLowerCase().indexOf('; name="');
    const close = at === -1 ? -1 : head.indexOf('"', at + 8);
    if (close !== -1) fields.push([head.slice(at + 8, close), part.slice(end + gap).replace(/\r?\n$/, '')]);
  }
  return fields;
}

/** `text` percent-decoded with `+` as a space (application/x-www-form-urlencoded), or as it is when it does not decode. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
