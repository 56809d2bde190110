/**
 * `redactorForKeys` (issue 19 review): one redactor for many keys gives what each key's own `redactor` gives applied
 * in turn, on the same inputs: every form of issue 8's fixtures (`fixtures/redaction/`, their forms rebuilt for each
 * key by the same encoders), keys split across strings, member names, and keys too short for the skeleton. The oracle
 * is the single-key redactor, which the redaction suites test against the fixtures' exact strings.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { redactor, redactorForKeys, tokenRedactor } from '../src/redaction/redaction.ts';
import type { Redactor } from '../src/redaction/redaction.ts';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/redaction/key-forms.json', import.meta.url), 'utf8')) as {
  key: string;
  forms: Record<string, string>;
};
const ORDINARY = readFileSync(new URL('../fixtures/redaction/ordinary-text.txt', import.meta.url), 'utf8');

/** Forty keys of the shapes real ones have (a prefix, then random-looking letters and digits), the fixture's first. */
const KEYS = [
  FIXTURE.key,
  ...Array.from({ length: 39 }, (_, index) => {
    const digits = (BigInt(index + 7) * 0x9e3779b97f4a7c15n).toString(36).padStart(13, '0');
    return `${['sk-live-', 'tenant_', 'pk.', ''][index % 4]}${digits}${index % 3 === 0 ? '/+=' : ''}`;
  }),
];

/** The forms issue 8 lists, for any key. */
const FORMS: Record<string, (key: string) => string> = {
  plain: (key) => key,
  'upper case': (key) => key.toUpperCase(),
  reversed: (key) => [...key].reverse().join(''),
  hex: (key) => Buffer.from(key).toString('hex'),
  'hex spaced': (key) => Buffer.from(key).toString('hex').replace(/(..)/g, '$1 ').trim(),
  base64: (key) => Buffer.from(key).toString('base64'),
  'base64 after a user': (key) => Buffer.from(`user:${key}`).toString('base64'),
  base64url: (key) => Buffer.from(`x${key}`).toString('base64url'),
  'percent-encoded': (key) => [...Buffer.from(key)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
  'percent-encoded twice': (key) => [...Buffer.from(key)].map((byte) => `%25${byte.toString(16)}`).join(''),
  'JSON escapes': (key) =>
    [...key].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  'HTML references': (key) => [...key].map((character) => `&#${character.charCodeAt(0)};`).join(''),
  fullwidth: (key) => key.replace(/[!-~]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0)),
  spaced: (key) => [...key].join(' '),
  'zero-width joined': (key) => [...key].join('\u200b'),
};

/** Each key's own redactor applied in turn, longest key first: what one redactor of them all must give. */
function inTurn(keys: string[]): Redactor {
  const each = [...keys].sort((left, right) => right.length - left.length).map((key) => redactor(key));
  return {
    ...each[0]!,
    text: (input) => each.reduce((text, one) => one.text(text), input),
    value: (input, keys) => each.reduce((value, one) => one.value(value, keys), input),
    message: (input) => each.reduce((message, one) => one.message(message), input),
  };
}

describe('redactorForKeys against each key’s own redactor', () => {
  const many = redactorForKeys(KEYS);
  const oracle = inTurn(KEYS);

  it('gives the same text for every form of every key, alone and inside ordinary text', () => {
    const differ: string[] = [];
    for (const key of KEYS)
      for (const [name, form] of Object.entries(FORMS))
        for (const input of [form(key), `${ORDINARY.slice(0, 300)} ${form(key)} ${ORDINARY.slice(300, 600)}`])
          if (many.text(input) !== oracle.text(input)) differ.push(`${key} ${name}`);
    assert.deepEqual(differ, []);
  });

  it("gives the same text for the fixture's own forms of its key (fixtures/redaction/key-forms.json)", () => {
    const differ = Object.entries(FIXTURE.forms).filter(([, form]) => many.text(form) !== oracle.text(form));
    assert.deepEqual(differ, []);
  });

  it('gives the same text for twenty keys in one text, each in another form', () => {
    const names = Object.keys(FORMS);
    const input = KEYS.slice(0, 20)
      .map((key, index) => `record ${index}: ${FORMS[names[index % names.length]!]!(key)};`)
      .join('\n');
    assert.deepEqual([many.text(input), many.text(input).includes('[redacted]')], [oracle.text(input), true]);
  });

  it('gives the same value for keys split across strings, as member names, and as numbers', () => {
    const value = {
      split: [KEYS[3]!.slice(0, 9), KEYS[3]!.slice(9)],
      [KEYS[5]!]: 'a member name',
      nested: { deep: [{ note: `two keys: ${KEYS[7]} and ${FORMS.base64!(KEYS[8]!)}` }] },
      bytes: { type: 'Buffer', data: [...Buffer.from(KEYS[9]!)] },
      count: 12,
    };
    assert.deepEqual(many.value(value, true), oracle.value(value, true));
  });

  it('gives the same message for a tool result that echoes several keys', () => {
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: `seen ${KEYS[10]} and ${FORMS['percent-encoded']!(KEYS[11]!)}` }],
        structuredContent: { echo: [KEYS[12], FORMS.hex!(KEYS[13]!)] },
      },
    };
    assert.deepEqual(many.message(message), oracle.message(message));
  });

  it('leaves ordinary text as it is (fixtures/redaction/ordinary-text.txt)', () => {
    assert.equal(many.text(ORDINARY), ORDINARY);
  });
});

