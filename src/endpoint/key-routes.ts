import type { Request } from 'express';
import { bearerTokenOf } from '../auth/bearer.js';
import type { McpError } from '../errors/mcp-error.js';
import { admitKey, type KeyCaller, keyRefusal } from '../protocol/key-access.js';
import { ResolveDeadline } from '../protocol/resolve-deadline.js';
import type { KeyStore } from '../store/keys/types.js';
import { callerKeysOf } from '../store/resolver.js';
import type { ResolveServer, ServerRecord } from '../types/index.js';

/** How a route lets the caller of a `"key"` server in (docs/keys.md). */
export type KeyAuthenticator = (server: ServerRecord, req: Request) => Promise<KeyCaller>;

/**
 * The caller keys of `mcpServer`: the store's (`store` option), or those of the store that made
 * the resolver, so that `resolveServer: store.resolver(loadApp)` is all a host writes. `byBearer`
 * checks the `Authorization: Bearer` of the path route; `refuseKeyless` answers a `GET` or
 * `DELETE` to a `"key"` server without a valid key as a `POST` would be (401), not with 405:
 * every method of the route needs the key. `null`: no refusal (then 405).
 */
export function keyAccess(
  resolveServer: ResolveServer<Request>,
  store: { keys?: KeyStore } | undefined,
  resolveTimeoutMs: number,
) {
  const keys = store?.keys ?? callerKeysOf(resolveServer);
  const deadline = new ResolveDeadline(resolveTimeoutMs);
  const byBearer: KeyAuthenticator = (server, req) =>
    admitKey(server, bearerTokenOf(req.headers.authorization), keys);
  const refuseKeyless = async (
    req: Request,
    serverCode: string | null,
    authenticate: KeyAuthenticator,
  ): Promise<McpError | null> => {
    if ((req.method !== 'GET' && req.method !== 'DELETE') || serverCode === null) return null;
    return keyRefusal(
      (resolveOptions) => resolveServer(serverCode, req, resolveOptions),
      (server) => authenticate(server, req),
      deadline,
    );
  };
  return { byBearer, refuseKeyless };
}
