/**
 * Ownership (issue 19): the upstream key of each tenant, held by the server and read from `TENANT_KEYS_FILE`; the
 * caller's token is never sent upstream (MCP 2025-11-25, Authorization, Token Passthrough). Every key of every tenant
 * is a secret of every answer: `tenantRedactor` removes all of them, so one tenant's key never reaches another's.
 */
import { readFileSync, statSync } from 'node:fs';
import { readKey } from '../runtime/config.ts';
import type { Config } from '../runtime/config.ts';
import { redactorForKeys } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import { isPlainObject } from '../shared/values.ts';
import { TENANT_NAME } from './entitlement.ts';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');

/** One tenant's upstream: where its API is and the key it is called with. */
export type TenantCredential = {
  baseUrl: URL;
  apiKey: string;
  /** Send the key raw in this header instead of `Authorization: Bearer <key>`. */
  apiKeyHeader?: string;
  /** A short id of the key that is not secret: the first 8 hex digits of its SHA-256, for the audit record and the log. */
  keyId: string;
};

/** The largest credentials file read, in bytes. */
export const MAX_TENANT_FILE_BYTES = 1024 * 1024;

/** The most tenants one credentials file may name. */
export const MAX_TENANTS = 10_000;

/** An HTTP header name (RFC 9110, 5.1). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Reads the tenant credentials file: a JSON object from tenant name (`TENANT_NAME`) to
 * `{"baseUrl": "https://...", "apiKey": "...", "apiKeyHeader": "X-API-Key"}` (`apiKeyHeader` optional), each key
 * checked as `API_KEY` is (at least 8 characters, no control character, Latin-1 only). At most
 * `MAX_TENANT_FILE_BYTES` and `MAX_TENANTS`.
 * @returns The tenants in file order, each with its `keyId`.
 * @throws Error naming the file, the tenant and the field at fault; never a key.
 */
export function loadTenantCredentials(path: string): Map<string, TenantCredential> {
  const where = `TENANT_KEYS_FILE ${path}`;
  let parsed: unknown;
  try {
    if (statSync(path).size > MAX_TENANT_FILE_BYTES)
      throw new Error(`${where} is larger than ${MAX_TENANT_FILE_BYTES} bytes`);
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new Error(`${where} cannot be read (${code})`);
    // A JSON.parse message quotes the text around the fault, which may be a key.
    throw new Error(error instanceof SyntaxError ? `${where} is not JSON` : (error as Error).message);
  }
  if (!isPlainObject(parsed)) throw new Error(`${where} must be a JSON object from tenant name to its upstream`);
  const entries = Object.entries(parsed);
  if (entries.length > MAX_TENANTS) throw new Error(`${where} names more than ${MAX_TENANTS} tenants`);
  const tenants = new Map<string, TenantCredential>();
  for (const [tenant, entry] of entries) {
    if (!TENANT_NAME.test(tenant))
      throw new Error(
        `${where}: tenant names are 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit), got \`${tenant.slice(0, 64)}\``,
      );
    const at = `${where}, tenant "${tenant}"`;
    if (!isPlainObject(entry)) throw new Error(`${at} must be an object with baseUrl and apiKey`);
    tenants.set(tenant, readTenant(entry, at));
  }
  return tenants;
}

/** One tenant's entry, checked. */
function readTenant(entry: Record<string, unknown>, at: string): TenantCredential {
  let baseUrl: URL;
  try {
    baseUrl = new URL(String(entry.baseUrl));
  } catch {
    throw new Error(`${at}: baseUrl must be an absolute http(s) URL`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw new Error(`${at}: baseUrl must use http or https`);
  if (baseUrl.username || baseUrl.password || baseUrl.hash)
    throw new Error(`${at}: baseUrl must carry no credentials and no #fragment; the key goes in apiKey`);
  if (typeof entry.apiKey !== 'string') throw new Error(`${at}: apiKey must be a string`);
  const apiKey = readKey(entry.apiKey, `${at}: apiKey`);
  if (apiKey === undefined) throw new Error(`${at}: apiKey is empty`);
  const header = entry.apiKeyHeader;
  if (header !== undefined && (typeof header !== 'string' || !HEADER_NAME.test(header)))
    throw new Error(`${at}: apiKeyHeader must be an HTTP header name such as X-API-Key (RFC 9110, 5.1)`);
  return {
    baseUrl,
    apiKey,
    ...(header !== undefined ? { apiKeyHeader: header } : {}),
    keyId: keyIdOf(apiKey),
  };
}

/** The id of a key that is not secret: the first 8 hex digits of the SHA-256 of its UTF-8 bytes. */
export function keyIdOf(key: string): string {
  return crypto().createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 8);
}

/**
 * The redactor every tenant's runtime uses: `redactorForKeys` (src/redaction/redaction.ts) over all tenants' keys and
 * `extraKeys` (the server's own `API_KEY`, when it has one). One for all, on purpose: a key must be hidden from every
 * tenant, its own included (a tenant's agent never needs to see the key the server holds for it).
 */
export function tenantRedactor(
  tenants: ReadonlyMap<string, TenantCredential>,
  extraKeys: readonly string[] = [],
): Redactor {
  return redactorForKeys([...tenantKeys(tenants), ...extraKeys]);
}

/** Every tenant's key, in file order: what the check worker is told at start, so its redaction is the whole of it. */
export function tenantKeys(tenants: ReadonlyMap<string, TenantCredential>): string[] {
  return [...tenants.values()].map((tenant) => tenant.apiKey);
}

/**
 * What the entry needs to build one runtime per tenant (`createServerRuntime(config, {redact, ...})`): the server's
 * configuration with the tenant's base URL, key and key header in place of its own, and `redact`, the one redactor of
 * every key the caller built (`tenantRedactor`, with the server's own `API_KEY` too), so none is built here. Nothing of
 * the caller's token is in it: the token is never sent upstream.
 * @returns Per tenant name, in file order, its configuration and `redact`.
 */
export function tenantSettings(
  base: Config,
  tenants: ReadonlyMap<string, TenantCredential>,
  redact: Redactor,
): Map<string, { config: Config; redact: Redactor }> {
  return new Map(
    [...tenants].map(([name, tenant]) => {
      const { apiKeyHeader: _ignored, ...rest } = base;
      const config: Config = {
        ...rest,
        baseUrl: tenant.baseUrl,
        apiKey: tenant.apiKey,
        ...(tenant.apiKeyHeader !== undefined ? { apiKeyHeader: tenant.apiKeyHeader } : {}),
      };
      return [name, { config, redact }];
    }),
  );
}
