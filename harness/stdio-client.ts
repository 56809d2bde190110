/**
 * A minimal MCP client over stdio, as an editor runs one: spawns `probe-server.ts` with
 * `process.execPath`, writes newline-delimited JSON-RPC to its stdin and matches replies by id.
 * Used by the walkthroughs and the end-to-end tests; not part of the server.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('../', import.meta.url));

/**
 * The node arguments that run a TypeScript file here: the file alone where Node strips types
 * itself (Node >= 22.18), else `--import tsx` first (Node 20).
 */
export function nodeArgsFor(file: string): string[] {
  const strips = Boolean((process.features as { typescript?: unknown }).typescript);
  return strips ? [file] : ['--import', 'tsx', file];
}

export type StdioClient = {
  child: ChildProcessWithoutNullStreams;
  /** Sends a request and resolves with the whole JSON-RPC response (result or error). Rejects after `timeoutMs` (default 20000). */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, any>>;
  /** Sends a notification (no id, no reply). */
  notify(method: string, params?: Record<string, unknown>): void;
  /** `initialize` then `notifications/initialized`; resolves with the initialize result. */
  initialize(protocolVersion?: string): Promise<Record<string, any>>;
  /** Calls a tool and resolves with its CallToolResult. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  /**
   * Calls a tool and resolves with its CallToolResult less the request id the server adds to every
   * call (`structuredContent.requestId` and its JSON text, or an error's `requestId: <id>` block), so a
   * test can compare the whole result. Rejects when the id is missing or not 12 hex characters.
   */
  callToolUntraced(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  /** Every stdout line so far, raw. */
  stdoutLines: string[];
  /** stderr so far. */
  stderr(): string;
  /** Errors raised by writes to the server's stdin (EPIPE once it has exited), in order. */
  stdinErrors: Error[];
  /** Closes stdin and resolves with the exit code once the server has exited. */
  close(): Promise<number | null>;
};

let scratchCache: string | undefined;

/**
 * A document cache folder for the servers this process spawns, in the temporary folder and removed at exit, so no
 * test or demo writes into `~/.cache` (a clean clone in CI runs as root).
 */
export function testCacheDir(): string {
  if (!scratchCache) {
    const made = mkdtempSync(join(tmpdir(), 'openapi-probe-test-cache-'));
    scratchCache = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return scratchCache;
}

/**
 * Spawns the probe server with the given environment (only these variables plus PATH and HOME,
 * as SDK-based hosts do, and `PROBE_CACHE_DIR` at `testCacheDir()` unless `env` sets it) and returns a client for it.
 */
export function spawnServer(env: Record<string, string>, options: { cwd?: string } = {}): StdioClient {
  const child = spawn(process.execPath, nodeArgsFor(`${HERE}probe-server.ts`), {
    cwd: options.cwd ?? HERE,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PROBE_CACHE_DIR: testCacheDir(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  let stderr = '';
  let pendingText = '';
  const waiting = new Map<string, (message: Record<string, any>) => void>();
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pendingText += chunk;
    let newline: number;
    while ((newline = pendingText.indexOf('\n')) !== -1) {
      const line = pendingText.slice(0, newline);
      pendingText = pendingText.slice(newline + 1);
      stdoutLines.push(line);
      try {
        const message = JSON.parse(line);
        const key = `${typeof message.id}:${message.id}`;
        waiting.get(key)?.(message);
        waiting.delete(key);
      } catch {
        // Kept in stdoutLines; tests assert every line parses.
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  // A write that races the server's exit fails with EPIPE on stdin; a client expects that once the
  // server is gone (tests that end the server on purpose keep writing), so it is kept, not thrown.
  const stdinErrors: Error[] = [];
  child.stdin.on('error', (error: Error) => stdinErrors.push(error));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');

  const client: StdioClient = {
    child,
    stdoutLines,
    stderr: () => stderr,
    stdinErrors,
    request(method, params, timeoutMs = 20000) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no reply to ${method} (id ${id}) within ${timeoutMs} ms; stderr: ${stderr}`)),
          timeoutMs,
        );
        waiting.set(`number:${id}`, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      });
    },
    notify(method, params) {
      send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    },
    async initialize(protocolVersion = '2025-11-25') {
      const reply = await client.request('initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'stdio-client', version: '0.0.0' },
      });
      client.notify('notifications/initialized');
      return reply.result;
    },
    async callTool(name, args) {
      const reply = await client.request('tools/call', { name, arguments: args });
      if (reply.error) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
      return reply.result;
    },
    async callToolUntraced(name, args) {
      return withoutRequestId(await client.callTool(name, args));
    },
    close() {
      child.stdin.end();
      return exited;
    },
  };
  return client;
}

/**
 * A CallToolResult less the request id the server adds to every tool call (issue 8, Traces): from
 * `structuredContent` and the JSON text block that mirrors it, or the `requestId: <id>` block of an
 * error result without structured content.
 * @throws Error when the result carries no request id of 12 hex characters.
 */
export function withoutRequestId(result: Record<string, any>): Record<string, any> {
  const id = result.structuredContent?.requestId ?? /^requestId: (.*)$/.exec(result.content?.at(-1)?.text ?? '')?.[1];
  if (typeof id !== 'string' || !/^[0-9a-f]{12}$/.test(id))
    throw new Error(`no request id of 12 hex characters in ${JSON.stringify(result).slice(0, 300)}`);
  if (result.structuredContent) {
    const { requestId: _dropped, ...structured } = result.structuredContent;
    const mirrored = JSON.stringify(result.structuredContent);
    const content = result.content.map((block: { text?: string }) =>
      block.text === mirrored ? { ...block, text: JSON.stringify(structured) } : block,
    );
    return { ...result, content, structuredContent: structured };
  }
  return { ...result, content: result.content.slice(0, -1) };
}
