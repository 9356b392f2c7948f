import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AuditEntry } from '../usage/types.js';
import { LastUsed } from './last-used.js';
import { type KeyRow, type KeyRows, msOf, toCallerKey } from './rows.js';
import { generateKeyPrefix, generateKeySecret, hashSecret, prefixOf, sameHash } from './secrets.js';
import type { CallerKey, IssuedKey, KeyStore, NewKey } from './types.js';

/** How many keys' quotas an instance keeps in memory at most. */
const QUOTAS_KEPT = 10_000;

/** Options of the key logic both stores share. */
export interface KeyStoreOptions {
  /** The store's `keyPepper`: secrets are then kept as HMAC-SHA-256 with it. */
  pepper?: string;
  /** How long a key read is served from this process; `0`: read on every request. */
  cacheTtlMs: number;
  cacheMaxEntries: number;
  /** The clock, in ms; tests may move it. Default `Date.now`. */
  now?: () => number;
}

/** A fresh prefix collides with a taken one about once in 36^8 / n draws; a few retries are plenty. */
const PREFIX_ATTEMPTS = 5;

/** The key store that sits over the rows, with the cache that `forgetServer` and `expireAll` drop. */
export interface CachedKeyStore extends KeyStore {
  /** Drops the cached keys of a server: a key of it changed on another instance. */
  forgetServer(serverId: string): void;
  /** Drops every cached key: changes may have gone unheard. */
  expireAll(): void;
}

/**
 * The keys of a store (docs/keys.md): secrets are hashed before they are stored or compared, a
 * verified key is cached by its prefix for `cacheTtlMs`, and each local write drops it at once.
 */
export function cachedKeyStore(rows: KeyRows, options: KeyStoreOptions): CachedKeyStore {
  const { pepper } = options;
  const now = options.now ?? Date.now;
  const cache =
    options.cacheTtlMs > 0
      ? new LRUCache<string, KeyRow>({ max: options.cacheMaxEntries, ttl: options.cacheTtlMs })
      : null;
  /** Bumped by every write: a read that overlapped one must not cache what it read. */
  let generation = 0;
  const lastUsed = new LastUsed(rows, options.cacheMaxEntries, now);
  const forget = (prefix: string) => {
    generation++;
    cache?.delete(prefix);
  };

  async function read(prefix: string): Promise<KeyRow | null> {
    const cached = cache?.get(prefix);
    if (cached) return cached;
    const token = generation;
    const row = await rows.byPrefix(prefix);
    if (row && token === generation) cache?.set(prefix, row);
    return row;
  }

  /** Whether the row's secret, or its previous one within the grace, is this hash. */
  function opens(row: KeyRow, hash: string, at: number): boolean {
    if (row.revoked_at !== null) return false;
    const expiresAt = msOf(row.expires_at);
    if (expiresAt !== null && expiresAt <= at) return false;
    // Both compared, whichever matches, so that the time taken says nothing of which did.
    const current = sameHash(row.secret_hash, hash);
    const graceUntil = msOf(row.grace_until);
    const previous = row.previous_hash !== null && sameHash(row.previous_hash, hash);
    return current || (previous && graceUntil !== null && graceUntil > at);
  }

  /** Each verified key's daily call quota, by key id. */
  const quotas = new Map<string, number | null>();

  async function issue(serverId: string, input: NewKey, audit?: AuditEntry): Promise<IssuedKey> {
    for (let attempt = 1; ; attempt++) {
      const prefix = generateKeyPrefix();
      const secret = generateKeySecret(prefix);
      const row: KeyRow = {
        id: randomUUID(),
        server_id: serverId,
        name: input.name,
        prefix,
        secret_hash: hashSecret(secret, pepper),
        previous_hash: null,
        grace_until: null,
        created_at: now(),
        expires_at: input.expiresAt ? input.expiresAt.getTime() : null,
        last_used_at: null,
        revoked_at: null,
        daily_call_quota: input.dailyCallQuota ?? null,
      };
      try {
        await rows.insert(row, audit);
        return { key: toCallerKey(row), secret };
      } catch (error) {
        // Never the secret in an error: the insert binds only its hash.
        if (attempt >= PREFIX_ATTEMPTS || !rows.isPrefixTaken(error)) throw error;
      }
    }
  }

  return {
    create: issue,

    async list(serverId) {
      return (await rows.list(serverId)).map(toCallerKey);
    },

    async get(serverId, keyId) {
      const row = await rows.get(serverId, keyId);
      return row && toCallerKey(row);
    },

    async rotate(serverId, keyId, graceMs, audit) {
      const current = await rows.get(serverId, keyId);
      if (!current || current.revoked_at !== null) return null;
      const secret = generateKeySecret(current.prefix);
      forget(current.prefix);
      const at = now();
      const updated = await rows.update(
        serverId,
        keyId,
        {
          secret_hash: hashSecret(secret, pepper),
          previous_hash: graceMs > 0 ? current.secret_hash : null,
          grace_until: graceMs > 0 ? at + graceMs : null,
        },
        audit,
      );
      forget(current.prefix);
      return updated && { key: toCallerKey(updated), secret };
    },

    async revoke(serverId, keyId, audit) {
      const current = await rows.get(serverId, keyId);
      if (!current) return false;
      forget(current.prefix);
      if (current.revoked_at === null) await rows.update(serverId, keyId, { revoked_at: now() }, audit);
      forget(current.prefix);
      return true;
    },

    async verify(serverId, secret) {
      const prefix = prefixOf(secret);
      if (prefix === null) return null;
      const row = await read(prefix);
      if (!row || row.server_id !== serverId) return null;
      const at = now();
      if (!opens(row, hashSecret(secret, pepper), at)) return null;
      lastUsed.seen(row.id);
      const key = toCallerKey(row);
      // Bounded as the key cache is: a key verified again is remembered again.
      if (quotas.size >= QUOTAS_KEPT && !quotas.has(key.id)) quotas.clear();
      quotas.set(key.id, key.dailyCallQuota);
      return key;
    },

    dailyCallQuota: (keyId) => quotas.get(keyId) ?? null,

    flush: () => lastUsed.flush(),

    forgetServer(serverId) {
      generation++;
      if (!cache) return;
      const gone = [...cache.entries()].filter(([, row]) => row.server_id === serverId);
      for (const [prefix] of gone) cache.delete(prefix);
    },

    expireAll() {
      generation++;
      cache?.clear();
    },
  };
}

export type { CallerKey };
