/**
 * Every step of the server that needs the OpenAPI document, as a job: plain data in, plain data out
 * (structured-clone safe, remembered bodies as JSON text), so the same functions run in the check
 * worker (check-worker.ts, the server's `main`) and on the calling thread (`inProcessContract`: tests,
 * the CLI). The main thread of the server never parses, bundles or indexes the document, and never
 * runs a schema check, a search, a description or a draft: it sends these jobs (issue 8, "Nothing
 * stalls the server").
 *
 * Each job first makes the document ready (load, bundle, index: `prepare`), then calls `begin()`;
 * the job's deadline runs from there, the load has its own, longer limit (check-worker.ts).
 */
import { analyzeSample, presentSample } from '../contract/sample.ts';
import type { SampleDetail } from '../contract/sample.ts';
import { describeOperation, describeTypeScript } from '../contract/describe.ts';
import { bodyFileContents, draftRequest } from '../contract/draft.ts';
import { findOperation } from '../contract/operation.ts';
import { operationKey } from '../document/model.ts';
import { resolveOperation, summarize } from '../contract/operation.ts';
import type { SampleRecord } from '../contract/sample.ts';
import { findOperations, prepareSearchIndex } from '../contract/search.ts';
import { compareWithFixture } from '../contract/fixture-diff.ts';
import { MAX_BODY_DEPTH, measureJsonText } from '../shared/json-text.ts';
import type { LoadedDocument, Operation } from '../document/model.ts';
import { documentExamples } from '../document/examples.ts';
import type { DocumentSource } from '../document/source.ts';
import { checkProbe, loadDocumentState } from './pipeline.ts';
import { exampleTracker, MAX_ANSWER } from './answers.ts';
import type { ExampleState, ExampleTracker } from './answers.ts';
import { trimSlash } from '../shared/url-path.ts';
import type { CheckedProbe, DocumentState, PipelineContext } from './pipeline.ts';
import type { RawResponse } from '../api/probe.ts';
import type { Selector } from '../api/body-view.ts';

/** Where a probe goes: the whole request path (`/v2/meters/mtr_1`) and the part after the base URL's prefix. */
export type Destination = { requestPath: string; relativePath: string };

/** A remembered body as the jobs receive it: the JSON text the pipeline produced. */
export type RecordText = { path: string; status: number; text: string };

/** A tool's answer from a job: the structured content (isError when set), or a failure text. */
/**
 * A job's answer: structured content, or a failure text. `invalidJson`: the failure is that an argument held as text
 * (a draft's body, a fixture) is not JSON, so the message was not a valid JSON text (JSON-RPC 2.0, 5.1: -32700).
 */
export type JobAnswer =
  { structured: Record<string, unknown>; isError?: boolean } | { failure: string; invalidJson?: true };

/** An operation found for a tool: its key (`GET /meters/{meterId}`) and summary, or a failure text. */
export type Resolved = { key: string; summary: ReturnType<typeof summarize> } | { failure: string };

/**
 * A tool argument the server passed as JSON text (the client's own text of it, not yet parsed: probe-server.ts
 * `heldArguments`), parsed here.
 * @returns `undefined` for no text, `{value}`, or a failure naming the argument and the parser's reason, marked `invalidJson`.
 */
function parseArgument(
  name: string,
  text: string | undefined,
): { value: unknown } | { failure: string; invalidJson: true } | undefined {
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return {
      failure: `\`${name}\` is not valid JSON (${(error as Error).message.slice(0, 200)}); the message was not read.`,
      invalidJson: true,
    };
  }
}

