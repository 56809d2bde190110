/**
 * A number against a schema's numeric keywords, compared exactly: `minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum` (JSON Schema 2020-12 Validation, 6.2; the OAS 3.0.3 / draft 4 boolean forms), `multipleOf`,
 * and the OpenAPI formats `int32` / `int64` (OAS 3.0.3, 4.4 Data Types: signed 32 and 64 bits). The number is
 * the one the JSON text wrote, when its parse changed it (a BigInt or decimal comparison, never the double), and
 * a document's number past 2^53 is read as every number that parses to it (`rangeOfDouble`).
 */
import {
  compareDecimals,
  decimalOfParsed,
  formatDecimal,
  isIntegerDecimal,
  isMultipleOf,
  parseDecimal,
  rangeOfDouble,
} from '../shared/decimal.ts';
import type { Decimal } from '../shared/decimal.ts';

/**
 * One problem of a number: `kind` `constraint` (a bound or `multipleOf`), `format` (`int32` / `int64`), or
 * `notChecked` (the document's own number is too imprecise to decide); `at` is the schema keyword it sits under
 * (`maximum`, `format`), `keyword` what the finding names (`maximum`, `int64`), `message` the sentence.
 */
export type NumberProblem = {
  kind: 'constraint' | 'format' | 'notChecked';
  at: string;
  keyword: string;
  message: string;
};

/** The integer ranges of the OpenAPI formats (OAS 3.0.3, 4.4 Data Types), exactly. */
export const INTEGER_FORMATS = {
  int32: { low: '-2147483648', high: '2147483647' },
  int64: { low: '-9223372036854775808', high: '9223372036854775807' },
} as const;

const RANGES = {
  int32: { low: parseDecimal(INTEGER_FORMATS.int32.low)!, high: parseDecimal(INTEGER_FORMATS.int32.high)! },
  int64: { low: parseDecimal(INTEGER_FORMATS.int64.low)!, high: parseDecimal(INTEGER_FORMATS.int64.high)! },
};

type Side = 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum';
type Range = NonNullable<ReturnType<typeof rangeOfDouble>>;

const WORDS: Record<Side, string> = {
  minimum: 'less than minimum',
  maximum: 'more than maximum',
  exclusiveMinimum: 'must be greater than',
  exclusiveMaximum: 'must be less than',
};

/**
 * Checks a number against the numeric keywords of one schema object.
 * @param schema The Schema Object (its other keywords are ignored).
 * @param value The number as parsed.
 * @param text The number as the JSON text wrote it, when parsing changed it (`9223372036854775807`, `1e400`);
 *   undefined when the double is the number. A text that is not a JSON number is ignored.
 * @returns The problems in keyword order (minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
 *   format), `[]` when none. Values and bounds are printed exactly: the text as written, a document's number
 *   past 2^53 as the integer it parsed to with the range it stands for, the int64 range as
 *   -9223372036854775808..9223372036854775807. Never throws.
 */
