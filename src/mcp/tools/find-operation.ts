/**
 * The `find_operation` tool: the operations behind an intent, a path or URL, an operationId or a docs anchor.
 */
import { SEARCH_LIMITS } from '../../contract/search-limits.ts';
import { answered, failure } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
async function findOperationCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  // The inputSchema states the query's rule (not blank); the method's set, in any letter case, has no short portable
  // JSON Schema form, so it is checked here.
  if (args.method !== undefined && !/^(get|put|post|delete|options|head|patch|trace)$/i.test(args.method as string)) {
    return failure(`\`method\` must be an HTTP method such as "GET" or "POST", got ${JSON.stringify(args.method)}.`);
  }
  // The dispatch has already checked `limit` against the inputSchema (an integer from 1 to maxLimit).
  const limit = (args.limit as number | undefined) ?? SEARCH_LIMITS.defaultLimit;
  return answered(
    await context.contract.run('find', {
      query: args.query as string,
      ...(args.method !== undefined ? { method: args.method as string } : {}),
      limit,
    }),
  );
}

/** The `find_operation` tool: its definition for `tools/list` and its handler. */
export const findOperationTool: Tool = {
  name: 'find_operation',
  title: 'Find operations',
  description:
    'Finds operations for an intent, path, URL, operationId or docs anchor; each hit says why and how sure, a miss suggests. Sends nothing.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', pattern: '\\S' },
      method: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMITS.maxLimit, default: SEARCH_LIMITS.defaultLimit },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { hits: { type: 'array' }, suggestions: { type: 'array' } },
    required: ['query', 'kind', 'hits', 'suggestions'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  hints: {
    query: 'an intent ("list the stargazers of a repo"), a path or URL, an operationId, or a docs URL or anchor',
  },
  handler: findOperationCall,
};