/** The inputs of each job. */
export type JobInputs = {
  probe: { raw: RawResponse; request: { url: string; selector?: Exclude<Selector, { problem: string }> } };
  resolve: { tool: string; operation: string };
  operationKeys: { destinations: Destination[] };
  matchSample: { paths: string[]; destinations: Destination[] };
  analyze: { tool: string; key: string; records: RecordText[]; detail?: SampleDetail };
  describe: {
    operation: string;
    as?: 'text' | 'typescript';
    part?: 'request' | 'responses';
    status?: string;
    depth?: number;
    records?: RecordText[];
  };
  /** `bodyText`: the draft's body as JSON text (a string crosses to the worker as one copy, far cheaper than cloning an object). */
  draft: { method: string; url: string; headers: Record<string, string>; bodyText?: string; queryText?: string };
  find: { query: string; method?: string; limit: number };
  /** `fixtureString`: the fixture was given as a string of JSON text (not JSON: a tool failure, not -32700). */
  compare: { fixtureText: string; text: string; fixtureString?: boolean };
};

/** The outputs of each job. */
export type JobOutputs = {
  probe: CheckedProbe;
  resolve: Resolved;
  operationKeys: (string | null)[];
  matchSample: Resolved;
  analyze: JobAnswer;
  describe: JobAnswer;
  draft: JobAnswer;
  find: JobAnswer;
  compare: JobAnswer;
};

export type JobName = keyof JobInputs;

/** What a job runs with: the pipeline context (configuration, key redactor, document source). */
export type JobContext = PipelineContext;

/** The document, made ready for the jobs: loaded, its path matcher built (the first probe does not pay for it). */
async function prepare(context: JobContext): Promise<DocumentState> {
  const state = await loadDocumentState(context);
  if (state.loaded) warmMatcher(state.loaded);
  return state;
}

const warmed = new WeakSet<LoadedDocument>();

/**
 * Builds the document's path matcher once (openapi-document.ts caches it per loaded document): at the first job,
 * or as soon as the check worker has loaded the document (so a first probe that comes later does not wait for it).
 */
export function warmMatcher(loaded: LoadedDocument): void {
  if (warmed.has(loaded)) return;
  warmed.add(loaded);
  findOperation(loaded, '', '/', '/');
}

function operationByKey(loaded: LoadedDocument, key: string): Operation | undefined {
  return loaded.operations.find((operation) => operationKey(operation) === key);
}

const parsed = (records: RecordText[]): SampleRecord[] =>
  records.map((record) => ({ path: record.path, status: record.status, body: JSON.parse(record.text) }));

/** Most entries each list of a fixture comparison shows (`onlyLive`, `onlyFixture`, `changed`), the first by instance path. */
export const MAX_DIFF_ENTRIES = 200;

/** How to narrow each job whose answer can be large, for the failure past `MAX_ANSWER`. */
const NARROWER: Partial<Record<JobName, string>> = {
  analyze: 'compare fewer or smaller records (probe_sample with fewer paths, or a page size or filter parameter)',
  describe: 'ask for less: `part`, `status` or a lower `depth`',
  draft: 'check a smaller body',
  find: 'ask for fewer hits with a lower `limit`',
  compare: 'compare a smaller part of the record',
};

/**
 * A job's answer, bounded: a `{structured}` answer whose JSON text is longer than `MAX_ANSWER` characters becomes a
 * `{failure}` naming the limit, its size and how to narrow the call. A probe's answer and any other output pass as they are
 * (a probe's body is already cut to PROBE_MAX_BYTES by the pipeline).
 */
export function boundedAnswer<Name extends JobName>(name: Name, output: JobOutputs[Name]): JobOutputs[Name] {
  const narrower = NARROWER[name];
  if (narrower === undefined || output === null || typeof output !== 'object' || !('structured' in output))
    return output;
  const size = JSON.stringify((output as { structured: unknown }).structured).length;
  if (size <= MAX_ANSWER) return output;
  return {
    failure: `Not answered: the answer would be ${size} characters of JSON, more than the limit of ${MAX_ANSWER} (1 MiB) for one answer. Narrow the call: ${narrower}.`,
  } as JobOutputs[Name];
}

type Job<Name extends JobName> = (
  input: JobInputs[Name],
  context: JobContext,
  begin: () => void,
) => Promise<JobOutputs[Name]>;

/**
 * The jobs by name. `begin` marks the end of the preparation (document load, search index): the
 * deadline of a job starts there. None throws on bad input; a failure is a `failure` text.
 */
