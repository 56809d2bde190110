/**
 * Traces of the server (issue 8): request ids, `key=value` log records on stderr, and the audit
 * file of tool calls. No MCP, no HTTP; every text passes through the caller's key redactor.
 */
import { lazyBuiltin } from '../shared/builtin.ts';
import { displaySource } from '../redaction/redaction.ts';

// Loaded when first used, not before the server answers `initialize` (issue 20): an audit line, a request id.
const files = lazyBuiltin('node:fs/promises');
const crypto = lazyBuiltin('node:crypto');

/** Random bytes for request ids, drawn 6 at a time (one `randomBytes` call per 256 ids, not one per tool call). */
let idBytes = Buffer.alloc(0);
let idOffset = 0;

/** A new request id: 12 lowercase hex characters from 6 random bytes (node:crypto, taken from a pool of 1,536). */
export function newRequestId(): string {
  if (idOffset + 6 > idBytes.length) {
    idBytes = crypto().randomBytes(6 * 256);
    idOffset = 0;
  }
  idOffset += 6;
  return idBytes.toString('hex', idOffset - 6, idOffset);
}

/** An incoming `X-Request-Id` kept as the request id: 8 to 64 letters, digits, `.`, `_` or `-` (nothing a log line must quote). */
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * The request id of an HTTP request (issue 19): the client's `X-Request-Id` when it is 8 to 64 characters of
 * `[A-Za-z0-9._-]`, else a new one (`newRequestId`). Only the first value of a repeated header is read.
 */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  const text = Array.isArray(incoming) ? incoming[0] : incoming;
  return text !== undefined && INCOMING_REQUEST_ID.test(text) ? text : newRequestId();
}

/** A W3C Trace Context `traceparent`: version 00, 32 hex trace id, 16 hex parent id, 2 hex flags (W3C Trace Context, 3.2). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The `traceparent` to send upstream for one call (W3C Trace Context, 3.2, 3.4): the incoming one's trace id and
 * flags with a new parent id (this server's span), or a new trace (flags `01`) when `incoming` is absent, malformed,
 * or names the all-zero trace or parent id the standard calls invalid.
 * @param incoming The client's value: `_meta.traceparent` (MCP 2026-07-28) or the HTTP `traceparent` header.
 * @returns `00-<trace id>-<parent id>-<flags>`, lowercase hex.
 */
export function traceparentFor(incoming: unknown): string {
  const span = crypto().randomBytes(8).toString('hex');
  const match = typeof incoming === 'string' ? TRACEPARENT.exec(incoming) : null;
  if (match && !/^0+$/.test(match[1]!) && !/^0+$/.test(match[2]!)) return `00-${match[1]}-${span}-${match[3]}`;
  return `00-${crypto().randomBytes(16).toString('hex')}-${span}-01`;
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
  /** The tenant the call acted for and the id of the upstream key used (never the key), when the transport knows them. */
  tenant?: string;
  key_id?: string;
  /** `allowed`, or `denied` with the check that refused (`identity`, `entitlement`, `tenant`, `rate`); HTTP only. */
  decision?: 'allowed' | 'denied';
  check?: string;
  /** The tool called, or for a request refused before it reached a tool, its JSON-RPC method (or `-` when unread). */
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

/** How many rotated audit files are kept beside the live one (`<file>.1` newest to `<file>.5` oldest). */
export const AUDIT_FILES_KEPT = 5;

/**
 * Creates the audit writer for `PROBE_AUDIT_LOG`: append-only JSON lines, one per record, that survive a restart
 * (the file is appended to, never truncated). `write` appends one line (`appendFile`, awaited) and resolves once the
 * OS has it; writes are serialized, so lines never interleave. Before a line would take the file past `maxBytes`,
 * the file is rotated: `<file>.4` becomes `<file>.5` (the oldest dropped), ..., `<file>` becomes `<file>.1`, and a
 * new `<file>` is begun (mode 0600). A failure is logged as `event=audit.write.error` and resolves too: the audit
 * never fails a call or the server. One file per process: two instances must not share one path.
 * @param path File to append to (created when missing).
 * @param logger Where write failures go.
 * @param redact The key redactor's `text`, applied to the serialized line.
 * @param options.maxBytes Rotation size in bytes (default 64 MiB); a single line larger than it is written whole.
 */
export function createAudit(
  path: string,
  logger: Logger,
  redact: (text: string) => string = (text) => text,
  options: { maxBytes?: number } = {},
): Audit {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  // The live file's size as last known: read once, then counted, so a write costs no stat.
  let size: number | undefined;
  let queue: Promise<void> = Promise.resolve();
  const rotate = async () => {
    for (let index = AUDIT_FILES_KEPT - 1; index >= 1; index--)
      await files()
        .rename(`${path}.${index}`, `${path}.${index + 1}`)
        .catch(() => {});
    await files().rename(path, `${path}.1`);
    size = 0;
  };
  const append = async (record: AuditRecord) => {
    const began = performance.now();
    try {
      const line = redact(JSON.stringify(record)) + '\n';
      const bytes = Buffer.byteLength(line);
      size ??= await files()
        .stat(path)
        .then(
          (found) => found.size,
          () => 0,
        );
      if (size > 0 && size + bytes > maxBytes) await rotate();
      await files().appendFile(path, line, { encoding: 'utf8', mode: 0o600 });
      size += bytes;
      logger.debug('audit.write.done', { rid: record.rid, took_ms: Math.round(performance.now() - began) });
    } catch (error) {
      // Unknown again: the next write reads the size afresh.
      size = undefined;
      logger.error('audit.write.error', { rid: record.rid, reason: (error as Error).message });
    }
  };
  return {
    write(record) {
      queue = queue.then(() => append(record));
      return queue;
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
