/**
 * The low-confidence flag of free-text answers, measured and refitted on the development data (issue 16):
 * `node --import tsx eval/flag.ts`. Not part of the product. Reads the development sets and the frozen splits spent as
 * development data (`DISCOVERY_SETS` but the eighth, which it never reads), answers every row with `textFlagSignals`
 * (rows answered exactly or as a path are left out: the flag is the text answer's), and prints:
 * - the current model (`ABSTAIN_MODEL`) by threshold: pooled share of unanswerable rows caught and of answerable rows
 *   flagged, and the worst set's;
 * - the model refitted (logistic regression, L2) with each API left out in turn, its threshold chosen on the other
 *   APIs by `--caught=` (default 0.7: the highest threshold at which the other APIs' unanswerable rows are still caught
 *   at that share, pooled), scored on the one left out: the held-out figures of the refit and of the current model.
 * `--fit` prints the refit on every API with the threshold chosen the same way, to paste into `ABSTAIN_MODEL`.
 */
import { loadDocument } from '../src/document/openapi-document.ts';
import type { LoadedDocument } from '../src/document/model.ts';
import { textFlagSignals } from '../src/contract/search.ts';
import { DISCOVERY_DOCUMENTS, DISCOVERY_SETS, readRows } from './find.ts';
import type { DiscoveryRow } from './find.ts';

const FEATURES = ['coverage', 'strongCoverage', 'score', 'margin', 'verbAgrees', 'knownShare'] as const;
type Feature = (typeof FEATURES)[number];

/** One text answer: its set and API, whether the row is unanswerable, the signals, the current model's chance. */
type Sample = { set: string; api: string; none: boolean; x: number[]; chance: number };

/** Logistic regression by gradient descent (full batch, fixed steps: the same answer on any machine). */
function fit(samples: Sample[], l2 = 0.01, steps = 4000, rate = 0.5): { bias: number; weights: number[] } {
  const k = FEATURES.length;
  let bias = 0;
  const weights = new Array<number>(k).fill(0);
  for (let step = 0; step < steps; step++) {
    let gradBias = 0;
    const grad = new Array<number>(k).fill(0);
    for (const sample of samples) {
      const z = bias + sample.x.reduce((sum, value, i) => sum + value * weights[i]!, 0);
      const error = 1 / (1 + Math.exp(-z)) - (sample.none ? 1 : 0);
      gradBias += error;
      for (let i = 0; i < k; i++) grad[i]! += error * sample.x[i]!;
    }
    bias -= (rate * gradBias) / samples.length;
    for (let i = 0; i < k; i++) weights[i] = weights[i]! - rate * (grad[i]! / samples.length + l2 * weights[i]!);
  }
  return { bias, weights };
}

function chanceOf(model: { bias: number; weights: number[] }, x: number[]): number {
  return 1 / (1 + Math.exp(-(model.bias + x.reduce((sum, value, i) => sum + value * model.weights[i]!, 0))));
}

/** Pooled share caught (unanswerable at or over the threshold) and flagged (answerable at or over it). */
function shares(samples: Sample[], chances: number[], threshold: number): { caught: number; flagged: number } {
  let none = 0;
  let caught = 0;
  let answerable = 0;
  let flagged = 0;
  samples.forEach((sample, i) => {
    const low = chances[i]! >= threshold;
    if (sample.none) {
      none++;
      if (low) caught++;
    } else {
      answerable++;
      if (low) flagged++;
    }
  });
  return { caught: none ? caught / none : 0, flagged: answerable ? flagged / answerable : 0 };
}

const THRESHOLDS = Array.from({ length: 41 }, (_, i) => 0.1 + i * 0.0125);

/** The highest threshold at which the pooled caught share is at least `caught`. */
function chooseThreshold(samples: Sample[], chances: number[], caught: number): number {
  let chosen = THRESHOLDS[0]!;
  for (const threshold of THRESHOLDS) if (shares(samples, chances, threshold).caught >= caught) chosen = threshold;
  return chosen;
}

