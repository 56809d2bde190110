/**
 * The check worker: a `worker_threads` worker that holds the server's only copy of the OpenAPI document
 * and runs every step that needs it (src/jobs/jobs.ts: each probe's body pipeline, operation lookup,
 * field presence, descriptions, drafts, search) with a deadline, so the main thread keeps reading
 * stdin and answering `ping` whatever the API, the agent or the document hold (issue 8, "Nothing
 * stalls the server"). The main thread keeps the transport,
 * dispatch, the URL checks, the fetch and the bytes, session memory (as JSON text) and the logs.
 *
 * One worker, started with the server (`warm`, which begins loading the document at once) or at the
 * first job, takes one job at a time. A job first makes the document ready (load, bundle, index, the
 * search index for `find`) under `DOCUMENT_LOAD_LIMIT_MS`, then runs under the job deadline
 * (`CHECK_DEADLINE_MS`). Past either (or when the worker dies, e.g. out of memory under its
 * `resourceLimits`) the worker is terminated and the job is answered (a probe: the body unchecked with a
 * note; any other job: a failure naming the budget). After a job overran, a fresh worker starts at once
 * (loading the document); after a load past its limit or a worker that died, at the next job.
 *
 * The worker runs worker-thread.ts, recognised there by its `workerData`; in the single-file build, the build's
 * deferred part (src/runtime/deferred.ts), which holds that module, so the main thread never compiles it. Under tsx on
 * Node 20, whose loader hooks do not reach workers, the worker first installs what the parent's `--import` flags name
 * (tsx through its `register()`), then worker-thread.ts.
 */
import type { Worker } from 'node:worker_threads';
import type { DocumentExamples } from '../document/demo-examples.ts';
import { redactorForKeys } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import type { CheckedProbe } from './pipeline.ts';
import { responseHead } from '../api/probe.ts';
import type { RawResponse } from '../api/probe.ts';
import type { Selector } from '../api/body-view.ts';
import type { Config } from '../runtime/config.ts';
import { lazyBuiltin } from '../shared/builtin.ts';
import { deferredWorker } from '../runtime/deferred.ts';
import { exampleTracker, redactedContents, structuredTexts } from './answers.ts';
import type { ContractService, JobContext, JobInputs, JobName, JobOutputs } from './jobs.ts';
import type { Logger, LogValue } from '../runtime/log.ts';

import { WORKER_MEMORY_MB } from '../runtime/config.ts';
import { compileCacheFolder } from '../runtime/compile-cache.ts';
import { DEFAULT_CHECK_TIMEOUT_MS } from '../../validate.ts';
/**
 * Time the worker may spend on one job once the document is ready (a probe: decode, scan, redaction, view, judgement),
 * in ms: above the checks' own clock guard (`DEFAULT_CHECK_TIMEOUT_MS`, ten times what the largest step budget took on
 * a loaded machine), so a check's step budget decides before either clock (issue 15).
 */
export const CHECK_DEADLINE_MS = DEFAULT_CHECK_TIMEOUT_MS + 10_000;

/**
 * Time the worker may spend making the document ready for a job (reading, parsing, bundling and
 * indexing it, again after `OPENAPI_TTL_S`; building the search index), in ms. Microsoft Graph beta
 * (47 MB, 22,361 operations) takes 1 to 4 s on a busy 2-core machine; a load past this limit is
 * taken as stuck: the worker restarts and the job is answered with the reason.
 */
export const DOCUMENT_LOAD_LIMIT_MS = 60000;

/** Longest wait at shutdown for the document cache entry being written, in ms (Graph beta's entry takes about 2 s). */
export const CACHE_WRITE_LIMIT_MS = 5000;

/** Time a new worker may take to start before the jobs waiting for it are answered, in ms. */
const STARTUP_LIMIT_MS = 20000;

/** `node:worker_threads`, loaded when the first worker starts: its load is not on the way to `initialize`. */
const workerThreads = lazyBuiltin('node:worker_threads');

/** Marks the worker's `workerData`, so worker-thread.ts starts the worker loop only there. */
export const ROLE = 'openapi-probe-check-worker';

/** One probe's body for the pipeline: the response as read and the request it answers. */
export type BodyRequest = { url: string; selector?: Exclude<Selector, { problem: string }> };

