/** Thrown by a host's `runApp` to report a failure whose message the client may read (SPEC §4.4). */
export class AppRunError extends Error {
  override name = 'AppRunError';
}

/** Thrown at factory time when options are wrong; the message names the option. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
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
