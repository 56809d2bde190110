/**
 * The wire: what every transport does to a message on its way in and out, written once so that no transport can
 * forget a step. In: `decode` measures the text before it is parsed (depth and value count, so no parse or walk of a
 * hostile message holds the thread), finds the large tool arguments and keeps their text aside (`heldArgument`),
 * then parses only the envelope. Out: `encode` applies the last redaction pass and serializes once, line separators
 * escaped. JSON-RPC 2.0; MCP 2025-11-25, Transports and Base Protocol.
 */
import { MAX_BODY_DEPTH } from '../shared/json-text.ts';
import type { MemberSpan } from '../shared/json-text.ts';
import { redactedContents, structuredTexts } from '../jobs/answers.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { measureJsonText } from '../shared/json-text.ts';
import { ERROR_CODES, errorResponse } from './codes.ts';
import type { JsonRpcResponse, RequestId } from './codes.ts';
import { createIdScanner, JSON_NUMBER, OVERSIZED_ID_PREFIX } from '../shared/json-text.ts';
import { MAX_ANSWER } from '../jobs/answers.ts';
import { boundedText } from '../shared/text.ts';
/** The one argument of a tool that may be large (a JSON body, up to the line limit), by tool name. */
export const LARGE_ARGUMENTS: Readonly<Record<string, string>> = { compare_fixture: 'fixture', draft_request: 'body' };

/** Where a large argument sits in a message: `params.arguments.<name>`, for each name of `LARGE_ARGUMENTS`. */
export const LARGE_MEMBER_PATHS: readonly (readonly string[])[] = [...new Set(Object.values(LARGE_ARGUMENTS))].map(
  (name) => ['params', 'arguments', name],
);

/**
 * The JSON text of a large argument as the client wrote it, and how deep it nests, by the `arguments` object that
 * holds it: kept by the transport for a measured line (`measureJsonText` finds it in the pass it makes anyway), so
 * the tool passes that text to the check worker instead of serializing the value again, and needs no walk to know
 * its depth (issue 8).
 */
const heldArguments = new WeakMap<object, Record<string, { text: string; depth: number }>>();

/** The held JSON text and depth of `args[name]` (`heldArguments`), or undefined when the line was not measured. */
export function heldArgument(args: Record<string, unknown>, name: string): { text: string; depth: number } | undefined {
  return heldArguments.get(args)?.[name];
}

/**
 * Lines longer than this (in UTF-16 code units, 2 MiB) are dropped unparsed with one -32600 error naming
 * the limit, so memory stays bounded and no line holds the thread: parsing a line and walking its
 * arguments costs about 15 ms per MiB here. The largest
 * arguments a tool needs are `compare_fixture`'s fixture (a record kept in session memory is at most
 * 1 MiB, or PROBE_MAX_BYTES when larger, 512 KiB at most) and `draft_request`'s body.
 */
export const MAX_LINE = 2 * 1024 * 1024;

/** Lines longer than this (characters) have their large arguments found as text (`measureJsonText` spans, `heldArguments`). */
export const HOLD_ARGUMENTS_FROM = 64 * 1024;

/** Deepest nesting a message may have: arguments nest at most `MAX_BODY_DEPTH`, plus the envelope (`params.arguments.fixture`). */
export const MAX_MESSAGE_DEPTH = MAX_BODY_DEPTH + 8;

/** Most JSON values a message may hold: about 0.03 s of `JSON.parse`; a 1 MiB fixture of real API data holds 20,000 to 40,000. */
export const MAX_MESSAGE_VALUES = 100_000;

/**
 * A serialized message as one stdout line: U+2028, U+2029 and U+0085, which JSON allows raw inside
 * strings (RFC 8259, 7), written as `\u` escapes, so a client that splits lines on Unicode line
 * boundaries (Node's readline, Python's `splitlines`) still reads one message. The
 * characters occur only inside JSON strings, where the escape means the same character.
 */
