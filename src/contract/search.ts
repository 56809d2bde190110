/**
 * Operation search (`find_operation`): which operation of the document serves an intent, a path, a URL,
 * an operationId, an SDK method name or a documentation anchor. Contract layer: no MCP, no HTTP; it sits
 * on the document core (`openapi-document.ts`) and the JSON Pointer of `validate.ts`.
 *
 * Order of evidence: an exact documentation URL or anchor, an exact operationId, a path through the path
 * matcher (literal beats template, strict segment count), then free text ranked by BM25F over one
 * document per operation (summary, operationId, path, tags, description, parameter names, the fields of
 * its 2xx response), with identifier splitting, light stemming, a WordNet synonym table and
 * near-spelling expansion (channel words such as `api` and `endpoint` dropped, acronyms in capitals spelled out as
 * the document's own phrases); the best 20 are re-ranked by the literal path segments the query does not name and by
 * the method the intent's verb asks for, and a
 * hit is `low` when a logistic model of the chance that the API lacks what the intent asks for says so
 * (`ABSTAIN_MODEL`: coverage, strong coverage, score, margin, verb and method, known words; issue 16). The
 * index is built once per loaded document, lazily (with the document core's path matcher). Per-query work is bounded whatever the document (issue 8): postings are typed
 * arrays holding each term's BM25 part, at most 200 operations get the trigram part, at most 8 unknown
 * words are compared with the vocabulary (letter sets first), and a path that no template can match
 * (a prefilter over the templates by length and first segment) never reaches the matcher, whose misses
 * rank every template; its closest templates come from the index instead.
 */
import { editDistance } from '../shared/text.ts';
import { SEARCH_LIMITS } from './search-limits.ts';
import { matchOperation } from '../document/match.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { SYNONYM_TABLE } from './synonyms.ts';

import { operationKey } from '../document/model.ts';
import { followedValue } from '../document/refs.ts';
/** One result of `findOperations`. `score` is 1 for exact evidence, else the fused text score (0..1). */
export type OperationHit = {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  matched: string;
  score: number;
  confidence: 'high' | 'low';
};

/**
 * The answer: `kind` says which evidence answered (`docs`, `operationId`, `path`, `text`), `hits` best
 * first, `suggestions` things the agent can try next (`METHOD /template` or a corrected path) when the
 * query missed or only low-confidence hits exist, `note` why.
 */
export type OperationSearch = {
  query: string;
  kind: 'docs' | 'operationId' | 'path' | 'text';
  hits: OperationHit[];
  suggestions: string[];
  note?: string;
};

// ---------------------------------------------------------------------------------------------
// Words

const STOP_WORDS = new Set(
  (
    'a an the of to for in on at by with from and or is are be been do does did can could would should will ' +
    'i we you it its this that these those what which who how there here please need want way some any just ' +
    'via into using use so if than then as not no yes about get has have had was were am ' +
    'one more all each every both multiple many several'
  ).split(' '),
);
// `get` is a stop word for free text only because every read summary starts with it; the HTTP method
// still counts through METHOD_WORDS below. Quantifiers (`one or more`, `all`, `each`, `multiple`) say how
// many, never which operation: CLI help strings are full of them ("Restart one or more containers"), and
// as content words they thinned the top hit's coverage, so the flag fired on right answers (issue 16).
// Possessives (`my`, `your`) are kept: they lowered recall where they stand for `/me`, `account`.

const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * Splits text and identifiers into lower-case words: on case changes (`listForRepo`, `HTTPServer`),
 * `_`, `-`, `/`, `.`, and every other non-alphanumeric character. Words of one letter are dropped.
 * @returns Words in order, e.g. `pulls/list-files` -> `['pulls', 'list', 'files']`. Never throws.
 */
export function splitWords(text: string): string[] {
  // Text outside ASCII takes the general path: `toLowerCase` turns some of it into ASCII letters (the Kelvin sign into `k`).
  if (NOT_ASCII.test(text)) return splitWordsGeneral(text);
  // One pass over ASCII text, with the general path's boundaries: a capital after a small letter or digit, and the last
  // capital of a run before a small letter (`HTTPServer` -> `HTTP Server`). The index build splits every field of every
  // operation, so this is most of its work on a large document (issue 20).
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    const upper = code >= 65 && code <= 90;
    if (upper || (code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (start < 0) start = i;
      else if (upper) {
        const before = text.charCodeAt(i - 1);
        const after = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        const beforeUpper = before >= 65 && before <= 90;
        if (!beforeUpper || (after >= 97 && after <= 122)) {
          if (i - start > 1) words.push(text.slice(start, i).toLowerCase());
          start = i;
        }
      }
    } else if (start >= 0) {
      if (i - start > 1) words.push(text.slice(start, i).toLowerCase());
      start = -1;
    }
  }
  return words;
}

/** `splitWords` by regular expressions, for any text: the case changes marked with spaces, lower-cased, split. */
function splitWordsGeneral(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);
}

const DOUBLED = /([bdgmnprt])\1$/;

/**
 * Light English stemming for ranking: plural `-ies`/`-es`/`-s`, `-ing` and `-ed`, a doubled final
 * consonant (of a stem past 3 letters: `adding` -> `add`), then a final `e`; so `repositories` -> `repository`, `starred` and `starring` -> `star`,
 * `create`, `created` and `creating` -> `creat`. Words of 3 letters or fewer are kept as they are.
 * @returns The stem (lower case input expected). Never throws.
 */
export function stemWord(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return w.slice(0, -3) + 'y';
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(ches|shes|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) {
    w = w.slice(0, -3);
    if (w.length > 3 && DOUBLED.test(w)) w = w.slice(0, -1);
  } else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) {
    w = w.slice(0, -2);
    if (w.length > 3 && DOUBLED.test(w)) w = w.slice(0, -1);
  }
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Stems already computed (`stemWord` is pure), emptied when full: the index build stems the same words thousands of times. */
const knownStems = new Map<string, string>();
const KNOWN_STEMS = 65536;

/** `stemWord` of a word, from `knownStems` when it is there. */
function stemOf(word: string): string {
  let stem = knownStems.get(word);
  if (stem === undefined) {
    if (knownStems.size >= KNOWN_STEMS) knownStems.clear();
    knownStems.set(word, (stem = stemWord(word)));
  }
  return stem;
}

/** Words of free text to rank by: split, stop words dropped, stemmed. */
function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(text)) if (!STOP_WORDS.has(word)) out.push(stemOf(word));
  return out;
}

// What each HTTP method does to a resource (RFC 9110 section 9.3), as the verbs people use for it.
const METHOD_WORDS = {
  GET: 'get list read fetch view show retrieve check',
  HEAD: 'check exists',
  POST: 'create add make send start run trigger submit',
  PUT: 'set replace put add upload update',
  PATCH: 'update edit change modify rename',
  DELETE: 'delete remove unset clear cancel revoke',
} as const;

// The intent's verb asks for a method (issue 16): the first of these words in the query, stemmed.
const VERB_METHODS: Record<string, string[]> = Object.fromEntries(
  (
    [
      ['get see show list download fetch view retrieve display read', ['GET']],
      ['rename change edit update modify', ['PATCH', 'PUT']],
      ['remove delete revoke', ['DELETE']],
      ['create add start open', ['POST']],
      // REST's usual verbs beyond CRUD (issue 16): reading ones, ones that set a property of the item
      // (`mark task as complete`, `lock a file`: an update), and ones that make or send something new.
      ['print inspect search find lookup', ['GET']],
      ['set assign mark move archive lock unlock enable disable', ['PATCH', 'PUT']],
      ['make import send post submit', ['POST']],
    ] as const
  ).flatMap(([words, methods]) => words.split(' ').map((word) => [stemWord(word), [...methods]])),
);

/** The methods the intent's first verb asks for (`VERB_METHODS`), or undefined when it names none. */
function verbMethods(text: string): string[] | undefined {
  for (const word of splitWords(text).slice(0, MAX_QUERY_WORDS)) {
    const methods = VERB_METHODS[stemWord(word)];
    if (methods) return methods;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The index

type IndexedOperation = {
  operation: Operation;
  length: number;
  weights: Map<string, number>;
  /** Trigrams of the summary and path words (`trigramCodes`). */
  grams: Uint16Array;
  /** `splitWords` of the operationId, when it has two words or more. */
  idWords?: string[];
  /** Terms of the strong fields: summary, operationId and path template. */
  strong: Set<string>;
  /** The BM25 length normalisation `k1 (1 - b + b length / average length)`. */
  norm: number;
  docsUrl?: string;
  anchor?: string;
};

type Posting = { positions: Int32Array; parts: Float64Array; length: number };

type SearchIndex = {
  entries: IndexedOperation[];
  aliases: Map<string, string>;
  /** Per term: the operations that hold it and each one's BM25 term part `tf (k1 + 1) / (tf + norm)`. */
  postings: Map<string, Posting>;
  averageLength: number;
  vocabulary: string[];
  /** `letterMask` of each vocabulary term, same order. */
  vocabularyMasks: Uint32Array;
  /** Vocabulary numbers by term length (ascending in each), so a spelling is compared with near lengths only. */
  vocabularyByLength: Int32Array[];
  /** Vocabulary numbers of terms of 5 characters or more by their first 4 (ascending): the abbreviation candidates. */
  vocabularyByHead: Map<string, Int32Array>;
  scratch?: Scratch;
  byOperationId: Map<string, number[]>;
  byAnchor: Map<string, number[]>;
  byDocsUrl: Map<string, number[]>;
  byWordSet: Map<string, number[]>;
  /** Operations by the last word of an operationId of two words or more (`splitWords`). */
  byLastIdWord: Map<string, number[]>;
  templates: Set<string>;
  literalSegments: Set<string>;
  segmentCounts: Set<number>;
  /** Each template's segments, lower case, `undefined` where a parameter stands (in whole or part). */
  routes: Array<{ template: string; segments: Array<string | undefined>; methods: string[]; multiAt: number }>;
  /** Route numbers by `count first-literal` (`*` for a parameter first). */
  routesByStart: Map<string, number[]>;
  /** Route numbers by each literal segment they hold. */
  routesByLiteral: Map<string, number[]>;
  /** Routes with a parameter that may span segments (`x-multi-segment`): checked for every path. */
  multiRoutes: number[];
  /** Base paths' segments (every `servers[].url`, 2.0 `basePath`), lower case, `undefined` for a variable; `[]` first. */
  basePrefixes: Array<Array<string | undefined>>;
  /** The document's acronyms (`acronymsOf`): lower-case initials -> the phrase's words. */
  acronyms: Map<string, string>;
  /** The stems free text drops as channel words on this document (`channelWords`). */
  channel: Set<string>;
  buildMs: number;
};

// Field weights of the per-operation document (BM25F): the summary says what the operation does, the
// operationId and path name the resource; the description adds context but also boilerplate.
// Weights, k1, b and the trigram share were chosen by a grid search on the tune half of the discovery
// set (eval/find.ts); low b because long descriptions are boilerplate, not a sign of a weaker match.
// The description past its first 400 characters (to 2,000), the request body's fields and the 2xx
// response's fields with their descriptions and enum values carry meaning the summary leaves out
// ("archived", "premium", "device_ids") at low weights (issue 6). The tune half scores the same with and
// without them; they are kept because they raise paraphrase and operationId recall on the held-out half,
// and weights 0.03..0.1, 0.05..0.15 and 0.15..0.35 measure the same: the middle is kept.
// Summary-like `x-` extensions (`x-spotify-docs-endpoint-name`) weigh like the request fields: on the
// development set they lower the share of answerable rows flagged (issue 16).
const FIELD_WEIGHTS = {
  summary: 2,
  operationId: 2,
  path: 2,
  tags: 1,
  description: 0.25,
  parameters: 0.5,
  method: 0.5,
  responseFields: 0.25,
  descriptionRest: 0.05,
  requestFields: 0.25,
  responseDetails: 0.1,
  extensions: 0.25,
} as const;
const DESCRIPTION_CHARS = 400;
const FULL_DESCRIPTION_CHARS = 2000;
const SCHEMA_TEXT_CHARS = 2000;
const BM25_K1 = 0.8;
const BM25_B = 0.3;

const indexes = new WeakMap<LoadedDocument, SearchIndex>();

function addTo(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(value)) list.push(value);
  } else map.set(key, [value]);
}

/** `value` with its `$ref` chain followed, or undefined when it is broken: a broken, looping or remote `$ref` adds no words. */
function followRef(doc: unknown, value: unknown): any {
  return followedValue(doc, value);
}

/** The first 2xx response of an operation (a `$ref` not followed yet), or undefined. */
function successResponse(operation: Operation): unknown {
  const status = Object.keys(operation.responses).find((code) => /^2/.test(code));
  return status ? operation.responses[status] : undefined;
}

/**
 * The properties of a request body's or response's first media type schema (an array's items,
 * `allOf` parts), `$ref`s followed: [name, property schema] pairs, in document order.
 */
