// Real traffic against a real contract: every recorded api.github.com GET with a JSON 2xx body
// (@octokit/fixtures, recorded 2017-2024) is matched to an operation of GitHub's current OpenAPI 3.0.3
// description (@octokit/openapi) and checked by validate.ts. Two independent oracles:
//   1. ajv (JSON Schema draft-07 with OpenAPI's `nullable`) decides valid/invalid on the same schema;
//   2. a walk written here, independent of validate.ts, lists the undocumented fields.
// The recordings are older than the document, so real drift is expected and counted, not failed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { loadDocument } from '../src/document/openapi-document.ts';
import { matchOperation } from '../src/document/match.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { check, checkResponse, schemaFor } from '../validate.ts';
import { resolvePointer } from '../src/shared/json-pointer.ts';
import type { Finding, ResponseCheck } from '../validate.ts';
import { recordedGets, start } from '../harness/github-replay.ts';
import type { RecordedGet } from '../harness/github-replay.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { forAjv } from '../harness/ajv-oracle.ts';

const GITHUB_DOC = githubDescriptionPath();
const AJV_ID = 'https://openapi-probe.invalid/api.github.com.json';

type Case = {
  rec: RecordedGet;
  operationId?: string;
  pathTemplate?: string;
  checked?: ResponseCheck;
};

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ---------------------------------------------------------------- ajv side

/**
 * Our verdict in ajv's terms. A response is invalid when validate.ts reports a failed JSON Schema assertion:
 * kinds missing, wrongType, enum (errors) and constraint (a warning in the product, but an assertion:
 * maxLength, pattern, minimum, not, oneOf...), plus an undocumented field in an object closed by
 * `additionalProperties: false` (its schemaPath ends in /additionalProperties). Not counted: undocumented
 * fields of open objects (JSON Schema allows them), format (ajv runs with validateFormats: false; formats
 * are annotations by default, 2020-12 section 7.2), writeOnly/readOnly (annotations for ajv),
 * undocumentedStatus (not a schema assertion; only documented 2xx statuses are compared here).
 */
function ourValid(findings: Finding[]): boolean {
  return !findings.some(
    (f) =>
      f.kind === 'missing' ||
      f.kind === 'wrongType' ||
      f.kind === 'enum' ||
      f.kind === 'constraint' ||
      (f.kind === 'undocumented' && /\/additionalProperties$/.test(f.schemaPath)),
  );
}

// ---------------------------------------------------------------- independent undocumented walk

/**
 * Lists undocumented fields with plain JSON Schema reading, written without looking at validate.ts
 * internals, under the product's documented rules: a key is documented when `properties` of the schema
 * or of any allOf branch (after `$ref`, transitively; oneOf/anyOf branches included) names it, a
 * `patternProperties` regex matches it, or `additionalProperties` is true/a schema there; an object whose
 * schemas declare nothing about keys is not checked. Values are walked through every declaring
 * location (properties, matching patternProperties, else additionalProperties) and arrays through
 * `items`. Where the schema at an object or array itself offers alternatives (oneOf/anyOf), which fields
 * count depends on which branch the value matches; that subtree is not compared and its instance path
 * is added to `skipped`.
 */