export function escapeLineSeparators(json: string): string {
  return json.replace(
    /[\u0085\u2028\u2029]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * `JSON.stringify(message)` for a tool call's response whose text block is the JSON text of its structured
 * content (`structuredTexts`, src/jobs/pipeline.ts): that text is written as the structured content instead of serializing it again, so
 * a result's body is serialized once, not twice. Any other shape (an error, a redacted copy, a result without
 * structured content) gets `JSON.stringify` itself; the line is the same either way.
 */
export function serializeMessage(message: unknown): string {
  const text = writtenText(message);
  if (text === undefined) return JSON.stringify(message);
  const response = message as { id: string | number; result: Record<string, unknown> };
  const record = response.result;
  const keys = Object.keys(record);
  const head = keys[0] === 'resultType' ? `"resultType":${JSON.stringify(record.resultType)},` : '';
  const tail = keys.at(-1) === '_meta' ? `,"_meta":${JSON.stringify(record._meta)}` : '';
  return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":{${head}"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${record.isError === true ? ',"isError":true' : ''}${tail}}}`;
}

/**
 * The registered text (`structuredTexts`) `serializeMessage` writes a tool result's structured content from: set
 * when the message is a response of that shape whose one text block is that text; else undefined.
 */
function writtenText(message: unknown): string | undefined {
  const response = message as {
    jsonrpc?: unknown;
    id?: unknown;
    result?: { content?: unknown; structuredContent?: unknown; isError?: unknown };
  } | null;
  const result = response?.result;
  const structured = result?.structuredContent;
  const text = structured !== null && typeof structured === 'object' ? structuredTexts.get(structured) : undefined;
  const block =
    Array.isArray(result?.content) && result.content.length === 1
      ? (result.content[0] as { type?: unknown; text?: unknown })
      : undefined;
  // The result's keys: the stateless era adds `resultType` first and `_meta` last (MCP 2026-07-28), each written as is.
  const keys = result ? Object.keys(result) : [];
  const leading = keys[0] === 'resultType' ? 1 : 0;
  const trailing = keys.at(-1) === '_meta' ? 1 : 0;
  const middle = keys.slice(leading, keys.length - trailing);
  const shaped =
    text !== undefined &&
    block?.type === 'text' &&
    block.text === text &&
    response!.jsonrpc === '2.0' &&
    (typeof response!.id === 'string' || typeof response!.id === 'number') &&
    sameKeys(response!, ['jsonrpc', 'id', 'result']) &&
    sameKeys(block, ['type', 'text']) &&
    (result!.isError === true
      ? sameKeys(middle, ['content', 'structuredContent', 'isError'])
      : sameKeys(middle, ['content', 'structuredContent']));
  return shaped ? text : undefined;
}

/** True when `value`'s own enumerable keys (or the keys given) are exactly `keys`, in that order. */
function sameKeys(value: object | string[], keys: string[]): boolean {
  const own = Array.isArray(value) ? value : Object.keys(value);
  return own.length === keys.length && own.every((key, index) => key === keys[index]);
}

/** `line` with each span's value written as `{}` or `[]` (the same type), spans in any order, none overlapping. */
export function withoutSpans(line: string, spans: (MemberSpan | undefined)[]): string {
  const found = spans
    .filter((span): span is MemberSpan => span !== undefined)
    .sort((first, second) => first.start - second.start);
  let text = '';
  let from = 0;
  for (const span of found) {
    text += line.slice(from, span.start) + (line.charCodeAt(span.start) === 0x7b ? '{}' : '[]');
    from = span.end;
  }
  return text + line.slice(from);
}

/** Keeps the text of each large argument `measureJsonText` found in `line` (`heldArguments`), by the message's `arguments` object. */
export function holdArguments(message: unknown, line: string, spans: (MemberSpan | undefined)[]): void {
  const args = (message as { params?: { arguments?: unknown } } | null)?.params?.arguments;
  if (args === null || typeof args !== 'object') return;
  const held: Record<string, { text: string; depth: number }> = {};
  spans.forEach((span, which) => {
    if (span) held[LARGE_MEMBER_PATHS[which]![2]!] = { text: line.slice(span.start, span.end), depth: span.depth };
  });
  heldArguments.set(args, held);
}

/**
 * What `decode` makes of one message's text: the parsed message, or the error response to send instead (for a batch
 * refused whole, one error per request id in it).
 */
export type Decoded = { message: unknown } | { error: JsonRpcResponse | JsonRpcResponse[] };

/**
 * The refusal of a message that is not read, under the ids the scanner found in it (`createIdScanner`): one error for
 * a single message (id null when it names none); for a batch, one per request id in it (JSON-RPC 2.0, 6: a reply per
 * request), or one with id null when none has an id. So no client waits on its own id for a reply that never comes.
 */
export function refusal(
  scanned: { ids(): (string | number)[]; batch(): boolean },
  code: number,
  message: string,
): JsonRpcResponse | JsonRpcResponse[] {
  const ids = scanned.ids();
  if (scanned.batch() && ids.length > 0) return ids.map((id) => errorResponse(id, code, message));
  return errorResponse(ids.at(-1) ?? null, code, message);
}

/**
 * Reads one JSON-RPC message from its text. The text is measured first (`measureJsonText`, one pass, about 7 ms per
 * MB): deeper than `MAX_MESSAGE_DEPTH` or more than `MAX_MESSAGE_VALUES` values is refused unparsed with -32600,
 * under the request's own id when the text names one, or for a batch under each of its requests' ids (`refusal`). A text longer than `HOLD_ARGUMENTS_FROM` has its large
 * arguments (`LARGE_ARGUMENTS`) kept as text for the tools (`heldArgument`) and parsed here as `{}` or `[]`; their
 * own parse happens in the check worker. Text that is not JSON is -32700 with id null (JSON-RPC 2.0, 5.1).
 * @param text One message: a line without its line break, or an HTTP body. A leading BOM is the caller's to drop.
 * @returns `{message}` or `{error}`; never throws.
 */
export function decode(text: string): Decoded {
  // Every text is measured before it is parsed: a tree too deep or too large for any tool's arguments is refused
  // unread (issue 8).
  const size = measureJsonText(text, text.length > HOLD_ARGUMENTS_FROM ? LARGE_MEMBER_PATHS : []);
  const spans = size.spans;
  if (size.depth > MAX_MESSAGE_DEPTH || size.values > MAX_MESSAGE_VALUES) {
    const scanned = createIdScanner();
    scanned.feed(text);
    return {
      error: refusal(
        scanned,
        ERROR_CODES.invalidRequest,
        size.depth > MAX_MESSAGE_DEPTH
          ? `Invalid Request: message nests ${size.depth} levels deep, more than ${MAX_MESSAGE_DEPTH} (arguments may nest at most ${MAX_BODY_DEPTH}); dropped unparsed.`
          : `Invalid Request: message holds ${size.values} JSON values, more than ${MAX_MESSAGE_VALUES}; dropped unparsed. Send fewer or smaller arguments.`,
      ),
    };
  }
  let message: unknown;
  try {
    message = JSON.parse(spans?.some(Boolean) ? withoutSpans(text, spans) : text);
  } catch (error) {
    return { error: errorResponse(null, ERROR_CODES.parseError, `Parse error: ${(error as Error).message}`) };
  }
  if (spans?.some(Boolean)) holdArguments(message, text, spans);
  // An integer id past 2^53 parsed to a double that is not the client's id: it is read again from the text.
  // In a batch, the scanner counts the elements that are objects or arrays.
  const records = (Array.isArray(message) ? message : [message]).filter(
    (one): one is { id?: unknown } => one !== null && typeof one === 'object',
  );
  const unsafe = (id: unknown) => typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id);
  if (records.some((record) => unsafe(record.id))) {
    const scanned = createIdScanner();
    scanned.feed(text);
    records.forEach((record, element) => {
      if (!unsafe(record.id)) return;
      const written = scanned.idAt(Array.isArray(message) ? element : -1);
      if (typeof written === 'string' && written.startsWith(OVERSIZED_ID_PREFIX)) record.id = written;
    });
  }
  return { message };
}

/**
 * The refusal of a message longer than `MAX_LINE`, dropped unparsed: -32600 under the ids `scanned` read from its
 * text as it went by (`refusal`), so the request is answered under its own id.
 */
export function tooLongError(scanned: {
  ids(): (string | number)[];
  batch(): boolean;
}): JsonRpcResponse | JsonRpcResponse[] {
  return refusal(
    scanned,
    ERROR_CODES.invalidRequest,
    `Invalid Request: message longer than ${MAX_LINE} characters (the line limit), dropped unparsed. Send smaller arguments: a fixture or request body of at most 1 MiB.`,
  );
}

/**
 * True when `message` is a tool result whose structured content was redacted where it was made (`redactedContents`,
 * src/jobs/pipeline.ts) and is written from its registered text (`serializeMessage`'s shape).
 */
function redactedWhereMade(message: unknown): boolean {
  const result = (message as { result?: { structuredContent?: unknown } } | null)?.result;
  const structured = result?.structuredContent;
  return (
    structured !== null &&
    typeof structured === 'object' &&
    redactedContents.has(structured) &&
    writtenText(message) !== undefined
  );
}

/** The message less its structured content and text block: what the guard reads of an answer redacted where made. */
function envelopeOf(message: unknown): string {
  const response = message as { result: Record<string, unknown> };
  return JSON.stringify({ ...response, result: { ...response.result, content: [], structuredContent: {} } });
}

/**
 * Longest message (characters as written) the last pass redacts whole when it was not redacted where it was made;
 * a longer one is redacted whole only when the guard finds a form of the key in it. 64 KiB: about 3 ms.
 */
const WHOLE_REDACTION_UP_TO = 64 * 1024;

/** Longest member of a structured content an answer cut at `MAX_ANSWER` keeps as it was, in characters of JSON. */
const KEPT_MEMBER = 4096;

/**
 * The message to write instead of one whose text is longer than `MAX_ANSWER` characters (issue 18: every answer
 * within the cap, measured on the text written). A tool result keeps each member of its structured content whose
 * JSON is at most `KEPT_MEMBER` characters; a longer one is written empty (`[]`, `{}`), or as its first 1,000
 * characters for a string (its end withheld, `Redactor.tail`), and the member `cut` names them; its text block is
 * that content's JSON. A result without structured content keeps the first 64 KiB of its first text block. An
 * error keeps the first 64 KiB of its message and drops its data. Anything else becomes -32603. The message was
 * redacted already; what is cut from it is never longer than what it was.
 * @param size The length of the text that was too long, in characters.
 */
export function cutAnswer(message: unknown, size: number, redact: Redactor): unknown {
  const response = (message ?? {}) as {
    id?: RequestId | null;
    result?: Record<string, unknown>;
    error?: { code?: unknown; message?: unknown };
  };
  const id = response.id ?? null;
  const note = `Cut: the answer was ${size} characters as written, more than the answer cap of ${MAX_ANSWER} (1 MiB).`;
  const cutText = (text: string, max: number) => (text.length > max ? redact.tail(boundedText(text, max)) : text);
  if (response.error && typeof response.error === 'object') {
    const code = typeof response.error.code === 'number' ? response.error.code : ERROR_CODES.internalError;
    const text = typeof response.error.message === 'string' ? response.error.message : '';
    return { jsonrpc: '2.0', id, error: { code, message: `${cutText(text, 64 * 1024)} (${note})` } };
  }
  const result = response.result;
  if (!result || typeof result !== 'object')
    return errorResponse(id, ERROR_CODES.internalError, `Internal error: ${note}`);
  const { content, structuredContent, ...rest } = result as {
    content?: unknown;
    structuredContent?: unknown;
  } & Record<string, unknown>;
  if (structuredContent !== null && typeof structuredContent === 'object' && !Array.isArray(structuredContent)) {
    const kept: Record<string, unknown> = {};
    const dropped: string[] = [];
    for (const [name, value] of Object.entries(structuredContent)) {
      let json: string | undefined = '';
      try {
        json = JSON.stringify(value);
      } catch {
        json = undefined;
        dropped.push(name);
        kept[name] = null;
        continue;
      }
      if (json === undefined || json.length <= KEPT_MEMBER) {
        kept[name] = value;
        continue;
      }
      dropped.push(name);
      kept[name] = Array.isArray(value)
        ? []
        : typeof value === 'string'
          ? cutText(value, 1000)
          : value !== null && typeof value === 'object'
            ? {}
            : value;
    }
    kept.cut = `${note} Written empty or shortened: ${cutText(dropped.join(', '), 1000)}. Narrow the call (a smaller body, \`select\`, fewer paths, \`part\` or \`status\`, a lower \`limit\`) to see them.`;
    return {
      jsonrpc: '2.0',
      id,
      result: { ...rest, content: [{ type: 'text', text: JSON.stringify(kept) }], structuredContent: kept },
    };
  }
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  const text = typeof first?.text === 'string' ? first.text : '';
  return {
    jsonrpc: '2.0',
    id,
    result: { ...rest, content: [{ type: 'text', text: `${cutText(text, 64 * 1024)}\n\n${note}` }], isError: true },
  };
}

