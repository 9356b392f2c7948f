export {
  type AuthorizeConsole,
  type ConsoleAccess,
  type ConsoleErrorContext,
  type ConsoleServer,
  type McpConsoleOptions,
  mcpConsole,
} from './console/router.js';
export type { DrainOptions, DrainResult } from './drain.js';
export { AppRunError, ConfigurationError, MigrationRequiredError, ServerExistsError } from './errors.js';
export type { McpServerOptions, McpServerRouter } from './middleware.js';
export { MCP_ROUTE, mcpServer } from './middleware.js';
export type { CallEvent, CallOutcome, OnCall } from './observe/on-call.js';
export type { ErrorContext } from './protocol/context.js';
export { LATEST_LEGACY_VERSION, SUPPORTED_VERSIONS } from './protocol/versions.js';
export {
  type KnexServerStoreOptions,
  knexServerStore,
  type MigrateOptions,
  memoryServerStore,
  migrate,
  type RollbackOptions,
  rollback,
} from './store/index.js';
export type { NewServer, ResolverOptions, ServerChanges, ServerStore } from './store/types.js';
export type {
  AppEvent,
  AppMode,
  AppResult,
  AppRun,
  DeclaredOutput,
  EndUser,
  HostApp,
  InputVariable,
  InputVariableType,
  LoadApp,
  NestedInputVariable,
  ResolvedServer,
  ResolveServer,
  RunApp,
  ServerRecord,
} from './types.js';
