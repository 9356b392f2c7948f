import type { LoadApp, ResolveServer } from '../types.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { cachedLoadApp } from './app-cache.js';
import { resolverOptionsSchema } from './store-options.js';
import type { ResolverOptions, ServerStore } from './types.js';

/**
 * The `resolveServer` every store offers: code -> server -> the caller's access -> app. An inactive
 * server is returned without loading its app, since the endpoint refuses it before looking at the
 * app (docs/http-contract.md, row 13). Apps come through a short-lived cache (`appCacheTtlMs`), as
 * codes do through the store's.
 */
export function storeResolver(
  store: ServerStore,
  loadApp: LoadApp,
  options?: ResolverOptions,
): ResolveServer {
  const { appCacheTtlMs, appCacheMaxEntries } = parseFactoryOptions(
    resolverOptionsSchema,
    options ?? {},
    'resolver',
  );
  const load = cachedLoadApp(loadApp, { ttlMs: appCacheTtlMs, maxEntries: appCacheMaxEntries });
  return async (serverCode, _req, resolveOptions) => {
    const server = await store.getServerByCode(serverCode, resolveOptions);
    if (!server) return null;
    // The caller of an "oauth" server is let in (or not) before its app is loaded; a "code"
    // server's check answers at once, with no promise to wait for.
    const checking = resolveOptions?.checkServer?.(server);
    if (checking) await checking;
    const app = server.status === 'active' ? await load(server.appId, server.tenantId) : null;
    return { server, app, endUser: (name, subject) => store.getOrCreateEndUser(server, name, subject) };
  };
}
