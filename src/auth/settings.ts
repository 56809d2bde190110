/**
 * The settings of the HTTP transport's three checks (issue 19), read from the environment once at start-up beside
 * `readConfig`: who issues the tokens and for which audience (identity), where the callers' tenants are listed
 * (entitlement), and the file of upstream keys per tenant (ownership). Every error names the variable and what it
 * must be.
 */
import { readInteger } from '../runtime/config.ts';

/** Where the tenants a caller may act on are listed. */
export type EntitlementSource =
  { kind: 'claim'; claim: string } | { kind: 'file'; path: string } | { kind: 'url'; url: URL };

/** The auth settings (`readAuthConfig`). */
export type AuthConfig = {
  /** The authorization server's issuer identifier, compared exactly with `iss` and the metadata's `issuer` (RFC 8414, 3.3). */
  issuer: string;
  /** The canonical URI of this server's MCP endpoint: the resource (RFC 8707) every token's `aud` must name. */
  audience: string;
  /** Scopes every token must carry (`AUTH_SCOPES`), in the order configured; none by default. */
  scopes: string[];
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. */
  clockSkewS: number;
  /** The longest token life accepted (`exp - iat`, and `exp` from now), in seconds (`AUTH_MAX_TOKEN_LIFETIME_S`). */
  maxTokenLifetimeS: number;
  /** The claim that names the tenant (`AUTH_TENANT_CLAIM`); without it the tenant comes from the `X-Tenant` header. */
  tenantClaim?: string;
  /** Where entitlements come from; without one, no tenant is checked. */
  entitlements?: EntitlementSource;
  /** How long an answer of the entitlement URL is reused for the same subject, in ms. */
  entitlementTtlMs: number;
  /** The tenant credentials file (`TENANT_KEYS_FILE`), read by `loadTenantCredentials`. */
  tenantKeysFile?: string;
};

/** A claim name or a tenant name: printable ASCII without space, at most 64 characters. */
const NAME = /^[A-Za-z0-9._:@-]{1,64}$/;

/** A scope token (RFC 6749, 3.3: `%x21 / %x23-5B / %x5D-7E`). */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/**
 * Reads the auth settings: `AUTH_ISSUER` (absolute https URL, or http on 127.0.0.1/localhost; no query or
 * fragment), `AUTH_AUDIENCE` (absolute http(s) URL of this server's endpoint, written canonically, no fragment), `AUTH_SCOPES` (scopes
 * separated by spaces or commas, optional), `AUTH_CLOCK_SKEW_S` (0 to 300, default 30), `AUTH_MAX_TOKEN_LIFETIME_S`
 * (60 to 31536000, default 86400; no RFC bounds a token's life, so the resource server does), `AUTH_TENANT_CLAIM`
 * (optional), at most one of `ENTITLEMENTS_CLAIM`, `ENTITLEMENTS_FILE` and `ENTITLEMENTS_URL`, `ENTITLEMENTS_TTL_S`
 * (0 to 3600, default 60) and `TENANT_KEYS_FILE`.
 * @returns The settings, or undefined when `AUTH_ISSUER` is not set (the server runs without authentication).
 * @throws Error naming the variable, the value and what it must be.
 */
