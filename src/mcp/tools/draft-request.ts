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
  // The inputSchema states the method's and the headers' rules (RFC 9110, 5.1 and 5.5); the session checked them.
  // Arrays and objects in `query` are written by their parameter's style in the worker (issue 15); their names
  // are judged here with the others, and the URL is built from the rest.
  const query = args.query as Record<string, unknown> | undefined;
  const values = Object.entries(query ?? {}).filter(([, value]) => typeof value === 'object' && value !== null);
  const named = values.length ? { ...query, ...Object.fromEntries(values.map(([name]) => [name, ''])) } : query;
  const decision = buildProbeUrl(context.config.baseUrl, args.path, named, context.examples?.paths[0]);
  if ('refusal' in decision) return failure(`Not drafted: ${decision.refusal}`);
  if (values.length && nestingDepth(Object.fromEntries(values)) > MAX_BODY_DEPTH)
    return failure(`\`query\` nests deeper than ${MAX_BODY_DEPTH} levels.`);
  const plain = values.length
    ? buildProbeUrl(
        context.config.baseUrl,
        args.path,
        Object.fromEntries(Object.entries(query!).filter(([name]) => !values.some(([other]) => other === name))),
        context.examples?.paths[0],
      )
    : decision;
  if ('refusal' in plain) return failure(`Not drafted: ${plain.refusal}`);
  const headers = { ...(args.headers as Record<string, string> | undefined) };
  const held = heldArgument(args, 'body');
  if (args.body !== undefined && (held ? held.depth : nestingDepth(args.body)) > MAX_BODY_DEPTH)
    return failure(`\`body\` nests deeper than ${MAX_BODY_DEPTH} levels.`);
  // The body goes as JSON text, as compare_fixture's fixture does: one string copy to the worker.
  return answered(
    await context.contract.run('draft', {
      method: args.method as string,
      url: plain.url.href,
      headers,
      ...(values.length ? { queryText: JSON.stringify(Object.fromEntries(values)) } : {}),
      ...(args.body !== undefined ? { bodyText: held?.text ?? JSON.stringify(args.body) } : {}),
    }),
  );
}

/** The `draft_request` tool: its definition for `tools/list` and its handler. */
export const draftRequestTool: Tool = {
  name: 'draft_request',
  title: 'Check a request without sending it',
  description:
    'Checks any method\'s request against the contract, never sending it: parameters, body fields ("did you mean", ' +
    'readOnly). Returns problems and a curl line (key as $API_KEY) for a person.',
  inputSchema: {
    type: 'object',
    properties: {
      method: { type: 'string', pattern: '^[A-Za-z]{3,7}$' },
      path: { type: 'string', description: 'after the base URL' },
      query: { type: 'object', maxProperties: MAX_QUERY_PARAMETERS },
      headers: {
        type: 'object',
        propertyNames: { pattern: "^[\\w!#$%&'*+.^`|~-]+$" },
        additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE, pattern: '^[\\x20-\\x7e\\xa0-\\xff]*$' },
        maxProperties: MAX_HEADERS,
      },
      body: { anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }] },
    },
    required: ['method', 'path'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', required: ['matchesContract', 'problems', 'request'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
  hints: {
    method: 'an HTTP method such as "POST", "PATCH" or "DELETE"',
    headers:
      'header names are HTTP tokens (RFC 9110, 5.1) and values are visible Latin-1 text, no control characters or line breaks (RFC 9110, 5.5), e.g. {"If-Match": "W/\\"1\\""}',
  },
  handler: draftRequestCall,
};
