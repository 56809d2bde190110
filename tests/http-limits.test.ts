/**
 * The per-tenant rate limit of issue 19 end to end: `serve --http` spawned as the entry wires it, with a real
 * authorization server (oidc-provider, harness/authorization-server.ts) issuing each caller its own token, an
 * entitlements file putting two callers on one tenant and a third on another, and PROBE_RATE_PER_TENANT_PER_MIN=2.
 * The tenant's limit stops its second caller, whose own per-caller limit is far from reached; the other tenant is
 * served; the refusal is 429 with `Retry-After`, nothing is sent upstream, and the audit record says `check: rate`.
 * (The exact `Retry-After` of a given clock is tested in process, tests/http-transport.test.ts: here the clock is real.)
 * The same server has AUTH_MAX_TOKEN_LIFETIME_S=600: a token the authorization server issues for an hour is 401 with
 * an `error_description` that says what to ask for.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../stand-in-api.ts';
import type { StandIn } from '../stand-in-api.ts';
import { spawnHttpServer, statelessProbe, teamEnvironment } from '../harness/http-server.ts';
import type { HttpServerProcess } from '../harness/http-server.ts';
import { startAuthorizationServer } from '../harness/authorization-server.ts';
import type { AuthorizationServer } from '../harness/authorization-server.ts';

const AUDIENCE = 'http://127.0.0.1:8787/mcp';
const KEY_T = 'tenant-t-upstream-key-4Rk8';
const KEY_U = 'tenant-u-upstream-key-8Jw3';

/** One stateless-era `tools/call` of probe with `token` for `tenant`; the status, Retry-After and JSON body. */
async function probeAs(url: string, token: string, tenant: string) {
  const call = statelessProbe('/meters/mtr_1');
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...call.headers, authorization: `Bearer ${token}`, 'x-tenant': tenant },
    body: call.body,
  });
  const body = (await response.json()) as { error?: { code?: number; message?: string } };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), error: body.error };
}

describe("serve --http with a team's limits: the rate per tenant, the longest token life", () => {
  let issuer: AuthorizationServer;
  let apiT: StandIn;
  let apiU: StandIn;
  let dir: string;
  let server: HttpServerProcess;

  before(async () => {
    issuer = await startAuthorizationServer({ audience: AUDIENCE, clients: ['agent-a', 'agent-b', 'agent-c'] });
    apiT = await start({ key: KEY_T });
    apiU = await start({ key: KEY_U });
    dir = mkdtempSync(join(tmpdir(), 'probe-limits-'));
    server = await spawnHttpServer(
      teamEnvironment(dir, issuer.issuer, AUDIENCE, {
        tenants: { t: { baseUrl: apiT.url, apiKey: KEY_T }, u: { baseUrl: apiU.url, apiKey: KEY_U } },
        entitlements: { 'agent-a': ['t'], 'agent-b': ['t'], 'agent-c': ['u'] },
        more: {
          PROBE_RATE_PER_TENANT_PER_MIN: '2',
          PROBE_RATE_PER_CALLER_PER_MIN: '50',
          PROBE_AUDIT_LOG: join(dir, 'audit.jsonl'),
          AUTH_MAX_TOKEN_LIFETIME_S: '600',
        },
      }),
    );
  });

  after(async () => {
    await server.stop();
    await Promise.all([apiT.close(), apiU.close(), issuer.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops the tenant's second caller at the tenant's limit, sends nothing for it, and serves the other tenant", async () => {
    const [a, b, c] = [
      await issuer.token([], { client: 'agent-a' }),
      await issuer.token([], { client: 'agent-b' }),
      await issuer.token([], { client: 'agent-c' }),
    ];
    const answers = [
      await probeAs(server.url, a, 't'),
      await probeAs(server.url, b, 't'),
      await probeAs(server.url, b, 't'),
      await probeAs(server.url, c, 'u'),
    ];
    const refused = answers[2]!;
    // The seconds until the tenant's first call leaves its 60 s window: 60 less the whole seconds gone since then.
    const seconds = /Try again in (\d+) s\.$/.exec(refused.error?.message ?? '')?.[1];
    const audit = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .map(({ caller, tenant, decision, check, status }) => ({ caller, tenant, decision, check, status }));
    assert.deepEqual(
      {
        statuses: answers.map((answer) => answer.status),
        retryAfterIsTheMessage: refused.retryAfter === seconds,
        withinTheWindow: Number(seconds) >= 1 && Number(seconds) <= 60,
        error: refused.error?.message?.replace(/\d+ s\.$/, 'N s.'),
        upstream: [apiT.requests.length, apiU.requests.length],
        audit,
      },
      {
        statuses: [200, 200, 429, 200],
        retryAfterIsTheMessage: true,
        withinTheWindow: true,
        error:
          'Rate limit reached: 2 calls per minute per tenant (PROBE_RATE_PER_TENANT_PER_MIN); nothing was sent. Try again in N s.',
        upstream: [2, 1],
        audit: [
          { caller: 'agent-a', tenant: 't', decision: 'allowed', check: undefined, status: 200 },
          { caller: 'agent-b', tenant: 't', decision: 'allowed', check: undefined, status: 200 },
          { caller: 'agent-b', tenant: 't', decision: 'denied', check: 'rate', status: 429 },
          { caller: 'agent-c', tenant: 'u', decision: 'allowed', check: undefined, status: 200 },
        ],
      },
    );
  });

  it('refuses a token issued for longer than AUTH_MAX_TOKEN_LIFETIME_S with 401, saying what to ask for', async () => {
    const token = await issuer.token([], { client: 'agent-c', ttlS: 3600 });
    const call = statelessProbe('/meters/mtr_1');
    const before = apiU.requests.length;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { ...call.headers, authorization: `Bearer ${token}`, 'x-tenant': 'u' },
      body: call.body,
    });
    assert.deepEqual(
      [response.status, response.headers.get('www-authenticate'), await response.json(), apiU.requests.length - before],
      [
        401,
        'Bearer resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp", error="invalid_token"',
        {
          error: 'invalid_token',
          error_description:
            'The access token is refused: the token lives 3600 s (exp - iat), longer than the 600 s this server accepts (AUTH_MAX_TOKEN_LIFETIME_S); ask the authorization server for a shorter-lived token.',
        },
        0,
      ],
    );
  });
});