async function main(): Promise<void> {
  const caughtTarget = Number(process.argv.find((arg) => arg.startsWith('--caught='))?.slice(10) ?? 0.7);
  // Every set but the eighth frozen split, which this never reads: it is kept unseen.
  const names = (Object.keys(DISCOVERY_SETS) as (keyof typeof DISCOVERY_SETS)[]).filter((name) => name !== 'frozen8');
  const documents = new Map<string, LoadedDocument>();
  const samples: Sample[] = [];
  for (const name of names) {
    for (const row of readRows(DISCOVERY_SETS[name])) {
      let loaded = documents.get(row.api);
      if (!loaded)
        documents.set(row.api, (loaded = await loadDocument(DISCOVERY_DOCUMENTS[row.api as DiscoveryRow['api']]())));
      const signals = textFlagSignals(loaded, row.intent);
      if (!signals) continue;
      samples.push({
        set: name,
        api: row.api,
        none: row.kind === 'none',
        x: FEATURES.map((feature: Feature) => signals[feature]),
        chance: signals.chance,
      });
    }
  }
  const current = samples.map((sample) => sample.chance);
  // The highest threshold at which `group`'s unanswerable rows are caught at `caughtTarget`, pooled, by `chance`.
  const choose = (group: Sample[], chance: (sample: Sample) => number) =>
    chooseThreshold(group, group.map(chance), caughtTarget);
  console.log(
    `${samples.length} text answers (${samples.filter((sample) => sample.none).length} unanswerable) on ${documents.size} APIs, ${names.length} sets`,
  );
  console.log('\nThe current model by threshold: pooled caught, flagged | worst set caught | worst set flagged');
  for (const threshold of THRESHOLDS.filter((_, i) => i % 2 === 0)) {
    const pooled = shares(samples, current, threshold);
    const perSet = names.map((name) => {
      const picked = samples.flatMap((sample, i) => (sample.set === name ? [i] : []));
      return shares(
        picked.map((i) => samples[i]!),
        picked.map((i) => current[i]!),
        threshold,
      );
    });
    console.log(
      `  ${threshold.toFixed(4)}  ${pooled.caught.toFixed(2)} ${pooled.flagged.toFixed(2)} | ${Math.min(...perSet.map((s) => s.caught)).toFixed(2)} | ${Math.max(...perSet.map((s) => s.flagged)).toFixed(2)}`,
    );
  }
  // Each API left out in turn: refit and threshold on the others, scored on it; the current model's threshold too.
  const apis = [...new Set(samples.map((sample) => sample.api))];
  const heldRefit: number[] = [];
  const heldCurrent: number[] = [];
  const order: number[] = [];
  for (const api of apis) {
    const train = samples.filter((sample) => sample.api !== api);
    const model = fit(train);
    const threshold = choose(train, (sample) => chanceOf(model, sample.x));
    const currentThreshold = choose(train, (sample) => sample.chance);
    samples.forEach((sample, i) => {
      if (sample.api !== api) return;
      order.push(i);
      heldRefit.push(chanceOf(model, sample.x) >= threshold ? 1 : 0);
      heldCurrent.push(sample.chance >= currentThreshold ? 1 : 0);
    });
  }
  const heldShares = (flags: number[]) =>
    shares(
      order.map((i) => samples[i]!),
      flags,
      0.5,
    );
  const refit = heldShares(heldRefit);
  const kept = heldShares(heldCurrent);
  console.log(
    `\nEach API left out (threshold chosen on the others for pooled caught >= ${caughtTarget}):` +
      `\n  refit:         caught ${refit.caught.toFixed(2)}, flagged ${refit.flagged.toFixed(2)}` +
      `\n  current model: caught ${kept.caught.toFixed(2)}, flagged ${kept.flagged.toFixed(2)}`,
  );
  if (process.argv.includes('--fit')) {
    const model = fit(samples);
    const threshold = choose(samples, (sample) => chanceOf(model, sample.x));
    const all = shares(
      samples,
      samples.map((sample) => chanceOf(model, sample.x)),
      threshold,
    );
    console.log(
      `\nRefit on every API: bias ${model.bias.toFixed(2)}, ${FEATURES.map((feature, i) => `${feature} ${model.weights[i]!.toFixed(2)}`).join(', ')}, threshold ${threshold.toFixed(4)} (in sample: caught ${all.caught.toFixed(2)}, flagged ${all.flagged.toFixed(2)})`,
    );
    const currentThreshold = choose(samples, (sample) => sample.chance);
    const same = shares(samples, current, currentThreshold);
    console.log(
      `The current model at the threshold chosen the same way: ${currentThreshold.toFixed(4)} (caught ${same.caught.toFixed(2)}, flagged ${same.flagged.toFixed(2)})`,
    );
  }
}

main();
