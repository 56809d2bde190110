/**
 * Key forms the redaction does not read, pinned as the documented limits they are (docs/limits.md, issue 18): each
 * test states that the form passes unredacted today, so a change that reads it fails here and the limit is struck
 * from the docs. The oracle for each form is the tool or API that writes it (Uint8Array's JSON, xxd).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { redactor } from '../src/redaction/redaction.ts';

const KEY = 'sk-live-0123456789abcdef';
const BYTES = [...Buffer.from(KEY)];
const redact = redactor(KEY);
/** xxd comes with vim; where it is missing, the dump's test is skipped and says why. */
const XXD_MISSING = spawnSync('xxd', ['-v']).error ? 'xxd is not installed' : false;

/** Whether `value` comes back from the redactor (values and member names) exactly as it went in. */
function unchanged(value: unknown): boolean {
  return JSON.stringify(redact.value(value, true)) === JSON.stringify(value);
}

describe('key forms the redaction does not read (documented limits, issue 18)', () => {
  it('reads a flat JSON array of the bytes, the neighbour the limits are measured against', () => {
    assert.deepEqual(redact.value({ data: BYTES }, true), { data: '[redacted]' });
  });

  it('passes a TypedArray\'s JSON ({"0":115,...}) unredacted', () => {
    const typed = JSON.parse(JSON.stringify(new Uint8Array(Buffer.from(KEY))));
    assert.deepEqual([typed['0'], typed['1'], unchanged({ data: typed })], [115, 107, true]);
  });

  it('passes the bytes split into arrays of 8 unredacted', () => {
    assert.equal(unchanged([BYTES.slice(0, 8), BYTES.slice(8, 16), BYTES.slice(16)]), true);
  });

  it('passes an array of numeric strings unredacted', () => {
    assert.equal(unchanged(BYTES.map(String)), true);
  });

  it('passes nested one-byte arrays unredacted', () => {
    assert.equal(unchanged(BYTES.map((byte) => [byte])), true);
  });

  it(
    "passes an xxd hex dump whose line break cuts the key unredacted, and reads xxd -p's plain hex",
    { skip: XXD_MISSING },
    () => {
      const dump = execFileSync('xxd', [], { input: `prefix: ${KEY} suffix` }).toString();
      const plain = execFileSync('xxd', ['-p'], { input: KEY }).toString();
      assert.deepEqual(
        [dump.split('\n')[0], redact.text(dump) === dump, redact.text(plain)],
        ['00000000: 7072 6566 6978 3a20 736b 2d6c 6976 652d  prefix: sk-live-', true, '[redacted]\n'],
      );
    },
  );
});
