import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MEMORY_LIMITS, ProbeLog, sharedBudget } from './memory.ts';

/** `sessions` logs sharing one budget of `maxBytes`, each keeping `bodies` bodies of `cost` bytes on paths of its own. */
function fill(sessions: number, bodies: number, cost: number, maxBytes: number) {
  const shared = sharedBudget(maxBytes);
  const logs = Array.from({ length: sessions }, () => new ProbeLog(MEMORY_LIMITS, shared));
  let most = 0;
  const kept: boolean[] = [];
  logs.forEach((log, session) => {
    for (let body = 0; body < bodies; body++) {
      kept.push(log.add('GET /meters/{meterId}', { path: `/meters/s${session}-b${body}` }, cost));
      most = Math.max(most, shared.usedBytes);
    }
  });
  return { shared, logs, most, kept };
}

describe('ProbeLog with a shared budget (issue 19: session memory counts against a shared budget)', () => {
  it('keeps the sum of 500 sessions of 20 bodies each within the budget, each log counted once', () => {
    const { shared, logs, most } = fill(500, 20, 1000, 100_000);
    const sum = logs.reduce((total, log) => total + log.heldBytes, 0);
    assert.deepEqual([most, shared.usedBytes, sum], [100_000, 100_000, 100_000]);
  });

  it('lets a session that comes last keep its bodies, taken from the sessions holding the most', () => {
    const { logs, kept } = fill(500, 20, 1000, 100_000);
    // 100 bodies fit: the last sessions share them; the latest session keeps its newest body.
    const holding = logs.filter((log) => log.heldBytes > 0).length;
    assert.deepEqual([kept.at(-1), logs.at(-1)!.heldBytes > 0, holding <= 100], [true, true, true]);
  });

  it('gives every byte back when the sessions end, and keeps nothing for an ended one', () => {
    const { shared, logs } = fill(50, 20, 1000, 100_000);
    for (const log of logs) log.clear();
    const afterEnd = logs[0]!.add('GET /meters/{meterId}', { path: '/meters/late' }, 1000);
    assert.deepEqual([shared.usedBytes, shared.logs.size, afterEnd], [0, 0, false]);
  });
});