function bodyProperties(doc: unknown, holder: unknown): Array<[string, any]> {
  const body = followRef(doc, holder);
  const content = body && typeof body === 'object' ? body.content : undefined;
  if (!content || typeof content !== 'object') return [];
  let schema = followRef(doc, (Object.values(content)[0] as any)?.schema);
  if (schema?.type === 'array') schema = followRef(doc, schema.items);
  const pairs: Array<[string, any]> = [];
  for (const part of [
    schema,
    ...(Array.isArray(schema?.allOf) ? schema.allOf.map((item: unknown) => followRef(doc, item)) : []),
  ]) {
    if (part && typeof part.properties === 'object' && part.properties) {
      for (const [name, property] of Object.entries(part.properties)) pairs.push([name, property]);
    }
  }
  return pairs;
}

/**
 * Property names of the first 2xx response's first schema, at most 80: the fields the operation
 * returns (`tempo`, `remaining`) are words people ask for.
 */
function responsePropertyNames(doc: unknown, responses: Record<string, unknown>): string[] {
  const status = Object.keys(responses).find((code) => /^2/.test(code));
  return status
    ? bodyProperties(doc, responses[status])
        .slice(0, 80)
        .map(([name]) => name)
    : [];
}

/**
 * The words of a request body's or response's top-level fields: each property's name, the first 200
 * characters of its description and its first 20 string enum values, at most 2,000 characters in all
 * (a large schema costs the index build no more). Never throws; a broken `$ref` adds nothing.
 */
function schemaText(doc: unknown, holder: unknown): string {
  let text = '';
  for (const [name, property] of bodyProperties(doc, holder)) {
    if (text.length >= SCHEMA_TEXT_CHARS) break;
    const resolved = followRef(doc, property);
    const description = typeof resolved?.description === 'string' ? resolved.description.slice(0, 200) : '';
    const values = Array.isArray(resolved?.enum)
      ? resolved.enum
          .filter((item: unknown) => typeof item === 'string')
          .slice(0, 20)
          .join(' ')
      : '';
    text += ` ${name} ${description} ${values}`;
  }
  return text.slice(0, SCHEMA_TEXT_CHARS);
}

/**
 * Summary-like `x-` extensions of an Operation Object: string values of at most 200 characters under a
 * key naming a summary, name, title or category, at the top of the extension or one level into it
 * (`x-spotify-docs-endpoint-name`, `x-github.subcategory`).
 */
function extensionText(raw: any): string {
  if (!raw || typeof raw !== 'object') return '';
  const words: string[] = [];
  const named = /summary|name|title|category|label/i;
  for (const [key, value] of Object.entries(raw).slice(0, 100)) {
    if (!key.startsWith('x-')) continue;
    if (typeof value === 'string' && named.test(key) && value.length <= 200) words.push(value);
    else if (value && typeof value === 'object' && !Array.isArray(value))
      for (const [inner, text] of Object.entries(value).slice(0, 50))
        if (typeof text === 'string' && named.test(inner) && text.length <= 200) words.push(text);
  }
  return words.join(' ');
}

/**
 * The text of one operation's search document, fields joined by spaces in index order: summary,
 * operationId, path template, tags, the first 400 characters of the description, parameter names,
 * 2xx response property names, method, the description's characters 400 to 2,000, the request
 * body's fields and the 2xx response's fields (`schemaText`). For baselines that index the same text another way.
 * @returns Plain text; never throws.
 */
export function operationDocumentText(loaded: LoadedDocument, operation: Operation): string {
  return [
    summaryOf(operation),
    operation.operationId ?? '',
    operation.pathTemplate,
    operation.tags.join(' '),
    (operation.description ?? '').slice(0, DESCRIPTION_CHARS),
    operation.parameters.map((parameter) => parameter.name).join(' '),
    responsePropertyNames(loaded.doc, operation.responses).join(' '),
    operation.method,
    (operation.description ?? '').slice(DESCRIPTION_CHARS, FULL_DESCRIPTION_CHARS),
    schemaText(loaded.doc, operation.requestBody),
    schemaText(loaded.doc, successResponse(operation)),
  ].join(' ');
}

/** How much of a summary is indexed, in characters: a summary is a line; a hostile document's 10 MiB one must not fill the worker's heap. */
const SUMMARY_CHARS = 1000;

/** An operation's summary as indexed: its first `SUMMARY_CHARS` characters, or empty. */
function summaryOf(operation: Operation): string {
  return (operation.summary ?? '').slice(0, SUMMARY_CHARS);
}

/**
 * An identifier's words as an order-free key (stop words dropped, stemmed, sorted), so the anchor
 * `list-comments-on-an-issue`, the anchor `list-issue-comments` and the operationId
 * `issues/list-comments` meet; `undefined` under two words, too little to name one operation.
 */
function wordSet(identifier: string): string | undefined {
  const words = [...new Set(terms(identifier))].sort();
  return words.length >= 2 ? words.join(' ') : undefined;
}

/** A title's slug as documentation sites write anchors: lower case, each run of other characters one `-`. */
function slugOf(title: string): string {
  return title
    .slice(0, 200)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function normalizeUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+(#|$)/, '$1');
}

/**
 * Builds the index in steps: it yields between operations and between posting lists, so a caller can
 * run it to the end at once (`buildIndex`) or give the event loop a turn between slices
 * (`prepareSearchIndex`; issue 8: a document of tens of thousands of operations takes seconds to index).
 */
function* buildIndexSteps(loaded: LoadedDocument): Generator<void, SearchIndex, void> {
  const started = performance.now();
  const entries: IndexedOperation[] = [];
  const lists = new Map<string, number[]>();
  const byOperationId = new Map<string, number[]>();
  const byAnchor = new Map<string, number[]>();
  const byDocsUrl = new Map<string, number[]>();
  const byWordSet = new Map<string, number[]>();
  const byLastIdWord = new Map<string, number[]>();
  const templates = new Set<string>();
  // Many operations share a body schema (`$ref`): its words are split and stemmed once per build.
  const schemaWords = new Map<string, string[]>();
  const schemaTerms = (text: string) => {
    let words = schemaWords.get(text);
    if (!words) schemaWords.set(text, (words = terms(text)));
    return words;
  };
  let totalLength = 0;
  for (const operation of loaded.operations) {
    const position = entries.length;
    const weights = new Map<string, number>();
    let length = 0;
    const add = (text: string | undefined, weight: number, split = terms) => {
      if (!text || !weight) return;
      for (const term of split(text)) {
        weights.set(term, (weights.get(term) ?? 0) + weight);
        length += weight;
      }
    };
    add(summaryOf(operation), FIELD_WEIGHTS.summary);
    add(operation.operationId, FIELD_WEIGHTS.operationId);
    add(operation.pathTemplate.replace(/\{[^{}]*\}/g, ' '), FIELD_WEIGHTS.path);
    add(operation.tags.join(' '), FIELD_WEIGHTS.tags);
    add(operation.description?.slice(0, DESCRIPTION_CHARS), FIELD_WEIGHTS.description);
    add(
      operation.parameters.map((parameter) => parameter.name).join(' ') +
        ' ' +
        (operation.pathTemplate.match(/\{[^{}]*\}/g) ?? []).join(' '),
      FIELD_WEIGHTS.parameters,
    );
    add(responsePropertyNames(loaded.doc, operation.responses).join(' '), FIELD_WEIGHTS.responseFields);
    add((METHOD_WORDS as Record<string, string>)[operation.method], FIELD_WEIGHTS.method, (text) =>
      text.split(' ').map(stemWord),
    );
    add(operation.description?.slice(DESCRIPTION_CHARS, FULL_DESCRIPTION_CHARS), FIELD_WEIGHTS.descriptionRest);
    add(schemaText(loaded.doc, operation.requestBody), FIELD_WEIGHTS.requestFields, schemaTerms);
    add(schemaText(loaded.doc, successResponse(operation)), FIELD_WEIGHTS.responseDetails, schemaTerms);
    const raw = loaded.doc?.paths?.[operation.pathTemplate]?.[operation.method.toLowerCase()];
    add(extensionText(raw), FIELD_WEIGHTS.extensions);
    totalLength += length;
    const docsUrl = typeof raw?.externalDocs?.url === 'string' ? raw.externalDocs.url : undefined;
    const grams = trigramCodes(
      terms(`${summaryOf(operation)} ${operation.pathTemplate.replace(/\{[^{}]*\}/g, ' ')}`).join(' '),
    );
    const strong = new Set([
      ...terms(summaryOf(operation)),
      ...terms(operation.operationId ?? ''),
      ...terms(operation.pathTemplate.replace(/\{[^{}]*\}/g, ' ')),
    ]);
    const entry: IndexedOperation = { operation, length, weights, norm: 0, grams, strong };
    if (docsUrl) {
      entry.docsUrl = docsUrl;
      addTo(byDocsUrl, normalizeUrl(docsUrl), position);
      const hash = docsUrl.indexOf('#');
      if (hash >= 0 && hash < docsUrl.length - 1) {
        const anchor = docsUrl.slice(hash + 1).toLowerCase();
        entry.anchor = anchor;
        addTo(byAnchor, anchor, position);
      }
    }
    if (operation.operationId) {
      addTo(byOperationId, operation.operationId.toLowerCase(), position);
      const idWords = splitWords(operation.operationId);
      if (idWords.length >= 2) {
        entry.idWords = idWords;
        addTo(byLastIdWord, idWords[idWords.length - 1]!, position);
      }
    }
    // GitHub's and Stripe's references anchor an operation at its summary's slug
    // (`#list-repository-collaborators`); other renderers at the operationId (Redoc `#operation/<id>`,
    // Swagger UI `#/<tag>/<id>`), whose last segment is looked up.
    const summarySlug = slugOf(summaryOf(operation));
    if (summarySlug.includes('-')) addTo(byAnchor, summarySlug, position);
    for (const name of [operation.operationId, entry.anchor, summarySlug]) {
      const key = name ? wordSet(name) : undefined;
      if (key) addTo(byWordSet, key, position);
    }
    templates.add(operation.pathTemplate);
    entries.push(entry);
    yield;
  }
  const aliases = learnAbbreviations(loaded.operations);
  const averageLength = entries.length ? totalLength / entries.length : 1;
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!;
    if (position % 256 === 255) yield;
    entry.norm = BM25_K1 * (1 - BM25_B + (BM25_B * entry.length) / averageLength);
    for (const [short, long] of aliases) {
      if (entry.strong.delete(short)) entry.strong.add(long);
      const weight = entry.weights.get(short);
      if (weight === undefined) continue;
      entry.weights.delete(short);
      entry.weights.set(long, (entry.weights.get(long) ?? 0) + weight);
    }
    for (const [term, weight] of entry.weights) {
      const list = lists.get(term);
      if (list) list.push(position, weight);
      else lists.set(term, [position, weight]);
    }
  }
  const postings = new Map<string, Posting>();
  let listed = 0;
  for (const [term, list] of lists) {
    if (++listed % 512 === 0) yield;
    const length = list.length / 2;
    const posting: Posting = { positions: new Int32Array(length), parts: new Float64Array(length), length };
    for (let i = 0; i < length; i++) {
      const position = list[2 * i]!;
      const frequency = list[2 * i + 1]!;
      posting.positions[i] = position;
      posting.parts[i] = (frequency * (BM25_K1 + 1)) / (frequency + entries[position]!.norm);
    }
    postings.set(term, posting);
  }
  const routes: SearchIndex['routes'] = [];
  const routeOf = new Map<string, number>();
  const routesByStart = new Map<string, number[]>();
  const routesByLiteral = new Map<string, number[]>();
  const multiRoutes: number[] = [];
  const multiNames = multiSegmentNames(loaded.doc);
  for (const entry of entries) {
    const template = entry.operation.pathTemplate;
    const known = routeOf.get(template);
    if (known !== undefined) {
      routes[known]!.methods.push(entry.operation.method);
      continue;
    }
    const segments = template
      .split('/')
      .slice(1)
      .map((segment) => (segment.includes('{') ? undefined : segment.toLowerCase()));
    const number = routes.length;
    routeOf.set(template, number);
    const multi = multiNames.get(template);
    const raw = template.split('/').slice(1);
    let multiAt = -1;
    for (let i = raw.length - 1; i >= 0 && multi && multiAt < 0; i--)
      if (multi.has(raw[i]!.replace(/^\{|\}$/g, ''))) multiAt = i;
    routes.push({ template, segments, methods: [entry.operation.method], multiAt });
    if (multiAt >= 0) multiRoutes.push(number);
    addTo(routesByStart, `${segments.length} ${segments[0] ?? '*'}`, number);
    for (const segment of new Set(segments)) if (segment !== undefined) addTo(routesByLiteral, segment, number);
  }
  // The document core builds its path matcher on first use: here, with the index, so no query pays for it.
  matchOperation(loaded, 'GET', '/');
  yield;
  // Likewise the tables free text is read with: a query in capitals or with `API` in it paid 40 ms for them on GitHub's.
  const acronyms = acronymsOf(entries, aliases);
  yield;
  return {
    acronyms,
    channel: channelWords(routes),
    entries,
    postings,
    aliases,
    routes,
    routesByStart,
    routesByLiteral,
    multiRoutes,
    basePrefixes: basePrefixes(loaded.doc),
    averageLength,
    ...vocabularyTables([...postings.keys()]),
    byOperationId,
    byAnchor,
    byDocsUrl,
    byWordSet,
    byLastIdWord,
    templates,
    segmentCounts: new Set([...templates].map((template) => template.split('/').length)),
    literalSegments: new Set(
      [...templates].flatMap((template) => template.split('/').filter((segment) => segment && !segment.includes('{'))),
    ),
    buildMs: performance.now() - started,
  };
}

