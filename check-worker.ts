/**
 * The check worker: a `worker_threads` worker that runs the body pipeline of each probe
 * (probe-pipeline.ts: decode, JSON scan, redaction, view, judgement) with a deadline, so the main
 * thread keeps reading stdin and answering `ping` whatever the API sends (issue 8, "Nothing stalls
 * the server"). The main thread keeps the transport, dispatch, the fetch and the bytes.
 *
 * One worker, started with the server (`warm`) or at the first probe, takes one body at a time; the deadline runs from the
 * moment the body is handed to the started worker (its start-up has its own limit). Past the deadline (or when the worker dies, e.g. out of memory)
 * the worker is terminated, the probe is answered with the body unchecked and a note naming the
 * budget, and the next probe starts a fresh worker. The worker loads its own copy of the document
 * (same `createDocumentSource`, lazily, at its first body).
 *
 * The worker is this same module: `new Worker(new URL(import.meta.url))`, recognised by its
 * `workerData`. In the single-file build `import.meta.url` is `dist/probe-server.mjs`, so the
 * worker loads that one file. Under tsx on Node 20, whose loader hooks do not reach workers, the
 * worker first installs what the parent's `--import` flags name (tsx through its `register()`), then this file.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createDocumentSource } from './openapi-document.ts';
import type { DocumentSource } from './openapi-document.ts';
import { redactor } from './redaction.ts';
import type { Redactor } from './redaction.ts';
import { checkProbe, uncheckedProbe } from './probe-pipeline.ts';
import type { CheckedProbe, RawResponse } from './probe-pipeline.ts';
import type { Selector } from './body-view.ts';
import type { Config } from './probe-server.ts';
import type { Logger } from './server-log.ts';

/** Time the worker may spend on one body (decode, scan, redaction, view, judgement), in ms. */
export const CHECK_DEADLINE_MS = 5000;

/**
 * While the worker is still starting (0.5 to 1.5 s under tsx on a busy machine), bodies up to this
 * many bytes are checked on the main thread rather than waiting, in bytes. Such a body holds the
 * thread at most the schema check's own budget (validate.ts: 1,000 ms), and only in that window.
 */
export const INLINE_WHILE_STARTING_BYTES = 64 * 1024;

/** Time a new worker may take to load before the bodies waiting for it are answered unchecked, in ms. */
const STARTUP_LIMIT_MS = 20000;

/** Marks the worker's `workerData`, so the module starts the worker loop only there. */
const ROLE = 'openapi-probe-check-worker';

/** One probe's body for the pipeline: the response as read and the request it answers. */
export type BodyRequest = { url: string; selector?: Exclude<Selector, { problem: string }> };

/** Runs the body pipeline of a probe off the main thread. */
export type BodyChecker = {
  /** The pipeline's answer, or the body unchecked with a note when the deadline passed or the worker failed. Never rejects. */
  check(raw: RawResponse, request: BodyRequest): Promise<CheckedProbe>;
  /** True once a worker has started and can take a body at once. */
  started(): boolean;
  /** Starts the worker now (and its document load) rather than at the first body: the server calls it at start-up. */
  warm(): void;
  /** Terminates the worker, answering the bodies it holds or waits for as unchecked; a later `check` starts a new one. */
  close(): Promise<void>;
};

/** The configuration as sent to the worker: `baseUrl` as text (a URL does not survive structured cloning). */
type SentConfig = Omit<Config, 'baseUrl'> & { baseUrl: string };

type Job = { raw: RawResponse; request: BodyRequest; resolve: (checked: CheckedProbe) => void };

/**
 * Starts the check worker lazily and returns its `BodyChecker`.
 * @param config The server's configuration; the worker builds its own redactor from `apiKey` and
 *   its own document source from `openapiDoc` and `documentTtlMs`.
 * @param options.deadlineMs Time per body, in ms; default `CHECK_DEADLINE_MS`.
 * @param options.logger Records a deadline overrun or a worker failure (`check.worker.error`), and
 *   at debug level the worker's start-up time (`check.worker.start.done`).
 */
