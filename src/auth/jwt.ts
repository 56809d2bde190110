/**
 * JWT access tokens verified with `node:crypto` only (RFC 9068, the JWT Profile for OAuth 2.0 Access Tokens; RFC 8725,
 * JWT Best Current Practices). The algorithm is taken from our allow list and must fit the key's own type, curve and
 * size; the token's header alone never chooses it. Every cost is bounded by the token's length, which is capped.
 * Reasons never hold the token or any part of it, header and claims included: they are safe to send to the client.
 */
import type { KeyObject } from 'node:crypto';
import { isPlainObject } from '../shared/values.ts';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');

/** The algorithms accepted (RFC 7518, 3.1; RFC 8037, 3.1 for EdDSA, which here means Ed25519). */
export const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] as const;
/** One of `ALGORITHMS`. */
export type Algorithm = (typeof ALGORITHMS)[number];

/** The longest token read, in characters: a real access token is 1 to 2 KB; past this none is decoded at all. */
export const MAX_TOKEN_LENGTH = 8192;

/** The longest protected header read, in characters of base64url. */
const MAX_HEADER_LENGTH = 1024;

/** One public key of a JWK Set (RFC 7517, 4), as the issuer publishes it. */
export type Jwk = Record<string, unknown>;

/** What a token holds once its form is read, before any key is looked at. */
export type DecodedToken = {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** `kid` of the header: always present (a token without one is refused). */
  keyId: string;
  algorithm: Algorithm;
  /** The signing input (`header.payload`, ASCII) and the signature's bytes. */
  input: string;
  signature: Buffer;
};

/** Why a token was refused: `unknownKey` tells the caller to refetch the JWK Set once. */
export type TokenFailure = {
  ok: false;
  code: 'malformed' | 'algorithm' | 'unknownKey' | 'key' | 'signature' | 'claims';
  reason: string;
};

/** A token whose signature and claims hold: its claims and header, to be read as verified. */
export type VerifiedToken = { ok: true; claims: Record<string, unknown>; header: Record<string, unknown> };

/** The claim checks of `verifyToken` (RFC 9068, 4). */
export type ClaimPolicy = {
  /** Compared exactly with `iss`. */
  issuer: string;
  /** Must equal `aud` or be one of its items. */
  audience: string;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. */
  clockSkewS: number;
  /**
   * The longest life accepted, in seconds: `exp - iat` at most this (so `exp` at most this plus the skew from now)
   * (RFC 7519, 4.1.4 and RFC 9068, 4 require `exp` but bound it nowhere: the bound is the resource server's own).
   */
  maxLifetimeS: number;
  /** Now, in ms since the epoch. */
  now: number;
};

/** The latest NumericDate read: 9999-12-31T23:59:59Z, in seconds since the epoch. */
export const MAX_NUMERIC_DATE = 253_402_300_799;

/**
 * Reads a compact JWS (RFC 7515, 7.1) without trusting it: exactly three base64url segments (no padding, no other
 * character), a header and a claims set that are JSON objects with no member name twice (RFC 7515, 5.2; RFC 7519,
 * 4), `alg` from `ALGORITHMS` (`none` and the HMAC family are refused by name, RFC 8725, 3.1-3.2), no `crit`
 * (RFC 7515, 4.1.11: no extension is understood here), `typ` `at+jwt` or `application/at+jwt` (RFC 9068, 4), and a
 * `kid`. A `jwk`, `jku`, `x5u` or `x5c` in the header is never used: keys come from the issuer's JWK Set only.
 * @param token The bearer token as sent; at most `MAX_TOKEN_LENGTH` characters are looked at.
 * @returns The decoded token, or a `TokenFailure` with a reason that quotes none of it. Never throws.
 */
