/**
 * `openapi-probe doctor` (also `--check-config`): what the server would find at start-up, said at once instead of
 * at the first probe. It reads the configuration, loads the OpenAPI document, compares the base URL's path with the
 * document's server paths, and makes one GET with the key of the first parameterless GET operation of the document
 * (the base URL itself when there is none), then prints one line per finding and exits 0 when the server can work
 * as configured, 1 when it cannot.
 */
import { resolve } from 'node:path';
import { loadDocument } from '../document/openapi-document.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { probe, probeHeaders, ProbeError } from '../api/probe.ts';
import { buildProbeUrl } from '../api/url-policy.ts';
import { apiKeySlip, configuredDocument, readConfig, relativeSourceHint } from '../runtime/config.ts';
import type { Config } from '../runtime/config.ts';
import { publicSource, publicUrl } from '../runtime/log.ts';
import { redactor } from '../redaction/redaction.ts';
import { hideSourceSecrets } from '../redaction/redaction.ts';
import { missingServerPath, trimSlash } from '../shared/url-path.ts';
import type { Environment, Output } from './output.ts';

/** Bytes of the base URL's body read by the one GET: its status and type are what matter here. */
const DOCTOR_READ_BYTES = 4096;

/** Doctor's line for a configuration with no document to read. */
const NO_DOCUMENT =
  'document: OPENAPI_DOC is not set and there is no openapi.json in the working directory; probes will not be checked. Set OPENAPI_DOC to the absolute path or URL of the OpenAPI document.';

/**
 * Runs the checks and prints them to `output.out`, a line each: `ok      <what>`, `problem <what and the fix>`, or
 * `note    <what>` (worth knowing, not a failure). The key is never printed: every line passes its redaction (any
 * letter case, every form it reads), and configuration errors never repeat a value that may hold it; URLs are
 * printed without credentials or query values (`publicUrl`).
 * @param env The environment with the flags applied (`API_BASE_URL`, `OPENAPI_DOC`, `API_KEY`, ...).
 * @param options.fetch Injected fetch (tests); default the global one. `options.cwd`: where a relative
 *   `OPENAPI_DOC` is read from, default `process.cwd()`.
 * @returns The exit code: 0 when the configuration reads, the document loads (or none is configured), the base path
 *   agrees with the document's server path, and the GET (`doctorOperation`, else the base) answers with a status that
 *   is not 401, 403 or 407, nor 404 at the operation; 1 otherwise. Never throws.
 */
