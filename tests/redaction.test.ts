/**
 * The key in every form an API can still echo (issue 8, "The key"): `redactor` unit by unit, one form
 * per test, the false-positive rule on real text, the cut that no guess can steer (case 49), and the
 * same forms through a real `probe` call to a 127.0.0.1 API this file starts and stops. The forms are
 * the exact strings of fixtures/redaction/key-forms.json.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  chainRedactors,
  redactor,
  keySkeleton,
  tokenRedactor,
  withheldNote,
  SKELETON_MIN_LENGTH,
  WITHHELD_MARK,
} from '../src/redaction/redaction.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';
import { recordedGets } from '../harness/github-replay.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const FIXTURE: { key: string; forms: Record<string, string> } = JSON.parse(
  readFileSync(`${HERE}fixtures/redaction/key-forms.json`, 'utf8'),
);
const KEY = FIXTURE.key;
const redact = redactor(KEY);
// What the MIME form keeps: the base64 of the text around the key, and the characters that mix its bytes with theirs.
const MIME_REDACTED =
  'UHJlYW1ibGUgYnl0ZXMgYmVmb3JlIHRoZSBrZXksIGVub3VnaCB0byB3cmFwIGEgbGluZS4gUHJl\r\nYW1ibGUgYnl0ZXMgYmVmb3JlIHRoZSBrZXksIGVub3VnaCB0byB3cmFwIGEgbGluZS4g[redacted]AgYW5kIGFmdGVy';

/** The redacted text expected for each fixture form placed between `<` and `>`. */
function expectedFor(name: string): string {
  return name === 'base64 in 76-column MIME lines' ? `<${MIME_REDACTED}>` : '<[redacted]>';
}

// The forms the README listed as not recognised after the fourth attack round, for the same key.
const FIXTURE3: { key: string; forms: Record<string, string> } = JSON.parse(
  readFileSync(`${HERE}fixtures/redaction/key-forms-3.json`, 'utf8'),
);
// What a base64 form with separators keeps: the base64 of the text around the key, the characters that mix its bytes with theirs, and the separators outside the match.
const SEPARATED_REDACTED: Record<string, string> = {
  'base64 with - between groups of four': 'SGVs-bG8g-[redacted]Ag-d29y-bGQ=-',
  'base64 with _ between groups of eight': 'SGVsbG8g_[redacted]Agd29y_bGQ=',
};

/** The redacted text expected for each form of fixtures/redaction/key-forms-3.json. */
function expectedFor3(name: string): string {
  return SEPARATED_REDACTED[name] ?? '[redacted]';
}

const hex2 = (byte: number) => byte.toString(16).padStart(2, '0');
const codePoints = (text: string) => [...text].map((character) => character.codePointAt(0)!);
/** The new forms as functions of the key, for keys other than the fixture's (the oracle test, near misses). */
const NEW_FORMS: Record<string, (key: string) => string> = {
  'JavaScript code-point escapes': (key) =>
    codePoints(key)
      .map((point) => `\\u{${point.toString(16)}}`)
      .join(''),
  'escape() %uXXXX': (key) =>
    codePoints(key)
      .map((point) => `%u${point.toString(16).padStart(4, '0')}`)
      .join(''),
  'escape() %uXXXX percent-encoded twice': (key) =>
    codePoints(key)
      .map((point) => `%2525u${point.toString(16).padStart(4, '0')}`)
      .join(''),
  'octal escapes': (key) => [...Buffer.from(key)].map((byte) => `\\${byte.toString(8)}`).join(''),
  'quoted-printable': (key) => [...Buffer.from(key)].map((byte) => `=${hex2(byte).toUpperCase()}`).join(''),
  'hex bytes with 0x, comma-separated': (key) => [...Buffer.from(key)].map((byte) => `0x${hex2(byte)}`).join(', '),
  'HTML decimal references percent-encoded': (key) =>
    codePoints(key)
      .map((point) => `%26%23${point}%3B`)
      .join(''),
  'percent-encoding with its % as an HTML hex reference': (key) =>
    [...Buffer.from(key)].map((byte) => `&#x25;${hex2(byte)}`).join(''),
  'JavaScript code-point escapes, ten digits': (key) =>
    codePoints(key)
      .map((point) => `\\u{${point.toString(16).padStart(10, '0')}}`)
      .join(''),
  'Python/C \\U escapes, eight digits': (key) =>
    codePoints(key)
      .map((point) => `\\U${point.toString(16).padStart(8, '0')}`)
      .join(''),
  'Perl/PHP \\x{} escapes': (key) =>
    codePoints(key)
      .map((point) => `\\x{${point.toString(16)}}`)
      .join(''),
  'HTML decimal references with leading zeros': (key) =>
    codePoints(key)
      .map((point) => `&#${String(point).padStart(9, '0')};`)
      .join(''),
  'hex bytes 0x padded to eight digits': (key) =>
    [...Buffer.from(key)].map((byte) => `0x${byte.toString(16).padStart(8, '0')}`).join(' '),
};