function walkUndocumented(doc: unknown, schema: unknown, value: unknown): { paths: Set<string>; skipped: string[] } {
  const paths = new Set<string>();
  const skipped: string[] = [];
  const deref = (s: unknown): unknown => {
    for (let i = 0; i < 64 && isObj(s) && typeof s.$ref === 'string'; i++) s = resolvePointer(doc, s.$ref);
    return s;
  };
  // The schema objects that apply together to one instance: s and its allOf branches, $refs followed.
  const closure = (s: unknown, out: Obj[], seen: Set<unknown>): Obj[] => {
    const t = deref(s);
    if (!isObj(t) || seen.has(t)) return out;
    seen.add(t);
    out.push(t);
    if (Array.isArray(t.allOf)) for (const b of t.allOf) closure(b, out, seen);
    return out;
  };
  const nameOf = (k: string) =>
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `['${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
  const walk = (s: unknown, v: unknown, path: string): void => {
    const top = deref(s);
    if (!isObj(top)) return;
    const all = closure(top, [], new Set());
    if (Array.isArray(v) && all.some((part) => Array.isArray(part.oneOf) || Array.isArray(part.anyOf))) {
      skipped.push(path);
      return;
    }
    if (Array.isArray(v)) {
      for (const part of all) {
        if (part.items !== undefined) v.forEach((item, i) => walk(part.items, item, `${path}[${i}]`));
      }
      return;
    }
    if (!isObj(v)) return;
    if (Array.isArray(top.oneOf) || Array.isArray(top.anyOf)) {
      skipped.push(path);
      return;
    }
    // Alternatives deeper in the allOf closure: their branches' names are documented too.
    const names = new Set<string>();
    const patterns: RegExp[] = [];
    let open = false;
    let declares = false;
    const gather = (parts: Obj[]): void => {
      for (const part of parts) {
        if (isObj(part.properties)) {
          declares = true;
          for (const k of Object.keys(part.properties)) names.add(k);
        }
        if (isObj(part.patternProperties)) {
          declares = true;
          for (const p of Object.keys(part.patternProperties)) patterns.push(new RegExp(p, 'u'));
        }
        if (part.additionalProperties === false) declares = true;
        if (part.additionalProperties === true || isObj(part.additionalProperties)) open = true;
        for (const kw of ['oneOf', 'anyOf']) {
          const list = part[kw];
          if (Array.isArray(list)) for (const b of list) gather(closure(b, [], new Set()));
        }
      }
    };
    gather(all);
    let nested = false;
    for (const part of all) if (part !== top && (Array.isArray(part.oneOf) || Array.isArray(part.anyOf))) nested = true;
    for (const [k, child] of Object.entries(v)) {
      const at = path + nameOf(k);
      if (!names.has(k) && declares && !open && !patterns.some((re) => re.test(k))) paths.add(at);
      for (const part of all) {
        const props = isObj(part.properties) ? part.properties : {};
        let covered = false;
        if (Object.prototype.hasOwnProperty.call(props, k)) {
          covered = true;
          walk(props[k], child, at);
        }
        if (isObj(part.patternProperties)) {
          for (const [p, ps] of Object.entries(part.patternProperties)) {
            if (new RegExp(p, 'u').test(k)) {
              covered = true;
              walk(ps, child, at);
            }
          }
        }
        if (!covered && isObj(part.additionalProperties)) walk(part.additionalProperties, child, at);
      }
      // A value typed only inside an alternative of an allOf branch: which branch applies is the validator's call.
      if (
        nested &&
        !all.some((part) => isObj(part.properties) && Object.prototype.hasOwnProperty.call(part.properties, k)) &&
        isObj(child)
      ) {
        skipped.push(at);
      }
    }
  };
  walk(schema, value, '$');
  return { paths, skipped };
}

function under(path: string, prefixes: string[]): boolean {
  return prefixes.some((p) => path === p || path.startsWith(p + '.') || path.startsWith(p + '['));
}

// ---------------------------------------------------------------- the tests

/**
 * Recorded GETs that match no GET operation of the current document, with why. None is a matcher gap:
 * `/repositories/{id}` aliases were never documented; `GET /repos/{owner}/{repo}/git/refs` and classic
 * project cards were removed from the document. (`/contents/`, the root folder with `{path}` empty, is
 * matched since issue 7: `{path}` is `x-multi-segment`.)
 */
const EXPECTED_UNMATCHED = [
  '/projects/columns/1000/cards',
  '/projects/columns/cards/1000',
  '/repos/octokit-fixture-org/git-refs/git/refs/',
  '/repos/octokit-fixture-org/git-refs/git/refs/',
  '/repositories/1000',
  '/repositories/1000/issues?per_page=3&page=2',
  '/repositories/1000/issues?per_page=3&page=3',
  '/repositories/1000/issues?per_page=3&page=4',
  '/repositories/1000/issues?per_page=3&page=5',
];

/**
 * Documented examples where validate.ts and ajv disagree, pinned so that any change shows: none. Until
 * issue 7 nine event lists (activity/list-*-events) were judged valid by us and invalid by ajv: their
 * `payload` matched two or three branches of `event.payload.oneOf` (public-event, `{title, type: object}`,
 * matches every object; delete-event's required fields are a subset of create-event's and neither closes the
 * object, so every create payload matches both), and validate.ts did not check oneOf's "exactly one". It
 * does now (see the oneOf test below).
 */
const EXAMPLE_DISAGREEMENTS: string[] = [];

type Sample = {
  label: string;
  operationId?: string;
  schemaPath: string;
  schema: unknown;
  body: unknown;
  findings: Finding[];
};

/** Differential checks shared by both corpora; returns figures for the report. */
function compareWithOracles(
  doc: unknown,
  ajv: Ajv,
  samples: Sample[],
  disagreements: string[] = [],
): { ajvMs: number; compared: number; skipped: number; verdicts: string } {
  const t = performance.now();
  const ours = samples.map((s) => ({ sample: s.label, valid: ourValid(s.findings) }));
  const theirs = samples.map((s) => ({
    sample: s.label,
    valid: ajv.compile({ $ref: AJV_ID + s.schemaPath })(s.body) as boolean,
  }));
  const ajvMs = performance.now() - t;
  // Every disagreement (samples where we say valid and ajv invalid, or the reverse) must be one of `disagreements`.
  assert.deepEqual(
    ours.flatMap((o, i) =>
      o.valid === theirs[i].valid ? [] : [`${o.sample}: ours ${o.valid}, ajv ${theirs[i].valid}`],
    ),
    disagreements,
  );
  let compared = 0;
  let skipped = 0;
  for (const s of samples) {
    const walked = walkUndocumented(doc, s.schema, s.body);
    const mine = s.findings
      .filter((f) => f.kind === 'undocumented' && !under(f.path, walked.skipped))
      .map((f) => f.path);
    const independent = [...walked.paths].filter((p) => !under(p, walked.skipped));
    assert.deepEqual(
      { sample: s.label, undocumented: [...new Set(mine)].sort() },
      { sample: s.label, undocumented: independent.sort() },
    );
    compared += independent.length;
    skipped += walked.skipped.length;
  }
  const valid = ours.filter((o) => o.valid).length;
  return {
    ajvMs,
    compared,
    skipped,
    verdicts: `verdicts: ${valid} valid, ${ours.length - valid} invalid; ajv agrees on ${ours.filter((o, i) => o.valid === theirs[i].valid).length} of ${ours.length}`,
  };
}

function kindCounts(samples: Sample[]): string {
  const kinds = new Map<string, number>();
  for (const s of samples)
    for (const f of s.findings)
      kinds.set(`${f.kind} (${f.severity})`, (kinds.get(`${f.kind} (${f.severity})`) ?? 0) + 1);
  return (
    [...kinds]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none'
  );
}

let shared: Promise<{ loaded: LoadedDocument; ajv: Ajv; loadMs: number; ajvSetupMs: number }> | undefined;
/** Loads the 13 MB document once for the whole file, and gives ajv its OAS 3.0.3 reading. */
function github(): Promise<{ loaded: LoadedDocument; ajv: Ajv; loadMs: number; ajvSetupMs: number }> {
  shared ??= (async () => {
    let t = performance.now();
    const loaded = await loadDocument(GITHUB_DOC);
    const loadMs = performance.now() - t;
    t = performance.now();
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...(forAjv(loaded.doc) as Obj), $id: AJV_ID });
    return { loaded, ajv, loadMs, ajvSetupMs: performance.now() - t };
  })();
  return shared;
}

describe('GitHub recorded responses against GitHub OpenAPI 3.0.3', () => {
  let loaded: LoadedDocument;
  let ajv: Ajv;
  const cases: Case[] = [];
  const figures: string[] = [];
  const timings: Record<string, number> = {};

  before(async () => {
    const g = await github();
    loaded = g.loaded;
    ajv = g.ajv;
    timings.loadMs = g.loadMs;
    timings.ajvSetupMs = g.ajvSetupMs;
    const t = performance.now();
    for (const rec of recordedGets()) {
      const c: Case = { rec };
      const match = matchOperation(loaded, 'GET', rec.path);
      if (match.operation) {
        c.operationId = match.operation.operationId;
        c.pathTemplate = match.operation.pathTemplate;
        c.checked = checkResponse(loaded.doc, 'GET', match.operation.pathTemplate, {
          status: rec.status,
          contentType: rec.contentType,
          body: rec.body,
        });
      }
      cases.push(c);
    }
    timings.checkMs = performance.now() - t;
  });

  const samples = (): Sample[] =>
    cases
      .filter((c) => c.checked?.target)
      .map((c) => ({
        label: `${c.operationId} ${c.rec.path}`,
        operationId: c.operationId,
        schemaPath: c.checked!.target!.schemaPath,
        schema: c.checked!.target!.schema,
        body: c.rec.body,
        findings: c.checked!.findings,
      }));

  it('reads 27 recorded GETs with a JSON 2xx body from 14 scenarios', () => {
    assert.equal(cases.length, 27);
    assert.equal(new Set(cases.map((c) => c.rec.scenario)).size, 14);
  });

  it('matches every recorded GET to an operation except those the document does not describe', () => {
    const unmatched = cases
      .filter((c) => !c.pathTemplate)
      .map((c) => c.rec.path)
      .sort();
    assert.deepEqual(unmatched, EXPECTED_UNMATCHED);
  });

  it('issue 7: matches the recorded root folder listing, contents/ with {path} empty, with a note', () => {
    const match = matchOperation(loaded, 'GET', '/repos/octokit-fixture-org/hello-world/contents/');
    assert.deepEqual(
      [match.operation?.operationId, match.operation && match.params, match.note],
      [
        'repos/get-content',
        { owner: 'octokit-fixture-org', repo: 'hello-world', path: '' },
        'path parameter "path" is empty',
      ],
    );
  });

  it('issue 7: matches a folder below the root, contents/{path} with slashes, and checks it with no finding', async () => {
    const replay = await start();
    try {
      const path = '/repos/octokit-fixture-org/hello-world/contents/docs/guides';
      const response = await fetch(replay.url + path);
      const match = matchOperation(loaded, 'GET', path);
      assert.ok(match.operation, 'contents/{path} matches');
      const checked = checkResponse(loaded.doc, 'GET', match.operation.pathTemplate, {
        status: response.status,
        contentType: response.headers.get('content-type') ?? undefined,
        body: await response.json(),
      });
      assert.deepEqual(
        [match.operation.operationId, match.params, match.note, checked.validated, checked.findings],
        [
          'repos/get-content',
          { owner: 'octokit-fixture-org', repo: 'hello-world', path: 'docs/guides' },
          undefined,
          true,
          [],
        ],
      );
    } finally {
      await replay.close();
    }
  });

  it('finds a response schema for every matched recording and validates it', () => {
    const notValidated = cases
      .filter((c) => c.checked && !c.checked.validated)
      .map((c) => `${c.rec.path}: ${c.checked!.reason}`);
    assert.deepEqual(notValidated, []);
    assert.equal(samples().length, 18);
  });

  it('agrees with ajv on valid/invalid and with an independent walk on undocumented fields', () => {
    const r = compareWithOracles(loaded.doc, ajv, samples());
    timings.ajvMs = r.ajvMs;
    figures.push(r.verdicts);
    figures.push(
      `undocumented paths compared with the independent walk: ${r.compared}; subtrees not compared (oneOf/anyOf): ${r.skipped}`,
    );
  });

  it('reports the drift of the 2017-2024 recordings from the current document', () => {
    const drift = samples()
      .filter((s) => s.findings.some((f) => f.severity === 'error'))
      .map(
        (s) =>
          `${s.label}: ${s.findings
            .filter((f) => f.severity === 'error')
            .map((f) => `${f.kind} ${f.path}`)
            .join(', ')}`,
      );
    assert.deepEqual(drift, [
      'orgs/get /orgs/octokit-fixture-org: missing $.archived_at',
      'repos/get /repos/octokit-fixture-org/hello-world: missing $.has_discussions',
      'issues/list-for-repo /repos/octokit-fixture-org/paginate-issues/issues?per_page=3: enum $[0].state_reason, enum $[1].state_reason, enum $[2].state_reason',
      'repos/list-release-assets /repos/octokit-fixture-org/release-assets/releases/1000/assets: missing $[0].digest',
      'repos/get-release-asset /repos/octokit-fixture-org/release-assets/releases/assets/1000: missing $.digest',
      'repos/list-release-assets /repos/octokit-fixture-org/release-assets-conflict/releases/1000/assets: missing $[0].digest',
      'search/issues-and-pull-requests /search/issues?q=sesame%20repo%3Aoctokit-fixture-org%2Fsearch-issues: missing $.search_type',
    ]);
  });

  after(() => {
    const matched = samples();
    console.log(
      [
        'GitHub recorded traffic vs @octokit/openapi api.github.com.json:',
        `  recorded JSON 2xx GETs: ${cases.length}; matched: ${matched.length}; unmatched: ${cases.length - matched.length}`,
        `  recorded GETs that match an operation: ${cases.filter((c) => c.pathTemplate).length} of ${cases.length}`,
        `  distinct operations: ${new Set(matched.map((s) => s.operationId)).size}`,
        `  responses with findings (drift): ${matched.filter((s) => s.findings.length > 0).length}; with error findings: ${matched.filter((s) => s.findings.some((f) => f.severity === 'error')).length}`,
        `  finding kinds: ${kindCounts(matched)}`,
        ...figures.map((f) => `  ${f}`),
        `  ms: load ${timings.loadMs?.toFixed(0)}, match+check ${timings.checkMs?.toFixed(0)}, ajv setup ${timings.ajvSetupMs?.toFixed(0)}, ajv compile+validate ${timings.ajvMs?.toFixed(0)}`,
      ].join('\n'),
    );
  });
});

describe('GitHub documented response examples against their own schemas', () => {
  // Every `examples` value of a GET 2xx application/json response in the document: 600+ bodies written
  // by GitHub for the same schemas, many of them out of step with the schema.
  const samples: Sample[] = [];
  let loaded: LoadedDocument;
  let ajv: Ajv;
  let checkMs = 0;
  let r: ReturnType<typeof compareWithOracles> | undefined;

  before(async () => {
    ({ loaded, ajv } = await github());
    const t = performance.now();
    for (const op of loaded.operations) {
      if (op.method !== 'GET') continue;
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^2\d\d$/.test(status) || !isObj(response) || !isObj(response.content)) continue;
        const media = response.content['application/json'];
        if (!isObj(media) || !isObj(media.examples)) continue;
        const target = schemaFor(loaded.doc, 'GET', op.pathTemplate, Number(status), 'application/json');
        if (!target) continue;
        for (const [name, raw] of Object.entries(media.examples)) {
          const example = isObj(raw) && typeof raw.$ref === 'string' ? resolvePointer(loaded.doc, raw.$ref) : raw;
          if (!isObj(example) || example.value === undefined) continue;
          samples.push({
            label: `${op.operationId} ${status} ${name}`,
            operationId: op.operationId,
            schemaPath: target.schemaPath,
            schema: target.schema,
            body: example.value,
            findings: check(loaded.doc, target.schema, example.value, { at: target.schemaPath }),
          });
        }
      }
    }
    checkMs = performance.now() - t;
  });

  it('checks 636 examples of 614 GET operations', () => {
    assert.equal(samples.length, 636);
    assert.equal(new Set(samples.map((s) => s.operationId)).size, 614);
  });

  it('agrees with ajv on valid/invalid and with an independent walk on undocumented fields', () => {
    r = compareWithOracles(loaded.doc, ajv, samples, EXAMPLE_DISAGREEMENTS);
  });

  it('issue 7: reports each event payload that matches several branches of event.payload.oneOf, where ajv does', () => {
    const at = '#/components/schemas/event/properties/payload/oneOf';
    const branches = (...names: string[]) => names.map((n) => `#/components/schemas/${n}`);
    const message = (list: string[]) =>
      `matches ${list.length} oneOf branches (${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}), ` +
      'but oneOf allows exactly one; the branches overlap, so the document may mean anyOf or lack a property that tells them apart';
    const publicWatch = message(branches('public-event', 'watch-event'));
    const publicPush = message(branches('public-event', 'push-event'));
    const createDeletePublic = message(branches('create-event', 'delete-event', 'public-event'));
    const found = samples.flatMap((s) =>
      s.findings.filter((f) => f.keyword === 'oneOf').map((f) => [s.label, f.kind, f.path, f.schemaPath, f.message]),
    );
    assert.deepStrictEqual(found, [
      ['activity/list-public-events 200 default', 'constraint', '$[0].payload', at, publicWatch],
      ['activity/list-public-events 200 default', 'constraint', '$[1].payload', at, publicPush],
      ['activity/list-public-events-for-repo-network 200 default', 'constraint', '$[0].payload', at, publicPush],
      ['activity/list-public-events-for-repo-network 200 default', 'constraint', '$[1].payload', at, publicWatch],
      ['activity/list-public-org-events 200 200-response', 'constraint', '$[0].payload', at, publicWatch],
      ['activity/list-public-org-events 200 200-response', 'constraint', '$[1].payload', at, publicPush],
      ['activity/list-repo-events 200 200-response', 'constraint', '$[0].payload', at, publicPush],
      ['activity/list-repo-events 200 200-response', 'constraint', '$[1].payload', at, publicWatch],
      ['activity/list-events-for-authenticated-user 200 default', 'constraint', '$[0].payload', at, publicWatch],
      ['activity/list-events-for-authenticated-user 200 default', 'constraint', '$[1].payload', at, publicPush],
      ['activity/list-org-events-for-authenticated-user 200 default', 'constraint', '$[0].payload', at, publicPush],
      [
        'activity/list-org-events-for-authenticated-user 200 default',
        'constraint',
        '$[1].payload',
        at,
        createDeletePublic,
      ],
      ['activity/list-public-events-for-user 200 default', 'constraint', '$[0].payload', at, publicWatch],
      ['activity/list-public-events-for-user 200 default', 'constraint', '$[1].payload', at, publicPush],
      ['activity/list-received-events-for-user 200 default', 'constraint', '$[0].payload', at, publicPush],
      ['activity/list-received-events-for-user 200 default', 'constraint', '$[1].payload', at, createDeletePublic],
      ['activity/list-received-public-events-for-user 200 default', 'constraint', '$[0].payload', at, publicPush],
      [
        'activity/list-received-public-events-for-user 200 default',
        'constraint',
        '$[1].payload',
        at,
        createDeletePublic,
      ],
    ]);
  });

  it('finds 117 of the examples invalid against their own schema', () => {
    assert.equal(samples.filter((s) => !ourValid(s.findings)).length, 117);
  });

  after(() => {
    console.log(
      [
        'GitHub documented examples vs their schemas:',
        `  examples: ${samples.length}; operations: ${new Set(samples.map((s) => s.operationId)).size}`,
        `  examples with findings: ${samples.filter((s) => s.findings.length > 0).length}; with error findings: ${samples.filter((s) => s.findings.some((f) => f.severity === 'error')).length}; invalid for ajv and us: ${samples.filter((s) => !ourValid(s.findings)).length}`,
        `  finding kinds: ${kindCounts(samples)}`,
        r
          ? `  ${r.verdicts}\n  undocumented paths compared with the independent walk: ${r.compared}; subtrees not compared (oneOf/anyOf): ${r.skipped}`
          : '  (oracle comparison did not finish)',
        `  ms: check ${checkMs.toFixed(0)}, ajv compile+validate ${r?.ajvMs.toFixed(0)}`,
      ].join('\n'),
    );
  });
});

