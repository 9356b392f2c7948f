/**
 * Thrown by a host's `runApp` to report a failure whose message the client may read (SPEC §4.4).
 * Recognised by its `code` as well, so that one thrown by the other build of the package (ES module
 * or CommonJS) counts too.
 */
export class AppRunError extends Error {
  override name = 'AppRunError';
  readonly code = 'ERR_APP_RUN';
}

/** Whether `error` is an `AppRunError` of any copy of the package. */
export const isAppRunError = (error: unknown): error is AppRunError =>
  error instanceof AppRunError ||
  (error instanceof Error && (error as { code?: unknown }).code === 'ERR_APP_RUN');

/** Thrown at factory time when options are wrong; the message names the option. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/** Thrown by a store when an app already has a server (unique tenant and app). */
export class ServerExistsError extends Error {
  override name = 'ServerExistsError';
  readonly code = 'ERR_SERVER_EXISTS';
  constructor(
    readonly tenantId: string,
    readonly appId: string,
  ) {
    super(`app ${appId} already has an MCP server`);
  }
}

/**
 * Thrown by `knexServerStore` when one of the package's tables does not exist: `migrate(knex)` has
 * not run on this database (or ran with another `tablePrefix`). The driver's error is the `cause`.
 */
export class MigrationRequiredError extends Error {
  override name = 'MigrationRequiredError';
  readonly code = 'ERR_MIGRATION_REQUIRED';
  constructor(
    readonly table: string,
    options?: { cause?: unknown },
  ) {
    super(
      `express-app-mcp: the table ${table} does not exist: run migrate(knex) first, with the same tablePrefix as the store`,
      options,
    );
  }
}
