/**
 * Limits of the server as a whole (issue 8): how many tool calls run at once, how many may
 * wait, and how many requests may go to the API per minute. Plain data and timers; no MCP, no HTTP.
 */

/** How many tool calls may wait for a free slot before further ones are refused (calls, not bytes). */
export const QUEUE_SIZE = 32;

/** A slot held by one running call; `release` frees it (calling it twice frees it once). */
export type Slot = { release(): void };

/** The outcome of asking for a slot: a slot, or the reason none is given. */
export type Admission = { slot: Slot } | { refusal: string };

export type Gate = {
  /**
   * Waits for a free slot (first come, first served). Refuses at once, without waiting, when
   * `QUEUE_SIZE` calls already wait; refuses a waiting call whose `signal` aborts. A call with `ready` gets a slot
   * only while `ready()` is true: a session whose transport cannot take more answers holds its own calls, and the
   * calls of other sessions behind them go first. Never rejects.
   */
  enter(signal?: AbortSignal, ready?: () => boolean): Promise<Admission>;
  /** Hands free slots to waiting calls whose `ready` now says yes (after a session that held its calls releases them). */
  wake(): void;
  /** Stops handing out slots (the transport cannot take more answers yet); waiting calls stay queued. */
  pause(): void;
  /** Hands out slots again after `pause`. */
  resume(): void;
  /** Refuses every waiting call with `reason` and every later `enter`; running calls keep their slots. */
  close(reason: string): void;
  /** Calls running and calls waiting, for logs and tests. */
  load(): { running: number; waiting: number };
};

/**
 * Creates the gate that bounds concurrent tool calls (`PROBE_CONCURRENCY`). Memory held by calls is
 * then bounded by `concurrency` probes' budgets, whatever the number of calls sent: a waiting call
 * holds only its parsed arguments.
 * @param concurrency Calls that may run at once, 1 or more.
 * @param queueSize Calls that may wait; default `QUEUE_SIZE`.
 */
export function createGate(concurrency: number, queueSize = QUEUE_SIZE): Gate {
  let running = 0;
  let paused = false;
  let closed: string | undefined;
  const waiting: { admit(admission: Admission): void; ready?: () => boolean }[] = [];

  const slot = (): Slot => {
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        running--;
        pump();
      },
    };
  };

  const pump = () => {
    while (!paused && running < concurrency && waiting.length) {
      const index = waiting.findIndex((entry) => entry.ready === undefined || entry.ready());
      if (index === -1) return;
      running++;
      waiting.splice(index, 1)[0]!.admit({ slot: slot() });
    }
  };

  return {
    enter(signal, ready) {
      if (closed !== undefined) return Promise.resolve({ refusal: closed });
      if (signal?.aborted)
        return Promise.resolve({ refusal: 'The call was cancelled while it waited for a free slot.' });
      if (!paused && running < concurrency && waiting.length === 0 && (ready === undefined || ready())) {
        running++;
        return Promise.resolve({ slot: slot() });
      }
      if (waiting.length >= queueSize) {
        return Promise.resolve({
          refusal: `Busy: ${running} ${running === 1 ? 'call is' : 'calls are'} running and ${waiting.length} ${waiting.length === 1 ? 'is' : 'are'} waiting, the most this server queues (PROBE_CONCURRENCY=${concurrency}, queue ${queueSize}); nothing was sent. Wait for earlier calls to answer, then try again.`,
        });
      }
      return new Promise<Admission>((resolve) => {
        const entry = {
          ready,
          admit(admission: Admission) {
            signal?.removeEventListener('abort', onAbort);
            resolve(admission);
          },
        };
        const onAbort = () => {
          const index = waiting.indexOf(entry);
          if (index !== -1) waiting.splice(index, 1);
          entry.admit({ refusal: 'The call was cancelled while it waited for a free slot.' });
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(entry);
      });
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      pump();
    },
    wake: () => pump(),
    close(reason) {
      closed = reason;
      for (const entry of waiting.splice(0)) entry.admit({ refusal: reason });
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}

export type RateLimit = {
  /**
   * Counts one request about to be sent, or refuses it: `undefined` when it may go, else the
   * reason with the whole seconds to wait (`PROBE_RATE_PER_MIN`). A refused request is not counted.
   */
  take(): string | undefined;
};

/**
 * Creates a sliding-window limit of `perMinute` requests in any 60 000 ms (MCP 2025-11-25, Tools,
 * Security: servers must rate-limit invocations). Only calls that send a request to the API count.
 * @param perMinute Requests allowed per 60 s window, 1 or more.
 * @param now Clock in ms (tests).
 */
export function createRateLimit(perMinute: number, now: () => number = Date.now): RateLimit {
  const sent: number[] = [];
  return {
    take() {
      const at = now();
      while (sent.length && sent[0]! <= at - 60_000) sent.shift();
      if (sent.length >= perMinute) {
        const seconds = Math.max(1, Math.ceil((sent[0]! + 60_000 - at) / 1000));
        return `Rate limit reached: ${perMinute} ${perMinute === 1 ? 'request' : 'requests'} per minute (PROBE_RATE_PER_MIN); nothing was sent. Try again in ${seconds} s.`;
      }
      sent.push(at);
      return undefined;
    },
  };
}

/** A rate limit per key (`createKeyedRateLimit`): each key has its own window. */
export type KeyedRateLimit = {
  /**
   * Counts one request for `key`, or refuses it: `undefined` when it may go, else the whole seconds until the
   * oldest request of the key's window leaves it (at least 1). A refused request is not counted.
   */
  take(key: string): number | undefined;
  /** Keys with requests in their window, for tests and logs. */
  size(): number;
};

/**
 * Creates a sliding-window limit of `perMinute` requests in any 60 000 ms for each key (issue 19: per verified
 * subject, per tenant, beside the global `createRateLimit`). A key's window is dropped once it is empty, and the
 * windows are swept every 1,024th new key, so memory follows the keys active in the last minute.
 * @param perMinute Requests allowed per key per 60 s window, 1 or more.
 * @param now Clock in ms (tests).
 */
export function createKeyedRateLimit(perMinute: number, now: () => number = Date.now): KeyedRateLimit {
  const windows = new Map<string, number[]>();
  let added = 0;
  const trim = (sent: number[], at: number) => {
    while (sent.length && sent[0]! <= at - 60_000) sent.shift();
  };
  return {
    take(key) {
      const at = now();
      let sent = windows.get(key);
      if (!sent) {
        if (++added % 1024 === 0)
          for (const [other, times] of windows) {
            trim(times, at);
            if (!times.length) windows.delete(other);
          }
        sent = [];
        windows.set(key, sent);
      }
      trim(sent, at);
      if (sent.length >= perMinute) return Math.max(1, Math.ceil((sent[0]! + 60_000 - at) / 1000));
      sent.push(at);
      return undefined;
    },
    size: () => windows.size,
  };
}
