// Walkthrough on real traffic: the probe server checks recorded api.github.com responses
// (@octokit/fixtures, replayed on 127.0.0.1) against GitHub's current OpenAPI description
// (@octokit/openapi, OpenAPI 3.0.3). Run: `npm run demo:github` (or `node --import tsx demos/github.ts`).
// Exits 1 when the server fails (no reply, a protocol error, a crash, an unexpected exit code).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { start } from '../harness/github-replay.ts';
import { spawnServer } from '../harness/stdio-client.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';

/** GitHub's OpenAPI 3.0.3 description as shipped by @octokit/openapi (13 MB, 800+ path templates), from `fixtures/real/`. */
export const GITHUB_DOC = githubDescriptionPath();

/** One probe as an agent would send it: path relative to the base URL, optional query. */
export type DemoProbe = { path: string; query?: Record<string, string>; why: string };

/**
 * The probes of the walkthrough, in order: eleven operations that match the document, records of the
 * same operation twice or more (releases by tag, release assets, collaborators before and after a
 * change), a redirect, and paths the current document no longer describes.
 */
export const PROBES: readonly DemoProbe[] = [
  { path: '/', why: 'API root' },
  { path: '/orgs/octokit-fixture-org', why: 'an organization' },
  { path: '/repos/octokit-fixture-org/hello-world', why: 'a repository' },
  { path: '/repos/octokit-fixture-org/rename-repository', why: 'a renamed repository (301, not followed)' },
  { path: '/repos/octokit-fixture-org/labels/labels', why: 'labels of a repository' },
  { path: '/repos/octokit-fixture-org/labels/labels/test-label', why: 'one label' },
  { path: '/repos/octokit-fixture-org/paginate-issues/issues', query: { per_page: '3' }, why: 'first page of issues' },
  { path: '/search/issues', query: { q: 'sesame repo:octokit-fixture-org/search-issues' }, why: 'issue search' },
  {
    path: '/repos/octokit-fixture-org/create-status/commits/0000000000000000000000000000000000000001/statuses',
    why: 'commit statuses',
  },
  {
    path: '/repos/octokit-fixture-org/create-status/commits/0000000000000000000000000000000000000001/status',
    why: 'combined status',
  },
  { path: '/repos/octokit-fixture-org/release-assets/releases/tags/v1.0.0', why: 'a release by tag' },
  { path: '/repos/octokit-fixture-org/release-assets-conflict/releases/tags/v1.0.0', why: 'another release by tag' },
  { path: '/repos/octokit-fixture-org/release-assets/releases/1000/assets', why: 'assets of a release' },
  { path: '/repos/octokit-fixture-org/release-assets-conflict/releases/1000/assets', why: 'assets of another release' },
  { path: '/repos/octokit-fixture-org/release-assets/releases/assets/1000', why: 'one release asset' },
  { path: '/repos/octokit-fixture-org/add-and-remove-repository-collaborator/invitations', why: 'pending invitations' },
  {
    path: '/repos/octokit-fixture-org/add-and-remove-repository-collaborator/collaborators',
    why: 'collaborators (recorded before the removal)',
  },
  {
    path: '/repos/octokit-fixture-org/add-and-remove-repository-collaborator/collaborators',
    why: 'collaborators (recorded after the removal)',
  },
  { path: '/repos/octokit-fixture-org/hello-world/contents/', why: 'root directory listing: `{path}` left empty' },
  {
    path: '/repos/octokit-fixture-org/hello-world/contents/docs/guides',
    why: 'a folder below the root: `{path}` is docs/guides, slash included; the replay builds this response from the recorded root listing (paths moved under docs/guides/), as no recording has one',
  },
  { path: '/projects/columns/1000/cards', why: 'classic project cards (since removed from the document)' },
  { path: '/repositories/1000', why: 'repository by id (an undocumented alias)' },
];

type Finding = { kind: string; severity: string; path: string; message: string };

function compactFindings(findings: Finding[], limit = 8): string[] {
  const lines = findings
    .slice(0, limit)
    .map((f) => `      ${f.severity.padEnd(7)} ${f.kind.padEnd(12)} ${f.path}  ${f.message}`);
  if (findings.length > limit) {
    const kinds = new Map<string, number>();
    for (const f of findings.slice(limit)) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    lines.push(`      ... ${findings.length - limit} more (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')})`);
  }
  return lines;
}

/**
 * Runs the walkthrough: starts the replay server, spawns `probe-server.ts` over stdio with
 * OPENAPI_DOC = GitHub's description and API_BASE_URL = the replay, sends `initialize`,
 * `notifications/initialized`, one `tools/call probe` per entry of PROBES, then `field_presence` for
 * each operation probed with two or more JSON 2xx records. Prints to stdout.
 * @returns The exit code, also set as `process.exitCode`: 0 when every call got a JSON-RPC result and
 *   the server exited 0 after stdin closed, 1 otherwise. Never throws (failures go to stderr).
 */
