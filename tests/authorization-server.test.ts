/**
 * The auth layer against a real authorization server (issue 19): oidc-provider 9.13.3 on 127.0.0.1 (started once for
 * the file, harness/authorization-server.ts) issues at+jwt access tokens for the RFC 8707 resource, and
 * `createAuthorizer` fetches its metadata and JWK Set. Every identity verdict is also asked of jose 6 with the same
 * policy, side by side. The verifier's clock is injected (the real time plus an offset), so no test sleeps.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { auth as sdkAuth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { JSONWebKeySet } from 'jose';
import { secretOf, startAuthorizationServer } from '../harness/authorization-server.ts';
import type { AuthorizationServer } from '../harness/authorization-server.ts';
import { createAuthorizer } from '../src/auth/authorizer.ts';
import type { HttpAuth, HttpAuthDecision } from '../src/shared/http-auth.ts';
import { ALGORITHMS } from '../src/auth/jwt.ts';
import type { AuthConfig } from '../src/auth/settings.ts';
import { loadTenantCredentials } from '../src/auth/tenants.ts';

const AUDIENCE = 'https://probe.example.com/mcp';
const METADATA = 'https://probe.example.com/.well-known/oauth-protected-resource/mcp';
const ENDPOINT = new URL('https://probe.example.com/mcp');

let server: AuthorizationServer;
let config: AuthConfig;
/** Seconds added to the real time by the verifier's clock. */
let offsetS = 0;
const now = () => Date.now() + offsetS * 1000;

before(async () => {
  server = await startAuthorizationServer({ audience: AUDIENCE, clients: ['probe-agent', 'other-agent'] });
  config = {
    issuer: server.issuer,
    audience: AUDIENCE,
    scopes: ['probe:read'],
    clockSkewS: 30,
    maxTokenLifetimeS: 86_400,
    entitlementTtlMs: 60_000,
  };
});

after(() => server.stop());

/** The request the transport would pass: the token in the header (or the query), and an X-Tenant. */
function ask(
  auth: HttpAuth,
  request: { token?: string; query?: string; tenant?: string; authorization?: string } = {},
): Promise<HttpAuthDecision> {
  const headers: Record<string, string> = {};
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  if (request.tenant !== undefined) headers['x-tenant'] = request.tenant;
  return auth.authorize({ method: 'POST', url: new URL(`/mcp${request.query ?? ''}`, ENDPOINT), headers });
}

/** jose's verdict on the same token with the same policy and clock, against the issuer's JWK Set as it is now. */
async function jose(token: string): Promise<string> {
  const jwks = (await (await fetch(`${server.issuer}/jwks`)).json()) as JSONWebKeySet;
  try {
    await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: server.issuer,
      audience: AUDIENCE,
      algorithms: [...ALGORITHMS],
      typ: 'at+jwt',
      clockTolerance: 30,
      maxTokenAge: 86_400,
      currentDate: new Date(now()),
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).name;
  }
}

/** The identity verdict in brief: `ok`, or status and the reason. */
function verdict(decision: HttpAuthDecision): string {
  return decision.ok ? 'ok' : `${decision.status} ${decision.body.error_description}`;
}

