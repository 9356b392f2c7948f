/**
 * The example host's database (README, "The example app"): an SQLite file by default, PostgreSQL when `DATABASE_URL`
 * is a `postgres://` or `postgresql://` URL. The package never opens a database itself: the host
 * owns its Knex instance and hands it to `migrate` and `knexServerStore`.
 */
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import knex from 'knex';

/** `example-app/data/example.sqlite`: git-ignored, created on first start. */
export const DEFAULT_SQLITE_FILE = join(dirname(fileURLToPath(import.meta.url)), 'data', 'example.sqlite');

/**
 * The Knex configuration for a `DATABASE_URL`:
 * - absent or empty: the default SQLite file;
 * - `postgres://user:password@host:5432/database` (or `postgresql://`): PostgreSQL through `pg`;
 * - `sqlite:<path>`, `file:<url>` or a plain path: that SQLite file (relative paths from the
 *   current folder).
 */
export function knexConfig(databaseUrl) {
  const url = databaseUrl?.trim();
  if (!url) return sqliteConfig(DEFAULT_SQLITE_FILE);
  if (/^postgres(ql)?:\/\//i.test(url)) {
    return { client: 'pg', connection: url, pool: { min: 0, max: 10 } };
  }
  if (/^file:/i.test(url)) return sqliteConfig(fileURLToPath(url));
  if (/^sqlite:/i.test(url)) return sqliteConfig(url.replace(/^sqlite:(\/\/(?=\/))?/i, ''));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new Error(
      `DATABASE_URL: unsupported database "${url.split(':')[0]}"; use postgres://… for PostgreSQL or a file path for SQLite`,
    );
  }
  return sqliteConfig(url);
}

function sqliteConfig(file) {
  const filename = isAbsolute(file) ? file : resolve(file);
  return {
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // better-sqlite3 waits for a lock synchronously, freezing the process: in WAL mode code
    // lookups never wait for a writer, and a short busy timeout bounds what a write may wait
    // (README, "SQLite: one process, and locks").
    pool: {
      afterCreate(connection, done) {
        connection.pragma('journal_mode = WAL');
        connection.pragma('busy_timeout = 250');
        done(null);
      },
    },
  };
}

/** Opens the database, creating the SQLite file's folder when needed. */
export function openDatabase(databaseUrl) {
  const config = knexConfig(databaseUrl);
  if (config.client === 'better-sqlite3') mkdirSync(dirname(config.connection.filename), { recursive: true });
  return knex(config);
}

/** What the start-up message says about the database, without a PostgreSQL password. */
export function describeDatabase(databaseUrl) {
  const config = knexConfig(databaseUrl);
  if (config.client === 'better-sqlite3') return `SQLite file ${config.connection.filename}`;
  const url = new URL(config.connection);
  if (url.password) url.password = '***';
  return `PostgreSQL ${url.href}`;
}
