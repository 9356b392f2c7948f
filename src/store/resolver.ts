import type { LoadApp, ResolveServer } from '../types.js';
import type { ServerStore } from './types.js';

/**
 * The `resolveServer` every store offers: code -> server -> app. An inactive server is returned
 * without loading its app, since the endpoint refuses it before looking at the app (docs/http-contract.md, row 13).
 */
export function storeResolver(store: ServerStore, loadApp: LoadApp): ResolveServer {
  return async (serverCode, _req, options) => {
    const server = await store.getServerByCode(serverCode, options);
    if (!server) return null;
    const app = server.status === 'active' ? await loadApp(server.appId, server.tenantId) : null;
    return { server, app, endUser: (name) => store.getOrCreateEndUser(server, name) };
  };
}
