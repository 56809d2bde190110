/**
 * The JWT verifier against jose 6 (the oracle), token by token: every verdict agrees with jose's `jwtVerify` given
 * the same policy (our algorithm list, issuer, audience, `typ: at+jwt`, the skew, `sub`, `iat` and `exp` required),
 * except where a row says ours is stricter and why. Keys are made with jose (RS256 2048, PS256, ES256, ES384, EdDSA);
 * the tokens jose refuses to make (a 1024-bit key, a P-384 key signing as ES256, HS256 keyed with the public key,
 * `alg: none`) are signed here with `node:crypto`.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import type { JWK } from 'jose';
import { ALGORITHMS, decodeToken, verifyToken } from './jwt.ts';
import type { Jwk } from './jwt.ts';

const ISSUER = 'https://as.example.com';
const AUDIENCE = 'https://probe.example.com/mcp';
const SKEW_S = 30;
/** The longest token life accepted, in seconds (AUTH_MAX_TOKEN_LIFETIME_S's default); jose's `maxTokenAge`. */
const MAX_LIFETIME_S = 86_400;
/** The clock of every row, in ms: 2027-01-15T08:00:00Z. */
const NOW = 1_800_000_000_000;
const NOW_S = NOW / 1000;

/** The claims of a good token; rows override members. */
const CLAIMS = {
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'alice',
  client_id: 'agent-7',
  scope: 'probe:read',
  iat: NOW_S - 60,
  exp: NOW_S + 300,
  jti: 'j-1',
};

type Signer = { alg: string; kid: string; key: KeyObject; jwk: JWK };
const signers: Record<string, Signer> = {};
let jwks: { keys: JWK[] };

/** `input` with its signature appended, as `signWith` makes it. */
function signedToken(input: string, signWith: (input: Buffer) => Buffer): string {
  return `${input}.${signWith(Buffer.from(input)).toString('base64url')}`;
}

/** Signs header and claims as given (no check of either), the way the algorithm does it (RFC 7518, 3). */
function rawToken(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  signWith: (input: Buffer) => Buffer,
) {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return signedToken(`${encode(header)}.${encode(claims)}`, signWith);
}

/** A token with the header `{alg, kid, typ: at+jwt}` and the good claims, signed by `signWith`. */
const craft = (alg: string, kid: string, signWith: (input: Buffer) => Buffer) =>
  rawToken({ alg, kid, typ: 'at+jwt' }, CLAIMS, signWith);

/** A signer over SHA-256 with the key's default encoding (PKCS #1 v1.5 for RSA, DER for ECDSA). */
const sha256With = (key: KeyObject) => (input: Buffer) => sign('sha256', input, key);

/** An ECDSA signer over SHA-256 with the JWS encoding `r || s` (RFC 7518, 3.4), whatever the key's curve. */
const p1363 = (key: KeyObject) => (input: Buffer) => sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });

/** A token signed by jose with one of the generated keys. */
async function joseToken(
  name: string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const signer = signers[name]!;
  return new SignJWT({ ...CLAIMS, ...claims })
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'at+jwt', ...header })
    .sign(signer.key);
}

/** A token signed by a new key for `alg`, whose JWK (with `members` added) joins the JWK Set under `kid`. */
async function tokenOfNewKey(alg: string, kid: string, members: Record<string, string>): Promise<string> {
  const pair = await generateKeyPair(alg, { extractable: true });
  jwks.keys.push({ ...(await exportJWK(pair.publicKey)), kid, ...members });
  return new SignJWT(CLAIMS).setProtectedHeader({ alg, kid, typ: 'at+jwt' }).sign(pair.privateKey);
}

/** Our verdict: 'ok' or the failure code. */
function ours(token: string, keys: readonly Jwk[] = jwks.keys as Jwk[]): { verdict: string; reason?: string } {
  const decoded = decodeToken(token);
  if ('ok' in decoded) return { verdict: decoded.code, reason: decoded.reason };
  const verified = verifyToken(decoded, keys, {
    issuer: ISSUER,
    audience: AUDIENCE,
    clockSkewS: SKEW_S,
    maxLifetimeS: MAX_LIFETIME_S,
    now: NOW,
  });
  return verified.ok ? { verdict: 'ok' } : { verdict: verified.code, reason: verified.reason };
}

