import type { AuditEntry } from '../usage/types.js';
import type { KeyRow, KeyRows } from './rows.js';

/** A prefix already in use, as the memory store says it. */
class PrefixTaken extends Error {}

/** The memory store's key rows: a map by id; every read returns a copy. */
export function memoryKeyRows(
  record: (audit: AuditEntry | undefined, keyId: string) => void = () => {},
): KeyRows & { deleteServer(serverId: string): void } {
  const rows = new Map<string, KeyRow>();
  const copy = (row: KeyRow | undefined): KeyRow | null => (row ? { ...row } : null);
  const find = (serverId: string, keyId: string) => {
    const row = rows.get(keyId);
    return row?.server_id === serverId ? row : undefined;
  };
  return {
    async insert(row, audit) {
      for (const other of rows.values()) if (other.prefix === row.prefix) throw new PrefixTaken();
      rows.set(row.id, { ...row });
      record(audit, row.id);
    },
    isPrefixTaken: (error) => error instanceof PrefixTaken,
    async list(serverId) {
      return [...rows.values()].filter((row) => row.server_id === serverId).map((row) => ({ ...row }));
    },
    async get(serverId, keyId) {
      return copy(find(serverId, keyId));
    },
    async byPrefix(prefix) {
      for (const row of rows.values()) if (row.prefix === prefix) return { ...row };
      return null;
    },
    async update(serverId, keyId, values, audit) {
      const row = find(serverId, keyId);
      if (!row) return null;
      Object.assign(row, values);
      record(audit, keyId);
      return { ...row };
    },
    async touch(times) {
      for (const [id, at] of times) {
        const row = rows.get(id);
        if (row) row.last_used_at = at;
      }
    },
    deleteServer(serverId) {
      for (const [id, row] of rows) if (row.server_id === serverId) rows.delete(id);
    },
  };
}