export const JOBS: { [Name in JobName]: Job<Name> } = {
  async probe(input, context, begin) {
    const state = await prepare(context);
    begin();
    // The document as prepared: not looked up (its file stamped) a second time.
    return checkProbe(input.raw, input.request, context, state);
  },

  async resolve(input, context, begin) {
    const state = await prepare(context);
    begin();
    if (!state.loaded) return { failure: `${input.tool} needs the OpenAPI document. ${state.reason}` };
    const operation = resolveOperation(state.loaded, trimSlash(context.config.baseUrl.pathname), input.operation);
    if (typeof operation === 'string') return { failure: operation };
    return { key: operationKey(operation), summary: summarize(operation) };
  },

  async operationKeys(input, context, begin) {
    const state = await prepare(context);
    begin();
    const loaded = state.loaded;
    if (!loaded) return input.destinations.map(() => null);
    const basePrefix = trimSlash(context.config.baseUrl.pathname);
    return input.destinations.map((destination) => {
      const match = findOperation(loaded, basePrefix, destination.requestPath, destination.relativePath);
      return match.operation ? operationKey(match.operation) : null;
    });
  },

  async matchSample(input, context, begin) {
    const state = await prepare(context);
    begin();
    if (!state.loaded)
      return {
        failure: `probe_sample needs the OpenAPI document to tell which operation the paths belong to; nothing was sent. ${state.reason}`,
      };
    const loaded = state.loaded;
    const basePrefix = trimSlash(context.config.baseUrl.pathname);
    // Every path must name a record of the same operation before anything is sent (one operation per sample).
    const groups = new Map<string, string[]>();
    let operation: Operation | undefined;
    for (const [index, destination] of input.destinations.entries()) {
      const match = findOperation(loaded, basePrefix, destination.requestPath, destination.relativePath);
      if (!match.operation) {
        return {
          failure: `No GET operation in the document matches ${input.paths[index]}${match.nearest.length ? `. Nearest: ${match.nearest.join(', ')}` : ''}; nothing was sent. Give paths of records of one documented GET operation.`,
        };
      }
      operation ??= match.operation;
      const key = operationKey(match.operation);
      groups.set(key, [...(groups.get(key) ?? []), input.paths[index]!]);
    }
    if (groups.size > 1 || !operation) {
      const listed = [...groups].map(([key, members]) => `${key}: ${members.join(', ')}`).join('; ');
      return {
        failure: `The paths belong to ${groups.size} different operations (${listed}); nothing was sent. A sample compares records of one operation: call probe_sample once per operation.`,
      };
    }
    return { key: operationKey(operation), summary: summarize(operation) };
  },

  async analyze(input, context, begin) {
    const state = await prepare(context);
    begin();
    if (!state.loaded) return { failure: `${input.tool} needs the OpenAPI document. ${state.reason}` };
    const operation = operationByKey(state.loaded, input.key);
    if (!operation)
      return {
        failure: `${input.key} is no longer in the OpenAPI document (it was reloaded); find the operation again with find_operation.`,
      };
    return {
      structured: presentSample(
        analyzeSample(state.loaded, operation, parsed(input.records)),
        input.detail ?? 'summary',
      ),
    };
  },

  async describe(input, context, begin) {
    const state = await prepare(context);
    begin();
    if (!state.loaded) return { failure: `describe_operation needs the OpenAPI document. ${state.reason}` };
    const operation = resolveOperation(state.loaded, trimSlash(context.config.baseUrl.pathname), input.operation);
    if (typeof operation === 'string') return { failure: operation };
    const options = { part: input.part, status: input.status, depth: input.depth, clean: context.redact.text };
    const described =
      input.as === 'typescript'
        ? describeTypeScript(
            state.loaded,
            operation,
            options,
            parsed(input.records ?? []).map((record) => ({ status: record.status, body: record.body })),
          )
        : describeOperation(state.loaded, operation, options);
    return typeof described === 'string' ? { failure: described } : { structured: described };
  },

  async draft(input, context, begin) {
    const state = await prepare(context);
    begin();
    if (!state.loaded) return { failure: `draft_request needs the OpenAPI document. ${state.reason}` };
    const { config } = context;
    const body = parseArgument('body', input.bodyText);
    if (body && 'failure' in body) return body;
    const query = parseArgument('query', input.queryText);
    if (query && 'failure' in query) return query;
    const drafted = draftRequest(state.loaded, {
      method: input.method,
      url: new URL(input.url),
      basePrefix: trimSlash(config.baseUrl.pathname),
      baseQuery: [...config.baseUrl.searchParams.keys()],
      headers: input.headers,
      body: body?.value,
      ...(query ? { queryValues: query.value as Record<string, unknown> } : {}),
      keyHeader: config.apiKey ? (config.apiKeyHeader ?? 'Authorization') : undefined,
      clean: context.redact.text,
    });
    const note =
      drafted.request.bodyFile === undefined
        ? 'Not sent. Run `request.curl` yourself after review, with API_KEY set in your shell.'
        : `Not sent. The body (${drafted.request.bodyLength} characters) is not repeated here: save the body you drafted to ${drafted.request.bodyFile} (${bodyFileContents(drafted.request)}), then run \`request.curl\` yourself after review, with API_KEY set in your shell.`;
    return { structured: { ...drafted, note } };
  },

  async find(input, context, begin) {
    const state = await prepare(context);
    if (!state.loaded) {
      begin();
      return { failure: `find_operation needs the OpenAPI document. ${state.reason}` };
    }
    // The search index is built on first use: part of the preparation, under the load limit, not the job deadline.
    await prepareSearchIndex(state.loaded);
    begin();
    return {
      structured: { ...findOperations(state.loaded, input.query, { method: input.method, limit: input.limit }) },
    };
  },

  /**
   * A saved fixture against a remembered live body (both as JSON text), field by field (validate.ts `compareWithFixture`):
   * each list cut to its first `MAX_DIFF_ENTRIES`; when one is cut, `onlyLiveCount`, `onlyFixtureCount`, `changedCount`
   * and a note say how many there are in all. `same` is true when all three are empty. Needs no document.
   */
  async compare(input, _context, begin) {
    begin();
    // A fixture given as a string of JSON text was never measured by the transport: measured here, off the main thread.
    if (input.fixtureString && measureJsonText(input.fixtureText).depth > MAX_BODY_DEPTH) {
      return {
        failure: `\`fixture\` nests deeper than ${MAX_BODY_DEPTH} levels; compare a smaller part of the record.`,
      };
    }
    const fixture = parseArgument('fixture', input.fixtureText)!;
    if ('failure' in fixture) {
      return input.fixtureString
        ? {
            failure:
              '`fixture` is a string that does not parse as JSON; pass the recorded body itself (an object or array).',
          }
        : fixture;
    }
    const diff = compareWithFixture(fixture.value, JSON.parse(input.text));
    // `compareWithFixture` already lists at most its own cap and counts the rest in `more`: the totals add both.
    const counts = {
      onlyLiveCount: diff.onlyLive.length + (diff.more?.onlyLive ?? 0),
      onlyFixtureCount: diff.onlyFixture.length + (diff.more?.onlyFixture ?? 0),
      changedCount: diff.changed.length + (diff.more?.changed ?? 0),
    };
    const cut = Object.values(counts).some((count) => count > MAX_DIFF_ENTRIES);
    return {
      structured: {
        onlyLive: diff.onlyLive.slice(0, MAX_DIFF_ENTRIES),
        onlyFixture: diff.onlyFixture.slice(0, MAX_DIFF_ENTRIES),
        changed: diff.changed.slice(0, MAX_DIFF_ENTRIES),
        same: counts.onlyLiveCount + counts.onlyFixtureCount + counts.changedCount === 0,
        ...(cut
          ? {
              ...counts,
              note: `Each list shows its first ${MAX_DIFF_ENTRIES} entries by instance path; the counts give them all. To see the rest, compare a record with fewer differences (a fixture of the same record closer to what the API sends now).`,
            }
          : {}),
      },
    };
  },
};