/** jose's verdict with the same policy: 'ok' or its error code. */
async function jose(token: string, keys: { keys: JWK[] } = jwks): Promise<string> {
  try {
    await jwtVerify(token, createLocalJWKSet(keys), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: [...ALGORITHMS],
      typ: 'at+jwt',
      clockTolerance: SKEW_S,
      maxTokenAge: MAX_LIFETIME_S,
      currentDate: new Date(NOW),
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? `${(error as Error).name}: ${(error as Error).message}`;
  }
}

before(async () => {
  const made: [string, string, Parameters<typeof generateKeyPair>[1]][] = [
    ['rs256', 'RS256', { modulusLength: 2048, extractable: true }],
    ['ps256', 'PS256', { modulusLength: 2048, extractable: true }],
    ['es256', 'ES256', { extractable: true }],
    ['es384', 'ES384', { extractable: true }],
    ['eddsa', 'EdDSA', { extractable: true }],
  ];
  for (const [kid, alg, options] of made) {
    const pair = await generateKeyPair(alg, options);
    const jwk = { ...(await exportJWK(pair.publicKey)), kid, use: 'sig' };
    signers[kid] = { alg, kid, key: pair.privateKey as unknown as KeyObject, jwk };
  }
  // jose will not make or use an RSA key under 2048 bits: node:crypto makes it.
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
  signers.rsa1024 = {
    alg: 'RS256',
    kid: 'rsa1024',
    key: small.privateKey,
    jwk: { ...(small.publicKey.export({ format: 'jwk' }) as JWK), kid: 'rsa1024' },
  };
  jwks = { keys: Object.values(signers).map((signer) => signer.jwk) };
});

/** The rows: a token, the verdict we give, jose's verdict, and why they differ when they do. */
const ROWS: {
  description: string;
  token: () => Promise<string>;
  ours: string;
  jose: string;
  stricter?: string;
}[] = [
  { description: 'accepts RS256 with a 2048-bit key', token: () => joseToken('rs256'), ours: 'ok', jose: 'ok' },
  { description: 'accepts PS256', token: () => joseToken('ps256'), ours: 'ok', jose: 'ok' },
  { description: 'accepts ES256 on P-256', token: () => joseToken('es256'), ours: 'ok', jose: 'ok' },
  { description: 'accepts ES384 on P-384', token: () => joseToken('es384'), ours: 'ok', jose: 'ok' },
  { description: 'accepts EdDSA on Ed25519', token: () => joseToken('eddsa'), ours: 'ok', jose: 'ok' },
  {
    description: 'accepts typ application/at+jwt (RFC 9068, 4)',
    token: () => joseToken('es256', {}, { typ: 'application/at+jwt' }),
    ours: 'ok',
    jose: 'ok',
  },
  {
    description: 'accepts an aud array that holds the audience',
    token: () => joseToken('es256', { aud: ['https://other.example.com', AUDIENCE] }),
    ours: 'ok',
    jose: 'ok',
  },
  {
    description: 'accepts a token expired less than the skew ago',
    token: () => joseToken('es256', { exp: NOW_S - 29 }),
    ours: 'ok',
    jose: 'ok',
  },
  {
    description: 'refuses a token whose exp is the skew ago (RFC 7519, 4.1.4: on or after exp)',
    token: () => joseToken('es256', { exp: NOW_S - 30 }),
    ours: 'claims',
    jose: 'ERR_JWT_EXPIRED',
  },
  {
    description: 'refuses a token not valid for another minute (nbf)',
    token: () => joseToken('es256', { nbf: NOW_S + 60 }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses a 1024-bit RSA key (RFC 7518, 3.3)',
    token: async () => craft('RS256', 'rsa1024', sha256With(signers.rsa1024!.key)),
    ours: 'key',
    jose: 'TypeError: RS256 requires key modulusLength to be 2048 bits or larger',
  },
  {
    description: 'refuses a P-384 key claiming ES256',
    token: async () => craft('ES256', 'es384', p1363(signers.es384!.key)),
    ours: 'key',
    jose: 'ERR_JWKS_NO_MATCHING_KEY',
  },
  {
    description: 'refuses HS256 keyed with the RSA public key (RFC 8725, 2.1)',
    token: async () => {
      // The classic confusion: the issuer's public key, as PEM, used as the HMAC secret.
      const secret = createPublicKey({ key: signers.rs256!.jwk as never, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      });
      return craft('HS256', 'rs256', (input) => createHmac('sha256', secret).update(input).digest());
    },
    ours: 'algorithm',
    jose: 'ERR_JOSE_ALG_NOT_ALLOWED',
  },
  {
    description: 'refuses alg none',
    token: async () => craft('none', 'es256', () => Buffer.alloc(0)),
    ours: 'algorithm',
    jose: 'ERR_JOSE_ALG_NOT_ALLOWED',
  },
  {
    description: 'refuses alg none with a signature segment',
    token: async () => craft('none', 'es256', () => Buffer.from('x')),
    ours: 'algorithm',
    jose: 'ERR_JOSE_ALG_NOT_ALLOWED',
  },
  {
    description: 'refuses a forged signature (signed by another P-256 key under the same kid)',
    token: async () => {
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      return craft('ES256', 'es256', p1363(other));
    },
    ours: 'signature',
    jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  },
  {
    description: 'refuses an ES256 signature in DER instead of r || s (RFC 7518, 3.4)',
    token: async () => craft('ES256', 'es256', sha256With(signers.es256!.key)),
    ours: 'signature',
    jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  },
  {
    description: 'refuses a kid the JWK Set does not hold',
    token: () => joseToken('es256', {}, { kid: 'rotated-away' }),
    ours: 'unknownKey',
    jose: 'ERR_JWKS_NO_MATCHING_KEY',
  },
  {
    description: 'refuses PS256 on an RSA key whose JWK says alg RS256 (RFC 7517, 4.4)',
    token: () => tokenOfNewKey('PS256', 'pinned', { alg: 'RS256' }),
    ours: 'key',
    jose: 'ERR_JWKS_NO_MATCHING_KEY',
  },
  {
    description: 'refuses a key whose JWK says use enc (RFC 7517, 4.2)',
    token: () => tokenOfNewKey('ES256', 'enc-only', { use: 'enc' }),
    ours: 'key',
    jose: 'ERR_JWKS_NO_MATCHING_KEY',
  },
  {
    description: 'refuses a key the header carries itself (jwk), not in the JWK Set',
    token: async () => {
      const pair = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(pair.publicKey);
      return new SignJWT(CLAIMS)
        .setProtectedHeader({ alg: 'ES256', kid: 'attacker', typ: 'at+jwt', jwk })
        .sign(pair.privateKey);
    },
    ours: 'unknownKey',
    jose: 'ERR_JWKS_NO_MATCHING_KEY',
  },
  {
    description: 'refuses typ JWT (RFC 9068, 4)',
    token: () => joseToken('es256', {}, { typ: 'JWT' }),
    ours: 'malformed',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses another issuer',
    token: () => joseToken('es256', { iss: 'https://as.example.com/' }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses another audience',
    token: () => joseToken('es256', { aud: 'https://probe.example.com/' }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses a token without sub (RFC 9068, 2.2)',
    token: () => joseToken('es256', { sub: undefined }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses a token without exp (RFC 9068, 2.2)',
    token: () => joseToken('es256', { exp: undefined }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'refuses a header naming a critical extension',
    token: async () =>
      rawToken(
        { alg: 'ES256', kid: 'es256', typ: 'at+jwt', crit: ['x-probe'], 'x-probe': 1 },
        CLAIMS,
        p1363(signers.es256!.key),
      ),
    ours: 'malformed',
    jose: 'ERR_JOSE_NOT_SUPPORTED',
  },
  {
    description: 'refuses a claims segment with base64 padding, signed as it stands',
    token: async () => {
      const [head, body] = (await joseToken('es256')).split('.');
      const input = `${head}.${body}==`;
      return signedToken(input, p1363(signers.es256!.key));
    },
    ours: 'malformed',
    jose: 'ERR_JWS_INVALID',
  },
  {
    description: 'refuses a token issued an hour from now (iat)',
    token: () => joseToken('es256', { iat: NOW_S + 3600, exp: NOW_S + 7200 }),
    ours: 'claims',
    jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
  },
  {
    description: 'accepts a token that lives exactly the longest life accepted (exp - iat = 86400 s)',
    token: () => joseToken('es256', { iat: NOW_S - 60, exp: NOW_S - 60 + MAX_LIFETIME_S }),
    ours: 'ok',
    jose: 'ok',
  },
  {
    description: 'refuses a token issued longer ago than the longest life, though not expired (maxTokenAge)',
    token: () => joseToken('es256', { iat: NOW_S - MAX_LIFETIME_S - 600, exp: NOW_S + 300 }),
    ours: 'claims',
    jose: 'ERR_JWT_EXPIRED',
  },
  {
    description: 'refuses a token that lives a second longer than the longest life (exp - iat = 86401 s)',
    token: () => joseToken('es256', { iat: NOW_S - 60, exp: NOW_S - 60 + MAX_LIFETIME_S + 1 }),
    ours: 'claims',
    jose: 'ok',
    stricter: 'jose bounds only the age now - iat; issue 19 also bounds exp - iat, the life the issuer granted',
  },
  {
    description: 'refuses exp 1e308 (issued now, expiring never)',
    token: () => joseToken('es256', { exp: 1e308 }),
    ours: 'claims',
    jose: 'ok',
    stricter: 'jose takes any finite number; a NumericDate here is whole seconds up to 9999-12-31',
  },
  {
    description: 'refuses an iat of a fraction of a second',
    token: () => joseToken('es256', { iat: NOW_S - 60.5 }),
    ours: 'claims',
    jose: 'ok',
    stricter: 'RFC 7519, 2 allows fractions; issue 19 reads only whole seconds, as issuers send them',
  },
  {
    description: 'refuses a negative nbf',
    token: () => joseToken('es256', { nbf: -1 }),
    ours: 'claims',
    jose: 'ok',
    stricter: 'jose takes any number; a NumericDate here is from 1970 on',
  },
  {
    description: 'refuses a claims set that names sub twice',
    token: async () => {
      const token = await joseToken('es256');
      const [head] = token.split('.');
      const body = JSON.stringify({ ...CLAIMS }).replace('"sub":"alice"', '"sub":"alice","sub":"mallory"');
      const input = `${head}.${Buffer.from(body).toString('base64url')}`;
      return signedToken(input, p1363(signers.es256!.key));
    },
    ours: 'malformed',
    jose: 'ok',
    stricter:
      'RFC 7519, 4 lets a parser reject duplicate claim names or keep the last; ours rejects, jose keeps mallory',
  },
  {
    description: 'refuses a token longer than 8192 characters',
    token: () => joseToken('es256', { padding: 'x'.repeat(9000) }),
    ours: 'malformed',
    jose: 'ok',
    stricter:
      'issue 19 bounds the cost of hostile input: ours decodes no token past 8192 characters, jose decodes any length',
  },
];

/** Each row's token, made once (some rows add their key to the JWK Set). */
const made = new Map<(typeof ROWS)[number], Promise<string>>();
const tokenOf = (row: (typeof ROWS)[number]) => made.get(row) ?? made.set(row, row.token()).get(row)!;

describe('verifyToken against jose', () => {
  for (const row of ROWS) {
    it(`${row.description}: ${row.ours}, jose ${row.jose}${row.stricter ? ' (ours is stricter)' : ''}`, async () => {
      const token = await tokenOf(row);
      assert.deepEqual({ ours: ours(token).verdict, jose: await jose(token) }, { ours: row.ours, jose: row.jose });
    });
  }

  it('quotes no part of the token in any reason it gives', async () => {
    const leaks: string[] = [];
    for (const row of ROWS) {
      const token = await tokenOf(row);
      const { reason } = ours(token);
      const parts = [...token.split('.'), 'alice', 'agent-7', 'j-1', 'mallory'].filter((part) => part.length >= 3);
      for (const part of parts) if (reason?.includes(part)) leaks.push(`${row.description}: ${part.slice(0, 12)}`);
    }
    assert.deepEqual(leaks, []);
  });
});

describe('decodeToken on hostile input', () => {
  const segment = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const header = segment({ alg: 'ES256', kid: 'es256', typ: 'at+jwt' });
  const rows: [string, string, string][] = [
    ['two segments', `${header}.${segment(CLAIMS)}`, 'a JWT has exactly three dot-separated segments (RFC 7515, 7.1)'],
    [
      'four segments (a JWE has five)',
      `${header}.${segment(CLAIMS)}.c2ln.eA`,
      'a JWT has exactly three dot-separated segments (RFC 7515, 7.1)',
    ],
    [
      'a + in a segment (base64, not base64url)',
      `${header}.ab+c.c2ln`,
      'a segment is not base64url without padding (RFC 7515, 2)',
    ],
    [
      'a segment of 4n+1 characters',
      `${header}.abcde.c2ln`,
      'a segment is not base64url without padding (RFC 7515, 2)',
    ],
    ['a header that is not JSON', `${segment('{"alg":')}.${segment(CLAIMS)}.c2ln`, 'the header is not JSON'],
    ['a header that is an array', `${segment(['ES256'])}.${segment(CLAIMS)}.c2ln`, 'the header is not a JSON object'],
    [
      'claims that are not UTF-8',
      `${header}.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.c2ln`,
      'the claims set is not UTF-8',
    ],
    [
      'a header naming alg twice',
      `${segment('{"alg":"ES256","alg":"none","kid":"es256","typ":"at+jwt"}')}.${segment(CLAIMS)}.c2ln`,
      'the header names a member twice (RFC 7515, 5.2)',
    ],
    [
      'a header over 1024 characters',
      `${segment({ alg: 'ES256', kid: 'k'.repeat(1000) })}.${segment(CLAIMS)}.c2ln`,
      'the header is longer than 1024 characters',
    ],
    [
      'a kid that is not a string',
      `${segment({ alg: 'ES256', kid: 7, typ: 'at+jwt' })}.${segment(CLAIMS)}.c2ln`,
      "the header names no key (kid) of the issuer's JWK Set",
    ],
    [
      'an alg outside the list',
      `${segment({ alg: 'RS512', kid: 'k', typ: 'at+jwt' })}.${segment(CLAIMS)}.c2ln`,
      "the token's algorithm is not one this server accepts (RS256, PS256, ES256, ES384, EdDSA)",
    ],
    ['a million dots', '.'.repeat(1_000_000), 'the token is longer than 8192 characters, which no access token needs'],
  ];
  for (const [what, token, reason] of rows) {
    it(`refuses ${what}`, () => {
      const decoded = decodeToken(token);
      assert.deepEqual('ok' in decoded ? decoded.reason : 'decoded', reason);
    });
  }
});

describe('verifyToken on hostile keys', () => {
  const policy = { issuer: ISSUER, audience: AUDIENCE, clockSkewS: SKEW_S, maxLifetimeS: MAX_LIFETIME_S, now: NOW };
  /** Our reason for a token of `alg` (any signature) whose kid names `jwk`, the only key of the set. */
  const reasonWith = (alg: string, jwk: Jwk) => {
    const decoded = decodeToken(craft(alg, 'big', () => Buffer.alloc(64, 1)));
    const verified = 'ok' in decoded ? decoded : verifyToken(decoded, [jwk], policy);
    return verified.ok ? 'ok' : verified.reason;
  };

  it('refuses an RSA key over 8192 bits before verifying anything with it', () => {
    // 16,400 bits: odd, top bit set; no factorisation is needed to refuse it.
    const modulus = Buffer.alloc(2050, 0xab);
    modulus[0] = 0xc1;
    const jwk = { kty: 'RSA', kid: 'big', n: modulus.toString('base64url'), e: 'AQAB' };
    assert.equal(
      reasonWith('RS256', jwk),
      "the token's RSA key is longer than 8192 bits, which this server does not verify",
    );
  });

  it('refuses an RSA key whose public exponent is 2^256 or more before verifying anything with it', () => {
    const { n } = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    // An odd exponent of 2,040 bits: every verification with it would cost as much as a signature.
    const exponent = Buffer.alloc(255, 0x5b);
    exponent[254] = 0x01;
    const jwk = { kty: 'RSA', kid: 'big', n: n!, e: exponent.toString('base64url') };
    assert.equal(
      reasonWith('RS256', jwk),
      "the token's RSA key has a public exponent of 2^256 or more (FIPS 186-5, A.1.1), which this server does not verify",
    );
  });

  it('refuses an EC key whose point is not on its curve', () => {
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      kid: 'big',
      x: Buffer.alloc(32, 1).toString('base64url'),
      y: Buffer.alloc(32, 2).toString('base64url'),
    };
    assert.equal(reasonWith('ES256', jwk), "the token's key in the issuer's JWK Set cannot be read");
  });
});
