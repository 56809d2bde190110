// The TypeScript compiler as the oracle of the types describe_operation writes (issue 15): for each value,
// `const value: T = <the JSON>` compiles exactly when validate.ts `check` finds no error-level finding (warnings such
// as an open object's undocumented field count as accepted; values the checker could not decide are left out).
// Inputs: the JSON Schema Test Suite cases whose schema a type can express (draft4 from npm in both tiers, draft2020-12
// from Debian), the examples GitHub's description documents for its responses, the recorded api.github.com
// responses (@octokit/fixtures), and the bug cases 64, 69 and 71. Every disagreement must be a known deviation: an
// error the checker finds on a keyword no TypeScript type can express (integer, pattern, maxLength, ...).
// First tier: both suites, case fixtures and a sample of GitHub operations; second tier (npm run test:corpus): every
// GitHub operation's 2xx examples and every recorded response.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderTypeScriptWithin } from '../src/contract/typescript.ts';
import { loadDocument } from '../src/document/openapi-document.ts';
import { matchOperation } from '../src/document/match.ts';
import { schemaFor } from '../validate.ts';
import { resolvePointer, escapePointerToken } from '../src/shared/json-pointer.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { recordedGets } from '../harness/github-replay.ts';
import { corpusDecision, corpusMode, draft2020Path, DEBIAN_DRAFT_2020_12 } from '../harness/corpus.ts';
import { compare, summarize } from '../harness/typescript-oracle.ts';
import type { Comparison, OracleCase } from '../harness/typescript-oracle.ts';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const CASES = fileURLToPath(new URL('../fixtures/cases/', import.meta.url));
const DRAFT4 = fileURLToPath(new URL('../node_modules/json-schema-test-suite/tests/draft4/', import.meta.url));

/** Prints the figures and returns the disagreements that are not known deviations. */
function report(name: string, comparisons: Comparison[]): string[] {
  const { line, disagreements } = summarize(name, comparisons);
  console.log(line);
  const byReason = new Map<string, string[]>();
  for (const item of disagreements) byReason.set(item.reason!, [...(byReason.get(item.reason!) ?? []), item.id]);
  for (const [reason, ids] of byReason)
    console.log(`  ${ids.length} x ${reason}: ${ids.slice(0, 6).join(', ')}${ids.length > 6 ? ', …' : ''}`);
  return disagreements.filter((item) => !item.known).map((item) => `${item.id}: ${item.reason}`);
}

// ---------------------------------------------------------------- the JSON Schema Test Suite

/** Keywords a type can express, with annotations; a suite case whose schema holds any other keyword is left out. */
const EXPRESSIBLE = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'enum',
  'const',
  'allOf',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'description',
  'title',
  'default',
  '$comment',
  'examples',
  '$schema',
  'format',
]);
const MAP_KEYWORDS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'dependentRequired']);

/** The first keyword of the schema no type can express (or a `$ref` outside the document), or undefined. */
function foreignKeyword(schema: unknown): string | undefined {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const found = foreignKeyword(item);
      if (found) return found;
    }
    return undefined;
  }
  if (!isNode(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (!EXPRESSIBLE.has(key)) return key;
    if (key === '$ref' && (typeof value !== 'string' || !value.startsWith('#'))) return '$ref (remote)';
    if (key === '$schema' && !String(value).includes('2020-12') && !String(value).includes('draft-04')) return key;
    if (DATA_KEYWORDS.has(key)) continue;
    const inner = MAP_KEYWORDS.has(key) && isNode(value) ? Object.values(value) : [value];
    for (const item of inner) {
      const found = foreignKeyword(item);
      if (found) return found;
    }
  }
  return undefined;
}

type SuiteCase = { description: string; schema: unknown; tests: { description: string; data: unknown }[] };

