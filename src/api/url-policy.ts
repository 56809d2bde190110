/**
 * What a probe path and query MEAN to the servers behind the API, judged on every reading a lenient
 * backend might make of them (issue 8): percent-decoded once or more, read
 * through Unicode NFKC or a look-alike table, with `;parameters` dropped. Used by `buildProbeUrl`
 * (probe-server.ts). No MCP, no network; only `node:` imports (none needed).
 */
import { trimSlash } from '../shared/url-path.ts';
import { describeType } from '../shared/values.ts';

/** Percent-decoding rounds tried; a path still decodable after this many is refused. */
export const DECODE_LEVELS = 4;

/**
 * Longest `path`, and longest query text the agent adds, in characters (32 KiB): servers answer 414
 * well before this (8 KiB is common), and it bounds the cost of judging every reading.
 */
export const MAX_URL_PART = 32 * 1024;

/** One way a backend may read a path segment or a query. */
type Reading = { text: string; decodes: number; unicode: boolean; plain: string };

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Characters that no NFKC form maps to `/`, `\` or `.`, but that some backends, filters or
 * look-alike folds read as one (UTS 39 confusables; UTS 46 maps U+3002 to `.` in host names).
 */
const LOOK_ALIKES: Record<string, string> = {
  '\u2215': '/', // DIVISION SLASH
  '\u2044': '/', // FRACTION SLASH
  '\u29f8': '/', // BIG SOLIDUS
  '\u2571': '/', // BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT
  '\u29f5': '\\', // REVERSE SOLIDUS OPERATOR
  '\u29f9': '\\', // BIG REVERSE SOLIDUS
  '\u2572': '\\', // BOX DRAWINGS LIGHT DIAGONAL UPPER LEFT TO LOWER RIGHT
  '\u3002': '.', // IDEOGRAPHIC FULL STOP
  '\uff61': '.', // HALFWIDTH IDEOGRAPHIC FULL STOP
  '\ufe12': '.', // PRESENTATION FORM FOR VERTICAL IDEOGRAPHIC FULL STOP
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * One round of percent-decoding, WHATWG URL style (a `%` not followed by two hex digits stays;
 * `%uXXXX` is read as the UTF-16 unit XXXX, as IIS does), of the UTF-8 bytes of `text`, decoded strictly back to text (WHATWG Encoding, UTF-8 decode with
 * error mode fatal).
 * @returns The decoded text (equal to `text` when nothing was encoded), or `undefined` when the
 *   bytes are not valid UTF-8: overlong forms of any length, 5- and 6-byte forms, surrogates, stray
 *   continuation bytes. Never throws.
 */
export function percentDecodeOnce(text: string): string | undefined {
  if (!/%(?:[0-9A-Fa-f]{2}|[uU][0-9A-Fa-f]{4})/.test(text)) return text;
  let valid = true;
  // A run of escapes is decoded on its own: a raw character between runs is whole UTF-8 already, so
  // no multi-byte sequence can span it. One pass, linear in the length of `text`.
  const decoded = text.replace(/(?:%[0-9A-Fa-f]{2})+|(?:%[uU][0-9A-Fa-f]{4})+/g, (run) => {
    if (run[1] === 'u' || run[1] === 'U') {
      const units = run
        .split('%')
        .slice(1)
        .map((escape) => parseInt(escape.slice(1), 16));
      const unicode = units.map((unit) => String.fromCharCode(unit)).join('');
      if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(unicode)) valid = false;
      return unicode;
    }
    try {
      return fatalUtf8.decode(Buffer.from(run.replace(/%/g, ''), 'hex'));
    } catch {
      valid = false;
      return run;
    }
  });
  return valid ? decoded : undefined;
}

/**
 * Every reading of `text` a lenient backend may make: as written, percent-decoded 1 to
 * `DECODE_LEVELS` times, and each of those through NFKC and the look-alike table. At most
 * 2 x (DECODE_LEVELS + 1) readings, each linear in the length of `text`.
 * @returns The readings, or a problem: `'utf8'` when some decoding gives bytes that are not UTF-8
 *   (with how many rounds it took), `'deep'` when the text is still encoded after DECODE_LEVELS rounds.
 */
function readingsOf(text: string): { readings: Reading[] } | { problem: 'utf8' | 'deep'; decodes: number } {
  const readings: Reading[] = [];
  let current = text;
  for (let decodes = 0; ; decodes++) {
    readings.push({ text: current, decodes, unicode: false, plain: current });
    const folded = current.normalize('NFKC').replace(LOOK_ALIKE, (character) => LOOK_ALIKES[character]!);
    if (folded !== current) readings.push({ text: folded, decodes, unicode: true, plain: current });
    const next = percentDecodeOnce(current);
    if (next === undefined) return { problem: 'utf8', decodes: decodes + 1 };
    const foldedNext = folded === current ? next : percentDecodeOnce(folded);
    if (foldedNext === undefined) return { problem: 'utf8', decodes: decodes + 1 };
    if (next === current && foldedNext === folded) return { readings };
    if (decodes === DECODE_LEVELS) return { problem: 'deep', decodes };
    // A fold that revealed "%2e" (fullwidth ％２ｅ) is decoded on the next round too.
    if (next === current && foldedNext !== folded) current = folded;
    else current = next;
  }
}

/**
 * True for the dot segments `.` and `..` (RFC 3986, 5.2.4), after a `;parameter` is dropped and
 * control characters and surrounding spaces are removed (`..%00`, `.. `: C string ends, Windows and
 * trimming servers).
 */
function isDot(part: string): boolean {
  const named = part
    .split(';')[0]!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return named === '.' || named === '..';
}

/**
 * Canonical form of a query or matrix parameter name, for comparing with the names API_BASE_URL
 * fixes the way lenient binders do: percent-decoded (bounded, malformed escapes kept), `+` as space,
 * NFKC, lower case, cut at a `[` that follows the name (`tenant[]`, `tenant[x]`), and every
 * character that is not a letter or digit removed (NUL, spaces, `.`, `_`, `-`).
 * @param name A raw name as written in a URL, e.g. `Ten%61nt[]`.
 * @returns E.g. `tenant`. Never throws.
 */
export function canonicalName(name: string): string {
  let text = name.replace(/\+/g, ' ');
  for (let round = 0; round < DECODE_LEVELS; round++) {
    const next = percentDecodeOnce(text);
    if (next === undefined || next === text) break;
    text = next;
  }
  text = text.normalize('NFKC').toLowerCase();
  const bracket = text.indexOf('[');
  if (bracket > 0) text = text.slice(0, bracket);
  return text.replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * Checks what a probe's path means on every reading (see `readingsOf`), segment by segment, and
 * refuses, with a reason the agent can act on: a dot segment (`.`, `..`, also `..;x`) in any
 * reading; a backslash in any decoded or folded reading; a `/` that only a second decoding or a
 * Unicode fold creates (`%252f`, `／`, `∕`), or a dot segment behind a once-encoded `%2F`; bytes
 * that are not valid UTF-8 after any decoding; encoding more than DECODE_LEVELS deep; a
 * `;name=value` matrix parameter whose name is one of `fixedNames`; and, when API_BASE_URL fixes query
 * parameters, a `?` or `#` that a decoding or a fold creates (`%3F`, `%253F`, `%23`, `？`).
 * @param path The agent's `path` as given (already free of control characters and raw backslashes).
 * @param pathname Its path part, with a leading `/`, before any `?`.
 * @param fixedNames Canonical names (`canonicalName`) of the query parameters API_BASE_URL fixes.
 * @returns The refusal text, or `undefined` when every reading stays a plain path. Never throws.
 */
export function pathProblem(path: string, pathname: string, fixedNames: ReadonlySet<string>): string | undefined {
  const shown = JSON.stringify(path);
  for (const segment of pathname.split('/')) {
    const found = readingsOf(segment);
    if ('problem' in found) {
      return found.problem === 'utf8'
        ? `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, whose percent-encoded bytes (after ${found.decodes} decoding${found.decodes === 1 ? '' : 's'}) are not valid UTF-8: an overlong form (%c0%ae, %e0%80%ae), a 5- or 6-byte form, a surrogate or a stray byte, which lenient decoders may read as "." or "/"; it is refused. Percent-encode each character once, as its shortest UTF-8 bytes.`
        : `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, still percent-encoded after ${DECODE_LEVELS} decodings; no backend needs that and some read the result as a dot segment or separator, so it is refused. Percent-encode data once.`;
    }
    for (const reading of found.readings) {
      const how = reading.unicode
        ? 'which a backend that folds Unicode look-alikes (NFKC: fullwidth ．／＼, one-dot leader ․, division slash ∕) reads as'
        : reading.decodes >= 2
          ? `which a backend that decodes ${reading.decodes === 2 ? 'twice' : `${reading.decodes} times`} reads as`
          : 'which reads as';
      if (reading.text.includes('\\')) {
        if (reading.decodes >= 2 && !reading.unicode) {
          return `\`path\` ${shown} holds a percent-encoded "%" that decodes to a slash or backslash (%252f, %255c) on a backend that decodes twice; it is refused. Name the resource directly.`;
        }
        return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, ${how} ${JSON.stringify(reading.text)}, with a backslash that URL parsers and Windows servers read as "/"; it is refused. Use "/" between segments and plain characters in names.`;
      }
      // A "?" or "#" that only decoding or a fold creates ends the path for a backend that decodes the path and parses
      // it again: what follows would become query pairs beside (or a fragment cutting off) the query API_BASE_URL fixes.
      if (fixedNames.size > 0 && (reading.decodes >= 1 || reading.unicode) && /[?#]/.test(reading.text)) {
        return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, ${how} ${JSON.stringify(reading.text)}, with a "?" or "#" that a backend which decodes the path and parses it again takes as the start of the query or fragment, around the query API_BASE_URL fixes; it is refused. Give query parameters in \`query\`.`;
      }
      const parts = reading.text.split('/');
      const created = reading.unicode
        ? parts.length > reading.plain.split('/').length
        : parts.length > 1 && reading.decodes >= 2;
      if (created) {
        if (!reading.unicode)
          return `\`path\` ${shown} holds a percent-encoded "%" that decodes to a slash or backslash (%252f, %255c) on a backend that decodes twice; it is refused. Name the resource directly.`;
        return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, ${how} ${JSON.stringify(reading.text)}, with a "/" that splits it into segments; it is refused. Use "/" between segments and plain characters in names.`;
      }
      for (const part of parts) {
        if (!isDot(part)) continue;
        const named = segment.split(';')[0]!;
        if (reading.unicode) {
          return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, ${how} ${JSON.stringify(reading.text)}, a dot segment that would climb out of the API's base path; it is refused. Name the resource directly, with plain ASCII "." only inside names.`;
        }
        if (reading.decodes >= 2) {
          return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, a dot segment percent-encoded ${reading.decodes === 2 ? 'twice (%252e)' : `${reading.decodes} times (%25252e)`}, ${how} ${JSON.stringify(reading.text.split(';')[0])} and which would climb out of the API's base path; name the resource directly.`;
        }
        if (named !== segment && isDot(named.replace(/%2e/gi, '.'))) {
          return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, which Tomcat and Spring read as the dot segment ${JSON.stringify(named)} (a ";parameter" is dropped before normalising) and which would climb out of the API's base path; name the resource directly.`;
        }
        if (part.split(';')[0] !== '.' && part.split(';')[0] !== '..') {
          return `\`path\` ${shown} has the segment ${JSON.stringify(segment)}, which servers that drop control characters and surrounding spaces (C string ends, Windows) read as a dot segment, which would climb out of the API's base path; it is refused. Name the resource directly.`;
        }
        return `\`path\` ${shown} has the dot segment ${JSON.stringify(segment)}, which would climb out of the API's base path; name the resource directly.`;
      }
      for (const part of parts) {
        for (const parameter of part.split(';').slice(1)) {
          const name = parameter.split('=')[0]!;
          if (fixedNames.has(canonicalName(name))) {
            return `\`path\` ${shown} has the matrix parameter ${JSON.stringify(`;${parameter}`)}, which names the query parameter "${name}" that API_BASE_URL fixes; servers that read ";name=value" would let it override the fixed value, so it is refused. Leave it out.`;
          }
        }
      }
    }
  }
  return undefined;
}

