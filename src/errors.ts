/**
 * Thrown by a host's `runApp` to report a failure whose message the client may read (README,
 * "runApp, mode by mode").
 */
export class AppRunError extends Error {
  override name = 'AppRunError';
}

/**
 * What a `ConfigurationError` is about, stable across releases so code can branch on it:
 * - `invalid_options`: an option is unknown or has the wrong type (the message names it);
 * - `invalid_knex`: what was passed as the Knex instance is not one;
 * - `invalid_url`: `connectMcpServer` was given something that is not an http(s) URL;
 * - `missing_peer_dependency`: `connectMcpServer` needs `@modelcontextprotocol/sdk`, which is not installed.
 */
export type ConfigurationErrorCode =
  | 'invalid_options'
  | 'invalid_knex'
  | 'invalid_url'
  | 'missing_peer_dependency';

/** Thrown at factory time when options are wrong; the message names the option. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
  constructor(
    readonly code: ConfigurationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by a store when an app already has a server (unique tenant and app). */
export class ServerExistsError extends Error {
  override name = 'ServerExistsError';
  constructor(
    readonly tenantId: string,
    readonly appId: string,
  ) {
    super(`app ${appId} already has an MCP server`);
  }
}
