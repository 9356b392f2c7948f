import type { Request } from 'express';
import type { ResourceUrls } from '../auth/authenticate.js';
import { PROTECTED_RESOURCE_PREFIX } from '../auth/protected-resource.js';

/** Express's compiled `trust proxy` setting (Express 4 and 5 keep it under this name). */
type TrustProxy = (address: string | undefined, hop: number) => boolean;

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
 * The canonical URL of the resource at `path` (MCP 2025-06-18 "Authorization": scheme and host in
 * lower case, no query or fragment) and the URL of its metadata (RFC 9728 §3.1). The scheme is
 * `req.protocol`, so behind a TLS-terminating proxy `trust proxy` must be set (see the README).
 */
export function resourceUrls(req: Request, path: string): ResourceUrls {
  const origin = `${req.protocol}://${hostOf(req)}`;
  return { resource: `${origin}${path}`, metadata: `${origin}${PROTECTED_RESOURCE_PREFIX}${path}` };
}
