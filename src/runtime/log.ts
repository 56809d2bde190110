/**
 * Traces of the server (issue 8): request ids, `key=value` log records on stderr, and the audit
 * file of tool calls. No MCP, no HTTP; every text passes through the caller's key redactor.
 */
import { randomBytes } from 'node:crypto';
import { lazyBuiltin } from '../shared/builtin.ts';
import { displaySource } from '../redaction/redaction.ts';

/** Random bytes for request ids, drawn 6 at a time (one `randomBytes` call per 256 ids, not one per tool call). */
// Loaded when an audit line is first written, not before the server answers `initialize` (issue 20).
const files = lazyBuiltin('node:fs/promises');

let idBytes = Buffer.alloc(0);
let idOffset = 0;

/** A new request id: 12 lowercase hex characters from 6 random bytes (node:crypto, taken from a pool of 1,536). */
export function newRequestId(): string {
  if (idOffset + 6 > idBytes.length) {
    idBytes = randomBytes(6 * 256);
    idOffset = 0;
  }
  idOffset += 6;
  return idBytes.toString('hex', idOffset - 6, idOffset);
}

/** Log levels, quietest first; `LOG_LEVEL` picks one (default `info`). */
export const LOG_LEVELS = ['error', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One log value; `undefined` leaves the key out. */
export type LogValue = string | number | boolean | null | undefined;

export type Logger = {
  error(event: string, fields?: Record<string, LogValue>): void;
  info(event: string, fields?: Record<string, LogValue>): void;
  debug(event: string, fields?: Record<string, LogValue>): void;
};

/** A logger that writes nothing (the default of `createHandler`). */
export const SILENT: Logger = { error() {}, info() {}, debug() {} };

/**
 * Formats one record as a single line, `event=tool.call.done rid=4f1c2a9b0e7d took_ms=12`, no
 * trailing newline. A value that is empty or holds a space, `"`, `=`, a backslash or any control or
 * line-separator character is written as a JSON string (so it never spans lines); others raw.
 */
export function formatRecord(fields: Record<string, LogValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = String(value);
    parts.push(
      `${key}=${text === '' || /[\s"=\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text) ? JSON.stringify(text) : text}`,
    );
  }
  return parts.join(' ');
}

/**
 * Creates the stderr logger. Each record is `event=<name>` then the fields; every string value goes
 * through `redact` before formatting, and the whole line once more after it.
 * @param options.level Records above this level are dropped.
 * @param options.write Receives each line with its LF (default: `process.stderr.write`).
 * @param options.redact The key redactor's `text` (default: no change).
 */
export function createLogger(options: {
  level: LogLevel;
  write?: (line: string) => void;
  redact?: (text: string) => string;
}): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const redact = options.redact ?? ((text: string) => text);
  const rank = LOG_LEVELS.indexOf(options.level);
  const emit = (level: LogLevel, event: string, fields: Record<string, LogValue> = {}) => {
    if (LOG_LEVELS.indexOf(level) > rank) return;
    const clean: Record<string, LogValue> = { event };
    for (const [key, value] of Object.entries(fields)) clean[key] = typeof value === 'string' ? redact(value) : value;
    try {
      write(redact(formatRecord(clean)) + '\n');
    } catch {
      // stderr gone: logging never takes the server down.
    }
  };
  return {
    error: (event, fields) => emit('error', event, fields),
    info: (event, fields) => emit('info', event, fields),
    debug: (event, fields) => emit('debug', event, fields),
  };
}

/** One line of the audit file. */
export type AuditRecord = {
  /** ISO 8601 UTC time the call finished. */
  time: string;
  rid: string;
  /** The authenticated caller's subject and client id, when the transport has one (never on stdio). */
  caller?: string;
  client_id?: string;
  tool: string;
  /** `GET` when the call sent (or meant to send) a request, else null. */
  method: string | null;
  /** The URL requested, without secrets (see `publicUrl`), or null. */
  url: string | null;
  status: number | null;
  /** Body bytes received, or null. */
  bytes: number | null;
  /** Number of findings, or null when the response was not checked. */
  findings: number | null;
  isError: boolean;
  took_ms: number;
};

/** Appends audit records (`createAudit`). */
export type Audit = { write(record: AuditRecord): Promise<void> };

/**
 * Creates the audit writer for `PROBE_AUDIT_LOG`. `write` appends one JSON line (`appendFile`,
 * awaited) and resolves after it is on disk as far as the OS says; a failure is logged as
 * `event=audit.write.error` and resolves too: the audit never fails a call or the server.
 * @param path File to append to (created when missing).
 * @param logger Where write failures go.
 * @param redact The key redactor's `text`, applied to the serialized line.
 */
export function createAudit(path: string, logger: Logger, redact: (text: string) => string = (text) => text): Audit {
  return {
    async write(record) {
      const began = performance.now();
      try {
        await files().appendFile(path, redact(JSON.stringify(record)) + '\n', { encoding: 'utf8', mode: 0o600 });
        logger.debug('audit.write.done', { rid: record.rid, took_ms: Math.round(performance.now() - began) });
      } catch (error) {
        logger.error('audit.write.error', { rid: record.rid, reason: (error as Error).message });
      }
    },
  };
}

/** Query parameter names whose values are never written to logs or the audit file. */
const SECRET_NAME = /key|token|secret|pass|auth|sig|session|cred|code/i;

/**
 * A URL as logs and the audit file show it: no user or password; the value of every query
 * parameter that the base URL sets (`?tenant=...`) or whose name looks secret (`token`, `api_key`,
 * `sig`...) replaced by `[hidden]`; no fragment. Returns `null` for text that does not parse.
 * @param url The URL, absolute.
 * @param base The configured base URL, whose own query parameters are hidden.
 */
export function publicUrl(url: string | URL, base?: URL): string | null {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return null;
  }
  const hidden = new Set(base ? [...base.searchParams.keys()] : []);
  const search = parsed.search
    .slice(1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Malformed escapes: judge the raw name.
      }
      return equals !== -1 && (hidden.has(decoded) || SECRET_NAME.test(decoded)) ? `${name}=[hidden]` : pair;
    });
  const path = /^(https?|file):$/.test(parsed.protocol) ? parsed.pathname : '';
  return `${parsed.protocol === 'file:' ? 'file://' : parsed.origin}${path}${search.length ? `?${search.join('&')}` : ''}`;
}

/**
 * The document source (`OPENAPI_DOC`) as logs show it: `displaySource` (redaction.ts): a URL without
 * credentials, query (names and values) or fragment; a file path as given; `none` when unset.
 */
export function publicSource(source: string | undefined): string {
  if (source === undefined) return 'none';
  return displaySource(source);
}
