/**
 * A stdio-to-HTTP bridge for `@modelcontextprotocol/conformance`, which tests servers over Streamable
 * HTTP only (MCP 2025-11-25, Transports). Listens on 127.0.0.1; each `initialize` POST opens a new
 * session with its own child process (the stdio server), and every message of that session is passed
 * through unchanged in both directions, using the official SDK's transports (dev dependency
 * `@modelcontextprotocol/sdk`): the HTTP side is `StreamableHTTPServerTransport`, the stdio side
 * `StdioClientTransport`. Dev only; never part of the product.
 * Run: `node scripts/conformance-bridge.ts COMMAND ARG...` (Node >= 22.18) prints the MCP URL on stdout.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** A running bridge: its MCP endpoint (`http://127.0.0.1:PORT/mcp`) and how to stop it (closes every child). */
export type Bridge = { url: string; close: () => Promise<void> };

/**
 * Starts the bridge.
 * @param server The stdio server to spawn per session: command, arguments, environment.
 * @param port 0 (default) for any free port.
 */
export async function startBridge(
  server: { command: string; args: string[]; env?: Record<string, string> },
  port = 0,
): Promise<Bridge> {
  const sessions = new Map<string, { http: StreamableHTTPServerTransport; stdio: StdioClientTransport }>();
  const open = async (): Promise<StreamableHTTPServerTransport> => {
    const stdio = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      stderr: 'inherit',
    });
    const http = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { http, stdio });
      },
    });
    http.onmessage = (message) => void stdio.send(message).catch(() => {});
    stdio.onmessage = (message) => void http.send(message).catch(() => {});
    http.onclose = () => {
      if (http.sessionId) sessions.delete(http.sessionId);
      void stdio.close();
    };
    await stdio.start();
    await http.start();
    return http;
  };
  const readBody = async (request: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  };
  const httpServer = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = request.method === 'POST' ? await readBody(request) : undefined;
      const id = request.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? sessions.get(id) : undefined;
      if (existing) return existing.http.handleRequest(request, response, body);
      if (request.method === 'POST' && isInitializeRequest(body))
        return (await open()).handleRequest(request, response, body);
      response.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'No session: send initialize first, or a valid Mcp-Session-Id' },
          id: null,
        }),
      );
    })().catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500).end(error.message);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  const address = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: async () => {
      for (const { http, stdio } of sessions.values()) {
        await http.close().catch(() => {});
        await stdio.close().catch(() => {});
      }
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node scripts/conformance-bridge.ts COMMAND ARG...\n');
    process.exit(2);
  }
  const bridge = await startBridge({ command, args, env: process.env as Record<string, string> });
  process.stdout.write(`${bridge.url}\n`);
}
