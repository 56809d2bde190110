/**
 * The auth layer's face to the HTTP transport (issue 19): `createAuthorizer` runs identity (a bearer JWT access token
 * verified here, RFC 9068 and RFC 8725, from the header only, RFC 6750, 2.1), then entitlement (may this subject act
 * on the tenant the request names), and answers with the caller or with the refusal to send: status, headers
 * (`WWW-Authenticate`, RFC 6750, 3 and RFC 9728, 5.1) and a JSON body. It also holds the Protected Resource Metadata
 * (RFC 9728, 2-3). Its shapes are those of src/shared/http-auth.ts, which the transport imports instead of this layer.
 */
import type { Logger } from '../runtime/log.ts';
import { createEntitlements } from './entitlement.ts';
import type { EntitlementLookup } from './entitlement.ts';
import { TENANT_NAME } from './entitlement.ts';
import { createIssuerKeys } from './issuer.ts';
import type { IssuerKeys } from './issuer.ts';
import { decodeToken, verifyToken } from './jwt.ts';
import type { AuthConfig } from './settings.ts';
import type { TenantCredential } from './tenants.ts';
import type { HttpAuth, HttpAuthDecision } from '../shared/http-auth.ts';

/** The well-known prefix of Protected Resource Metadata (RFC 9728, 3.1). */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The URL of this resource's Protected Resource Metadata: the well-known part inserted between the host and the
 * path of the resource identifier (RFC 9728, 3.1): `https://probe.example.com/mcp` gives
 * `https://probe.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function resourceMetadataUrl(audience: string): string {
  const url = new URL(audience);
  return `${url.origin}${WELL_KNOWN}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Creates the authorizer for `config`.
 * @param options.tenants The tenant credentials (`loadTenantCredentials`): a verified caller's `keyId` is its tenant's.
 * @param options.now The clock in ms since the epoch (default `Date.now`); tests move it instead of sleeping.
 * @param options.fetch Injected fetch for the issuer's metadata, its JWK Set and the entitlement URL.
 * @param options.keys, options.entitlements Injected parts (default: built from `config`).
 * @param options.logger Told of failed key fetches (`auth.keys.failed`); never of a token.
 * @returns An object of the shape `HttpAuth`.
 */
