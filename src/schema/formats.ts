/**
 * The string formats the checker knows (JSON Schema 2020-12 Validation, 7.3), each to its RFC: `date-time`,
 * `date` and `time` (RFC 3339, 5.6, with 5.7's leap second), `email` (RFC 5321, 4.1.2 Mailbox), `uuid` (RFC 9562),
 * `uri` (RFC 3986, 3), `ipv4` (RFC 2673, 3.2 dotted-quad), `ipv6` (RFC 4291, 2.2). Every other format is not
 * checked (`CHECKED_FORMATS` lists the ones that are). Each test is one linear-time regular expression over the
 * value (no nested quantifiers that could backtrack) or, for `uri`, one scan of it, so an API's string cannot
 * stall the thread.
 */

/** The formats `stringFormatProblem` checks; any other format name is not checked. */
export const CHECKED_FORMATS = ['date-time', 'date', 'time', 'email', 'uuid', 'uri', 'ipv4', 'ipv6'] as const;

/** Whether a format name is one `stringFormatProblem` checks. */
export function isCheckedFormat(format: string): boolean {
  return (CHECKED_FORMATS as readonly string[]).includes(format);
}

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const FULL_TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Days in each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether year, month and day name a day of the proleptic Gregorian calendar (RFC 3339, 5.7). */
function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  if (month === 2 && day === 29) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= DAYS_IN_MONTH[month - 1]!;
}

function dateProblem(value: string): string | undefined {
  const m = FULL_DATE.exec(value);
  if (!m) return 'RFC 3339 full-date, e.g. 2024-05-01';
  return validDate(+m[1]!, +m[2]!, +m[3]!) ? undefined : 'RFC 3339 full-date: month or day out of range';
}

/**
 * RFC 3339, 5.6 full-time. 5.7: hour 00-23, minute 00-59, second 00-60, where 60 (a leap second) is the last second
 * of a UTC day: 23:59:60 once the offset is taken off (15:59:60-08:00 is, 23:59:60+01:00 is not).
 */
function timeFault(value: string): 'syntax' | 'range' | 'offset' | 'leap' | undefined {
  const m = FULL_TIME.exec(value);
  return m ? timeFieldsFault(m, 1) : 'syntax';
}

