import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKED_FORMATS, isCheckedFormat, stringFormatProblem } from './formats.ts';

describe('stringFormatProblem: date-time, date, time (RFC 3339, 5.6-5.8)', () => {
  it('accepts the examples of RFC 3339, 5.8, leap seconds included', () => {
    const examples = [
      '1985-04-12T23:20:50.52Z',
      '1996-12-19T16:39:57-08:00',
      '1990-12-31T23:59:60Z',
      '1990-12-31T15:59:60-08:00',
      '1937-01-01T12:00:27.87+00:20',
    ];
    assert.deepStrictEqual(
      examples.map((value) => stringFormatProblem('date-time', value)),
      examples.map(() => undefined),
    );
  });
  it('allows a leap second only at 23:59 UTC, once the offset is taken off', () => {
    assert.deepStrictEqual(
      ['23:59:60Z', '01:29:60+01:30', '00:29:60-23:30', '23:59:60+01:00', '22:59:60Z'].map((value) =>
        stringFormatProblem('time', value),
      ),
      [
        undefined,
        undefined,
        undefined,
        'RFC 3339 full-time: second 60 (a leap second) falls only at 23:59 UTC',
        'RFC 3339 full-time: second 60 (a leap second) falls only at 23:59 UTC',
      ],
    );
  });
  it('says which part of a date-time is wrong', () => {
    assert.deepStrictEqual(
      ['2021-02-29T00:00:00Z', '1990-12-31T15:59:59-24:00', '1998-12-31T23:58:60Z', '2024-05-01 10:00:00Z'].map(
        (value) => stringFormatProblem('date-time', value),
      ),
      [
        'RFC 3339 date-time: a field is out of range',
        'RFC 3339 date-time: the offset is out of range',
        'RFC 3339 date-time: second 60 (a leap second) falls only at 23:59 UTC',
        'RFC 3339 date-time, e.g. 2024-05-01T10:00:00Z',
      ],
    );
  });
  it('requires a time offset in time and two-digit fields in date', () => {
    assert.deepStrictEqual(
      [stringFormatProblem('time', '12:00:00'), stringFormatProblem('date', '1998-1-20')],
      ['RFC 3339 full-time with an offset, e.g. 10:00:00Z', 'RFC 3339 full-date, e.g. 2024-05-01'],
    );
  });
});

describe('stringFormatProblem: ipv6, email, uri', () => {
  it('reads the IPv6 text forms of RFC 4291, 2.2 and refuses a zone id', () => {
    const valid = ['ABCD:EF01:2345:6789:ABCD:EF01:2345:6789', '2001:DB8::8:800:200C:417A', '::', '::13.1.68.3'];
    assert.deepStrictEqual(
      [...valid, 'fe80::a%eth1', '1::2::3'].map((value) => stringFormatProblem('ipv6', value) === undefined),
      [true, true, true, true, false, false],
    );
  });
  it('takes a dotted quad only as the last 32 bits of an IPv6 address, not before a trailing "::"', () => {
    assert.deepStrictEqual(
      ['1.2.3.4::', '::1.2.3.4'].map((value) => stringFormatProblem('ipv6', value)),
      ['RFC 4291 IPv6 address', undefined],
    );
  });
  it('takes quoted local parts and address literals as mailboxes (RFC 5321, 4.1.2)', () => {
    assert.deepStrictEqual(
      ['"joe bloggs"@example.com', 'joe@[IPv6:::1]', 'joe@[127.0.0.300]', 'te..st@example.com'].map(
        (value) => stringFormatProblem('email', value) === undefined,
      ),
      [true, true, false, false],
    );
  });
  it('refuses a relative reference as a uri (RFC 3986, 4.3)', () => {
    assert.deepStrictEqual(
      ['urn:oasis:names:specification:docbook:dtd:xml:4.1.2', '//example.com/a', 'http:// x.com'].map(
        (value) => stringFormatProblem('uri', value) === undefined,
      ),
      [true, false, false],
    );
  });
});

describe('isCheckedFormat', () => {
  it('names the formats checked and no others', () => {
    assert.deepStrictEqual([...CHECKED_FORMATS, 'hostname', 'duration', 'byte'].map(isCheckedFormat), [
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
