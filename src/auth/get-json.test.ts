/**
 * `getJson` against a real service on 127.0.0.1 that answers 200 and then sends its body one space at a time and
 * never ends it (a slow issuer or entitlement source): the time limit ends the request, and says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson } from './get-json.ts';

describe('getJson', () => {
  let server: Server;
  let url: URL;

  before(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{');
      const drip = setInterval(() => response.write(' '), 20);
      response.once('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('says a body still arriving at the time limit did not answer within it, not that it broke off', async () => {
    await assert.rejects(getJson(fetch, url, { maxBytes: 65_536, timeoutMs: 300 }), {
      message: `${url.href} did not answer within 300 ms`,
    });
  });
});
