/**
 * The protocol's fixed words: the revisions served, JSON-RPC 2.0 error codes (JSON-RPC 2.0, 5.1; MCP 2025-11-25
 * schema.ts), the response shapes, and the errors that carry a code.
 */
/** Protocol revisions this server speaks, newest first (MCP 2025-11-25, Lifecycle, Version Negotiation). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0, 5.1; MCP 2025-11-25 schema.ts). */
export const ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export type RequestId = string | number;

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

export function errorResponse(id: RequestId | null, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** A tool's own throw, already logged with its request id; answered with -32603 and the original message. */
export class LoggedError extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

export class RpcError extends Error {
  code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}