export function readAuthConfig(env: Record<string, string | undefined>): AuthConfig | undefined {
  const issuer = env.AUTH_ISSUER?.trim();
  if (!issuer) {
    if (env.AUTH_AUDIENCE?.trim()) throw new Error('AUTH_AUDIENCE is set but AUTH_ISSUER is not; set both, or neither');
    return undefined;
  }
  const issuerUrl = readUrl('AUTH_ISSUER', issuer);
  if (issuerUrl.search || issuer.includes('?'))
    throw new Error(`AUTH_ISSUER must not have a query (RFC 8414, 2), got \`${issuer}\``);
  if (issuerUrl.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(issuerUrl.hostname))
    throw new Error(`AUTH_ISSUER must use https (RFC 8414, 2), except on 127.0.0.1 or localhost; got \`${issuer}\``);
  const audience = env.AUTH_AUDIENCE?.trim();
  if (!audience)
    throw new Error(
      "AUTH_AUDIENCE is not set. Set it to this server's endpoint as clients name it, e.g. AUTH_AUDIENCE=https://probe.example.com/mcp",
    );
  const canonical = readUrl('AUTH_AUDIENCE', audience).href;
  // Tokens carry the resource as the client wrote it (RFC 8707, 2), and aud is compared exactly: one spelling only.
  if (audience !== canonical && `${audience}/` !== canonical)
    throw new Error(
      `AUTH_AUDIENCE must be the endpoint's canonical URI (lowercase scheme and host, no default port), e.g. \`${canonical.replace(/\/$/, '')}\`; got \`${audience}\``,
    );
  const scopes = [...new Set((env.AUTH_SCOPES ?? '').split(/[\s,]+/).filter(Boolean))];
  const badScope = scopes.find((scope) => !SCOPE.test(scope));
  if (badScope !== undefined)
    throw new Error(`AUTH_SCOPES must hold scope tokens (RFC 6749, 3.3) separated by spaces, got \`${badScope}\``);
  const sources = (['ENTITLEMENTS_CLAIM', 'ENTITLEMENTS_FILE', 'ENTITLEMENTS_URL'] as const).filter((name) =>
    env[name]?.trim(),
  );
  if (sources.length > 1)
    throw new Error(`Set only one of ${sources.join(', ')}: each is a whole list of entitlements`);
  // Without a check of who may act on which tenant, any verified caller could use any tenant's key (issue 19).
  if (env.TENANT_KEYS_FILE?.trim() && !sources.length && !env.AUTH_TENANT_CLAIM?.trim())
    throw new Error(
      'TENANT_KEYS_FILE is set but nothing says which caller may act on which tenant: set ENTITLEMENTS_FILE, ENTITLEMENTS_URL, ENTITLEMENTS_CLAIM or AUTH_TENANT_CLAIM',
    );
  return {
    issuer,
    audience,
    scopes,
    clockSkewS: readInteger(env, 'AUTH_CLOCK_SKEW_S', 30, 0, 300),
    maxTokenLifetimeS: readInteger(env, 'AUTH_MAX_TOKEN_LIFETIME_S', 86_400, 60, 31_536_000),
    ...(env.AUTH_TENANT_CLAIM?.trim() ? { tenantClaim: readName(env, 'AUTH_TENANT_CLAIM') } : {}),
    ...(sources[0] ? { entitlements: readSource(env, sources[0]) } : {}),
    entitlementTtlMs: readInteger(env, 'ENTITLEMENTS_TTL_S', 60, 0, 3600) * 1000,
    ...(env.TENANT_KEYS_FILE?.trim() ? { tenantKeysFile: env.TENANT_KEYS_FILE.trim() } : {}),
  };
}

/** The entitlement source of the one variable set. */
function readSource(
  env: Record<string, string | undefined>,
  name: 'ENTITLEMENTS_CLAIM' | 'ENTITLEMENTS_FILE' | 'ENTITLEMENTS_URL',
): EntitlementSource {
  const value = env[name]!.trim();
  if (name === 'ENTITLEMENTS_CLAIM') return { kind: 'claim', claim: readName(env, name) };
  if (name === 'ENTITLEMENTS_FILE') return { kind: 'file', path: value };
  return { kind: 'url', url: readUrl(name, value) };
}

/** An absolute http(s) URL without credentials or fragment. */
function readUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got \`${value}\``);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${name} must use http or https, got \`${value}\``);
  if (url.username || url.password) throw new Error(`${name} must not carry credentials (user:password@)`);
  if (url.hash || value.includes('#')) throw new Error(`${name} must not have a #fragment, got \`${value}\``);
  return url;
}

/** A claim name: 1 to 64 of `A-Z a-z 0-9 . _ : @ -`. */
function readName(env: Record<string, string | undefined>, name: string): string {
  const value = env[name]!.trim();
  if (!NAME.test(value)) throw new Error(`${name} must be a claim name such as tenant, got \`${value}\``);
  return value;
}