/**
 * Runs document jobs somewhere: in the check worker (check-worker.ts `createCheckWorker`, the server's
 * `main`) or on this thread (`inProcessContract`, tests and the CLI).
 */
export type ContractService = {
  /**
   * Runs one job. Never rejects: a job past its deadline, a worker that died or ran out of memory, or a
   * document load past its limit answers a probe unchecked with a note (`uncheckedProbe`), and any
   * other job with `{failure}` naming the budget or the reason.
   */
  run<Name extends JobName>(name: Name, input: JobInputs[Name]): Promise<JobOutputs[Name]>;
  /**
   * The probe job: the body pipeline of one probe (decode, redact, view, judge).
   * @param options.move The caller never reads `raw.held` again: a worker may take its bytes by transfer (leaving
   *   `raw.held` empty) instead of copying them.
   */
  check(raw: RawResponse, request: JobInputs['probe']['request'], options?: { move?: boolean }): Promise<CheckedProbe>;
  /** True once the service can take a job at once. */
  started(): boolean;
  /**
   * Why the document could not be loaded at start-up (`warm`), with the fix, once that is known; `undefined` while it
   * loads, once it loaded, or when no document is configured. Redacted (no key, no credentials of the source's URL).
   */
  documentProblem(): string | undefined;
  /**
   * The example values of the document in effect (`documentExamples`, src/document/examples.ts), for tool descriptions
   * and refusals (issue 17): `loaded` is false while the document is loading or after it failed to load (the texts then
   * quote no example), true once it has loaded (`examples` undefined when it has no GET operation with a path
   * parameter) and when no document is configured (`examples`: the demo document's, `DEMO_EXAMPLES`). A service
   * without it (a test's stand-in) counts as loaded without examples.
   */
  examples?(): ExampleState;
  /** Calls `listener` each time `examples()` changes (a document loaded, or reloaded with other examples). */
  onExamples?(listener: () => void): void;
  /** Starts the worker (and its document load) now rather than at the first job; the server calls it at start-up. */
  warm(): void;
  /** Stops the worker, answering the jobs it holds or waits for; a later job starts a new one. */
  close(): Promise<void>;
  /**
   * Settles once the document cache entry being written (if any) is on disk, or the worker has gone, or `limitMs`
   * (default `CACHE_WRITE_LIMIT_MS`) has passed; the server awaits it before exiting, so a client that starts a server
   * per call still leaves the entry for the next one. Never rejects.
   */
  flush?(limitMs?: number): Promise<void>;
};