describe('github-replay', () => {
  let replay: Awaited<ReturnType<typeof start>>;
  before(async () => {
    replay = await start();
  });
  after(async () => {
    await replay.close();
  });

  it('answers a recorded GET with its recorded status, content type and body', async () => {
    const response = await fetch(`${replay.url}/repos/octokit-fixture-org/labels/labels/test-label`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    const recorded = recordedGets().find((g) => g.path === '/repos/octokit-fixture-org/labels/labels/test-label');
    assert.deepEqual(await response.json(), recorded?.body);
  });

  it('matches the query regardless of parameter order and of + versus %20', async () => {
    const a = await fetch(`${replay.url}/repositories/1000/issues?page=2&per_page=3`);
    const b = await fetch(`${replay.url}/search/issues?q=sesame+repo:octokit-fixture-org/search-issues`);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.equal(((await a.json()) as unknown[]).length, 3);
    assert.equal(((await b.json()) as { total_count: number }).total_count, 2);
  });

  it('issue 7: serves a folder below the root built from the recorded root listing, paths moved under docs/guides/', async () => {
    const response = await fetch(`${replay.url}/repos/octokit-fixture-org/hello-world/contents/docs/guides`);
    const moved = 'octokit-fixture-org/hello-world/contents/docs/guides/README.md?ref=master';
    assert.deepEqual(
      [response.status, response.headers.get('content-type'), await response.json()],
      [
        200,
        'application/json; charset=utf-8',
        [
          {
            name: 'README.md',
            path: 'docs/guides/README.md',
            sha: '93a078d1c3f76aa1ca11def8f882a06df1d4a01b',
            size: 13,
            url: `https://api.github.com/repos/${moved}`,
            html_url: 'https://github.com/octokit-fixture-org/hello-world/blob/master/docs/guides/README.md',
            git_url:
              'https://api.github.com/repos/octokit-fixture-org/hello-world/git/blobs/93a078d1c3f76aa1ca11def8f882a06df1d4a01b',
            download_url:
              'https://raw.githubusercontent.com/octokit-fixture-org/hello-world/master/docs/guides/README.md',
            type: 'file',
            _links: {
              self: `https://api.github.com/repos/${moved}`,
              git: 'https://api.github.com/repos/octokit-fixture-org/hello-world/git/blobs/93a078d1c3f76aa1ca11def8f882a06df1d4a01b',
              html: 'https://github.com/octokit-fixture-org/hello-world/blob/master/docs/guides/README.md',
            },
          },
        ],
      ],
    );
  });

  it('serves the recordings of one path in turn, cycling', async () => {
    const path = '/repos/octokit-fixture-org/add-and-remove-repository-collaborator/collaborators';
    const lengths: number[] = [];
    for (let i = 0; i < 3; i++) lengths.push(((await (await fetch(replay.url + path)).json()) as unknown[]).length);
    assert.deepEqual(lengths, [2, 1, 2]);
  });

  it('rewrites a recorded Location header to the replay server and does not follow it', async () => {
    const response = await fetch(`${replay.url}/repos/octokit-fixture-org/rename-repository`, { redirect: 'manual' });
    assert.equal(response.status, 301);
    assert.equal(response.headers.get('location'), `${replay.url}/repositories/1000`);
  });

  it('answers 404 with a JSON message for anything not recorded, POST included', async () => {
    const get = await fetch(`${replay.url}/repos/octokit-fixture-org/nothing`);
    const post = await fetch(`${replay.url}/repos/octokit-fixture-org/labels/labels`, { method: 'POST', body: '{}' });
    assert.deepEqual(
      [
        get.status,
        ((await get.json()) as { message: string }).message,
        post.status,
        ((await post.json()) as { message: string }).message,
      ],
      [
        404,
        'No recording for GET /repos/octokit-fixture-org/nothing',
        404,
        'No recording for POST /repos/octokit-fixture-org/labels/labels',
      ],
    );
  });

  it('logs every request received, method and path with query', () => {
    assert.deepEqual(replay.requests.slice(0, 3), [
      { method: 'GET', path: '/repos/octokit-fixture-org/labels/labels/test-label' },
      { method: 'GET', path: '/repositories/1000/issues?page=2&per_page=3' },
      { method: 'GET', path: '/search/issues?q=sesame+repo:octokit-fixture-org/search-issues' },
    ]);
  });
});
