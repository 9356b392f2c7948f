import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import type { AuditEntry } from '../usage/types.js';
import type { KeyRow, KeyRows } from './rows.js';

/** The names the key rows use: the table and its unique prefix index. */
export interface KeyTableNames {
  serverKeys: string;
  constraints: { serverKeyPrefix: string };
}

/** Runs a write and its audit row in one transaction (`auditedWrite`, docs/usage.md). */
export type AuditedWrite = <T>(
  audit: AuditEntry | undefined,
  write: (db: Knex) => Promise<T>,
  targetOf: (result: T) => string | boolean,
) => Promise<T>;

/** The Knex store's key rows, in the table `migrate` made (`0013_create_server_keys`). */
export function knexKeyRows(
  knex: Knex,
  dialect: Dialect,
  tables: KeyTableNames,
  audited: AuditedWrite = (_audit, write) => write(knex),
): KeyRows {
  const keys = () => knex<KeyRow>(tables.serverKeys);
  const prefixConstraint = {
    name: tables.constraints.serverKeyPrefix,
    table: tables.serverKeys,
    columns: ['prefix'],
  };
  return {
    async insert(row, audit) {
      await audited(
        audit,
        (db) => db(tables.serverKeys).insert(row),
        () => row.id,
      );
    },
    isPrefixTaken: (error) => dialect.isUniqueViolation(error, prefixConstraint),
    async list(serverId) {
      return (await keys()
        .where({ server_id: serverId })
        .orderBy([{ column: 'created_at' }, { column: 'id' }])) as KeyRow[];
    },
    async get(serverId, keyId) {
      return ((await keys().where({ server_id: serverId, id: keyId }).first()) as KeyRow | undefined) ?? null;
    },
    async byPrefix(prefix) {
      return ((await keys().where({ prefix }).first()) as KeyRow | undefined) ?? null;
    },
    async update(serverId, keyId, values, audit) {
      const [row] = await audited(
        audit,
        (db) =>
          db<KeyRow>(tables.serverKeys)
            .where({ server_id: serverId, id: keyId })
            .update(values)
            .returning('*') as Promise<KeyRow[]>,
        (updated) => updated[0]?.id ?? false,
      );
      return row ?? null;
    },
    async touch(times) {
      // One statement per key, in one transaction: a handful a minute at most.
      await knex.transaction(async (trx) => {
        for (const [id, at] of times) {
          await trx(tables.serverKeys).where({ id }).update({ last_used_at: at });
        }
      });
    },
  };
}
