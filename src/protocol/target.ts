import type { EndUser, HostApp, ResolvedServer, ServerRecord } from '../types.js';
import { McpError } from './errors.js';
import type { RequestId } from './messages.js';

/** A server that may serve requests: active, with its app present and available. */
export interface ServingTarget {
  server: ServerRecord;
  app: HostApp;
  endUser: (name: string) => Promise<EndUser>;
}

/** Rows 12 to 15 of docs/http-contract.md, in that order. `id` is echoed in the error where there is one. */
export function checkServing(resolved: ResolvedServer | null, id: RequestId | null): ServingTarget {
  if (!resolved) throw new McpError('serverNotFound', 'MCP server not found', undefined, id);
  const { server, app } = resolved;
  if (server.status !== 'active')
    throw new McpError('serverInactive', 'MCP server is not active', undefined, id);
  if (!app) throw new McpError('appNotFound', 'app not found', undefined, id);
  if (app.available === false) throw new McpError('appUnavailable', 'app is unavailable', undefined, id);
  const endUser = resolved.endUser ?? (async (name: string) => ({ id: server.id, name }));
  return { server, app, endUser };
}
