import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';
import { ACTIVE_STATUSES, type TaskOwner, type TaskStatus } from './types.js';

/** A task's row, as both databases store it. */
export interface TaskRow {
  id: string;
  server_id: string;
  caller: string;
  status: TaskStatus;
  status_message: string | null;
  result: string | null;
  error: string | null;
  input_requests: string | null;
  /** `pg` returns bigint columns as strings, SQLite as numbers. */
  ttl_ms: number | string;
  poll_interval_ms: number;
  created_at: number | string;
  updated_at: number | string;
  expires_at: number | string;
  owner_instance: string;
  lease_expires_at: number | string | null;
}

/** The columns a change of a running task sets, besides its times. */
export type TaskChange = Partial<
  Pick<TaskRow, 'status' | 'status_message' | 'result' | 'error' | 'input_requests' | 'lease_expires_at'>
>;

/**
 * The three statements every task runs — stored, ended, read back — which make up the cost of a
 * task (bench/README.md, the tasks row). Every other statement of the task store goes through
 * Knex's query builder.
 */
export interface TaskStatements {
  insert(row: TaskRow): Promise<void>;
  /**
   * Applies `change` to a task still running (`working` or `input_required`), moving its
   * `updated_at` to `now` and its expiry to `ttl_ms` after it; returns whether it was running.
   */
  change(id: string, now: number, change: TaskChange): Promise<boolean>;
  /** The owner's task unless it expired before `now` (a running task never does). */
  find(id: string, owner: TaskOwner, now: number): Promise<TaskRow | undefined>;
}

/** Every change moves `updated_at`, and the task expires `ttl_ms` after it. */
export const touched = (knex: Knex, now: number) => ({
  updated_at: now,
  expires_at: knex.raw('? + ??', [now, 'ttl_ms']),
});

/** Not expired at `now`: kept for its ttl, or still running (docs/tasks.md, "How long a task is kept"). */
export const unexpired = (query: Knex.QueryBuilder, now: number): Knex.QueryBuilder =>
  query.where('expires_at', '>=', now).orWhereIn('status', ACTIVE_STATUSES);

/** The statements for a Knex instance: prepared once on `better-sqlite3`, built by Knex elsewhere. */
export function taskStatements(knex: Knex, tables: TableNames): TaskStatements {
  return knex.client?.driverName === 'better-sqlite3'
    ? preparedStatements(knex, tables)
    : builtStatements(knex, tables);
}

function builtStatements(knex: Knex, tables: TableNames): TaskStatements {
  const tasks = () => knex<TaskRow>(tables.tasks);
  return {
    async insert(row) {
      await tasks().insert(row);
    },
    async change(id, now, change) {
      const changed = await tasks()
        .where({ id })
        .whereIn('status', ACTIVE_STATUSES)
        .update({ ...change, ...touched(knex, now) });
      return changed > 0;
    },
    async find(id, owner, now) {
      return tasks()
        .where({ id, server_id: owner.serverId, caller: owner.caller })
        .andWhere((kept) => unexpired(kept, now))
        .first() as Promise<TaskRow | undefined>;
    },
  };
}

/** What the store uses of a `better-sqlite3` connection and its statements. */
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
interface SqliteStatement {
  run(parameters: Record<string, unknown>): { changes: number };
  get(parameters: Record<string, unknown>): unknown;
}

/**
 * On `better-sqlite3`, Knex prepares every query it runs afresh; preparing costs more than running
 * one of these statements. Here each is prepared once per connection and run with named
 * parameters, on a connection taken from Knex's own pool, so that a transaction the host holds
 * on it is waited for as Knex would.
 */
function preparedStatements(knex: Knex, tables: TableNames): TaskStatements {
  const table = knex.raw('??', [tables.tasks]).toQuery();
  const active = ACTIVE_STATUSES.map((status) => `'${status}'`).join(', ');
  const prepared = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

  async function withStatement<T>(sql: string, use: (statement: SqliteStatement) => T): Promise<T> {
    const connection = (await knex.client.acquireConnection()) as SqliteConnection;
    try {
      let statements = prepared.get(connection);
      if (!statements) {
        statements = new Map();
        prepared.set(connection, statements);
      }
      let statement = statements.get(sql);
      if (!statement) {
        statement = connection.prepare(sql);
        statements.set(sql, statement);
      }
      return use(statement);
    } finally {
      await knex.client.releaseConnection(connection);
    }
  }

  const columns = (names: string[], render: (name: string) => string) => names.map(render).join(', ');
  const insertColumns: (keyof TaskRow)[] = [
    'id',
    'server_id',
    'caller',
    'status',
    'status_message',
    'result',
    'error',
    'input_requests',
    'ttl_ms',
    'poll_interval_ms',
    'created_at',
    'updated_at',
    'expires_at',
    'owner_instance',
    'lease_expires_at',
  ];
  const insertSql =
    `insert into ${table} (${columns(insertColumns, (name) => name)}) ` +
    `values (${columns(insertColumns, (name) => `@${name}`)})`;
  const findSql =
    `select * from ${table} where id = @id and server_id = @server_id and caller = @caller ` +
    `and (expires_at >= @now or status in (${active})) limit 1`;

  return {
    async insert(row) {
      await withStatement(insertSql, (statement) => statement.run({ ...row }));
    },
    async change(id, now, change) {
      // One statement per set of changed columns: a handful, each prepared once.
      const names = Object.keys(change).sort();
      const sql =
        `update ${table} set updated_at = @now, expires_at = @now + ttl_ms` +
        names.map((name) => `, ${name} = @${name}`).join('') +
        ` where id = @id and status in (${active})`;
      const { changes } = await withStatement(sql, (statement) => statement.run({ ...change, id, now }));
      return changes > 0;
    },
    async find(id, owner, now) {
      const parameters = { id, server_id: owner.serverId, caller: owner.caller, now };
      return withStatement(findSql, (statement) => statement.get(parameters) as TaskRow | undefined);
    },
  };
}
