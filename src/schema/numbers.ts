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
  const out: NumberProblem[] = [];
  const exactText = text !== undefined ? parseDecimal(text) : undefined;
  let decimal: Decimal | undefined | null = exactText;
  const exact = (): Decimal | undefined => (decimal ??= decimalOfParsed(value) ?? null) ?? undefined;
  const written = exactText ? text! : Math.abs(value) > 2 ** 53 && exact() ? formatDecimal(exact()!) : String(value);
  // Within ±2^53 with nothing changed, comparing doubles is comparing the numbers themselves.
  const plain = exactText === undefined && Number.isFinite(value) && Math.abs(value) <= 2 ** 53;

  const bound = (side: Side, at: Side, limit: number): void => {
    if (plain && Math.abs(limit) <= 2 ** 53) {
      const ok =
        side === 'minimum'
          ? value >= limit
          : side === 'maximum'
            ? value <= limit
            : side === 'exclusiveMinimum'
              ? value > limit
              : value < limit;
      if (!ok) out.push(boundProblem(side, written, String(limit)));
      return;
    }
    const range = rangeOfDouble(limit);
    const number = exact();
    if (!range || !number) {
      // An infinity on either side (a schema built in code, a value not from JSON): the doubles decide.
      const ok =
        side === 'minimum'
          ? value >= limit
          : side === 'maximum'
            ? value <= limit
            : side === 'exclusiveMinimum'
              ? value > limit
              : value < limit;
      if (!ok) out.push(boundProblem(side, written, String(limit)));
      return;
    }
    const verdict = boundVerdict(number, range, side);
    if (verdict === false) out.push(boundProblem(side, written, shownLimit(range, limit)));
    else if (verdict === undefined)
      out.push({
        kind: 'notChecked',
        at,
        keyword: at,
        message: `was not checked against \`${at}\`: ${imprecise(range, at)}, and ${written} lies in that range`,
      });
  };

  if (typeof schema.minimum === 'number') {
    // OAS 3.0 / draft 4: a boolean exclusiveMinimum makes minimum exclusive.
    if (schema.exclusiveMinimum === true) bound('exclusiveMinimum', 'exclusiveMinimum', schema.minimum);
    else bound('minimum', 'minimum', schema.minimum);
  }
  if (typeof schema.maximum === 'number') {
    if (schema.exclusiveMaximum === true) bound('exclusiveMaximum', 'exclusiveMaximum', schema.maximum);
    else bound('maximum', 'maximum', schema.maximum);
  }
  // OAS 3.1 / JSON Schema 2020-12 number form
  if (typeof schema.exclusiveMinimum === 'number')
    bound('exclusiveMinimum', 'exclusiveMinimum', schema.exclusiveMinimum);
  if (typeof schema.exclusiveMaximum === 'number')
    bound('exclusiveMaximum', 'exclusiveMaximum', schema.exclusiveMaximum);

  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    const divisor = schema.multipleOf;
    const verdict = multipleVerdict(value, exactText, divisor, exact);
    const shown = String(divisor);
    if (verdict === false)
      out.push({
        kind: 'constraint',
        at: 'multipleOf',
        keyword: 'multipleOf',
        message: `is ${written}, not a multiple of ${shown}`,
      });
    else if (verdict === undefined)
      out.push({
        kind: 'notChecked',
        at: 'multipleOf',
        keyword: 'multipleOf',
        message: `was not checked against \`multipleOf\`: ${imprecise(rangeOfDouble(divisor)!, 'multipleOf')}`,
      });
  }

  // int32/int64 are ranges (OAS 3.0.3 Data Types); float/double constrain precision only, not sign.
  if (schema.format === 'int32' || schema.format === 'int64') {
    const format = schema.format;
    const limits = INTEGER_FORMATS[format];
    let integer: boolean;
    let inside: boolean;
    if (plain && Number.isInteger(value)) {
      integer = true;
      inside = format === 'int64' || (value >= Number(limits.low) && value <= Number(limits.high));
    } else {
      const number = exact();
      integer = number ? isIntegerDecimal(number) : Number.isInteger(value);
      inside =
        number !== undefined &&
        compareDecimals(number, RANGES[format].low) >= 0 &&
        compareDecimals(number, RANGES[format].high) <= 0;
    }
    if (!integer)
      out.push({
        kind: 'format',
        at: 'format',
        keyword: format,
        message: `is ${written}, not an integer as ${format} requires`,
      });
    else if (!inside)
      out.push({
        kind: 'format',
        at: 'format',
        keyword: format,
        message: `is ${written}, outside the ${format} range ${limits.low}..${limits.high}`,
      });
  }
  return out;
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

function multipleVerdict(
  value: number,
  exactText: Decimal | undefined,
  divisor: number,
  exact: () => Decimal | undefined,
): boolean | undefined {
  // Two integers within 2^53: the remainder is exact in IEEE 754 (fmod).
  if (exactText === undefined && Number.isSafeInteger(value) && Number.isSafeInteger(divisor))
    return value % divisor === 0;
  const number = exact();
  const range = rangeOfDouble(divisor);
  if (!number || !range) {
    // Not from JSON (an infinity): no finite quotient is an integer.
    return Number.isInteger(value / divisor);
  }
  if (number.digits === '') return true;
  if (!range.exact) return undefined;
  return isMultipleOf(number, range.low);
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