export function numberProblems(schema: Record<string, unknown>, value: number, text?: string): NumberProblem[] {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, format } = schema;
  let out: NumberProblem[] | undefined;
  const exactText = text !== undefined ? parseDecimal(text) : undefined;
  // Within ±2^53 with nothing changed, comparing doubles is comparing the numbers themselves.
  const subject: Subject = {
    value,
    text: exactText ? text : undefined,
    decimal: exactText,
    plain: exactText === undefined && Number.isFinite(value) && Math.abs(value) <= 2 ** 53,
  };
  if (typeof minimum === 'number')
    // OAS 3.0 / draft 4: a boolean exclusiveMinimum makes minimum exclusive.
    out = added(out, bound(subject, exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum', minimum));
  if (typeof maximum === 'number')
    out = added(out, bound(subject, exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum', maximum));
  // OAS 3.1 / JSON Schema 2020-12 number form
  if (typeof exclusiveMinimum === 'number') out = added(out, bound(subject, 'exclusiveMinimum', exclusiveMinimum));
  if (typeof exclusiveMaximum === 'number') out = added(out, bound(subject, 'exclusiveMaximum', exclusiveMaximum));
  if (typeof multipleOf === 'number' && multipleOf > 0) {
    const verdict = multipleVerdict(subject, multipleOf);
    if (verdict === false)
      out = added(out, {
        kind: 'constraint',
        at: 'multipleOf',
        keyword: 'multipleOf',
        message: `is ${writtenOf(subject)}, not a multiple of ${multipleOf}`,
      });
    else if (verdict === undefined)
      out = added(out, {
        kind: 'notChecked',
        at: 'multipleOf',
        keyword: 'multipleOf',
        message: `was not checked against \`multipleOf\`: ${imprecise(rangeOfDouble(multipleOf)!, 'multipleOf')}`,
      });
  }
  // int32/int64 are ranges (OAS 3.0.3 Data Types); float/double constrain precision only, not sign.
  if (format === 'int32' || format === 'int64') out = added(out, integerFormat(subject, format));
  return out ?? NONE;
}

const NONE: NumberProblem[] = [];

/** The list with one more problem, made on the first (no closure: tsx wraps each closure per call). */
function added(out: NumberProblem[] | undefined, problem: NumberProblem | undefined): NumberProblem[] | undefined {
  if (!problem) return out;
  (out ??= []).push(problem);
  return out;
}

/** The number checked: as parsed, as written (when parsing changed it), and its exact decimal once needed. */
type Subject = { value: number; text: string | undefined; decimal: Decimal | undefined | null; plain: boolean };

function exactOf(subject: Subject): Decimal | undefined {
  if (subject.decimal === undefined) subject.decimal = decimalOfParsed(subject.value) ?? null;
  return subject.decimal ?? undefined;
}

/**
 * A number's text as a finding prints it: whole up to 60 characters, else its first 40 and its length, so a
 * 1,000-digit number does not fill the answer.
 */
export function shownText(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 40)}... (${text.length} characters)`;
}

/** The number as a finding prints it: as written, or the double's own value past 2^53 (2^64 in full). */
function writtenOf(subject: Subject): string {
  if (subject.text !== undefined) return shownText(subject.text);
  const exact = Math.abs(subject.value) > 2 ** 53 ? exactOf(subject) : undefined;
  return exact ? formatDecimal(exact) : String(subject.value);
}

function holds(side: Side, value: number, limit: number): boolean {
  return side === 'minimum'
    ? value >= limit
    : side === 'maximum'
      ? value <= limit
      : side === 'exclusiveMinimum'
        ? value > limit
        : value < limit;
}

function bound(subject: Subject, side: Side, limit: number): NumberProblem | undefined {
  if (subject.plain && Math.abs(limit) < 2 ** 53) {
    return holds(side, subject.value, limit) ? undefined : boundProblem(side, writtenOf(subject), String(limit));
  }
  const range = rangeOfDouble(limit);
  const number = exactOf(subject);
  // An infinity on either side (a schema built in code, a value not from JSON): the doubles decide.
  if (!range || !number)
    return holds(side, subject.value, limit) ? undefined : boundProblem(side, writtenOf(subject), String(limit));
  const verdict = boundVerdict(number, range, side);
  if (verdict === false) return boundProblem(side, writtenOf(subject), shownLimit(range, limit));
  if (verdict === true) return undefined;
  return {
    kind: 'notChecked',
    at: side,
    keyword: side,
    message: `was not checked against \`${side}\`: ${imprecise(range, side)}, and ${writtenOf(subject)} lies in that range`,
  };
}

function integerFormat(subject: Subject, format: 'int32' | 'int64'): NumberProblem | undefined {
  const limits = INTEGER_FORMATS[format];
  let integer: boolean;
  let inside: boolean;
  if (subject.plain && Number.isInteger(subject.value)) {
    integer = true;
    inside = format === 'int64' || (subject.value >= -2147483648 && subject.value <= 2147483647);
  } else {
    const number = exactOf(subject);
    integer = number ? isIntegerDecimal(number) : Number.isInteger(subject.value);
    inside =
      number !== undefined &&
      compareDecimals(number, RANGES[format].low) >= 0 &&
      compareDecimals(number, RANGES[format].high) <= 0;
  }
  if (!integer)
    return {
      kind: 'format',
      at: 'format',
      keyword: format,
      message: `is ${writtenOf(subject)}, not an integer as ${format} requires`,
    };
  if (!inside)
    return {
      kind: 'format',
      at: 'format',
      keyword: format,
      message: `is ${writtenOf(subject)}, outside the ${format} range ${limits.low}..${limits.high}`,
    };
  return undefined;
}

/**
 * Whether a number equals a value the document lists (an `enum` member, a `const`), compared exactly:
 * `9223372036854775807` as written against the document's number.
 * @param text The number as the JSON text wrote it.
 * @param member The document's value, as parsed.
 * @returns true or false; undefined when the document's number is past 2^53 and the text is among the numbers
 *   that parse to it (see `rangeOfDouble`), so the two cannot be told apart. False for a text that is not a number.
 */
export function equalsWrittenNumber(text: string, member: unknown): boolean | undefined {
  if (typeof member !== 'number') return false;
  const number = parseDecimal(text);
  const range = rangeOfDouble(member);
  if (!number || !range) return false;
  if (range.exact) return compareDecimals(number, range.low) === 0;
  return compareDecimals(number, range.low) >= 0 && compareDecimals(number, range.high) <= 0 ? undefined : false;
}