/** How every response starts as serialized, up to its id, when the id stands for an integer past 2^53. */
const OVERSIZED_ID_START = `{"jsonrpc":"2.0","id":${JSON.stringify(OVERSIZED_ID_PREFIX).slice(0, -1)}`;

/** `text` with the stand-in of an integer id past 2^53 (`OVERSIZED_ID_PREFIX`) written back as the id's own JSON text. */
function withOversizedId(text: string): string {
  if (!text.startsWith(OVERSIZED_ID_START)) return text;
  const end = text.indexOf('"', OVERSIZED_ID_START.length);
  const number = text.slice(OVERSIZED_ID_START.length, end);
  if (!JSON_NUMBER.test(number)) return text;
  return `{"jsonrpc":"2.0","id":${number}${text.slice(end + 1)}`;
}

/**
 * Writes one outgoing message (a response or a batch of them) as JSON text: one serialization (`serializeMessage`: a
 * tool result's structured content is written from the text made of it once), with U+2028, U+2029 and U+0085 escaped
 * (`escapeLineSeparators`), so it is one line, and the last redaction pass as a guard (issue 18): an answer redacted
 * where it was made (`redactedContents`: in the check worker, its text scanned there) has only what this thread added
 * around it scanned; any other message is redacted whole (`redact.message`) when it is at most
 * `WHOLE_REDACTION_UP_TO` characters, or when one scan of its line (`redact.text`) finds a form of the key. A message whose text
 * would be longer than `MAX_ANSWER` characters, its id not counted, is written cut (`cutAnswer`; for an answer redacted where
 * it was made, the length the cut's note gives is counted before line separators are escaped), each one of a batch on its own; one
 * that cannot be serialized becomes -32603 under its own id: one bad answer never takes the server down.
 * @returns The text, without a line break.
 */
