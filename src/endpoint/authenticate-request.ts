import type { Request } from 'express';
import type { ParsedAuthOptions } from '../auth/auth-options.js';
import { authenticateCaller } from '../auth/authenticate.js';
import { bearerTokenOf } from '../auth/bearer.js';
import { mcpPath } from '../express/mcp-route.js';
import type { AuthInfo, ServerRecord } from '../types/index.js';
import { type ResourceOrigin, resourceUrls } from './resource-urls.js';

/**
 * Lets the caller of an `"oauth"` server in by the bearer token of the request, checked against the
 * server's canonical URL: where the router is mounted, followed by the server's path.
 */
export function requestAuthenticator(options: ParsedAuthOptions, allowedHosts: ReadonlySet<string>) {
  const origin: ResourceOrigin = { resourceBaseUrl: options.resourceBaseUrl, allowedHosts };
  return async (server: ServerRecord, req: Request): Promise<AuthInfo> =>
    authenticateCaller(
      server,
      {
        token: bearerTokenOf(req.headers.authorization),
        urls: resourceUrls(req, mcpPath(server.serverCode), origin),
        request: req,
      },
      options,
    );
}
