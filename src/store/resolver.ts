import { ConfigurationError } from '../errors/package-errors.js';
import type { LoadApp, ResolvedMember, ResolveServer, ServerRecord } from '../types/index.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { cachedLoadApp } from './app-cache.js';
import type { KeyStore } from './keys/types.js';
import { resolverOptionsSchema } from './store-options.js';
import { toolsetMembers } from './toolsets/resolve.js';
import type { ResolverOptions, ServerStore } from './types.js';

/**
 * Marks a store's `resolver` method, so that `mcpServer` can tell it apart from a `resolveServer`
 * when it is passed uncalled (`resolveServer: store.resolver`). A registered symbol, so that the
 * other build of the package (ES module or CommonJS) recognises the mark too.
 */
const RESOLVER_FACTORY = Symbol.for('express-app-mcp.resolver-factory');

/** `factory`, marked as a store's `resolver` method. */
export function resolverFactory<F extends (loadApp: LoadApp, options?: ResolverOptions) => ResolveServer>(
  factory: F,
): F {
  return Object.defineProperty(factory, RESOLVER_FACTORY, { value: true });
}

/**
 * Marks the `resolveServer` a store makes with the store's caller keys, so that `mcpServer` checks
 * the keys of `"key"` servers without being given the store (docs/keys.md). Registered, as above.
 */
const CALLER_KEYS = Symbol.for('express-app-mcp.caller-keys');

/** The caller keys of the store that made this `resolveServer`, if a store of the package did. */
export const callerKeysOf = (resolveServer: unknown): KeyStore | undefined =>
  typeof resolveServer === 'function'
    ? ((resolveServer as { [CALLER_KEYS]?: KeyStore })[CALLER_KEYS] ?? undefined)
    : undefined;

/** Whether `value` is a store's `resolver` method itself rather than the `resolveServer` it makes. */
export const isResolverFactory = (value: unknown): boolean =>
  typeof value === 'function' && (value as { [RESOLVER_FACTORY]?: unknown })[RESOLVER_FACTORY] === true;

/**
 * The `resolveServer` every store offers: code -> server -> the caller's access -> app (a
 * toolset's: its members, `toolsetMembers`). An inactive
 * server is returned without loading its app, since the endpoint refuses it before looking at the
 * app (docs/http-contract.md, row 13). Apps come through a short-lived cache (`appCacheTtlMs`), as
 * codes do through the store's.
 */
export function storeResolver(
  store: ServerStore,
  loadApp: LoadApp,
  options?: ResolverOptions,
): ResolveServer {
  if (typeof loadApp !== 'function') {
    throw new ConfigurationError(
      'invalid_options',
      'store.resolver: its first argument must be your loadApp, a function (appId, tenantId) => app',
    );
  }
  const { appCacheTtlMs, appCacheMaxEntries } = parseFactoryOptions(
    resolverOptionsSchema,
    options ?? {},
    'store.resolver',
  );
  const load = cachedLoadApp(loadApp, { ttlMs: appCacheTtlMs, maxEntries: appCacheMaxEntries });
  let members: ((server: ServerRecord) => Promise<ResolvedMember[]>) | undefined;
  const resolve: ResolveServer = async (serverCode, _req, resolveOptions) => {
    const server = await store.getServerByCode(serverCode, resolveOptions);
    if (!server) return null;
    // The caller of an "oauth" server is let in (or not) before its app is loaded; a "code"
    // server's check answers at once, with no promise to wait for.
    const checking = resolveOptions?.checkServer?.(server);
    if (checking) await checking;
    const endUser = (name: string, subject?: string) => store.getOrCreateEndUser(server, name, subject);
    if (server.kind === 'toolset' && store.toolsets) {
      if (server.status !== 'active') return { server, app: null, endUser };
      members ??= toolsetMembers(store.toolsets, load, appCacheTtlMs);
      return { server, app: null, members: await members(server), endUser };
    }
    const app = server.status === 'active' ? await load(server.appId, server.tenantId) : null;
    return { server, app, endUser };
  };
  if (store.keys) Object.defineProperty(resolve, CALLER_KEYS, { value: store.keys });
  return resolve;
}

/** The store a `resolveServer` was made by, for `mcpServer` to find its usage counts and quotas (docs/usage.md). */
const RESOLVER_STORE = Symbol.for('express-app-mcp.resolver-store');

/**
 * `store`, its `resolver` making `resolveServer`s that name it: `mcpServer` given one counts usage in
 * that store without a `store` option. `make` is the resolver factory that does the resolving.
 */
export function withResolverStore<S extends ServerStore>(store: S, made: Pick<ServerStore, 'resolver'>): S {
  const make = made.resolver;
  const resolver = resolverFactory((loadApp: LoadApp, options?: ResolverOptions) =>
    Object.defineProperty(make(loadApp, options), RESOLVER_STORE, { value: store }),
  );
  return Object.assign(store, { resolver });
}

/** The store whose `resolver` made `resolveServer`; `undefined` for a host's own. */
export function storeOfResolver(resolveServer: unknown): ServerStore | undefined {
  if (typeof resolveServer !== 'function') return undefined;
  return (resolveServer as { [RESOLVER_STORE]?: ServerStore })[RESOLVER_STORE];
}
