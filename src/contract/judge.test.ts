/**
 * Findings bounded whatever the document holds (issue 18): one finding of each kind per instance path and keyword,
 * repeats counted; the document values each repeats cut by `cutValue`, lists with a count of what was left out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { check } from '../../validate.ts';
import { boundFindings } from './judge.ts';
import { cutValue } from './operation.ts';

const DOCUMENT = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };

describe('boundFindings', () => {
  it('keeps one enum finding per instance path and keyword, counting the others as repeats', () => {
    const schema = { allOf: [{ enum: ['a'] }, { enum: ['b'] }, { enum: ['c'] }], const: 'd' };
    assert.deepEqual(boundFindings(check(DOCUMENT, schema, 'z')), [
      {
        kind: 'enum',
        severity: 'error',
        path: '$',
        schemaPath: '#/const',
        allowed: ['d'],
        message: 'is "z", but the schema requires the constant "d"',
      },
      {
        kind: 'enum',
        severity: 'error',
        path: '$',
        schemaPath: '#/allOf/0/enum',
        allowed: ['a'],
        message: 'is "z", not one of the allowed values ["a"]',
        repeats: 2,
      },
    ]);
  });

  it('cleans each document text before it is cut, so a cut never keeps a prefix of what cleaning replaces', () => {
    const secret = 'sk-live-0123456789abcdef';
    const value = `${'x'.repeat(990)}${secret}${'y'.repeat(5000)}`;
    const [finding] = boundFindings(check(DOCUMENT, { enum: [value] }, 'z'), (text) =>
      text.replaceAll(secret, '[redacted]'),
    );
    assert.deepEqual(finding!.allowed, [`${'x'.repeat(990)}[redacted]… (5000 more characters)`]);
  });
});

describe('cutValue', () => {
  it('cuts a long list inside a value with a count of the items left out', () => {
    assert.deepEqual(
      cutValue(
        Array.from({ length: 10_000 }, (_, index) => index),
        40,
      ),
      [0, 1, 2, 3, '… 9996 more items'],
    );
  });

  it('cuts an object with many members with a count of the members left out, its long names cut', () => {
    const value = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`${'n'.repeat(20)}${index}`, index]));
    assert.deepEqual(cutValue(value, 70), {
      [`${'n'.repeat(20)}0`]: 0,
      [`${'n'.repeat(20)}1`]: 1,
      '…': '998 more members',
    });
  });
});
