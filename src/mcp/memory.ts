/**
 * Session memory: the bodies a session's probes returned, kept (as JSON text) for `field_presence`,
 * `compare_fixture` and `describe_operation`, within fixed limits; and the probes in flight, so a tool can wait for them.
 */
import type { Destination } from '../jobs/jobs.ts';
/**
 * Limits of a session's memory of bodies (issue 8: memory is bounded overall).
 * `maxBytes`: the memory cost of all bodies held, in bytes, as `memoryCost` estimates it; the oldest
 * body goes first past it, and a body costing more is not kept at all. `maxOperations`: operations
 * with bodies kept; the one probed least recently is forgotten past it. `perOperation` and `perPath`:
 * newest bodies kept per operation and concrete paths kept.
 */
export type MemoryLimits = { maxBytes: number; maxOperations: number; perOperation: number; perPath: number };

/** The session memory limits of the server: 32 MiB of estimated body memory, 100 operations, 50 bodies each, 200 paths. */
export const MEMORY_LIMITS: MemoryLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxOperations: 100,
  perOperation: 50,
  perPath: 200,
};

/**
 * Body memory that many sessions' logs count against together (issue 19: "session memory counts against a shared
 * budget"): `usedBytes` is the sum of every log's `heldBytes`, kept at most `maxBytes`; `logs`, the logs holding any.
 * Make one with `sharedBudget`.
 */
export type SharedBudget = {
  maxBytes: number;
  usedBytes: number;
  logs: Set<{ heldBytes: number; dropOldest(): void }>;
};

/** A shared budget of `maxBytes` bytes, nothing held yet. */
export function sharedBudget(maxBytes: number): SharedBudget {
  return { maxBytes, usedBytes: 0, logs: new Set() };
}

/** What the log holds about one kept body: its cost, the operation list it is in (if any), and how many of the two maps hold it. */
type Held = { cost: number; operationKey?: string; holders: number };

/** A probe in flight, as `ProbeLog` tracks it: where it goes, and a promise settled when it has answered. */
type InFlight = Destination & { done: Promise<void> };

/**
 * Per-session memory of probes, bounded by `MemoryLimits` (newest 50 per operation, 200 concrete
 * paths, 100 operations, 32 MiB of estimated memory across all of them, a body held by both maps
 * counted once); and the probes in flight, so `field_presence` can wait for those of the operation it
 * is asked about (issue 6: a `field_presence` sent in the same burst as a probe must not answer
 * "nothing probed yet"). The server keeps each body as `Seen` (its JSON text, src/jobs/pipeline.ts), so the
 * main thread holds strings, never the parsed graphs; `Entry` is whatever is kept, identified by its `path`.
 */
export class ProbeLog<Entry extends { path: string } = { path: string }> {
  byOperation = new Map<string, Entry[]>();
  byPath = new Map<string, Entry>();
  inFlight = new Set<InFlight>();
  /** Every body either map holds, oldest first. */
  held = new Map<Entry, Held>();
  /** Sum of the `cost` of the bodies in `held`, in bytes. */
  heldBytes = 0;
  /** Bodies of each operation dropped to stay within `maxBytes` or `maxOperations`, so tools can say records are missing. */
  dropped = new Map<string, number>();
  /** Complete JSON 2xx bodies too large to keep (`REMEMBER_MAX_BYTES`): size in bytes by path, the newest `perPath`. */
  tooLargeByPath = new Map<string, number>();
  /** How many such bodies each operation had, for the newest `maxOperations` operations. */
  tooLargeByOperation = new Map<string, number>();
  limits: MemoryLimits;
  /** The budget this log shares with others, if any. */
  shared?: SharedBudget;
  /** Set by `clear`: the log keeps nothing more. */
  private cleared = false;

  /**
   * @param limits This log's own limits.
   * @param shared A budget shared with other logs: past its `maxBytes` the log holding the most drops its oldest
   *   body, until the sum is within it (so one session cannot keep the others from keeping anything).
   */
  constructor(limits: MemoryLimits = MEMORY_LIMITS, shared?: SharedBudget) {
    this.limits = limits;
    if (shared) this.shared = shared;
  }

  /** Lets go of every body (its session ended), giving their bytes back to the shared budget; later bodies are not kept. */
  clear(): void {
    this.cleared = true;
    this.count(-this.heldBytes);
    this.shared?.logs.delete(this);
    this.held.clear();
    this.byOperation.clear();
    this.byPath.clear();
  }

  /** Adds `bytes` (negative to take away) to this log's total and to the shared budget's. */
  private count(bytes: number): void {
    this.heldBytes += bytes;
    if (this.shared) this.shared.usedBytes += bytes;
  }

  /** Drops this log's oldest body (the shared budget asks, when this log holds the most). */
  dropOldest(): void {
    const oldest = this.held.keys().next();
    if (!oldest.done) this.evict(oldest.value);
  }

  /** Marks probes to these destinations as in flight; call the returned function once they have all settled. */
  begin(destinations: Destination[]): () => void {
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entries = destinations.map((destination) => ({ ...destination, done }));
    for (const entry of entries) this.inFlight.add(entry);
    return () => {
      for (const entry of entries) this.inFlight.delete(entry);
      finish();
    };
  }

