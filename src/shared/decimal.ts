/**
 * Exact decimal numbers, as JSON writes them (RFC 8259, 6), for comparing a number as written instead of the
 * double `JSON.parse` made of it. Pure; no imports. Parsing and comparing are linear in the text's length;
 * `isMultipleOf` uses BigInt on the significant digits, so callers bound the texts they pass (a few hundred
 * characters).
 */

/**
 * A finite decimal number: `(negative ? -1 : 1) * digits * 10^exponent`. `digits` holds the significant digits
 * without leading or trailing zeros (`''` for zero, which is never negative: -0 is 0). An exponent too large for a
 * double's integers saturates (it only ever makes a number further from every finite double).
 */
export type Decimal = { negative: boolean; digits: string; exponent: number };

/** The JSON number grammar (RFC 8259, 6), also accepting the `e+21` / `5e-324` forms `String(number)` writes. */
const NUMBER_TEXT = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Reads a JSON number text exactly.
 * @param text E.g. `9223372036854775807`, `-0.10`, `9.223372036854775807e18`, `1e400`.
 * @returns The decimal, or undefined for a text that is not a JSON number (`Infinity`, `NaN`, `1.`, ` 1`).
 */
export function parseDecimal(text: string): Decimal | undefined {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const whole = match[2]!;
  const fraction = match[3] ?? '';
  let all = whole + fraction;
  let exponent = (match[4] === undefined ? 0 : Number(match[4])) - fraction.length;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 0x30) first++;
  let last = all.length;
  while (last > first && all.charCodeAt(last - 1) === 0x30) last--;
  if (first === last) return { negative: false, digits: '', exponent: 0 };
  exponent += all.length - last;
  all = all.slice(first, last);
  return { negative: match[1] === '-', digits: all, exponent };
}

/**
 * The exact decimal a finite double stands for in JSON: the shortest text that reads back as it
 * (`String(value)`, ECMA-262 Number::toString), which is what the JSON text said whenever parsing changed nothing.
 * @returns The decimal, or undefined for NaN and the infinities.
 */
export function decimalOfNumber(value: number): Decimal | undefined {
  return Number.isFinite(value) ? parseDecimal(String(value)) : undefined;
}

/** The exact decimal of a BigInt. */
export function decimalOfBigInt(value: bigint): Decimal {
  return parseDecimal(value.toString())!;
}

/** Where the first significant digit sits: `digits.length - 1 + exponent` (0 for 1..9, 2 for 100..999). */
function order(value: Decimal): number {
  return value.digits.length - 1 + value.exponent;
}

/**
 * Compares two decimals exactly.
 * @returns -1 when `a < b`, 0 when equal (1.0 equals 1, -0 equals 0), 1 when `a > b`.
 */
export function compareDecimals(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const signA = a.digits === '' ? 0 : a.negative ? -1 : 1;
  const signB = b.digits === '' ? 0 : b.negative ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  const magnitude = compareMagnitudes(a, b);
  return signA < 0 && magnitude !== 0 ? (-magnitude as -1 | 1) : magnitude;
}

function compareMagnitudes(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const orderA = order(a);
  const orderB = order(b);
  if (orderA !== orderB) return orderA < orderB ? -1 : 1;
  // Same order of magnitude: digit strings compare as numbers once aligned at their first digit.
  if (a.digits === b.digits) return 0;
  return a.digits < b.digits ? -1 : 1;
}

/** Whether a decimal is an integer (JSON Schema 2020-12 Validation, 6.1.1: 1.0 is an integer). */
export function isIntegerDecimal(value: Decimal): boolean {
  return value.exponent >= 0 || value.digits === '';
}

/**
 * Whether `value` divided by `divisor` is an integer, exactly (JSON Schema 2020-12 Validation, 6.2.1), however large
 * or small either is: `0.3` is a multiple of `0.1`, `0.30000000000000004` is not, `1e308` is a multiple of `0.5`.
 * @param divisor Greater than 0.
 */
export function isMultipleOf(value: Decimal, divisor: Decimal): boolean {
  if (value.digits === '') return true;
  const a = BigInt(value.digits);
  const b = BigInt(divisor.digits);
  const shift = value.exponent - divisor.exponent;
  if (shift >= 0) {
    // b divides a * 10^shift; past the number of 2s and 5s b can hold, more tens change nothing.
    const tens = Math.min(shift, 4 * divisor.digits.length + 4);
    return (a * 10n ** BigInt(tens)) % b === 0n;
  }
  // b * 10^-shift divides a: impossible once it has more digits than a.
  if (divisor.digits.length - shift > value.digits.length) return false;
  return a % (b * 10n ** BigInt(-shift)) === 0n;
}

/** Half of a decimal, exactly (times 5, over 10). */
function shifted(value: Decimal): Decimal {
  const times5 = parseDecimal((BigInt(value.digits || '0') * 5n).toString())!;
  return times5.digits === ''
    ? times5
    : { negative: value.negative, digits: times5.digits, exponent: times5.exponent + value.exponent - 1 };
}