/** The suite's cases as oracle cases (one group per schema), and how many schemas were left out, by keyword. */
function suiteCases(dir: string, openapi: string): { cases: OracleCase[]; groups: Group[]; left: Map<string, number> } {
  const cases: OracleCase[] = [];
  const groups: Group[] = [];
  const left = new Map<string, number>();
  for (const file of readdirNames(dir)) {
    const suite = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as SuiteCase[];
    suite.forEach((entry, index) => {
      const foreign = foreignKeyword(entry.schema);
      // draft4 under OAS 3.0.3: type lists and items lists are not Schema Object keywords.
      const draft4Foreign =
        openapi.startsWith('3.0') && JSON.stringify(entry.schema).match(/"type":\[|"items":\[/)
          ? 'type or items list'
          : undefined;
      const reason = foreign ?? draft4Foreign;
      if (reason) {
        left.set(reason, (left.get(reason) ?? 0) + 1);
        return;
      }
      const doc = isNode(entry.schema) ? { openapi, ...entry.schema } : { openapi };
      const schema = isNode(entry.schema) ? doc : entry.schema;
      const { typescript, cut } = renderTypeScriptWithin(doc, schema, 'Root', 'response');
      assert.deepEqual(cut, []);
      const members = entry.tests.map((test, at) => {
        cases.push({ id: `${file}#${index}/${at}`, doc, schema, value: test.data });
        return { index: cases.length - 1, type: 'Root' };
      });
      groups.push({ declarations: typescript, members });
    });
  }
  return { cases, groups, left };
}

/** The suite's top-level files only (optional/ holds formats and bignums, not shapes of values). */
function readdirNames(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .sort()
    : [];
}

type Group = { declarations: string; members: { index: number; type: string }[] };

describe('TypeScript types against the checker: the JSON Schema Test Suite', () => {
  it('agrees on every draft4 case a type can express (OpenAPI 3.0.3), except the listed known deviations', () => {
    const { cases, groups, left } = suiteCases(DRAFT4, '3.0.3');
    console.log(
      `draft4 schemas left out, by keyword: ${[...left].map(([key, count]) => `${key} ${count}`).join(', ')}`,
    );
    assert.deepEqual(report('draft4 (npm json-schema-test-suite)', compare(cases, groups)), []);
  });

  const decision = corpusDecision(
    draft2020Path(),
    'TypeScript oracle, JSON Schema Test Suite draft2020-12 pass',
    `${DEBIAN_DRAFT_2020_12} is absent; install it with: apt-get install -y libtest-json-schema-acceptance-perl`,
    false,
  );
  const draft2020 = draft2020Path();
  it(
    'agrees on every draft2020-12 case a type can express (OpenAPI 3.1.0), except the listed known deviations',
    { skip: decision.run ? false : decision.why },
    () => {
      const { cases, groups, left } = suiteCases(`${draft2020}/`, '3.1.0');
      console.log(
        `draft2020-12 schemas left out, by keyword: ${[...left].map(([key, count]) => `${key} ${count}`).join(', ')}`,
      );
      assert.deepEqual(report('draft2020-12 (Debian)', compare(cases, groups)), []);
    },
  );
});

// ---------------------------------------------------------------- GitHub

type Target = { key: string; schema: unknown; schemaPath: string };

/**
 * One render for many response schemas: a root object with one required property per schema (`{$ref}` to its
 * pointer), so every component is declared once and each value is assigned to `Root["key"]`.
 */
function renderTargets(doc: unknown, targets: Target[]): string {
  const root = {
    type: 'object',
    required: targets.map((target) => target.key),
    properties: Object.fromEntries(targets.map((target) => [target.key, { $ref: target.schemaPath }])),
  };
  const { typescript, cut } = renderTypeScriptWithin(doc, root, 'Root', 'response', undefined, 1e9, 1e8);
  assert.deepEqual(cut, []);
  return typescript;
}

/** The documented examples of each operation's 2xx JSON responses: `{operationId, status, value}` (`$ref`s to components/examples followed). */
function documentedExamples(
  doc: Node,
): { operationId: string; method: string; path: string; status: number; value: unknown }[] {
  const out: { operationId: string; method: string; path: string; status: number; value: unknown }[] = [];
  const follow = (node: unknown): unknown => {
    for (let hops = 0; isNode(node) && typeof node.$ref === 'string' && hops < 10; hops++)
      node = resolvePointer(doc, node.$ref);
    return node;
  };
  for (const [path, item] of Object.entries(doc.paths as Node)) {
    if (!isNode(item)) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const operation = item[method];
      if (!isNode(operation) || !isNode(operation.responses)) continue;
      for (const [status, entry] of Object.entries(operation.responses)) {
        if (!/^2[0-9][0-9]$/.test(status)) continue;
        const response = follow(entry);
        const media = isNode(response) && isNode(response.content) ? response.content['application/json'] : undefined;
        if (!isNode(media)) continue;
        const values: unknown[] = [];
        if (isNode(media.examples))
          for (const example of Object.values(media.examples)) {
            const found = follow(example);
            if (isNode(found) && Object.hasOwn(found, 'value')) values.push(found.value);
          }
        if (Object.hasOwn(media, 'example')) values.push(media.example);
        for (const value of values)
          out.push({
            operationId: String(operation.operationId ?? `${method} ${path}`),
            method,
            path,
            status: Number(status),
            value,
          });
      }
    }
  }
  return out;
}

/** GitHub's documented examples and recorded responses as oracle cases, in one group; `only` limits the operations. */
async function githubCases(only?: Set<string>): Promise<{ examples: Comparison[]; recorded: Comparison[] }> {
  const loaded = await loadDocument(githubDescriptionPath());
  const doc = loaded.doc as Node;
  const targets = new Map<string, Target>();
  const cases: OracleCase[] = [];
  const members: { index: number; type: string }[] = [];
  const add = (id: string, method: string, path: string, status: number, value: unknown) => {
    const target = schemaFor(doc, method, path, status, 'application/json');
    if (!target) return false;
    const key = `${method} ${path} ${target.statusKey}`;
    if (!targets.has(key)) targets.set(key, { key, schema: target.schema, schemaPath: target.schemaPath });
    cases.push({ id, doc, schema: target.schema, at: target.schemaPath, value });
    members.push({ index: cases.length - 1, type: `Root[${JSON.stringify(key)}]` });
    return true;
  };
  for (const example of documentedExamples(doc)) {
    if (only && !only.has(example.operationId)) continue;
    add(
      `${example.operationId} ${example.status} example`,
      example.method,
      example.path,
      example.status,
      example.value,
    );
  }
  const exampleCount = cases.length;
  for (const recorded of recordedGets()) {
    const match = matchOperation(loaded, 'GET', recorded.path);
    const operation = match.operation;
    if (!operation || (only && !only.has(operation.operationId ?? ''))) continue;
    add(`${recorded.scenario} GET ${recorded.path}`, 'get', operation.pathTemplate, recorded.status, recorded.body);
  }
  const declarations = renderTargets(doc, [...targets.values()]);
  const compared = compare(cases, [{ declarations, members }]);
  return { examples: compared.slice(0, exampleCount), recorded: compared.slice(exampleCount) };
}

/** Operations of the first-tier sample: a repository, an issue list, a pull request's files, a user. */
const SAMPLE = new Set([
  'repos/get',
  'issues/list-for-repo',
  'pulls/list-files',
  'users/get-by-username',
  'repos/list-tags',
]);

describe('TypeScript types against the checker: GitHub', () => {
  it("agrees on a sample of GitHub's documented examples and recorded responses, except known deviations", async () => {
    const { examples, recorded } = await githubCases(SAMPLE);
    assert.deepEqual(
      [report('GitHub sample, documented examples', examples), report('GitHub sample, recorded responses', recorded)],
      [[], []],
    );
  });

  const second = corpusMode() !== 'skip';
  it(
    "agrees on every documented 2xx example in GitHub's description and every recorded response, except known deviations",
    { skip: second ? false : 'second tier, run it with npm run test:corpus' },
    async () => {
      const { examples, recorded } = await githubCases();
      assert.deepEqual(
        [report('GitHub, documented examples', examples), report('GitHub, recorded responses', recorded)],
        [[], []],
      );
    },
  );
});

// ---------------------------------------------------------------- the bug cases

describe('TypeScript types against the checker: bug case 64', () => {
  it('agrees on the empty bodies of case 64 (rejected: a required field beside allOf or $ref) and on filled ones', () => {
    const fixture = JSON.parse(readFileSync(`${CASES}64-ts-required-outside-properties.json`, 'utf8'));
    const cases: OracleCase[] = [];
    const groups: Group[] = [];
    for (const session of fixture.input.sessions) {
      for (const [path, item] of Object.entries<Node>(session.openapi.paths)) {
        const pointer = `#/paths/${escapePointerToken(path)}/get/responses/200/content/application~1json/schema`;
        const schema = resolvePointer(session.openapi, pointer);
        const { typescript } = renderTypeScriptWithin(session.openapi, schema, 'Root', 'response');
        const members = [
          {},
          { id: 'i', name: 'n' },
          { id: 'i', name: 'n', tag: 't', site_id: 's' },
          { id: 1, name: 'n' },
        ].map((value, at) => {
          cases.push({
            id: `${path}#${at} ${String(item.get && (item.get as Node).operationId)}`,
            doc: session.openapi,
            schema,
            at: pointer,
            value,
          });
          return { index: cases.length - 1, type: 'Root' };
        });
        groups.push({ declarations: typescript, members });
      }
    }
    const comparisons = compare(cases, groups);
    assert.deepEqual(
      [report('case 64', comparisons), comparisons.map((comparison) => comparison.compiles)],
      [[], [false, true, true, false, false, true, true, false, false, true, true, false]],
    );
  });
});