describe('redactor: the key in every form an API can echo (issue 8)', () => {
  for (const [name, form] of Object.entries(FIXTURE.forms)) {
    it(`redacts the key written as: ${name}`, () => {
      assert.equal(redact.text(`<${form}>`), expectedFor(name));
    });
  }

  it('redacts the key with invisible letters between its characters (Hangul fillers, attack round 3 G1)', () => {
    const fillers = ['\u115f', '\u1160', '\u3164', '\uffa0'];
    assert.deepEqual(
      fillers.map((filler) => redact.text(`<${[...KEY].join(filler)}>`)),
      ['<[redacted]>', '<[redacted]>', '<[redacted]>', '<[redacted]>'],
    );
  });

  it('redacts the key spelled in Unicode tag characters (U+E0020 to U+E007E, invisible but read as ASCII by a model)', () => {
    const tags = (text: string) =>
      [...text].map((character) => String.fromCodePoint(0xe0000 + character.codePointAt(0)!)).join('');
    assert.deepEqual(
      [
        redact.text(`<${tags(KEY)}>`),
        redact.text(`<${tags(KEY.toUpperCase())}>`),
        redact.text(`<${tags('not the key at all')}>`),
      ],
      ['<[redacted]>', '<[redacted]>', `<${tags('not the key at all')}>`],
    );
  });

  it('redacts the key after text that turns its first characters into an escape (`%25` before hex, `&#` before a digit)', () => {
    assert.deepEqual(
      [
        redact.text(`x%25${FIXTURE.forms.hex}`),
        redact.text(`&#${FIXTURE.forms.reversed}`),
        redact.text(`100%${Buffer.from(KEY).toString('hex').toUpperCase()}`),
      ],
      ['x%25[redacted]', '&#[redacted]', '100%[redacted]'],
    );
  });

  it("redacts a key split across JSON strings, each string's share of it", () => {
    assert.deepEqual(redact.value({ a: 'id sk-canary-3f9a', b: '2b7c41d8e6f0 end', c: 'other' }, true), {
      a: 'id [redacted]',
      b: '[redacted] end',
      c: 'other',
    });
  });

  it('redacts a key split across array items and nested objects, with member names between', () => {
    assert.deepEqual(redact.value({ parts: ['sk-ca', { x: 'nary-3f9a2' }, 'b7c41d8e6f0'], n: 1 }, true), {
      parts: ['[redacted]', { x: '[redacted]' }, '[redacted]'],
      n: 1,
    });
  });

  it("redacts an array of bytes that spells the key (a Node Buffer's JSON), and leaves other byte arrays (attack round 5, B4)", () => {
    const buffer = JSON.parse(JSON.stringify(Buffer.from('sk-canary-3f9a2b7c41d8e6f0')));
    const plain = [...Buffer.from('nothing secret in these bytes')];
    assert.deepEqual(redact.value({ token: buffer, plain, short: [1, 2, 3] }, true), {
      token: { type: 'Buffer', data: '[redacted]' },
      plain,
      short: [1, 2, 3],
    });
  });

  it('redacts a key split between a member name and its value', () => {
    assert.deepEqual(redact.value({ 'sk-canary-3f9a': '2b7c41d8e6f0' }, true), { '[redacted]': '[redacted]' });
  });

  it('replaces a number that completes a key split across values', () => {
    assert.deepEqual(redact.value({ a: 'sk-canary-3f9a2b7c41d8e6f', n: 0, z: 'x' }, true), {
      a: '[redacted]',
      n: '[redacted]',
      z: 'x',
    });
  });

  it('redacts the key in a Content-Type parameter, a location and a note of a probe result', () => {
    const result = {
      contentType: `application/json; k=${FIXTURE.forms.hex}`,
      location: `https://login.example/?k=${FIXTURE.forms['percent-encoded four times']}&next=%2F`,
      note: `The API said: ${FIXTURE.forms.fullwidth}.`,
    };
    assert.deepEqual(redact.value(result, true), {
      contentType: 'application/json; k=[redacted]',
      location: 'https://login.example/?k=[redacted]&next=%2F',
      note: 'The API said: [redacted].',
    });
  });

  it("takes the key's own punctuation at its ends along, as written or escaped", () => {
    const key = 'canary-9c41e7d2-must-never-print/+"\\';
    assert.deepEqual(
      [
        redactor(key).text(`<${key}>`),
        redactor(key).text(JSON.stringify({ k: key })),
        redactor(key).text(`k=${encodeURIComponent(key)}&x`),
      ],
      ['<[redacted]>', '{"k":"[redacted]"}', 'k=[redacted]&x'],
    );
  });

  it('redacts a key split across strings in an outgoing message, in the structured content and in its text copy', () => {
    const structured = { body: { a: 'sk-canary-3f9a', b: '2b7c41d8e6f0' }, status: 200 };
    const message = {
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
    };
    const cleaned = { body: { a: '[redacted]', b: '[redacted]' }, status: 200 };
    assert.deepEqual(redact.message(message), {
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: JSON.stringify(cleaned) }], structuredContent: cleaned },
    });
  });

  it('returns a value in which nothing matched as it is, not a copy', () => {
    const body = { id: 'm1', tags: ['a', 'b'] };
    assert.equal(redact.value(body, true), body);
  });
});

