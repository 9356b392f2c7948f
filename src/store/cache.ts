import { LRUCache } from 'lru-cache';
import type { ServerRecord } from '../types/index.js';
import { copyServer } from './copy-server.js';

/** Options of the code-lookup cache. */
export interface CodeCacheOptions {
  /** How long another instance's write may stay unseen here, in milliseconds; must be > 0. */
  ttlMs: number;
  /** How many codes are kept at most; the least recently used go first. */
  maxEntries: number;
  /** How long past `ttlMs` an entry is kept for `getStale`, in milliseconds. Default `0`. */
  staleIfErrorMs?: number;
}

/** A cached server and the moment it stops being fresh. */
interface Entry {
  server: ServerRecord;
  freshUntil: number;
}

/**
 * The in-process cache of code lookups: a hit answers without touching the database.
 *
 * Only found servers are cached, not unknown codes. Guessed or random codes are all different, so
 * caching them would absorb nothing and would evict real servers from the bounded cache; and an
 * unknown code is an indexed miss, cheap for the database.
 *
 * Writes made through this store instance call `forget` and are seen at once. Writes made by
 * another instance are seen when PostgreSQL announces them (`forget` again), or else when the
 * entry expires, after `ttlMs` at most.
 */
export class CodeCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #ttlMs: number;
  /** Every cached code of a server, so a write known by server id can drop them all. */
  readonly #codesById = new Map<string, Set<string>>();
  /** Bumped by every `forget`: a lookup that overlapped a write must not cache what it read. */
  #generation = 0;

  constructor(options: CodeCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#entries = new LRUCache<string, Entry>({
      max: options.maxEntries,
      // Entries outlive their freshness by `staleIfErrorMs`, for `getStale`.
      ttl: options.ttlMs + (options.staleIfErrorMs ?? 0),
      // Keeps `#codesById` exactly as large as the cache, whatever removes an entry.
      dispose: ({ server }, code) => {
        const codes = this.#codesById.get(server.id);
        codes?.delete(code);
        if (codes?.size === 0) this.#codesById.delete(server.id);
      },
    });
  }

  /** A copy of the cached server for `code`, or `undefined` on a miss or an expired entry. */
  get(code: string): ServerRecord | undefined {
    const entry = this.#entries.get(code);
    return entry && entry.freshUntil > Date.now() ? copyServer(entry.server) : undefined;
  }

  /**
   * A copy of the server cached for `code` even when it is no longer fresh, as long as it is at
   * most `staleIfErrorMs` past its time: for serving through a database outage (RFC 5861's
   * `stale-if-error`). Writes this instance has heard of are never served this way: they drop the entry.
   */
  getStale(code: string): ServerRecord | undefined {
    const entry = this.#entries.get(code);
    return entry && copyServer(entry.server);
  }

  /** A token to pass to `remember` for a lookup that starts now. */
  begin(): number {
    return this.#generation;
  }

  /**
   * Caches what a lookup read, unless a write happened on this instance since the lookup began:
   * the row read may then be older than the write, and caching it would bring back a rotated or
   * deactivated code for a whole TTL.
   */
  remember(code: string, server: ServerRecord, token: number): void {
    if (token !== this.#generation) return;
    this.#entries.set(code, { server: copyServer(server), freshUntil: Date.now() + this.#ttlMs });
    let codes = this.#codesById.get(server.id);
    if (!codes) {
      codes = new Set();
      this.#codesById.set(server.id, codes);
    }
    codes.add(code);
  }

  /** Drops every cached code of a server; called by each write through the store. */
  forget(serverId: string): void {
    this.#generation++;
    const codes = this.#codesById.get(serverId);
    if (!codes) return;
    for (const code of [...codes]) this.#entries.delete(code);
  }

  /**
   * Makes every entry stale: writes may have gone unheard (a `LISTEN` connection that was lost or
   * not yet there), so each code is read again before it is served fresh; the copies stay for
   * `getStale` only.
   */
  expireAll(): void {
    this.#generation++;
    for (const entry of this.#entries.values()) entry.freshUntil = 0;
  }
}
