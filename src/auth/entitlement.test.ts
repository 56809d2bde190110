/**
 * Entitlement sources: a claim, a file re-read when it changes, and an HTTP source on 127.0.0.1 (started here)
 * whose answers are reused for the TTL; the clock is injected, so nothing sleeps.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEntitlements } from './entitlement.ts';

describe('createEntitlements, claim source', () => {
  const lookup = createEntitlements({ kind: 'claim', claim: 'tenants' }, { ttlMs: 60_000 });

  it('reads an array of tenant names, dropping what is not a name', async () => {
    assert.deepEqual(await lookup.tenantsOf('alice', { tenants: ['acme', 'a/b', 7, 'globex', 'acme'] }), {
      tenants: ['acme', 'globex'],
    });
  });

  it('reads one string of names separated by spaces', async () => {
    assert.deepEqual(await lookup.tenantsOf('alice', { tenants: 'acme globex' }), { tenants: ['acme', 'globex'] });
  });

  it('gives no tenants when the claim is missing', async () => {
    assert.deepEqual(await lookup.tenantsOf('alice', {}), { tenants: [] });
  });
});

describe('createEntitlements, file source', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'entitlements-')), 'entitlements.json');
  const write = (value: unknown, mtimeS: number) => {
    writeFileSync(path, JSON.stringify(value));
    utimesSync(path, mtimeS, mtimeS);
  };

  it("reads a subject's tenants, and none for a subject not listed", async () => {
    write({ alice: ['acme'] }, 1_700_000_000);
    const lookup = createEntitlements({ kind: 'file', path }, { ttlMs: 60_000 });
    assert.deepEqual(
      [await lookup.tenantsOf('alice', {}), await lookup.tenantsOf('bob', {})],
      [{ tenants: ['acme'] }, { tenants: [] }],
    );
  });

  it('re-reads the file on the next use after its modification time changed', async () => {
    write({ alice: ['acme'] }, 1_700_000_000);
    const lookup = createEntitlements({ kind: 'file', path }, { ttlMs: 60_000 });
    await lookup.tenantsOf('alice', {});
    // The same size: only the modification time tells the change.
    write({ alice: ['emca'] }, 1_700_000_100);
    assert.deepEqual(await lookup.tenantsOf('alice', {}), { tenants: ['emca'] });
  });

  it('says the file cannot be read when it is gone', async () => {
    const lookup = createEntitlements({ kind: 'file', path: `${path}.missing` }, { ttlMs: 60_000 });
    assert.deepEqual(await lookup.tenantsOf('alice', {}), {
      unavailable: 'the entitlements file cannot be read (ENOENT)',
    });
  });

  it('says the file is not JSON, quoting none of it', async () => {
    writeFileSync(path, '{"alice": [');
    utimesSync(path, 1_700_000_200, 1_700_000_200);
    const lookup = createEntitlements({ kind: 'file', path }, { ttlMs: 60_000 });
    assert.deepEqual(await lookup.tenantsOf('alice', {}), {
      unavailable: 'the entitlements file cannot be read (not JSON)',
    });
  });
});

describe('createEntitlements, URL source', () => {
  let server: Server;
  let url: URL;
  const asked: string[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '{"tenants": ["acme"]}' };
  let clock = 0;

  before(async () => {
    server = createServer((request, response) => {
      asked.push(request.url!);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/entitlements`);
  });

  after(() => {
    server.close();
    server.closeAllConnections();
  });

  it('asks with the subject in the query and reuses the answer for the TTL', async () => {
    asked.length = 0;
    answer = { status: 200, body: '{"tenants": ["acme"]}' };
    const lookup = createEntitlements({ kind: 'url', url }, { ttlMs: 60_000, now: () => clock });
    const first = await lookup.tenantsOf('alice@example.com', {});
    clock += 59_999;
    const second = await lookup.tenantsOf('alice@example.com', {});
    clock += 1;
    answer = { status: 200, body: '{"tenants": ["globex"]}' };
    const third = await lookup.tenantsOf('alice@example.com', {});
    assert.deepEqual(
      { first, second, third, asked },
      {
        first: { tenants: ['acme'] },
        second: { tenants: ['acme'] },
        third: { tenants: ['globex'] },
        asked: ['/v1/entitlements?sub=alice%40example.com', '/v1/entitlements?sub=alice%40example.com'],
      },
    );
  });

  it('asks once for 50 lookups of one subject made at the same time', async () => {
    asked.length = 0;
    answer = { status: 200, body: '{"tenants": ["acme"]}' };
    const lookup = createEntitlements({ kind: 'url', url }, { ttlMs: 60_000, now: () => clock });
    const answers = await Promise.all(Array.from({ length: 50 }, () => lookup.tenantsOf('burst@example.com', {})));
    assert.deepEqual(
      [new Set(answers.map((one) => JSON.stringify(one))), asked],
      [new Set(['{"tenants":["acme"]}']), ['/v1/entitlements?sub=burst%40example.com']],
    );
  });

  it('gives no tenants for a 404', async () => {
    answer = { status: 404, body: '{}' };
    const lookup = createEntitlements({ kind: 'url', url }, { ttlMs: 60_000, now: () => clock });
    assert.deepEqual(await lookup.tenantsOf('bob', {}), { tenants: [] });
  });

  it('is unavailable, not empty, when the service fails', async () => {
    answer = { status: 500, body: 'oops' };
    const lookup = createEntitlements({ kind: 'url', url }, { ttlMs: 60_000, now: () => clock });
    assert.deepEqual(await lookup.tenantsOf('carol', {}), { unavailable: 'the entitlement service answered 500' });
  });

  it('stops reading an answer past 64 KiB', async () => {
    answer = { status: 200, body: JSON.stringify({ tenants: [], padding: 'x'.repeat(70_000) }) };
    const lookup = createEntitlements({ kind: 'url', url }, { ttlMs: 60_000, now: () => clock });
    assert.deepEqual(await lookup.tenantsOf('dave', {}), {
      unavailable: 'the entitlement service did not answer in time or sent no readable JSON',
    });
  });
});
