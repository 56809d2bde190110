/**
 * The path and query a probe sends mean the same to every lenient backend (issue 8; attack report
 * B1-B4): decided on every reading (decoded 1-4 times, NFKC and look-alike folds, `;` parameters),
 * never on spellings. Inputs are generated per kind, so new spellings of a kind are covered too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildProbeUrl } from './url-policy.ts';
import { canonicalName, percentDecodeOnce } from './url-policy.ts';

const base = new URL('https://api.example.com/v2?tenant=acme');

function outcome(path: string, query?: unknown): string {
  const decision = buildProbeUrl(base, path, query);
  return 'url' in decision ? decision.url.href : decision.refusal;
}

/** `text` with every character percent-encoded (as UTF-8 bytes), upper or lower case hex. */
function encodeAll(text: string, upper = false): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
    .map((escape) => (upper ? escape.toUpperCase() : escape))
    .join('');
}

/** `text` with only its `%` signs encoded (`%2e` -> `%252e`). */
function encodePercents(text: string): string {
  return text.replace(/%/g, '%25');
}

/** Every way this file spells `text` encoded `levels` times: all characters, only the `%`, or a mix. */
function spellings(text: string, levels: number): string[] {
  let all = [text];
  for (let level = 0; level < levels; level++) {
    all = all.flatMap((spelled) => [
      encodeAll(spelled),
      encodeAll(spelled, true),
      level === 0 ? encodeAll(spelled) : encodePercents(spelled),
    ]);
  }
  return [...new Set(all)];
}

describe('the path on a backend that decodes more than once (issue 8, B1)', () => {
  it('refuses a dot segment encoded two to four times in any spelling of each level', () => {
    const paths = [2, 3, 4].flatMap((levels) =>
      [...spellings('..', levels), ...spellings('.', levels)].map((spelled) => `/${spelled}/admin`),
    );
    const refused = paths.filter((path) => /dot segment percent-encoded (twice|\d times)/.test(outcome(path)));
    assert.deepEqual(refused, paths);
  });

  it('refuses a slash or backslash that a second to fourth decoding creates', () => {
    const paths = [2, 3, 4].flatMap((levels) =>
      [...spellings('/', levels), ...spellings('\\', levels)].map((spelled) => `/..${spelled}admin`),
    );
    const refused = paths.filter(
      (path) =>
        outcome(path) ===
        `\`path\` ${JSON.stringify(path)} holds a percent-encoded "%" that decodes to a slash or backslash (%252f, %255c) on a backend that decodes twice; it is refused. Name the resource directly.`,
    );
    assert.deepEqual(refused, paths);
  });

  it('refuses a dot segment behind a NUL, control character or surrounding space, or spelled %u002e (IIS), at any level', () => {
    const paths = [
      '/..%00/admin',
      '/.%00./admin',
      '/..%09/admin',
      '/..%20/admin',
      '/%2e%2e%2520/admin',
      '/%u002e%u002e/admin',
      '/%25u002E./admin',
      '/..%u002fadmin',
    ];
    const refused = paths.filter((path) => /dot segment/.test(outcome(path)));
    assert.deepEqual(
      [refused, outcome('/..%00/admin')],
      [
        paths,
        '`path` "/..%00/admin" has the segment "..%00", which servers that drop control characters and surrounding spaces (C string ends, Windows) read as a dot segment, which would climb out of the API\'s base path; it is refused. Name the resource directly.',
      ],
    );
  });

  it('refuses a path or added query over 32 KiB, and judges one just under it in well under a second', () => {
    const under = `/${'%25252541'.repeat(3600)}`;
    const began = performance.now();
    const sent = outcome(under);
    const took = performance.now() - began;
    assert.deepEqual(
      [
        sent.startsWith('https://api.example.com/v2/%25252541'),
        took < 1000,
        outcome(`/${'a'.repeat(32 * 1024)}`),
        outcome('/x', { q: 'é'.repeat(6000) }),
      ],
      [
        true,
        true,
        '`path` is 32769 characters long, over the limit of 32768; servers refuse URLs far shorter (414). Ask for less, or page through the resource.',
        "`query` and the path's query come to 36002 characters encoded, over the limit of 32768; servers refuse URLs far shorter (414). Send fewer or shorter parameters.",
      ],
    );
  });

  it('decodes a long run of %uXXXX escapes without overflowing the stack', () => {
    assert.equal(percentDecodeOnce('%u0041'.repeat(200_000))?.length, 200_000);
  });

  it('refuses a segment still encoded after four decodings, naming the limit', () => {
    const path = `/${encodePercents(encodePercents(encodePercents(encodePercents('%41'))))}`;
    assert.deepEqual(
      outcome(path),
      `\`path\` "/%2525252541" has the segment "%2525252541", still percent-encoded after 4 decodings; no backend needs that and some read the result as a dot segment or separator, so it is refused. Percent-encode data once.`,
    );
  });

  it('sends a once-encoded slash, a "%" not followed by two hex digits and unicode names unchanged', () => {
    assert.deepEqual(
      ['/files/a%2Fb', '/a%zz', '/users/zo%C3%AB', '/v/1.2...', '/x/…'].map((path) => outcome(path)),
      [
        'https://api.example.com/v2/files/a%2Fb?tenant=acme',
        'https://api.example.com/v2/a%zz?tenant=acme',
        'https://api.example.com/v2/users/zo%C3%AB?tenant=acme',
        'https://api.example.com/v2/v/1.2...?tenant=acme',
        'https://api.example.com/v2/x/%E2%80%A6?tenant=acme',
      ],
    );
  });
});

