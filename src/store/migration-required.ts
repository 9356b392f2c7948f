import { MigrationRequiredError } from '../errors.js';
import type { LoadApp } from '../types.js';
import type { ResolverOptions, ServerStore } from './types.js';

/**
 * A store used before `migrate(knex)` fails on its first query with the driver's words ("no such
 * table: mcp_servers", `relation "mcp_servers" does not exist`). That error becomes a
 * `MigrationRequiredError` that says what to do; errors about any other table (the host's own,
 * from `loadApp`) pass through untouched.
 */
export function missingTable(error: unknown, tables: readonly string[]): string | null {
  if (!(error instanceof Error)) return null;
  const { code } = error as { code?: unknown };
  const sqlite = /no such table: (?:\w+\.)?(\w+)/.exec(error.message);
  // PostgreSQL: 42P01 undefined_table; the name may come schema-qualified.
  const postgres =
    code === '42P01' ? /relation "(?:[^"]+\.)?([^".]+)" does not exist/.exec(error.message) : null;
  const table = sqlite?.[1] ?? postgres?.[1];
  return table !== undefined && tables.includes(table) ? table : null;
}

/**
 * The same store, its methods turning a missing-table error into a `MigrationRequiredError`; its
 * resolver goes through them too, so the endpoint's `onError` gets the clear error.
 */
export function requireMigrations(
  store: ServerStore,
  tables: readonly string[],
  resolver: (
    store: ServerStore,
    loadApp: LoadApp,
    options?: ResolverOptions,
  ) => ReturnType<ServerStore['resolver']>,
): ServerStore {
  const translate = (error: unknown): unknown => {
    const table = missingTable(error, tables);
    return table === null ? error : new MigrationRequiredError(table, { cause: error });
  };
  const guard =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      method(...args).catch((error: unknown) => {
        throw translate(error);
      });
  const guarded: ServerStore = {
    createServer: guard(store.createServer),
    getServerByApp: guard(store.getServerByApp),
    getServerById: guard(store.getServerById),
    getServerByCode: guard(store.getServerByCode),
    updateServer: guard(store.updateServer),
    rotateCode: guard(store.rotateCode),
    deactivateServer: guard(store.deactivateServer),
    deleteServer: guard(store.deleteServer),
    getOrCreateEndUser: guard(store.getOrCreateEndUser),
    resolver: (loadApp, options) => resolver(guarded, loadApp, options),
  };
  return guarded;
}
