import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readAuthConfig } from './settings.ts';

const BASE = { AUTH_ISSUER: 'https://as.example.com', AUTH_AUDIENCE: 'https://probe.example.com/mcp' };

describe('readAuthConfig', () => {
  it('returns undefined when AUTH_ISSUER is not set', () => {
    assert.equal(readAuthConfig({}), undefined);
  });

  it('reads the defaults: no scopes, 30 s skew, tokens of at most a day, 60 s entitlement TTL, no source', () => {
    assert.deepEqual(readAuthConfig(BASE), {
      issuer: 'https://as.example.com',
      audience: 'https://probe.example.com/mcp',
      scopes: [],
      clockSkewS: 30,
      maxTokenLifetimeS: 86400,
      entitlementTtlMs: 60000,
    });
  });

  it('reads scopes separated by spaces or commas, each once, and the other settings', () => {
    assert.deepEqual(
      readAuthConfig({
        ...BASE,
        AUTH_SCOPES: 'probe:read, probe:draft probe:read',
        AUTH_CLOCK_SKEW_S: '5',
        AUTH_MAX_TOKEN_LIFETIME_S: '3600',
        AUTH_TENANT_CLAIM: 'tenant',
        ENTITLEMENTS_URL: 'https://entitle.example.com/v1/tenants',
        ENTITLEMENTS_TTL_S: '10',
        TENANT_KEYS_FILE: '/etc/openapi-probe/tenants.json',
      }),
      {
        issuer: 'https://as.example.com',
        audience: 'https://probe.example.com/mcp',
        scopes: ['probe:read', 'probe:draft'],
        clockSkewS: 5,
        maxTokenLifetimeS: 3600,
        tenantClaim: 'tenant',
        entitlements: { kind: 'url', url: new URL('https://entitle.example.com/v1/tenants') },
        entitlementTtlMs: 10000,
        tenantKeysFile: '/etc/openapi-probe/tenants.json',
      },
    );
  });

  const refusals: [string, Record<string, string>, string][] = [
    [
      'an audience without an issuer',
      { AUTH_AUDIENCE: BASE.AUTH_AUDIENCE },
      'AUTH_AUDIENCE is set but AUTH_ISSUER is not; set both, or neither',
    ],
    [
      'an http issuer off loopback',
      { ...BASE, AUTH_ISSUER: 'http://as.example.com' },
      'AUTH_ISSUER must use https (RFC 8414, 2), except on 127.0.0.1 or localhost; got `http://as.example.com`',
    ],
    [
      'an issuer with a query',
      { ...BASE, AUTH_ISSUER: 'https://as.example.com/?x=1' },
      'AUTH_ISSUER must not have a query (RFC 8414, 2), got `https://as.example.com/?x=1`',
    ],
    [
      'a missing audience',
      { AUTH_ISSUER: BASE.AUTH_ISSUER },
      "AUTH_AUDIENCE is not set. Set it to this server's endpoint as clients name it, e.g. AUTH_AUDIENCE=https://probe.example.com/mcp",
    ],
    [
      'an audience not written canonically',
      { ...BASE, AUTH_AUDIENCE: 'HTTPS://Probe.Example.com:443/mcp' },
      "AUTH_AUDIENCE must be the endpoint's canonical URI (lowercase scheme and host, no default port), e.g. `https://probe.example.com/mcp`; got `HTTPS://Probe.Example.com:443/mcp`",
    ],
    [
      'a token lifetime under a minute',
      { ...BASE, AUTH_MAX_TOKEN_LIFETIME_S: '59' },
      'AUTH_MAX_TOKEN_LIFETIME_S must be a whole number from 60 to 31536000, got `59`',
    ],
    [
      'a skew past 300 s',
      { ...BASE, AUTH_CLOCK_SKEW_S: '301' },
      'AUTH_CLOCK_SKEW_S must be a whole number from 0 to 300, got `301`',
    ],
    [
      'two entitlement sources',
      { ...BASE, ENTITLEMENTS_FILE: '/x.json', ENTITLEMENTS_CLAIM: 'tenants' },
      'Set only one of ENTITLEMENTS_CLAIM, ENTITLEMENTS_FILE: each is a whole list of entitlements',
    ],
    [
      'tenant keys without any entitlement',
      { ...BASE, TENANT_KEYS_FILE: '/etc/tenants.json' },
      'TENANT_KEYS_FILE is set but nothing says which caller may act on which tenant: set ENTITLEMENTS_FILE, ENTITLEMENTS_URL, ENTITLEMENTS_CLAIM or AUTH_TENANT_CLAIM',
    ],
    [
      'a scope with a quote',
      { ...BASE, AUTH_SCOPES: 'probe:read "x' },
      'AUTH_SCOPES must hold scope tokens (RFC 6749, 3.3) separated by spaces, got `"x`',
    ],
  ];
  for (const [what, env, message] of refusals) {
    it(`refuses ${what}, naming the variable`, () => {
      assert.throws(() => readAuthConfig(env), { message });
    });
  }
});