describe('bytes that are not UTF-8, at any decoding level (issue 8, B2)', () => {
  // Overlong 2-, 3- and 4-byte forms of "." (0x2e) and "/" (0x2f), 5- and 6-byte forms, a surrogate, a stray byte.
  const invalid = [
    '%c0%ae',
    '%c0%af',
    '%e0%80%ae',
    '%e0%80%af',
    '%f0%80%80%ae',
    '%f8%80%80%80%ae',
    '%fc%80%80%80%80%af',
    '%ed%a0%80',
    '%80',
    '%ff',
  ];

  it('percentDecodeOnce returns undefined for each invalid form and decodes valid UTF-8', () => {
    assert.deepEqual(
      [...invalid.map(percentDecodeOnce), percentDecodeOnce('%e2%80%a4%41'), percentDecodeOnce('a%zz')],
      [...invalid.map(() => undefined), '\u2024A', 'a%zz'],
    );
  });

  it('refuses each invalid form written directly or behind one or two encoded "%" signs, naming the decoding that fails', () => {
    const paths = invalid
      .flatMap((form) => [form, encodePercents(form), encodePercents(encodePercents(form))])
      .map((form) => `/${form}/admin`);
    const reasons = paths.map((path) => /not valid UTF-8|overlong UTF-8 percent-encoding/.exec(outcome(path))?.[0]);
    assert.deepEqual(reasons.filter(Boolean).length, paths.length);
    assert.equal(
      outcome('/%25f8%2580%2580%2580%25ae/x'),
      '`path` "/%25f8%2580%2580%2580%25ae/x" has the segment "%25f8%2580%2580%2580%25ae", whose percent-encoded bytes (after 2 decodings) are not valid UTF-8: an overlong form (%c0%ae, %e0%80%ae), a 5- or 6-byte form, a surrogate or a stray byte, which lenient decoders may read as "." or "/"; it is refused. Percent-encode each character once, as its shortest UTF-8 bytes.',
    );
  });
});

describe('Unicode look-alikes of ".", "/" and "\\" (issue 8, B3)', () => {
  const dots = ['\uff0e', '\u2024', '\ufe52', '\u3002', '\uff61'];
  const slashes = ['\uff0f', '\u2215', '\u2044', '\u29f8', '\uff3c', '\ufe68', '\u29f5'];

  it('refuses a dot segment made of look-alike dots (NFKC or UTS 39), raw or percent-encoded, also as "..;x"', () => {
    const paths = dots
      .flatMap((dot) => [
        `/${dot}${dot}/admin`,
        `/${dot}./admin`,
        `/${dot}/x`,
        `/${encodeAll(dot + dot)}/admin`,
        `/${dot}${dot};x/admin`,
      ])
      .concat(['/\u2025/admin']);
    const refused = paths.filter((path) =>
      /folds Unicode look-alikes .* a dot segment that would climb out/.test(outcome(path)),
    );
    assert.deepEqual(refused, paths);
  });

  it('refuses a look-alike slash or backslash inside a segment, raw or percent-encoded', () => {
    const paths = slashes.flatMap((slash) => [`/..${slash}admin`, `/a${slash}b`, `/a${encodeAll(slash)}b`]);
    const refused = paths.filter((path) =>
      /folds Unicode look-alikes .* (with a "\/" that splits it|with a backslash)/.test(outcome(path)),
    );
    assert.deepEqual(refused, paths);
  });

  it('names what the fold reads and what to send instead', () => {
    assert.equal(
      outcome('/．．/admin'),
      '`path` "/．．/admin" has the segment "．．", which a backend that folds Unicode look-alikes (NFKC: fullwidth ．／＼, one-dot leader ․, division slash ∕) reads as "..", a dot segment that would climb out of the API\'s base path; it is refused. Name the resource directly, with plain ASCII "." only inside names.',
    );
  });
});

