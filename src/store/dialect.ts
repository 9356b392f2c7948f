import type { Knex } from 'knex';

/**
 * Which unique constraint an insert or update broke, read from the driver's error. The store relies
 * on the unique indexes instead of checking first (a check races), so it must tell them apart.
 */
export interface UniqueConstraint {
  /** The PostgreSQL constraint name. */
  name: string;
  /** The table and columns, as SQLite spells them in its message. */
  table: string;
  columns: string[];
}

/**
 * What the store knows of one database: everything that depends on the driver lives here, chosen
 * once per Knex instance (`dialectOf`). A new storage dialect is one more of these.
 */
export interface Dialect {
  /**
   * Whether the database has `LISTEN`/`NOTIFY` and shared counters that let several instances act
   * as one; on SQLite (one process) those features have nothing to share.
   */
  readonly notifies: boolean;
  isUniqueViolation(error: unknown, constraint: UniqueConstraint): boolean;
  /** Whether the driver's error says the database is out of reach or busy right now, rather than a fault. */
  isUnavailable(error: unknown): boolean;
}

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}
const fieldsOf = (error: unknown): DriverError =>
  typeof error === 'object' && error !== null ? (error as DriverError) : {};

/**
 * PostgreSQL (`pg`): a unique violation is SQLSTATE 23505, and `error.constraint` is the
 * constraint's name, which is why the migrations name every constraint. Out of reach: SQLSTATE
 * classes 08 (connection) and 57P (shutting down), 53300 (too many connections), and a dropped
 * connection, which node-postgres names in its message only.
 */
export const POSTGRES: Dialect = {
  notifies: true,
  isUniqueViolation(error, constraint) {
    const { code, constraint: name } = fieldsOf(error);
    return code === '23505' && name === constraint.name;
  },
  isUnavailable(error) {
    const { code, message } = fieldsOf(error);
    if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || code === '53300'))
      return true;
    return typeof message === 'string' && message.startsWith('Connection terminated');
  },
};

/**
 * SQLite (`better-sqlite3`, `sqlite3`): a unique violation is code `SQLITE_CONSTRAINT_UNIQUE`
 * (`SQLITE_CONSTRAINT` on `sqlite3`) and the message lists the columns: "UNIQUE constraint
 * failed: t.tenant_id, t.app_id". Busy: another connection holds the lock.
 */
export const SQLITE: Dialect = {
  notifies: false,
  isUniqueViolation(error, constraint) {
    const { code, message } = fieldsOf(error);
    if (typeof code !== 'string' || !code.startsWith('SQLITE_CONSTRAINT') || typeof message !== 'string')
      return false;
    const failed = message.match(/UNIQUE constraint failed: (.+)$/m)?.[1];
    if (!failed) return false;
    const columns = failed.split(',').map((column) => column.trim());
    const expected = constraint.columns.map((column) => `${constraint.table}.${column}`);
    return columns.length === expected.length && expected.every((column) => columns.includes(column));
  },
  isUnavailable(error) {
    const { code } = fieldsOf(error);
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
  },
};

/** Any driver: for a Knex client the store does not name, and for errors whose database is unknown. */
export const ANY_DIALECT: Dialect = {
  notifies: false,
  isUniqueViolation: (error, constraint) =>
    POSTGRES.isUniqueViolation(error, constraint) || SQLITE.isUniqueViolation(error, constraint),
  isUnavailable: (error) => POSTGRES.isUnavailable(error) || SQLITE.isUnavailable(error),
};

/** The dialect of a Knex instance; any driver's when it names none. */
export function dialectOf(knex: Knex): Dialect {
  const name: unknown = knex.client?.dialect;
  if (name === 'postgresql') return POSTGRES;
  if (name === 'sqlite3' || name === 'better-sqlite3') return SQLITE;
  return ANY_DIALECT;
}
