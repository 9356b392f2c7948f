/**
 * Thrown by a host's `runApp` to report a failure whose message the client may read (README,
 * "runApp, mode by mode"). Recognised by its `code` as well, so that one thrown by the other build
 * of the package (ES module or CommonJS) counts too.
 */
export class AppRunError extends Error {
  override name = 'AppRunError';
  readonly code = 'app_run_error';
}

/** Whether `error` is an `AppRunError` of any copy of the package. */
export const isAppRunError = (error: unknown): error is AppRunError =>
  error instanceof AppRunError ||
  (error instanceof Error && (error as { code?: unknown }).code === 'app_run_error');

/**
 * What a `ConfigurationError` is about, stable across releases so code can branch on it:
 * - `invalid_options`: an option is unknown or has the wrong type (the message names it);
 * - `invalid_knex`: what was passed as the Knex instance is not one;
 * - `invalid_url`: `connectMcpServer` was given something that is not an http(s) URL;
 * - `invalid_fields`: `run.ask` was given a field a person cannot fill in a client's form (the
 *   message names it);
 * - `missing_peer_dependency`: an optional peer dependency that a factory needs is not installed;
 *   the message names it and says what to install: `connectMcpServer` needs
 *   `@modelcontextprotocol/sdk` for the 2025 era and `@modelcontextprotocol/client` for the
 *   2026-07-28 era, `jwtVerifier` needs `jose`, `mcpServer`'s `rateLimit` needs
 *   `rate-limiter-flexible`.
 *
 * Every message starts with the name of the factory that threw it (`mcpServer: …`).
 */
export type ConfigurationErrorCode =
  | 'invalid_options'
  | 'invalid_knex'
  | 'invalid_url'
  | 'invalid_fields'
  | 'missing_peer_dependency';

/** Thrown at factory time when options are wrong; the message names the factory and the option. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
  constructor(
    readonly code: ConfigurationErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Thrown by a store when an app already has a server (unique tenant and app). */
export class ServerExistsError extends Error {
  override name = 'ServerExistsError';
  readonly code = 'server_exists';
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
  readonly code = 'migration_required';
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

/**
 * `run.ask` was called on a call whose client cannot reach a person (it did not declare
 * elicitation). Left uncaught, the call answers an `isError` result that says so.
 */
export class HumanInputUnavailable extends Error {
  override name = 'HumanInputUnavailable';
  readonly code = 'human_input_unavailable';
  constructor(
    message = "the app needs a person's answer, and this client cannot ask one (it did not declare the elicitation capability)",
  ) {
    super(message);
  }
}

/**
 * `run.ask` was called while `maxWaitingRuns` runs of this instance already wait for a person
 * (docs/asking-a-person.md, "Limits"). A `HumanInputUnavailable`: left uncaught, the call answers
 * an `isError` result that says so; the runs that wait go on.
 */
export class TooManyWaitingRuns extends HumanInputUnavailable {
  override name = 'TooManyWaitingRuns';
  constructor(readonly limit: number) {
    super(
      `the app needs a person's answer, and ${limit} runs already wait for one on this instance ` +
        '(the maxWaitingRuns limit): try again later',
    );
  }
}

/** Whether `error` is a `HumanInputUnavailable` of any copy of the package. */
export const isHumanInputUnavailable = (error: unknown): error is HumanInputUnavailable =>
  error instanceof HumanInputUnavailable ||
  (error instanceof Error && (error as { code?: unknown }).code === 'human_input_unavailable');
