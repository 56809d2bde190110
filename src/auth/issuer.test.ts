/**
 * The issuer's key cache against a metadata and JWK Set server on 127.0.0.1 that the test starts: which URLs are
 * asked, when the keys are fetched again (the clock is injected: no test sleeps), and what a hostile answer gets.
 */
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIssuerKeys, metadataUrls } from './issuer.ts';

/** What the test server answers, per path, and every path it was asked for. */
let routes: Record<string, { status?: number; body: string }> = {};
let asked: string[] = [];
let server: Server;
let origin = '';

before(async () => {
  server = createServer((request, response) => {
    asked.push(request.url!);
    const route = routes[request.url!];
    response.writeHead(route?.status ?? (route ? 200 : 404), { 'content-type': 'application/json' });
    response.end(route?.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.close();
  server.closeAllConnections();
});

/** Serves metadata for `issuer` at `metadataPath` and a JWK Set with `kids` at /jwks. */
function serve(issuer: string, metadataPath: string, kids: string[]): void {
  routes = {
    [metadataPath]: { body: JSON.stringify({ issuer, jwks_uri: `${origin}/jwks` }) },
    '/jwks': { body: JSON.stringify({ keys: kids.map((kid) => ({ kty: 'EC', crv: 'P-256', kid, x: 'x', y: 'y' })) }) },
  };
}

const kidsOf = (lookup: Awaited<ReturnType<ReturnType<typeof createIssuerKeys>['keysFor']>>) =>
  'keys' in lookup ? lookup.keys.map((key) => key.kid) : lookup;

describe('metadataUrls', () => {
  it('tries oauth-authorization-server, then openid-configuration, for an issuer without a path', () => {
    assert.deepEqual(metadataUrls('https://as.example.com').map(String), [
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
  });

  it("inserts the well-known part before the path of an issuer with one (RFC 8414, 3.1), then appends OpenID's", () => {
    assert.deepEqual(metadataUrls('https://example.com/issuer1').map(String), [
      'https://example.com/.well-known/oauth-authorization-server/issuer1',
      'https://example.com/.well-known/openid-configuration/issuer1',
      'https://example.com/issuer1/.well-known/openid-configuration',
    ]);
  });
});

describe('createIssuerKeys', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
    asked = [];
  });

  it('fetches the metadata and the JWK Set once, then answers a known kid from the cache', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(kidsOf(await keys.keysFor('a')), ['a']);
    clock += 60_000;
    assert.deepEqual(kidsOf(await keys.keysFor('a')), ['a']);
    assert.deepEqual(asked, ['/.well-known/oauth-authorization-server', '/jwks']);
  });

  it('falls back to openid-configuration when oauth-authorization-server answers 404', async () => {
    serve(origin, '/.well-known/openid-configuration', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(kidsOf(await keys.keysFor('a')), ['a']);
    assert.deepEqual(asked, ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/jwks']);
  });

  it('finds the metadata of an issuer with a path at the path-inserted URL', async () => {
    serve(`${origin}/tenant1`, '/.well-known/oauth-authorization-server/tenant1', ['a']);
    const keys = createIssuerKeys({ issuer: `${origin}/tenant1`, now });
    assert.deepEqual(kidsOf(await keys.keysFor('a')), ['a']);
  });

  it('refetches for an unknown kid only once 30 s have passed since the last fetch', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    await keys.keysFor('a');
    serve(origin, '/.well-known/oauth-authorization-server', ['a', 'b']);
    clock += 29_999;
    assert.deepEqual(kidsOf(await keys.keysFor('b')), ['a']);
    clock += 1;
    assert.deepEqual(kidsOf(await keys.keysFor('b')), ['a', 'b']);
    assert.equal(keys.fetches(), 2);
  });

  it('shares one fetch between callers waiting at the same time', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    const answers = await Promise.all([keys.keysFor('a'), keys.keysFor('a'), keys.keysFor('a')]);
    assert.deepEqual(answers.map(kidsOf), [['a'], ['a'], ['a']]);
    assert.equal(keys.fetches(), 1);
  });

  it('keeps using keys younger than 10 minutes while the issuer is down', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    await keys.keysFor('a');
    routes = {};
    clock += 31_000;
    assert.deepEqual(kidsOf(await keys.keysFor('b')), ['a']);
  });

  it('stops using keys 10 minutes old when they cannot be fetched again', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    const failures: string[] = [];
    const keys = createIssuerKeys({ issuer: origin, now, onFailure: (reason) => failures.push(reason) });
    await keys.keysFor('a');
    routes = {};
    clock += 600_000;
    const reason = `no metadata found for ${origin}: ${origin}/.well-known/oauth-authorization-server answered 404; ${origin}/.well-known/openid-configuration answered 404`;
    assert.deepEqual(await keys.keysFor('a'), { unavailable: reason });
    assert.deepEqual(failures, [reason]);
  });

  it('refuses metadata that names another issuer (RFC 8414, 3.3)', async () => {
    serve('https://evil.example.com', '/.well-known/oauth-authorization-server', ['a']);
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(await keys.keysFor('a'), {
      unavailable: `the metadata at ${origin}/.well-known/oauth-authorization-server names another issuer (RFC 8414, 3.3)`,
    });
  });

  it('stops reading a JWK Set past 256 KiB', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    routes['/jwks'] = { body: JSON.stringify({ keys: [], padding: 'x'.repeat(300_000) }) };
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(await keys.keysFor('a'), { unavailable: `${origin}/jwks sent more than 262144 bytes` });
  });

  it('refuses a JWK Set that is not JSON', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    routes['/jwks'] = { body: '{"keys": [' };
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(await keys.keysFor('a'), { unavailable: `${origin}/jwks did not send JSON` });
  });

  it('stops reading metadata past 64 KiB', async () => {
    routes = {
      '/.well-known/oauth-authorization-server': {
        body: JSON.stringify({ issuer: origin, jwks_uri: `${origin}/jwks`, padding: 'x'.repeat(70_000) }),
      },
    };
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(await keys.keysFor('a'), {
      unavailable: `no metadata found for ${origin}: ${origin}/.well-known/oauth-authorization-server sent more than 65536 bytes; ${origin}/.well-known/openid-configuration answered 404`,
    });
  });

  it('follows no redirect of the JWK Set', async () => {
    serve(origin, '/.well-known/oauth-authorization-server', ['a']);
    routes['/jwks'] = { status: 302, body: '{}' };
    const keys = createIssuerKeys({ issuer: origin, now });
    assert.deepEqual(await keys.keysFor('a'), { unavailable: `${origin}/jwks answered 302` });
  });

  it('says the issuer did not answer within 5000 ms when a request times out', async () => {
    const timedOut: typeof fetch = async (_url, init) => {
      // What fetch throws when AbortSignal.timeout fires; the signal is the one the request carried.
      assert.equal(init?.signal instanceof AbortSignal, true);
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    };
    const keys = createIssuerKeys({ issuer: 'https://as.example.com', now, fetch: timedOut });
    assert.deepEqual(await keys.keysFor('a'), {
      unavailable:
        'no metadata found for https://as.example.com: https://as.example.com/.well-known/oauth-authorization-server did not answer within 5000 ms; https://as.example.com/.well-known/openid-configuration did not answer within 5000 ms',
    });
  });

  it('keeps at most 64 keys of a JWK Set', async () => {
    serve(
      origin,
      '/.well-known/oauth-authorization-server',
      Array.from({ length: 100 }, (_, index) => `k${index}`),
    );
    const keys = createIssuerKeys({ issuer: origin, now });
    const found = await keys.keysFor('k0');
    assert.equal('keys' in found ? found.keys.length : found, 64);
  });
});
