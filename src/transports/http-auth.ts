/**
 * The seam between the Streamable HTTP transport (`http.ts`) and the auth layer (`src/auth/`): the shapes of a
 * verified caller, of the auth layer's decision on one request, and of the authorizer the entry hands the transport.
 * Declared here so the transport never imports the auth layer; the auth layer's `createAuthorizer` returns an object of
 * this structural shape (issue 19). Types only.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A caller the auth layer verified; never built from anything the client set unverified. */
export type HttpCaller = { subject: string; clientId?: string; scopes: string[]; tenant?: string; keyId?: string };

/** The auth layer's verdict on one request: the verified caller, or the refusal to send as it is. */
export type HttpAuthDecision =
  | { ok: true; caller: HttpCaller }
  | {
      ok: false;
      /** 400 (bad request, e.g. token in the query), 401 (no/invalid token), 403 (insufficient_scope or no entitlement), 503 (issuer's keys unreachable). */
      status: 400 | 401 | 403 | 503;
      /** e.g. WWW-Authenticate (RFC 6750 §3, RFC 9728 §5.1) */
      headers: Record<string, string>;
      /** JSON body: { error, error_description } (RFC 6750 error codes: invalid_request, invalid_token, insufficient_scope; "forbidden" for entitlement) */
      body: { error: string; error_description: string };
      /** Which of the three checks decided: for the audit record and the log. */
      check: 'identity' | 'entitlement';
    };

/**
 * What the transport asks of the auth layer. The transport passes each request's raw `Authorization` value to its
 * redaction (tokens seen are secrets too).
 */
export type HttpAuth = {
  /** Runs identity, then entitlement (for the tenant the request names: `X-Tenant` header or a claim). Never throws. */
  authorize(request: { method: string; url: URL; headers: IncomingHttpHeaders }): Promise<HttpAuthDecision>;
  /** Protected Resource Metadata (RFC 9728 §3): the paths it is served at (e.g. '/.well-known/oauth-protected-resource' and '/.well-known/oauth-protected-resource/mcp') and its JSON document. Served without authentication. */
  resourceMetadata: { paths: string[]; document: Record<string, unknown> };
};
