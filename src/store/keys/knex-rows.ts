import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import type { KeyRow, KeyRows } from './rows.js';

/** The names the key rows use: the table and its unique prefix index. */
export interface KeyTableNames {
  serverKeys: string;
  constraints: { serverKeyPrefix: string };
}

/** The Knex store's key rows, in the table `migrate` made (`0013_create_server_keys`). */
export function knexKeyRows(knex: Knex, dialect: Dialect, tables: KeyTableNames): KeyRows {
  const keys = () => knex<KeyRow>(tables.serverKeys);
  const prefixConstraint = {
    name: tables.constraints.serverKeyPrefix,
    table: tables.serverKeys,
    columns: ['prefix'],
  };
  return {
    async insert(row) {
      await keys().insert(row);
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
    async update(serverId, keyId, values) {
      const [row] = (await keys()
        .where({ server_id: serverId, id: keyId })
        .update(values)
        .returning('*')) as KeyRow[];
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