describe('redactor: code-point, %u, octal, quoted-printable, 0x, separated base64 and nested escapes (issue 8, attack round 4 limits)', () => {
  for (const [name, form] of Object.entries(FIXTURE3.forms)) {
    it(`redacts the key written as: ${name}`, () => {
      assert.equal(redact.text(`<${form}>`), `<${expectedFor3(name)}>`);
    });
  }

  it("redacts the key's hex after an escape that takes its first digits (`0x`, `=`, `\\`, `%5C`, `%3D`, `&#x25;`, `%26%23` before it)", () => {
    const hex = Buffer.from(KEY).toString('hex');
    const hexKey = '3f9a2b7c41d8e6f03f9a2b7c';
    const before = ['0x', '=', '\\', '%5C', '%3D', '&#x25;', '%26%23'];
    assert.deepEqual(
      [
        before.map((escape) => redact.text(`${escape}${hex}`)),
        before.map((escape) => redactor(hexKey).text(`${escape}${hexKey}`)),
      ],
      [before.map((escape) => `${escape}[redacted]`), before.map((escape) => `${escape}[redacted]`)],
    );
  });

  it('redacts the percent-encoded hex of the key after an escape that would wrap its first bytes (`%5C` before `%37%33`: `\\73`)', () => {
    const encodedHex = [...Buffer.from(Buffer.from(KEY).toString('hex'))].map((byte) => `%${hex2(byte)}`).join('');
    assert.deepEqual(
      ['%5C', '%3D', '%26'].map((escape) => redact.text(`${escape}${encodedHex}`)),
      ['%5C[redacted]', '%3D[redacted]', '%26[redacted]'],
    );
  });

  it('redacts a key holding what reads as an escape (`0xde`, `=3D`, `\\u0041`) echoed fullwidth, reversed or spaced, where nothing decodes it', () => {
    const keys = ['sk-live-0xdeadbeef12345678', 'sk_test=3Dabcdef1234567', 'tok\\u0041bcdef1234567890'];
    const fullwidth = (key: string) =>
      [...key].map((character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0)).join('');
    assert.deepEqual(
      keys.map((key) =>
        [fullwidth(key), [...key].reverse().join(''), [...key].join(' ')].map((form) =>
          redactor(key).text(`<${form}>`),
        ),
      ),
      keys.map(() => ['<[redacted]>', '<[redacted]>', '<[redacted]>']),
    );
  });

  it('leaves URLs with `=` and hex, hex constants, octal-looking paths and the new forms of a near miss unchanged', () => {
    const near = KEY.slice(0, -1);
    const text = [
      'https://api.example.com/v1/items?a=3f&b=9a2b&c=7c41d8e6f0&sig=c2stY2FueQ==&next=%3D3f9a',
      'flags 0x7f3a, 0xdeadbeef, 0X1F; mask=0x00ff; C:\\123\\456\\file.txt; \\u{1F600} %u00e9 =?UTF-8?Q?caf=C3=A9?=',
      ...Object.values(NEW_FORMS).map((form) => form(near)),
    ].join('\n');
    assert.deepEqual(
      [KEY, 'ghp_R8x2LmQ4vT9wZ1kP6nJ3sY7bH5cF0dA2eG4i'].map((key) => redactor(key).text(text) === text),
      [true, true],
    );
  });
});

