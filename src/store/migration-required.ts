import { MigrationRequiredError } from '../errors/package-errors.js';
import type { LoadApp } from '../types/index.js';
import { resolverFactory } from './resolver.js';
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
 * The same methods, each turning a missing-table error about one of `tables` into a
 * `MigrationRequiredError`.
 */
// biome-ignore lint/suspicious/noExplicitAny: any method shape, checked by the caller's type.
export function guardMissingTables<T extends Record<keyof T, (...args: any[]) => Promise<unknown>>>(
  methods: T,
  tables: readonly string[],
): T {
  const translate = (error: unknown): unknown => {
    const table = missingTable(error, tables);
    return table === null ? error : new MigrationRequiredError(table, { cause: error });
  };
  const guarded = {} as T;
  for (const name of Object.keys(methods) as (keyof T)[]) {
    const method = methods[name];
    guarded[name] = ((...args: unknown[]) =>
      method(...args).catch((error: unknown) => {
        throw translate(error);
      })) as T[keyof T];
  }
  return guarded;
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
  const methods = {
    createServer: store.createServer,
    getServerByApp: store.getServerByApp,
    getServerById: store.getServerById,
    getServerByCode: store.getServerByCode,
    updateServer: store.updateServer,
    rotateCode: store.rotateCode,
    deactivateServer: store.deactivateServer,
    deleteServer: store.deleteServer,
    getOrCreateEndUser: store.getOrCreateEndUser,
  };
  const guarded: ServerStore = {
    ...guardMissingTables(methods, tables),
    ...(store.keys ? { keys: store.keys } : {}),
    resolver: resolverFactory((loadApp, options) => resolver(guarded, loadApp, options)),
  };
  return guarded;
}
