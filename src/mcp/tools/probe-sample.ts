/**
 * The `probe_sample` tool: 2 to 10 records of one GET operation probed in turn, then compared as `field_presence`
 * compares them.
 */
import type { Finding } from '../../../validate.ts';
import { buildProbeUrl } from '../../api/url-policy.ts';
import type { RecordText } from '../../jobs/jobs.ts';
import { MAX_QUERY_PARAMETERS, destinationOf, failure, result } from '../tool.ts';
import type { Tool, ToolContext, ToolResult } from '../tool.ts';
import { sendProbe } from './probe.ts';
/** One probe of a `probe_sample` call as the result lists it: the body left out, the verdict kept. */
type SampleProbe = {
  path: string;
  status?: number;
  bytes?: number;
  validated?: boolean;
  matchesContract?: boolean;
  findings?: Finding[];
  note?: string;
  error?: string;
};

async function probeSampleCall(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const paths = args.paths as string[];
  const urls: URL[] = [];
  for (const [index, path] of paths.entries()) {
    const decision = buildProbeUrl(context.config.baseUrl, path, args.query, context.examples?.paths[0]);
    // The refusal names `path`; here the argument is an element of `paths`.
    if ('refusal' in decision)
      return failure(`Refused, nothing was sent: ${decision.refusal.replace(/^`path`/, `\`paths[${index}]\``)}`);
    urls.push(decision.url);
  }
  // In flight from before the first await, so a field_presence in the same burst waits for the whole sample.
  const finish = context.log.begin(urls.map((url) => destinationOf(url, context.config)));
  try {
    return await sampleOperation(paths, urls, args.detail, context);
  } finally {
    finish();
  }
}

/** `probe_sample` once every URL is accepted: one operation for all, then the probes one after another, then the analysis. */
async function sampleOperation(
  paths: string[],
  urls: URL[],
  detail: unknown,
  context: ToolContext,
): Promise<ToolResult> {
  const matched = await context.contract.run('matchSample', {
    paths,
    destinations: urls.map((url) => destinationOf(url, context.config)),
  });
  if ('failure' in matched) return failure(matched.failure);
  const probes: SampleProbe[] = [];
  const records: RecordText[] = [];
  const skipped: string[] = [];
  for (const url of urls) {
    if (context.signal?.aborted) break;
    const probed = await sendProbe({ url }, context);
    const structured = probed.structuredContent;
    const path = destinationOf(url, context.config).relativePath + url.search;
    if (!structured) {
      probes.push({ path, error: probed.content[0]!.text });
      skipped.push(`${path} (no response)`);
      continue;
    }
    const entry: SampleProbe = { path, status: structured.status as number, bytes: structured.bytes as number };
    for (const name of ['validated', 'matchesContract', 'findings', 'note'] as const) {
      if (structured[name] !== undefined) Object.assign(entry, { [name]: structured[name] });
    }
    // No empty sections in a summary: a probe without findings says so by `matchesContract`.
    if (detail !== 'full' && Array.isArray(entry.findings) && entry.findings.length === 0) delete entry.findings;
    if (typeof structured.validationNote === 'string')
      entry.note = [entry.note, structured.validationNote].filter(Boolean).join(' ');
    probes.push(entry);
    const status = structured.status as number;
    const body = structured.body;
    // The body shown (at most PROBE_MAX_BYTES of JSON) goes to the analysis as text.
    if (!structured.truncated && status >= 200 && status < 300 && body !== null && typeof body === 'object')
      records.push({ path, status, text: JSON.stringify(body) });
    else skipped.push(`${path} (status ${status}${structured.truncated ? ', cut at PROBE_MAX_BYTES' : ''})`);
  }
  const summary = matched.summary;
  if (records.length === 0) {
    return result(
      {
        operation: summary,
        probes,
        note: `None of the ${probes.length} probes returned a complete JSON 2xx body, so there is nothing to compare. Check the paths (ids of existing records) and each probe's status or error.`,
      },
      true,
    );
  }
  const analyzed = await context.contract.run('analyze', {
    tool: 'probe_sample',
    key: matched.key,
    records,
    detail: detail === 'full' ? 'full' : 'summary',
  });
  if ('failure' in analyzed) return failure(analyzed.failure);
  const { probes: compared, ...analysis } = analyzed.structured as { probes: string[] } & Record<string, unknown>;
  return result({
    operation: summary,
    probes,
    ...analysis,
    ...(skipped.length
      ? {
          note: `${compared.length} of ${probes.length} probes returned a complete JSON 2xx body and are compared; not compared: ${skipped.join(', ')}.`,
        }
      : {}),
  });
}

/** The `probe_sample` tool: its definition for `tools/list` and its handler. */
export const probeSampleTool: Tool = {
  name: 'probe_sample',
  title: 'Sample records of one operation',
  description:
    'Probes 2-10 records of ONE GET operation, as probe does: per probe status and findings (no bodies), each ' +
    "field's presence and whether required, undocumented fields, and what a shape inferred from the first gets wrong.",
  inputSchema: {
    type: 'object',
    properties: {
      paths: {
        type: 'array',
        items: { type: 'string' },
        minItems: 2,
        maxItems: 10,
        uniqueItems: true,
        description: 'concrete paths of one operation',
      },
      query: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
        maxProperties: MAX_QUERY_PARAMETERS,
        description: 'added to every path',
      },
      detail: { enum: ['summary', 'full'] },
    },
    required: ['paths'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { operation: { type: 'object' }, probes: { type: 'array' } },
    required: ['operation', 'probes'],
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
  exemplified: (examples) => {
    const schema = probeSampleTool.inputSchema as { properties: Record<string, Record<string, unknown>> };
    const paths = examples.paths.map((path) => JSON.stringify(path)).join(', ');
    const description = `e.g. [${paths}${examples.paths.length < 2 ? ', ...' : ''}]`;
    return {
      inputSchema: {
        ...schema,
        properties: { ...schema.properties, paths: { ...schema.properties.paths, description } },
      },
    };
  },
  handler: probeSampleCall,
};