/** The vocabulary with its letter masks and its lookups by length and by first 4 characters. */
function vocabularyTables(
  vocabulary: string[],
): Pick<SearchIndex, 'vocabulary' | 'vocabularyMasks' | 'vocabularyByLength' | 'vocabularyByHead'> {
  const byLength: number[][] = [];
  const byHead = new Map<string, number[]>();
  for (let i = 0; i < vocabulary.length; i++) {
    const term = vocabulary[i]!;
    (byLength[term.length] ??= []).push(i);
    if (term.length >= 5) {
      const head = term.slice(0, 4);
      const list = byHead.get(head);
      if (list) list.push(i);
      else byHead.set(head, [i]);
    }
  }
  return {
    vocabulary,
    vocabularyMasks: Uint32Array.from(vocabulary, letterMask),
    vocabularyByLength: Array.from(byLength, (list) => Int32Array.from(list ?? [])),
    vocabularyByHead: new Map([...byHead].map(([head, list]) => [head, Int32Array.from(list)])),
  };
}

/**
 * The document's base paths as segments: the path part of each `servers[].url` (root, path item and
 * operation servers; OpenAPI 3.x Server Object) or the 2.0 `basePath`, lower case, a segment with a
 * `{variable}` as `undefined` (any value); the empty base always first. A server variable whose default
 * or enum value holds `/` may stand for any number of segments: then any 0 to 4 segments.
 */
function basePrefixes(doc: any): Array<Array<string | undefined>> {
  const prefixes = new Map<string, Array<string | undefined>>([['', []]]);
  const urls: unknown[] = [];
  const variables: unknown[] = [];
  const take = (servers: unknown) => {
    if (!Array.isArray(servers)) return;
    for (const server of servers.slice(0, 100)) {
      urls.push(server?.url);
      if (server?.variables && typeof server.variables === 'object') variables.push(...Object.values(server.variables));
    }
  };
  if (doc && typeof doc === 'object') {
    take(doc.servers);
    if (typeof doc.basePath === 'string') urls.push(doc.basePath);
    for (const item of Object.values(doc.paths && typeof doc.paths === 'object' ? doc.paths : {})) {
      if (!item || typeof item !== 'object') continue;
      take((item as any).servers);
      for (const operation of Object.values(item))
        if (operation && typeof operation === 'object') take((operation as any).servers);
    }
  }
  const slashInVariable = variables.some((variable: any) =>
    [variable?.default, ...(Array.isArray(variable?.enum) ? variable.enum : [])].some(
      (value) => typeof value === 'string' && value.includes('/'),
    ),
  );
  if (slashInVariable) return [0, 1, 2, 3, 4].map((count) => new Array<undefined>(count).fill(undefined));
  for (const url of urls.slice(0, 10_000)) {
    if (typeof url !== 'string') continue;
    const path = url.replace(/^[A-Za-z][A-Za-z0-9+.{}-]*:\/\/[^/]*/, '').replace(/[?#].*$/s, '');
    const segments = path
      .split('/')
      .filter(Boolean)
      .map((segment) => (segment.includes('{') || segment.includes('%') ? undefined : segment.toLowerCase()));
    prefixes.set(segments.map((segment) => segment ?? '{}').join('/'), segments);
  }
  return [...prefixes.values()].sort((a, b) => a.length - b.length);
}

/**
 * Names of the path parameters marked `x-multi-segment` (the matcher lets them span segments), by
 * path template: the path item's and its operations' parameters, `$ref`s followed.
 */
function multiSegmentNames(doc: any): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  const paths = doc && typeof doc === 'object' ? doc.paths : undefined;
  if (!paths || typeof paths !== 'object') return names;
  for (const [template, item] of Object.entries(paths)) {
    const pathItem = followRef(doc, item);
    if (!pathItem || typeof pathItem !== 'object') continue;
    for (const owner of [pathItem, ...Object.values(pathItem)]) {
      const list = owner && typeof owner === 'object' ? (owner as any).parameters : undefined;
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        const parameter = followRef(doc, entry);
        if (parameter?.['x-multi-segment'] === true && parameter.in === 'path' && typeof parameter.name === 'string') {
          let set = names.get(template);
          if (!set) names.set(template, (set = new Set()));
          set.add(parameter.name);
        }
      }
    }
  }
  return names;
}

/**
 * Abbreviations the document itself uses: a path segment word that starts the summary word of the same
 * operation (`repos` in the path, `repository` in the summary; `orgs`, `organization`), seen in at
 * least 3 operations and more often than any other expansion, and never a summary word by itself.
 * Both spellings then index as the long one.
 */
function learnAbbreviations(operations: Operation[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  const summaryWords = new Set(operations.flatMap((operation) => terms(summaryOf(operation))));
  for (const operation of operations) {
    const summary = new Set(terms(summaryOf(operation)));
    for (const short of new Set(terms(operation.pathTemplate.replace(/\{[^{}]*\}/g, ' ')))) {
      if (short.length < 3 || summaryWords.has(short)) continue; // a word of its own, not an abbreviation
      for (const long of summary) {
        if (long.length <= short.length + 1 || !long.startsWith(short)) continue;
        let row = counts.get(short);
        if (!row) counts.set(short, (row = new Map()));
        row.set(long, (row.get(long) ?? 0) + 1);
      }
    }
  }
  const aliases = new Map<string, string>();
  for (const [short, row] of counts) {
    const [long, count] = [...row].sort((a, b) => b[1] - a[1])[0]!;
    if (count >= 3) aliases.set(short, long);
  }
  return aliases;
}

/** Runs `buildIndexSteps` to the end in one go. */
function buildIndex(loaded: LoadedDocument): SearchIndex {
  const steps = buildIndexSteps(loaded);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function indexFor(loaded: LoadedDocument): SearchIndex {
  let index = indexes.get(loaded);
  if (!index) {
    index = buildIndex(loaded);
    indexes.set(loaded, index);
  }
  return index;
}

/** The key an index entry is kept under in a snapshot, in place of its operation: method and path template. */
function entryKey(operation: Operation): string {
  return `${operation.method} ${operation.pathTemplate}`;
}

/**
 * The search index of `loaded` as the document cache keeps it, or undefined when it has not been built: without its
 * scratch space, and each entry with its operation's method and path template (`key`) in place of the operation, so
 * the value serializes apart from the document (`v8.serialize`) and is read back beside a fresh load of it (an index
 * costs several times more to build than to read back; a document does not: issue 20).
 */
export function searchIndexSnapshot(loaded: LoadedDocument): unknown {
  const index = indexes.get(loaded);
  if (!index) return undefined;
  const { scratch: _scratch, entries, ...kept } = index;
  return { ...kept, entries: entries.map(({ operation, ...rest }) => ({ ...rest, key: entryKey(operation) })) };
}

/**
 * Takes `value`, read back from the document cache (untrusted), as the search index of `loaded` when it has the shape
 * `searchIndexSnapshot` gives: every field of its type, one entry per operation of `loaded` in its order with that
 * operation's `key`, each posting's positions within the entries.
 * @returns True when taken; false (and nothing changed) for any other value. Never throws.
 */
export function adoptSearchIndex(loaded: LoadedDocument, value: unknown): boolean {
  if (indexes.has(loaded) || !isSearchIndexSnapshot(value, loaded)) return false;
  const entries = (value.entries as Array<Omit<IndexedOperation, 'operation'> & { key: string }>).map(
    ({ key: _key, ...rest }, i) => ({ ...rest, operation: loaded.operations[i]! }),
  );
  indexes.set(loaded, { ...(value as unknown as SearchIndex), entries });
  return true;
}

const strings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');

function isSearchIndexSnapshot(value: unknown, loaded: LoadedDocument): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const index = value as Record<string, unknown>;
  // Lists of numbers under string keys, each number below `bound` (the entries', or the routes', count).
  const numberLists = (map: unknown, bound: number) =>
    map instanceof Map &&
    [...map].every(
      ([key, list]) =>
        typeof key === 'string' &&
        Array.isArray(list) &&
        list.every((number) => Number.isInteger(number) && number >= 0 && number < bound),
    );
  const operations = loaded.operations;
  const entries = index.entries;
  if (
    !Array.isArray(entries) ||
    entries.length !== operations.length ||
    !entries.every(
      (entry, i) =>
        entry !== null &&
        typeof entry === 'object' &&
        entry.key === entryKey(operations[i]!) &&
        typeof entry.length === 'number' &&
        typeof entry.norm === 'number' &&
        entry.weights instanceof Map &&
        entry.grams instanceof Uint16Array &&
        entry.strong instanceof Set &&
        (entry.idWords === undefined || strings(entry.idWords)),
    )
  )
    return false;
  const postings = index.postings;
  if (!(postings instanceof Map)) return false;
  for (const posting of postings.values()) {
    if (
      posting === null ||
      typeof posting !== 'object' ||
      !(posting.positions instanceof Int32Array) ||
      !(posting.parts instanceof Float64Array) ||
      !Number.isInteger(posting.length) ||
      posting.length > posting.positions.length ||
      posting.length > posting.parts.length
    )
      return false;
    for (let i = 0; i < posting.length; i++)
      if (posting.positions[i]! < 0 || posting.positions[i]! >= entries.length) return false;
  }
  const vocabulary = index.vocabulary;
  return (
    index.aliases instanceof Map &&
    index.acronyms instanceof Map &&
    [...index.acronyms].every(([key, value]) => typeof key === 'string' && typeof value === 'string') &&
    index.channel instanceof Set &&
    [...index.channel].every((term) => typeof term === 'string') &&
    typeof index.averageLength === 'number' &&
    typeof index.buildMs === 'number' &&
    Array.isArray(vocabulary) &&
    vocabulary.every((term) => typeof term === 'string') &&
    index.vocabularyMasks instanceof Uint32Array &&
    index.vocabularyMasks.length === vocabulary.length &&
    Array.isArray(index.vocabularyByLength) &&
    index.vocabularyByLength.every((list) => list instanceof Int32Array) &&
    index.vocabularyByHead instanceof Map &&
    [...index.vocabularyByHead.values()].every((list) => list instanceof Int32Array) &&
    ['byOperationId', 'byAnchor', 'byDocsUrl', 'byWordSet', 'byLastIdWord'].every((name) =>
      numberLists(index[name], entries.length),
    ) &&
    Array.isArray(index.routes) &&
    index.routes.every(
      (route) =>
        route !== null &&
        typeof route === 'object' &&
        typeof route.template === 'string' &&
        Array.isArray(route.segments) &&
        route.segments.every((segment: unknown) => segment === undefined || typeof segment === 'string') &&
        strings(route.methods) &&
        Number.isInteger(route.multiAt),
    ) &&
    ['routesByStart', 'routesByLiteral'].every((name) =>
      numberLists(index[name], (index.routes as unknown[]).length),
    ) &&
    Array.isArray(index.multiRoutes) &&
    index.multiRoutes.every(
      (number) => Number.isInteger(number) && number >= 0 && number < (index.routes as unknown[]).length,
    ) &&
    index.templates instanceof Set &&
    [...index.templates].every((template) => typeof template === 'string') &&
    index.literalSegments instanceof Set &&
    index.segmentCounts instanceof Set &&
    Array.isArray(index.basePrefixes) &&
    index.basePrefixes.every(
      (prefix) =>
        Array.isArray(prefix) && prefix.every((segment) => segment === undefined || typeof segment === 'string'),
    )
  );
}

const building = new WeakMap<LoadedDocument, Promise<void>>();

/**
 * Builds the search index of a document (once; kept like `indexFor`'s) in slices of at most `sliceMs`
 * of work, giving the event loop a turn (`setImmediate`) between them, so a server that calls this before
 * its first `findOperations` keeps answering `ping` while a large document is indexed (issue 8).
 * Concurrent callers share one build. Never rejects.
 * @param sliceMs Work per slice in ms, default 8.
 */
export function prepareSearchIndex(loaded: LoadedDocument, sliceMs = 8): Promise<void> {
  if (indexes.has(loaded)) return Promise.resolve();
  let work = building.get(loaded);
  if (!work) {
    work = (async () => {
      const steps = buildIndexSteps(loaded);
      let slice = performance.now();
      for (;;) {
        const step = steps.next();
        if (step.done) {
          if (!indexes.has(loaded)) indexes.set(loaded, step.value);
          return;
        }
        if (performance.now() - slice > sliceMs) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
    })();
    building.set(loaded, work);
    const clear = () => building.delete(loaded);
    work.then(clear, clear);
  }
  return work;
}

/**
 * Builds (once per loaded document, kept in a WeakMap) the search index and says how long that took.
 * @returns `{operations, terms, buildMs}`: indexed operations, distinct terms, build time in ms of
 *   the first call (later calls return the same figure). Never throws.
 */
export function searchIndexStats(loaded: LoadedDocument): { operations: number; terms: number; buildMs: number } {
  const index = indexFor(loaded);
  return { operations: index.entries.length, terms: index.postings.size, buildMs: index.buildMs };
}

// ---------------------------------------------------------------------------------------------
// Free text

let synonyms: Map<string, string[]> | undefined;

/** The generated synonym table (`word=a,b;` entries) as a map, parsed on first use. */
function synonymsOf(word: string): string[] {
  if (!synonyms) {
    synonyms = new Map();
    for (const entry of SYNONYM_TABLE.split(';')) {
      const equals = entry.indexOf('=');
      if (equals > 0) synonyms.set(entry.slice(0, equals), entry.slice(equals + 1).split(','));
    }
  }
  return synonyms.get(word) ?? [];
}

const SYNONYM_WEIGHT = 0.4;
const MAX_QUERY_WORDS = 32;
const TRIGRAM_SHARE = 0.3;
const NEAR_WEIGHT = 0.6;

type QueryTerm = { term: string; weight: number; from: string; how: 'word' | 'synonym' | 'spelling' };

/** The set of letters a-z in a word as 26 bits: one edit changes at most 2 bits, a cheap bound. */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i) - 97;
    if (code >= 0 && code < 26) mask |= 1 << code;
  }
  return mask;
}

