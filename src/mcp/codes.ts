/**
 * The protocol's fixed words: the revisions served, JSON-RPC 2.0 error codes (JSON-RPC 2.0, 5.1; MCP 2025-11-25
 * schema.ts), the response shapes, and the errors that carry a code.
 */
/**
 * The revisions of the `initialize` era this server speaks, newest first (MCP 2025-11-25, Lifecycle, Version
 * Negotiation).
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/**
 * The revisions of the stateless era this server speaks: each request names one in `_meta` (MCP 2026-07-28,
 * Versioning).
 */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

/**
 * Whether `version` (a `_meta` protocol version or an `MCP-Protocol-Version` header, unchecked) names a stateless-era
 * revision this server speaks: such a request is served by that era's rules, `initialize` too (MCP 2026-07-28,
 * Versioning: a dual-era server selects its behavior from how the client opens).
 */
export function isModernVersion(version: unknown): version is string {
  return typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);
}

/** The `_meta` keys of the stateless era (MCP 2026-07-28, Base Protocol, `_meta`). */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/**
 * The required per-request fields a stateless-era request's `_meta` lacks (MCP 2026-07-28, Base Protocol, `_meta`,
 * per-request protocol fields): the protocol version (a string) and the client capabilities (an object).
 * @param meta The request's `params._meta`, unchecked.
 * @returns The missing keys in the table's order, `[]` when both are there; a request that lacks one is malformed
 *   and is refused with -32602 (on HTTP, 400).
 */
export function missingMetaFields(meta: unknown): string[] {
  const fields = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : {};
  const capabilities = fields[META_KEYS.clientCapabilities];
  return [
    ...(typeof fields[META_KEYS.protocolVersion] === 'string' ? [] : [META_KEYS.protocolVersion]),
    ...(capabilities !== null && typeof capabilities === 'object' && !Array.isArray(capabilities)
      ? []
      : [META_KEYS.clientCapabilities]),
  ];
}

/**
 * The refusal of a stateless-era request whose `_meta` lacks `missing` (`missingMetaFields`) or holds it with the
 * wrong type, as -32602 text naming the type each needs.
 */
export function missingMetaMessage(missing: readonly string[]): string {
  const needs = missing.map((key) => `${key} (${key === META_KEYS.protocolVersion ? 'a string' : 'an object'})`);
  return `Invalid params: _meta needs ${needs.join(' and ')}, which MCP 2026-07-28 requires on every request.`;
}

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0, 5.1; MCP 2025-11-25 schema.ts). */
export const ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP 2026-07-28, Versioning: the requested revision is not served; `data` lists the supported ones. */
  unsupportedProtocolVersion: -32022,
} as const;

export type RequestId = string | number;

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

/** A JSON-RPC error response (JSON-RPC 2.0, 5.1); `data` only when given. */
export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A tool's own throw, already logged with its request id; answered with -32603 and the original message. */
export class LoggedError extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

/** A protocol failure to answer with a JSON-RPC error: its `code` (`ERROR_CODES`), message and optional `data`. */
export class RpcError extends Error {
  code: number;
  data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}
