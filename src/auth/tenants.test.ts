/**
 * Ownership: the tenant credentials file read and checked, and one redactor that hides every tenant's key from every
 * tenant's answers. The key ids are the first 8 hex digits of `printf %s <key> | sha256sum` (coreutils), written here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redactor } from '../redaction/redaction.ts';
import { readConfig } from '../runtime/config.ts';
import { loadTenantCredentials, tenantRedactor, tenantSettings } from './tenants.ts';

const FILE = fileURLToPath(new URL('../../fixtures/auth/tenants.json', import.meta.url));
const FORMS: { key: string; forms: Record<string, string> } = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../fixtures/redaction/key-forms.json', import.meta.url)), 'utf8'),
);
const KEYS = ['sk-canary-3f9a2b7c41d8e6f0', 'gx_live_5Qm7Tz2pW9vK4rL8', 'initech-key-0042-aa17'];

/** A credentials file holding `text`, in a new temporary folder. */
function fileWith(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tenants-')), 'tenants.json');
  writeFileSync(path, text);
  return path;
}

describe('loadTenantCredentials', () => {
  it('reads each tenant with its base URL, key, key header and key id', () => {
    assert.deepEqual(
      loadTenantCredentials(FILE),
      new Map([
        ['acme', { baseUrl: new URL('https://api.acme.example/v2'), apiKey: KEYS[0], keyId: 'f5a4d2ea' }],
        [
          'globex',
          {
            baseUrl: new URL('https://globex.example/api'),
            apiKey: KEYS[1],
            apiKeyHeader: 'X-API-Key',
            keyId: '264c831a',
          },
        ],
        ['initech', { baseUrl: new URL('http://127.0.0.1:8080'), apiKey: KEYS[2], keyId: '7e3fa100' }],
      ]),
    );
  });

  const refusals: [string, string, (path: string) => string][] = [
    [
      'text that is not JSON, quoting none of it',
      '{"a": {"apiKey": "sk-secret-123456789"',
      (path) => `TENANT_KEYS_FILE ${path} is not JSON`,
    ],
    [
      'a key shorter than 8 characters, without showing it',
      '{"a": {"baseUrl": "https://x.example", "apiKey": "short"}}',
      (path) =>
        `TENANT_KEYS_FILE ${path}, tenant "a": apiKey is 5 characters long; openapi-probe needs at least 8 to keep it out of every answer safely (a shorter string matches ordinary text). Use the API's full key; the value is not shown here`,
    ],
    [
      'a base URL with credentials',
      '{"a": {"baseUrl": "https://u:p@x.example", "apiKey": "sk-secret-123456789"}}',
      (path) =>
        `TENANT_KEYS_FILE ${path}, tenant "a": baseUrl must carry no credentials and no #fragment; the key goes in apiKey`,
    ],
    [
      'a key header that is not a header name',
      '{"a": {"baseUrl": "https://x.example", "apiKey": "sk-secret-123456789", "apiKeyHeader": "X Key"}}',
      (path) =>
        `TENANT_KEYS_FILE ${path}, tenant "a": apiKeyHeader must be an HTTP header name such as X-API-Key (RFC 9110, 5.1)`,
    ],
    [
      'a tenant name with a slash',
      '{"a/b": {"baseUrl": "https://x.example", "apiKey": "sk-secret-123456789"}}',
      (path) =>
        `TENANT_KEYS_FILE ${path}: tenant names are 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit), got \`a/b\``,
    ],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}`, () => {
      const path = fileWith(text);
      assert.throws(() => loadTenantCredentials(path), { message: message(path) });
    });
  }
});

describe('tenantRedactor', () => {
  const tenants = loadTenantCredentials(FILE);
  const redact = tenantRedactor(tenants);

  it('hides every form of one tenant key as well as that key alone does (issue 8 forms)', () => {
    const alone = redactor(FORMS.key);
    const differ = Object.entries(FORMS.forms).filter(([, form]) => redact.text(form) !== alone.text(form));
    assert.deepEqual(differ, []);
  });

  it("hides every tenant's key, plain, base64, percent-encoded and JSON-escaped, from every tenant's answer", () => {
    const shown: string[] = [];
    for (const key of KEYS) {
      const forms = [
        key,
        Buffer.from(key).toString('base64'),
        encodeURIComponent(key).replace(/-/g, '%2D'),
        JSON.stringify(JSON.stringify(key)),
      ];
      for (const form of forms) {
        const answer = {
          jsonrpc: '2.0',
          id: 1,
          result: { content: [{ type: 'text', text: `upstream said: ${form}` }], structuredContent: { echo: form } },
        };
        const text = JSON.stringify(redact.message(answer));
        for (const secret of KEYS) if (text.includes(secret) || text.includes(form)) shown.push(`${key} as ${form}`);
      }
    }
    assert.deepEqual(shown, []);
  });

  it('withholds the end of a cut text by the strictest rule of any key', () => {
    const each = KEYS.map((key) => redactor(key));
    assert.deepEqual(
      { withheld: redact.withheld, withheldLetters: redact.withheldLetters },
      {
        withheld: Math.max(...each.map((one) => one.withheld)),
        withheldLetters: Math.max(...each.map((one) => one.withheldLetters ?? 0)),
      },
    );
  });

  it('keeps no start of any key at the end of a cut text', () => {
    const leaks: string[] = [];
    for (const key of KEYS) {
      const cut = redact.tail(`${'ordinary words '.repeat(40)}${key.slice(0, 12)}`);
      if (cut.includes(key.slice(0, 4))) leaks.push(key.slice(0, 4));
      if (!cut.endsWith('[…end withheld]')) leaks.push('no mark');
    }
    assert.deepEqual(leaks, []);
  });
});

describe('tenantSettings', () => {
  const base = readConfig({
    API_BASE_URL: 'https://shared.example.com',
    API_KEY: 'server-own-key-77aa99',
    API_KEY_HEADER: 'X-Server-Key',
    PROBE_MAX_BYTES: '4096',
  });
  const tenants = loadTenantCredentials(FILE);
  const given = tenantRedactor(tenants, ['server-own-key-77aa99']);
  const settings = tenantSettings(base, tenants, given);

  it("gives each tenant the server's configuration with the tenant's upstream in place of the server's", () => {
    assert.deepEqual(
      [...settings].map(([name, { config }]) => [
        name,
        config.baseUrl.href,
        config.apiKey,
        config.apiKeyHeader,
        config.maxBytes,
      ]),
      [
        ['acme', 'https://api.acme.example/v2', KEYS[0], undefined, 4096],
        ['globex', 'https://globex.example/api', KEYS[1], 'X-API-Key', 4096],
        ['initech', 'http://127.0.0.1:8080/', KEYS[2], undefined, 4096],
      ],
    );
  });

  it('gives every tenant the one redactor it is handed, and builds none of its own', () => {
    assert.deepEqual(
      [...settings].map(([name, { redact }]) => [name, redact === given]),
      [
        ['acme', true],
        ['globex', true],
        ['initech', true],
      ],
    );
  });

  it("hands them a redactor that hides every tenant's key and the server's own", () => {
    const text = `keys: ${[...KEYS, 'server-own-key-77aa99'].join(' ')}`;
    assert.equal(settings.get('globex')!.redact.text(text), 'keys: [redacted] [redacted] [redacted] [redacted]');
  });
});