/**
 * Finds a query parameter in the agent's part of a query string that names one API_BASE_URL fixes,
 * on every reading (see `readingsOf`): pairs split at `&` and at `;` (which some servers also
 * split at), names compared by `canonicalName` (`Tenant`, `tenant[]`, `tenant%00`, `%74enant`).
 * @param search The agent's query text without `?`, as it will be sent.
 * @param fixedNames Canonical names of the fixed parameters.
 * @returns The raw name found (as written in the reading that showed it) and the reading, or
 *   `undefined`. Never throws.
 */
export function shadowingName(
  search: string,
  fixedNames: ReadonlySet<string>,
): { name: string; reading: string } | undefined {
  if (!search || fixedNames.size === 0) return undefined;
  const found = readingsOf(search);
  // A query whose bytes are not UTF-8 after decoding is judged as written; its names still count.
  const readings = 'readings' in found ? found.readings : [{ text: search, decodes: 0, unicode: false, plain: search }];
  for (const reading of readings) {
    for (const pair of reading.text.split(/[&;]/)) {
      const name = pair.split('=')[0]!;
      if (fixedNames.has(canonicalName(name))) return { name, reading: reading.text };
    }
  }
  return undefined;
}
/** A probe URL, or the reason it is refused. */
export type UrlDecision = { url: URL } | { refusal: string };

