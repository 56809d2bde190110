/**
 * The audit file (`createAudit`, issue 19): append-only JSON lines that survive a restart, rotated by size, and
 * lines that never interleave when many calls finish at once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_FILES_KEPT, createAudit, SILENT } from './log.ts';
import type { AuditRecord } from './log.ts';

/** A record whose line is exactly 100 bytes (the rid pads it). */
function record(index: number): AuditRecord {
  const base = { rid: '', tool: 'probe', index } as unknown as AuditRecord;
  const pad = 100 - 1 - JSON.stringify(base).length;
  return { ...base, rid: String(index).padStart(pad, '0') } as AuditRecord;
}

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'probe-audit-'));
}

describe('the audit file', () => {
  it('rotates before a line would take the file past its size, keeping the newest lines in order', async () => {
    const dir = scratch();
    try {
      const path = join(dir, 'audit.jsonl');
      const audit = createAudit(path, SILENT, undefined, { maxBytes: 250 });
      for (let index = 0; index < 5; index++) await audit.write(record(index));
      const indexes = (file: string) =>
        readFileSync(join(dir, file), 'utf8')
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { index: number }).index);
      assert.deepEqual(
        [readdirSync(dir).sort(), indexes('audit.jsonl.2'), indexes('audit.jsonl.1'), indexes('audit.jsonl')],
        [['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2'], [0, 1], [2, 3], [4]],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`keeps ${AUDIT_FILES_KEPT} rotated files and drops the oldest`, async () => {
    const dir = scratch();
    try {
      const path = join(dir, 'audit.jsonl');
      const audit = createAudit(path, SILENT, undefined, { maxBytes: 100 });
      for (let index = 0; index < 10; index++) await audit.write(record(index));
      const first = (file: string) => (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { index: number }).index;
      assert.deepEqual(
        [
          readdirSync(dir).length,
          first('audit.jsonl'),
          first('audit.jsonl.1'),
          first(`audit.jsonl.${AUDIT_FILES_KEPT}`),
        ],
        [AUDIT_FILES_KEPT + 1, 9, 8, 4],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('appends to the file a previous run left, counting its size toward the rotation', async () => {
    const dir = scratch();
    try {
      const path = join(dir, 'audit.jsonl');
      writeFileSync(path, `${JSON.stringify({ rid: 'earlier' })}\n`);
      const audit = createAudit(path, SILENT, undefined, { maxBytes: 150 });
      await audit.write(record(0));
      await audit.write(record(1));
      assert.deepEqual(
        [readFileSync(`${path}.1`, 'utf8').split('\n')[0], statSync(path).size],
        ['{"rid":"earlier"}', 100],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes 200 records sent at once as 200 whole lines', async () => {
    const dir = scratch();
    try {
      const path = join(dir, 'audit.jsonl');
      const audit = createAudit(path, SILENT, undefined, { maxBytes: 10_000 });
      await Promise.all(Array.from({ length: 200 }, (_, index) => audit.write(record(index))));
      const lines = readdirSync(dir)
        .flatMap((file) => readFileSync(join(dir, file), 'utf8').trim().split('\n'))
        .map((line) => (JSON.parse(line) as { index: number }).index)
        .sort((a, b) => a - b);
      assert.deepEqual(
        lines,
        Array.from({ length: 200 }, (_, index) => index),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
