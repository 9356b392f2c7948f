import { AccessRefused } from '../errors/access-refused.js';
import { McpError } from '../errors/mcp-error.js';
import { RetryLater } from '../errors/retry-later.js';
import { isUnavailable } from '../store/unavailable.js';
import type { AuthInfo, CheckServer, ResolvedServer, ServerRecord } from '../types/index.js';
import type { KeyCaller } from './key-access.js';
import type { RequestId } from './messages.js';
import type { ErrorReporter } from './report.js';
import type { EndpointRequest } from './request.js';
import type { ResolveDeadline } from './resolve-deadline.js';

/** A server looked up, with who called it when it is an `"oauth"` or a `"key"` server. */
export interface Resolution {
  resolved: ResolvedServer | null;
  auth?: AuthInfo;
  key?: KeyCaller;
}

type Admission =
  | { ok: true; auth?: AuthInfo; key?: KeyCaller }
  | { ok: false; error: unknown; server: ServerRecord };

/** Whether a server lets in only callers it checks: a signed-in user, or a caller key. */
const checksCallers = (server: ServerRecord) => server.authMode === 'oauth' || server.authMode === 'key';

const LET_IN: Admission = Object.freeze({ ok: true });

/**
 * Looks the URL's server up and, for an `"oauth"` server, lets its caller in before the app is
 * loaded (MCP 2025-06-18 "Authorization": a refused caller learns nothing about the app). The check
 * rides along with the resolver (`checkServer`); a resolver that skips it gets it run afterwards.
 * A refusal answers with the request's id; a failing lookup or token check is reported and answers
 * an opaque internal error, or 503 when the lookup failed for a while only (see `isUnavailable`).
 */
export async function resolveWithAccess<HostRequest>(
  request: EndpointRequest<HostRequest>,
  id: RequestId | null,
  report: ErrorReporter,
  deadline: ResolveDeadline,
): Promise<Resolution> {
  let admission: Admission | undefined;
  // A "code" server is let in at once, without a promise: the hot path pays nothing for OAuth or keys.
  const checkServer: CheckServer = (server) => {
    if (!checksCallers(server)) {
      admission = LET_IN;
      return;
    }
    return admitCaller(server, request).then((admitted) => {
      admission = admitted;
      if (!admitted.ok) throw admitted.error;
    });
  };
  let resolved: ResolvedServer | null = null;
  try {
    resolved = await deadline.run(request.resolve, checkServer);
  } catch (error) {
    // Thrown by the resolver itself, not by our check passing through it.
    if (admission === undefined || admission.ok) {
      report(error, { phase: 'resolve' });
      throw lookupFailure(error, id);
    }
  }
  if (resolved && admission === undefined) {
    admission = checksCallers(resolved.server) ? await admitCaller(resolved.server, request) : LET_IN;
  }
  if (admission && !admission.ok) throw refusal(admission, id, report);
  if (admission?.ok && admission.key) return { resolved, key: admission.key };
  return admission?.ok && admission.auth ? { resolved, auth: admission.auth } : { resolved };
}

/**
 * The caller of an `"oauth"` or a `"key"` server. Never throws: the outcome is kept, so that it is
 * told the same way whoever called the check.
 */
async function admitCaller(server: ServerRecord, request: EndpointRequest<unknown>): Promise<Admission> {
  if (server.authMode === 'key') {
    if (!request.authenticateKey) {
      const error = new Error(`server ${server.id} is in "key" mode, but this route takes no caller keys`);
      return { ok: false, error, server };
    }
    try {
      return { ok: true, key: await request.authenticateKey(server) };
    } catch (error) {
      return { ok: false, error, server };
    }
  }
  if (!request.authenticate) {
    const error = new Error(
      `server ${server.id} is in "oauth" mode, but mcpServer() has no auth option to check its callers`,
    );
    return { ok: false, error, server };
  }
  try {
    return { ok: true, auth: await request.authenticate(server) };
  } catch (error) {
    return { ok: false, error, server };
  }
}

function refusal(admission: Extract<Admission, { ok: false }>, id: RequestId | null, report: ErrorReporter) {
  if (admission.error instanceof AccessRefused) return admission.error.withId(id);
  report(admission.error, { phase: 'authenticate', serverId: admission.server.id });
  return new McpError('internal', 'Internal error', undefined, id);
}

/** How long a client is asked to wait before trying again while the server cannot be looked up. */
const UNAVAILABLE_RETRY_MS = 5000;

/**
 * What a failed lookup answers: 503 with `Retry-After` when the database is out of reach or too
 * slow (docs/http-contract.md, row 19a), an opaque internal error otherwise. The caller reports the cause.
 */
export function lookupFailure(error: unknown, id: RequestId | null): McpError {
  if (!isUnavailable(error)) return new McpError('internal', 'Internal error', undefined, id);
  const message = 'MCP server temporarily unavailable: try again later';
  return new RetryLater('temporarilyUnavailable', message, UNAVAILABLE_RETRY_MS, id);
}