describe('redactor: ordinary text survives (issue 8, the false-positive rule)', () => {
  // A GitHub-style token beside the canary: real-looking keys of both shapes.
  const keys = [KEY, 'ghp_R8x2LmQ4vT9wZ1kP6nJ3sY7bH5cF0dA2eG4i'];

  it(`matches by skeleton only a key of ${SKELETON_MIN_LENGTH} or more letters and digits`, () => {
    assert.deepEqual(
      [keySkeleton(KEY), keySkeleton('sk-live-12345'), SKELETON_MIN_LENGTH],
      ['skcanary3f9a2b7c41d8e6f0', 'sklive12345', 12],
    );
  });

  it('matches a key of fewer letters and digits only whole and contiguous (strict forms)', () => {
    const short = redactor('sk-live-12345');
    assert.equal(
      short.text('s k - l i v e - 1 2 3 4 5, sk_live_12345, sk-live-12345'),
      's k - l i v e - 1 2 3 4 5, sk_live_12345, [redacted]',
    );
  });

  it('leaves a page of ordinary English text unchanged (fixtures/redaction/ordinary-text.txt)', () => {
    const text = readFileSync(`${HERE}fixtures/redaction/ordinary-text.txt`, 'utf8');
    assert.deepEqual(
      keys.map((key) => redactor(key).text(text) === text),
      [true, true],
    );
  });

  it('leaves every recorded GitHub response (@octokit/fixtures) unchanged, as values and as text', () => {
    const changed: string[] = [];
    for (const key of keys) {
      const keyed = redactor(key);
      for (const recorded of recordedGets()) {
        if (
          keyed.value(recorded.body, true) !== recorded.body ||
          keyed.text(JSON.stringify(recorded.body)) !== JSON.stringify(recorded.body)
        )
          changed.push(`${recorded.scenario} ${recorded.path}`);
      }
    }
    assert.deepEqual([changed, recordedGets().length > 20], [[], true]);
  });

  it('leaves openapi.json, its examples included, unchanged', () => {
    const document = JSON.parse(readFileSync(`${HERE}openapi.json`, 'utf8'));
    assert.deepEqual(
      keys.map(
        (key) =>
          redactor(key).value(document, true) === document &&
          redactor(key).text(JSON.stringify(document, null, 2)) === JSON.stringify(document, null, 2),
      ),
      [true, true],
    );
  });
});