describe('the query API_BASE_URL fixes (issue 8, B4)', () => {
  it('canonicalName folds case, encoding, NFKC, brackets, NUL and punctuation', () => {
    assert.deepEqual(
      [
        'Tenant',
        'TENANT[]',
        'tenant[x]',
        'tenant%00',
        '%74enant',
        '%2574enant',
        'ｔｅｎａｎｔ',
        'ten_ant',
        'tenant.',
        'te+nant',
        'tenant2',
      ].map(canonicalName),
      ['tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant2'],
    );
  });

  it('refuses a path query name that any lenient binder reads as the fixed name', () => {
    const names = [
      'Tenant',
      'TENANT',
      'tenant[]',
      'tenant[0]',
      'tenant%00',
      '%54enant',
      '%2574enant',
      'ten%61nt',
      'tenant.',
      'tenant_',
      '%EF%BD%94enant',
    ];
    const refused = names.filter((name) =>
      outcome(`/x?a=1&${name}=evil`).startsWith(
        `\`path\` "/x?a=1&${name}=evil" sets the query parameter ${JSON.stringify(name)}, which servers that ignore case`,
      ),
    );
    assert.deepEqual(refused, names);
  });

  it('refuses the same names given in `query`, and pairs hidden in a query value or name', () => {
    assert.deepEqual(
      [
        outcome('/x', { 'Tenant[]': 'evil' }),
        outcome('/x', { a: '1&tenant=evil' }),
        outcome('/x', { a: '1;TENANT=evil' }),
      ],
      [
        '`query` has the parameter "Tenant[]", which servers that ignore case, brackets, encoding or punctuation in names read as "tenant", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.',
        '`query` (sent as "a=1%26tenant%3Devil") sets the query parameter "tenant", which API_BASE_URL fixes; it cannot be overridden. Leave it out.',
        '`query` (sent as "a=1%3BTENANT%3Devil") sets the query parameter "TENANT", which servers that ignore case, brackets, encoding or punctuation in names, or split pairs at ";", read as "tenant", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.',
      ],
    );
  });

  it('refuses ";" smuggling of a fixed name in a path segment or the query, and allows ";" parameters with other names', () => {
    assert.deepEqual(
      [
        outcome('/x;tenant=evil'),
        outcome('/x;TENANT=evil/y'),
        outcome('/x?a=1;tenant=evil'),
        outcome('/x;v=1?a=1;b=2'),
      ],
      [
        '`path` "/x;tenant=evil" has the matrix parameter ";tenant=evil", which names the query parameter "tenant" that API_BASE_URL fixes; servers that read ";name=value" would let it override the fixed value, so it is refused. Leave it out.',
        '`path` "/x;TENANT=evil/y" has the matrix parameter ";TENANT=evil", which names the query parameter "TENANT" that API_BASE_URL fixes; servers that read ";name=value" would let it override the fixed value, so it is refused. Leave it out.',
        '`path` "/x?a=1;tenant=evil" sets the query parameter "tenant", which API_BASE_URL fixes; it cannot be overridden. Leave it out.',
        'https://api.example.com/v2/x;v=1?tenant=acme&a=1;b=2',
      ],
    );
  });

  it('refuses a "?" or "#" that a decoding or a fold creates in the path, which would end it around the fixed query (second attack round)', () => {
    const paths = [
      '/x%3Ftenant=evil&',
      '/x%3ftenant=evil%23',
      '/x%23',
      '/x%253ftenant=evil',
      '/x%2523',
      '/x\uff1ftenant=evil',
    ];
    const refused = paths.filter((path) =>
      outcome(path).includes(
        'with a "?" or "#" that a backend which decodes the path and parses it again takes as the start of the query or fragment',
      ),
    );
    assert.deepEqual(refused, paths);
  });

  it('sends an encoded "?" in a path when the base fixes no query', () => {
    assert.equal(buildProbeUrl(new URL('https://api.example.com/v2'), '/search/what%3F').hasOwnProperty('url'), true);
  });

  it("sends the fixed pairs first, then the path's query, then `query`", () => {
    assert.equal(outcome('/x?b=2&flag', { c: '3' }), 'https://api.example.com/v2/x?tenant=acme&b=2&flag&c=3');
  });
});
