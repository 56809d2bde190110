/**
 * The last redaction pass off the thread that answers ping (issue 18): an answer is redacted once where it is made
 * (`redactedAnswer`, in the check worker for what the worker makes), and the transport's last pass is a guard, one
 * scan, that still never lets a key out: it reads what was added around an answer redacted where made, and scans
 * any other line whole.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encode } from '../src/mcp/wire.ts';
import { redactedAnswer, redactedContents, structuredTexts } from '../src/jobs/answers.ts';
import { redactor } from '../src/redaction/redaction.ts';
import type { Redactor } from '../src/redaction/redaction.ts';
import { result } from '../src/mcp/tool.ts';

const KEY = 'sk-live-0123456789abc';

/** The key redactor, with the length of every text its `text` scans and the number of `message` calls recorded. */
function counted(): { redact: Redactor; scanned: number[]; messages: () => number } {
  const real = redactor(KEY);
  const scanned: number[] = [];
  let messages = 0;
  const redact: Redactor = {
    ...real,
    text: (text) => {
      scanned.push(text.length);
      return real.text(text);
    },
    message: (message) => {
      messages++;
      return real.message(message);
    },
  };
  return { redact, scanned, messages: () => messages };
}

/** A tool call's response of `structured`, its text block the text registered for it. */
function response(id: number, structured: Record<string, unknown>, meta?: unknown): unknown {
  return { jsonrpc: '2.0', id, result: { ...result(structured), ...(meta === undefined ? {} : { _meta: meta }) } };
}

describe('redactedAnswer (the pass where the answer is made)', () => {
  it('catches, in its scan of the text, a key split between a member name and a value, which the value pass misses', () => {
    assert.deepEqual(redactedAnswer({ [KEY.slice(0, 10)]: KEY.slice(10) }, redactor(KEY)), {
      withheld:
        'Not answered: the answer held the API key in a form that could not be cut out of it, so it is withheld. This is a bug in openapi-probe.',
    });
  });

  it('redacts a key in a string and registers the redacted content and its text', () => {
    const made = redactedAnswer({ note: `echo ${KEY} end`, count: 2 }, redactor(KEY));
    assert.ok('structured' in made);
    assert.deepEqual(
      [made.structured, made.text, structuredTexts.get(made.structured), redactedContents.has(made.structured)],
      [
        { note: 'echo [redacted] end', count: 2 },
        '{"note":"echo [redacted] end","count":2}',
        '{"note":"echo [redacted] end","count":2}',
        true,
      ],
    );
  });
});

describe('encode: the last pass as a guard', () => {
  it('scans only what was added around an answer redacted where it was made, and calls no whole redaction', () => {
    const made = redactedAnswer({ body: 'x'.repeat(200_000) }, redactor(KEY));
    assert.ok('structured' in made);
    const { redact, scanned, messages } = counted();
    const message = response(4, made.structured);
    const line = encode(message, redact);
    assert.deepEqual(
      [line.length, scanned, messages()],
      [
        JSON.stringify(message).length,
        [JSON.stringify({ jsonrpc: '2.0', id: 4, result: { content: [], structuredContent: {} } }).length],
        0,
      ],
    );
  });

  it('catches a key in the envelope of an answer redacted where it was made (_meta added on this thread)', () => {
    const made = redactedAnswer({ status: 200 }, redactor(KEY));
    assert.ok('structured' in made);
    const line = encode(response(5, made.structured, { echo: KEY }), redactor(KEY));
    assert.deepEqual(JSON.parse(line).result._meta, { echo: '[redacted]' });
  });

  it('catches a key in a long answer made on this thread, which no pass before it redacted', () => {
    const structured = { body: `${'y'.repeat(100_000)} ${KEY} ${'y'.repeat(100_000)}` };
    const { redact, scanned, messages } = counted();
    const message = response(6, structured);
    const line = encode(message, redact);
    assert.deepEqual(
      [line.includes(KEY), line.includes('[redacted]'), scanned[0], messages()],
      [false, true, JSON.stringify(message).length, 1],
    );
  });
});
