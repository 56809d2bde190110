// Tests of src/shared/json-text.ts: the request id scanner and the text measure against JSON.parse as the oracle.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createIdScanner, MAX_SCANNED_ID_TEXT, measureJsonText, OVERSIZED_ID_PREFIX } from './json-text.ts';

/** The ids JSON.parse finds: the top-level `id` of an object, or of each element object of a batch; strings and safe integers only. */
function oracleIds(text: string): (string | number)[] {
  const value = JSON.parse(text);
  const idOf = (message: unknown): string | number | undefined => {
    if (message === null || typeof message !== 'object' || Array.isArray(message) || !Object.hasOwn(message, 'id'))
      return undefined;
    const id = (message as { id: unknown }).id;
    if (typeof id === 'string' && JSON.stringify(id).length - 2 <= MAX_SCANNED_ID_TEXT) return id;
    if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
    return undefined;
  };
  const ids = (Array.isArray(value) ? value : [value]).map(idOf);
  return ids.filter((id): id is string | number => id !== undefined);
}

/** The ids the scanner reads from `text` fed in pieces cut at `cuts`. */
function scannedIds(text: string, cuts: number[]): (string | number)[] {
  const scanner = createIdScanner();
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    scanner.feed(text.slice(from, cut));
    from = cut;
  }
  return scanner.ids();
}

