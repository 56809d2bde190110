/**
 * The authorization server's keys: its metadata (RFC 8414, 3; OpenID Connect Discovery 1.0, 4), then its JWK Set
 * (RFC 7517, 5), fetched with a time limit and a size limit (both bodies are hostile input), cached, refetched on an
 * unknown `kid` at most every `REFETCH_INTERVAL_MS`, and no longer used once `STALE_AFTER_MS` old. Time comes from
 * the injected clock, so tests never sleep.
 */
import { isPlainObject } from '../shared/values.ts';
import { getJson } from './get-json.ts';
import type { Jwk } from './jwt.ts';

/** The shortest time between two fetches of the keys, in ms (an unknown `kid` costs the issuer one request per 30 s at most). */
export const REFETCH_INTERVAL_MS = 30_000;

/** Age from which cached keys are not used any more, in ms. */
export const STALE_AFTER_MS = 10 * 60_000;

/** Time limit of one metadata or JWK Set request, in ms. */
export const FETCH_TIMEOUT_MS = 5_000;

/** The largest metadata document read, in bytes. */
export const MAX_METADATA_BYTES = 64 * 1024;

/** The largest JWK Set read, in bytes. */
export const MAX_JWKS_BYTES = 256 * 1024;

/** The most keys used from one JWK Set; the rest are ignored. */
export const MAX_KEYS = 64;

/** The keys of the issuer, or why none could be had. */
export type KeyLookup = { keys: readonly Jwk[] } | { unavailable: string };

/** The key cache of one issuer (`createIssuerKeys`). */
export type IssuerKeys = {
  /**
   * The JWK Set for a token whose header names `kid`: the cached set while it is younger than `STALE_AFTER_MS` and
   * holds `kid`; else fetched again, when the last fetch began `REFETCH_INTERVAL_MS` ago or more (at once when
   * nothing is cached yet). Callers waiting at the same time share one fetch. When a fetch fails, a set that is not
   * stale is still returned; else `unavailable` says why. Never throws.
   */
  keysFor(kid: string): Promise<KeyLookup>;
  /** How many times the JWK Set was requested (for tests and the log). */
  fetches(): number;
};

/**
 * The metadata URLs of an issuer, in the order tried. For an issuer without a path: `/.well-known/oauth-authorization-server`,
 * then `/.well-known/openid-configuration`. For one with a path (`https://as.example.com/tenant1`): both with the
 * well-known part inserted before the path (RFC 8414, 3.1 and 5), then OpenID Connect's appended form
 * (`/tenant1/.well-known/openid-configuration`), as MCP 2025-11-25 (Authorization, 2.3.2) lists them.
 */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const at = (pathname: string) => new URL(pathname, url.origin);
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * Creates the key cache of one issuer.
 * @param options.issuer The issuer identifier, compared exactly with the metadata's `issuer` (RFC 8414, 3.3).
 * @param options.now The clock, in ms since the epoch (default `Date.now`).
 * @param options.fetch Injected fetch (default the global one); redirects are not followed.
 * @param options.onFailure Told of each failed fetch, with a reason that holds no secret (for the log).
 */
export function createIssuerKeys(options: {
  issuer: string;
  now?: () => number;
  fetch?: typeof fetch;
  onFailure?: (reason: string) => void;
}): IssuerKeys {
  const now = options.now ?? Date.now;
  const fetcher = options.fetch ?? fetch;
  let cached: { keys: Jwk[]; at: number } | undefined;
  let lastAttempt = -Infinity;
  let inFlight: Promise<string | undefined> | undefined;
  let count = 0;

  /** Fetches metadata and keys; returns why it failed, or undefined. */
  const refresh = async (): Promise<string | undefined> => {
    lastAttempt = now();
    try {
      const jwksUri = await discoverJwksUri(options.issuer, fetcher);
      count++;
      const body = await readJson(fetcher, jwksUri, MAX_JWKS_BYTES);
      if (!isPlainObject(body) || !Array.isArray(body.keys))
        throw new Error(`the JWK Set at ${jwksUri.href} has no keys array (RFC 7517, 5)`);
      cached = { keys: body.keys.filter(isPlainObject).slice(0, MAX_KEYS), at: now() };
      return undefined;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.onFailure?.(reason);
      return reason;
    }
  };

  return {
    async keysFor(kid) {
      const fresh = cached !== undefined && now() - cached.at < STALE_AFTER_MS;
      if (fresh && cached!.keys.some((key) => key.kid === kid)) return { keys: cached!.keys };
      let reason: string | undefined;
      if (inFlight !== undefined || now() - lastAttempt >= REFETCH_INTERVAL_MS) {
        inFlight ??= refresh().finally(() => (inFlight = undefined));
        reason = await inFlight;
      }
      if (cached !== undefined && now() - cached.at < STALE_AFTER_MS) return { keys: cached.keys };
      return {
        unavailable: reason ?? "the issuer's keys are older than 10 minutes and were refetched less than 30 s ago",
      };
    },
    fetches: () => count,
  };
}

/** The `jwks_uri` of the issuer's metadata, from the first metadata URL that answers 200 with this issuer. */
async function discoverJwksUri(issuer: string, fetcher: typeof fetch): Promise<URL> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let body: unknown;
    try {
      body = await readJson(fetcher, url, MAX_METADATA_BYTES);
    } catch (error) {
      tried.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    if (!isPlainObject(body)) throw new Error(`the metadata at ${url.href} is not a JSON object`);
    // RFC 8414, 3.3: the issuer in the metadata must be identical to the one the URL was built from.
    if (body.issuer !== issuer) throw new Error(`the metadata at ${url.href} names another issuer (RFC 8414, 3.3)`);
    if (typeof body.jwks_uri !== 'string') throw new Error(`the metadata at ${url.href} has no jwks_uri`);
    let jwksUri: URL;
    try {
      jwksUri = new URL(body.jwks_uri);
    } catch {
      throw new Error(`the metadata at ${url.href} has a jwks_uri that is not an absolute URL`);
    }
    // The keys may not travel on a weaker channel than the issuer itself.
    if (jwksUri.protocol !== 'https:' && !(jwksUri.protocol === 'http:' && new URL(issuer).protocol === 'http:'))
      throw new Error(`the metadata at ${url.href} has a jwks_uri that is not https`);
    return jwksUri;
  }
  throw new Error(`no metadata found for ${issuer}: ${tried.join('; ')}`);
}

/** The JSON of a 200 answer from `url`. @throws Error saying why there is none. */
async function readJson(fetcher: typeof fetch, url: URL, maxBytes: number): Promise<unknown> {
  const answer = await getJson(fetcher, url, { maxBytes, timeoutMs: FETCH_TIMEOUT_MS });
  if (answer.status !== 200) throw new Error(`${url.href} answered ${answer.status}`);
  return answer.value;
}