/**
 * Whether a number written as `text` is an integer (JSON Schema 2020-12 Validation, 6.1.1): `1e400` is,
 * `1.5e-400` is not, though it parses to 0. Undefined for a text that is not a number.
 */
export function isWrittenInteger(text: string): boolean | undefined {
  const number = parseDecimal(text);
  return number ? isIntegerDecimal(number) : undefined;
}

/** true: passes for every number the range stands for; false: fails for every one; undefined: undecided. */
function boundVerdict(number: Decimal, range: Range, side: Side): boolean | undefined {
  const low = compareDecimals(number, range.low);
  const high = compareDecimals(number, range.high);
  switch (side) {
    case 'maximum':
      return low <= 0 ? true : high > 0 ? false : undefined;
    case 'minimum':
      return high >= 0 ? true : low < 0 ? false : undefined;
    case 'exclusiveMaximum':
      return low < 0 ? true : high >= 0 ? false : undefined;
    case 'exclusiveMinimum':
      return high > 0 ? true : low <= 0 ? false : undefined;
  }
}

function multipleVerdict(subject: Subject, divisor: number): boolean | undefined {
  const value = subject.value;
  if (subject.plain && Number.isFinite(divisor) && Math.abs(divisor) < 2 ** 53) {
    // Two integers within 2^53: the remainder is exact in IEEE 754 (fmod).
    if (Number.isInteger(value) && Number.isInteger(divisor)) return value % divisor === 0;
    // A number with a fraction is no multiple of an integer.
    if (Number.isInteger(divisor)) return false;
    const fast = scaledMultiple(value, divisor);
    if (fast !== undefined) return fast;
  }
  const number = exactOf(subject);
  const range = rangeOfDouble(divisor);
  // Not from JSON (an infinity): no finite quotient is an integer.
  if (!number || !range) return Number.isInteger(value / divisor);
  if (number.digits === '') return true;
  if (!range.exact) return undefined;
  return isMultipleOf(number, range.low);
}

/** The last divisor's shortest text as an integer over a power of ten (0.01 as 1 over 10^2), kept for the next call. */
let lastDivisor = Number.NaN;
let lastScale: { units: number; places: number } | undefined;

function scaleOf(divisor: number): { units: number; places: number } | undefined {
  if (divisor === lastDivisor) return lastScale;
  lastDivisor = divisor;
  const text = String(divisor);
  const point = text.indexOf('.');
  const places = point === -1 ? 0 : text.length - point - 1;
  const units = Number(point === -1 ? text : text.slice(0, point) + text.slice(point + 1));
  lastScale = text.includes('e') || places > 15 || !Number.isSafeInteger(units) ? undefined : { units, places };
  return lastScale;
}

/**
 * multipleOf decided on doubles alone, exactly, when the value's shortest text has at most 15 digits and no more
 * decimal places than the divisor: then n = round(value * 10^places) is that text as an integer (the error of the
 * product stays below 0.5), and `n / 10^places === value` proves it (two decimals of at most 15 digits never round
 * to one double). Undefined when that proof fails: the caller divides decimals.
 */
function scaledMultiple(value: number, divisor: number): boolean | undefined {
  const scale = scaleOf(divisor);
  if (!scale) return undefined;
  const power = 10 ** scale.places;
  const units = Math.round(value * power);
  if (Math.abs(units) >= 1e15 || units / power !== value) return undefined;
  return units % scale.units === 0;
}

function boundProblem(side: Side, written: string, limit: string): NumberProblem {
  return { kind: 'constraint', at: side, keyword: side, message: `is ${written}, ${WORDS[side]} ${limit}` };
}

/** A document's number past 2^53 as printed in a finding: the integer it parsed to, and what it stands for. */
function shownLimit(range: Range, limit: number): string {
  if (range.exact) return String(limit);
  return `${shown(range.value)} (the document's number as parsed; it stands for any number from ${shown(range.low)} to ${shown(range.high)})`;
}

function imprecise(range: Range, keyword: string): string {
  return `the document's \`${keyword}\` parses to ${shown(range.value)}, which a double cannot tell apart from any number from ${shown(range.low)} to ${shown(range.high)} (RFC 8259, 6)`;
}

/** A decimal exactly, or, past 40 significant digits (what a document's 1e308 stands for), its first 17. */
function shown(value: Decimal): string {
  if (value.digits.length <= 40) return formatDecimal(value);
  const cut = { ...value, digits: value.digits.slice(0, 17), exponent: value.exponent + value.digits.length - 17 };
  return `about ${formatDecimal(cut)}`;
}
