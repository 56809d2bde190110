/**
 * One side of the bench's "no slower check" row (bench/bench.ts, section 3): the steady-state rate at which the
 * checkout at `root` checks GitHub's recorded GET responses, in this process, with that checkout's own `loadDocument`,
 * `schemaFor` and `check`, so the same samples can be timed on this build and on an older commit's.
 * Usage: `node --import tsx bench/check-rate.ts <root> <samples.json> <description.json> <blocks>`, where samples.json
 * holds `[{pathTemplate, status, body}]`. Prints one JSON line to stdout: `{"rates": [responses per second, ...]}`,
 * one per block of at least 100 ms after three untimed passes. Asserts nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Sample = { pathTemplate: string; status: number; body: unknown };

/** Length of one timed block of a steady-state check, ms. */
export const BLOCK_MS = 100;

/** Responses per second of `run` (one pass over `count` responses), repeated for at least `BLOCK_MS`. */
export function responsesPerSecond(run: () => void, count: number): number {
  let passes = 0;
  const began = performance.now();
  let elapsed = 0;
  do {
    run();
    passes++;
    elapsed = performance.now() - began;
  } while (elapsed < BLOCK_MS);
  return (passes * count) / (elapsed / 1000);
}

async function main(): Promise<void> {
  const [root, samplesFile, description, blocksText] = process.argv.slice(2);
  if (!root || !samplesFile || !description)
    throw new Error('Expected `check-rate.ts <root> <samples.json> <description.json> <blocks>`');
  const validate = await import(pathToFileURL(join(root, 'validate.ts')).href);
  const documents = await import(pathToFileURL(join(root, 'src', 'document', 'openapi-document.ts')).href);
  const loaded = await documents.loadDocument(description);
  const samples = JSON.parse(readFileSync(samplesFile, 'utf8')) as Sample[];
  const targets = samples.map((sample) =>
    validate.schemaFor(loaded.doc, 'GET', sample.pathTemplate, sample.status, 'application/json'),
  );
  const pass = (): void => {
    for (let i = 0; i < samples.length; i++)
      validate.check(loaded.doc, targets[i].schema, samples[i]!.body, { at: targets[i].schemaPath });
  };
  for (let round = 0; round < 3; round++) pass();
  const rates: number[] = [];
  for (let block = 0; block < Number(blocksText ?? 7); block++) rates.push(responsesPerSecond(pass, samples.length));
  process.stdout.write(`${JSON.stringify({ rates })}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
