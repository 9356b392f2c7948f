/**
 * Who called, once a bearer token was accepted on an `"oauth"` server (MCP 2025-06-18
 * "Authorization"): what `verifyToken` returns and `runApp` receives as `run.auth`. Never the token.
 */
export interface AuthInfo {
  /** The user (or client) the token was issued to: the JWT `sub`. One end user per server and subject. */
  subject: string;
  /** The tenant the token belongs to; when present it must be the server's tenant (else 403). */
  tenantId?: string;
  /** The scopes the token grants. */
  scopes: string[];
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** When the token expires, in unix seconds; an expired token answers 401 `invalid_token`. */
  expiresAt?: number;
  /** Anything else the host wants its apps to see (`jwtVerifier` puts the token's claims here). */
  extra?: Record<string, unknown>;
}

/** What `verifyToken` is told besides the token. */
export interface VerifyTokenContext<HostRequest> {
  /**
   * The canonical URL of the server the token is presented to (scheme, host, path; no query):
   * a token must have been minted for it (RFC 8707 audience).
   */
  resource: string;
  /** The HTTP request, as the framework gave it. */
  req: HostRequest;
}

/** Checks a bearer token: who it is for, or `null` when it is not valid here (401 `invalid_token`). */
export type VerifyToken<HostRequest = unknown> = (
  token: string,
  context: VerifyTokenContext<HostRequest>,
) => Promise<AuthInfo | null> | AuthInfo | null;

/** The `auth` option of `mcpServer`: per-user access to `"oauth"` servers (see the README, "Per-user access with OAuth"). */
export interface AuthOptions<HostRequest = unknown> {
  /** Checks a bearer token presented to an `"oauth"` server; `jwtVerifier()` makes one for JWT access tokens. */
  verifyToken: VerifyToken<HostRequest>;
  /** The issuer URLs of the authorization servers that mint tokens for these servers (RFC 9728 `authorization_servers`). */
  authorizationServers: string[];
  /** The scopes clients may ask for (RFC 9728 `scopes_supported`). Default: not advertised. */
  scopesSupported?: string[];
  /** Scopes every token must grant; a token without them answers 403 `insufficient_scope`. Default: none. */
  requiredScopes?: string[];
  /** A human-readable name of the servers, for consent screens (RFC 9728 `resource_name`). Default: none. */
  resourceName?: string;
  /**
   * The public URL where the router is mounted, as clients reach it (`https://mcp.example.com`, or
   * `https://example.com/api` under a prefix): each server's resource URL, the audience its tokens
   * must name, is this followed by `/mcp/server/<code>/mcp`. Default: from the request, and only
   * from a `Host` (or a trusted `X-Forwarded-Host`) that passed the host check: a loopback name on
   * a server that listens on loopback, or one of `allowedHosts`. A server that listens elsewhere
   * with neither option cannot know its audience and refuses its `"oauth"` servers' requests
   * (docs/security.md).
   */
  resourceBaseUrl?: string;
}