/** A small deterministic generator (mulberry32), so every run tries the same inputs. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('createIdScanner', () => {
  it('reads the top-level id of a message, not an id nested in its params', () => {
    assert.deepEqual(
      scannedIds('{"jsonrpc":"2.0","params":{"id":"inner","x":[{"id":3}]},"id":"outer","method":"ping"}', []),
      ['outer'],
    );
  });

  it('reads the id of each element of a batch, in order, leaving out elements without one', () => {
    assert.deepEqual(scannedIds('[{"id":1,"method":"a"},{"method":"notifications/x"},{"method":"b","id":"two"}]', []), [
      1,
      'two',
    ]);
  });

  it('keeps the last of duplicate id members, as JSON.parse does', () => {
    assert.deepEqual(scannedIds('{"id":1,"method":"a","id":"second"}', []), ['second']);
  });

  it('reads a member name written with escapes, and an id string with escapes', () => {
    assert.deepEqual(scannedIds('{"\\u0069d":"a\\"b\\\\c","method":"m"}', []), ['a"b\\c']);
  });

  it('reads no id that is not a string or an integer (MCP 2025-11-25, Base Protocol)', () => {
    assert.deepEqual(
      ['{"id":1.5}', '{"id":true}', '{"id":null}', '{"id":{"x":1}}', '{"id":[1]}', '{"id":1e400}'].map((text) =>
        scannedIds(text, []),
      ),
      [[], [], [], [], [], []],
    );
  });

  it('keeps an integer id past 2^53 as its text behind OVERSIZED_ID_PREFIX, so its refusal goes out under that id', () => {
    assert.deepEqual(
      ['{"id":12345678901234567890}', '{"id":-9007199254740993}'].map((text) => scannedIds(text, [])),
      [[`${OVERSIZED_ID_PREFIX}12345678901234567890`], [`${OVERSIZED_ID_PREFIX}-9007199254740993`]],
    );
  });

  it(`keeps no id longer than ${MAX_SCANNED_ID_TEXT} characters`, () => {
    assert.deepEqual(scannedIds(JSON.stringify({ id: 'x'.repeat(MAX_SCANNED_ID_TEXT + 1), method: 'm' }), []), []);
  });

  it('reads no id after the message has closed, so trailing text lends it none', () => {
    assert.deepEqual(scannedIds('{"jsonrpc":"2.0","id":"A","method":"ping"} {"id":"B"}', [30]), ['A']);
  });

  it('reads no id from a text that is not an object or array', () => {
    assert.deepEqual(
      ['x{"id":"C"}', '"s"{"id":1}', '7 {"id":1}'].map((text) => scannedIds(text, [])),
      [[], [], []],
    );
  });

  it('reads an id written 8.0 or 8e0 as 8, as the session reads the parsed message', () => {
    assert.deepEqual(
      ['{"id":8.0}', '{"id":8e0}', '{"id":-0.5e1}', '{"id":10E-1}'].map((text) => scannedIds(text, [])),
      [[8], [8], [-5], [1]],
    );
  });

  it('reads the same ids from a text cut at every position', () => {
    const text = '[{"jsonrpc":"2.0","id":"a\\\\\\"b","params":{"id":9,"s":"x\\\\"}},{"id":-42,"method":"m"}]';
    const expected = oracleIds(text);
    const differing = [];
    for (let cut = 0; cut <= text.length; cut++)
      if (JSON.stringify(scannedIds(text, [cut])) !== JSON.stringify(expected)) differing.push(cut);
    assert.deepEqual([expected, differing], [['a\\"b', -42], []]);
  });

  it('agrees with JSON.parse on 2,000 generated messages and batches, each cut into random pieces (seed 14)', () => {
    const next = random(14);
    const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)]!;
    const strings = ['', 'id', 'a"b', 'back\\slash', 'é', '\u2028', 'x'.repeat(300), '\\u0069d'];
    const scalar = (): unknown =>
      pick([() => pick(strings), () => Math.floor(next() * 2000) - 1000, () => next() * 10, () => true, () => null])();
    const value = (depth: number): unknown => {
      if (depth > 3 || next() < 0.4) return scalar();
      if (next() < 0.5) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (let index = Math.floor(next() * 4); index > 0; index--)
        object[pick(['id', 'method', 'params', pick(strings)])] = value(depth + 1);
      return object;
    };
    const message = () => {
      const object: Record<string, unknown> = { jsonrpc: '2.0', method: 'm', params: value(1) };
      if (next() < 0.8)
        object.id = pick([
          () => pick(strings),
          () => Math.floor(next() * 1e6),
          () => next(),
          () => null,
          () => value(2),
        ])();
      return object;
    };
    const differing: string[] = [];
    for (let round = 0; round < 2000; round++) {
      const item = next() < 0.3 ? Array.from({ length: 1 + Math.floor(next() * 4) }, message) : message();
      let text = JSON.stringify(item);
      // A duplicate id member, which JSON.stringify never writes, in some of them.
      if (!Array.isArray(item) && next() < 0.2) text = text.replace(/^\{/, '{"id":"first",');
      const cuts = Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * text.length)).sort(
        (a, b) => a - b,
      );
      if (JSON.stringify(scannedIds(text, cuts)) !== JSON.stringify(oracleIds(text)))
        differing.push(text.slice(0, 200));
    }
    assert.deepEqual(differing, []);
  });
});

/** Depth and value count of a parsed JSON value, as `measureJsonText` defines them: the oracle is `JSON.parse`. */
function oracleSize(text: string): { depth: number; values: number } {
  let values = 0;
  const depthOf = (value: unknown): number => {
    values++;
    if (value === null || typeof value !== 'object') return 0;
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  };
  const depth = depthOf(JSON.parse(text));
  return { depth, values };
}

describe('measureJsonText', () => {
  it('reads strings dense with escaped quotes and backslashes to the same end as JSON.parse (issue 18)', () => {
    const next = random(18);
    const pieces = ['"', '\\', '\\"', '"\\', '[', '{', ',', ':', ']', 'a', 'é', '\u2028'];
    const string = () =>
      Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
    const value = (depth: number): unknown => {
      const pick = next();
      if (depth > 3 || pick < 0.4) return string();
      if (pick < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [string(), value(depth + 1)]));
    };
    const texts = Array.from({ length: 2000 }, () => JSON.stringify(value(0)));
    assert.deepEqual(
      texts.map((text) => measureJsonText(text)),
      texts.map(oracleSize),
    );
  });
});
