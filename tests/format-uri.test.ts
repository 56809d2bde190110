/**
 * The `uri` format's hand-written scan (src/schema/formats.ts) against RFC 3986 itself: the examples of its
 * section 1.1.2, and the grammar of section 3 transcribed rule by rule into one regular expression, which the scan
 * must equal on every string of a seeded set. The expression is the oracle, not the product: tried a branch per
 * character, it made the check of GitHub's responses slower than before issue 15 (bench row "3 check").
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringFormatProblem } from '../src/schema/formats.ts';

// RFC 3986, 2.1 pct-encoded, 2.2 sub-delims, 2.3 unreserved, 3.2 authority, 3.3 pchar, 3.4 query, 3.5 fragment.
const PCT_ENCODED = '%[0-9A-Fa-f]{2}';
const UNRESERVED_SUB = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${PCT_ENCODED})`;
const USERINFO = `(?:[${UNRESERVED_SUB}:]|${PCT_ENCODED})*`;
// 3.2.2 IP-literal = "[" ( IPv6address / IPvFuture ) "]", with IPv6address and ls32 rule by rule.
const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])';
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${DEC_OCTET}(?:\\.${DEC_OCTET}){3})`;
const IPV6_ADDRESS = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|');
const IPV_FUTURE = `[vV][0-9A-Fa-f]+\\.[${UNRESERVED_SUB}:]+`;
const IP_LITERAL = `\\[(?:${IPV6_ADDRESS}|${IPV_FUTURE})\\]`;
const REG_NAME = `(?:[${UNRESERVED_SUB}]|${PCT_ENCODED})*`;
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${REG_NAME})(?::\\d*)?`;
const HIER_PART = `(?://${AUTHORITY}(?:/${PCHAR}*)*|/?(?:${PCHAR}+(?:/${PCHAR}*)*)?)`;
const GRAMMAR = new RegExp(`^[A-Za-z][A-Za-z0-9+.-]*:${HIER_PART}(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`);

/** A seeded linear congruential generator: the same strings on every machine. */
function generator(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

const STARTS = ['http://', 'a:', 'urn:', 'h://', 'x://u@', 'x://[', ''];
const PIECES = [
  'é',
  ':80',
  ':x',
  '@@',
  '[v1.x]',
  ']',
  '[::1]',
  '[1::2:3.4.5.6]',
  '[v1.]',
  '::',
  'a',
  'Z',
  '9',
  '%',
  '%4',
  '%41',
  '%g',
  '/',
  '//',
  ':',
  '@',
  '?',
  '#',
  '[',
  '.',
  '-',
  '~',
  ' ',
  '"',
  '\\',
  '1',
  'http:',
  '{',
  '^',
  'v',
  'F',
];

describe('the uri format (RFC 3986)', () => {
  it('accepts every example URI of RFC 3986, 1.1.2', () => {
    const examples = [
      'ftp://ftp.is.co.za/rfc/rfc1808.txt',
      'http://www.ietf.org/rfc/rfc2396.txt',
      'ldap://[2001:db8::7]/c=GB?objectClass?one',
      'mailto:John.Doe@example.com',
      'news:comp.infosystems.www.servers.unix',
      'tel:+1-816-555-1212',
      'telnet://192.0.2.16:80/',
      'urn:oasis:names:specification:docbook:dtd:xml:4.1.2',
    ];
    assert.deepEqual(
      examples.map((value) => stringFormatProblem('uri', value)),
      examples.map(() => undefined),
    );
  });

  it('refuses a "%" without two hex digits, a port that is not digits and a second "@"', () => {
    assert.deepEqual(
      ['http://a/%4', 'http://a/%g1', 'http://a:8x/', 'http://u@v@host/', 'http://[]/', 'http://a/b%41'].map(
        (value) => stringFormatProblem('uri', value) === undefined,
      ),
      [false, false, false, false, false, true],
    );
  });

  it('takes only an IPv6 address or an IPvFuture between brackets as a host (RFC 3986, 3.2.2)', () => {
    const values = ['http://[x]/', 'http://[::1::2]/', 'http://[v.x]', 'http://[v1.]', 'http://[1.2.3.4]', 'a://[:]'];
    const valid = ['http://[::1]:80', 'http://[v1.x]', 'http://[::ffff:1.2.3.4]/', 'http://[V7.a:b]'];
    assert.deepEqual(
      [...values, ...valid].map((value) => stringFormatProblem('uri', value) === undefined),
      [false, false, false, false, false, false, true, true, true, true],
    );
  });

  it('gives the grammar transcribed from RFC 3986, 3 on 200,000 seeded strings', () => {
    const random = generator(20261202);
    const differing: string[] = [];
    let valid = 0;
    for (let index = 0; index < 200_000; index++) {
      let value = STARTS[Math.floor(random() * STARTS.length)]!;
      const pieces = Math.floor(random() * 10);
      for (let piece = 0; piece < pieces; piece++) value += PIECES[Math.floor(random() * PIECES.length)];
      const expected = GRAMMAR.test(value);
      if (expected) valid++;
      if ((stringFormatProblem('uri', value) === undefined) !== expected) differing.push(value);
    }
    // Both verdicts occur often enough to matter: about a sixth of the strings are URIs.
    assert.deepEqual([differing.slice(0, 5), valid > 20_000, valid < 180_000], [[], true, true]);
  });
});
