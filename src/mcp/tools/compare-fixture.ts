/**
 * The `compare_fixture` tool: a saved body (a fixture) against the live record of the same path, from session
 * memory or probed now.
 */
import { MAX_BODY_DEPTH } from '../../shared/json-text.ts';
import { buildProbeUrl } from '../../api/url-policy.ts';
import { REMEMBER_MAX_BYTES } from '../../jobs/answers.ts';
import { nestingDepth } from '../../shared/json-text.ts';
import { answered, failure, resultAfter } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
import { heldArgument } from '../wire.ts';
import { probeCall } from './probe.ts';
import { pathAfterBase } from '../../shared/url-path.ts';
async function compareFixtureCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const fixture = args.fixture;
  // A fixture given as a string of JSON text is parsed and measured in the check worker, never here: a string of
  // nested arrays megabytes long would hold the thread that answers ping.
  const fixtureString = typeof fixture === 'string';
  const held = fixtureString ? undefined : heldArgument(args, 'fixture');
  if (!fixtureString && (held ? held.depth : nestingDepth(fixture)) > MAX_BODY_DEPTH)
    return failure(`\`fixture\` nests deeper than ${MAX_BODY_DEPTH} levels; compare a smaller part of the record.`);
  const decision = buildProbeUrl(context.config.baseUrl, args.path, undefined, context.examples?.paths[0]);
  if ('refusal' in decision) return failure(`Refused, nothing was sent: ${decision.refusal}`);
  const relativePath = pathAfterBase(decision.url, context.config.baseUrl) + decision.url.search;
  let seen = context.log.byPath.get(relativePath);
  let probedNow = false;
  if (!seen) {
    const probed = await probeCall({ path: args.path }, context);
    // A refusal or a network failure is the probe's own answer; an HTTP error status falls through to the message below.
    if (probed.isError && !probed.structuredContent) return probed;
    seen = context.log.byPath.get(relativePath);
    probedNow = true;
    const tooLarge = context.log.tooLargeByPath.get(relativePath);
    if (!seen && tooLarge !== undefined) {
      return failure(
        `GET ${relativePath} returned a complete JSON 2xx body of ${tooLarge} bytes, over the ${REMEMBER_MAX_BYTES} bytes a session keeps per body, so it cannot be compared. Compare a smaller record (a page size or filter parameter).`,
      );
    }
    if (!seen)
      return failure(
        `GET ${relativePath} did not return a complete JSON 2xx body, so there is nothing to compare: ${probed.content[0]!.text.slice(0, 500)}`,
      );
  }
  // The comparison runs in the check worker with the remembered JSON text (at most 1 MiB, or PROBE_MAX_BYTES when larger),
  // under its deadline, its lists capped (issue 8): nothing of it holds this thread.
  // Both sides go as JSON text: a string crosses to the worker as one copy, far cheaper than cloning a large object.
  const fixtureText = fixtureString ? fixture : (held?.text ?? JSON.stringify(fixture));
  const compared = await context.contract.run('compare', {
    fixtureText,
    text: seen.text,
    ...(fixtureString ? { fixtureString } : {}),
  });
  if ('failure' in compared) return answered(compared);
  // The comparison was redacted in the worker; only the path and time added here are scanned (resultAfter).
  return resultAfter(
    { path: relativePath, live: { at: seen.at, probedNow } },
    compared.structured,
    context.redact,
    compared.isError,
  );
}

/** The `compare_fixture` tool: its definition for `tools/list` and its handler. */
export const compareFixtureTool: Tool = {
  name: 'compare_fixture',
  title: 'Compare a saved fixture with the live record',
  description:
    'Compares a saved body (a fixture) with the live record of its path: fields only live, only in the fixture, changed ' +
    "values. Uses this session's newest probe of the path, or probes it now.",
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'after the base URL' },
      fixture: { anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }], description: 'saved JSON body' },
    },
    required: ['path', 'fixture'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
  handler: compareFixtureCall,
};