export async function runDoctor(
  env: Environment,
  output: Output,
  options: { fetch?: typeof fetch; cwd?: string } = {},
): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  const lines: string[] = [];
  const ok = (text: string) => lines.push(`ok      ${text}`);
  const problem = (text: string) => lines.push(`problem ${text}`);
  const note = (text: string) => lines.push(`note    ${text}`);
  let failed = false;
  // Every line passes the key's redaction, in any letter case (a key in the base URL's host comes back lowercased
  // from URL parsing), built before the configuration is read so that its own errors pass it too (issue 18).
  const redact = redactor(env.API_KEY?.trim() || undefined);
  let config: Config;
  try {
    config = readConfig(env, cwd);
  } catch (error) {
    // Name a missing document too, so that a first run with nothing set lists both things to set, not one at a time.
    const document = configuredDocument(env, cwd) ? '' : `problem ${NO_DOCUMENT}\n`;
    output.out(redact.text(`problem configuration: ${(error as Error).message}\n${document}`));
    return 1;
  }
  const base = `${config.baseUrl.origin}${trimSlash(config.baseUrl.pathname)}`;
  ok(`configuration: base ${shownUrl(config.baseUrl.href)}, key ${keyText(config)}`);

  let loaded: LoadedDocument | undefined;
  if (!config.openapiDoc) {
    problem(NO_DOCUMENT);
    failed = true;
  } else {
    const source = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(config.openapiDoc)
      ? config.openapiDoc
      : resolve(cwd, config.openapiDoc);
    try {
      loaded = await loadDocument(source);
      ok(
        `document: ${publicSource(source)}: ${loaded.title ?? 'untitled'} ${loaded.infoVersion ?? ''}`.trimEnd() +
          ` (${documentVersion(loaded)}), ${loaded.operations.length} operations` +
          (loaded.problems.length ? `, ${loaded.problems.length} problems, first: ${loaded.problems[0]}` : ''),
      );
    } catch (error) {
      problem(
        `document: ${redact.text(hideSourceSecrets((error as Error).message, config.openapiDoc))}${relativeSourceHint(config.openapiDoc, cwd)}.`,
      );
      failed = true;
    }
  }

  const lacks = loaded ? missingServerPath(config.baseUrl.pathname, loaded.basePaths) : undefined;
  if (loaded && lacks) {
    const prefix = trimSlash(config.baseUrl.pathname);
    problem(
      `base path: the document serves its paths under ${lacks}, and API_BASE_URL (${shownUrl(config.baseUrl.href)}) ${prefix ? `has the path ${prefix}` : 'has no path'}; probes of its operations will miss them: ${baseSuggestion(config.baseUrl, lacks)}.`,
    );
    failed = true;
  }

  // One GET of an operation the document has, not of the base: a base that serves nothing at its own path is common,
  // so only a 404 at a documented path tells a wrong base from a right one (issue 17).
  const target = loaded ? doctorOperation(loaded) : undefined;
  const decision = target ? buildProbeUrl(config.baseUrl, target.pathTemplate) : undefined;
  const url = decision && 'url' in decision ? decision.url : config.baseUrl;
  const tried = decision && 'url' in decision ? target : undefined;
  try {
    const answer = await probe(url, {
      headers: probeHeaders(config),
      timeoutMs: config.timeoutMs,
      maxBytes: DOCTOR_READ_BYTES,
      redact,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const what = `GET ${tried ? shownUrl(url.href) : base}: ${answer.status}${answer.contentType ? ` ${answer.contentType.split(';')[0]}` : ''}`;
    if (answer.status === 401 || answer.status === 403 || answer.status === 407) {
      problem(
        `${what}: the API refused the request${
          !config.apiKey
            ? '; set API_KEY'
            : apiKeySlip(config) === 'unexpanded'
              ? '; API_KEY holds a variable reference ($NAME or ${NAME}), not a key: whatever started the server passed it on without expanding it; put the key itself in the env'
              : apiKeySlip(config) === 'bearer'
                ? '; API_KEY starts with "Bearer ", and the key is sent as Authorization: Bearer <API_KEY>, so the header says Bearer twice: set API_KEY to the key alone'
                : '; check API_KEY, and API_KEY_HEADER if the API takes the key in a header of its own'
        }.`,
      );
      failed = true;
    } else if (answer.status >= 300 && answer.status < 400) {
      note(
        `${what}: a redirect${answer.location ? ` to ${shownUrl(answer.location)}` : ''}, which probes never follow; if the API lives there, use it as API_BASE_URL.`,
      );
    } else if (answer.status === 404 && tried) {
      const operation = `${tried.method} ${tried.pathTemplate}${tried.operationId ? ` (${tried.operationId})` : ''}`;
      const serverPath = loaded ? trimSlash(loaded.basePaths[0] ?? '') : '';
      const fix = lacks
        ? 'fix the base path above'
        : serverPath && trimSlash(config.baseUrl.pathname) !== serverPath
          ? baseSuggestion(config.baseUrl, serverPath)
          : "check API_BASE_URL's path against the URL the API's own documentation gives";
      problem(
        `${what}: the API has no resource at the document's ${operation}, so probes under this base will miss every operation: ${fix}.`,
      );
      failed = true;
    } else if (answer.status === 404) {
      note(
        `${what}: the base itself has no resource here, which is common; ${loaded ? 'the document has no GET operation without parameters to try instead' : 'with no document loaded there is no documented GET to try instead: fix the document above, then run doctor again'}.`,
      );
    } else ok(what);
  } catch (error) {
    problem(
      redact.text(
        error instanceof ProbeError
          ? error.message
          : `GET ${tried ? shownUrl(url.href) : base} failed: ${String((error as Error).message ?? error)}`,
      ),
    );
    failed = true;
  }
  output.out(
    redact.text(
      `${lines.join('\n')}\n${failed ? 'The server would start, but not work as configured: fix the problems above.' : 'Ready: the server can work as configured.'}\n`,
    ),
  );
  return failed ? 1 : 0;
}

/**
 * The operation doctor GETs: the first GET operation in document order whose path template has no parameter and
 * that requires no query parameter, so that its URL is the base and the template alone (`/meters` of openapi.json).
 * @returns The operation, or `undefined` when the document has none such.
 */
export function doctorOperation(loaded: LoadedDocument): Operation | undefined {
  return loaded.operations.find(
    (operation) =>
      operation.method === 'GET' &&
      !operation.pathTemplate.includes('{') &&
      !operation.parameters.some((parameter) => parameter.required && parameter.in === 'query'),
  );
}

/**
 * The base URLs to try when the base's path and the document's server path disagree, best first: the server path at
 * the base's origin (`https://host/v2` for a base of `https://host/v3`), then the server path under the base's own
 * path (`https://host/api/v2` for a base of `https://host/api`), only when the base has a path that is neither the
 * server path's end already nor a version segment of its own (`/v3/v2` makes no sense).
 * @param serverPath The document's server path without trailing slash (`/v2`).
 * @returns `set API_BASE_URL to https://host/v2` or `set API_BASE_URL to https://host/v2, or https://host/api/v2`.
 */
export function baseSuggestion(base: URL, serverPath: string): string {
  const prefix = trimSlash(base.pathname);
  const first = `${base.origin}${serverPath}`;
  const last = prefix.slice(prefix.lastIndexOf('/') + 1);
  const appended =
    prefix !== '' && !prefix.endsWith(serverPath) && !/^v\d+(\.\d+)*$/i.test(last)
      ? `${base.origin}${prefix}${serverPath}`
      : '';
  return `set API_BASE_URL to ${first}${appended && appended !== first ? `, or ${appended}` : ''}`;
}

/** How the key travels, never the key: `none (API_KEY is not set)`, `as Authorization: Bearer` or `in X-Api-Key`. */
function keyText(config: Config): string {
  if (!config.apiKey) return 'none (API_KEY is not set)';
  return config.apiKeyHeader ? `in ${config.apiKeyHeader}` : 'as Authorization: Bearer';
}

/** A URL as the log shows it (no credentials, no query values), or `(a URL not shown)` when it does not parse. */
function shownUrl(url: string): string {
  return publicUrl(url) ?? '(a URL not shown)';
}

/** The version the document states: `OpenAPI 3.0.3`, `Swagger 2.0`. */
function documentVersion(loaded: LoadedDocument): string {
  const doc = loaded.doc as { openapi?: unknown; swagger?: unknown };
  if (typeof doc.openapi === 'string') return `OpenAPI ${doc.openapi}`;
  if (typeof doc.swagger === 'string') return `Swagger ${doc.swagger}`;
  return `OpenAPI ${loaded.version}`;
}
