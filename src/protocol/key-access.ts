import { AccessRefused } from '../errors/access-refused.js';
import type { KeyStore } from '../store/keys/types.js';
import type { Caller, CheckServer, ResolvedServer, ResolveOptions, ServerRecord } from '../types/index.js';
import type { ResolveDeadline } from './resolve-deadline.js';

/** The caller of a `"key"` server, as `run.caller` names it. */
export type KeyCaller = Extract<Caller, { kind: 'key' }>;

/**
 * RFC 6750 §3: a `"key"` server's challenge names no authorization server (a caller key is not an
 * OAuth token, there is nothing to sign in to), only the realm; a key that was sent and refused
 * adds `error="invalid_token"`.
 */
const NO_KEY = 'Bearer realm="mcp"';
const BAD_KEY = 'Bearer realm="mcp", error="invalid_token"';

const noKey = () =>
  new AccessRefused(
    'unauthorized',
    'Unauthorized: this MCP server requires a caller key (Authorization: Bearer <key>)',
    NO_KEY,
  );
const badKey = () =>
  new AccessRefused(
    'unauthorized',
    'Unauthorized: the caller key is not valid for this server (unknown, revoked or expired)',
    BAD_KEY,
  );

/**
 * Lets the caller of a `"key"` server in by the key it presents (docs/keys.md): one of the
 * server's keys, not revoked nor expired. Throws `AccessRefused` (401) otherwise; the secret is
 * never in the error. A route with no keys to check against is the host's mistake, told to `onError`.
 */
export async function admitKey(
  server: ServerRecord,
  presented: string | undefined,
  keys: KeyStore | undefined,
): Promise<KeyCaller> {
  if (!keys) {
    throw new Error(
      `server ${server.id} is in "key" mode, but mcpServer() has no store with caller keys: pass resolveServer: store.resolver(loadApp) or the store option`,
    );
  }
  if (presented === undefined) throw noKey();
  const key = await keys.verify(server.id, presented);
  if (!key) throw badKey();
  return { kind: 'key', id: key.id, name: key.name };
}

/** Thrown through the resolver to stop it once the caller is known: the app is never loaded for a 405. */
const STOP = Symbol('stop');

/**
 * For a `GET` or `DELETE` the route answers 405 (docs/http-contract.md, row 1): the refusal a
 * `"key"` server's caller without a valid key gets instead (401), or `null` (then 405). The app is
 * never loaded; a lookup that fails answers `null`, as the method is refused either way.
 */
export async function keyRefusal(
  resolve: (options?: ResolveOptions) => Promise<ResolvedServer | null>,
  admit: (server: ServerRecord) => Promise<KeyCaller>,
  deadline: ResolveDeadline,
): Promise<AccessRefused | null> {
  let refusal: AccessRefused | null = null;
  const check = async (server: ServerRecord) => {
    try {
      await admit(server);
    } catch (error) {
      if (error instanceof AccessRefused) refusal = error;
    }
  };
  const checkServer: CheckServer = (server) =>
    server.authMode === 'key'
      ? check(server).then(() => {
          throw STOP;
        })
      : Promise.reject(STOP);
  try {
    const resolved = await deadline.run(resolve, checkServer);
    // A resolver of the host's own that skipped the check.
    if (resolved?.server.authMode === 'key') await check(resolved.server);
  } catch {
    // STOP, or a failed lookup: either way the method is refused.
  }
  return refusal;
}