/**
 * Builds the URL for a probe by appending `path` to the base URL as text, never by URL reference
 * resolution (which would drop a base prefix such as `/v2`), then checks what the WHATWG URL parser
 * made of it. Refuses, with a reason the agent can act on:
 * - a `path` that is not a non-empty string, or holds a control character, tab, newline, or
 *   leading/trailing space (the parser strips or drops those);
 * - any backslash, raw or percent-encoded (`%5C`, `%5c`): WHATWG URL reads `\` as `/` in http(s);
 * - an absolute URL (a scheme such as `https:` or `http:`), or an authority (`//host`);
 * - a `#` fragment (never sent, so never meant);
 * - what any lenient backend would read as leaving the base path (`pathProblem`, src/api/url-policy.ts),
 *   judged on every reading of each segment: percent-decoded 1 to 4 times (`%2e%2e`, `%252e`,
 *   `%25%32%65`), folded by NFKC or look-alikes (`．．`, `․․`, `∕`), with `;parameters` dropped
 *   (`..;x`): a dot segment, a backslash, a `/` that a second decoding or a fold creates, bytes
 *   that are not UTF-8 (overlong, 5/6-byte, surrogate), or encoding deeper than 4 levels;
 * - a query name (in `path`, `query`, or a `;name=` matrix parameter, also split at `;` and
 *   decoded) that a lenient binder reads as one API_BASE_URL's query fixes (`canonicalName`:
 *   `Tenant`, `tenant[]`, `tenant%00`). The fixed pairs are sent first, the agent's after them;
 * - a result whose origin differs from the base, or whose path leaves the base's path prefix
 *   (compared by segment: `/v2-admin` is outside `/v2`).
 * A path without a leading `/` is read as if it had one (`meters/1` is `/meters/1`).
 * @param base The configured base URL.
 * @param path The agent's path, e.g. `/meters/mtr_1?status=active`.
 * @param query Extra query parameters, name to string value, appended in order after the
 *   fixed pairs and the path's own query.
 * @param example A concrete path of the loaded document (`/meters/mtr_1`, src/document/examples.ts) that refusals of a
 *   missing or malformed path quote ("such as ..."); without it they quote none (issue 17: never another API's path).
 * @returns `{url}` or `{refusal}`; never throws, never touches the network.
 */