describe('redactorForKeys with keys too short for the skeleton beside long ones', () => {
  const keys = ['sk-1234', 'abc-9x7z', FIXTURE.key, KEYS[1]!];
  const many = redactorForKeys(keys);
  const oracle = inTurn(keys);

  it('gives the same text for the strict forms of the short keys and every form of the long ones', () => {
    const differ: string[] = [];
    for (const key of keys)
      for (const [name, form] of Object.entries(FORMS)) {
        const input = `before ${form(key)} after`;
        if (many.text(input) !== oracle.text(input)) differ.push(`${key} ${name}`);
      }
    assert.deepEqual(differ, []);
  });

  it('withholds at a cut what the strictest key asks', () => {
    const each = keys.map((key) => redactor(key));
    assert.deepEqual(
      [many.withheld, many.withheldLetters],
      [Math.max(...each.map((one) => one.withheld)), Math.max(...each.map((one) => one.withheldLetters ?? 0))],
    );
  });
});

describe('redactorForKeys with one key', () => {
  it('is the redactor of that key: the same text for every form', () => {
    const one = redactorForKeys([undefined, FIXTURE.key, '']);
    const alone = redactor(FIXTURE.key);
    const differ = Object.entries(FIXTURE.forms).filter(([, form]) => one.text(form) !== alone.text(form));
    assert.deepEqual([differ, one.withheld, one.withheldLetters], [[], alone.withheld, alone.withheldLetters]);
  });
});

describe('tokenRedactor: the forms a bearer token can take here (issue 19 review)', () => {
  // A JWT access token's shape: header, claims and signature, base64url, joined by dots.
  const token = `eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.${Buffer.from(
    JSON.stringify({ sub: 'agent-a', aud: 'https://probe.example.com/mcp', scope: 'probe', jti: 'c0ffee' }),
  ).toString('base64url')}.${'Qk9fX3NpZ25hdHVyZQ'.repeat(4)}`;
  const forms: Record<string, string> = {
    plain: token,
    'percent-encoded, upper-case hex': [...token].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
    'percent-encoded twice, lower-case hex': [...token].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join(''),
    'JSON escapes': [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    'JSON escapes escaped again': [...token]
      .map((c) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
    'half plain, half percent-encoded': `${token.slice(0, 40)}${[...token.slice(40)].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`,
    'base64 of a Bearer header': Buffer.from(`Bearer ${token}`).toString('base64'),
    base64url: Buffer.from(`x${token}`).toString('base64url'),
  };
  const cheap = tokenRedactor(token);
  const full = redactor(token);

  it("hides every form as the key redactor does, inside a path, a JSON string and a sentence (the key redactor's output is the oracle)", () => {
    const differ: string[] = [];
    for (const [name, form] of Object.entries(forms))
      for (const input of [`/meters/${form}/readings`, `{"note":"${form}"}`, `The API said ${form}; 100% done.`])
        if (cheap.text(input) !== full.text(input) || !cheap.text(input).includes('[redacted]'))
          differ.push(`${name}: ${cheap.text(input).slice(0, 60)}`);
    assert.deepEqual(differ, []);
  });

  it('hides the token from a tool result, its text and its structured content', () => {
    const message = {
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: `GET /v2/${forms['percent-encoded, upper-case hex']}` }],
        structuredContent: { url: `/v2/${token}`, [token]: 'member' },
      },
    };
    assert.deepEqual(cheap.message(message), {
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: 'GET /v2/[redacted]' }],
        structuredContent: { url: '/v2/[redacted]', [token]: 'member' },
      },
    });
  });

  it('leaves ordinary text with escapes as it is, and redacts nothing for a token under 8 characters', () => {
    const text = `${ORDINARY.slice(0, 400)} 100%25 done \\u0041\\/ %zz`;
    assert.deepEqual([cheap.text(text), tokenRedactor('abc1234').text('abc1234')], [text, 'abc1234']);
  });
});

describe('a key pasted with its scheme (API_KEY="Bearer ...", apiKeySlip in src/runtime/config.ts)', () => {
  it('hides the key after "Bearer " alone too, as an API that refuses it may echo it', () => {
    assert.deepEqual(
      ['Bearer some-long-key-123', 'bearer  some-long-key-123'].map((key) =>
        redactor(key).text('{"message":"bad token some-long-key-123"}'),
      ),
      ['{"message":"bad token [redacted]"}', '{"message":"bad token [redacted]"}'],
    );
  });
});