export function encode(message: unknown, redact: Redactor): string {
  const one = (single: unknown): string => {
    let cleaned: unknown = single;
    let text: string;
    // Whether `text` has its line separators escaped: an answer redacted where it was made is escaped only once it
    // is known to fit, so one past the cap is never copied and scanned whole on this thread before it is cut.
    let escaped = false;
    try {
      const holdsKey = (line: string) => redact.text(line) !== line;
      if (redactedWhereMade(single)) {
        text = serializeMessage(single);
        // Redacted in the check worker with its text scanned there (redactedAnswer): the guard reads what this
        // thread added around it (id, request id, _meta), one scan of a few hundred characters.
        if (holdsKey(envelopeOf(single))) {
          cleaned = redact.value(redact.message(single));
          text = serializeMessage(cleaned);
        }
      } else {
        text = escapeLineSeparators(serializeMessage(single));
        escaped = true;
        if (text.length <= WHOLE_REDACTION_UP_TO || holdsKey(text)) {
          // Made on this thread: a short message is redacted whole (a key split across strings found); a longer one
          // only when the guard, one scan of the line as written, finds a form of the key in it. What the whole
          // redaction leaves (outside content, structured content and error) has every string redacted.
          cleaned = redact.message(single);
          text = escapeLineSeparators(serializeMessage(cleaned));
          if (holdsKey(text)) {
            cleaned = redact.value(cleaned);
            text = escapeLineSeparators(serializeMessage(cleaned));
          }
        }
      }
    } catch (error) {
      // RangeError: longer than the longest string V8 makes (`Invalid string length`), so past the cap too.
      if (error instanceof RangeError) text = '';
      else {
        const id = (single as { id?: RequestId | null } | null)?.id ?? null;
        const why = `Internal error: the answer could not be serialized (${(error as Error).message}).`;
        return escapeLineSeparators(JSON.stringify(errorResponse(id, ERROR_CODES.internalError, why)));
      }
    }
    // The request's own id is echoed whatever its length (the line limit bounds it): not counted against the cap.
    // Escaping only lengthens a text, so one past the cap unescaped is past it as written.
    const idLength = JSON.stringify((cleaned as { id?: unknown } | null)?.id ?? null).length;
    if (text !== '' && text.length - idLength <= MAX_ANSWER && !escaped) text = escapeLineSeparators(text);
    if (text !== '' && text.length - idLength <= MAX_ANSWER) return withOversizedId(text);
    return withOversizedId(escapeLineSeparators(JSON.stringify(cutAnswer(cleaned, text.length || 2 ** 29, redact))));
  };
  return Array.isArray(message) ? `[${message.map(one).join(',')}]` : one(message);
}