/** `timeFault` of the six full-time groups of `m` from index `first` on: hour, minute, second, sign, offset. */
function timeFieldsFault(m: RegExpExecArray, first: number): 'range' | 'offset' | 'leap' | undefined {
  const hour = +m[first]!;
  const minute = +m[first + 1]!;
  const second = +m[first + 2]!;
  const sign = m[first + 3];
  if (hour > 23 || minute > 59 || second > 60) return 'range';
  if (sign !== undefined && (+m[first + 4]! > 23 || +m[first + 5]! > 59)) return 'offset';
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (+m[first + 4]! * 60 + +m[first + 5]!);
  if (second === 60 && (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 !== 23 * 60 + 59) return 'leap';
  return undefined;
}

const TIME_FAULTS = {
  range: 'a field is out of range',
  offset: 'the offset is out of range',
  leap: 'second 60 (a leap second) falls only at 23:59 UTC',
} as const;

function timeProblem(value: string): string | undefined {
  const fault = timeFault(value);
  if (fault === 'syntax') return 'RFC 3339 full-time with an offset, e.g. 10:00:00Z';
  return fault && `RFC 3339 full-time: ${TIME_FAULTS[fault]}`;
}

function dateTimeProblem(value: string): string | undefined {
  // One expression for the whole value: this runs on every timestamp of every response.
  const m = DATE_TIME.exec(value);
  if (!m) return 'RFC 3339 date-time, e.g. 2024-05-01T10:00:00Z';
  if (!validDate(+m[1]!, +m[2]!, +m[3]!)) return `RFC 3339 date-time: ${TIME_FAULTS.range}`;
  const fault = timeFieldsFault(m, 4);
  return fault && `RFC 3339 date-time: ${TIME_FAULTS[fault]}`;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const HEX4 = /^[0-9A-Fa-f]{1,4}$/;

/** RFC 4291, 2.2: eight groups of 1-4 hex digits, one `::` for a run of zero groups, the last two as IPv4. */
function isIPv6(value: string): boolean {
  if (value.length > 45) return false;
  const halves = value.split('::');
  if (halves.length > 2) return false;
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const all = [...groups(halves[0]!), ...(halves.length === 2 ? groups(halves[1]!) : [])];
  let count = all.length;
  // A dotted-quad may end the address, standing for two groups; not before a trailing "::" (`1.2.3.4::`).
  const last = all[all.length - 1];
  if (last !== undefined && last.includes('.')) {
    if (!IPV4.test(last) || !value.endsWith(last)) return false;
    all.pop();
    count++;
  }
  if (!all.every((group) => HEX4.test(group))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const DOT_STRING = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED_STRING = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const MAILBOX = new RegExp(`^(?:${DOT_STRING}|${QUOTED_STRING})@(?:(${LABEL}(?:\\.${LABEL})*)|\\[([^\\]]*)\\])$`);

/** RFC 5321, 4.1.2: Local-part "@" ( Domain / address-literal ); the address literal IPv4 or `IPv6:` and IPv6. */
function isMailbox(value: string): boolean {
  const m = MAILBOX.exec(value);
  if (!m) return false;
  if (m[1] !== undefined) return true;
  const literal = m[2]!;
  return literal.startsWith('IPv6:') ? isIPv6(literal.slice(5)) : IPV4.test(literal);
}

// RFC 3986, 3: scheme ":" hier-part [ "?" query ] [ "#" fragment ]. Scanned by hand with a table of character
// classes: as one regular expression it tried a branch per character and was the largest cost of checking GitHub's
// responses (`format: uri` on most of their URLs); tests/format-uri.test.ts holds the two to the same strings.
const UNRESERVED_SUB = 1; // unreserved / sub-delims (2.3, 2.2 without gen-delims)
const SCHEME = 2; // ALPHA / DIGIT / "+" / "-" / "."
const HEX = 4;
const COLON = 8;
const AT = 16;
const SLASH = 32;
const QUESTION = 64;
const PERCENT = 128;
/** pchar (3.3), with "%" standing for a pct-encoded octet. */
const PCHAR = UNRESERVED_SUB | COLON | AT | PERCENT;
const URI_CLASSES = new Uint8Array(128);
for (const [characters, bit] of [
  ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=", UNRESERVED_SUB],
  ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-.', SCHEME],
  ['0123456789ABCDEFabcdef', HEX],
  [':', COLON],
  ['@', AT],
  ['/', SLASH],
  ['?', QUESTION],
  ['%', PERCENT],
] as const)
  for (const c of characters) URI_CLASSES[c.charCodeAt(0)]! |= bit;

/** Whether every character of `value[from, to)` is in one of the classes of `mask` (bits of URI_CLASSES). */
function allOf(value: string, from: number, to: number, mask: number): boolean {
  for (let i = from; i < to; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128 || (URI_CLASSES[code]! & mask) === 0) return false;
  }
  return true;
}

/** IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) (RFC 3986, 3.2.2; "v" either case, as in ABNF). */
const IPV_FUTURE = /^[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

/** authority = [ userinfo "@" ] host [ ":" port ] (3.2), `value[from, to)`; host an IP-literal or a reg-name. */
function isAuthority(value: string, from: number, to: number): boolean {
  const at = value.indexOf('@', from);
  let host = from;
  if (at !== -1 && at < to) {
    if (!allOf(value, from, at, UNRESERVED_SUB | COLON | PERCENT)) return false;
    host = at + 1;
  }
  let port: number;
  if (value[host] === '[') {
    const close = value.indexOf(']', host);
    if (close === -1 || close >= to) return false;
    // IP-literal = "[" ( IPv6address / IPvFuture ) "]" (3.2.2)
    const literal = value.slice(host + 1, close);
    if (!isIPv6(literal) && !IPV_FUTURE.test(literal)) return false;
    port = close + 1;
    if (port < to && value[port] !== ':') return false;
  } else {
    const colon = value.indexOf(':', host);
    port = colon === -1 || colon >= to ? to : colon;
    if (!allOf(value, host, port, UNRESERVED_SUB | PERCENT)) return false;
  }
  for (let i = port + 1; i < to; i++) if (value.charCodeAt(i) < 48 || value.charCodeAt(i) > 57) return false;
  return true;
}

/**
 * The common URL, `http(s)://` a reg-name host, an optional port and a path of unreserved, sub-delims, ":" and "@":
 * a subset of the `URI` rule, tested first because one simple expression is four times faster than the scan.
 */
const PLAIN_URL = /^https?:\/\/[A-Za-z0-9\-._~!$&'()*+,;=]*(?::\d*)?(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)?$/;

/** RFC 3986, 4.3 absolute URI with an optional fragment (the `URI` rule of 3), "%" followed by two hex digits. */
function isUri(value: string): boolean {
  if (PLAIN_URL.test(value)) return true;
  const first = value.charCodeAt(0);
  if (!(first < 128 && (URI_CLASSES[first]! & SCHEME) !== 0 && (first | 32) >= 97 && (first | 32) <= 122)) return false;
  let colon = 1;
  while (
    colon < value.length &&
    value.charCodeAt(colon) < 128 &&
    (URI_CLASSES[value.charCodeAt(colon)]! & SCHEME) !== 0
  )
    colon++;
  if (value[colon] !== ':') return false;
  const hash = value.indexOf('#', colon);
  const end = hash === -1 ? value.length : hash;
  const question = value.indexOf('?', colon);
  const hierEnd = question === -1 || question > end ? end : question;
  const hier = colon + 1;
  if (value.startsWith('//', hier)) {
    const slash = value.indexOf('/', hier + 2);
    const authorityEnd = slash === -1 || slash > hierEnd ? hierEnd : slash;
    if (!isAuthority(value, hier + 2, authorityEnd) || !allOf(value, authorityEnd, hierEnd, PCHAR | SLASH))
      return false;
  } else if (!allOf(value, hier, hierEnd, PCHAR | SLASH)) return false;
  if (hierEnd < end && !allOf(value, hierEnd + 1, end, PCHAR | SLASH | QUESTION)) return false;
  if (hash !== -1 && !allOf(value, hash + 1, value.length, PCHAR | SLASH | QUESTION)) return false;
  for (let i = value.indexOf('%'); i !== -1; i = value.indexOf('%', i + 1)) {
    const high = value.charCodeAt(i + 1);
    const low = value.charCodeAt(i + 2);
    if (!(high < 128 && (URI_CLASSES[high]! & HEX) !== 0 && low < 128 && (URI_CLASSES[low]! & HEX) !== 0)) return false;
  }
  return true;
}
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * Why a string fails a format the checker knows, as a short phrase naming the rule and an example.
 * @param format The schema's `format`, e.g. `date-time`.
 * @param value The string to check.
 * @returns The problem (`RFC 3339 date-time, e.g. 2024-05-01T10:00:00Z`), or undefined when the value is valid or
 *   the format is not one of `CHECKED_FORMATS` (use `isCheckedFormat` to tell the two apart). Never throws.
 */
export function stringFormatProblem(format: string, value: string): string | undefined {
  switch (format) {
    case 'date-time':
      return dateTimeProblem(value);
    case 'date':
      return dateProblem(value);
    case 'time':
      return timeProblem(value);
    case 'email':
      return isMailbox(value) ? undefined : 'RFC 5321 mailbox, e.g. user@example.com';
    case 'uuid':
      return UUID.test(value) ? undefined : 'RFC 9562 UUID, 8-4-4-4-12 hex digits';
    case 'uri':
      return isUri(value) ? undefined : 'RFC 3986 absolute URI with a scheme';
    case 'ipv4':
      return IPV4.test(value) ? undefined : 'dotted-quad IPv4 address';
    case 'ipv6':
      return isIPv6(value) ? undefined : 'RFC 4291 IPv6 address';
    default:
      return undefined;
  }
}
