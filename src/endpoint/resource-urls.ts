import type { Request } from 'express';
import type { ResourceUrls } from '../auth/authenticate.js';
import { PROTECTED_RESOURCE_PREFIX } from '../auth/protected-resource.js';
import { AccessRefused } from '../errors/access-refused.js';
import { ConfigurationError } from '../errors/package-errors.js';
import { isAllowedHost } from './guards.js';
import { listensOnLoopback } from './loopback.js';

/** Express's compiled `trust proxy` setting (Express 4 and 5 keep it under this name). */
type TrustProxy = (address: string | undefined, hop: number) => boolean;

/** Where the resource URLs of a router come from: its `auth.resourceBaseUrl`, or a checked host. */
export interface ResourceOrigin {
  /** `auth.resourceBaseUrl`, canonical already. */
  resourceBaseUrl?: string | undefined;
  allowedHosts: ReadonlySet<string>;
}

/**
 * The host a client addressed: `X-Forwarded-Host` when Express's `trust proxy` trusts the peer, as
 * `req.host` does in Express 5 (Express 4's `req.hostname` reads it the same way, without the port).
 */
function hostOf(req: Request): string {
  const trust = req.app?.get('trust proxy fn') as TrustProxy | undefined;
  const forwarded = req.get('x-forwarded-host');
  const host =
    forwarded && trust?.(req.socket.remoteAddress, 0)
      ? (forwarded.split(',')[0] ?? '')
      : (req.get('host') ?? '');
  return host.trim().toLowerCase();
}

/**
 * The canonical URL of the server at `serverPath` (MCP 2025-06-18 "Authorization": scheme and host
 * in lower case, no query, fragment or trailing slash), the audience its tokens must name, and the
 * URL of its metadata (RFC 9728 §3.1). From `auth.resourceBaseUrl` when set; else from `req.protocol`
 * (behind a TLS-terminating proxy, `trust proxy` must be set), the host the client addressed and
 * `prefix` (where the router is mounted), and only when that host passed the host check: a
 * `Host` that is not checked could name any audience, and a token minted for another resource
 * would be taken. Throws `AccessRefused` (403) for a host that is not allowed, and a
 * `ConfigurationError` when no host can be checked (docs/security.md).
 */
export function resourceUrls(
  req: Request,
  serverPath: string,
  origin: ResourceOrigin,
  prefix: string = req.baseUrl,
): ResourceUrls {
  if (origin.resourceBaseUrl !== undefined) return urlsOf(new URL(origin.resourceBaseUrl), serverPath);
  const loopback = listensOnLoopback(req);
  if (!loopback && origin.allowedHosts.size === 0) {
    throw new ConfigurationError(
      'invalid_options',
      'mcpServer: an "oauth" server needs auth.resourceBaseUrl (or allowedHosts) when the HTTP server does not listen on a loopback address: the Host header is not checked there, and the audience of its tokens cannot be taken from it',
    );
  }
  const host = hostOf(req);
  if (!isAllowedHost(host, loopback, origin.allowedHosts)) {
    throw new AccessRefused(
      'forbidden',
      `Forbidden: host not allowed: ${host || '(none)'}; a token's audience is taken only from a host listed in allowedHosts`,
    );
  }
  return urlsOf(new URL(`${req.protocol}://${host}${prefix}`), serverPath);
}

function urlsOf(base: URL, serverPath: string): ResourceUrls {
  const path = `${base.pathname.replace(/\/+$/, '')}${serverPath}`;
  return { resource: `${base.origin}${path}`, metadata: `${base.origin}${PROTECTED_RESOURCE_PREFIX}${path}` };
}
