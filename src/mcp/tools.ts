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
import type { Tool } from './tool.ts';

/** The tools, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [
  probeTool,
  fieldPresenceTool,
  compareFixtureTool,
  probeSampleTool,
  describeOperationTool,
  draftRequestTool,
  findOperationTool,
];