export function decodeToken(token: string): DecodedToken | TokenFailure {
  if (token.length > MAX_TOKEN_LENGTH)
    return malformed(`the token is longer than ${MAX_TOKEN_LENGTH} characters, which no access token needs`);
  const segments = token.split('.');
  if (segments.length !== 3) return malformed('a JWT has exactly three dot-separated segments (RFC 7515, 7.1)');
  const [head, body, signature] = segments as [string, string, string];
  if (head.length > MAX_HEADER_LENGTH) return malformed(`the header is longer than ${MAX_HEADER_LENGTH} characters`);
  // The signature may be empty here: an unsigned token is then refused by its alg, an empty signature by the check.
  if (!isBase64url(head) || !isBase64url(body) || (signature !== '' && !isBase64url(signature)))
    return malformed('a segment is not base64url without padding (RFC 7515, 2)');
  const header = readObject(head);
  if (typeof header === 'string') return malformed(`the header ${header}`);
  const claims = readObject(body);
  if (typeof claims === 'string') return malformed(`the claims set ${claims}`);
  const alg = header.alg;
  if (alg === 'none' || (typeof alg === 'string' && /^HS\d+$/.test(alg)))
    return failure(
      'algorithm',
      `the token is ${alg === 'none' ? 'unsigned (alg none)' : 'signed with a shared secret (HMAC)'}; this server accepts only ${ALGORITHMS.join(', ')} (RFC 8725, 3.1)`,
    );
  if (typeof alg !== 'string' || !(ALGORITHMS as readonly string[]).includes(alg))
    return failure('algorithm', `the token's algorithm is not one this server accepts (${ALGORITHMS.join(', ')})`);
  if (header.crit !== undefined)
    return malformed('the header names critical extensions (crit), which this server does not understand');
  if (typeof header.typ !== 'string' || !/^(?:application\/)?at\+jwt$/i.test(header.typ))
    return malformed('the header typ is not at+jwt: it is not a JWT access token (RFC 9068, 4)');
  if (typeof header.kid !== 'string' || header.kid === '' || header.kid.length > 256)
    return malformed("the header names no key (kid) of the issuer's JWK Set");
  return {
    header,
    claims,
    keyId: header.kid,
    algorithm: alg as Algorithm,
    input: `${head}.${body}`,
    signature: Buffer.from(signature, 'base64url'),
  };
}

/**
 * Checks the signature of a decoded token with the key of its `kid`, then its claims. The key must fit the
 * algorithm by its own type, curve and size (RFC 8725, 3.1): RS256 and PS256 an RSA key of 2048 bits or more
 * (and at most `MAX_RSA_BITS`, public exponent below 2^256; RSASSA-PKCS1-v1_5; RSASSA-PSS with MGF1 and a salt as long as the SHA-256 hash, RFC 7518, 3.5), ES256 a P-256 key
 * and ES384 a P-384 key (signature `r || s`, RFC 7518, 3.4), EdDSA an Ed25519 key (RFC 8037); a JWK's own `alg`,
 * `use` and `key_ops` are respected (RFC 7517, 4.2-4.4). Then `verifyClaims`.
 * @param keys The issuer's JWK Set (`keys` of it); the ones whose `kid` matches are tried.
 * @returns The verified claims and header, or a `TokenFailure` (`unknownKey` when no key has the `kid`). Never throws.
 */
export function verifyToken(
  decoded: DecodedToken,
  keys: readonly Jwk[],
  policy: ClaimPolicy,
): VerifiedToken | TokenFailure {
  const candidates = keys.filter((key) => isPlainObject(key) && key.kid === decoded.keyId);
  if (candidates.length === 0) return failure('unknownKey', "the token's key (kid) is not in the issuer's JWK Set");
  let refusal = '';
  for (const jwk of candidates) {
    const key = keyFor(jwk, decoded.algorithm);
    if (typeof key === 'string') {
      refusal = key;
      continue;
    }
    if (!signatureHolds(decoded, key)) return failure('signature', 'the signature does not verify');
    const claims = verifyClaims(decoded.claims, policy);
    return claims ?? { ok: true, claims: decoded.claims, header: decoded.header };
  }
  return failure('key', refusal);
}

/**
 * The claim checks of RFC 9068, 4 and RFC 8725, 3.8-3.9: `iss` equal to the issuer, `aud` naming the audience,
 * `exp` (required) not past, `nbf` (when present) reached, `iat` (required) not in the future, each within the skew;
 * each of the three a whole number of seconds from 0 to `MAX_NUMERIC_DATE` (RFC 7519, 2 allows fractions; issuers
 * send whole seconds, and a value such as 1e308 must not pass as "far in the future"); the token's life `exp - iat`
 * at most `maxLifetimeS`, which with `iat` required and not in the future also keeps `exp` within `maxLifetimeS` plus
 * the skew from now; `sub` a non-empty string. `client_id` and
 * `scope`, when present, must be strings.
 * @returns undefined when every check holds, else the failure, whose reason says what to ask for instead. Never throws.
 */
