import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareDecimals,
  decimalOfParsed,
  formatDecimal,
  isIntegerDecimal,
  isMultipleOf,
  parseDecimal,
  rangeOfDouble,
  readsExactly,
} from './decimal.ts';

const d = (text: string) => parseDecimal(text)!;

describe('parseDecimal', () => {
  it('reads significant digits and exponent, without leading or trailing zeros', () => {
    assert.deepStrictEqual(['9.223372036854775807e18', '-0.0100', '1e400', '-0', '1.0', '120'].map(parseDecimal), [
      { negative: false, digits: '9223372036854775807', exponent: 0 },
      { negative: true, digits: '1', exponent: -2 },
      { negative: false, digits: '1', exponent: 400 },
      { negative: false, digits: '', exponent: 0 },
      { negative: false, digits: '1', exponent: 0 },
      { negative: false, digits: '12', exponent: 1 },
    ]);
  });
  it('refuses texts that are not JSON numbers', () => {
    assert.deepStrictEqual(['Infinity', 'NaN', '1.', '.5', '01', ' 1', '1e', '123...'].map(parseDecimal), [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('compareDecimals', () => {
  // The oracle for integers is BigInt, an independent exact arithmetic.
  const integers = [
    '9007199254740991',
    '9007199254740992',
    '9007199254740993',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775808',
    '-9223372036854775809',
    '18446744073709551616',
    '0',
    '-1',
  ];
  it('orders big integers as BigInt does', () => {
    for (const a of integers)
      for (const b of integers) {
        const expected = BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
        assert.equal(compareDecimals(d(a), d(b)), expected, `${a} vs ${b}`);
      }
  });
  it('equates 1.0 with 1, -0 with 0, and an exponent form with its digits', () => {
    assert.deepStrictEqual(
      [
        compareDecimals(d('1.0'), d('1')),
        compareDecimals(d('-0'), d('0')),
        compareDecimals(d('9.223372036854775807e18'), d('9223372036854775807')),
        compareDecimals(d('9.223372036854775807e18'), d('9223372036854775808')),
        compareDecimals(d('1e400'), d('1.7976931348623157e308')),
        compareDecimals(d('-1e400'), d('-1e-400')),
        compareDecimals(d('0.1'), d('0.10000000000000000001')),
      ],
      [0, 0, 0, -1, 1, -1, -1],
    );
  });
});

describe('isMultipleOf', () => {
  it('divides decimals exactly: 0.3 by 0.1 is whole, 0.1 + 0.2 as a double is not', () => {
    assert.deepStrictEqual(
      [
        isMultipleOf(d('0.3'), d('0.1')),
        isMultipleOf(d(String(0.1 + 0.2)), d('0.1')),
        isMultipleOf(d('0.0075'), d('0.0001')),
        isMultipleOf(d('0.00751'), d('0.0001')),
        isMultipleOf(d('1e308'), d('0.5')),
        isMultipleOf(d('1e308'), d('0.123456789')),
        isMultipleOf(d('0'), d('7')),
      ],
      [true, false, true, false, true, false, true],
    );
  });
  it('divides big integers as BigInt does', () => {
    const pairs = [
      ['9223372036854775807', '7'],
      ['9223372036854775808', '7'],
      ['9223372036854775808', '1024'],
      ['18446744073709551616', '3'],
      ['1234567890123456789', '3'],
    ];
    assert.deepStrictEqual(
      pairs.map(([a, b]) => isMultipleOf(d(a!), d(b!))),
      pairs.map(([a, b]) => BigInt(a!) % BigInt(b!) === 0n),
    );
  });
  it('takes an exponent as its digits: 9.223372036854775807e18 is a multiple of 7, 1e400 of 2^10', () => {
    assert.deepStrictEqual(
      [isMultipleOf(d('9.223372036854775807e18'), d('7')), isMultipleOf(d('1e400'), d('1024'))],
      [true, true],
    );
  });
});

describe('rangeOfDouble', () => {
  it('reads a double past 2^53 as every number within half a step of it', () => {
    const show = (value: number) => {
      const range = rangeOfDouble(value)!;
      return [formatDecimal(range.value), formatDecimal(range.low), formatDecimal(range.high), range.exact];
    };
    assert.deepStrictEqual(
      [show(9223372036854775807), show(-(2 ** 63)), show(2 ** 53 + 2), show(2 ** 53), show(0.1)],
      [
        ['9223372036854775808', '9223372036854775296', '9223372036854776832', false],
        ['-9223372036854775808', '-9223372036854776832', '-9223372036854775296', false],
        ['9007199254740994', '9007199254740993', '9007199254740995', false],
        // 9007199254740993 parses to 2^53 too (ties to even).
        ['9007199254740992', '9007199254740991.5', '9007199254740993', false],
        ['0.1', '0.1', '0.1', true],
      ],
    );
  });
  it('has no range for the infinities', () => {
    assert.equal(rangeOfDouble(Infinity), undefined);
  });
});

describe('readsExactly', () => {
  it('tells the numbers JSON.parse changes from those it keeps', () => {
    const texts = [
      '9007199254740993',
      '9007199254740992',
      '18446744073709551616',
      '9223372036854775807',
      '1.0',
      '-0',
      '0.1',
      '0.30000000000000004',
      '0.30000000000000000001',
      '9.223372036854775807e18',
      '1e-400',
    ];
    assert.deepStrictEqual(
      texts.map((text) => readsExactly(text, JSON.parse(text))),
      [false, true, true, false, true, true, true, true, false, false, false],
    );
  });
});

describe('decimalOfParsed and formatDecimal', () => {
  it('writes 2^64 in full and keeps short texts for other doubles', () => {
    assert.deepStrictEqual(
      [2 ** 64, 1e21, 0.1, -0, 5e-324].map((value) => formatDecimal(decimalOfParsed(value)!)),
      ['18446744073709551616', '1000000000000000000000', '0.1', '0', '5e-324'],
    );
  });
  it('knows 1e400 is an integer and 1.5e-400 is not', () => {
    assert.deepStrictEqual([isIntegerDecimal(d('1e400')), isIntegerDecimal(d('1.5e-400'))], [true, false]);
  });
});