export function createAuthorizer(options: {
  config: AuthConfig;
  tenants?: ReadonlyMap<string, TenantCredential>;
  now?: () => number;
  fetch?: typeof fetch;
  keys?: IssuerKeys;
  entitlements?: EntitlementLookup;
  logger?: Logger;
}): HttpAuth {
  const { config } = options;
  const now = options.now ?? Date.now;
  const keys =
    options.keys ??
    createIssuerKeys({
      issuer: config.issuer,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      onFailure: (reason) => options.logger?.error('auth.keys.failed', { issuer: config.issuer, reason }),
    });
  const entitlements =
    options.entitlements ??
    (config.entitlements
      ? createEntitlements(config.entitlements, {
          ttlMs: config.entitlementTtlMs,
          now,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        })
      : undefined);
  const metadataUrl = resourceMetadataUrl(config.audience);
  const metadataPath = new URL(metadataUrl).pathname;
  const challenge = (error?: string) =>
    [
      `Bearer resource_metadata="${metadataUrl}"`,
      ...(config.scopes.length ? [`scope="${config.scopes.join(' ')}"`] : []),
      ...(error ? [`error="${error}"`] : []),
    ].join(', ');
  const refuse = (
    status: 400 | 401 | 403 | 503,
    error: string,
    description: string,
    check: 'identity' | 'entitlement',
    withChallenge = true,
  ): HttpAuthDecision => ({
    ok: false,
    status,
    headers: withChallenge ? { 'WWW-Authenticate': challenge(error || undefined) } : {},
    body: { error: error || 'invalid_token', error_description: description },
    check,
  });

  const identify = async (
    request: Parameters<HttpAuth['authorize']>[0],
  ): Promise<{ claims: Record<string, unknown> } | HttpAuthDecision> => {
    // RFC 6750, 2.3 allows the query, but MCP 2025-11-25 (Authorization, Token Requirements) forbids it: a URL ends up in logs.
    if (request.url.searchParams.has('access_token'))
      return refuse(
        400,
        'invalid_request',
        'The access token must not be sent in the URL query (access_token); send it in the Authorization header as Bearer <token>, and treat the one sent as leaked.',
        'identity',
      );
    const header = request.headers.authorization;
    if (header === undefined || !/^bearer(?: |$)/i.test(header))
      return refuse(
        401,
        '',
        `No bearer token: send Authorization: Bearer <access token> issued by ${config.issuer} for ${config.audience}.`,
        'identity',
      );
    // RFC 6750, 2.1: b64token, one or more spaces after the scheme.
    const token = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
    if (token === undefined)
      return refuse(
        401,
        'invalid_token',
        'The Authorization header holds no bearer token (RFC 6750, 2.1).',
        'identity',
      );
    const decoded = decodeToken(token);
    if ('ok' in decoded)
      return refuse(401, 'invalid_token', `The access token is refused: ${decoded.reason}.`, 'identity');
    const found = await keys.keysFor(decoded.keyId);
    if ('unavailable' in found)
      return refuse(
        503,
        'temporarily_unavailable',
        `The authorization server's keys cannot be had, so no token can be checked now; try again later.`,
        'identity',
        false,
      );
    const verdict = verifyToken(decoded, found.keys, {
      issuer: config.issuer,
      audience: config.audience,
      clockSkewS: config.clockSkewS,
      maxLifetimeS: config.maxTokenLifetimeS,
      now: now(),
    });
    if (!verdict.ok) return refuse(401, 'invalid_token', `The access token is refused: ${verdict.reason}.`, 'identity');
    const granted = scopesOf(verdict.claims);
    const missing = config.scopes.filter((scope) => !granted.includes(scope));
    if (missing.length)
      return refuse(
        403,
        'insufficient_scope',
        `The access token lacks the scope ${missing.join(' ')}; request a token with scope="${config.scopes.join(' ')}".`,
        'identity',
      );
    return { claims: verdict.claims };
  };

  /** The tenant the request names and may act on, or the refusal; undefined tenant when none is checked. */
  const entitle = async (
    request: Parameters<HttpAuth['authorize']>[0],
    claims: Record<string, unknown>,
  ): Promise<{ tenant?: string } | HttpAuthDecision> => {
    const named = request.headers['x-tenant'];
    const headerTenant = typeof named === 'string' ? named.trim() : undefined;
    if (headerTenant !== undefined && !TENANT_NAME.test(headerTenant))
      return refuse(
        400,
        'invalid_request',
        'X-Tenant must name one tenant: 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit).',
        'entitlement',
        false,
      );
    let tenant = headerTenant;
    if (config.tenantClaim !== undefined) {
      const claimed = claims[config.tenantClaim];
      if (typeof claimed !== 'string' || !TENANT_NAME.test(claimed))
        return refuse(
          403,
          'forbidden',
          `The access token names no tenant in its ${config.tenantClaim} claim; ask for a token issued for a tenant.`,
          'entitlement',
          false,
        );
      if (headerTenant !== undefined && headerTenant !== claimed)
        return refuse(
          403,
          'forbidden',
          `X-Tenant names ${headerTenant}, but the access token is for another tenant (its ${config.tenantClaim} claim); drop X-Tenant or use a token for ${headerTenant}.`,
          'entitlement',
          false,
        );
      tenant = claimed;
    }
    if (entitlements === undefined) return config.tenantClaim !== undefined ? { tenant } : {};
    if (tenant === undefined)
      return refuse(
        403,
        'forbidden',
        'No tenant named: send X-Tenant: <tenant> with the request.',
        'entitlement',
        false,
      );
    const found = await entitlements.tenantsOf(claims.sub as string, claims);
    if ('unavailable' in found)
      return refuse(
        503,
        'temporarily_unavailable',
        'The entitlement source cannot be read now, so no tenant can be checked; try again later.',
        'entitlement',
        false,
      );
    if (!found.tenants.includes(tenant)) {
      // The list comes from the token itself with the claim source: not repeated back (no part of a token in an answer).
      const yours =
        config.entitlements?.kind === 'claim'
          ? `the access token's ${config.entitlements.claim} claim does not list it`
          : found.tenants.length
            ? `you may act on ${found.tenants.slice(0, 20).join(', ')}`
            : 'you may act on no tenant';
      // The verified subject, so the administrator knows which name to entitle (printable, bounded: a claim is input).
      const subject = String(claims.sub);
      const shown = /^[\x21-\x7e]{1,64}$/.test(subject) ? subject : `of ${subject.length} characters`;
      return refuse(
        403,
        'forbidden',
        `You (subject ${shown}) may not act on tenant ${tenant}: ${yours}. Ask the server's administrator to entitle subject ${shown}, or name another tenant in X-Tenant.`,
        'entitlement',
        false,
      );
    }
    return { tenant };
  };

  return {
    async authorize(request) {
      try {
        const identity = await identify(request);
        if ('ok' in identity) return identity;
        const entitlement = await entitle(request, identity.claims);
        if ('ok' in entitlement) return entitlement;
        const { claims } = identity;
        const tenant = entitlement.tenant;
        const keyId = tenant !== undefined ? options.tenants?.get(tenant)?.keyId : undefined;
        return {
          ok: true,
          caller: {
            subject: claims.sub as string,
            ...(typeof claims.client_id === 'string' ? { clientId: claims.client_id } : {}),
            scopes: scopesOf(claims),
            ...(tenant !== undefined ? { tenant } : {}),
            ...(keyId !== undefined ? { keyId } : {}),
          },
        };
      } catch {
        return refuse(
          503,
          'temporarily_unavailable',
          'The authorization check failed; try again later.',
          'identity',
          false,
        );
      }
    },
    resourceMetadata: {
      paths: [...new Set([metadataPath, WELL_KNOWN])],
      document: {
        resource: config.audience,
        authorization_servers: [config.issuer],
        ...(config.scopes.length ? { scopes_supported: config.scopes } : {}),
        bearer_methods_supported: ['header'],
      },
    },
  };
}

/** The scopes of a verified token's `scope` claim (RFC 9068, 2.2.3: space-separated). */
function scopesOf(claims: Record<string, unknown>): string[] {
  return typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
}