/** The check worker as the server uses it (see `ContractService`). */
export type BodyChecker = ContractService;

/** The configuration as sent to the worker: `baseUrl` as text (a URL does not survive structured cloning). */
export type SentConfig = Omit<Config, 'baseUrl'> & { baseUrl: string };

/** The head of the start-up load's failure record, which `documentProblem` leaves out. */
export const UNLOADED = 'document not loaded, probes go unchecked: ';

/** A job waiting or running; `move`: a probe's body bytes may be transferred to the worker rather than copied. */
type Job = { name: JobName; input: JobInputs[JobName]; resolve: (output: JobOutputs[JobName]) => void; move?: boolean };

/** What each job does, and what to try when it cannot finish, for the failure text. */
const JOB_WORDS: Record<JobName, { doing: string; advice: string }> = {
  probe: { doing: 'checking the body', advice: 'probe a smaller resource' },
  resolve: {
    doing: 'finding the operation in the document',
    advice: 'name the operation by its operationId or "METHOD /template"',
  },
  operationKeys: { doing: 'matching probes in flight to operations', advice: 'try again' },
  matchSample: { doing: 'matching the paths to operations', advice: 'send fewer or simpler paths' },
  analyze: { doing: 'comparing the remembered records', advice: 'probe fewer or smaller records' },
  describe: { doing: 'describing the operation', advice: 'ask for less: `part`, `status` or a lower `depth`' },
  draft: { doing: 'checking the drafted request', advice: 'check a smaller or simpler body' },
  find: { doing: 'searching the document', advice: 'try a shorter query' },
  compare: { doing: 'comparing the fixture with the live record', advice: 'compare a smaller part of the record' },
};

/**
 * Starts the check worker lazily and returns it as a `ContractService`.
 * @param config The server's configuration; the worker builds its own redactor from `apiKey` (and `options.keys`) and
 *   its own document source from `openapiDoc` and `documentTtlMs` (the only copy in the process).
 * @param options.deadlineMs Time per job once the document is ready, in ms; default `CHECK_DEADLINE_MS`.
 * @param options.loadLimitMs Time to make the document ready for a job, in ms; default `DOCUMENT_LOAD_LIMIT_MS`.
 * @param options.memoryMb The worker's heap limit (`maxOldGenerationSizeMb`), in MiB; default `WORKER_MEMORY_MB`.
 * @param options.logger Records a deadline overrun or a worker failure (`check.worker.error`), the
 *   document load (`document.load.done`, `document.load.error`), and at debug level the worker's start-up
 *   time (`check.worker.start.done`).
 */
