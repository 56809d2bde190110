/**
 * How a saved body (a fixture) differs from the live record: fields only live, only in the fixture, and values that
 * changed, by instance path, each list capped.
 */
import { compareSegments, deepEqual, hasOwn } from '../../validate.ts';
import { instancePath } from '../shared/json-pointer.ts';
import { boundedText } from '../shared/text.ts';
import { isPlainObject } from '../shared/values.ts';

/** One step of an instance path: a member name or an array index. */
type Segment = string | number;

/** Result of `compareWithFixture`: instance paths, sorted. */
export type FixtureDiff = {
  onlyLive: string[];
  onlyFixture: string[];
  changed: { path: string; fixture: unknown; live: unknown }[];
  /** How many entries past `MAX_DIFF_LISTED` each list left out; absent when none was cut. */
  more?: { onlyLive?: number; onlyFixture?: number; changed?: number };
};

/**
 * Compares a recorded fixture with a live body, field by field.
 * @returns `onlyLive` / `onlyFixture`: instance paths of fields or array elements present on one side only
 *   (the topmost such path, not its descendants); `changed`: paths where both have a value but it differs
 *   (a primitive, or a change of JSON type), with both values. Each list sorted by instance path and cut to the
 *   first `MAX_DIFF_LISTED` (500), `more` counting the rest; paths and string values past `MAX_DIFF_TEXT` (1,000
 *   characters) cut, an object or array value past it shown as `(an object of N characters of JSON, not shown)`.
 *   Never throws.
 */
export function compareWithFixture(fixture: unknown, live: unknown): FixtureDiff {
  const onlyLive: Segment[][] = [];
  const onlyFixture: Segment[][] = [];
  const changed: { segments: Segment[]; fixture: unknown; live: unknown }[] = [];
  const walk = (f: unknown, l: unknown, segments: Segment[], depth: number): void => {
    if (isPlainObject(f) && isPlainObject(l) && depth < 256) {
      for (const k of Object.keys(f)) {
        if (!hasOwn(l, k)) onlyFixture.push([...segments, k]);
        else walk(f[k], l[k], [...segments, k], depth + 1);
      }
      for (const k of Object.keys(l)) if (!hasOwn(f, k)) onlyLive.push([...segments, k]);
    } else if (Array.isArray(f) && Array.isArray(l) && depth < 256) {
      for (let i = 0; i < Math.max(f.length, l.length); i++) {
        if (i >= l.length) onlyFixture.push([...segments, i]);
        else if (i >= f.length) onlyLive.push([...segments, i]);
        else walk(f[i], l[i], [...segments, i], depth + 1);
      }
    } else if (!deepEqual(f, l)) {
      changed.push({ segments, fixture: f, live: l });
    }
  };
  walk(fixture, live, [], 0);
  // Issue 8: a list that grows with the body is cut at the source, and `more` counts the rest.
  const paths = (list: Segment[][]): string[] =>
    list
      .sort(compareSegments)
      .slice(0, MAX_DIFF_LISTED)
      .map((segments) => boundedText(instancePath(segments), MAX_DIFF_TEXT));
  const more: NonNullable<FixtureDiff['more']> = {};
  if (onlyLive.length > MAX_DIFF_LISTED) more.onlyLive = onlyLive.length - MAX_DIFF_LISTED;
  if (onlyFixture.length > MAX_DIFF_LISTED) more.onlyFixture = onlyFixture.length - MAX_DIFF_LISTED;
  if (changed.length > MAX_DIFF_LISTED) more.changed = changed.length - MAX_DIFF_LISTED;
  return {
    onlyLive: paths(onlyLive),
    onlyFixture: paths(onlyFixture),
    changed: changed
      .sort((a, b) => compareSegments(a.segments, b.segments))
      .slice(0, MAX_DIFF_LISTED)
      .map((c) => ({
        path: boundedText(instancePath(c.segments), MAX_DIFF_TEXT),
        fixture: shownValue(c.fixture),
        live: shownValue(c.live),
      })),
    ...(Object.keys(more).length ? { more } : {}),
  };
}

/** Entries each list of `compareWithFixture` holds at most (first by instance path). */
export const MAX_DIFF_LISTED = 500;
/** Longest path or string value `compareWithFixture` shows, in characters; longer ones cut by `boundedText`. */
export const MAX_DIFF_TEXT = 1_000;

/** A changed value as the diff shows it: a long string cut, an object or array of more than MAX_DIFF_TEXT characters of JSON named by its size. */
function shownValue(value: unknown): unknown {
  if (typeof value === 'string') return boundedText(value, MAX_DIFF_TEXT);
  if (value === null || typeof value !== 'object') return value;
  const text = JSON.stringify(value);
  return text.length <= MAX_DIFF_TEXT
    ? value
    : `(${Array.isArray(value) ? 'an array' : 'an object'} of ${text.length} characters of JSON, not shown)`;
}