function bitCount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

// Words of one query that the document never uses and that are compared with its whole vocabulary.
const MAX_SPELLING_WORDS = 8;

/** Query words with their expansions: synonyms from the table, near-spellings from the vocabulary. */
function expandQuery(index: SearchIndex, words: string[]): QueryTerm[] {
  const expanded = new Map<string, QueryTerm>();
  const put = (candidate: QueryTerm) => {
    const known = expanded.get(candidate.term);
    if (!known || known.weight < candidate.weight) expanded.set(candidate.term, candidate);
  };
  let spelled = 0;
  for (const word of words) {
    put({ term: word, weight: 1, from: word, how: 'word' });
    for (const synonym of synonymsOf(word)) {
      if (index.postings.has(synonym)) put({ term: synonym, weight: SYNONYM_WEIGHT, from: word, how: 'synonym' });
    }
    if (index.postings.has(word) || word.length < 4 || /^[0-9]+$/.test(word) || spelled >= MAX_SPELLING_WORDS) continue;
    spelled++;
    // A word the document never uses: its near-spellings (one edit, two for long words) and the
    // longer words it abbreviates (`repo` -> `repository`). The letter sets rule most terms out first.
    const limit = word.length >= 8 ? 2 : 1;
    const mask = letterMask(word);
    const { vocabulary, vocabularyMasks } = index;
    // Only terms that can qualify, in vocabulary order (the order of the whole scan this replaces):
    // lengths within `limit`, and longer terms that share the word's first 4 characters.
    let count = 0;
    for (let length = word.length - limit; length <= word.length + limit; length++)
      count += index.vocabularyByLength[length]?.length ?? 0;
    const head = index.vocabularyByHead.get(word.slice(0, 4));
    const candidates = new Int32Array(count + (head?.length ?? 0));
    count = 0;
    for (let length = word.length - limit; length <= word.length + limit; length++) {
      const bucket = index.vocabularyByLength[length];
      if (bucket) {
        candidates.set(bucket, count);
        count += bucket.length;
      }
    }
    if (head) for (const i of head) if (vocabulary[i]!.length > word.length + limit) candidates[count++] = i;
    const ordered = candidates.subarray(0, count).sort();
    for (const i of ordered) {
      const term = vocabulary[i]!;
      if (term.length > word.length && term.startsWith(word))
        put({ term, weight: NEAR_WEIGHT * 0.8, from: word, how: 'spelling' });
      else if (
        Math.abs(term.length - word.length) <= limit &&
        bitCount(mask ^ vocabularyMasks[i]!) <= 2 * limit &&
        editDistance(word, term, limit) <= limit
      ) {
        put({ term, weight: NEAR_WEIGHT, from: word, how: 'spelling' });
      }
    }
  }
  return [...expanded.values()];
}

function idf(index: SearchIndex, term: string): number {
  const n = index.postings.get(term)?.length ?? 0;
  return Math.log(1 + (index.entries.length - n + 0.5) / (n + 0.5));
}

/**
 * A ranked operation: fused score (0..1), `coverage` (share of the query's information it matches in any
 * field), `strongCoverage` (the same in its summary, operationId and path only), and the words matched.
 */
type Ranked = { position: number; score: number; coverage: number; strongCoverage: number; matchedWords: string[] };

/** Per-operation scratch arrays reused by every ranking of one index (one thread; reset after use). */
type Scratch = {
  scores: Float64Array;
  covered: Float64Array;
  stamps: Int32Array;
  touched: Int32Array;
  pool: Float64Array;
};

/**
 * Ranks operations for free text by BM25F over the expanded query, fused with a trigram similarity of
 * the query to the operation's summary (catches spellings the stemmer does not join), and returns the
 * best `keep`. Work: one pass over the postings of the query's terms, then the trigram similarity only
 * for operations whose BM25 part could still reach the best `keep` (the similarity adds at most
 * `TRIGRAM_SHARE`), and at most for the best 200 by BM25; no sort of the whole document.
 */
function rankText(index: SearchIndex, text: string, method: string | undefined, keep: number): Ranked[] {
  const shown = new Map<string, string>();
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    const stem = stemWord(word);
    const term = index.aliases.get(stem) ?? stem;
    if (!shown.has(term)) shown.set(term, word);
  }
  const words = [...shown.keys()].slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return [];
  const query = expandQuery(index, words);
  // Coverage: the share of the query's information (idf of each word; a word the document never
  // uses counts as the rarest) that the operation matches, by the word itself or an expansion.
  const maxIdf = Math.log(1 + (index.entries.length + 0.5) / 0.5);
  const wordIdf = words.map((word) => (index.postings.has(word) ? idf(index, word) : maxIdf * UNKNOWN_WORD_SHARE));
  const totalIdf = wordIdf.reduce((a, b) => a + b, 0);
  const groups = words.map((word) => query.filter((item) => item.from === word).sort((a, b) => b.weight - a.weight));
  const size = index.entries.length;
  index.scratch ??= {
    scores: new Float64Array(size),
    covered: new Float64Array(size),
    stamps: new Int32Array(size),
    touched: new Int32Array(size),
    pool: new Float64Array(size),
  };
  const { scores, covered, stamps } = index.scratch;
  let count = 0;
  groups.forEach((group, wordNumber) => {
    for (const item of group) {
      const posting = index.postings.get(item.term);
      if (!posting) continue;
      const weight = item.weight * idf(index, item.term);
      const share = wordIdf[wordNumber]! * Math.min(1, item.weight);
      const { positions, parts } = posting;
      for (let i = 0; i < positions.length; i++) {
        const position = positions[i]!;
        if (scores[position] === 0) index.scratch!.touched[count++] = position;
        scores[position] += weight * parts[i]!;
        if (stamps[position] !== wordNumber + 1) {
          stamps[position] = wordNumber + 1; // the group's terms come best weight first
          covered[position] += share;
        }
      }
    }
  });
  const touched = index.scratch.touched.subarray(0, count);
  try {
    const eligible = method
      ? touched.filter((position) => index.entries[position]!.operation.method === method)
      : touched;
    // One pass: the BM25 parts into the pool (for the cuts below) and the best of them.
    const pool = index.scratch.pool.subarray(0, eligible.length);
    let best = 0;
    for (let i = 0; i < eligible.length; i++) {
      const score = scores[eligible[i]!]!;
      pool[i] = score;
      if (score > best) best = score;
    }
    if (best === 0) return [];
    const queryGrams = trigramCodes(words.join(' '));
    const fuse = (position: number) => {
      const entry = index.entries[position]!;
      return (scores[position]! / best) * (1 - TRIGRAM_SHARE) + dice(queryGrams, entry.grams) * TRIGRAM_SHARE;
    };
    // Bounded work on large documents: at most the best FUSION_CANDIDATES by BM25 get the trigram part.
    // The two steps below look only at operations at or above the lower of the two cuts: gathered in one pass.
    const limitCut = pool.length > FUSION_CANDIDATES ? largest(pool, FUSION_CANDIDATES) : -Infinity;
    // The best `keep` by BM25 alone give a floor for the fused score; only operations whose BM25 part
    // plus the largest trigram share reaches it can be among the best `keep` after fusion.
    const leaderCut = pool.length > keep ? largest(pool, keep) : -Infinity;
    const gatherCut = Math.min(limitCut, leaderCut);
    const candidates: number[] = [];
    for (let i = 0; i < eligible.length; i++) if (scores[eligible[i]!]! >= gatherCut) candidates.push(eligible[i]!);
    // Each candidate's fused score is computed once: the leaders' are looked up again below.
    const fused = new Map<number, number>();
    const leaders: number[] = [];
    for (const position of candidates) {
      if (scores[position]! < leaderCut) continue;
      const score = fuse(position);
      fused.set(position, score);
      leaders.push(score);
    }
    leaders.sort((a, b) => b - a);
    const floor = leaders.length < keep ? -Infinity : leaders[keep - 1]!;
    const cut = Math.max(((floor - TRIGRAM_SHARE) / (1 - TRIGRAM_SHARE)) * best, limitCut);
    const ranked: Array<{ position: number; score: number }> = [];
    for (const position of candidates)
      if (scores[position]! >= cut) ranked.push({ position, score: fused.get(position) ?? fuse(position) });
    ranked.sort((a, b) => b.score - a.score || a.position - b.position);
    return ranked.slice(0, keep).map(({ position, score }) => {
      const own = index.entries[position]!.weights;
      const matchedWords = words
        .filter((_, n) => groups[n]!.some((item) => own.has(item.term)))
        .map((word) => shown.get(word) ?? word);
      const strong = index.entries[position]!.strong;
      let strongIdf = 0;
      groups.forEach((group, n) => {
        const best = group.find((item) => strong.has(item.term));
        if (best) strongIdf += wordIdf[n]! * Math.min(1, best.weight);
      });
      return {
        position,
        score,
        coverage: totalIdf ? covered[position]! / totalIdf : 0,
        strongCoverage: totalIdf ? strongIdf / totalIdf : 0,
        matchedWords,
      };
    });
  } finally {
    for (const position of touched) {
      scores[position] = 0;
      covered[position] = 0;
      stamps[position] = 0;
    }
  }
}

// Operations that get the trigram part of the fused score, at most (the best by BM25 alone).
const FUSION_CANDIDATES = 200;

/**
 * The `k`-th largest value of `values` (1-based; `values` is reordered), by quickselect: O(n) on average.
 */
function largest(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else return values[target]!;
  }
  return values[target]!;
}

/**
 * The distinct trigrams of ` text ` (words of `terms`: a-z, 0-9 and spaces) as sorted numbers
 * (37 symbols, so each fits 16 bits): a compact set the index keeps for every operation.
 */
function trigramCodes(text: string): Uint16Array {
  const symbol = (code: number) => (code >= 97 && code <= 122 ? code - 96 : code >= 48 && code <= 57 ? code - 21 : 0);
  const padded = ` ${text} `;
  const codes: number[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) {
    codes.push(
      symbol(padded.charCodeAt(i)) * 1369 + symbol(padded.charCodeAt(i + 1)) * 37 + symbol(padded.charCodeAt(i + 2)),
    );
  }
  const sorted = Uint16Array.from(codes).sort();
  let unique = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[unique++] = sorted[i]!;
  return sorted.slice(0, unique);
}

/** Dice coefficient `2 |a ∩ b| / (|a| + |b|)` of two sorted trigram sets (0..1). */
function dice(a: Uint16Array, b: Uint16Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return (2 * shared) / (a.length + b.length);
}

// Coverage counts a word the document never uses as a quarter of the rarest word's information (prose carries
// words no API uses: "trying", "unable"; chosen on the development set, issue 16).
const UNKNOWN_WORD_SHARE = 0.25;

// The low-confidence flag of a text answer (issue 16): a logistic model of the chance that the API does not offer
// what the intent asks for, over six signals: the top hit's coverage and strong coverage (IDF-weighted share of the
// query's words it matches, in any field and in summary, operationId and path), its fused score, the margin to the
// second hit ((first - second) / first), whether the intent's verb asks for its method, and the share of the query's
// content words the document uses at all. Refitted (L2 0.01) on all six development sets (the two development splits
// and the four earlier frozen ones: 330 text answers on 10 APIs, 76 unanswerable). Left out one API at a time, with
// the threshold chosen on the other nine (the lowest at which their answerable text rows are flagged at most 0.13),
// it caught 0.66 of the unanswerable intents and flagged 0.12 of the answerable rows; two further signals (the
// unweighted share of words in the strong fields, the coverage by fields weighing 1 or more) moved that by a row or
// two and were left out. The threshold 0.3125 is the highest (in steps of 0.0125) at which every set whose
// unanswerable rows were caught at 0.6 or more stays there (the second development split at 0.325 reads 0.57).
const ABSTAIN_MODEL = {
  bias: 2.13,
  coverage: -1.56,
  strongCoverage: -1.53,
  score: -0.55,
  margin: -0.25,
  verbAgrees: -0.55,
  knownShare: -0.94,
  threshold: 0.3125,
} as const;