export function createCheckWorker(
  config: Config,
  options: {
    deadlineMs?: number;
    loadLimitMs?: number;
    memoryMb?: number;
    logger?: Logger;
    /**
     * More keys to redact beside `config.apiKey` (every tenant's key over HTTP): sent to the worker in its start
     * message, so what it makes is redacted there of every key (`redactorForKeys`) and this thread only guards what it
     * adds.
     */
    keys?: readonly string[];
    /**
     * The redactor of `config.apiKey` and `keys` the caller already built (the entry's); default: one built here.
     * This thread's guard needs no other, so the same keys are not built twice on the way to `initialize`.
     */
    redact?: Redactor;
  } = {},
): BodyChecker {
  const deadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  const loadLimitMs = options.loadLimitMs ?? DOCUMENT_LOAD_LIMIT_MS;
  const memoryMb = options.memoryMb ?? WORKER_MEMORY_MB;
  const keys = [...(options.keys ?? [])];
  const redact = options.redact ?? redactorForKeys([config.apiKey, ...keys]);
  const sent: SentConfig = { ...config, baseUrl: config.baseUrl.href };
  const queue: Job[] = [];
  let worker: Worker | undefined;
  let ready = false;
  let documentProblem: string | undefined;
  const examples = exampleTracker(config.openapiDoc !== undefined);
  let startup: NodeJS.Timeout | undefined;
  let current: { job: Job; timer: NodeJS.Timeout; id: number; preparing: boolean } | undefined;
  let nextId = 0;
  // Whether the worker is writing the document cache entry, and who waits for it to finish (`flush`).
  let writing = false;
  const flushed: (() => void)[] = [];

  const answer = (job: Job, reason: string) => job.resolve(unfinishedJob(job.name, job.input, redact, reason));

  /** The failure text of a job stopped for `why` (a probe keeps the note it always had). */
  const stoppedNote = (job: Job, why: string): string => {
    if (job.name === 'probe')
      return `The body was not shown or checked: the check worker stopped (${why}). The status and size above are what the API sent; try again, or probe a smaller resource.`;
    const words = JOB_WORDS[job.name];
    return `Not answered: the check worker stopped (${why}) while ${words.doing}; it restarts for the next call. Try again, or ${words.advice}.`;
  };

  // Decided at the first start, off the way to `initialize` (it makes a folder).
  let compileCache: ReturnType<typeof compileCacheFolder> | undefined;

  const start = (): Worker => {
    const began = performance.now();
    compileCache ??= compileCacheFolder(config.cacheDir);
    const started = spawnWorker(
      { role: ROLE, config: sent, keys },
      memoryMb,
      'dir' in compileCache ? compileCache.dir : undefined,
    );
    ready = false;
    startup = setTimeout(() => lost(started, `it did not start within ${STARTUP_LIMIT_MS} ms`), STARTUP_LIMIT_MS);
    started.on(
      'message',
      (message: {
        ready?: true;
        examples?: DocumentExamples | null;
        writing?: boolean;
        log?: 'info' | 'error' | 'debug';
        event?: string;
        fields?: Record<string, LogValue>;
        id?: number;
        started?: true;
        output?: JobOutputs[JobName];
        text?: string;
        error?: string;
      }) => {
        if (worker !== started) return;
        if (message.writing !== undefined) {
          writing = message.writing;
          if (!writing) for (const done of flushed.splice(0)) done();
          // A job's answer says a write follows (`writing: true`), so no stdin close after the answer can miss it.
          if (message.id === undefined) return;
        }
        if (message.examples !== undefined) {
          examples.set(message.examples ?? undefined);
          return;
        }
        if (message.ready) {
          clearTimeout(startup);
          ready = true;
          options.logger?.debug('check.worker.start.done', {
            took_ms: Math.round(performance.now() - began),
            compile_cache: compileCache && ('dir' in compileCache ? compileCache.dir : `off: ${compileCache.skipped}`),
          });
          next();
          return;
        }
        if (message.log && message.event) {
          options.logger?.[message.log](message.event, message.fields);
          if (message.event === 'document.load.error')
            documentProblem = String(message.fields?.reason ?? '').replace(UNLOADED, '');
          if (message.event === 'document.load.done') documentProblem = undefined;
          return;
        }
        if (!current || message.id !== current.id) return;
        if (message.started) {
          // The document is ready: the job's own deadline starts now.
          current.preparing = false;
          clearTimeout(current.timer);
          current.timer = overrun(current.id, deadlineMs);
          return;
        }
        const { job, timer } = current;
        clearTimeout(timer);
        current = undefined;
        if (message.output !== undefined) {
          // A structured content comes with its JSON text, made and redacted in the worker: this thread neither
          // serializes nor redacts it again.
          const structured = (message.output as { structured?: object } | null)?.structured;
          if (structured && message.text !== undefined) {
            structuredTexts.set(structured, message.text);
            redactedContents.add(structured);
          }
          job.resolve(message.output);
        } else if (job.name === 'probe')
          answer(
            job,
            `The body was not shown or checked: the check failed (${message.error ?? 'no answer'}). This is a bug in openapi-probe; the status and size above are what the API sent.`,
          );
        else
          answer(
            job,
            `Internal error while ${JOB_WORDS[job.name].doing}: ${message.error ?? 'no answer'}. This is a bug in openapi-probe.`,
          );
        next();
      },
    );
    started.on('error', (error: Error) => lost(started, redact.text(error.message)));
    started.on('exit', (code) => lost(started, `exit code ${code}`));
    return started;
  };

  // A worker that dies (out of memory, a crash) fails only the job it held; one that never started fails the jobs waiting for it.
  const lost = (started: Worker, reason: string) => {
    if (worker !== started) return;
    worker = undefined;
    writing = false;
    for (const done of flushed.splice(0)) done();
    clearTimeout(startup);
    void started.terminate();
    options.logger?.error('check.worker.error', { reason: `check worker stopped: ${reason}` });
    if (current) {
      clearTimeout(current.timer);
      answer(current.job, stoppedNote(current.job, reason));
      current = undefined;
    } else if (!ready) {
      for (const job of queue.splice(0)) answer(job, stoppedNote(job, reason));
    }
    next();
  };

  /** Stops the job `id` when its time is up: the document load's limit while preparing, the deadline after. */
  const overrun = (id: number, ms: number): NodeJS.Timeout =>
    setTimeout(() => {
      if (!current || current.id !== id) return;
      const { job, preparing } = current;
      current = undefined;
      const stopped = worker;
      worker = undefined;
      void stopped?.terminate();
      const limit = preparing ? loadLimitMs : deadlineMs;
      options.logger?.error('check.worker.error', {
        reason: preparing
          ? `document not ready within ${limit} ms; worker restarted`
          : `check budget of ${limit} ms passed; worker restarted`,
      });
      if (preparing) {
        answer(
          job,
          job.name === 'probe'
            ? `The body was not shown or checked: loading the OpenAPI document took longer than its limit of ${limit} ms, so it was stopped. The status and size above are what the API sent; check OPENAPI_DOC (a smaller document loads faster), then try again.`
            : `Not answered: loading the OpenAPI document took longer than its limit of ${limit} ms, so it was stopped. Check OPENAPI_DOC (a smaller document loads faster), then try again.`,
        );
      } else if (job.name === 'probe') {
        const raw = (job.input as JobInputs['probe']).raw;
        answer(
          job,
          `The body (${raw.bytes} bytes) was not shown or checked: decoding and checking it took longer than the check budget of ${limit} ms, so it was stopped. The status and size above are what the API sent; probe a smaller resource (a page size or filter parameter).`,
        );
      } else {
        const words = JOB_WORDS[job.name];
        answer(
          job,
          `Not answered: ${words.doing} took longer than the check budget of ${limit} ms, so it was stopped (the check worker restarts for the next call). Try again, or ${words.advice}.`,
        );
      }
      // A job overran, not the document: a new worker starts loading the document now, so the next call does not
      // wait for the whole load. After a load past its limit (or a worker that died) it starts at the next call only.
      if (!preparing) worker = start();
      next();
    }, ms);

  const next = () => {
    if (current) return;
    if (queue.length === 0) {
      worker?.unref();
      return;
    }
    if (!worker) worker = start();
    worker.ref();
    if (!ready) return;
    const job = queue.shift()!;
    const id = nextId++;
    // First the document load's limit; re-armed with the deadline once the worker says the document is ready.
    current = { job, id, preparing: true, timer: overrun(id, loadLimitMs) };
    // A probe's body bytes move to the worker instead of being copied when the caller will not read them again
    // (an unfinished probe is answered from its status and sizes). Only a buffer the bytes fill exactly is moved.
    const held = job.move && job.name === 'probe' ? (job.input as JobInputs['probe']).raw.held : undefined;
    const movable =
      held !== undefined &&
      held.buffer instanceof ArrayBuffer &&
      held.byteOffset === 0 &&
      held.byteLength === held.buffer.byteLength &&
      held.byteLength > 0;
    worker.postMessage({ id, name: job.name, input: job.input }, movable ? [held.buffer as ArrayBuffer] : []);
  };

  const run = <Name extends JobName>(name: Name, input: JobInputs[Name], move?: boolean): Promise<JobOutputs[Name]> =>
    new Promise<JobOutputs[Name]>((resolve) => {
      queue.push({ name, input, resolve: resolve as (output: JobOutputs[JobName]) => void, move });
      next();
    });

  return {
    run: (name, input) => run(name, input),
    check: (raw: RawResponse, request: BodyRequest, options?: { move?: boolean }): Promise<CheckedProbe> =>
      run('probe', { raw, request }, options?.move),
    started: () => worker !== undefined && ready,
    flush: (limitMs = CACHE_WRITE_LIMIT_MS) =>
      writing && worker
        ? new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, limitMs);
            flushed.push(() => {
              clearTimeout(timer);
              resolve();
            });
          })
        : Promise.resolve(),
    documentProblem: () => documentProblem,
    examples: examples.state,
    onExamples: examples.listen,
    warm() {
      if (!worker) worker = start();
      if (!current && queue.length === 0) worker.unref();
    },
    async close() {
      const stopped = worker;
      worker = undefined;
      clearTimeout(startup);
      const note = (job: Job) =>
        job.name === 'probe'
          ? 'The body was not shown or checked: the server is stopping.'
          : 'Not answered: the server is stopping.';
      if (current) {
        clearTimeout(current.timer);
        answer(current.job, note(current.job));
        current = undefined;
      }
      for (const job of queue.splice(0)) answer(job, note(job));
      await stopped?.terminate();
    },
  };
}