export function createCheckWorker(config: Config, options: { deadlineMs?: number; logger?: Logger } = {}): BodyChecker {
  const deadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  const redact = redactor(config.apiKey);
  const sent: SentConfig = { ...config, baseUrl: config.baseUrl.href };
  const queue: Job[] = [];
  let worker: Worker | undefined;
  let ready = false;
  let startup: NodeJS.Timeout | undefined;
  let current: { job: Job; timer: NodeJS.Timeout; id: number } | undefined;
  let nextId = 0;

  const unchecked = (job: Job, reason: string) => job.resolve(uncheckedProbe(job.raw, redact, reason));

  const start = (): Worker => {
    const began = performance.now();
    const started = spawnWorker({ role: ROLE, config: sent });
    ready = false;
    startup = setTimeout(() => lost(started, `it did not start within ${STARTUP_LIMIT_MS} ms`), STARTUP_LIMIT_MS);
    started.on('message', (message: { ready?: true; id?: number; checked?: CheckedProbe; error?: string }) => {
      if (worker !== started) return;
      if (message.ready) {
        clearTimeout(startup);
        ready = true;
        options.logger?.debug('check.worker.start.done', { took_ms: Math.round(performance.now() - began) });
        next();
        return;
      }
      if (!current || message.id !== current.id) return;
      const { job, timer } = current;
      clearTimeout(timer);
      current = undefined;
      if (message.checked) job.resolve(message.checked);
      else unchecked(job, `The body was not shown or checked: the check failed (${message.error ?? 'no answer'}). This is a bug in openapi-probe; the status and size above are what the API sent.`);
      next();
    });
    started.on('error', (error: Error) => lost(started, redact.text(error.message)));
    started.on('exit', (code) => lost(started, `exit code ${code}`));
    return started;
  };

  // A worker that dies (out of memory, a crash) fails only the body it held; one that never started fails the bodies waiting for it.
  const lost = (started: Worker, reason: string) => {
    if (worker !== started) return;
    worker = undefined;
    clearTimeout(startup);
    void started.terminate();
    options.logger?.error('check.worker.error', { reason: `check worker stopped: ${reason}` });
    const note = `The body was not shown or checked: the check worker stopped (${reason}). The status and size above are what the API sent; try again, or probe a smaller resource.`;
    if (current) {
      clearTimeout(current.timer);
      unchecked(current.job, note);
      current = undefined;
    } else if (!ready) {
      for (const job of queue.splice(0)) unchecked(job, note);
    }
    next();
  };

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
    const timer = setTimeout(() => {
      if (!current || current.id !== id) return;
      current = undefined;
      const stopped = worker;
      worker = undefined;
      void stopped?.terminate();
      options.logger?.error('check.worker.error', { reason: `check budget of ${deadlineMs} ms passed; worker restarted` });
      unchecked(job, `The body (${job.raw.bytes} bytes) was not shown or checked: decoding and checking it took longer than the check budget of ${deadlineMs} ms, so it was stopped. The status and size above are what the API sent; probe a smaller resource (a page size or filter parameter).`);
      next();
    }, deadlineMs);
    current = { job, timer, id };
    worker.postMessage({ id, raw: job.raw, request: job.request });
  };

  return {
    started: () => worker !== undefined && ready,
    warm() {
      if (!worker) worker = start();
      if (!current && queue.length === 0) worker.unref();
    },
    check(raw, request) {
      return new Promise<CheckedProbe>((resolve) => {
        queue.push({ raw, request, resolve });
        next();
      });
    },
    async close() {
      const stopped = worker;
      worker = undefined;
      clearTimeout(startup);
      const note = 'The body was not shown or checked: the server is stopping.';
      if (current) {
        clearTimeout(current.timer);
        unchecked(current.job, note);
        current = undefined;
      }
      for (const job of queue.splice(0)) unchecked(job, note);
      await stopped?.terminate();
    },
  };
}

/**
 * A worker running this module. Under tsx (Node 20: a `.ts` module and no type stripping), the worker
 * is a small bootstrap that imports the parent's `--import` modules first, which installs tsx there.
 */
function spawnWorker(data: { role: string; config: SentConfig }): Worker {
  const self = new URL(import.meta.url);
  const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);
  if (!self.pathname.endsWith('.ts') || stripsTypes) return new Worker(self, { workerData: data });
  const imports: string[] = [];
  process.execArgv.forEach((argument, index) => {
    const flag = /^--import(?:=(.+))?$/.exec(argument);
    const name = flag ? (flag[1] ?? process.execArgv[index + 1]) : undefined;
    if (name) imports.push(name);
  });
  // `--import tsx` does not install tsx's hooks in a worker; its API's `register()` does (tsx/esm/api).
  const code = `(async () => { for (const name of ${JSON.stringify(imports)}) { if (name === 'tsx') (await import(name + '/esm/api')).register(); else await import(name); } await import(${JSON.stringify(self.href)}); })();`;
  return new Worker(code, { eval: true, workerData: data });
}

/** The worker loop: one `{id, raw, request}` in, one `{id, checked}` (or `{id, error}`) out. */
function runWorker(sent: SentConfig): void {
  const config: Config = { ...sent, baseUrl: new URL(sent.baseUrl) };
  const redact: Redactor = redactor(config.apiKey);
  let documents: DocumentSource | undefined;
  parentPort!.postMessage({ ready: true });
  // Load the document now, beside the main thread's load; a failure is reported by the first check that needs it.
  if (config.openapiDoc) {
    documents = createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs });
    documents.get().catch(() => {});
  }
  parentPort!.on('message', async (message: { id: number; raw: RawResponse; request: BodyRequest }) => {
    try {
      if (config.openapiDoc) documents ??= createDocumentSource(config.openapiDoc, { ttlMs: config.documentTtlMs });
      const checked = await checkProbe(message.raw, message.request, { config, redact, documents });
      parentPort!.postMessage({ id: message.id, checked });
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: redact.text(String((error as Error)?.message ?? error)) });
    }
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) runWorker((workerData as { config: SentConfig }).config);
