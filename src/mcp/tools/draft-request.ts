/**
 * The `draft_request` tool: a request of any method checked against the contract, never sent; the answer holds
 * it as a curl command for a person to run.
 */
import { MAX_BODY_DEPTH } from '../../shared/json-text.ts';
import { buildProbeUrl } from '../../api/url-policy.ts';
import { nestingDepth } from '../../shared/json-text.ts';
import { MAX_HEADERS, MAX_HEADER_VALUE, MAX_QUERY_PARAMETERS, answered, failure } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
import { heldArgument } from '../wire.ts';
async function draftRequestCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.method !== 'string' || !/^[A-Za-z]{3,7}$/.test(args.method)) return failure('`method` must be an HTTP method such as "POST", "PATCH" or "DELETE".');
  const decision = buildProbeUrl(context.config.baseUrl, args.path, args.query);
  if ('refusal' in decision) return failure(`Not drafted: ${decision.refusal}`);
  const headers: Record<string, string> = {};
  if (args.headers !== undefined) {
    if (args.headers === null || typeof args.headers !== 'object' || Array.isArray(args.headers)) return failure('`headers` must be an object of header name to string value, such as {"If-Match": "W/\"1\""}.');
    for (const [name, value] of Object.entries(args.headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return failure(`\`headers\` has \`${name.slice(0, 80)}\`, which is not an HTTP header name (RFC 9110, 5.1).`);
      if (typeof value !== 'string' || /[\u0000-\u001f\u007f]/.test(value)) return failure(`\`headers.${name}\` must be a string without control characters or newlines.`);
      headers[name] = value;
    }
  }
  const held = heldArgument(args, 'body');
  if (args.body !== undefined && (held ? held.depth : nestingDepth(args.body)) > MAX_BODY_DEPTH) return failure(`\`body\` nests deeper than ${MAX_BODY_DEPTH} levels.`);
  // The body goes as JSON text, as compare_fixture's fixture does: one string copy to the worker.
  return answered(await context.contract.run('draft', { method: args.method, url: decision.url.href, headers, ...(args.body !== undefined ? { bodyText: held?.text ?? JSON.stringify(args.body) } : {}) }));
}

/** The `draft_request` tool: its definition for `tools/list` and its handler. */
export const draftRequestTool: Tool = {
  name: 'draft_request',
  title: 'Check a request without sending it',
  description:
    'Checks a request of any method against the contract without sending it: parameters, body fields ("did you mean", readOnly). ' +
    'Returns problems and the request as curl, the key as $API_KEY, for a person to run.',
  inputSchema: {
    type: 'object',
    properties: {
      method: { type: 'string' },
      path: { type: 'string', description: 'after the base URL' },
      query: { type: 'object', maxProperties: MAX_QUERY_PARAMETERS },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE }, maxProperties: MAX_HEADERS },
      body: {},
    },
    required: ['method', 'path'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { matchesContract: { type: 'boolean' }, problems: { type: 'array' }, request: { type: 'object' } },
    required: ['matchesContract', 'problems', 'request'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: draftRequestCall,
};
