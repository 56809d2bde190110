/**
 * The `describe_operation` tool: an operation's contract from the document, as text or as TypeScript.
 */
import { answered, failure, recordTexts } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
async function describeOperationCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  // The inputSchema states the rules (an operation that is not blank, the `as` and `part` words, a responses key, a
  // depth of 0 to 10); the session checked them before this runs.
  const options = {
    operation: args.operation as string,
    as: args.as as 'text' | 'typescript' | undefined,
    part: args.part as 'request' | 'responses' | undefined,
    status: args.status === undefined ? undefined : (args.status as string).toUpperCase().replace('DEFAULT', 'default'),
    depth: args.depth as number | undefined,
  };
  if (args.as !== 'typescript') return answered(await context.contract.run('describe', options));
  // As TypeScript, the bodies remembered for the operation go along (as text) to show undocumented fields.
  const resolved = await context.contract.run('resolve', {
    tool: 'describe_operation',
    operation: args.operation as string,
  });
  if ('failure' in resolved) return failure(resolved.failure);
  return answered(
    await context.contract.run('describe', {
      ...options,
      records: recordTexts(context.log.byOperation.get(resolved.key) ?? []),
    }),
  );
}

/** The `describe_operation` tool: its definition for `tools/list` and its handler. */
export const describeOperationTool: Tool = {
  name: 'describe_operation',
  title: "Read one operation's contract",
  description:
    "An operation's contract from the document: parameters, body and response schemas by status ($refs expanded to `depth`). " +
    'as: "typescript" gives the response type (part: "request": the body type) for a client. At most 20,000 characters.',
  inputSchema: {
    type: 'object',
    properties: {
      operation: { type: 'string', pattern: '\\S', description: 'operationId, "METHOD /template" or a path' },
      as: { enum: ['text', 'typescript'] },
      part: { enum: ['request', 'responses'] },
      status: { type: 'string', pattern: '^([1-5]\\d\\d|[1-5][Xx][Xx]|[Dd][Ee][Ff][Aa][Uu][Ll][Tt])$' },
      depth: { type: 'integer', minimum: 0, maximum: 10 },
    },
    required: ['operation'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { operation: { type: 'object' } }, required: ['operation'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
  hints: {
    status: 'a responses key as a string: "200", "4XX" or "default"',
    operation: 'an operationId, "METHOD /template", or a concrete path, as find_operation gives them',
  },
  exemplified: (examples) => ({
    hints: {
      ...describeOperationTool.hints,
      operation: `an operationId (${JSON.stringify(examples.operationId)}), ${JSON.stringify(examples.key)}, or a concrete path (${JSON.stringify(examples.paths[0])})`,
    },
  }),
  handler: describeOperationCall,
};
