import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { equalsWrittenNumber, isWrittenInteger, numberProblems } from './numbers.ts';

/** The problems of a number as the JSON text wrote it: parsed as JSON.parse does, its text passed when changed. */
function problemsOf(schema: Record<string, unknown>, text: string): [string, string, string][] {
  const value = JSON.parse(text) as number;
  const changed = String(value) !== text;
  return numberProblems(schema, value, changed ? text : undefined).map((p) => [p.kind, p.keyword, p.message]);
}

const INT64 = { format: 'int64' };
const INT64_RANGE = '-9223372036854775808..9223372036854775807';

describe('numberProblems: int64 and int32 (OAS 3.0.3, 4.4 Data Types)', () => {
  const rows: [string, boolean][] = [
    ['9007199254740991', true],
    ['9007199254740993', true],
    ['9223372036854775807', true],
    ['9223372036854775808', false],
    ['-9223372036854775808', true],
    ['-9223372036854775809', false],
    ['18446744073709551616', false],
    ['9.223372036854775807e18', true],
    ['9.223372036854775808e18', false],
    ['1e400', false],
  ];
  for (const [text, inside] of rows) {
    it(`${inside ? 'accepts' : 'refuses'} ${text} as int64, compared as written`, () => {
      assert.deepStrictEqual(
        problemsOf(INT64, text),
        inside ? [] : [['format', 'int64', `is ${text}, outside the int64 range ${INT64_RANGE}`]],
      );
    });
  }
  it('prints 2^64 in full when the body wrote it so (the double holds it exactly)', () => {
    assert.deepStrictEqual(
      numberProblems(INT64, 2 ** 64).map((p) => p.message),
      [`is 18446744073709551616, outside the int64 range ${INT64_RANGE}`],
    );
  });
  it('refuses 2147483648 and -2147483649 as int32 and accepts both ends', () => {
    assert.deepStrictEqual(
      ['2147483647', '2147483648', '-2147483648', '-2147483649'].map((text) => problemsOf({ format: 'int32' }, text)),
      [
        [],
        [['format', 'int32', 'is 2147483648, outside the int32 range -2147483648..2147483647']],
        [],
        [['format', 'int32', 'is -2147483649, outside the int32 range -2147483648..2147483647']],
      ],
    );
  });
  it('refuses 1.5 as int64 and accepts 1.0 and -0', () => {
    assert.deepStrictEqual(
      [problemsOf(INT64, '1.5'), problemsOf(INT64, '1.0'), problemsOf(INT64, '-0')],
      [[['format', 'int64', 'is 1.5, not an integer as int64 requires']], [], []],
    );
  });
});

