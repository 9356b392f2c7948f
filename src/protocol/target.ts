import { McpError } from '../errors/mcp-error.js';
import type { AuthInfo, Caller, EndUser, HostApp, ResolvedServer, ServerRecord } from '../types/index.js';
import type { RequestId } from './messages.js';

/** A server that may serve requests: active, with its app present and available. */
export interface ServingTarget {
  server: ServerRecord;
  app: HostApp;
  /** The run's end user; `name` is the client's, used where runs are not per signed-in user. */
  endUser: (name: string) => Promise<EndUser>;
  /** Who called an `"oauth"` server. */
  auth?: AuthInfo;
  /** Who called, as the run sees it (`run.caller`). */
  caller: Caller;
  /**
   * Bounds a database step of the request by what is left of its deadline, shared with the lookup
   * and the end user (`resolveTimeoutMs`, docs/http-contract.md, row 19b); absent: each step has its own.
   */
  within?: <T>(work: Promise<T>) => Promise<T>;
}

/** The caller of a `"code"` server: one frozen record, shared by every run. */
const CODE_CALLER: Caller = Object.freeze({ kind: 'code' });

/** Rows 12 to 15 of docs/http-contract.md, in that order. `id` is echoed in the error where there is one. */
export function checkServing(
  resolved: ResolvedServer | null,
  id: RequestId | null,
  auth?: AuthInfo,
): ServingTarget {
  if (!resolved) throw new McpError('serverNotFound', 'MCP server not found', undefined, id);
  const { server, app } = resolved;
  if (server.status !== 'active')
    throw new McpError('serverInactive', 'MCP server is not active', undefined, id);
  if (!app) throw new McpError('appNotFound', 'app not found', undefined, id);
  if (app.available === false) throw new McpError('appUnavailable', 'app is unavailable', undefined, id);
  const endUser = resolved.endUser ?? (async (name: string) => ({ id: server.id, name }));
  if (!auth) return { server, app, endUser, caller: CODE_CALLER };
  // One end user per signed-in user, named by the subject (see the README, "Per-user access with OAuth").
  const caller: Caller = { kind: 'oauth', subject: auth.subject };
  return { server, app, endUser: () => endUser(auth.subject, auth.subject), auth, caller };
}
