/**
 * The stdio transport (MCP 2025-11-25, Transports, stdio): newline-delimited JSON-RPC on stdin and stdout,
 * through the wire (`src/mcp/wire.ts`), with backpressure and an orderly end. Moves bytes; the session does the rest.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { Session } from '../mcp/session.ts';
import { MAX_LINE } from '../mcp/wire.ts';
import { NO_REDACTION } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { SILENT } from '../runtime/log.ts';
import type { Logger } from '../runtime/log.ts';
import { decode, encode, tooLongError } from '../mcp/wire.ts';
import { createIdScanner } from '../shared/json-text.ts';
/** When stdin closes, calls in flight get this long to finish before they are aborted, in ms. */
export const SHUTDOWN_GRACE_MS = 1000;

/** How long the transport waits for aborted calls to answer, and then for stdout to drain, each in ms. */
const SHUTDOWN_STEP_MS = 400;

/** Resolves when `promise` settles or after `ms`, whichever is first; never rejects. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Runs the stdio transport (MCP 2025-11-25, Transports, stdio): reads newline-delimited JSON-RPC
 * from `input` (UTF-8, characters split across chunks reassembled, a trailing CR and a leading BOM
 * dropped, blank lines ignored), hands each message to `session` without waiting for earlier ones,
 * and writes each response as one line of `JSON.stringify` plus LF to `output`, with line
 * separators escaped (`encode`, src/mcp/wire.ts). A line that is not JSON gets -32700 with id null.
 *
 * Backpressure: when `output.write` returns false, reading `input` and starting queued tool calls
 * pause until `drain`, so answers waiting for the client stay few.
 *
 * Ending: when `input` ends, calls in flight get `graceMs` to answer, then are aborted and answered
 * as cancelled; when `stop` aborts (SIGINT, SIGTERM), they are aborted at once. An `error` on
 * `input` or `output` is logged and ends the session the same way, never as an unhandled event.
 * Each step waits at most 400 ms, so the promise settles within `graceMs` + 800 ms.
 * @param options.redact Applied to every message before it is serialized (removes the API key should the API echo it).
 * @param options.logger Where transport errors go.
 * @param options.stop Aborting it ends the session without a grace period; its `reason` names the cause.
 * @param options.graceMs Default `SHUTDOWN_GRACE_MS`.
 * @returns A promise of why the session ended (`stdin closed`, `SIGTERM`, `stdout error: EPIPE`...),
 *   settled once the last response has been flushed or the flush limit passed. Never rejects.
 */
export function serve(
  session: Session,
  options: {
    input?: Readable;
    output?: Writable;
    redact?: Redactor;
    logger?: Logger;
    stop?: AbortSignal;
    graceMs?: number;
  } = {},
): Promise<string> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const redact = options.redact ?? NO_REDACTION;
  const logger = options.logger ?? SILENT;
  const graceMs = options.graceMs ?? SHUTDOWN_GRACE_MS;
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let blocked = false;
  let outputBroken = false;
  let ending: string | undefined;
  let unflushed = 0;
  let onFlushed: (() => void) | undefined;

  const write = (message: unknown) => {
    if (outputBroken) return;
    // `encode` wrote the line with its line separators escaped already: no second pass over a large answer.
    const line = encode(message, redact) + '\n';
    unflushed++;
    const accepted = output.write(line, () => {
      if (--unflushed === 0) onFlushed?.();
    });
    if (!accepted && !blocked) {
      blocked = true;
      session.hold();
      input.pause();
      output.once('drain', () => {
        blocked = false;
        session.release();
        if (ending === undefined) input.resume();
      });
    }
  };

  // The session's own notifications (tools/list_changed) go out as its replies do, through the wire.
  session.listen((notification) => write(notification));

  const handleLine = (raw: string) => {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1); // RFC 8259, 8.1: parsers may ignore a BOM
    if (line.trim() === '') return;
    const decoded = decode(line);
    if ('error' in decoded) {
      write(decoded.error);
      return;
    }
    const message = decoded.message;
    session.handle(message).then((answer) => {
      if (answer !== undefined) write(answer);
    });
  };

  // While a line over MAX_LINE goes by, its text is not kept: only the request ids read from it, to answer under them.
  let scanner: ReturnType<typeof createIdScanner> | undefined;

  const tooLong = (scanned: ReturnType<typeof createIdScanner>) => {
    logger.error('transport.line.dropped', {
      reason: `message longer than ${MAX_LINE} characters (the line limit), dropped unparsed; answered under the request ids read from it`,
    });
    write(tooLongError(scanned));
  };

  // A line past the limit: what was buffered of it goes to a scanner, and so does the rest of it as it arrives.
  const startScan = () => {
    scanner = createIdScanner();
    scanner.feed(buffer);
    buffer = '';
  };

  // Each chunk is searched once for newlines, and a line's pieces are joined once, when it ends (no rescans).
  const take = (text: string) => {
    if (ending !== undefined) return;
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      if (!scanner && buffer.length + newline - start > MAX_LINE) startScan();
      if (scanner) {
        scanner.feed(text.slice(start, newline));
        tooLong(scanner);
        scanner = undefined;
      } else handleLine(buffer + text.slice(start, newline));
      buffer = '';
      start = newline + 1;
    }
    if (scanner) scanner.feed(text.slice(start));
    else {
      buffer += text.slice(start);
      if (buffer.length > MAX_LINE) startScan();
    }
  };

  const flushed = () =>
    new Promise<void>((resolve) => {
      if (unflushed === 0 || outputBroken) resolve();
      else onFlushed = resolve;
    });

  return new Promise<string>((resolve) => {
    let cutGrace = () => {};
    const finish = async (reason: string, grace: number) => {
      if (ending !== undefined) {
        // A signal or a stream error during the grace after stdin closed ends it now.
        if (grace === 0) cutGrace();
        return;
      }
      ending = reason;
      input.pause();
      if (grace > 0)
        await within(Promise.race([session.idle(), new Promise<void>((resolve) => (cutGrace = resolve))]), grace);
      session.close(reason);
      await within(session.idle(), SHUTDOWN_STEP_MS);
      // A write blocked on a full pipe must not hold the exit: the client stopped reading.
      if (blocked) session.release();
      await within(flushed(), SHUTDOWN_STEP_MS);
      resolve(reason);
    };
    input.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    input.on('end', () => {
      if (ending === undefined) {
        const rest = buffer + decoder.end();
        buffer = '';
        if (scanner) {
          // The last line, over the limit, ended with the input instead of a line break.
          scanner.feed(rest);
          tooLong(scanner);
          scanner = undefined;
        } else if (rest.trim() !== '') handleLine(rest);
      }
      void finish('stdin closed', graceMs);
    });
    input.on('error', (error: Error) => {
      logger.error('transport.error', { stream: 'stdin', reason: error.message });
      void finish(`stdin error: ${(error as NodeJS.ErrnoException).code ?? error.message}`, 0);
    });
    output.on('error', (error: Error) => {
      outputBroken = true;
      logger.error('transport.error', { stream: 'stdout', reason: error.message });
      void finish(`stdout error: ${(error as NodeJS.ErrnoException).code ?? error.message}`, 0);
    });
    const stop = options.stop;
    if (stop) {
      const onStop = () => void finish(String(stop.reason ?? 'stopped'), 0);
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    }
  });
}
