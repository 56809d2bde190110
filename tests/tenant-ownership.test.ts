/**
 * Ownership end to end (issue 19): two tenants, each with its own upstream on 127.0.0.1 (started here) and its own
 * key from a TENANT_KEYS_FILE; one runtime per tenant built from `tenantSettings`, as the entry will. A probe for a
 * tenant reaches that tenant's upstream with that tenant's key only, and its answer holds no key of any tenant, even
 * when the upstream echoes them all.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTenantCredentials, tenantRedactor, tenantSettings } from '../src/auth/tenants.ts';
import { createHandler } from '../src/mcp/in-process.ts';
import { readConfig } from '../src/runtime/config.ts';

const KEYS = { acme: 'sk-acme-2b7c41d8e6f0aa11', globex: 'gx_live_5Qm7Tz2pW9vK4rL8' };
const SERVER_KEY = 'server-own-key-77aa99';

/** What each upstream received: the path and the key headers. */
const received: { tenant: string; path: string; authorization?: string; apiKey?: string }[] = [];
const upstreams: Server[] = [];
let settings: ReturnType<typeof tenantSettings>;

/** An upstream that echoes every key it knows of (all tenants' and the server's) in its JSON body. */
async function upstream(tenant: string): Promise<string> {
  const server = createServer((request, response) => {
    received.push({
      tenant,
      path: request.url!,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      ...(request.headers['x-api-key'] ? { apiKey: String(request.headers['x-api-key']) } : {}),
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ tenant, echo: [...Object.values(KEYS), SERVER_KEY], joined: Object.values(KEYS).join('') }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstreams.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'tenant-keys-')), 'tenants.json');
  writeFileSync(
    file,
    JSON.stringify({
      acme: { baseUrl: await upstream('acme'), apiKey: KEYS.acme },
      globex: { baseUrl: await upstream('globex'), apiKey: KEYS.globex, apiKeyHeader: 'X-API-Key' },
    }),
  );
  const base = readConfig({ API_BASE_URL: 'http://127.0.0.1:9', API_KEY: SERVER_KEY }, '/nonexistent');
  const tenants = loadTenantCredentials(file);
  settings = tenantSettings(base, tenants, tenantRedactor(tenants, [SERVER_KEY]));
});

after(() => {
  for (const server of upstreams) {
    server.close();
    server.closeAllConnections();
  }
});

/** A probe of `/records` through the runtime of `tenant`; the whole reply as text. */
async function probeAs(tenant: string): Promise<string> {
  const { config, redact } = settings.get(tenant)!;
  const reply = await createHandler(config, { redact }).handle({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'probe', arguments: { path: '/records' } },
  });
  return JSON.stringify(reply);
}

describe('one runtime per tenant', () => {
  it("sends each tenant's probe to its own upstream with its own key, and no other", async () => {
    received.length = 0;
    await probeAs('acme');
    await probeAs('globex');
    assert.deepEqual(received, [
      { tenant: 'acme', path: '/records', authorization: `Bearer ${KEYS.acme}` },
      { tenant: 'globex', path: '/records', apiKey: KEYS.globex },
    ]);
  });

  it("keeps every tenant's key and the server's out of each tenant's answer", async () => {
    const shown: string[] = [];
    for (const tenant of ['acme', 'globex']) {
      const text = await probeAs(tenant);
      for (const key of [...Object.values(KEYS), SERVER_KEY]) if (text.includes(key)) shown.push(`${tenant}: ${key}`);
      if (!text.includes('[redacted]')) shown.push(`${tenant}: nothing redacted`);
    }
    assert.deepEqual(shown, []);
  });
});