/**
 * A worker running worker-thread.ts (from source) or the single-file build's deferred part (`deferredWorker`). Under
 * tsx (Node 20: a `.ts` module and no type stripping), the worker is a small bootstrap that imports the parent's
 * `--import` modules first, which installs tsx there.
 * @param compileCache A folder for V8's compile cache (`compileCacheFolder`), given to the worker as
 *   `NODE_COMPILE_CACHE` (a worker does not inherit `module.enableCompileCache`, and by the time its code runs, the
 *   module that would call it has been compiled); in the single-file build the deferred part's file is kept there too.
 */
function spawnWorker(
  data: { role: string; config: SentConfig; keys: string[] },
  memoryMb: number,
  compileCache?: string,
): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: memoryMb };
  const env = compileCache === undefined ? {} : { env: { ...process.env, NODE_COMPILE_CACHE: compileCache } };
  const { Worker } = workerThreads();
  const carried = deferredWorker(compileCache);
  if (carried !== undefined) {
    const worker = new Worker(carried.script, { eval: true, workerData: data, resourceLimits, ...env });
    // Its temporary folder goes once the part is loaded (the first message is `ready`) or the worker is gone.
    worker.once('message', carried.done);
    worker.once('exit', carried.done);
    return worker;
  }
  const self = new URL('./worker-thread.ts', import.meta.url);
  const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);
  if (!self.pathname.endsWith('.ts') || stripsTypes)
    return new Worker(self, { workerData: data, resourceLimits, ...env });
  const imports: string[] = [];
  process.execArgv.forEach((argument, index) => {
    const flag = /^--import(?:=(.+))?$/.exec(argument);
    const name = flag ? (flag[1] ?? process.execArgv[index + 1]) : undefined;
    if (name) imports.push(name);
  });
  // `--import tsx` does not install tsx's hooks in a worker; its API's `register()` does (tsx/esm/api).
  const code = `(async () => { for (const name of ${JSON.stringify(imports)}) { if (name === 'tsx') (await import(name + '/esm/api')).register(); else await import(name); } await import(${JSON.stringify(self.href)}); })();`;
  return new Worker(code, { eval: true, workerData: data, resourceLimits, ...env });
}

