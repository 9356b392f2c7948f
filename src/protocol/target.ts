import { McpError } from '../errors/mcp-error.js';
import { subjectOf } from '../tool/inflight.js';
import type { AuthInfo, Caller, EndUser, ResolvedServer, ServerRecord } from '../types/index.js';
import type { RequestId } from './messages.js';
import type { ToolList } from './tool-list.js';

/** A server that may serve requests: active, with what it serves (its app present and available, or a toolset's members). */
export interface ServingTarget {
  server: ServerRecord;
  /**
   * The tools this caller may use, in list order (docs/toolsets.md): one for a one-app server.
   * Every method that names a tool looks it up here.
   */
  tools: ToolList;
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

/** Builds what a server serves (`createToolLists`). */
export type ListTools = (resolved: ResolvedServer) => ToolList;

/**
 * Rows 12 to 15 of docs/http-contract.md, in that order; a toolset has no app of its own, and
 * leaves out the members it cannot serve instead. `id` is echoed in the error where there is one.
 */
export function checkServing(
  resolved: ResolvedServer | null,
  id: RequestId | null,
  listTools: ListTools,
  auth?: AuthInfo,
  key?: Extract<Caller, { kind: 'key' }>,
): ServingTarget {
  if (!resolved) throw new McpError('serverNotFound', 'MCP server not found', undefined, id);
  const { app } = resolved;
  // A host's own record says nothing of its kind: it is a one-app server, and its runs say so.
  const server =
    resolved.server.kind === undefined ? { ...resolved.server, kind: 'app' as const } : resolved.server;
  if (server.status !== 'active')
    throw new McpError('serverInactive', 'MCP server is not active', undefined, id);
  if (server.kind !== 'toolset') {
    if (!app) throw new McpError('appNotFound', 'app not found', undefined, id);
    if (app.available === false) throw new McpError('appUnavailable', 'app is unavailable', undefined, id);
  }
  const tools = listTools(server === resolved.server ? resolved : { ...resolved, server });
  const endUser = resolved.endUser ?? (async (name: string) => ({ id: server.id, name }));
  // One end user per caller key, named by the key (docs/keys.md).
  if (key) return { server, tools, endUser: () => endUser(key.name, subjectOf(key)), caller: key };
  if (!auth) return { server, tools, endUser, caller: CODE_CALLER };
  // One end user per signed-in user, named by the subject (see the README, "Per-user access with OAuth").
  const caller: Caller = { kind: 'oauth', subject: auth.subject };
  return { server, tools, endUser: () => endUser(auth.subject, auth.subject), auth, caller };
}

/** The app a target serves when it is a one-app server, for the error reports; a toolset has none. */
export const appIdOf = (target: ServingTarget | undefined): string | undefined =>
  target && target.server.kind !== 'toolset' ? target.tools.tools[0]?.app.id : undefined;
