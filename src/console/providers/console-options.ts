import { z } from 'zod';
import { networkShape, replyLimitsShape } from '../../client/options.js';
import type { ToolProviderStore } from '../../store/providers/types.js';
import { functionOption, methodsOption, parseFactoryOptions } from '../../util/factory-options.js';
import { type AuthorizeConsole, logConsoleFailure, resolveTimeoutOption } from '../console-options.js';

/** What the provider console was doing when an internal failure happened. */
export interface ToolProviderConsoleErrorContext {
  operation: 'authorize' | 'list' | 'get' | 'create' | 'update' | 'delete' | 'refresh' | 'call';
  tenantId?: string;
  providerId?: string;
}

/** Options of `mcpToolProviderConsole()`. Only `store` and `authorize` are required. */
export interface McpToolProviderConsoleOptions {
  /** Where providers live, e.g. `knexToolProviderStore(knex, { encryptionKey })`. */
  store: ToolProviderStore;
  /** Identifies the caller, as for `mcpConsole`: `null` answers 401; reads need any access, the rest `canEdit` (else 403). */
  authorize: AuthorizeConsole;
  /** Receives internal failures (store, `authorize`, a key that does not fit) with their cause. Default: `console.error`, a repeated failure once per 10 s with a count. */
  onError?: (error: unknown, context: ToolProviderConsoleErrorContext) => void;
  /** As for `mcpConsole`: the longest a query of the store may take before a 503; `0`: no limit. Default: 5000. */
  resolveTimeoutMs?: number;
  /** The most bytes a server's reply, or one event of it, may hold, as for `connectMcpServer`. Default `10485760` (10 MiB). */
  maxReplyBytes?: number;
  /** The most tools a server may list, as for `connectMcpServer`: more is a 400 and nothing is stored. Default `1000`. */
  maxTools?: number;
  /**
   * `true`: providers may be on any address. Default `false`: a `server_url` (or a redirect) whose
   * address, once resolved, is loopback, private, link-local or otherwise not public is refused
   * with "could not connect", unless `isAllowedUrl` permits it; the reason goes to `onError`.
   */
  allowPrivateNetworks?: boolean;
  /** Asked about each URL whose address is not public: `true` lets it through (e.g. your own server). Default: none. */
  isAllowedUrl?: (url: URL) => boolean;
}

export const STORE_METHODS = [
  'createProvider',
  'listProviders',
  'getProvider',
  'getProviderByName',
  'updateProvider',
  'deleteProvider',
] as const;

const fn = <T>() => functionOption<T>();

/** The options `mcpToolProviderConsole` accepts (docs/options.md lists them). */
export const OptionsSchema = z.strictObject({
  store: methodsOption<ToolProviderStore>(
    STORE_METHODS,
    'must be a tool provider store such as knexToolProviderStore(knex, { encryptionKey })',
  ),
  authorize: fn<AuthorizeConsole>(),
  onError: fn<(error: unknown, context: ToolProviderConsoleErrorContext) => void>().default(() =>
    logConsoleFailure('tool provider console'),
  ),
  resolveTimeoutMs: resolveTimeoutOption,
  ...replyLimitsShape,
  ...networkShape(false),
});

/** Validates the options once, at factory time (a `ConfigurationError` names a wrong one). */
export function parseToolProviderConsoleOptions(options: McpToolProviderConsoleOptions) {
  return parseFactoryOptions(OptionsSchema, options, 'mcpToolProviderConsole');
}
