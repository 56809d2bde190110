// Replays the real api.github.com traffic recorded in `@octokit/fixtures` from a local HTTP server, so
// tests and the GitHub demo can probe real GitHub responses without the network.
// Dev-only: it reads a dev dependency from node_modules; product files never import it.
import { readFileSync, readdirSync, existsSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One recorded exchange as stored in a scenario's `normalized-fixture.json` (nock's recording format). */
type Recording = {
  scope: string;
  method: string;
  path: string;
  status: number;
  response: unknown;
  headers?: Record<string, string | number>;
  responseIsBinary?: boolean;
};

/** A recorded GET with a JSON 2xx body, as listed by `recordedGets`. */
export type RecordedGet = {
  scenario: string;
  path: string;
  status: number;
  contentType: string;
  body: unknown;
};

/** A request the replay server received: method as sent, path with the query string. */
export type ReplayRequest = { method: string; path: string };

/** A running replay server: base URL without trailing slash, `close()`, and every request received in order. */
export type ReplayServer = { url: string; close: () => Promise<void>; requests: ReplayRequest[] };

const GITHUB_SCOPE = 'https://api.github.com:443';
const SCENARIOS_DIR = fileURLToPath(
  new URL('../node_modules/@octokit/fixtures/scenarios/api.github.com/', import.meta.url),
);

// Headers that describe the recorded connection, not the response; Node sets its own.
const HOP_HEADERS = new Set(['connection', 'content-length', 'transfer-encoding', 'content-encoding', 'keep-alive']);

/** Reads every scenario once; entries keep the recording order of each scenario, scenarios sorted by name. */
function loadRecordings(): { scenario: string; rec: Recording }[] {
  if (!existsSync(SCENARIOS_DIR)) {
    throw new Error(`Expected @octokit/fixtures under ${SCENARIOS_DIR}; run npm install (it is a dev dependency)`);
  }
  const out: { scenario: string; rec: Recording }[] = [];
  for (const scenario of readdirSync(SCENARIOS_DIR).sort()) {
    const file = `${SCENARIOS_DIR}${scenario}/normalized-fixture.json`;
    if (!existsSync(file)) continue;
    const recs = JSON.parse(readFileSync(file, 'utf8')) as Recording[];
    for (const rec of recs) {
      if (rec.scope === GITHUB_SCOPE) out.push({ scenario, rec });
    }
  }
  return out;
}

let cache: { scenario: string; rec: Recording }[] | undefined;
function recordings(): { scenario: string; rec: Recording }[] {
  cache ??= loadRecordings();
  return cache;
}

/**
 * Normalises a request target so that parameter order and `+` vs `%20` do not matter
 * (WHATWG URL, application/x-www-form-urlencoded parsing).
 * @param target Path with optional query, e.g. `/search/issues?q=a%20b`.
 * @returns `/search/issues?q=a+b` style key; the path part is kept byte for byte (trailing slash included).
 */
export function requestKey(method: string, target: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (q === -1 || q === target.length - 1) return `${method.toUpperCase()} ${path}`;
  const params = [...new URLSearchParams(target.slice(q + 1))].sort((a, b) =>
    a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1,
  );
  return `${method.toUpperCase()} ${path}?${new URLSearchParams(params).toString()}`;
}

function contentTypeOf(rec: Recording): string {
  const ct = rec.headers?.['content-type'];
  return ct === undefined ? '' : String(ct);
}

function isJsonType(contentType: string): boolean {
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return essence === 'application/json' || essence.endsWith('+json');
}

/**
 * Lists the recorded api.github.com GETs whose response is 2xx with a JSON media type
 * (`application/json` or `*+json`, RFC 6839), in scenario order then recording order.
 * @returns `{scenario, path, status, contentType, body}`; `path` includes the query string as recorded,
 *   `body` is the parsed JSON. Throws when `@octokit/fixtures` is not installed.
 */
export function recordedGets(): RecordedGet[] {
  const out: RecordedGet[] = [];
  for (const { scenario, rec } of recordings()) {
    const contentType = contentTypeOf(rec);
    if (rec.method.toLowerCase() !== 'get' || rec.status < 200 || rec.status > 299) continue;
    if (!isJsonType(contentType) || rec.responseIsBinary) continue;
    out.push({ scenario, path: rec.path, status: rec.status, contentType, body: rec.response });
  }
  return out;
}

/**
 * A response the replay serves beyond the recordings, for a request no recording has: built from the
 * recorded response to `derivedFrom` (same status, headers and shape), changed only as `how` says.
 */