  /**
   * Waits until no probe in flight that `concerns` selects is left, probes started meanwhile included.
   * @param concerns Given the probes in flight, says for each whether to wait for it (it may ask the check
   *   worker which operation each one's destination belongs to).
   * @param timeoutMs Upper bound on the wait, in ms.
   * @param signal Stops the wait early (the call was cancelled).
   * @returns How many selected probes are still in flight when it stops: 0, or more after `timeoutMs` or cancellation.
   */
  async settle(
    concerns: (entries: InFlight[]) => Promise<boolean[]> | boolean[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entries = [...this.inFlight];
      const selected = await concerns(entries);
      const waiting = entries.filter((entry, index) => selected[index] && this.inFlight.has(entry));
      const left = deadline - Date.now();
      if (waiting.length === 0 || left <= 0 || signal?.aborted) return waiting.length;
      let timer: NodeJS.Timeout | undefined;
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
        timer = setTimeout(resolve, left);
        signal?.addEventListener('abort', stop, { once: true });
      });
      await Promise.race([Promise.all(waiting.map((entry) => entry.done)), stopped]);
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Keeps a body, newest last, then drops what the limits no longer allow: the oldest body of its
   * operation or the oldest path past `perOperation`/`perPath`, the least recently probed operation past
   * `maxOperations`, and the oldest bodies anywhere until the total cost is within `maxBytes`.
   * @param operationKey The operation the body belongs to, or undefined when none matched (kept by path only).
   * @param cost The body's `memoryCost`, in bytes; a body costing more than `maxBytes` is not kept.
   * Then, with a shared budget, the oldest bodies of this log go until the sum of all logs is within its `maxBytes`.
   * @returns Whether the body was kept.
   */
  add(operationKey: string | undefined, seen: Entry, cost: number): boolean {
    if (cost > this.limits.maxBytes || this.cleared) return false;
    this.held.set(seen, { cost, operationKey, holders: operationKey ? 2 : 1 });
    this.count(cost);
    if (operationKey) {
      const list = this.byOperation.get(operationKey) ?? [];
      this.byOperation.delete(operationKey); // re-inserted last: the most recently probed operation
      this.byOperation.set(operationKey, list);
      // One record per path: probing the same path again replaces its body, so presence counts records, not probes.
      const again = list.findIndex((entry) => entry.path === seen.path);
      if (again >= 0) this.release(list.splice(again, 1)[0]!);
      list.push(seen);
      if (list.length > this.limits.perOperation) this.release(list.shift()!);
      while (this.byOperation.size > this.limits.maxOperations) {
        const [oldest, bodies] = this.byOperation.entries().next().value!;
        this.byOperation.delete(oldest);
        this.dropped.set(oldest, (this.dropped.get(oldest) ?? 0) + bodies.length);
        for (const body of bodies) this.release(body);
      }
    }
    this.tooLargeByPath.delete(seen.path);
    const previous = this.byPath.get(seen.path);
    this.byPath.delete(seen.path);
    if (previous) this.release(previous);
    this.byPath.set(seen.path, seen);
    if (this.byPath.size > this.limits.perPath) {
      const oldest = this.byPath.values().next().value!;
      this.byPath.delete(oldest.path);
      this.release(oldest);
    }
    while (this.heldBytes > this.limits.maxBytes) this.evict(this.held.keys().next().value!);
    const shared = this.shared;
    if (shared) {
      shared.logs.add(this);
      while (shared.usedBytes > shared.maxBytes) {
        // One pass over the logs per body dropped (one log per session). On a tie another log gives way before this
        // one, the longest-registered first, so the newest session keeps its newest body.
        let most: { heldBytes: number; dropOldest(): void } = this;
        for (const log of shared.logs)
          if (log.heldBytes > most.heldBytes || (log.heldBytes === most.heldBytes && most === this)) most = log;
        if (most.heldBytes === 0) break;
        most.dropOldest();
      }
    }
    return this.held.has(seen);
  }

  /**
   * Notes a complete JSON 2xx body that was not kept because it was too large, so `compare_fixture` and
   * `field_presence` can give that reason. Bounded like the bodies: `perPath` paths, `maxOperations` operations.
   */
  addTooLarge(operationKey: string | undefined, path: string, bytes: number): void {
    this.tooLargeByPath.delete(path);
    this.tooLargeByPath.set(path, bytes);
    if (this.tooLargeByPath.size > this.limits.perPath)
      this.tooLargeByPath.delete(this.tooLargeByPath.keys().next().value!);
    if (operationKey === undefined) return;
    const count = (this.tooLargeByOperation.get(operationKey) ?? 0) + 1;
    this.tooLargeByOperation.delete(operationKey);
    this.tooLargeByOperation.set(operationKey, count);
    if (this.tooLargeByOperation.size > this.limits.maxOperations)
      this.tooLargeByOperation.delete(this.tooLargeByOperation.keys().next().value!);
  }

  /** One of the maps let go of `seen`: forgets it once neither holds it. */
  private release(seen: Entry): void {
    const held = this.held.get(seen);
    if (!held) return;
    held.holders--;
    if (held.holders > 0) return;
    this.held.delete(seen);
    this.count(-held.cost);
  }

  /** Takes `seen` out of both maps (its operation's list and its path), counting it as dropped for its operation. */
  private evict(seen: Entry): void {
    const held = this.held.get(seen)!;
    const key = held.operationKey;
    const list = key === undefined ? undefined : this.byOperation.get(key);
    const index = list ? list.indexOf(seen) : -1;
    if (list && index >= 0) {
      list.splice(index, 1);
      if (list.length === 0) this.byOperation.delete(key!);
      this.dropped.set(key!, (this.dropped.get(key!) ?? 0) + 1);
      this.release(seen);
    }
    if (this.byPath.get(seen.path) === seen) {
      this.byPath.delete(seen.path);
      this.release(seen);
    }
    // Not in either map any more (already released by both): make sure the books balance.
    if (this.held.has(seen)) {
      this.held.delete(seen);
      this.count(-held.cost);
    }
  }
}
