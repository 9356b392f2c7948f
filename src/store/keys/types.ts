import type { AuditEntry } from '../usage/types.js';
/**
 * A caller key of a `"key"` server (docs/keys.md): who holds it, never the secret nor its hash.
 * Dates are `null` when not set.
 */
export interface CallerKey {
  id: string;
  /** The server (a one-app server or a toolset) the key opens. */
  serverId: string;
  /** Names the caller: the key's end user is named by it, and `run.caller.name` is it. */
  name: string;
  /** The recognisable part of the secret (`mcpk_<prefix>_…`), the same across rotations. */
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  /** Written at most once a minute, off the request path: a lower bound, up to a minute late. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** After a rotation with a grace: until then the previous secret works too. */
  graceUntil: Date | null;
  /** Calls a UTC day the key may make; `null`: no quota. */
  dailyCallQuota: number | null;
}

/** A key with its secret, in the one reply that makes it (creation, rotation). */
export interface IssuedKey {
  key: CallerKey;
  /** `mcpk_<prefix>_<random>`: shown once, kept nowhere. */
  secret: string;
}

/** What a new key needs. */
export interface NewKey {
  name: string;
  expiresAt?: Date | null;
  dailyCallQuota?: number | null;
}

/**
 * Where a store keeps the caller keys of its servers (`store.keys`). Only a hash of each secret is
 * kept; `verify` is the hot path, served from an in-process cache that every change through the
 * store (and, on PostgreSQL, through any instance) drops at once.
 */
export interface KeyStore {
  /** Makes a key for the server; the secret is in the result only. */
  create(serverId: string, input: NewKey, audit?: AuditEntry): Promise<IssuedKey>;
  /** The server's keys, oldest first, revoked ones included. */
  list(serverId: string): Promise<CallerKey[]>;
  /** One key of the server, or `null`. */
  get(serverId: string, keyId: string): Promise<CallerKey | null>;
  /**
   * A new secret for the key; the previous one keeps working for `graceMs` (0: not at all).
   * `null` when the server has no such key, or it is revoked.
   */
  rotate(serverId: string, keyId: string, graceMs: number, audit?: AuditEntry): Promise<IssuedKey | null>;
  /**
   * Revokes the key at once; `false` when the server has no such key. Each write records `audit`
   * with it, in one transaction (docs/usage.md, "Audit log").
   */
  revoke(serverId: string, keyId: string, audit?: AuditEntry): Promise<boolean>;
  /**
   * The server's live key whose secret (or, within a grace, previous secret) this is; `null` for
   * an unknown, revoked or expired key or another server's. Compares hashes in constant time.
   */
  verify(serverId: string, secret: string): Promise<CallerKey | null>;
  /** Writes the buffered `lastUsedAt` times now (they are written by themselves within seconds). */
  flush(): Promise<void>;
  /**
   * The daily call quota of a key this instance has verified, from the row it read (docs/usage.md,
   * "Quotas"): answered from memory, with no query, on every call. `null`: none, or not seen yet.
   */
  dailyCallQuota(keyId: string): number | null;
}