export function verifyClaims(claims: Record<string, unknown>, policy: ClaimPolicy): TokenFailure | undefined {
  const now = policy.now / 1000;
  const skew = policy.clockSkewS;
  const most = policy.maxLifetimeS;
  if (claims.iss !== policy.issuer) return failure('claims', `the token was not issued by ${policy.issuer} (iss)`);
  const audience = claims.aud;
  if (!(audience === policy.audience || (Array.isArray(audience) && audience.includes(policy.audience))))
    return failure('claims', `the token is not meant for ${policy.audience} (aud, RFC 8707)`);
  for (const name of ['exp', 'nbf', 'iat'] as const)
    if (claims[name] !== undefined && !isTime(claims[name]))
      return failure(
        'claims',
        `the token's ${name} is not a whole number of seconds since 1970 up to ${MAX_NUMERIC_DATE} (RFC 7519, 2: NumericDate)`,
      );
  if (!isTime(claims.exp)) return failure('claims', 'the token has no expiry time (exp)');
  if (now - skew >= claims.exp) return failure('claims', 'the token has expired (exp)');
  if (claims.nbf !== undefined && now + skew < (claims.nbf as number))
    return failure('claims', 'the token is not valid yet (nbf)');
  if (!isTime(claims.iat)) return failure('claims', 'the token has no issue time (iat)');
  if (now + skew < claims.iat) return failure('claims', 'the token was issued in the future (iat)');
  if (claims.exp - claims.iat > most)
    return failure(
      'claims',
      `the token lives ${claims.exp - claims.iat} s (exp - iat), longer than the ${most} s this server accepts (AUTH_MAX_TOKEN_LIFETIME_S); ask the authorization server for a shorter-lived token`,
    );
  if (typeof claims.sub !== 'string' || claims.sub === '') return failure('claims', 'the token names no subject (sub)');
  if (claims.client_id !== undefined && typeof claims.client_id !== 'string')
    return failure('claims', 'the token client_id is not a string');
  if (claims.scope !== undefined && typeof claims.scope !== 'string')
    return failure('claims', 'the token scope is not a string of space-separated scopes (RFC 9068, 2.2.3)');
  return undefined;
}

