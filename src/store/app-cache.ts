import { LRUCache } from 'lru-cache';
import type { HostApp, LoadApp } from '../types/index.js';

/** Options of the app cache in front of a host's `loadApp`. */
export interface AppCacheOptions {
  /** How long a loaded app is kept, in milliseconds; `0` loads it on every request. */
  ttlMs: number;
  /** How many apps are kept at most; the least recently used go first. */
  maxEntries: number;
}

/**
 * `loadApp` behind a short-lived cache, so that a host whose apps live in its database pays one
 * query per app per `ttlMs` instead of one per MCP request. Concurrent loads of one app share one
 * call; a load that fails is not kept, so the next request tries again. Keeping the same app object
 * also lets the tool built from it (names, schemas, checks) be reused.
 */
export function cachedLoadApp(loadApp: LoadApp, { ttlMs, maxEntries }: AppCacheOptions): LoadApp {
  if (ttlMs === 0) return loadApp;
  const apps = new LRUCache<string, Promise<HostApp | null>>({ max: maxEntries, ttl: ttlMs });
  return (appId, tenantId) => {
    // JSON of the pair: no separator an id could contain can make two pairs collide.
    const key = JSON.stringify([tenantId, appId]);
    let app = apps.get(key);
    if (!app) {
      app = Promise.resolve().then(() => loadApp(appId, tenantId));
      apps.set(key, app);
      app.catch(() => {
        if (apps.get(key) === app) apps.delete(key);
      });
    }
    return app;
  };
}