export type DerivedResponse = { path: string; derivedFrom: string; how: string };

const FOLDER = 'docs/guides';

/**
 * The derived responses, so the demo can probe a folder below the repository root (`contents/{path}`
 * with slashes, issue 7): no scenario of @octokit/fixtures records one. Not part of `recordedGets`.
 */
export const DERIVED_RESPONSES: readonly DerivedResponse[] = [
  {
    path: `/repos/octokit-fixture-org/hello-world/contents/${FOLDER}`,
    derivedFrom: '/repos/octokit-fixture-org/hello-world/contents/',
    how: `the recorded root folder listing with each entry's path and URLs moved under ${FOLDER}/`,
  },
];

/** The recording behind each derived response, rewritten (see DERIVED_RESPONSES); throws when its source is missing. */
function derivedRecordings(): Recording[] {
  return DERIVED_RESPONSES.map((derived) => {
    const source = recordings().find(
      ({ rec }) => rec.method.toLowerCase() === 'get' && rec.path === derived.derivedFrom,
    );
    if (!source || !Array.isArray(source.rec.response))
      throw new Error(`No recorded folder listing at ${derived.derivedFrom}`);
    const response = (source.rec.response as Record<string, unknown>[]).map((entry) => {
      const name = String(entry.path);
      // Every string naming the entry's path (`/contents/README.md?ref=master`, `/blob/master/README.md`) moves with it.
      const move = (value: unknown): unknown =>
        typeof value === 'string'
          ? value.split(`/${name}`).join(`/${FOLDER}/${name}`)
          : value !== null && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, move(v)]))
            : value;
      return { ...(move(entry) as Record<string, unknown>), path: `${FOLDER}/${name}` };
    });
    return { ...source.rec, path: derived.path, response };
  });
}

/**
 * Starts an HTTP/1.1 server on 127.0.0.1 that answers the recorded api.github.com GET requests with their
 * recorded status, headers and body. A request matches on method, path (exact, trailing slash included)
 * and query (order-insensitive). When a path was recorded several times (e.g. a list before and after a
 * change), successive requests get the recordings in turn, cycling. `Location` and `Link` headers are
 * rewritten from `https://api.github.com` to this server. HEAD is answered like GET without a body.
 * The DERIVED_RESPONSES are served too. Anything else gets 404 `{"message":"No recording for GET /x","documentation_url":...}`.
 * @param options.port TCP port; 0 (default) picks a free one.
 * @returns `{url, close, requests}`; `url` is `http://127.0.0.1:PORT`, `close()` resolves when the server
 *   has stopped, `requests` grows with every request received.
 */
export async function start(options: { port?: number } = {}): Promise<ReplayServer> {
  const table = new Map<string, Recording[]>();
  for (const rec of [...recordings().map((r) => r.rec), ...derivedRecordings()]) {
    if (rec.method.toLowerCase() !== 'get') continue;
    const key = requestKey('GET', rec.path);
    const list = table.get(key) ?? [];
    list.push(rec);
    table.set(key, list);
  }
  const turns = new Map<string, number>();
  const requests: ReplayRequest[] = [];
  let base = '';

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    requests.push({ method, path: target });
    const lookupMethod = method === 'HEAD' ? 'GET' : method;
    const key = requestKey(lookupMethod, target);
    const list = table.get(key);
    if (!list) {
      const body = JSON.stringify({
        message: `No recording for ${method} ${target}`,
        documentation_url: 'https://github.com/octokit/fixtures',
      });
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(method === 'HEAD' ? undefined : body);
      return;
    }
    const turn = turns.get(key) ?? 0;
    turns.set(key, turn + 1);
    const rec = list[turn % list.length];
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(rec.headers ?? {})) {
      if (HOP_HEADERS.has(name.toLowerCase())) continue;
      let v = String(value);
      if (name === 'location' || name === 'link') v = v.split('https://api.github.com').join(base);
      headers[name] = v;
    }
    const payload =
      typeof rec.response === 'string' ? rec.response : rec.response === undefined ? '' : JSON.stringify(rec.response);
    res.writeHead(rec.status, headers);
    res.end(method === 'HEAD' || rec.status === 204 || rec.status === 304 ? undefined : payload);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function main(): Promise<void> {
  const replay = await start({ port: Number(process.env.PORT ?? 0) });
  process.stderr.write(`GitHub replay on ${replay.url} (${recordedGets().length} JSON 2xx GETs recorded)\n`);
  for (const g of recordedGets()) process.stderr.write(`  ${g.status} GET ${g.path}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