/** A token with the real token's claims (changed by `change`), signed with the issuer's key `kid` as `alg` says. */
function craft(
  real: string,
  header: Record<string, unknown>,
  change: (claims: Record<string, unknown>) => Record<string, unknown>,
  signWith?: (input: Buffer) => Buffer,
): string {
  const claims = change(JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString()));
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${signWith ? signWith(Buffer.from(input)).toString('base64url') : ''}`;
}

/** The issuer's own key of `prefix` (rsa, p256, p384, ed25519) in this generation. */
const keyOf = (prefix: string) => server.keys().find((key) => key.kid.startsWith(`${prefix}-`))!;

/** A fresh token's claims (changed by `change`) signed as ES256 (SHA-256, `r || s`) with the issuer's key `prefix`. */
async function es256With(prefix: string, change: (claims: Record<string, unknown>) => Record<string, unknown>) {
  const key = keyOf(prefix);
  return craft(await server.token(['probe:read']), { alg: 'ES256', kid: key.kid, typ: 'at+jwt' }, change, (input) =>
    sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }),
  );
}

describe('createAuthorizer with oidc-provider: identity', () => {
  it('accepts a valid token and names the caller from it; jose agrees', async () => {
    offsetS = 0;
    const token = await server.token(['probe:read']);
    const decision = await ask(createAuthorizer({ config, now }), { token });
    assert.deepEqual(
      { decision, jose: await jose(token) },
      {
        decision: { ok: true, caller: { subject: 'probe-agent', clientId: 'probe-agent', scopes: ['probe:read'] } },
        jose: 'ok',
      },
    );
  });

  it('accepts tokens signed RS256, PS256, ES384 and EdDSA by the issuer; jose agrees', async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config, now });
    const seen: string[] = [];
    for (const alg of ['RS256', 'PS256', 'ES384', 'EdDSA'] as const) {
      const token = await server.token(['probe:read'], { alg });
      seen.push(`${alg} ${verdict(await ask(auth, { token }))} jose ${await jose(token)}`);
    }
    assert.deepEqual(seen, ['RS256 ok jose ok', 'PS256 ok jose ok', 'ES384 ok jose ok', 'EdDSA ok jose ok']);
  });

  const refusals: {
    what: string;
    token: () => Promise<string>;
    offsetS?: number;
    ours: string;
    jose: string;
  }[] = [
    {
      what: 'a token of another issuer, signed with this issuer’s key',
      token: () => es256With('p256', (claims) => ({ ...claims, iss: 'https://evil.example.com' })),
      ours: '401 The access token is refused: the token was not issued by ISSUER (iss).',
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    },
    {
      what: 'a token for another resource (RFC 8707)',
      token: () => server.token(['probe:read'], { resource: 'https://other.example.com/mcp' }),
      ours: '401 The access token is refused: the token is not meant for https://probe.example.com/mcp (aud, RFC 8707).',
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    },
    {
      what: 'an expired token (300 s lifetime, 331 s later)',
      token: () => server.token(['probe:read']),
      offsetS: 331,
      ours: '401 The access token is refused: the token has expired (exp).',
      jose: 'ERR_JWT_EXPIRED',
    },
    {
      what: 'a token not valid yet (nbf two minutes ahead)',
      token: () => server.token(['probe:read'], { claims: { nbf: Math.floor(Date.now() / 1000) + 120 } }),
      ours: '401 The access token is refused: the token is not valid yet (nbf).',
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    },
    {
      what: 'a token issued for 90,000 s, past the longest life accepted (86,400 s)',
      token: () => server.token(['probe:read'], { ttlS: 90_000 }),
      ours: '401 The access token is refused: the token lives 90000 s (exp - iat), longer than the 86400 s this server accepts (AUTH_MAX_TOKEN_LIFETIME_S); ask the authorization server for a shorter-lived token.',
      // jose's maxTokenAge bounds the age (now - iat) only: a fresh token that lives long passes it.
      jose: 'ok',
    },
    {
      what: 'a token of the issuer more than a day old, though not expired (exp 1e308)',
      token: () => es256With('p256', (claims) => ({ ...claims, iat: (claims.iat as number) - 90_000, exp: 1e308 })),
      ours: "401 The access token is refused: the token's exp is not a whole number of seconds since 1970 up to 253402300799 (RFC 7519, 2: NumericDate).",
      jose: 'ERR_JWT_EXPIRED',
    },
    {
      what: 'a P-384 key of the issuer used for ES256',
      token: () => es256With('p384', (claims) => claims),
      ours: "401 The access token is refused: the token's key is of the wrong type for its algorithm (ES256 needs P-256).",
      jose: 'ERR_JWKS_NO_MATCHING_KEY',
    },
    {
      what: 'alg none',
      token: async () =>
        craft(
          await server.token(['probe:read']),
          { alg: 'none', kid: keyOf('p256').kid, typ: 'at+jwt' },
          (claims) => claims,
        ),
      ours: '401 The access token is refused: the token is unsigned (alg none); this server accepts only RS256, PS256, ES256, ES384, EdDSA (RFC 8725, 3.1).',
      jose: 'ERR_JOSE_ALG_NOT_ALLOWED',
    },
    {
      what: 'a forged signature (claims changed after signing)',
      token: async () => {
        const [head, , signature] = (await server.token(['probe:read'])).split('.');
        const claims = craft(await server.token(['probe:read']), {}, (claims) => ({ ...claims, sub: 'root' })).split(
          '.',
        )[1];
        return `${head}.${claims}.${signature}`;
      },
      ours: '401 The access token is refused: the signature does not verify.',
      jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    },
    {
      what: 'a token that is not a JWT',
      token: async () => 'not-a-jwt',
      ours: '401 The access token is refused: a JWT has exactly three dot-separated segments (RFC 7515, 7.1).',
      jose: 'ERR_JWS_INVALID',
    },
  ];
  for (const row of refusals) {
    it(`refuses ${row.what} with 401 invalid_token; jose ${row.jose === 'ok' ? 'accepts it (ours is stricter)' : 'refuses it too'}`, async () => {
      offsetS = 0;
      const token = await row.token();
      offsetS = row.offsetS ?? 0;
      const decision = await ask(createAuthorizer({ config, now }), { token });
      const description = decision.ok ? '' : decision.body.error_description;
      assert.deepEqual(
        {
          decision,
          jose: await jose(token),
          quotes: token.split('.').some((part) => part && description.includes(part)),
        },
        {
          decision: {
            ok: false,
            status: 401,
            headers: {
              'WWW-Authenticate': `Bearer resource_metadata="${METADATA}", scope="probe:read", error="invalid_token"`,
            },
            body: { error: 'invalid_token', error_description: row.ours.slice(4).replace('ISSUER', server.issuer) },
            check: 'identity',
          },
          jose: row.jose,
          quotes: false,
        },
      );
    });
  }

  it('refetches the JWK Set for the unknown kid of a rotated key, at most once in 30 s', async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config, now });
    const before = await server.token(['probe:read']);
    const first = verdict(await ask(auth, { token: before }));
    const fetchedAtStart = server.jwksRequests();
    await server.rotate();
    const after = await server.token(['probe:read']);
    offsetS = 10;
    const within30s = verdict(await ask(auth, { token: after }));
    const fetchesWithin30s = server.jwksRequests() - fetchedAtStart;
    offsetS = 31;
    const past30s = verdict(await ask(auth, { token: after }));
    const oldKey = verdict(await ask(auth, { token: before }));
    assert.deepEqual(
      {
        first,
        within30s,
        fetchesWithin30s,
        past30s,
        fetchesPast30s: server.jwksRequests() - fetchedAtStart,
        oldKey,
        jose: await jose(before),
      },
      {
        first: 'ok',
        within30s: "401 The access token is refused: the token's key (kid) is not in the issuer's JWK Set.",
        fetchesWithin30s: 0,
        past30s: 'ok',
        fetchesPast30s: 1,
        oldKey: "401 The access token is refused: the token's key (kid) is not in the issuer's JWK Set.",
        jose: 'ERR_JWKS_NO_MATCHING_KEY',
      },
    );
  });

  it('answers 400 invalid_request to a token in the query, whatever the header holds', async () => {
    offsetS = 0;
    const token = await server.token(['probe:read']);
    const decision = await ask(createAuthorizer({ config, now }), { token, query: `?access_token=${token}` });
    assert.deepEqual(decision, {
      ok: false,
      status: 400,
      headers: {
        'WWW-Authenticate': `Bearer resource_metadata="${METADATA}", scope="probe:read", error="invalid_request"`,
      },
      body: {
        error: 'invalid_request',
        error_description:
          'The access token must not be sent in the URL query (access_token); send it in the Authorization header as Bearer <token>, and treat the one sent as leaked.',
      },
      check: 'identity',
    });
  });

  it('answers 401 with the resource metadata URL and no error code to a request without a token (RFC 6750, 3.1)', async () => {
    assert.deepEqual(await ask(createAuthorizer({ config, now })), {
      ok: false,
      status: 401,
      headers: { 'WWW-Authenticate': `Bearer resource_metadata="${METADATA}", scope="probe:read"` },
      body: {
        error: 'invalid_token',
        error_description: `No bearer token: send Authorization: Bearer <access token> issued by ${server.issuer} for ${AUDIENCE}.`,
      },
      check: 'identity',
    });
  });

  it('treats another scheme (Basic) as no token', async () => {
    const decision = await ask(createAuthorizer({ config, now }), { authorization: 'Basic cHJvYmU6c2VjcmV0' });
    assert.deepEqual(decision.ok ? 'ok' : decision.headers, {
      'WWW-Authenticate': `Bearer resource_metadata="${METADATA}", scope="probe:read"`,
    });
  });

  it('answers 403 insufficient_scope, naming the scopes to ask for, when a required scope is missing', async () => {
    offsetS = 0;
    const token = await server.token(['probe:read']);
    const auth = createAuthorizer({ config: { ...config, scopes: ['probe:read', 'probe:draft'] }, now });
    assert.deepEqual(await ask(auth, { token }), {
      ok: false,
      status: 403,
      headers: {
        'WWW-Authenticate': `Bearer resource_metadata="${METADATA}", scope="probe:read probe:draft", error="insufficient_scope"`,
      },
      body: {
        error: 'insufficient_scope',
        error_description:
          'The access token lacks the scope probe:draft; request a token with scope="probe:read probe:draft".',
      },
      check: 'identity',
    });
  });

  it("answers 503 when the issuer's keys cannot be had", async () => {
    const auth = createAuthorizer({ config: { ...config, issuer: 'http://127.0.0.1:9' }, now });
    const token = await server.token(['probe:read']);
    assert.deepEqual(await ask(auth, { token }), {
      ok: false,
      status: 503,
      headers: {},
      body: {
        error: 'temporarily_unavailable',
        error_description:
          "The authorization server's keys cannot be had, so no token can be checked now; try again later.",
      },
      check: 'identity',
    });
  });

  it('serves Protected Resource Metadata at the path-inserted and the root well-known paths (RFC 9728, 3)', () => {
    assert.deepEqual(createAuthorizer({ config, now }).resourceMetadata, {
      paths: ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
      document: {
        resource: AUDIENCE,
        authorization_servers: [server.issuer],
        scopes_supported: ['probe:read'],
        bearer_methods_supported: ['header'],
      },
    });
  });
});

describe('createAuthorizer with oidc-provider: entitlement', () => {
  const tenants = loadTenantCredentials(fileURLToPath(new URL('../fixtures/auth/tenants.json', import.meta.url)));
  const file = join(mkdtempSync(join(tmpdir(), 'entitlements-')), 'entitlements.json');
  writeFileSync(file, JSON.stringify({ 'probe-agent': ['acme', 'initech'], 'other-agent': ['globex'] }));
  const fileConfig = () => ({ ...config, entitlements: { kind: 'file' as const, path: file } });

  it('names the tenant and its key id when the subject is entitled to the X-Tenant it sends', async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config: fileConfig(), tenants, now });
    const decision = await ask(auth, { token: await server.token(['probe:read']), tenant: 'acme' });
    assert.deepEqual(decision, {
      ok: true,
      caller: {
        subject: 'probe-agent',
        clientId: 'probe-agent',
        scopes: ['probe:read'],
        tenant: 'acme',
        keyId: 'f5a4d2ea',
      },
    });
  });

  it('answers 403 forbidden, listing the tenants it may act on, for a tenant it is not entitled to', async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config: fileConfig(), tenants, now });
    assert.deepEqual(await ask(auth, { token: await server.token(['probe:read']), tenant: 'globex' }), {
      ok: false,
      status: 403,
      headers: {},
      body: {
        error: 'forbidden',
        error_description:
          "You (subject probe-agent) may not act on tenant globex: you may act on acme, initech. Ask the server's administrator to entitle subject probe-agent, or name another tenant in X-Tenant.",
      },
      check: 'entitlement',
    });
  });

  it('answers 403 forbidden when no tenant is named', async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config: fileConfig(), tenants, now });
    const decision = await ask(auth, { token: await server.token(['probe:read']) });
    assert.deepEqual(decision.ok ? 'ok' : [decision.status, decision.body, decision.check], [
      403,
      { error: 'forbidden', error_description: 'No tenant named: send X-Tenant: <tenant> with the request.' },
      'entitlement',
    ]);
  });

  it('checks identity first: a bad token with an entitled tenant is 401', async () => {
    const auth = createAuthorizer({ config: fileConfig(), tenants, now });
    const decision = await ask(auth, { token: 'a.b.c', tenant: 'acme' });
    assert.deepEqual(decision.ok ? 'ok' : [decision.status, decision.check], [401, 'identity']);
  });

  it("takes the tenant from the token's claim, and refuses an X-Tenant that names another", async () => {
    offsetS = 0;
    const auth = createAuthorizer({ config: { ...config, tenantClaim: 'tenant' }, tenants, now });
    const token = await server.token(['probe:read'], { client: 'other-agent', claims: { tenant: 'globex' } });
    const [same, other] = [await ask(auth, { token }), await ask(auth, { token, tenant: 'acme' })];
    assert.deepEqual(
      { same, other: other.ok ? 'ok' : [other.status, other.body.error_description] },
      {
        same: {
          ok: true,
          caller: {
            subject: 'other-agent',
            clientId: 'other-agent',
            scopes: ['probe:read'],
            tenant: 'globex',
            keyId: '264c831a',
          },
        },
        other: [
          403,
          'X-Tenant names acme, but the access token is for another tenant (its tenant claim); drop X-Tenant or use a token for acme.',
        ],
      },
    );
  });
});

describe('the official SDK client (@modelcontextprotocol/sdk 1.32) against the authorizer', () => {
  let resource: Server;
  let endpoint = '';
  let auth: HttpAuth;

  before(async () => {
    // A stand-in for the HTTP transport: the authorizer's answers and its metadata, on 127.0.0.1.
    resource = createServer(async (request, response) => {
      const url = new URL(request.url!, endpoint);
      if (auth.resourceMetadata.paths.includes(url.pathname)) {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(auth.resourceMetadata.document));
        return;
      }
      const decision = await auth.authorize({ method: request.method!, url, headers: request.headers });
      if (decision.ok)
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(decision.caller));
      else
        response
          .writeHead(decision.status, { ...decision.headers, 'content-type': 'application/json' })
          .end(JSON.stringify(decision.body));
    });
    await new Promise<void>((resolve) => resource.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(resource.address() as AddressInfo).port}/mcp`;
    auth = createAuthorizer({ config: { ...config, audience: endpoint }, now });
  });

  after(() => {
    resource.close();
    resource.closeAllConnections();
  });

  it('reads the resource metadata URL and the scope from the 401 (RFC 9728, 5.1)', async () => {
    const answer = await fetch(endpoint, { method: 'POST' });
    const params = extractWWWAuthenticateParams(answer);
    assert.deepEqual(
      {
        status: answer.status,
        resourceMetadataUrl: params.resourceMetadataUrl?.href,
        scope: params.scope,
        error: params.error,
      },
      {
        status: 401,
        resourceMetadataUrl: endpoint.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'),
        scope: 'probe:read',
        error: undefined,
      },
    );
  });

  it('discovers the authorization server from the metadata, gets a token for this resource, and is let in with it', async () => {
    offsetS = 0;
    const provider = new ClientCredentialsProvider({
      clientId: 'probe-agent',
      clientSecret: secretOf('probe-agent'),
      expectedIssuer: server.issuer,
      // The SDK's client credentials request asks for the client's configured scope (fetchToken), not the 401's.
      scope: 'probe:read',
    });
    const outcome = await sdkAuth(provider, { serverUrl: endpoint });
    const token = provider.tokens()?.access_token ?? '';
    const answer = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}');
    assert.deepEqual(
      { outcome, aud: claims.aud, status: answer.status, caller: await answer.json() },
      {
        outcome: 'AUTHORIZED',
        aud: endpoint,
        status: 200,
        caller: { subject: 'probe-agent', clientId: 'probe-agent', scopes: ['probe:read'] },
      },
    );
  });
});
