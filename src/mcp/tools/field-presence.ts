/**
 * The `field_presence` tool: for an operation probed this session, how often each field was present across the
 * bodies kept, which the document requires, and what a shape inferred from the first body gets wrong. Sends nothing.
 */
import { REMEMBER_MAX_BYTES } from '../../jobs/answers.ts';
import { failure, recordTexts, result, settleOperation } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
async function fieldPresenceCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const resolved = await context.contract.run('resolve', { tool: 'field_presence', operation: String(args.operation) });
  if ('failure' in resolved) return failure(resolved.failure);
  const { key, summary } = resolved;
  // Probes of this operation still in flight (sent in the same burst, or by probe_sample) count: wait for them.
  const unfinished = await settleOperation(key, context);
  const stillRunning = unfinished
    ? `${unfinished} probe(s) of ${key} still running after ${context.config.timeoutMs} ms (PROBE_TIMEOUT_MS) are not counted.`
    : undefined;
  const seen = context.log.byOperation.get(key) ?? [];
  if (seen.length === 0) {
    const tooLarge = context.log.tooLargeByOperation.get(key);
    if (tooLarge) {
      return failure(
        `${tooLarge === 1 ? '1 complete JSON 2xx response' : `${tooLarge} complete JSON 2xx responses`} of ${key} ${tooLarge === 1 ? 'was' : 'were'} probed but not kept: each was over the ${REMEMBER_MAX_BYTES} bytes a session keeps per body. Probe smaller records (a page size or filter parameter), or call probe_sample with their paths, which compares the records it probes itself.`,
      );
    }
    return failure(
      `No complete JSON 2xx response of ${key} has been probed in this session. ${stillRunning ? `${stillRunning} ` : ''}Probe it first (several records, e.g. different ids), or call probe_sample with their paths.`,
    );
  }
  const analyzed = await context.contract.run('analyze', {
    tool: 'field_presence',
    key,
    records: recordTexts(seen),
    detail: args.detail === 'full' ? 'full' : 'summary',
  });
  if ('failure' in analyzed) return failure(analyzed.failure);
  const { probes, ...analysis } = analyzed.structured as { probes: string[] } & Record<string, unknown>;
  const dropped = context.log.dropped.get(key);
  const forgotten = dropped
    ? `${dropped} earlier record(s) of ${key} were dropped from session memory to keep it within ${context.log.limits.maxBytes} bytes and ${context.log.limits.maxOperations} operations; these ${probes.length} are counted.`
    : undefined;
  const note = [stillRunning, forgotten].filter(Boolean).join(' ');
  return result({ operation: summary, probes, ...analysis, ...(note ? { note } : {}) });
}

/** The `field_presence` tool: its definition for `tools/list` and its handler. */
export const fieldPresenceTool: Tool = {
  name: 'field_presence',
  title: 'Optional fields across probes',
  description:
    'Sends nothing. For an operation probed this session: each field\'s presence ("present in 2 of 3"), whether the document ' +
    'requires it, undocumented fields, and what a shape inferred from the first probe gets wrong.',
  inputSchema: {
    type: 'object',
    properties: {
      operation: { type: 'string', minLength: 1, description: 'operationId, "METHOD /template" or a path probed' },
      detail: { enum: ['summary', 'full'] },
    },
    required: ['operation'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: fieldPresenceCall,
};
