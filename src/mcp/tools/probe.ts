/**
 * The `probe` tool: one read-only GET of a path under the base URL, its body checked against the operation's
 * schema in the check worker, a complete JSON 2xx body kept in session memory.
 */
import { parseSelect } from '../../api/body-view.ts';
import type { Selector } from '../../api/body-view.ts';
import { ProbeError, fetchResponse, probeHeaders } from '../../api/probe.ts';
import { buildProbeUrl } from '../../api/url-policy.ts';
import type { RawResponse } from '../../api/probe.ts';
import { MAX_QUERY_PARAMETERS, MAX_SELECT, destinationOf, failure, result } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
export async function probeCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const decision = buildProbeUrl(context.config.baseUrl, args.path, args.query, context.examples?.paths[0]);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  // `select` is a string of at most MAX_SELECT characters (the inputSchema); what it names is checked here.
  const selector = args.select === undefined ? undefined : parseSelect(args.select as string);
  if (selector && 'problem' in selector) return failure(`Refused, nothing was sent: ${selector.problem}`);
  // Marked in flight before the first await, so a field_presence handled right after this call waits for it.
  const finish = context.log.begin([destinationOf(decision.url, context.config)]);
  try {
    return await sendProbe(decision, context, selector);
  } finally {
    finish();
  }
}

/**
 * The probe behind the `probe` tool (and `probe_sample`, one URL after another), once the URL is
 * accepted: sends the GET and reads the bytes here (`fetchResponse`), then runs the body pipeline
 * (src/jobs/pipeline.ts `checkProbe`: decode, redact, view, judge against the document) in the check
 * worker when `context.checker` is set (check-worker.ts; a body past its budget comes back unchecked
 * with a note), else on this thread; remembers a complete JSON 2xx body. Returns the tool result:
 * isError for a network failure or an HTTP status >= 400.
 */
export async function sendProbe(
  decision: { url: URL },
  context: ToolContext,
  selector?: Exclude<Selector, { problem: string }>,
): Promise<ToolResult> {
  const { config } = context;
  const limited = context.rate?.take();
  if (limited) return failure(limited);
  // Traced only once a request will be sent: a call refused by the rate limit sent nothing (audit: method and url null).
  if (context.trace) Object.assign(context.trace, { method: 'GET', url: decision.url });
  const headers = probeHeaders(config, context.requestId, context.traceparent);
  let raw: RawResponse;
  try {
    raw = await fetchResponse(decision.url, {
      headers,
      timeoutMs: config.timeoutMs,
      maxBytes: config.checkMaxBytes,
      fetch: context.fetch,
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof ProbeError) return failure(error.message);
    throw error;
  }
  // Decode, redact, view and judge: in the check worker (the server's main) or on this thread (tests); the first
  // probe waits for the worker, which started loading the document at start-up.
  const request = { url: decision.url.href, ...(selector ? { selector } : {}) };
  // The body's bytes are not read here again: the worker takes them without a copy.
  const checked = await context.contract.check(raw, request, { move: true });
  // Kept as the JSON text the pipeline made, accounted by the memory cost it measured there.
  if (checked.remember)
    context.log.add(checked.remember.operationKey, checked.remember.seen, checked.remember.seen.cost);
  if (checked.tooLarge)
    context.log.addTooLarge(checked.tooLarge.operationKey, checked.tooLarge.path, checked.tooLarge.bytes);
  // Its text block is the text the pipeline made of the structured content (the body serialized once, in the worker).
  return result(checked.structured, checked.isError);
}

/** The `probe` tool: its definition for `tools/list` and its handler. */
export const probeTool: Tool = {
  name: 'probe',
  title: 'Probe the API (read-only GET)',
  description:
    'One GET to the API (the only method; the key is added, never shown). Returns status, content type, bytes and the body ' +
    '(cut to fit, marked; `select` picks one part). With a document, `findings` lists where the whole body ' +
    "breaks the operation's schema (missing, wrong type, enum, undocumented) at instance paths like $.items[0].id. A field " +
    'absent in one record may be optional: see probe_sample.',
  inputSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'Path after the base URL, as find_operation gives it.',
      },
      query: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
        maxProperties: MAX_QUERY_PARAMETERS,
        description: 'Query parameters, name to value.',
      },
      select: {
        type: 'string',
        maxLength: MAX_SELECT,
        description: 'Part of the JSON body to return: "$.items[0]" or "/items/0".',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      status: { type: 'integer' },
      bytes: { type: 'integer' },
      findings: { type: 'array' },
      matchesContract: { type: 'boolean' },
    },
    required: ['url', 'status', 'contentType', 'bytes', 'truncated', 'body'],
  },
  // destructiveHint and idempotentHint only mean something when readOnlyHint is false (MCP 2025-11-25, ToolAnnotations).
  annotations: { readOnlyHint: true, openWorldHint: true },
  exemplified: (examples) => {
    const schema = probeTool.inputSchema as { properties: Record<string, Record<string, unknown>> };
    const pair = examples.query ? [...new URLSearchParams(examples.query.split('?')[1])][0] : undefined;
    return {
      inputSchema: {
        ...schema,
        properties: {
          ...schema.properties,
          path: {
            ...schema.properties.path,
            description: `Path after the base URL, e.g. ${JSON.stringify(examples.paths[0])}.`,
          },
          query: {
            ...schema.properties.query,
            ...(pair ? { description: `Query parameters, e.g. ${JSON.stringify({ [pair[0]]: pair[1] })}.` } : {}),
          },
        },
      },
    };
  },
  handler: probeCall,
};
