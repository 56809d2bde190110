/**
 * What every tool shares: the result shape, the context a handler gets, the `Tool` definition (name,
 * description, `inputSchema`, annotations, handler), and the helpers that make results and failures.
 */
import type { ContractService, Destination, JobAnswer, RecordText } from '../jobs/jobs.ts';
import { redactedContents, structuredTexts } from '../jobs/answers.ts';
import type { Seen } from '../jobs/pipeline.ts';
import type { Redactor } from '../redaction/redaction.ts';
import type { Config } from '../runtime/config.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';
import type { RateLimit } from '../runtime/limits.ts';
import { ERROR_CODES, RpcError } from './codes.ts';
import { ProbeLog } from './memory.ts';
import { pathAfterBase } from '../shared/url-path.ts';
/** What a tool handler returns: an MCP CallToolResult (MCP 2025-11-25, Tools). */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** What a tool that sends a request records for the audit line: the method and the URL sent (shown without secrets there). */
export type Trace = { method?: string; url?: URL };

export type ToolContext = {
  config: Config;
  redact: Redactor;
  log: ProbeLog<Seen>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** The tool call's request id, sent as `X-Request-Id`. */
  requestId?: string;
  /** The W3C `traceparent` sent upstream beside `X-Request-Id` (`traceparentFor`, src/runtime/log.ts). */
  traceparent?: string;
  /** Counts each request sent to the API (`PROBE_RATE_PER_MIN`). */
  rate?: RateLimit;
  /** Filled by tools that send a request: method and URL, for the audit file (which shows the URL without secrets). */
  trace?: Trace;
  /** The authenticated caller, when the transport knows one (`Inbound.caller`); undefined on stdio. */
  caller?: { subject: string; clientId?: string };
  /** Runs every step that needs the document: in the check worker (check-worker.ts) or on this thread (src/jobs/jobs.ts). */
  contract: ContractService;
  /** The loaded document's examples, for refusals to quote (src/document/examples.ts); undefined while it loads. */
  examples?: DocumentExamples;
};

export type Tool = {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Record<string, unknown>;
  /**
   * What an argument must be, in words, for a refusal to quote when its schema has no `description` (kept out of
   * `tools/list`, whose size every client pays): `{status: 'a responses key such as "200", "4XX" or "default"'}`.
   */
  hints?: Readonly<Record<string, string>>;
  /**
   * The texts that quote examples, made from the loaded document's (issue 17): the description, `inputSchema` and
   * `hints` replacing the tool's own, whose wording names no example, as `tools/list` gives them once the document has
   * loaded. The argument rules stay the same; only `description` texts change.
   */
  exemplified?: (examples: DocumentExamples) => Partial<Pick<Tool, 'description' | 'inputSchema' | 'hints'>>;
  handler: (args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;
};

/**
 * A tool result of `structured`, its text block the JSON text of `structured`: the one the probe pipeline made
 * (`structuredTexts`, src/jobs/pipeline.ts), else made here and registered, so `withRequestId` recognises that block
 * and the transport writes the structured content as that text (`serializeMessage`), without serializing a result
 * (up to PROBE_MAX_BYTES of body) once more. `structured` is never changed afterwards.
 */
export function result(structured: Record<string, unknown>, isError = false): ToolResult {
  let text = structuredTexts.get(structured);
  if (text === undefined) {
    text = JSON.stringify(structured);
    structuredTexts.set(structured, text);
  }
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

/**
 * A tool result of `head`'s members followed by those of a job's structured content (`{...head, ...inner}`), its text
 * made from the two texts without serializing `inner` again. When `inner` was redacted where it was made
 * (`redactedContents`) and one scan of `head`'s text finds no form of the key, the whole stays marked so: the
 * transport then redacts neither again (issue 18). `head` and `inner` share no member name.
 */
export function resultAfter(
  head: Record<string, unknown>,
  inner: Record<string, unknown>,
  redact: Redactor,
  isError = false,
): ToolResult {
  const structured = { ...head, ...inner };
  const innerText = structuredTexts.get(inner);
  const headText = JSON.stringify(head);
  const apart = Object.keys(inner).every((name) => !Object.hasOwn(head, name));
  if (innerText !== undefined && apart && innerText.length > 2 && headText.length > 2) {
    structuredTexts.set(structured, `${headText.slice(0, -1)},${innerText.slice(1)}`);
    if (redactedContents.has(inner) && redact.text(headText) === headText) redactedContents.add(structured);
  }
  return result(structured, isError);
}

export function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Where a probe URL goes, as `ProbeLog` tracks it. */
export function destinationOf(url: URL, config: Config): Destination {
  return { requestPath: url.pathname, relativePath: pathAfterBase(url, config.baseUrl) };
}

/** The answer of a job as a tool result. */
export function answered(answer: JobAnswer): ToolResult {
  if ('failure' in answer && answer.invalidJson)
    throw new RpcError(ERROR_CODES.parseError, `Parse error: ${answer.failure}`);
  return 'failure' in answer ? failure(answer.failure) : result(answer.structured, answer.isError);
}

/** Remembered bodies as the jobs take them: path, status and JSON text. */
export function recordTexts(seen: Seen[]): RecordText[] {
  return seen.map((entry) => ({ path: entry.path, status: entry.status, text: entry.text }));
}

/**
 * Waits for the probes in flight that belong to the operation `key` (sent in the same burst, or by
 * probe_sample), asking the check worker which operation each destination belongs to, once per probe.
 * @returns How many are still running after `PROBE_TIMEOUT_MS` (or cancellation).
 */
export function settleOperation(key: string, context: ToolContext): Promise<number> {
  const known = new WeakMap<object, string | null>();
  return context.log.settle(
    async (entries) => {
      const unknown = entries.filter((entry) => !known.has(entry));
      if (unknown.length) {
        const keys = await context.contract.run('operationKeys', {
          destinations: unknown.map(({ requestPath, relativePath }) => ({ requestPath, relativePath })),
        });
        unknown.forEach((entry, index) => known.set(entry, keys[index] ?? null));
      }
      return entries.map((entry) => known.get(entry) === key);
    },
    context.config.timeoutMs,
    context.signal,
  );
}

/** Most query parameters a call may name (`query` of probe, probe_sample and draft_request). */
export const MAX_QUERY_PARAMETERS = 100;

/** Longest `select` of a probe, in characters: an instance path or JSON Pointer into one body. */
export const MAX_SELECT = 1024;

/** Most headers a draft may carry, and the longest value of one, in characters (draft_request `headers`). */
export const MAX_HEADERS = 64;

export const MAX_HEADER_VALUE = 8192;
