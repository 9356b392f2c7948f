import type { Request, Response } from 'express';
import type { ParsedAuthOptions } from '../auth/auth-options.js';
import { PROTECTED_RESOURCE_PREFIX, protectedResourceMetadata } from '../auth/protected-resource.js';
import { AccessRefused } from '../errors/access-refused.js';
import { mcpPath } from '../express/mcp-route.js';
import type { ResolveServer } from '../express/types.js';
import { writeJson } from '../express/write.js';
import { lookupFailure } from '../protocol/access.js';
import type { ErrorReporter } from '../protocol/report.js';
import type { ResolveDeadline } from '../protocol/resolve-deadline.js';
import type { ServerRecord } from '../types/index.js';
import { type ResourceOrigin, resourceUrls } from './resource-urls.js';

/** The path-suffixed metadata route (RFC 9728 §3.1) of `MCP_ROUTE`, relative to where the router is mounted. */
export const PROTECTED_RESOURCE_ROUTE = `${PROTECTED_RESOURCE_PREFIX}/mcp/server/:serverCode/mcp`;

/** Stops a resolver once it has the server: the metadata needs no app. */
const ENOUGH = Symbol('the server is enough');

/**
 * `GET /.well-known/oauth-protected-resource/mcp/server/<code>/mcp`: the metadata of an `"oauth"`
 * server; 404 for an unknown code or a `"code"` server. The lookup has the endpoint's deadline
 * (`resolveTimeoutMs`, so a stale copy is served as there) and its 503 when the database is out of
 * reach or too slow (docs/http-contract.md, row 19a). Its `resource` is the server's canonical URL,
 * the one its tokens must name (see `resourceUrls`), under the mount path the requested URL shows
 * (see `mountPathOf`).
 */
export function protectedResourceHandler(
  resolveServer: ResolveServer,
  options: ParsedAuthOptions,
  allowedHosts: ReadonlySet<string>,
  report: ErrorReporter,
  deadline: ResolveDeadline,
) {
  const origin: ResourceOrigin = { resourceBaseUrl: options.resourceBaseUrl, allowedHosts };
  return async (req: Request, res: Response): Promise<void> => {
    // The document names the server's URL, which holds its code: no cache may keep it.
    res.setHeader('Cache-Control', 'no-store');
    // Public metadata, fetched by browser-based clients too (RFC 9728 §3 has no credentials).
    res.setHeader('Access-Control-Allow-Origin', '*');
    let server: ServerRecord | undefined;
    try {
      const resolved = await deadline.run(
        (resolveOptions) => resolveServer(req.params.serverCode as string, req, resolveOptions),
        async (found) => {
          server = found;
          throw ENOUGH;
        },
      );
      server ??= resolved?.server;
    } catch (error) {
      if (error !== ENOUGH) {
        report(error, { phase: 'resolve' });
        // The endpoint's answer to the same failure, in the words of an OAuth error (RFC 6749 §5.2).
        const failure = lookupFailure(error, null);
        if (failure.status !== 503) {
          return writeJson(res, 500, { error: 'server_error', error_description: 'Internal error' });
        }
        for (const [name, value] of Object.entries(failure.headers ?? {})) res.setHeader(name, value);
        return writeJson(res, 503, { error: 'temporarily_unavailable', error_description: failure.message });
      }
    }
    if (server?.authMode !== 'oauth') {
      return writeJson(res, 404, { error: 'not_found', error_description: 'No protected resource here' });
    }
    let resource: string;
    try {
      ({ resource } = resourceUrls(req, mcpPath(server.serverCode), origin, mountPathOf(req)));
    } catch (error) {
      if (error instanceof AccessRefused) {
        return writeJson(res, 403, { error: 'forbidden', error_description: error.message });
      }
      report(error, { phase: 'authenticate', serverId: server.id });
      return writeJson(res, 500, { error: 'server_error', error_description: 'Internal error' });
    }
    writeJson(res, 200, protectedResourceMetadata(resource, options));
  };
}

/** The well-known prefix as Express matches it: whatever its case. */
const PREFIX_PATTERN = new RegExp(PROTECTED_RESOURCE_PREFIX.replaceAll('.', '\\.'), 'i');
/** The server's path at the end of a resource path, as Express matches it: any case, a trailing slash. */
const SERVER_PATH_PATTERN = /\/mcp\/server\/[^/]+\/mcp\/?$/i;

/**
 * Where the router is mounted, as the client sees it: the requested path between the well-known
 * prefix and the server's path (RFC 9728 §3.1: the metadata URL is the resource's with the prefix
 * inserted after the host), so that a host that forwards this URL from its root to a router mounted
 * under a prefix gets the prefixed resource (see the README). A host that forwards another URL to
 * this route leaves no prefix to find: the router's own mount path is taken then. The server's path
 * itself is always written canonically, with the code as stored (docs/http-contract.md).
 */
function mountPathOf(req: Request): string {
  const path = req.originalUrl.split('?')[0] as string;
  const found = PREFIX_PATTERN.exec(path);
  if (!found) return req.baseUrl;
  const resourcePath = path.slice(found.index + found[0].length);
  const server = SERVER_PATH_PATTERN.exec(resourcePath);
  return server ? resourcePath.slice(0, server.index) : req.baseUrl;
}
