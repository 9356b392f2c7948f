/**
 * Which unique constraint an insert or update broke, read from the driver's error. The store relies
 * on the unique indexes instead of checking first (a check races), so it must tell them apart:
 * - PostgreSQL (`pg`): SQLSTATE 23505, `error.constraint` is the constraint's name, which is why
 *   the migrations name every constraint.
 * - SQLite (`better-sqlite3`, `sqlite3`): code `SQLITE_CONSTRAINT_UNIQUE` (`SQLITE_CONSTRAINT` on
 *   `sqlite3`); the message lists the columns: "UNIQUE constraint failed: t.tenant_id, t.app_id".
 */
export interface UniqueConstraint {
  /** The PostgreSQL constraint name. */
  name: string;
  /** The table and columns, as SQLite spells them in its message. */
  table: string;
  columns: string[];
}

export function isUniqueViolation(error: unknown, constraint: UniqueConstraint): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const {
    code,
    constraint: name,
    message,
  } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return name === constraint.name;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && typeof message === 'string') {
    const failed = message.match(/UNIQUE constraint failed: (.+)$/m)?.[1];
    if (!failed) return false;
    const columns = failed.split(',').map((column) => column.trim());
    const expected = constraint.columns.map((column) => `${constraint.table}.${column}`);
    return columns.length === expected.length && expected.every((column) => columns.includes(column));
  }
  return false;
}