/** The public key of a JWK for `alg`, or why it cannot serve. */
function readKey(jwk: Jwk, alg: Algorithm): KeyObject | string {
  if (jwk.use !== undefined && jwk.use !== 'sig') return "the token's key is not a signing key (use)";
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify')))
    return "the token's key may not verify (key_ops)";
  const wanted = KEY_TYPES[alg];
  if (jwk.kty !== wanted.kty || (wanted.crv !== undefined && jwk.crv !== wanted.crv))
    return `the token's key is of the wrong type for its algorithm (${alg} needs ${wanted.crv ?? wanted.kty})`;
  if (jwk.alg !== undefined && jwk.alg !== alg) return "the token's algorithm is not the one its key is for (alg)";
  let key: KeyObject;
  try {
    // Only the public members: a published private member must not make this a private key.
    const publicMembers = Object.fromEntries(
      wanted.members.filter((member) => typeof jwk[member] === 'string').map((member) => [member, jwk[member]]),
    );
    key = crypto().createPublicKey({ key: { kty: jwk.kty, ...publicMembers } as never, format: 'jwk' });
  } catch {
    return "the token's key in the issuer's JWK Set cannot be read";
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (wanted.kty === 'RSA' && bits < 2048) return "the token's RSA key is shorter than 2048 bits (RFC 7518, 3.3)";
  // A modulus this long costs every verification far more than any issuer needs (4096 bits is the longest in use).
  if (wanted.kty === 'RSA' && bits > MAX_RSA_BITS)
    return `the token's RSA key is longer than ${MAX_RSA_BITS} bits, which this server does not verify`;
  // Each verification costs one squaring per bit of the exponent: a 3,064-bit one makes it 7 ms instead of 0.05 ms,
  // paid for any token naming the key, signed or not. FIPS 186-5, A.1.1 bounds it below 2^256 (65537 in practice).
  if (wanted.kty === 'RSA' && (key.asymmetricKeyDetails?.publicExponent ?? 0n) >= MAX_RSA_EXPONENT)
    return "the token's RSA key has a public exponent of 2^256 or more (FIPS 186-5, A.1.1), which this server does not verify";
  return key;
}

/** The longest RSA modulus verified, in bits. */
export const MAX_RSA_BITS = 8192;

/** The RSA public exponents verified are below this (FIPS 186-5, A.1.1: 2^16 < e < 2^256). */
const MAX_RSA_EXPONENT = 2n ** 256n;

/** Each JWK's key per algorithm, read once: the JWK Set's objects live as long as the issuer's cache keeps them. */
const keyCache = new WeakMap<Jwk, Map<Algorithm, KeyObject | string>>();

/** `readKey`, remembered per JWK object and algorithm. */
function keyFor(jwk: Jwk, alg: Algorithm): KeyObject | string {
  let perAlgorithm = keyCache.get(jwk);
  if (!perAlgorithm) keyCache.set(jwk, (perAlgorithm = new Map()));
  let key = perAlgorithm.get(alg);
  if (key === undefined) perAlgorithm.set(alg, (key = readKey(jwk, alg)));
  return key;
}

/** The key each algorithm needs, and the JWK members of its public part (RFC 7518, 6; RFC 8037, 2). */
const KEY_TYPES: Record<Algorithm, { kty: string; crv?: string; members: string[] }> = {
  RS256: { kty: 'RSA', members: ['n', 'e'] },
  PS256: { kty: 'RSA', members: ['n', 'e'] },
  ES256: { kty: 'EC', crv: 'P-256', members: ['crv', 'x', 'y'] },
  ES384: { kty: 'EC', crv: 'P-384', members: ['crv', 'x', 'y'] },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', members: ['crv', 'x'] },
};

/** Whether the signature holds, with the padding and encoding of the algorithm (RFC 7518, 3.3-3.5). */
function signatureHolds(decoded: DecodedToken, key: KeyObject): boolean {
  const data = Buffer.from(decoded.input, 'ascii');
  const signature = decoded.signature;
  try {
    switch (decoded.algorithm) {
      case 'RS256':
        return crypto().verify('sha256', data, { key, padding: RSA_PKCS1_PADDING }, signature);
      case 'PS256':
        return crypto().verify('sha256', data, { key, padding: RSA_PKCS1_PSS_PADDING, saltLength: 32 }, signature);
      case 'ES256':
        return (
          signature.length === 64 && crypto().verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
        );
      case 'ES384':
        return (
          signature.length === 96 && crypto().verify('sha384', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
        );
      case 'EdDSA':
        return signature.length === 64 && crypto().verify(null, data, key, signature);
    }
  } catch {
    return false;
  }
}

// node:crypto constants.RSA_PKCS1_PADDING and RSA_PKCS1_PSS_PADDING (stable OpenSSL values).
const RSA_PKCS1_PADDING = 1;
const RSA_PKCS1_PSS_PADDING = 6;

/** Whether a segment is base64url without padding (RFC 7515, 2): its alphabet only, and no length of 4n+1. */
function isBase64url(segment: string): boolean {
  return segment.length > 0 && segment.length % 4 !== 1 && /^[A-Za-z0-9_-]+$/.test(segment);
}

/** A segment decoded to a JSON object, or what is wrong with it ("is not JSON", ...). */
function readObject(segment: string): Record<string, unknown> | string {
  const bytes = Buffer.from(segment, 'base64url');
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return 'is not UTF-8';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (!isPlainObject(value)) return 'is not a JSON object';
  if (topLevelMembers(text) !== Object.keys(value).length) return 'names a member twice (RFC 7515, 5.2)';
  return value;
}

/** How many members the top-level object of a valid JSON object text has, duplicates counted: one pass. */
function topLevelMembers(text: string): number {
  let depth = 0;
  let members = 0;
  let empty = true;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      // Skip the string; an escaped quote does not end it.
      for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++;
      if (depth === 1 && empty) {
        members++;
        empty = false;
      }
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) depth--;
    else if (code === 0x2c && depth === 1) empty = true;
  }
  return members;
}

/** A NumericDate (RFC 7519, 2): a finite number of seconds. */
/** A NumericDate as this server reads it: whole seconds from 0 to `MAX_NUMERIC_DATE`. */
function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_NUMERIC_DATE;
}

function failure(code: TokenFailure['code'], reason: string): TokenFailure {
  return { ok: false, code, reason };
}

function malformed(reason: string): TokenFailure {
  return failure('malformed', reason);
}