export function buildProbeUrl(base: URL, path: unknown, query?: unknown, example?: string): UrlDecision {
  const suchAs = example === undefined ? '' : `, such as ${JSON.stringify(example)}`;
  if (path === undefined) return { refusal: `\`path\` is required: the path after the base URL${suchAs}.` };
  if (typeof path !== 'string')
    return {
      refusal: `\`path\` must be a string${example === undefined ? '' : ` such as ${JSON.stringify(example)}`}, got ${describeType(path)}.`,
    };
  if (path === '') return { refusal: `\`path\` is empty; give the request path after the base URL${suchAs}.` };
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} holds a control character (tab, newline or similar); the URL parser would drop or reinterpret it. Remove it, or percent-encode data that needs it.`,
    };
  }
  if (path.length > MAX_URL_PART)
    return {
      refusal: `\`path\` is ${path.length} characters long, over the limit of ${MAX_URL_PART}; servers refuse URLs far shorter (414). Ask for less, or page through the resource.`,
    };
  if (path !== path.trim())
    return { refusal: `\`path\` ${JSON.stringify(path)} has leading or trailing spaces; remove them.` };
  // The URL parser would silently send U+FFFD instead (WHATWG URL, UTF-8 percent-encode).
  if (hasLoneSurrogate(path))
    return {
      refusal: `\`path\` ${JSON.stringify(path)} holds a lone UTF-16 surrogate, which is not a character and has no UTF-8 form; remove it.`,
    };
  if (path.includes('\\') || /%5c/i.test(path)) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} holds a backslash (raw or %5C); URL parsers read it as "/", so it is refused. Use "/" between segments.`,
    };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} is an absolute URL; give only the path relative to API_BASE_URL (${base.origin}${trimSlash(base.pathname)})${suchAs}. Other hosts are never probed.`,
    };
  }
  if (path.startsWith('//')) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} starts with "//", which names another host; give a path with a single leading "/"${suchAs}.`,
    };
  }
  if (path.includes('#'))
    return {
      refusal: `\`path\` ${JSON.stringify(path)} has a #fragment, which is never sent to a server; remove it (percent-encode a literal "#" as %23).`,
    };
  const relative = path.startsWith('/') ? path : `/${path}`;
  const queryStart = relative.indexOf('?');
  const pathname = queryStart === -1 ? relative : relative.slice(0, queryStart);
  if (/%(?:c0|c1)|%e0%[89]|%f0%8/i.test(path)) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} holds an overlong UTF-8 percent-encoding (such as %c0%ae for "." or %c0%af for "/"), which lenient decoders read as a dot or slash; it is refused. Percent-encode characters as their shortest UTF-8 bytes.`,
    };
  }
  // The base URL's query (`?tenant=acme`) is part of the configuration: sent first, never shadowed.
  const fixedPairs = base.search.slice(1).split('&').filter(Boolean);
  const rawFixed = new Set(fixedPairs.map((pair) => pair.split('=')[0]!));
  const fixedNames = new Set([...rawFixed].map(canonicalName).filter(Boolean));
  const problem = pathProblem(path, pathname, fixedNames);
  if (problem) return { refusal: problem };
  if (query !== undefined && (query === null || typeof query !== 'object' || Array.isArray(query))) {
    return {
      refusal: `\`query\` must be an object of query parameter name to string value, such as {"name": "value"}, got ${describeType(query)}.`,
    };
  }
  const prefix = trimSlash(base.pathname);
  let url: URL;
  try {
    url = new URL(`${base.origin}${prefix}${relative}`);
  } catch {
    return { refusal: `\`path\` ${JSON.stringify(path)} does not form a valid URL with API_BASE_URL.` };
  }
  // Query text is appended, never re-serialized: the path's own query goes out as the agent wrote it
  // (URLSearchParams would turn `?flag` into `?flag=` and %20 into +).
  const extra: string[] = [];
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { refusal: `\`query.${name}\` must be a string (or number or boolean), got ${describeType(value)}.` };
    }
    if (fixedNames.has(canonicalName(name))) {
      return {
        refusal: rawFixed.has(name)
          ? `\`query.${name}\` is fixed by API_BASE_URL and cannot be overridden; leave it out.`
          : `\`query\` has the parameter ${JSON.stringify(name)}, which servers that ignore case, brackets, encoding or punctuation in names read as "${canonicalName(name)}", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.`,
      };
    }
    // encodeURIComponent throws URIError on a lone surrogate (ECMA-262, Encode); refuse it by name instead.
    if (hasLoneSurrogate(name))
      return {
        refusal: `\`query\` has the parameter name ${JSON.stringify(name)}, which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.`,
      };
    if (typeof value === 'string' && hasLoneSurrogate(value)) {
      return {
        refusal: `\`query.${name}\` is ${JSON.stringify(value)}, which holds a lone UTF-16 surrogate (not a character, no UTF-8 form); remove it.`,
      };
    }
    extra.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  const agentSearch = [url.search.slice(1), ...extra].filter(Boolean).join('&');
  if (agentSearch.length > MAX_URL_PART)
    return {
      refusal: `\`query\` and the path's query come to ${agentSearch.length} characters encoded, over the limit of ${MAX_URL_PART}; servers refuse URLs far shorter (414). Send fewer or shorter parameters.`,
    };
  // Names compared on every reading (decoded, case-folded, `[]`/NUL stripped, split at `;` too), so
  // no binder, first-wins or last-wins, case-sensitive or not, sees a second value (issue 8).
  const shadow = shadowingName(agentSearch, fixedNames);
  if (shadow) {
    const where =
      url.search && shadowingName(url.search.slice(1), fixedNames)
        ? `\`path\` ${JSON.stringify(path)}`
        : `\`query\` (sent as ${JSON.stringify(extra.join('&'))})`;
    if (rawFixed.has(shadow.name))
      return {
        refusal: `${where} sets the query parameter "${shadow.name}", which API_BASE_URL fixes; it cannot be overridden. Leave it out.`,
      };
    return {
      refusal: `${where} sets the query parameter ${JSON.stringify(shadow.name)}, which servers that ignore case, brackets, encoding or punctuation in names, or split pairs at ";", read as "${canonicalName(shadow.name)}", a parameter API_BASE_URL fixes; it cannot be overridden. Leave it out.`,
    };
  }
  const search = [...fixedPairs, agentSearch].filter(Boolean).join('&');
  if (search) url.search = search;
  const inside = prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
  if (url.origin !== base.origin || url.username || url.password || !inside) {
    return {
      refusal: `\`path\` ${JSON.stringify(path)} resolves to ${url.origin}${url.pathname}, outside API_BASE_URL (${base.origin}${prefix}); it is refused.`,
    };
  }
  return { url };
}

/** True when `text` holds a high surrogate not followed by a low one, or a low one not after a high one. */
function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
