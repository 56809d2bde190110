/**
 * A real OAuth 2.0 authorization server for tests: oidc-provider 9 (a dev dependency) on 127.0.0.1, port 0, issuing
 * JWT access tokens (`typ: at+jwt`, RFC 9068) with the client credentials grant, and the RFC 8707 resource as their
 * audience. Its keys are made here (RSA 2048, P-256, P-384, Ed25519), so a test can also sign a crafted token with
 * the issuer's own key, and can rotate them (a new JWK Set with new `kid`s, the old keys gone). The auth tests use
 * it, and the HTTP transport's tests can connect an SDK client with `token()` after the merge.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import Provider from 'oidc-provider';

/** The signing algorithms the server can issue tokens with. */
export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'ES384' | 'EdDSA';

/** One signing key of the server: its `kid`, the algorithms it signs, and its private key. */
export type ServerKey = { kid: string; algorithms: SigningAlgorithm[]; privateKey: KeyObject };

/** What one `token()` call asks the server for. */
export type TokenOptions = {
  /** The client asking (its `client_id` is the token's `sub`); default the first of `clients`. */
  client?: string;
  /** The RFC 8707 resource (the audience); default the server's `audience`. */
  resource?: string;
  /** Default ES256. */
  alg?: SigningAlgorithm;
  /** Lifetime, in seconds; default 300. */
  ttlS?: number;
  /** Claims added to the token (`extraTokenClaims`), e.g. a tenant. */
  claims?: Record<string, unknown>;
};

/** A running server (`startAuthorizationServer`). */
export type AuthorizationServer = {
  /** The issuer identifier, `http://127.0.0.1:<port>`. */
  issuer: string;
  /** An access token from the token endpoint for `scopes` (client credentials grant). @throws Error with the server's answer. */
  token(scopes?: string[], options?: TokenOptions): Promise<string>;
  /** Replaces every signing key with a new one (new `kid`s): the JWK Set changes, the old tokens' keys are gone. */
  rotate(): Promise<void>;
  /** The signing keys in use. */
  keys(): ServerKey[];
  /** How many times the JWK Set was served. */
  jwksRequests(): number;
  stop(): Promise<void>;
};

/** Each client's secret (client_secret_basic): the client id reversed plus a suffix, so a test can name it too. */
export const secretOf = (client: string) => `${[...client].reverse().join('')}-secret-0000`;

/**
 * Starts the server.
 * @param options.audience The resource its tokens are for (this MCP server's `AUTH_AUDIENCE`).
 * @param options.scopes The scopes it grants; default `probe:read probe:draft`.
 * @param options.clients The client ids it knows; default `probe-agent`.
 */
export async function startAuthorizationServer(options: {
  audience: string;
  scopes?: string[];
  clients?: string[];
}): Promise<AuthorizationServer> {
  const scopes = options.scopes ?? ['probe:read', 'probe:draft'];
  const clients = options.clients ?? ['probe-agent'];
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    void response.writeHead(503).end();
  let jwksCount = 0;
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/jwks')) jwksCount++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // What the next token request asks for: token() sets it and runs one request at a time.
  let pending: TokenOptions = {};
  let generation = 0;
  let keys: ServerKey[] = [];

  const build = () => {
    generation++;
    const make = (kid: string, algorithms: SigningAlgorithm[], privateKey: KeyObject): ServerKey => ({
      kid: `${kid}-${generation}`,
      algorithms,
      privateKey,
    });
    keys = [
      make('rsa', ['RS256', 'PS256'], generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      make('p256', ['ES256'], generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey),
      make('p384', ['ES384'], generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey),
      make('ed25519', ['EdDSA'], generateKeyPairSync('ed25519').privateKey),
    ];
    const provider = new Provider(issuer, {
      clients: clients.map((client) => ({
        client_id: client,
        client_secret: secretOf(client),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: scopes.join(' '),
      })),
      jwks: { keys: keys.map((key) => ({ ...key.privateKey.export({ format: 'jwk' }), kid: key.kid, use: 'sig' })) },
      scopes,
      enabledJWA: { authorizationSigningAlgValues: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] },
      features: {
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => options.audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_context: unknown, resource: string) => ({
            scope: scopes.join(' '),
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: pending.ttlS ?? 300,
            jwt: { sign: { alg: pending.alg ?? 'ES256' } },
          }),
        },
      },
      extraTokenClaims: () => pending.claims,
      ttl: { ClientCredentials: () => pending.ttlS ?? 300 },
    } as never);
    handler = provider.callback() as never;
  };
  build();

  let queue: Promise<unknown> = Promise.resolve();
  const request = async (wanted: string[], tokenOptions: TokenOptions): Promise<string> => {
    pending = tokenOptions;
    const client = tokenOptions.client ?? clients[0]!;
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client}:${secretOf(client)}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: wanted.join(' '),
        resource: tokenOptions.resource ?? options.audience,
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (response.status !== 200 || !body.access_token)
      throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
    return body.access_token;
  };

  return {
    issuer,
    token(wanted = scopes, tokenOptions = {}) {
      const next = queue.then(() => request(wanted, tokenOptions));
      queue = next.catch(() => {});
      return next;
    },
    async rotate() {
      await queue;
      build();
    },
    keys: () => keys,
    jwksRequests: () => jwksCount,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