describe('numberProblems: bounds', () => {
  it('compares a snowflake id with maximum 9223372036854775807 from its digits, and passes it', () => {
    assert.deepStrictEqual(problemsOf({ minimum: 0, maximum: 9223372036854775807 }, '1234567890123456789'), []);
  });
  it('leaves 2^53 + 1 unchecked against maximum 2^53: the document may have written 9007199254740993, which parses to 2^53 too', () => {
    assert.deepStrictEqual(problemsOf({ maximum: 9007199254740992 }, '9007199254740993'), [
      [
        'notChecked',
        'maximum',
        "was not checked against `maximum`: the document's `maximum` parses to 9007199254740992, which a double cannot tell apart from any number from 9007199254740991.5 to 9007199254740993 (RFC 8259, 6), and 9007199254740993 lies in that range",
      ],
    ]);
  });
  it('accepts 2^53 - 1 at maximum 2^53 - 1 and refuses it at exclusiveMaximum', () => {
    assert.deepStrictEqual(
      [
        problemsOf({ maximum: 9007199254740991 }, '9007199254740991'),
        problemsOf({ exclusiveMaximum: 9007199254740991 }, '9007199254740991'),
      ],
      [[], [['constraint', 'exclusiveMaximum', 'is 9007199254740991, must be less than 9007199254740991']]],
    );
  });
  it('says a document maximum past 2^53 cannot decide a number it cannot tell apart from itself', () => {
    assert.deepStrictEqual(problemsOf({ maximum: 9223372036854775807 }, '9223372036854775807'), [
      [
        'notChecked',
        'maximum',
        "was not checked against `maximum`: the document's `maximum` parses to 9223372036854775808, which a double cannot tell apart from any number from 9223372036854775296 to 9223372036854776832 (RFC 8259, 6), and 9223372036854775807 lies in that range",
      ],
    ]);
  });
  it('finds 2^64 over a document maximum that parses to 2^63, and prints what that maximum stands for', () => {
    assert.deepStrictEqual(problemsOf({ maximum: 9223372036854775807 }, '18446744073709551616'), [
      [
        'constraint',
        'maximum',
        "is 18446744073709551616, more than maximum 9223372036854775808 (the document's number as parsed; it stands for any number from 9223372036854775296 to 9223372036854776832)",
      ],
    ]);
  });
  it('finds -2^63 - 1 under minimum -2^63 (boolean exclusiveMinimum of OAS 3.0 makes -2^63 itself too low)', () => {
    assert.deepStrictEqual(
      [
        problemsOf({ minimum: -9223372036854775808 }, '-9223372036854775809'),
        problemsOf({ minimum: -5, exclusiveMinimum: true }, '-5'),
      ],
      [
        [
          [
            'notChecked',
            'minimum',
            "was not checked against `minimum`: the document's `minimum` parses to -9223372036854775808, which a double cannot tell apart from any number from -9223372036854776832 to -9223372036854775296 (RFC 8259, 6), and -9223372036854775809 lies in that range",
          ],
        ],
        [['constraint', 'exclusiveMinimum', 'is -5, must be greater than -5']],
      ],
    );
  });
  it('finds 1e400 over maximum 1.7976931348623157e308', () => {
    assert.deepStrictEqual(problemsOf({ maximum: Number.MAX_VALUE }, '1e400'), [
      [
        'constraint',
        'maximum',
        "is 1e400, more than maximum about 1.7976931348623157e+308 (the document's number as parsed; it stands for any number from about 1.7976931348623156e+308 to about 1.7976931348623158e+308)",
      ],
    ]);
  });
  it('treats -0 as 0 against minimum 0 and exclusiveMinimum 0', () => {
    assert.deepStrictEqual(
      [problemsOf({ minimum: 0 }, '-0'), problemsOf({ exclusiveMinimum: 0 }, '-0')],
      [[], [['constraint', 'exclusiveMinimum', 'is -0, must be greater than 0']]],
    );
  });
  it('compares 1.0 and 1 as one number', () => {
    assert.deepStrictEqual(
      [problemsOf({ maximum: 1, minimum: 1 }, '1.0'), problemsOf({ exclusiveMaximum: 1 }, '1.0')],
      [[], [['constraint', 'exclusiveMaximum', 'is 1.0, must be less than 1']]],
    );
  });
});

describe('numberProblems: multipleOf (JSON Schema 2020-12 Validation, 6.2.1)', () => {
  it('accepts 0.3 and refuses 0.1 + 0.2 as a double (0.30000000000000004) for multipleOf 0.1, exactly', () => {
    assert.deepStrictEqual(
      [problemsOf({ multipleOf: 0.1 }, '0.3'), problemsOf({ multipleOf: 0.1 }, String(0.1 + 0.2))],
      [[], [['constraint', 'multipleOf', 'is 0.30000000000000004, not a multiple of 0.1']]],
    );
  });
  it('divides big integers as written: 9223372036854775807 is a multiple of 7, 9223372036854775808 is not', () => {
    assert.deepStrictEqual(
      [problemsOf({ multipleOf: 7 }, '9223372036854775807'), problemsOf({ multipleOf: 7 }, '9223372036854775808')],
      [[], [['constraint', 'multipleOf', 'is 9223372036854775808, not a multiple of 7']]],
    );
    assert.deepStrictEqual([BigInt('9223372036854775807') % 7n, BigInt('9223372036854775808') % 7n], [0n, 1n]);
  });
  it('reads 9.223372036854775807e18 as its digits: a multiple of 7', () => {
    assert.deepStrictEqual(problemsOf({ multipleOf: 7 }, '9.223372036854775807e18'), []);
  });
  it('says a multipleOf past 2^53 cannot decide', () => {
    assert.deepStrictEqual(
      problemsOf({ multipleOf: 9223372036854775807 }, '9223372036854775807').map(([kind, keyword]) => [kind, keyword]),
      [['notChecked', 'multipleOf']],
    );
  });
});

describe('equalsWrittenNumber and isWrittenInteger', () => {
  it('compares enum members exactly below 2^53 and is undecided from it on', () => {
    assert.deepStrictEqual(
      [
        equalsWrittenNumber('9007199254740993', 9007199254740992),
        equalsWrittenNumber('1.0', 1),
        equalsWrittenNumber('9223372036854775807', 9223372036854775807),
        equalsWrittenNumber('1234567890123456789', 9223372036854775807),
        equalsWrittenNumber('1', '1'),
      ],
      [undefined, true, undefined, false, false],
    );
  });
  it('reads 1e400 as an integer and 1.5e-400 as none', () => {
    assert.deepStrictEqual([isWrittenInteger('1e400'), isWrittenInteger('1.5e-400')], [true, false]);
  });
});