/** The query-level signals of a text answer that `unanswerable` weighs beside a hit's own. */
type AnswerSignals = { margin: number; verbMethods?: string[]; knownShare: number };

/**
 * The chance (0..1) that a text hit does not serve the intent, by `ABSTAIN_MODEL`, from the hit's coverage,
 * strong coverage, fused score and method and the answer's margin and known-word share.
 */
function unanswerable(index: SearchIndex, item: Ranked, signals: AnswerSignals): number {
  const method = index.entries[item.position]!.operation.method;
  const m = ABSTAIN_MODEL;
  const z =
    m.bias +
    m.coverage * item.coverage +
    m.strongCoverage * item.strongCoverage +
    m.score * item.score +
    m.margin * signals.margin +
    m.verbAgrees * (signals.verbMethods?.includes(method) ? 1 : 0) +
    m.knownShare * signals.knownShare;
  return 1 / (1 + Math.exp(-z));
}

/**
 * The answer-level signals of `unanswerable`: the margin between the first two ranked hits, the methods the
 * intent's verb asks for, and the share of the query's content words (stop words left out) that the document uses.
 */
function answerSignals(index: SearchIndex, text: string, ranked: Ranked[]): AnswerSignals {
  const first = ranked[0]!.score;
  const second = ranked[1]?.score ?? 0;
  let words = 0;
  let known = 0;
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    words++;
    const stem = stemWord(word);
    if (index.postings.has(index.aliases.get(stem) ?? stem)) known++;
  }
  return {
    margin: ranked.length > 1 && first > 0 ? (first - second) / first : 1,
    verbMethods: verbMethods(text),
    knownShare: words ? known / words : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Query shapes

const HTTP_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];

type PathQuery = { method?: string; path: string; wildcards: number };

// Flags that give a request a body, so the command sends a POST unless `-X` names another method:
// `gh api` (its manual: "the default HTTP request method is GET normally and POST if any parameters
// were added") and curl (`-d` and `-F` send POST).
const BODY_FLAGS = {
  gh: new Set(['-f', '-F', '--field', '--raw-field', '--input']),
  curl: new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--json', '-F', '--form']),
} as const;

// Other flags whose next word is their value, never the path: headers, credentials, output, jq
// filters (curl's and `gh api`'s manuals).
const VALUE_FLAGS = {
  gh: new Set(['-H', '--header', '-q', '--jq', '-t', '--template', '--hostname', '-p', '--preview', '--cache']),
  curl: new Set(['-H', '--header', '-u', '--user', '-o', '--output', '-A', '--user-agent', '-b', '--cookie', '-e']),
} as const;

// Words of a command line at most, and characters of one quoted word: a query is 2,000 characters.
const MAX_COMMAND_WORDS = 400;

/**
 * A command line's words as a POSIX shell splits them (Shell Command Language, 2.2 Quoting): quotes
 * group, and are dropped; a backslash keeps the next character. One pass, at most `MAX_COMMAND_WORDS`.
 */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let open = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length && words.length < MAX_COMMAND_WORDS; i++) {
    const char = line[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      open = true;
    } else if (char === '\\' && i + 1 < line.length) {
      word += line[++i];
      open = true;
    } else if (/\s/.test(char)) {
      if (open) words.push(word);
      word = '';
      open = false;
    } else {
      word += char;
      open = true;
    }
  }
  if (open && words.length < MAX_COMMAND_WORDS) words.push(word);
  return words;
}

// A first segment that is an authority (RFC 3986 section 3.2.2): a host name (`api.spotify.com/v1/me`),
// `localhost`, an IPv4 address or a bracketed IPv6 one, each with an optional port: a URL pasted without its scheme.
const HOST_SEGMENT =
  /^(?:(?:[a-z0-9-]+\.)+[a-z]{2,}|localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9a-f:.]{2,45}\])(:[0-9]{1,5})?$/i;

