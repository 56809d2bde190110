/**
 * The `describe_operation` tool: an operation's contract from the document, as text or as TypeScript.
 */
import { answered, failure, recordTexts } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
async function describeOperationCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  if (typeof args.operation !== 'string' || !args.operation.trim()) {
    return failure('`operation` must be a string: an operationId ("getMeter"), "PATCH /meters/{meterId}", or a concrete path ("/meters/mtr_1").');
  }
  if (args.as !== undefined && args.as !== 'text' && args.as !== 'typescript') return failure('`as` must be "text" (default) or "typescript".');
  if (args.part !== undefined && args.part !== 'request' && args.part !== 'responses') return failure('`part` must be "request" or "responses".');
  if (args.status !== undefined && (typeof args.status !== 'string' || !/^([1-5][0-9][0-9]|[1-5]XX|default)$/i.test(args.status))) {
    return failure('`status` must be a responses key as a string: "200", "4XX" or "default".');
  }
  if (args.depth !== undefined && (typeof args.depth !== 'number' || !Number.isInteger(args.depth) || args.depth < 0 || args.depth > 10)) {
    return failure('`depth` must be a whole number from 0 to 10: how many $ref levels to expand (default 3).');
  }
  const options = { operation: args.operation, as: args.as as 'text' | 'typescript' | undefined, part: args.part as 'request' | 'responses' | undefined, status: args.status === undefined ? undefined : (args.status as string).toUpperCase().replace('DEFAULT', 'default'), depth: args.depth as number | undefined };
  if (args.as !== 'typescript') return answered(await context.contract.run('describe', options));
  // As TypeScript, the bodies remembered for the operation go along (as text) to show undocumented fields.
  const resolved = await context.contract.run('resolve', { tool: 'describe_operation', operation: args.operation });
  if ('failure' in resolved) return failure(resolved.failure);
  return answered(await context.contract.run('describe', { ...options, records: recordTexts(context.log.byOperation.get(resolved.key) ?? []) }));
}

/** The `describe_operation` tool: its definition for `tools/list` and its handler. */
export const describeOperationTool: Tool = {
  name: 'describe_operation',
  title: 'Read one operation\'s contract',
  description:
    'An operation\'s contract from the document: parameters, body and response schemas by status ($refs expanded to `depth`). ' +
    'as: "typescript" gives the response type (part: "request": the body type) for a client. At most 20,000 characters.',
  inputSchema: {
    type: 'object',
    properties: {
      operation: { type: 'string', description: 'operationId, "PATCH /a/{id}" or a path' },
      as: { enum: ['text', 'typescript'] },
      part: { enum: ['request', 'responses'] },
      status: { type: 'string' },
      depth: { type: 'integer', minimum: 0, maximum: 10 },
    },
    required: ['operation'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { operation: { type: 'object' }, typescript: { type: 'string' }, cut: { type: 'string' } }, required: ['operation'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: describeOperationCall,
};
