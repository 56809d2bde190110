/**
 * The import rules of the product files, read from their source: every arrow points down the layers, no file
 * imports itself back through a circle, and nothing in the product imports tests, demos, bench, eval, scripts or
 * the harness. The layers and what each may import are `LAYERS` below, as `docs/architecture.md` draws them.
 * Also keeps `docs/architecture.md` true: every product file is listed there, and every path it lists exists.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Each layer, by the folder (or top-level file) that holds it, and the layers it may import. */
const LAYERS: Record<string, readonly string[]> = {
  entry: [
    'transports',
    'auth',
    'cli',
    'mcp',
    'jobs',
    'contract',
    'schema',
    'document',
    'api',
    'runtime',
    'redaction',
    'shared',
  ],
  transports: ['mcp', 'runtime', 'redaction', 'shared'],
  auth: ['runtime', 'redaction', 'shared'],
  cli: ['jobs', 'contract', 'schema', 'document', 'api', 'runtime', 'redaction', 'shared'],
  mcp: ['jobs', 'contract', 'schema', 'document', 'api', 'runtime', 'redaction', 'shared'],
  jobs: ['contract', 'schema', 'document', 'api', 'runtime', 'redaction', 'shared'],
  contract: ['schema', 'document', 'shared'],
  schema: ['document', 'shared'],
  document: ['shared'],
  api: ['runtime', 'redaction', 'shared'],
  runtime: ['redaction', 'shared'],
  redaction: ['shared'],
  shared: [],
};

/** The layer of a product file (a path from the root), or undefined when the file is not product code. */
function layerOf(file: string): string | undefined {
  if (file === 'probe-server.ts') return 'entry';
  if (file === 'validate.ts') return 'schema';
  const match = /^src\/([^/]+)\//.exec(file);
  return match && Object.hasOwn(LAYERS, match[1]!) ? match[1] : undefined;
}

/** Every `.ts` file below `folder` (a path from the root), tests left out. */
function sources(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = posix.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** The product files: the entry, `validate.ts` and every non-test module under `src/`. */
const PRODUCT = ['probe-server.ts', 'validate.ts', ...sources('src')].sort();

/** The relative imports of a file (static `import`/`export ... from` and `import()`), as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = new Set<string>();
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g,
  )) {
    found.add(posix.normalize(posix.join(posix.dirname(file), (match[1] ?? match[2])!)));
  }
  return [...found].sort();
}

describe('import rules of the product files', () => {
  it('finds the product files in every layer', () => {
    assert.deepEqual([...new Set(PRODUCT.map(layerOf))].sort(), Object.keys(LAYERS).sort());
  });

  it('has no arrow that points up or sideways across layers', () => {
    const wrong: string[] = [];
    for (const file of PRODUCT) {
      const from = layerOf(file)!;
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (to === undefined) wrong.push(`${file} imports ${target}, which is not product code`);
        else if (to !== from && !LAYERS[from]!.includes(to)) wrong.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('has no circle of imports', () => {
    const graph = new Map(PRODUCT.map((file) => [file, importsOf(file).filter((target) => PRODUCT.includes(target))]));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file)!) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of PRODUCT) visit(file, []);
    assert.deepEqual(circles, []);
  });

  it('imports only files that exist', () => {
    const missing = PRODUCT.flatMap((file) =>
      importsOf(file)
        .filter((target) => !existsSync(join(ROOT, target)))
        .map((target) => `${file} -> ${target}`),
    );
    assert.deepEqual(missing, []);
  });
});

describe('docs/architecture.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const listed = [...page.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!);

  it('lists every product file', () => {
    assert.deepEqual(
      PRODUCT.filter((file) => !listed.includes(file)),
      [],
    );
  });

  it('lists only paths that exist', () => {
    assert.deepEqual(
      listed.filter((path) => !existsSync(join(ROOT, path))),
      [],
    );
  });
});
