/**
 * The tool table: every tool this server offers, in the order `tools/list` gives them. Each tool is one file in
 * `tools/` (name, description, `inputSchema`, annotations and handler).
 */
import { probeTool } from './tools/probe.ts';
import { fieldPresenceTool } from './tools/field-presence.ts';
import { compareFixtureTool } from './tools/compare-fixture.ts';
import { probeSampleTool } from './tools/probe-sample.ts';
import { describeOperationTool } from './tools/describe-operation.ts';
import { draftRequestTool } from './tools/draft-request.ts';
import { findOperationTool } from './tools/find-operation.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';
import type { Tool } from './tool.ts';

/** The tools, in the order `tools/list` gives them, in the wording that names no example (before a document loads). */
export const TOOLS: readonly Tool[] = [
  probeTool,
  fieldPresenceTool,
  compareFixtureTool,
  probeSampleTool,
  describeOperationTool,
  draftRequestTool,
  findOperationTool,
];

let last: { key: string; tools: readonly Tool[] } | undefined;

/**
 * The tools as `tools/list` gives them and argument refusals quote them: with `examples` (the loaded document's,
 * src/document/examples.ts), each tool's `exemplified` texts; without, `TOOLS`. The same examples give the same
 * objects (the last set is kept), so the list stays deterministic and is not rebuilt per request.
 */
export function toolsFor(examples: DocumentExamples | undefined): readonly Tool[] {
  if (!examples) return TOOLS;
  const key = JSON.stringify(examples);
  if (last?.key !== key)
    last = { key, tools: TOOLS.map((tool) => (tool.exemplified ? { ...tool, ...tool.exemplified(examples) } : tool)) };
  return last.tools;
}
