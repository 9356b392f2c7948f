import type { AuditEntry } from '../usage/types.js';
import type { CallerKey } from './types.js';

/** A row of the keys table, as the drivers give it (`pg` returns bigint columns as strings). */
export interface KeyRow {
  id: string;
  server_id: string;
  name: string;
  prefix: string;
  /** SHA-256 (or HMAC-SHA-256 with the pepper) of the current secret, hex. */
  secret_hash: string;
  /** The same of the secret before the last rotation, while its grace lasts; else NULL. */
  previous_hash: string | null;
  grace_until: number | string | null;
  created_at: number | string;
  expires_at: number | string | null;
  last_used_at: number | string | null;
  revoked_at: number | string | null;
  daily_call_quota: number | null;
}

/** How rows are read and written: the Knex store's queries, or the memory store's maps. */
export interface KeyRows {
  /** Inserts a row; rejects with an error `isPrefixTaken` recognises when the prefix is in use. */
  insert(row: KeyRow, audit?: AuditEntry): Promise<void>;
  isPrefixTaken(error: unknown): boolean;
  list(serverId: string): Promise<KeyRow[]>;
  get(serverId: string, keyId: string): Promise<KeyRow | null>;
  byPrefix(prefix: string): Promise<KeyRow | null>;
  /** Updates the server's key and returns the row as it is now; `null` when there is none. */
  update(
    serverId: string,
    keyId: string,
    values: Partial<KeyRow>,
    audit?: AuditEntry,
  ): Promise<KeyRow | null>;
  /** Sets `last_used_at` of each key id to its time. */
  touch(times: ReadonlyMap<string, number>): Promise<void>;
}

const dateOf = (value: number | string | null): Date | null =>
  value === null ? null : new Date(Number(value));

export const msOf = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function toCallerKey(row: KeyRow): CallerKey {
  return {
    id: row.id,
    serverId: row.server_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: dateOf(row.expires_at),
    lastUsedAt: dateOf(row.last_used_at),
    revokedAt: dateOf(row.revoked_at),
    graceUntil: dateOf(row.grace_until),
    dailyCallQuota: row.daily_call_quota === null ? null : Number(row.daily_call_quota),
  };
}