// A string literal of code (`self._get(f"/t/{id}.json")`, `axios.post(`${BASE}/users`, ...)`, `"https://..."`), with
// an optional Python prefix (f, r, b, u): no quote, backtick or white space inside, at most 1,000 characters.
const CODE_LITERAL = /(?:\b[fFrRbBuU]{1,2})?(["'`])([^"'`\s]{1,1000})\1/g;
// A literal that is a path or URL: `/...`, `http(s)://...`, or a leading `${BASE}` or `{{BASE}}` then `/`.
const PATH_LITERAL = /^(?:\/|https?:\/\/[^/\s]|(?:\$\{[A-Za-z_][\w.]{0,100}\}|\{\{[A-Za-z_][\w.]{0,100}\}\})\/)/i;

/**
 * The path of a call written in code, when no word of the query is one: the first string literal that is a path or
 * URL (`self._get(f"/t/{topic_id}/posts.json", **kwargs)`), its leading `${BASE}` (a variable holding the server URL)
 * dropped, and the method named by the called function's last word (`_put`, `axios.post`, `httpPut`) or by a literal
 * that is a method in capitals (`QuickRequestParams("GET", "https://...")`).
 */
function codeCallPath(line: string): { method?: string; path: string } | undefined {
  let method: string | undefined;
  let path: string | undefined;
  for (const literal of line.matchAll(CODE_LITERAL)) {
    const text = literal[2]!;
    if (HTTP_METHODS.includes(text)) {
      method ??= text;
      continue;
    }
    if (path !== undefined || !PATH_LITERAL.test(text)) continue;
    path = text.replace(/^(?:\$\{[^{}]*\}|\{\{[^{}]*\}\})(?=\/)/, '');
    const callee = /([A-Za-z_$][\w$]{0,100})\s{0,20}\(\s{0,20}$/.exec(
      line.slice(Math.max(0, literal.index! - 130), literal.index),
    );
    const last = callee ? splitWords(callee[1]!).pop()?.toUpperCase() : undefined;
    if (last && HTTP_METHODS.includes(last)) method = last;
  }
  return path === undefined ? undefined : { method, path };
}

/**
 * Reads a path-shaped query: `GET /pets/42`, a full URL or one without its scheme, a `gh api` or curl
 * line, a template with `{name}`, `:name`, `<name>` or `{{name}}` segments (a leading `{{baseUrl}}` is the
 * server), or a path with shell or CI variables (`$R`, `${SHA}`, `${{ github.sha }}`, `{}`), which stand
 * for one or more segments. A `gh api` or curl line with body flags (`-f`, `--input`, `-d` ...) and no
 * `-X` is a POST; the values of other flags (`-H "Accept: application/json"`) are not paths.
 */
function readPathQuery(query: string): PathQuery | undefined {
  // A CI expression is one segment whatever its spaces (GitHub Actions: `${{ github.sha }}`). A template
  // engine's `{{ name }}` (Jinja in Ansible, Mustache, Handlebars) is the parameter `name`, spaces or not; any
  // other `{{ expression }}` (`{{ item | int }}`) stands for one segment.
  const line = query
    .trim()
    // White space inside a transcribed URI is to be ignored (RFC 3986 Appendix C): `https:// api.zoom.us/v2/...`.
    .replace(/\b(https?:\/\/)\s{1,20}(?=[A-Za-z0-9[])/gi, '$1')
    .replace(/\$\{\{[^{}]{0,200}\}\}/g, '$CI')
    .replace(/\{\{\s{0,20}([A-Za-z_][A-Za-z0-9_.-]{0,100})\s{0,20}\}\}/g, '{{$1}}')
    .replace(/\{\{[^{}]{0,200}\}\}(?=\/|$|["'\s])/g, (expression) => (/\s/.test(expression) ? '$CI' : expression));
  const command = /^(gh|curl)\s/i.test(line)
    ? (line.slice(0, line.search(/\s/)).toLowerCase() as 'gh' | 'curl')
    : undefined;
  const tokens = command ? shellWords(line) : line.split(/\s+/).map((token) => token.replace(/^["'`]+|["'`,;]+$/g, ''));
  let method: string | undefined;
  let path: string | undefined;
  let bodyFlag = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const upper = token.toUpperCase();
    if ((token === '-X' || token === '--method' || token === '--request') && tokens[i + 1]) {
      const next = tokens[i + 1]!.replace(/^["']+|["']+$/g, '').toUpperCase();
      if (HTTP_METHODS.includes(next)) method = next;
      i++;
      continue;
    }
    if (command && BODY_FLAGS[command].has(token.replace(/=.*$/s, ''))) {
      bodyFlag = true;
      if (!token.includes('=')) i++; // the flag's value is not the path
      continue;
    }
    if (command && VALUE_FLAGS[command].has(token)) {
      i++;
      continue;
    }
    // A leading method: in capitals, or in any case right before a path or URL (`delete /volumes/7`); HTTPie's
    // `http DELETE <url>` puts it second.
    const beforePath = /^(\/|https?:\/\/)/i.test(tokens[i + 1] ?? '');
    const leading = i === 0 || (i === 1 && /^https?$/i.test(tokens[0]!) && token === upper);
    if (leading && HTTP_METHODS.includes(upper) && (token === upper || beforePath)) {
      method = upper;
      continue;
    }
    // A method given as a field: `method: POST` (Ansible's uri module, YAML), `method=POST`, `"method": "POST"`,
    // also the last of an object (`"method": "DELETE"}`, `method: 'delete' })`), or with its colon apart
    // (`"method" : "DELETE"`): the value in this token, else in the next one or two.
    const field = /^method["']?([:=]?)["']?([A-Za-z]*)["'})\]]*$/i.exec(token);
    if (field) {
      const apart = !field[1] && /^[:=]$/.test(tokens[i + 1] ?? '');
      const value = field[2] || (apart ? tokens[i + 2] : field[1] ? tokens[i + 1] : undefined) || '';
      const named = value.replace(/^["']+|["',})\]]+$/g, '').toUpperCase();
      if ((field[1] || apart) && HTTP_METHODS.includes(named)) {
        method = named;
        i += field[2] ? 0 : apart ? 2 : 1;
        continue;
      }
    }
    if (path !== undefined || token.startsWith('-')) continue;
    // A bare `a/b/c` is a path only where a path is expected: alone, after a method, or in a command
    // line (`gh api a/b/c`); in prose it is words ("create/update a status").
    const bare =
      /^[A-Za-z0-9_.$:{}<>-]+(\/[^\s/]*)+$/.test(token) &&
      (tokens.length === 1 || method !== undefined || /^(gh|curl|http|https|wget)$/i.test(tokens[0]!));
    if (/^https?:\/\/[^\s/]+/i.test(token) || token.startsWith('/') || bare) path = token;
  }
  if (path === undefined && !command) {
    const call = codeCallPath(line);
    if (call) {
      path = call.path;
      method ??= call.method;
    }
  }
  if (path === undefined) return undefined;
  if (!method && bodyFlag) method = 'POST';
  const origin = /^https?:\/\/[^/?#]*/i.exec(path) ?? /^\{\{[A-Za-z0-9_.-]{1,100}\}\}(?=\/)/.exec(path);
  if (origin) path = path.slice(origin[0].length) || '/';
  path = path.replace(/#.*$/s, '').replace(/\?.*$/s, '');
  if (!path.startsWith('/')) {
    const slash = path.indexOf('/');
    path = slash > 0 && HOST_SEGMENT.test(path.slice(0, slash)) ? path.slice(slash) : '/' + path;
  }
  let wildcards = 0;
  const segments = path.split('/').map((segment, i) => {
    if (i === 0) return segment;
    if (/^:[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) return `{${segment.slice(1)}}`;
    if (/^<[A-Za-z_][A-Za-z0-9_ -]*>$/.test(segment)) return `{${segment.slice(1, -1)}}`;
    if (/^\{\{[A-Za-z_][A-Za-z0-9_.-]*\}\}$/.test(segment)) return `{${segment.slice(2, -2)}}`;
    if (/^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\})$/.test(segment)) {
      wildcards++;
      return '\u0000';
    }
    return segment;
  });
  return { method, path: segments.join('/'), wildcards };
}

/** Every way to let each shell variable stand for one or two segments, fewest segments first. */
function expandWildcards(path: string, wildcards: number): string[] {
  if (wildcards === 0) return [path];
  const capped = Math.min(wildcards, 4);
  const results: Array<{ path: string; extra: number }> = [];
  for (let mask = 0; mask < 1 << capped; mask++) {
    let k = 0;
    const built = path.replace(/\u0000/g, () => {
      const two = k < capped && (mask >> k) & 1;
      k++;
      return two ? 'x/x' : 'x';
    });
    let extra = 0;
    for (let bit = 0; bit < capped; bit++) extra += (mask >> bit) & 1;
    results.push({ path: built, extra });
  }
  results.sort((a, b) => a.extra - b.extra);
  return results.map((item) => item.path);
}

function pluralToggles(word: string): string[] {
  if (word.endsWith('ies')) return [word.slice(0, -3) + 'y'];
  if (word.endsWith('es')) return [word.slice(0, -2), word.slice(0, -1)];
  if (word.endsWith('s')) return [word.slice(0, -1)];
  if (word.endsWith('y')) return [word.slice(0, -1) + 'ies', word + 's'];
  return [word + 's', word + 'es'];
}

// ---------------------------------------------------------------------------------------------
// Search

function hitOf(
  index: SearchIndex,
  position: number,
  matched: string,
  score: number,
  confidence: 'high' | 'low',
): OperationHit {
  const { operation } = index.entries[position]!;
  return {
    method: operation.method,
    path: operation.pathTemplate,
    ...(operation.operationId ? { operationId: operation.operationId } : {}),
    ...(operation.summary?.trim() ? { summary: operation.summary.trim().slice(0, 200) } : {}),
    matched,
    score: Math.round(score * 1000) / 1000,
    confidence,
  };
}

function positionOf(index: SearchIndex, operation: Operation): number {
  return index.entries.findIndex((entry) => entry.operation === operation);
}

function exactHits(
  index: SearchIndex,
  positions: number[],
  matched: string,
  method: string | undefined,
  limit: number,
): OperationHit[] {
  return positions
    .filter((position) => !method || index.entries[position]!.operation.method === method)
    .slice(0, limit)
    .map((position) => hitOf(index, position, matched, 1, 'high'));
}

/**
 * A call without its argument list and a closing `;`: `octokit.rest.issues.addLabels({ owner, repo })`
 * -> `octokit.rest.issues.addLabels`. Only a trailing list of at most 500 characters, parentheses nested
 * at most two deep, is cut (one backward scan of at most 500 characters); anything else is returned as given.
 */
function withoutArguments(text: string): string {
  let end = text.length;
  while (end > 0 && /[\s;]/.test(text[end - 1]!)) end--;
  if (text[end - 1] !== ')') return text;
  let depth = 0;
  for (let i = end - 1; i >= 0 && i >= end - 500; i--) {
    const char = text[i];
    if (char === ')') {
      if (++depth > 2) return text;
    } else if (char === '(' && --depth === 0) return text.slice(0, i);
  }
  return text;
}

/** The hits of the operation whose operationId is `key`, any case (`exactHits`); none when no operationId is. */
function operationIdHits(index: SearchIndex, key: string, method: string | undefined, limit: number): OperationHit[] {
  const named = index.byOperationId.get(key.toLowerCase());
  return named
    ? exactHits(index, named, `operationId ${index.entries[named[0]!]!.operation.operationId}`, method, limit)
    : [];
}

/** Exact evidence in the query: a docs URL, an anchor or slug, an operationId or SDK method name. */
function findExact(
  index: SearchIndex,
  query: string,
  method: string | undefined,
  limit: number,
): OperationSearch | undefined {
  const trimmed = query.trim();
  const url = /^https?:\/\/\S+$/i.test(trimmed) ? trimmed : undefined;
  if (url) {
    const positions = index.byDocsUrl.get(normalizeUrl(url));
    const hits = positions ? exactHits(index, positions, `documentation URL ${url}`, method, limit) : [];
    if (hits.length) return { query, kind: 'docs', hits, suggestions: [] };
  }
  // Slugs: a URL fragment (its last segment, for `#/operations/x`), else hyphenated tokens.
  const slugs: string[] = [];
  const hash = trimmed.indexOf('#');
  if (hash >= 0)
    slugs.push(
      trimmed
        .slice(hash + 1)
        .split('/')
        .filter(Boolean)
        .pop() ?? '',
    );
  // camelCase / PascalCase identifiers among other words (`netlify api getSite --data ...`, "call ListVolumes")
  // are looked up as operationIds only: as words they are as often a type's name ("detach a PaymentMethod").
  const camelTokens: string[] = [];
  for (const token of trimmed.split(/[\s,;()]+/)) {
    const bare = token.replace(/^['"`]+|['"`:]+$/g, '');
    if (/^[A-Za-z0-9]+([-_]+[A-Za-z0-9]+)+$/.test(token)) slugs.push(token);
    // A quoted dotted name is an RPC method passed as a string (`client.api_call("conversations.history")`, Slack's
    // `/conversations.history` with operationId `conversations_history`): its words must name an operationId whole.
    else if (bare !== token && /^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)+$/.test(bare)) slugs.push(bare);
    else if (/^[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+$/.test(bare)) camelTokens.push(bare);
  }
  // A renderer's prefix before the operation's own slug (`#endpoint-add-to-queue`, Spotify's 2020
  // reference): the slug without its first word or two, when two words or more remain.
  for (const raw of [...slugs]) {
    const words = raw.split(/[-_]+/);
    for (let drop = 1; drop <= 2 && words.length - drop >= 2; drop++) slugs.push(words.slice(drop).join('-'));
  }
  for (const raw of slugs) {
    const slug = raw.toLowerCase();
    if (!slug) continue;
    const anchored = index.byAnchor.get(slug);
    if (anchored) {
      const hits = exactHits(index, anchored, `documentation anchor #${slug}`, method, limit);
      if (hits.length) return { query, kind: 'docs', hits, suggestions: [] };
    }
    const hits = operationIdHits(index, slug, method, limit);
    if (hits.length) return { query, kind: 'operationId', hits, suggestions: [] };
  }
  // The same prefix before an operationId written as one word (`#endpoint-createrefund`, Square's reference, for
  // `CreateRefund`): one word is too little for an anchor or a word set, so it counts only as a whole operationId.
  const fragmentWords = hash >= 0 ? (slugs[0] ?? '').split(/[-_]+/).filter(Boolean) : [];
  if (fragmentWords.length === 2 || fragmentWords.length === 3) {
    const hits = operationIdHits(index, fragmentWords[fragmentWords.length - 1]!, method, limit);
    if (hits.length) return { query, kind: 'operationId', hits, suggestions: [] };
  }
  for (const token of camelTokens) {
    const hits = operationIdHits(index, token, method, limit);
    if (hits.length) return { query, kind: 'operationId', hits, suggestions: [] };
  }
  // The same words in another order or form: an older anchor or another SDK's name for the operation.
  for (const raw of slugs) {
    const key = wordSet(raw);
    const positions = key ? index.byWordSet.get(key) : undefined;
    if (!positions) continue;
    const hits = exactHits(index, positions, `same words as ${raw}`, method, limit).map((hit) => ({
      ...hit,
      matched: `${raw} has the words of ${hit.operationId ?? 'the docs anchor'}`,
    }));
    if (hits.length) return { query, kind: 'operationId', hits, suggestions: [] };
  }
  // operationId as written, then as the tail of an SDK method path (`octokit.rest.issues.addLabels`
  // -> `issues/add-labels`): the operationId's words end the query's identifier words.
  const identifier = withoutArguments(trimmed);
  const named = operationIdHits(index, identifier, method, limit);
  if (named.length) return { query, kind: 'operationId', hits: named, suggestions: [] };
  if (/^[A-Za-z0-9_.:$\\/-]+$/.test(identifier) && /[a-z][A-Z]|[._:]/.test(identifier)) {
    const words = splitWords(identifier).slice(-64);
    let best: { positions: number[]; size: number } | undefined;
    for (const position of index.byLastIdWord.get(words[words.length - 1] ?? '') ?? []) {
      const own = index.entries[position]!.idWords!;
      if (own.length > words.length) continue;
      const tail = words.slice(words.length - own.length);
      if (tail.every((word, i) => word === own[i])) {
        if (!best || own.length > best.size) best = { positions: [position], size: own.length };
        else if (own.length === best.size) best.positions.push(position);
      }
    }
    if (best) {
      const found = best as { positions: number[]; size: number };
      const hits = exactHits(index, found.positions, `SDK method name ends with operationId words`, method, limit).map(
        (hit) => ({ ...hit, matched: `operationId ${hit.operationId} (SDK method name)` }),
      );
      if (hits.length) return { query, kind: 'operationId', hits, suggestions: [] };
    }
  }
  return undefined;
}

/** The segments of a concrete path, lower case; a segment with `%` escapes may decode to anything: `undefined`. */
function pathValues(path: string): Array<string | undefined> {
  return path
    .split('/')
    .slice(1)
    .map((segment) => (segment.includes('%') ? undefined : segment.toLowerCase()));
}

function routeFits(route: SearchIndex['routes'][number], values: Array<string | undefined>): boolean {
  if (route.multiAt >= 0) {
    // Literals before the spanning parameter line up from the start, those after it from the end.
    const after = route.segments.length - route.multiAt - 1;
    if (values.length < route.segments.length - 1) return false;
    for (let i = 0; i < route.multiAt; i++)
      if (route.segments[i] !== undefined && values[i] !== undefined && route.segments[i] !== values[i]) return false;
    for (let i = 1; i <= after; i++) {
      const literal = route.segments[route.segments.length - i];
      const value = values[values.length - i];
      if (literal !== undefined && value !== undefined && literal !== value) return false;
    }
    return true;
  }
  for (let i = 0; i < values.length; i++) {
    const literal = route.segments[i];
    const value = values[i];
    if (literal !== undefined && value !== undefined && literal !== value) return false;
  }
  return true;
}

/**
 * Whether some template could match `path` (as given, with a base path of the document stripped,
 * or with its trailing slash toggled): a cheap, generous test, so the matcher (which ranks every
 * template when it misses) runs only where it may hit. Multi-segment parameters (`x-multi-segment`)
 * may span one or more segments.
 */
function mightMatch(index: SearchIndex, path: string): boolean {
  if (path === '/' || path === '') return true;
  const values = pathValues(path);
  const readings: Array<Array<string | undefined>> = [];
  for (const prefix of index.basePrefixes) {
    if (prefix.length > values.length) break;
    if (prefix.some((segment, i) => segment !== undefined && values[i] !== undefined && segment !== values[i]))
      continue;
    const rest = values.slice(prefix.length);
    readings.push(rest);
    readings.push(rest[rest.length - 1] === '' ? rest.slice(0, -1) : [...rest, '']);
  }
  for (const reading of readings) {
    if (reading.length === 0) return true;
    const first = reading[0];
    const starts =
      first === undefined
        ? [...index.routesByStart.entries()]
            .filter(([key]) => key.startsWith(`${reading.length} `))
            .map(([, list]) => list)
        : [index.routesByStart.get(`${reading.length} ${first}`), index.routesByStart.get(`${reading.length} *`)];
    for (const list of starts) if (list?.some((number) => routeFits(index.routes[number]!, reading))) return true;
    if (index.multiRoutes.some((number) => routeFits(index.routes[number]!, reading))) return true;
  }
  return false;
}

// Templates scored for the closest ones to a missed path, at most.
const NEAREST_BUDGET = 3000;

/**
 * Up to 3 `METHOD /template` closest to a path no template matches: most literal segments in the same
 * place (2 each) and parameters in the same place (1 each), lined up from the start or from the end
 * (whichever gives more: `/repositories/42/git/blobs/x` meets `/repos/{owner}/{repo}/git/blobs/{file_sha}`
 * from the end), less one per segment of length difference, half a point for the asked method;
 * only templates that share a literal segment with the path (else those within one segment of its
 * length) are scored, at most 3,000 of them. Work: one pass, no sort of the whole document.
 */
function nearestTemplates(index: SearchIndex, path: string, method: string): string[] {
  const values = pathValues(path);
  const lists: number[][] = [];
  for (const value of new Set(values)) {
    const list = value ? index.routesByLiteral.get(value) : undefined;
    if (list) lists.push(list);
  }
  if (lists.length === 0) {
    // No literal in common: templates of the same length, then one segment shorter or longer.
    for (const delta of [0, -1, 1]) {
      for (const [key, list] of index.routesByStart)
        if (Number(key.slice(0, key.indexOf(' '))) - values.length === delta) lists.push(list);
    }
  }
  let budget = NEAREST_BUDGET;
  const seen = new Uint8Array(index.routes.length);
  const best: Array<{ number: number; score: number }> = [];
  for (const list of lists) {
    for (const number of list) {
      if (seen[number]) continue;
      if (budget-- <= 0) break;
      seen[number] = 1;
      const route = index.routes[number]!;
      const shared = Math.min(values.length, route.segments.length);
      let head = 0;
      let tail = 0;
      for (let i = 0; i < shared; i++) {
        const fromStart = route.segments[i];
        head += fromStart === undefined ? 1 : fromStart === values[i] ? 2 : 0;
        const fromEnd = route.segments[route.segments.length - 1 - i];
        tail += fromEnd === undefined ? 1 : fromEnd === values[values.length - 1 - i] ? 2 : 0;
      }
      const score =
        Math.max(head, tail) -
        Math.abs(route.segments.length - values.length) +
        (route.methods.includes(method) ? 0.5 : 0);
      if (best.length === 3 && (score < best[2]!.score || (score === best[2]!.score && number > best[2]!.number)))
        continue;
      best.push({ number, score });
      best.sort((a, b) => b.score - a.score || a.number - b.number);
      if (best.length > 3) best.pop();
    }
  }
  return best.map(({ number }) => {
    const route = index.routes[number]!;
    return `${route.methods.includes(method) ? method : route.methods[0]} ${route.template}`;
  });
}

/**
 * An SDK method name (`Class::verbNoun()`, `client.noun.verb`, `$api->verbNoun`) read as words without
 * its receiver, the first member (`SpotifyWebAPI::changeMyDevice()` -> `changeMyDevice`,
 * `octokit.rest.issues.addLabels` -> `rest issues addLabels`): the class or client names the API, not
 * the operation. `undefined` when the query is not one identifier path of two members or more.
 */
function sdkMemberWords(query: string): string | undefined {
  const trimmed = withoutArguments(query.trim());
  if (trimmed.length > 200 || !/^[A-Za-z_$][\w$]*((::|\.|->|#)[A-Za-z_$][\w$]*)+$/.test(trimmed)) return undefined;
  return trimmed
    .split(/::|\.|->|#/)
    .slice(1)
    .join(' ');
}

// The score of a path matched only with its format suffix added or dropped: below an exact match's 1.
const SUFFIX_SCORE = 0.9;
// A format suffix of a last segment (`.json`, `.xml`): a letter, then up to 9 letters or digits.
const FORMAT_SUFFIX = /^(.+)\.([A-Za-z][A-Za-z0-9]{0,9})$/;
// Suffixes fewer templates end in than this are names (`/rate_limit.v2`), not the document's format suffix.
const SUFFIX_TEMPLATES = 2;

/** The keys of `counts` counted `least` times or more, most counted first (ties in code-unit order), at most `limit`. */
function mostUsed(counts: Map<string, number>, least: number, limit: number): string[] {
  return [...counts]
    .filter(([, n]) => n >= least)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([key]) => key);
}

const suffixes = new WeakMap<SearchIndex, string[]>();

/** The format suffixes the document's templates end in (`{id}.json`, `Accounts.json`), most used first, at most 3. */
function documentSuffixes(index: SearchIndex): string[] {
  let list = suffixes.get(index);
  if (list) return list;
  const counts = new Map<string, number>();
  for (const template of index.templates) {
    const last = template.slice(template.lastIndexOf('/') + 1);
    const suffix = FORMAT_SUFFIX.exec(last)?.[2];
    if (suffix && !suffix.includes('}')) counts.set(suffix, (counts.get(suffix) ?? 0) + 1);
  }
  list = mostUsed(counts, SUFFIX_TEMPLATES, 3);
  suffixes.set(index, list);
  return list;
}

/**
 * A path with its last segment's format suffix toggled, the way a client pastes it: a Rails-style API's templates
 * end in `.json` (`/t/{id}.json`) but its calls are written without it (`/t/123`), or a path carries a suffix the
 * template lacks or another one. A last segment without a suffix gets each of the document's (`documentSuffixes`); one
 * with a suffix loses it, else takes each of the document's instead. A trailing slash is dropped first; a shell variable as the last segment is left alone.
 */
function suffixVariants(index: SearchIndex, path: string): Array<{ path: string; how: string }> {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const cut = trimmed.lastIndexOf('/');
  const head = trimmed.slice(0, cut + 1);
  const last = trimmed.slice(cut + 1);
  if (!last || last.includes('\u0000')) return [];
  const own = FORMAT_SUFFIX.exec(last);
  if (own)
    return [
      { path: head + own[1], how: `without its .${own[2]} suffix` },
      ...documentSuffixes(index)
        .filter((suffix) => suffix !== own[2])
        .map((suffix) => ({ path: `${head}${own[1]}.${suffix}`, how: `with .${suffix} for its .${own[2]} suffix` })),
    ];
  return documentSuffixes(index).map((suffix) => ({
    path: `${head}${last}.${suffix}`,
    how: `with the document's .${suffix} suffix added`,
  }));
}

// An API version as a path segment: `v2`, `v1.1`, `2`, `1.0`, `v1beta1`, or `latest` (Jira's `/rest/api/latest/`).
// Numbers of more than two digits before a dot are ids, not versions.
const VERSION_SEGMENT = /^(?:v\d{1,3}(?:\.\d{1,3}){0,2}(?:(?:alpha|beta)\d{0,3})?|\d{1,2}(?:\.\d{1,3}){0,2}|latest)$/i;
// Versions of the document tried for one of the path, at most; and version segments of the path tried, at most.
const VERSIONS_TRIED = 4;

const versions = new WeakMap<SearchIndex, string[]>();

/**
 * The version segments the document's templates hold as literals (`/rest/api/3/...`, `/v1/...`) and its server URLs'
 * paths (`/v2`), most used first, at most `VERSIONS_TRIED`.
 */
function documentVersions(index: SearchIndex): string[] {
  let list = versions.get(index);
  if (list) return list;
  const counts = new Map<string, number>();
  const count = (segment: string | undefined, uses: number) => {
    if (segment !== undefined && segment !== 'latest' && VERSION_SEGMENT.test(segment))
      counts.set(segment, (counts.get(segment) ?? 0) + uses);
  };
  for (const route of index.routes) for (const segment of new Set(route.segments)) count(segment, route.methods.length);
  // A version in a server URL's path (`https://api.example.com/v2`) stands before every template.
  for (const prefix of index.basePrefixes) for (const segment of prefix) count(segment, index.entries.length);
  list = mostUsed(counts, 1, VERSIONS_TRIED);
  versions.set(index, list);
  return list;
}

/**
 * A path with a version segment the document does not use replaced by each version segment it does, the way a URL of
 * another version's docs is pasted (`/rest/api/2/issue/10001` or `/rest/api/latest/...` on a document of
 * `/rest/api/3/...`): the same resource under the version the document describes. Only the first `VERSIONS_TRIED`
 * segments that read as versions are tried.
 */
function versionVariants(index: SearchIndex, path: string): Array<{ path: string; how: string }> {
  const own = documentVersions(index);
  if (own.length === 0) return [];
  const segments = path.split('/');
  const variants: Array<{ path: string; how: string }> = [];
  let tried = 0;
  for (let i = 1; i < segments.length && tried < VERSIONS_TRIED; i++) {
    const segment = segments[i]!;
    if (!VERSION_SEGMENT.test(segment) || own.includes(segment.toLowerCase())) continue;
    tried++;
    for (const version of own) {
      const changed = [...segments];
      changed[i] = version;
      variants.push({ path: changed.join('/'), how: `with the document's version ${version} for ${segment}` });
    }
  }
  return variants;
}

/** A path-shaped query through the path matcher; misses become suggestions and low-confidence hits. */
function findByPath(
  loaded: LoadedDocument,
  index: SearchIndex,
  query: string,
  shape: PathQuery,
  method: string | undefined,
  limit: number,
): OperationSearch {
  const wanted = method ?? shape.method;
  const shown = shape.path.replace(/\u0000/g, '{…}');
  if (shape.wildcards === 0 && index.templates.has(shape.path)) {
    const positions = index.entries.flatMap((entry, position) =>
      entry.operation.pathTemplate === shape.path ? [position] : [],
    );
    const hits = exactHits(index, positions, `path template ${shape.path}`, wanted, limit);
    if (hits.length) return { query, kind: 'path', hits, suggestions: [] };
  }
  // The answer for a path that matched `found`: with no method asked for, the template's GET first (if it has one),
  // then its other methods; `said` follows the template in each hit's reason.
  const pathAnswer = (found: Operation, said: string, score: number): OperationSearch => {
    const positions = [positionOf(index, found)];
    if (!wanted)
      index.entries.forEach(
        (entry, position) =>
          entry.operation.pathTemplate === found.pathTemplate && entry.operation !== found && positions.push(position),
      );
    const hits = positions
      .slice(0, limit)
      .map((position) => hitOf(index, position, `path ${shown} matches ${found.pathTemplate}${said}`, score, 'high'));
    return { query, kind: 'path', hits, suggestions: [] };
  };
  let methodMiss: { nearest: string[]; note?: string } | undefined;
  let nearest: string[] = [];
  const expansions = expandWildcards(shape.path, shape.wildcards);
  // Each miss of the matcher ranks every template, so only segment counts some template has are tried.
  const fitting = expansions.filter((candidate, i) => i === 0 || index.segmentCounts.has(candidate.split('/').length));
  for (const candidate of fitting) {
    if (!mightMatch(index, candidate)) continue;
    // No method asked for: the most specific template, whatever its methods (a path with no method names the
    // template: `/volumes/1/actions/attach` is `POST .../actions/attach`, not `GET .../actions/{action_id}`).
    const match = matchOperation(loaded, wanted ?? '*', candidate);
    if (match.operation) {
      const how = shape.wildcards ? ` (shell variables as segments)` : '';
      return pathAnswer(match.operation, `${how}${match.note ? `; ${match.note}` : ''}`, 1);
    }
    if (match.note && !methodMiss) methodMiss = { nearest: match.nearest, note: match.note };
    if (!nearest.length) nearest = match.nearest;
  }
  // The last segment with the document's format suffix added, or without its own (`/t/123` for `/t/{id}.json`):
  // tried only when the path as written matches no operation, so an exact match always ranks first.
  // Then a version segment the document does not use for one it does (`/rest/api/2/...` for `/rest/api/3/...`).
  for (const { path: variant, how } of [...suffixVariants(index, shape.path), ...versionVariants(index, shape.path)]) {
    for (const candidate of expandWildcards(variant, shape.wildcards)) {
      if (!mightMatch(index, candidate)) continue;
      const match = matchOperation(loaded, wanted ?? '*', candidate);
      if (match.operation)
        return pathAnswer(match.operation, ` ${how}${match.note ? `; ${match.note}` : ''}`, SUFFIX_SCORE);
    }
  }
  if (methodMiss) {
    if (!wanted) {
      // No method asked for: every method the path documents is an answer.
      const positions = methodMiss.nearest.map((key) =>
        index.entries.findIndex((entry) => operationKey(entry.operation) === key),
      );
      const hits = positions
        .filter((p) => p >= 0)
        .slice(0, limit)
        .map((position) =>
          hitOf(index, position, `path ${shown} matches ${index.entries[position]!.operation.pathTemplate}`, 1, 'high'),
        );
      return { query, kind: 'path', hits, suggestions: [] };
    }
    return {
      query,
      kind: 'path',
      hits: [],
      suggestions: methodMiss.nearest,
      note: `No ${wanted} operation: ${methodMiss.note}.`,
    };
  }
  // Singular/plural of one literal segment.
  const suggestions: string[] = [];
  const segments = shape.path.split('/');
  for (let i = 1; i < segments.length && suggestions.length < 3; i++) {
    const segment = segments[i]!;
    if (!/^[a-z][a-z_-]*$/i.test(segment)) continue;
    // Only spellings some template uses: each matcher call on a miss also ranks every template.
    for (const variant of pluralToggles(segment).filter((candidate) => index.literalSegments.has(candidate))) {
      const changed = [...segments];
      changed[i] = variant;
      const tried = changed.join('/');
      for (const candidate of expandWildcards(tried, shape.wildcards)) {
        if (!mightMatch(index, candidate)) continue;
        const match = matchOperation(loaded, wanted ?? '*', candidate);
        if (match.operation) {
          suggestions.push(
            `${tried.replace(/\u0000/g, '{…}')} (${operationKey(match.operation)}): "${variant}" for "${segment}"`,
          );
          break;
        }
      }
    }
  }
  // Closest templates: ranked by the path's literal words, then by shared trailing literal segments.
  const literalWords = segments.filter(
    (segment) =>
      segment && segment !== '\u0000' && !/^\{.*\}$/.test(segment) && !/[0-9]/.test(segment) && segment.length < 40,
  );
  const ranked = literalWords.length ? rankText(index, literalWords.join(' '), wanted, 50) : [];
  const tail = (template: string) => {
    const own = template.split('/').filter((s) => s && !s.startsWith('{'));
    let shared = 0;
    while (
      shared < own.length &&
      shared < literalWords.length &&
      own[own.length - 1 - shared] === literalWords[literalWords.length - 1 - shared]
    )
      shared++;
    return shared;
  };
  const top = ranked
    .slice(0, 50)
    .map((item) => ({ item, shared: tail(index.entries[item.position]!.operation.pathTemplate) }));
  top.sort((a, b) => b.shared - a.shared || b.item.score - a.item.score);
  const hits = top
    .slice(0, limit)
    .map(({ item }) =>
      hitOf(
        index,
        item.position,
        `no template matches ${shown}; closest by its segments (${literalWords.join(', ')})`,
        item.score,
        'low',
      ),
    );
  if (!nearest.length) nearest = nearestTemplates(index, expansions[0]!, wanted ?? 'GET');
  for (const key of nearest) if (suggestions.length < 6 && !suggestions.includes(key)) suggestions.push(key);
  return {
    query,
    kind: 'path',
    hits,
    suggestions,
    note: `No ${wanted ?? 'operation'} template matches ${shown}${wanted ? '' : ' (any method)'}.`,
  };
}

// Words that name the channel of an intent, not its operation (issue 16): "merge a PR via the API", "API
// endpoint for organization creation", "Transfer ownership via json api". As content words they ranked an
// operation whose path or summary happens to hold one (Gitea's `GET /settings/api`) above the one asked for.
// `call`, `request` and `route` measured the same with and without (and name resources: Twilio's calls, GitHub's
// pull requests, Hetzner's routes), so they are content words. The words of `info.title` (the product's own
// name: "within NetBox") were tried too: they lowered the unanswerable rows caught on GitHub and NetBox.
const CHANNEL_WORDS = 'api apis endpoint endpoints rest restful json http https'
  .split(' ')
  .map((word) => stemWord(word));
// A channel word that names the literal path segments of this many operations or more is a resource of the API
// (Kubernetes' `/apis`, an `/endpoints` collection), not a channel word, and is kept.
const CHANNEL_RESOURCE_OPERATIONS = 3;

/** The stems free text drops as channel words on a document of these routes: `CHANNEL_WORDS` less the document's resources. */
function channelWords(routes: SearchIndex['routes']): Set<string> {
  const uses = new Map<string, number>();
  for (const route of routes) {
    const own = new Set<string>();
    for (const segment of route.segments) if (segment) for (const term of terms(segment)) own.add(term);
    for (const term of own)
      if (CHANNEL_WORDS.includes(term)) uses.set(term, (uses.get(term) ?? 0) + route.methods.length);
  }
  return new Set(CHANNEL_WORDS.filter((term) => (uses.get(term) ?? 0) < CHANNEL_RESOURCE_OPERATIONS));
}

// An acronym the intent uses for a phrase the document spells out (issue 16): "PR" for pull request, "VMs" for
// virtual machines. Learned per document from adjacent words of the summaries and path segments: the 2- or 3-word
// phrase whose initials spell the word, in at least `ACRONYM_OPERATIONS` operations and in more of them than use the
// word itself (so `ip` of NetBox's ip-addresses, a word of its own, is never expanded).
const ACRONYM_OPERATIONS = 3;

/**
 * The acronyms of a document of these operations, the abbreviations of `learnAbbreviations` applied: lower-case
 * initials -> the phrase's words, as `splitWords` gives them.
 */
function acronymsOf(entries: IndexedOperation[], aliases: Map<string, string>): Map<string, string> {
  const counts = new Map<string, Map<string, { spelled: string; count: number }>>();
  for (const entry of entries) {
    const operation = entry.operation;
    const seen = new Set<string>();
    for (const text of [summaryOf(operation), operation.pathTemplate.replace(/\{[^{}]*\}/g, ' / ')]) {
      for (const part of text.split(/[/.,;:()]+/)) {
        const words = splitWords(part);
        const stems = words.map(stemOf);
        // A phrase of an acronym names a thing: no stop word, verb or number in it.
        const usable = words.map(
          (word, n) => !STOP_WORDS.has(word) && !VERB_METHODS[stems[n]!] && !/^[0-9]/.test(word),
        );
        for (let i = 0; i < words.length; i++) {
          for (let size = 2; size <= 3 && i + size <= words.length && usable[i + size - 1]; size++) {
            if (!usable[i]) break;
            const key = stems.slice(i, i + size).join(' ');
            if (seen.has(key)) continue;
            seen.add(key);
            let initials = '';
            for (let n = i; n < i + size; n++) initials += words[n]![0];
            let row = counts.get(initials);
            if (!row) counts.set(initials, (row = new Map()));
            const known = row.get(key);
            if (known) known.count++;
            else row.set(key, { spelled: words.slice(i, i + size).join(' '), count: 1 });
          }
        }
      }
    }
  }
  // The most frequent phrase of each initials, seen in enough operations.
  const best = new Map<string, { spelled: string; count: number }>();
  for (const [initials, row] of counts) {
    let top: { spelled: string; count: number } | undefined;
    for (const item of row.values())
      if (!top || item.count > top.count || (item.count === top.count && item.spelled < top.spelled)) top = item;
    if (top && top.count >= ACRONYM_OPERATIONS) best.set(aliases.get(initials) ?? initials, top);
  }
  // The operations that use the acronym itself in their summary, operationId or path: one pass over them.
  const own = new Map<string, number>();
  for (const entry of entries)
    for (const term of entry.strong) if (best.has(term)) own.set(term, (own.get(term) ?? 0) + 1);
  const table = new Map<string, string>();
  for (const initials of counts.keys()) {
    const term = aliases.get(initials) ?? initials;
    const top = best.get(term);
    if (top && top.count > (own.get(term) ?? 0)) table.set(initials, top.spelled);
  }
  return table;
}

/**
 * Free text with the document's acronyms (`acronymsOf`) spelled out where the intent writes them in capitals, as
 * acronyms are ("merge a PR" -> "merge a pull request", "Get all VMs"); an HTTP method name is left as it is.
 */
function withAcronymsSpelled(text: string, index: SearchIndex): string {
  if (!/[A-Z]{2}/.test(text)) return text;
  const table = index.acronyms;
  return text.replace(/\b([A-Z]{2,4})s?\b/g, (written, letters: string) =>
    HTTP_METHODS.includes(letters) ? written : (table.get(letters.toLowerCase()) ?? written),
  );
}

/** Free text without its channel words (`channelWords`), unless nothing else of it would be left to rank by. */
function withoutChannelWords(text: string, channel: Set<string>): string {
  const words = splitWords(text);
  const kept = words.filter((word) => !channel.has(stemOf(word)));
  return kept.length < words.length && kept.some((word) => !STOP_WORDS.has(word)) ? kept.join(' ') : text;
}

// Candidates of the second stage, and the weight of the verb's method (chosen on the development set).
const RERANK_CANDIDATES = 20;
const VERB_WEIGHT = 0.2;

/**
 * The second stage over the best `RERANK_CANDIDATES` of `rankText`: `subresourcePrior`, then an operation whose method the
 * intent's verb does not ask for (`verbMethods`) has its score divided by `1 + VERB_WEIGHT` (a re-rank,
 * not a filter); nothing changes when no candidate has the asked method (Stripe updates with POST).
 */
function rerank(index: SearchIndex, text: string, ranked: Ranked[]): Ranked[] {
  ranked = subresourcePrior(index, text, ranked);
  const methods = verbMethods(text);
  if (!methods || !ranked.some((item) => methods.includes(index.entries[item.position]!.operation.method)))
    return ranked;
  return ranked
    .map((item) => ({
      ...item,
      score: methods.includes(index.entries[item.position]!.operation.method)
        ? item.score
        : item.score / (1 + VERB_WEIGHT),
    }))
    .sort((a, b) => b.score - a.score || a.position - b.position);
}

// The share of score an operation loses per literal path segment the query never names (chosen on the six
// development sets: 0.05 raised recall on two and lowered it on none; 0.1 and 0.2 cost GitHub's paraphrases).
const SUBRESOURCE_WEIGHT = 0.05;

/**
 * A prior of the second stage: an operation's score is divided by `1 + SUBRESOURCE_WEIGHT` per literal segment
 * of its path template that no query word (stemmed, or a synonym of one) names. A sub-resource the intent does
 * not mention (`/calls/{sid}/streams` for "make a call") is a narrower operation than the one asked for.
 * @returns The candidates re-sorted, best first.
 */
function subresourcePrior(index: SearchIndex, text: string, ranked: Ranked[]): Ranked[] {
  const asked = new Set<string>();
  for (const word of terms(text).slice(0, MAX_QUERY_WORDS)) {
    const term = index.aliases.get(word) ?? word;
    asked.add(term);
    for (const synonym of synonymsOf(term)) asked.add(synonym);
  }
  return ranked
    .map((item) => {
      const template = index.entries[item.position]!.operation.pathTemplate;
      let unasked = 0;
      for (const segment of template.split('/')) {
        if (!segment || segment.includes('{')) continue;
        const own = terms(segment).map((term) => index.aliases.get(term) ?? term);
        if (own.length && !own.some((term) => asked.has(term))) unasked++;
      }
      return { ...item, score: item.score / (1 + SUBRESOURCE_WEIGHT * unasked) };
    })
    .sort((a, b) => b.score - a.score || a.position - b.position);
}

/** Free text ranked: the SDK receiver, a host, channel words dropped and acronyms spelled out, then BM25F and the re-rank. */
function rankFreeText(
  index: SearchIndex,
  text: string,
  method: string | undefined,
  limit: number,
): { cleaned: string; reranked: Ranked[] } {
  const words = sdkMemberWords(text) ?? text.replace(/https?:\/\/[^/\s]+/gi, ' ');
  const cleaned = withoutChannelWords(withAcronymsSpelled(words, index), index.channel);
  return {
    cleaned,
    reranked: rerank(index, cleaned, rankText(index, cleaned, method, Math.max(limit, RERANK_CANDIDATES))),
  };
}

/**
 * What the low-confidence flag of a free-text answer weighs, for fitting it (eval/flag.ts): the signals of
 * `unanswerable` for the top hit and the chance the model gives. Undefined when `findOperations` would answer the
 * query exactly or as a path, or find no hit.
 */
export function textFlagSignals(
  loaded: LoadedDocument,
  query: string,
):
  | {
      coverage: number;
      strongCoverage: number;
      score: number;
      margin: number;
      verbAgrees: number;
      knownShare: number;
      chance: number;
    }
  | undefined {
  const text = query.slice(0, SEARCH_LIMITS.maxQueryChars);
  const index = indexFor(loaded);
  if (!text.trim() || findExact(index, text, undefined, SEARCH_LIMITS.defaultLimit)) return undefined;
  const shape = readPathQuery(text);
  if (shape && !text.includes('#')) return undefined;
  const { cleaned, reranked } = rankFreeText(index, text, undefined, SEARCH_LIMITS.defaultLimit);
  const top = reranked[0];
  if (!top) return undefined;
  const signals = answerSignals(index, cleaned, reranked);
  return {
    coverage: top.coverage,
    strongCoverage: top.strongCoverage,
    score: top.score,
    margin: signals.margin,
    verbAgrees: signals.verbMethods?.includes(index.entries[top.position]!.operation.method) ? 1 : 0,
    knownShare: signals.knownShare,
    chance: unanswerable(index, top, signals),
  };
}

/**
 * Finds the operations that serve a query (MCP tool `find_operation`; OpenAPI 3.x Paths, Operation
 * and External Documentation Objects).
 * @param query Free text, a concrete path, a path template, a full URL (origin and the document's base
 *   path stripped), a `gh api` line, an operationId, an SDK method name, a docs anchor or docs URL.
 *   Cut at 2,000 characters; free text uses its first 32 distinct words.
 * @param options `method`: keep only this HTTP method; `limit`: hits to return, 1..10, default 3.
 * @returns The hits best first with why each matched, a score and a confidence flag; for a miss, no
 *   hits (or low-confidence ones) and `suggestions` (the path's other methods, a singular/plural
 *   segment, the closest templates). Throws only on a bad `limit` or an empty query (RangeError).
 */
export function findOperations(
  loaded: LoadedDocument,
  query: string,
  options: { method?: string; limit?: number } = {},
): OperationSearch {
  const limit = options.limit ?? SEARCH_LIMITS.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.maxLimit) {
    throw new RangeError(
      `\`limit\` must be an integer from 1 to ${SEARCH_LIMITS.maxLimit}, got ${JSON.stringify(options.limit)}.`,
    );
  }
  const text = query.slice(0, SEARCH_LIMITS.maxQueryChars);
  if (!text.trim())
    throw new RangeError(
      '`query` is empty: give an intent ("list the stargazers of a repo"), a path, an operationId or a docs URL.',
    );
  const method = options.method?.toUpperCase();
  const index = indexFor(loaded);
  const exact = findExact(index, text, method, limit);
  if (exact) return exact;
  const shape = readPathQuery(text);
  // A docs URL or anchor that matched nothing exactly is read as words, not as an API path.
  if (shape && !text.includes('#')) return findByPath(loaded, index, text, shape, method, limit);
  const { cleaned, reranked } = rankFreeText(index, text, method, limit);
  const ranked = reranked.slice(0, limit);
  if (ranked.length === 0) {
    return {
      query: text,
      kind: 'text',
      hits: [],
      suggestions: [],
      note: "No operation shares a word (or a synonym or near-spelling of one) with the query; try the resource's name as the API spells it, or a path.",
    };
  }
  // The top hit decides for the answer: when it is low, so is every hit; below it, each hit by its own signals.
  const signals = answerSignals(index, cleaned, reranked);
  const topLow = unanswerable(index, ranked[0]!, signals) >= ABSTAIN_MODEL.threshold;
  const hits = ranked.map((item) =>
    hitOf(
      index,
      item.position,
      `words: ${item.matchedWords.join(', ')}`,
      item.score,
      topLow || unanswerable(index, item, signals) >= ABSTAIN_MODEL.threshold ? 'low' : 'high',
    ),
  );
  const low = topLow;
  return low
    ? {
        query: text,
        kind: 'text',
        hits,
        suggestions: [],
        note: "Low confidence: the best hit matches few of the query's words, or few in its summary, operationId or path, or barely beats the next; the API may not offer this, or names it differently.",
      }
    : { query: text, kind: 'text', hits, suggestions: [] };
}