describe('redactor: the cut no guess can steer (issue 8, case 49)', () => {
  // A wrong key of the same length whose every character has the same class, and the same
  // width in every form (letters a-c and d-z keep their decimal code width; digits stay digits).
  const wrongCharacter = (character: string) =>
    /[a-b]/.test(character)
      ? String.fromCharCode(character.charCodeAt(0) + 1)
      : character === 'c'
        ? 'a'
        : /[d-y]/.test(character)
          ? String.fromCharCode(character.charCodeAt(0) + 1)
          : character === 'z'
            ? 'd'
            : /[0-8]/.test(character)
              ? String.fromCharCode(character.charCodeAt(0) + 1)
              : character === '9'
                ? '0'
                : character;
  const WRONG = [...KEY].map(wrongCharacter).join('');
  const percent = (text: string, depth: number) =>
    [...Buffer.from(text)]
      .map((byte) => `%${'25'.repeat(depth - 1)}${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
  const forms: Record<string, (key: string) => string> = {
    'as written': (key) => key,
    hex: (key) => Buffer.from(key).toString('hex'),
    reversed: (key) => [...key].reverse().join(''),
    'percent-encoded four times': (key) => percent(key, 4),
    'HTML decimal references': (key) => [...key].map((character) => `&#${character.charCodeAt(0)};`).join(''),
    fullwidth: (key) => [...key].map((character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0)).join(''),
    'zero-width joined': (key) => [...key].join('\u200b'),
    'JSON escaped twice': (key) =>
      [...key].map((character) => `\\\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ...NEW_FORMS,
  };
  const padding = 'The path you asked for was not found: /v2/spring/' + 'A'.repeat(400);

  /**
   * For every form and every prefix length: the text ending in the right guess and in the wrong one.
   * Prefixes that already spell the whole key are left out (`&#115;...&#48` without its last `;`):
   * they are the key, and redacted as such.
   */
  function guesses(): { name: string; right: string; wrong: string }[] {
    const out = [];
    for (const [name, form] of Object.entries(forms)) {
      const [right, wrong] = [form(KEY), form(WRONG)];
      for (let length = 1; length < right.length; length++) {
        if (redact.text(right.slice(0, length)) === right.slice(0, length))
          out.push({
            name: `${name} cut at ${length}`,
            right: padding + right.slice(0, length),
            wrong: padding + wrong.slice(0, length),
          });
      }
    }
    return out;
  }

  it('cuts a text ending in a right guess and in a wrong one at the same place, in every form, at every prefix length', () => {
    const differ: string[] = [];
    const shown: string[] = [];
    let compared = 0;
    for (const { name, right, wrong } of guesses()) {
      const [cutRight, cutWrong] = [redact.tail(right), redact.tail(wrong)];
      compared++;
      // The same length, each a prefix of its own text: the outputs differ at most in the guessed characters themselves.
      if (
        cutRight.length !== cutWrong.length ||
        cutRight !== right.slice(0, cutRight.length - WITHHELD_MARK.length) + WITHHELD_MARK ||
        cutWrong !== wrong.slice(0, cutWrong.length - WITHHELD_MARK.length) + WITHHELD_MARK
      )
        differ.push(name);
      // And no character of the guess is kept.
      if (cutRight.length - WITHHELD_MARK.length > padding.length) shown.push(name);
    }
    assert.deepEqual([differ, shown, compared], [[], [], 3478]);
  });

  it('cuts every such text at the same place whatever the key (another key of the same length and classes)', () => {
    const other = redactor(WRONG);
    const differ = guesses().flatMap(({ name, right, wrong }) =>
      redact.tail(right) === other.tail(right) && redact.tail(wrong) === other.tail(wrong) ? [] : [name],
    );
    assert.deepEqual(differ, []);
  });

  it('withholds at least `withheld` characters and `withheldLetters` letters or digits, and says so', () => {
    assert.deepEqual(
      [redact.withheld, redact.withheldLetters, redact.tail('x'.repeat(400)), withheldNote(redact)],
      [
        306,
        51,
        `${'x'.repeat(94)}${WITHHELD_MARK}`,
        'Its end is withheld whatever it holds (marked […end withheld]): at least its last 306 characters, and at least 51 letters or digits, so a cut never shows the start of the API key.',
      ],
    );
  });

  it('withholds letters and digits written as escapes the same as written plainly: a long escaped end goes further back', () => {
    // 400 characters of `&#120;` hold 66 letters: past the 306-character minimum, the cut goes back to hold 51 of them.
    assert.equal(
      redact.tail(`${'y'.repeat(400)}${'&#120;'.repeat(66)}&#12`),
      `${'y'.repeat(400)}${'&#120;'.repeat(15)}${WITHHELD_MARK}`,
    );
  });

  it('withholds each new escape the cut left open as a whole: `\\u{7`, `%u00`, `%2525u0`, `\\16`, `=2`, `0x7`, and one wrapped in another (`%26%2312`, `&#x25;7`)', () => {
    // Read as text, each would count its digits (and `u`, `x`) as letters, and the cut would keep more of the `&#120;`s.
    const opens = ['\\u{7', '%u00', '%2525u0', '\\16', '=2', '0x7', '%26%2312', '&#x25;7'];
    const text = `${'y'.repeat(400)}${'&#120;'.repeat(66)}`;
    assert.deepEqual(
      opens.map((open) => redact.tail(text + open)),
      opens.map(() => `${'y'.repeat(400)}${'&#120;'.repeat(15)}${WITHHELD_MARK}`),
    );
  });

  it('reads only the end of a long text, and cuts it where reading all of it would', () => {
    // 200,000 characters of `&amp;#120;` (an x escaped twice, 10 characters each): 51 letters are 510 characters.
    const text = '&amp;#120;'.repeat(20000);
    assert.deepEqual(
      [
        redact.tail(text) === `${'&amp;#120;'.repeat(20000 - 51)}${WITHHELD_MARK}`,
        redact.tail(`${'a'.repeat(100000)}${FIXTURE.forms.hex.slice(0, 40)}`) ===
          `${'a'.repeat(100000 + 40 - 306)}${WITHHELD_MARK}`,
      ],
      [true, true],
    );
  });

  it('withholds an escape the cut left open as a whole, whatever it holds', () => {
    // Read as text, `%2525…` would be 200 digits: without the rule the cut would keep `%` and a run of `25`s.
    const short = redactor('abcdefghijkl');
    assert.deepEqual(
      [short.withheld, short.withheldLetters, short.tail(`${'y'.repeat(200)}%${'25'.repeat(100)}`)],
      [144, 23, `${'y'.repeat(177)}${WITHHELD_MARK}`],
    );
  });
});

describe('redactor: cost (issue 8: nothing stalls the server)', () => {
  it('reads a megabyte of escapes, look-alikes and distinct letters of other scripts that never complete the key without a stall (time printed, not asserted)', (t) => {
    const near = KEY.slice(0, -1);
    // 100,000 distinct CJK letters outside the BMP: each is folded (NFKC) once, no cache holds them all.
    const distinct = Array.from({ length: 100000 }, (_, index) => String.fromCodePoint(0x20000 + index)).join('');
    const text = [
      distinct,
      '%25'.repeat(40000),
      '&amp;'.repeat(20000),
      '\\'.repeat(100000),
      '&#'.repeat(50000),
      `${FIXTURE.forms.fullwidth.slice(0, -1)} `.repeat(4000),
      `${Buffer.from(near).toString('hex')} `.repeat(4000),
      `${near} `.repeat(12000),
    ].join('');
    const began = performance.now();
    const out = redact.text(text);
    // The time is printed, never asserted: a loaded machine must not fail this (speed belongs to npm run bench).
    t.diagnostic(`redacted ${text.length} characters in ${Math.round(performance.now() - began)} ms`);
    assert.deepEqual([out === text, text.length > 1_000_000], [true, true]);
  });
});

describe('redactor: cost of the new escapes (issue 8: nothing stalls the server)', () => {
  it('reads a megabyte of code-point, %u, octal, quoted-printable, 0x and nested escapes that never complete the key, cut or whole (time printed, not asserted)', (t) => {
    const near = KEY.slice(0, -1);
    const text = [
      '%26%23'.repeat(20000),
      `%26${'a'.repeat(22)}`.repeat(4000),
      '%25%31'.repeat(20000),
      '%5C%5Cu'.repeat(10000),
      '=3D'.repeat(30000),
      '0x0x'.repeat(20000),
      `\\u{${'1'.repeat(10)}`.repeat(8000),
      '\\777'.repeat(20000),
      '&#x25;'.repeat(15000),
      ...Object.values(NEW_FORMS).map((form) => `${form(near)} `.repeat(400)),
    ].join('');
    const began = performance.now();
    const [out, cut] = [redact.text(text), redact.tail(text)];
    t.diagnostic(`redacted ${text.length} characters whole and cut in ${Math.round(performance.now() - began)} ms`);
    assert.deepEqual([out === text, cut.endsWith(WITHHELD_MARK), text.length > 1_000_000], [true, true, true]);
  });
});

type Route = (req: IncomingMessage, res: ServerResponse) => void;

describe('probe: the key in every form, through a real call (issue 8)', () => {
  let server: Server;
  let base = '';
  const routes: Record<string, Route> = {
    '/v2/forms': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(FIXTURE.forms));
    },
    '/v2/forms3': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(FIXTURE3.forms));
    },
    '/v2/forms3-text': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Object.values(FIXTURE3.forms).join('\n'));
    },
    '/v2/split': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ a: 'sk-canary-3f9a', b: '2b7c41d8e6f0', items: [{ 'sk-canary': '-3f9a2b7c41d8e6f0' }] }),
      );
    },
    '/v2/duplicate': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"id":"m1","id":"${FIXTURE.forms['HTML hex references']}"}`);
    },
    '/v2/headers': (_req, res) => {
      res.writeHead(302, {
        'content-type': `text/plain; k=${FIXTURE.forms.reversed}`,
        location: `http://127.0.0.1:1/?k=${FIXTURE.forms['hex upper case, bytes spaced'].replace(/ /g, '+')}`,
      });
      res.end(`echo: ${FIXTURE.forms['HTML decimal references']}\n`);
    },
  };
  // Spring's 404: the request path reflected in a JSON body (case 49's input).
  const reflect: Route = (req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ timestamp: '2026-11-30T12:00:00.000+00:00', status: 404, error: 'Not Found', path: req.url }),
    );
  };
  before(async () => {
    server = createServer((req, res) => (routes[(req.url ?? '/').split('?')[0]!] ?? reflect)(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );

  async function callProbe(env: Record<string, string>, args: Record<string, unknown>): Promise<any> {
    const handler = createHandler(readConfig({ API_BASE_URL: base, API_KEY: KEY, ...env }, '/nonexistent'));
    const reply: any = await handler.handle({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'probe', arguments: args },
    });
    return reply.result;
  }

  it('returns no form of the key in a JSON body (fixtures/redaction/key-forms.json)', async () => {
    const { structuredContent: result } = await callProbe({}, { path: '/forms' });
    assert.deepEqual(
      result.body,
      Object.fromEntries(Object.keys(FIXTURE.forms).map((name) => [name, expectedFor(name).slice(1, -1)])),
    );
  });

  it('returns none of the forms of fixtures/redaction/key-forms-3.json in a JSON body (code-point, %u, octal, quoted-printable, 0x, separated base64, nested)', async () => {
    const { structuredContent: result } = await callProbe({}, { path: '/forms3' });
    assert.deepEqual(
      result.body,
      Object.fromEntries(Object.keys(FIXTURE3.forms).map((name) => [name, expectedFor3(name)])),
    );
  });

  it('returns none of the forms of fixtures/redaction/key-forms-3.json in a text body, one per line', async () => {
    const { structuredContent: result } = await callProbe({}, { path: '/forms3-text' });
    assert.equal(result.body, Object.keys(FIXTURE3.forms).map(expectedFor3).join('\n'));
  });

  it('returns no key split across strings of a JSON body, nor in the text copy of the result', async () => {
    const called = await callProbe({}, { path: '/split' });
    // Each string's share runs from its first to its last letter or digit of the match: the hyphen that opens a share stays.
    const expected = { a: '[redacted]', b: '[redacted]', items: [{ '[redacted]': '-[redacted]' }] };
    assert.deepEqual([called.structuredContent.body, JSON.parse(called.content[0].text).body], [expected, expected]);
  });

  it('returns no key reversed in the Content-Type, as spaced hex in the location, or as HTML references in a text body', async () => {
    const { structuredContent: result } = await callProbe({}, { path: '/headers' });
    assert.deepEqual(
      [result.contentType, result.location, result.body],
      ['text/plain; k=[redacted]', 'http://127.0.0.1:1/?k=[redacted]', 'echo: [redacted]\n'],
    );
  });

  it('quotes no form of the key in a warning: a duplicate member holding it as HTML references', async () => {
    const { structuredContent: result } = await callProbe({}, { path: '/duplicate' });
    assert.deepEqual(
      [result.body, result.findings.map((finding: any) => finding.values)],
      [{ id: '[redacted]' }, [['"m1"', '"[redacted]"']]],
    );
  });

  /**
   * The answer for `guess` reflected so that it ends `end` bytes into the body, with the guess as
   * reflected (`reflected`: percent-encoded unless the probe sends it as written) replaced by `#`s.
   */
  async function probeGuess(guess: string, end: number, reflected = encodeURIComponent(guess)): Promise<string> {
    const before = '{"timestamp":"2026-11-30T12:00:00.000+00:00","status":404,"error":"Not Found","path":"/v2/spring/'
      .length;
    const result = await callProbe(
      { PROBE_MAX_BYTES: '4096', PROBE_CHECK_MAX_BYTES: '4096' },
      { path: `/spring/${'A'.repeat(end - before - reflected.length)}${guess}` },
    );
    return JSON.stringify([result.structuredContent.body, result.structuredContent.note])
      .split(reflected)
      .join('#'.repeat(reflected.length));
  }

  it('case 49: gives the same answer for a right and a wrong guess written as hex or fullwidth, ending at the read budget', async () => {
    const hex = Buffer.from(KEY).toString('hex');
    const fullwidth = FIXTURE.forms.fullwidth;
    const answers = [];
    for (const [right, wrong] of [
      [hex.slice(0, 30), `${hex.slice(0, 28)}7a`],
      [fullwidth.slice(0, 10), `${fullwidth.slice(0, 9)}ｘ`],
    ]) {
      for (const end of [4096, 4096 - 40, 4096 - redact.withheld])
        answers.push((await probeGuess(right!, end)) === (await probeGuess(wrong!, end)));
    }
    assert.deepEqual(answers, [true, true, true, true, true, true]);
  });

  it('case 49: gives the same answer for a right and a wrong guess written as %uXXXX, quoted-printable or HTML references percent-encoded, ending at the read budget', async () => {
    // Each is sent and reflected as written (a path cannot carry a backslash, so `\\163` and `\\u{73}` are left to the unit tests).
    const answers = [];
    for (const name of [
      'escape() %uXXXX',
      'escape() %uXXXX percent-encoded twice',
      'quoted-printable',
      'HTML decimal references percent-encoded',
    ]) {
      // `e` for the key's `f`: the same width in every form (decimal 101 and 102, hex 65 and 66).
      const [right, wrong] = [NEW_FORMS[name]!(KEY.slice(0, 12)), NEW_FORMS[name]!(`${KEY.slice(0, 11)}e`)];
      for (const end of [4096, 4096 - 40, 4096 - redact.withheld])
        answers.push((await probeGuess(right, end, right)) === (await probeGuess(wrong, end, wrong)));
    }
    assert.deepEqual(answers, Array(12).fill(true));
  });

  it('redacts the key written as %uXXXX in a body cut at the budget, and withholds the end whatever it holds', async () => {
    const form = NEW_FORMS['escape() %uXXXX']!(KEY);
    const result = await callProbe(
      { PROBE_MAX_BYTES: '4096', PROBE_CHECK_MAX_BYTES: '4096' },
      { path: `/spring/${form}${'B'.repeat(4096)}` },
    );
    const sent = '{"timestamp":"2026-11-30T12:00:00.000+00:00","status":404,"error":"Not Found","path":"/v2/spring/';
    assert.deepEqual(
      [result.structuredContent.body, result.structuredContent.note.endsWith(withheldNote(redact))],
      [`${sent}[redacted]${'B'.repeat(4096 - redact.withheld - sent.length - form.length)}${WITHHELD_MARK}`, true],
    );
  });
});

describe('chainRedactors: the API key and a request token together (the HTTP transport)', () => {
  const key = 'sk_live_51HxKq9Zr2Tm4Wv8Yb';
  const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
  const both = chainRedactors([redactor(key), tokenRedactor(token)]);

  it('redacts each one in text', () => {
    assert.equal(both.text(`key ${key} token ${token} end`), 'key [redacted] token [redacted] end');
  });

  it("keeps the largest withheld length and the key's withheld letters, and the note names both", () => {
    const withheld = Math.max(redactor(key).withheld, tokenRedactor(token).withheld);
    const letters = redactor(key).withheldLetters!;
    assert.deepEqual(
      [
        both.withheld,
        both.withheldLetters,
        withheldNote(both).includes(`last ${withheld} characters, and at least ${letters} letters`),
      ],
      [withheld, letters, true],
    );
  });

  it('cuts a tail once, with one mark', () => {
    const cut = both.tail(`${'a'.repeat(2000)}${key}`);
    assert.deepEqual(
      [cut.endsWith(WITHHELD_MARK), cut.split(WITHHELD_MARK).length - 1, cut.includes('sk_live')],
      [true, 1, false],
    );
  });
});
