import type { Request } from 'express';
import { z } from 'zod';
import { mcpPath } from '../express/mcp-route.js';
import type { ServerStore } from '../store/types.js';
import type { HostApp, LoadApp } from '../types/index.js';
import { functionOption, methodsOption, parseFactoryOptions } from '../util/factory-options.js';
import { ThrottledLog } from '../util/throttled-log.js';
import { type ConsolePageOptions, PageOption } from './page/page-options.js';

/** Who is calling the console, as the host's `authorize` sees it. */
export interface ConsoleAccess {
  /** Every server read or written is scoped to this tenant. */
  tenantId: string;
  /** `false`: read only; publishing, editing, rotating and unpublishing answer 403. */
  canEdit: boolean;
  /** Who is calling, as the audit log names them (an email, a user id). Default: none (`null` in the log). */
  actor?: string | null;
}

/** The host's check of a console request: `null` when the caller is not signed in (401). */
export type AuthorizeConsole = (req: Request) => Promise<ConsoleAccess | null> | ConsoleAccess | null;

/** What the console was doing when an internal failure happened; never a server code. */
export interface ConsoleErrorContext {
  operation:
    | 'authorize'
    | 'list'
    | 'get'
    | 'publish'
    | 'update'
    | 'refresh'
    | 'unpublish'
    | 'page'
    | 'usage'
    | 'audit'
    | 'list-keys'
    | 'create-key'
    | 'rotate-key'
    | 'revoke-key'
    | ToolsetOperation;
  tenantId?: string;
  appId?: string;
  serverId?: string;
}

/** How many apps a toolset may list when `maxToolsetApps` is not given. */
export const DEFAULT_MAX_TOOLSET_APPS = 100;

/** The toolset routes, as the error hook names them (docs/toolsets.md). */
export type ToolsetOperation =
  | 'list-toolsets'
  | 'create-toolset'
  | 'get-toolset'
  | 'update-toolset'
  | 'rotate-toolset'
  | 'delete-toolset';

/** The host's apps in a tenant, in the order the console lists them. */
export type ListApps = (tenantId: string) => Promise<HostApp[]> | HostApp[];

/** Options of `mcpConsole()`. Only `store`, `loadApp` and `authorize` are required. */
export interface McpConsoleOptions {
  /** Where servers live; use the same instance as `mcpServer`'s resolver, so edits take effect at once. */
  store: ServerStore;
  /** Loads one of the host's apps within a tenant; `null` answers 404. */
  loadApp: LoadApp;
  /** Identifies the caller: `null` answers 401; reads need any access, writes need `canEdit` (else 403). */
  authorize: AuthorizeConsole;
  /**
   * The host's apps in a tenant: with it, `GET /apps` lists them, each with its server (or `null`).
   * Required with `page`. Default: none (no `GET /apps`).
   */
  listApps?: ListApps;
  /**
   * Also serve a page for people at the console's root (docs/console.md, "The console page"):
   * `true`, or its settings. The JSON API is unchanged. Default: `false`.
   */
  page?: boolean | ConsolePageOptions;
  /** The most apps one toolset may list (`POST`/`PUT /toolsets`, docs/toolsets.md); more answers 400. Default: 100. */
  maxToolsetApps?: number;
  /**
   * The MCP endpoint path of a server code, shown as the server's `url`; set it when `mcpServer` is
   * mounted under a prefix. Default: `(code) => '/mcp/server/' + code + '/mcp'`.
   */
  mcpPath?: (serverCode: string) => string;
  /**
   * Also rotate a code on `GET /apps/:serverId/server/refresh`, as Dify's UI does. A state change
   * on GET is a CSRF hole when `authorize` reads a cookie: turn it on only when it authenticates
   * with a header. Default: `false` (only POST rotates).
   */
  allowGetRefresh?: boolean;
  /** Receives internal failures (store, `loadApp`, `authorize`) with their cause; clients get a plain 500. Default: `console.error`, a repeated failure once per 10 s with a count. */
  onError?: (error: unknown, context: ConsoleErrorContext) => void;
  /**
   * The longest a query of the store may take, in ms, before the request answers 503 with
   * `Retry-After`, as a database out of reach does; `0` disables the limit. Default: 5000.
   */
  resolveTimeoutMs?: number;
}

const fn = <T>() => functionOption<T>();

/** `resolveTimeoutMs` of the consoles; setTimeout cannot wait longer than 2^31-1 ms. */
export const resolveTimeoutOption = z.int().nonnegative().max(2_147_483_647).default(5000);

export const STORE_METHODS = [
  'createServer',
  'getServerByApp',
  'getServerById',
  'updateServer',
  'rotateCode',
  'deleteServer',
] as const;

/**
 * The error hook a console uses when the host gives none: `console.error`, with a repeated failure
 * logged once per interval (each console has its own log).
 */
export function logConsoleFailure(
  consoleName: string,
): (error: unknown, context: { operation: string }) => void {
  const log = new ThrottledLog();
  return (error, context) =>
    log.log(`express-app-mcp ${consoleName}: internal failure during ${context.operation}`, error);
}

/** The options `mcpConsole` accepts (docs/options.md lists them). */
export const ConsoleOptionsSchema = z
  .strictObject({
    store: methodsOption<ServerStore>(STORE_METHODS, 'must be a server store such as knexServerStore(knex)'),
    loadApp: fn<LoadApp>(),
    authorize: fn<AuthorizeConsole>(),
    listApps: fn<ListApps>().optional(),
    page: PageOption,
    mcpPath: fn<(serverCode: string) => string>().default(() => mcpPath),
    allowGetRefresh: z.boolean().default(false),
    maxToolsetApps: z.int().positive().max(10_000).default(DEFAULT_MAX_TOOLSET_APPS),
    onError: fn<(error: unknown, context: ConsoleErrorContext) => void>().default(() =>
      logConsoleFailure('console'),
    ),
    resolveTimeoutMs: resolveTimeoutOption,
  })
  // The page lists the apps: without listApps it would have nothing to show.
  .refine((options) => !options.page || options.listApps, {
    path: ['listApps'],
    error: 'is required with page: the page lists the apps through it',
  });

export type ParsedConsoleOptions = z.output<typeof ConsoleOptionsSchema>;

/**
 * Validates the options once, at factory time: an unknown or ill-typed option is a
 * `ConfigurationError` naming it; the caller's object is left untouched.
 */
export function parseConsoleOptions(options: McpConsoleOptions): ParsedConsoleOptions {
  return parseFactoryOptions(ConsoleOptionsSchema, options, 'mcpConsole');
}

/** What a host's `authorize` must return; extra fields (a user record, roles) are allowed and ignored. */
export const ConsoleAccessSchema = z.object({
  tenantId: z.string().min(1),
  canEdit: z.boolean(),
  actor: z.string().nullish(),
});
