// The benchmark's reference point: a minimal MCP server built with the official SDK (@modelcontextprotocol/sdk,
// a dev dependency), exposing one tool equivalent to `probe` without checks: GET API_BASE_URL + path, return
// status and body. Plain JavaScript so it starts under plain Node like our single-file build.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const base = process.env.API_BASE_URL ?? 'http://127.0.0.1:9';
const server = new McpServer({ name: 'sdk-probe', version: '0.0.0' });
server.registerTool(
  'probe',
  { description: 'GET a path below API_BASE_URL and return status and body.', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
  async ({ path }) => {
    const response = await fetch(base + path);
    const text = await response.text();
    return { content: [{ type: 'text', text: JSON.stringify({ status: response.status, body: text }) }] };
  },
);
await server.connect(new StdioServerTransport());