/**
 * The jobs run on the calling thread, as the contract functions are called directly: what
 * `createHandler` uses without a `contract` option (tests, the CLI). No deadline; a thrown job
 * rejects (it is a bug, answered -32603 by the dispatch).
 * @param context The configuration, key redactor and document source (if any).
 */
export function inProcessContract(context: JobContext): ContractService {
  const examples = exampleTracker(context.documents !== undefined);
  const documents = context.documents && watchingExamples(examples, context.documents);
  const watched: JobContext = { ...context, documents };
  const run = async <Name extends JobName>(name: Name, input: JobInputs[Name]): Promise<JobOutputs[Name]> =>
    boundedAnswer(name, await (JOBS[name] as Job<Name>)(input, watched, () => {}));
  return {
    run,
    check: (raw, request) => run('probe', { raw, request }),
    started: () => true,
    documentProblem: () => undefined,
    examples: examples.state,
    onExamples: examples.listen,
    warm() {},
    close: async () => {},
  };
}

/**
 * `source`, wrapped so that each newly loaded document sets the examples of `tracker` (`documentExamples`, once per
 * loaded document).
 */
export function watchingExamples(tracker: ExampleTracker, source: DocumentSource): DocumentSource {
  const seen = new WeakSet<LoadedDocument>();
  return {
    ...source,
    async get() {
      const loaded = await source.get();
      if (!seen.has(loaded)) {
        seen.add(loaded);
        tracker.set(documentExamples(loaded));
      }
      return loaded;
    },
  };
}
