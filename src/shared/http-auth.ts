/**
 * The seam between the Streamable HTTP transport (`src/transports/http.ts`) and the auth layer (`src/auth/`): the
 * shapes of a verified caller, of the auth layer's decision on one request, and of the authorizer the entry hands the
 * transport (issue 19). Both import them from here, so the transport never imports the auth layer and the two
 * declarations cannot drift apart. Types only.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A caller the auth layer verified; never built from anything the client set unverified. */
export type HttpCaller = { subject: string; clientId?: string; scopes: string[]; tenant?: string; keyId?: string };

/** The auth layer's verdict on one request: the verified caller, or the refusal the transport sends as it is. */
export type HttpAuthDecision =
  | { ok: true; caller: HttpCaller }
  | {
      ok: false;
      /** 400 (token in the query, a malformed X-Tenant), 401 (no or invalid token), 403 (insufficient_scope or no entitlement), 503 (the issuer's keys or the entitlement source unreachable). */
      status: 400 | 401 | 403 | 503;
      /** `WWW-Authenticate` on 400, 401 and 403 insufficient_scope (RFC 6750, 3; RFC 9728, 5.1). */
      headers: Record<string, string>;
      /** JSON body: RFC 6750 error codes (`invalid_request`, `invalid_token`, `insufficient_scope`); `forbidden` for entitlement; `temporarily_unavailable` for 503. */
      body: { error: string; error_description: string };
      /** Which check decided, for the audit record and the log. */
      check: 'identity' | 'entitlement';
    };

/**
 * What the transport asks of the auth layer. The transport passes each request's raw `Authorization` value to its
 * redaction (tokens seen are secrets too).
 */
export type HttpAuth = {
  /** Runs identity, then entitlement (for the tenant the request names: `X-Tenant` header or a claim). Never throws. */
  authorize(request: { method: string; url: URL; headers: IncomingHttpHeaders }): Promise<HttpAuthDecision>;
  /** Protected Resource Metadata (RFC 9728, 3): the paths it is served at (`/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/mcp`) and its JSON document. Served without authentication. */
  resourceMetadata: { paths: string[]; document: Record<string, unknown> };
};
