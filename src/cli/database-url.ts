import { isAbsolute, resolve } from 'node:path';

/** A `--database-url`, read: the Knex client and driver it needs and how to reach the database. */
export type Database =
  | { kind: 'postgres'; driver: 'pg'; url: string; password: string; where: string }
  | { kind: 'sqlite'; driver: 'better-sqlite3'; filename: string; where: string };

/** A command-line mistake: its message is printed as is, and the command exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const EXPECTED = 'expected postgres://user:password@host:5432/database or sqlite:path/to/file.sqlite';

/**
 * Reads `postgres://…` (or `postgresql://…`) and `sqlite:<path>`, a path relative to the current
 * folder or absolute. `sqlite://…` is refused rather than guessed at: tools disagree on how many
 * slashes make a path absolute there, and a wrong guess would create a new empty database file.
 * The message for a wrong value never repeats it, since a URL may carry a password.
 */
export function parseDatabaseUrl(value: string, cwd: string): Database {
  if (/^sqlite:/i.test(value)) {
    const path = value.slice('sqlite:'.length);
    if (path.startsWith('//')) {
      throw new UsageError(
        '--database-url: write sqlite:relative/path.sqlite or sqlite:/absolute/path.sqlite, without "//"',
      );
    }
    if (path === '' || path === ':memory:') {
      throw new UsageError(`--database-url: sqlite: needs the path of the database file; ${EXPECTED}`);
    }
    const filename = isAbsolute(path) ? path : resolve(cwd, path);
    return { kind: 'sqlite', driver: 'better-sqlite3', filename, where: `SQLite file ${filename}` };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--database-url: not a URL; ${EXPECTED}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`--database-url: the scheme ${url.protocol} is not supported; ${EXPECTED}`);
  }
  if (url.hostname === '') {
    throw new UsageError(`--database-url: the URL names no host; ${EXPECTED}`);
  }
  const database = decoded(url.pathname.slice(1));
  const where = `PostgreSQL at ${url.host}${database ? `, database ${database}` : ''}`;
  return { kind: 'postgres', driver: 'pg', url: value, password: decoded(url.password), where };
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new UsageError(`--database-url: the URL is not valid percent-encoding; ${EXPECTED}`);
  }
}
