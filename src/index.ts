export { type JwtVerifierOptions, jwtVerifier } from './auth/jwt-verifier.js';
export { type ConnectMcpServerOptions, connectMcpServer } from './client/connect.js';
export { RemoteMcpError, type RemoteMcpErrorKind } from './client/errors.js';
export type {
  CallToolOptions,
  McpServerConnection,
  RemoteProgress,
  RemoteTool,
  RemoteToolResult,
} from './client/types.js';
export { type ConnectToolProviderOptions, connectToolProvider } from './console/providers/connect.js';
export {
  type ConsoleToolProvider,
  type McpToolProviderConsoleOptions,
  mcpToolProviderConsole,
  type ToolProviderConsoleErrorContext,
} from './console/providers/console.js';
export {
  type AuthorizeConsole,
  type ConsoleAccess,
  type ConsoleApp,
  type ConsoleAppInput,
  type ConsoleAuditRecord,
  type ConsoleErrorContext,
  type ConsoleKey,
  type ConsolePageOptions,
  type ConsoleServer,
  type ConsoleToolset,
  type ConsoleToolsetApp,
  type ConsoleUsage,
  type ListApps,
  type McpConsoleOptions,
  mcpConsole,
} from './console/router.js';
export type { DrainOptions, DrainResult } from './endpoint/drain.js';
export type { McpAuthOptions, McpServerOptions, McpServerRouter } from './endpoint/mcp-server.js';
export { mcpServer } from './endpoint/mcp-server.js';
export type { UsageOptions } from './endpoint/mcp-server-options.js';
export {
  AppRunError,
  ConfigurationError,
  type ConfigurationErrorCode,
  HumanInputUnavailable,
  MigrationRequiredError,
  ServerExistsError,
  TooManyWaitingRuns,
} from './errors/package-errors.js';
export { MCP_ROUTE } from './express/mcp-route.js';
export type { AppRun, ResolveServer, RunApp } from './express/types.js';
export type {
  CallEvent,
  CallFinishedEvent,
  CallStartedEvent,
  InputSettledEvent,
  InputWaitingEvent,
  McpEvent,
  McpEventSink,
  StreamClosedEvent,
  StreamOpenedEvent,
  TaskStatus,
  TaskStatusEvent,
} from './observe/events.js';
export type { OnCall } from './observe/on-call.js';
export type { ErrorContext } from './protocol/report.js';
export {
  type CallerKey,
  type IssuedKey,
  type KeyStore,
  type KnexServerStore,
  type KnexServerStoreOptions,
  knexServerStore,
  type MemoryServerStoreOptions,
  type MigrateOptions,
  memoryServerStore,
  migrate,
  type NewKey,
  type NewServer,
  type NewToolset,
  type ResolverOptions,
  type RollbackOptions,
  rollback,
  type ServerChanges,
  type ServerStore,
  type ToolsetChanges,
  type ToolsetMember,
  type ToolsetRecord,
  type ToolsetStore,
} from './store/index.js';
export { EncryptionKeyError } from './store/providers/encryption.js';
export { type KnexToolProviderStoreOptions, knexToolProviderStore } from './store/providers/knex-store.js';
export {
  type NewToolProvider,
  type ToolProvider,
  type ToolProviderChanges,
  ToolProviderExistsError,
  type ToolProviderStore,
} from './store/providers/types.js';
export {
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditCursor,
  type AuditEntry,
  type AuditLog,
  type AuditPage,
  type AuditRecord,
  type CallerColumns,
  type DailyCallQuota,
  type UsageCounts,
  type UsageGroup,
  type UsageStore,
  type UsageSummary,
} from './store/usage/types.js';
export type { CallOutcome } from './tool/observer.js';
export type {
  AppEvent,
  AppFile,
  AppMode,
  AppResult,
  AskAnswer,
  AskField,
  AskOptions,
  AskVariable,
  AuthInfo,
  AuthMode,
  Caller,
  CanUseTool,
  DeclaredOutput,
  EndUser,
  FileInput,
  FileType,
  HostApp,
  InputVariable,
  InputVariableType,
  LoadApp,
  NestedInputVariable,
  ResolvedMember,
  ResolvedServer,
  ResolveOptions,
  ServerKind,
  ServerRecord,
  TaskSupport,
  ToolAnnotations,
  ToolUse,
  VerifyToken,
  VerifyTokenContext,
} from './types/index.js';
export { LATEST_LEGACY_VERSION, SUPPORTED_VERSIONS } from './versions.js';