/**
 * The range of numbers a JSON text may have held when parsing gave this double (RFC 8259, 6; IEEE 754 rounds
 * to nearest): the double itself when it is below 2^53 (the document is taken to say what it reads as), otherwise
 * every number within half a step of it on either side (9223372036854775807 and 9223372036854775808 both parse to
 * 2^63, which stands for 9223372036854775296..9223372036854776832). The ends are included, so a number there counts
 * as undecided rather than decided by a tie rule.
 * @returns `{value, low, high, exact}`: `value` the double's own value exactly (2^63 is 9223372036854775808); `exact`
 *   when low equals high. Undefined for NaN and the infinities.
 */
export function rangeOfDouble(
  value: number,
): { value: Decimal; low: Decimal; high: Decimal; exact: boolean } | undefined {
  const decimal = decimalOfNumber(value);
  if (!decimal) return undefined;
  // Below 2^53 every integer is a double; 2^53 itself is also what 2^53 + 1 parses to.
  if (Math.abs(value) < 2 ** 53) return { value: decimal, low: decimal, high: decimal, exact: true };
  const magnitude = BigInt(Math.abs(value));
  const bits = magnitude.toString(2).length;
  const step = 2n ** BigInt(bits - 53);
  // At a power of two the doubles below are twice as close.
  const below = magnitude === 2n ** BigInt(bits - 1) ? step / 2n : step;
  const near = shifted(decimalOfBigInt(below));
  const far = shifted(decimalOfBigInt(step));
  const exactValue = decimalOfBigInt(magnitude);
  const lowMagnitude = subtract(exactValue, near);
  const highMagnitude = add(exactValue, far);
  return value > 0
    ? { value: exactValue, low: lowMagnitude, high: highMagnitude, exact: false }
    : { value: negate(exactValue), low: negate(highMagnitude), high: negate(lowMagnitude), exact: false };
}

function negate(value: Decimal): Decimal {
  return value.digits === '' ? value : { ...value, negative: !value.negative };
}

/** A decimal as a BigInt scaled by 10^-exponent (exponent at most the decimal's own). */
function scaled(value: Decimal, exponent: number): bigint {
  const units = BigInt(value.digits || '0') * 10n ** BigInt(value.exponent - exponent);
  return value.negative ? -units : units;
}

function fromScaled(units: bigint, exponent: number): Decimal {
  const decimal = parseDecimal((units < 0n ? -units : units).toString())!;
  if (decimal.digits === '') return decimal;
  return { negative: units < 0n, digits: decimal.digits, exponent: decimal.exponent + exponent };
}

/** a + b, exactly; for decimals of similar size (the exponents' difference is spelled out in digits). */
function add(a: Decimal, b: Decimal): Decimal {
  const exponent = Math.min(a.exponent, b.exponent);
  return fromScaled(scaled(a, exponent) + scaled(b, exponent), exponent);
}

function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, negate(b));
}

/**
 * A decimal written out exactly: plain digits while that takes at most 40 characters (`9223372036854775808`,
 * `0.0001`), else `d.ddde±n`.
 */
export function formatDecimal(value: Decimal): string {
  if (value.digits === '') return '0';
  const sign = value.negative ? '-' : '';
  const { digits, exponent } = value;
  if (exponent >= 0 && digits.length + exponent <= 40) return sign + digits + '0'.repeat(exponent);
  if (exponent < 0 && digits.length - exponent <= 40) {
    const point = digits.length + exponent;
    return point > 0
      ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
      : `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
  const power = order(value);
  return `${sign}${digits[0]}${rest}e${power < 0 ? '-' : '+'}${Math.abs(power)}`;
}

/**
 * Whether a JSON number text reads back as the same number through a double: the text and the double's shortest
 * text are one number (`1.0` and `1`, `-0` and `0` are; `9007199254740993`, `0.30000000000000000001` and `1e400` are
 * not). RFC 8259, 6 (numbers beyond a double's precision or range).
 * @param text A JSON number text.
 * @param parsed What `Number(text)` or `JSON.parse(text)` gave.
 */
export function readsExactly(text: string, parsed: number): boolean {
  const written = parseDecimal(text);
  const read = decimalOfNumber(parsed);
  if (written === undefined || read === undefined) return false;
  if (compareDecimals(written, read) === 0) return true;
  // 18446744073709551616 is 2^64 exactly, though its shortest text is 18446744073709552000.
  return Math.abs(parsed) > 2 ** 53 && compareDecimals(written, decimalOfBigInt(BigInt(parsed))) === 0;
}

/**
 * The number a parsed double stands for when its JSON text read exactly (`readsExactly`): its shortest text,
 * except for an integer from 2^53 to 10^21, which JSON writers spell in full: its own value (2^64 is
 * 18446744073709551616, not 18446744073709552000).
 * @returns The decimal, or undefined for NaN and the infinities.
 */
export function decimalOfParsed(value: number): Decimal | undefined {
  const magnitude = Math.abs(value);
  if (magnitude > 2 ** 53 && magnitude < 1e21) return decimalOfBigInt(BigInt(value));
  return decimalOfNumber(value);
}