/**
 * The answer of a job that could not finish (deadline, worker stopped, document load past its limit):
 * the probe unchecked with `reason` as its note, any other job `{failure: reason}`.
 */
export function unfinishedJob<Name extends JobName>(
  name: Name,
  input: JobInputs[Name],
  redact: JobContext['redact'],
  reason: string,
): JobOutputs[Name] {
  if (name === 'probe') return uncheckedProbe((input as JobInputs['probe']).raw, redact, reason) as JobOutputs[Name];
  if (name === 'operationKeys')
    return (input as JobInputs['operationKeys']).destinations.map(() => null) as JobOutputs[Name];
  return { failure: reason } as JobOutputs[Name];
}

/**
 * The answer for a body the pipeline could not finish (the check worker ran past its deadline or
 * failed): status, headers and size as received, `body: null`, `validated: false`, and `note` naming
 * the reason. Cheap: touches no body byte, so it never stalls the thread.
 */
export function uncheckedProbe(raw: RawResponse, redact: Redactor, reason: string): CheckedProbe {
  const structured: Record<string, unknown> = responseHead(raw);
  if (raw.location !== undefined) structured.location = redact.text(raw.location);
  structured.note = reason;
  structured.validated = false;
  structured.validationNote = 'The body was not checked; `note` says why.';
  return { structured: redact.value(structured), isError: raw.status >= 400 };
}