export async function main(): Promise<number> {
  const replay = await start();
  const server = spawnServer({
    API_BASE_URL: replay.url,
    OPENAPI_DOC: GITHUB_DOC,
    PROBE_MAX_BYTES: String(512 * 1024),
    PROBE_TIMEOUT_MS: '15000',
  });
  let failed = false;
  try {
    const init = await server.request(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'demo-github', version: '0.0.0' },
      },
      30000,
    );
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    server.notify('notifications/initialized');
    console.log(
      `Server ${init.result.serverInfo?.name} ${init.result.serverInfo?.version}, protocol ${init.result.protocolVersion}`,
    );
    console.log(`GitHub replay at ${replay.url}; document ${GITHUB_DOC}\n`);

    const probedOk = new Map<string, string[]>(); // operation label -> paths with JSON 2xx bodies
    for (const p of PROBES) {
      // The first call loads the 13 MB document, so allow more than the client's default.
      const reply = await server.request(
        'tools/call',
        { name: 'probe', arguments: { path: p.path, ...(p.query ? { query: p.query } : {}) } },
        60000,
      );
      if (reply.error) throw new Error(`probe ${p.path}: JSON-RPC error ${JSON.stringify(reply.error)}`);
      const result = reply.result;
      const sc = result.structuredContent as Record<string, any> | undefined;
      const shown = p.path + (p.query ? '?' + new URLSearchParams(p.query).toString() : '');
      console.log(`GET ${shown}  (${p.why})`);
      if (!sc) {
        console.log(`    tool failure: ${result.content?.[0]?.text}\n`);
        continue;
      }
      const op = sc.operation;
      const opLabel = op
        ? `${op.method} ${op.pathTemplate}${op.operationId ? ` [${op.operationId}]` : ''}`
        : 'no operation';
      console.log(`    operation: ${opLabel}${sc.matchNote ? ` (${sc.matchNote})` : ''}`);
      console.log(`    status ${sc.status}, ${sc.bytes} bytes${sc.truncated ? ' (truncated)' : ''}, ${sc.contentType}`);
      if (!op && sc.validationNote) console.log(`    ${sc.validationNote}`);
      const findings = (sc.findings ?? []) as Finding[];
      if (op) {
        console.log(
          `    matchesContract: ${sc.matchesContract}, ${findings.length} finding(s)${sc.validationNote ? ` - ${sc.validationNote}` : ''}`,
        );
        for (const line of compactFindings(findings)) console.log(line);
        if (sc.status >= 200 && sc.status < 300 && typeof sc.body === 'object' && sc.body !== null) {
          const key = `GET ${op.pathTemplate}`;
          probedOk.set(key, [...(probedOk.get(key) ?? []), shown]);
        }
      }
      console.log('');
    }

    for (const [operation, paths] of probedOk) {
      if (paths.length < 2) continue;
      // `detail: "full"`: this walkthrough prints every field's count, not only the summary an agent gets by default.
      const reply = await server.request(
        'tools/call',
        { name: 'field_presence', arguments: { operation, detail: 'full' } },
        30000,
      );
      if (reply.error) throw new Error(`field_presence ${operation}: JSON-RPC error ${JSON.stringify(reply.error)}`);
      const sc = reply.result.structuredContent as Record<string, any> | undefined;
      // field_presence counts one record per path, its newest probe: the same path probed twice is one record.
      const distinct = new Set(paths).size;
      console.log(
        `Field presence for ${operation} over ${distinct} record(s)${distinct < paths.length ? ` (${paths.length} probes; a path probed again counts once, its newest response)` : ''}:`,
      );
      if (!sc) {
        console.log(`    ${reply.result.content?.[0]?.text}\n`);
        continue;
      }
      const fields = (sc.fields ?? []) as { path: string; text: string; documented: boolean; required: boolean }[];
      const varying = fields.filter((f) => !/^present in (\d+) of \1\b/.test(f.text));
      console.log(
        `    ${fields.length} fields; optional (documented, not required): ${sc.optionalFields?.length ?? 0}; undocumented: ${sc.undocumentedFields?.length ?? 0}`,
      );
      if (varying.length) console.log('    fields not present in every record:');
      for (const f of varying.slice(0, 12))
        console.log(
          `      ${f.path}: ${f.text}${f.required ? ' (the document requires it)' : f.documented ? '' : ' (undocumented)'}`,
        );
      if (varying.length > 12) console.log(`      ... ${varying.length - 12} more fields not present in every record`);
      console.log('');
    }
  } catch (error) {
    failed = true;
    console.error(`demo-github: ${(error as Error).message}`);
  }
  const code = await server.close();
  await replay.close();
  if (code !== 0) {
    failed = true;
    console.error(`demo-github: the server exited with ${code}; stderr:\n${server.stderr()}`);
  }
  console.log(`Replay served ${replay.requests.length} request(s); server exit code ${code}.`);
  process.exitCode = failed ? 1 : 0;
  return process.exitCode;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
