import { type Request, Router } from 'express';
import { ServerExistsError } from '../errors/package-errors.js';
import { safeHook } from '../express/hook.js';
import { formVariables } from '../tool/input-form.js';
import type { HostApp, ServerRecord } from '../types/index.js';
import { type ConsoleApp, toConsoleApp } from './app-list.js';
import { auditEntry, changedFields } from './audit.js';
import { checkParameterKeys, PublishBodySchema, UpdateBodySchema, validateBody } from './bodies.js';
import {
  type ConsoleAccess,
  type ConsoleErrorContext,
  type McpConsoleOptions,
  parseConsoleOptions,
  STORE_METHODS,
} from './console-options.js';
import { type ConsoleCall, type ConsoleReply, consoleEndpoint } from './endpoint.js';
import { ConsoleError } from './errors.js';
import { mountKeyRoutes } from './keys.js';
import { servePage } from './page/route.js';
import { readJsonBody } from './read-body.js';
import { methodNotAllowed } from './reply.js';
import { type ConsoleServer, toConsoleServer } from './server-json.js';
import { storeWithDeadline } from './store-deadline.js';
import { mountToolsets } from './toolsets.js';
import { serveUsageRoutes } from './usage-routes.js';

export type { ConsoleApp, ConsoleAppInput } from './app-list.js';
export type {
  AuthorizeConsole,
  ConsoleAccess,
  ConsoleErrorContext,
  ListApps,
  McpConsoleOptions,
} from './console-options.js';
export type { ConsoleKey } from './key-bodies.js';
export type { ConsolePageOptions } from './page/page-options.js';
export type { ConsoleServer } from './server-json.js';
export type { ConsoleToolset, ConsoleToolsetApp } from './toolset-json.js';
export type { ConsoleAuditRecord, ConsoleUsage } from './usage-routes.js';

type Handler = (call: ConsoleCall<ConsoleErrorContext>) => Promise<ConsoleReply<ConsoleServer | null>>;

/**
 * `app.use('/console/api', mcpConsole({ store, loadApp, authorize }))`: the admin Router (README, "Console API")
 * (Express 4 and 5), mirroring Dify's console endpoints with their known faults fixed: every
 * server is scoped to the caller's tenant and app, publishing answers 201, a second one 409.
 *
 * Use the same store instance as `mcpServer`'s resolver: a rotation or deactivation then takes
 * effect on the MCP endpoint of this process at once.
 *
 * @example
 * ```ts
 * app.use(
 *   '/console/api',
 *   mcpConsole({
 *     store, // the same store as mcpServer's resolver
 *     loadApp: (appId, tenantId) => loadYourApp(appId, tenantId),
 *     // null -> 401; canEdit false -> read only (writes answer 403)
 *     authorize: (req) => (req.user ? { tenantId: req.user.tenantId, canEdit: req.user.isAdmin } : null),
 *   }),
 * );
 * ```
 */
export function mcpConsole(options: McpConsoleOptions): Router {
  const parsed = parseConsoleOptions(options);
  const config = {
    ...parsed,
    store: storeWithDeadline(parsed.store, STORE_METHODS, parsed.resolveTimeoutMs),
  };
  const endpoint = consoleEndpoint<ConsoleErrorContext>({
    factory: 'mcpConsole',
    authorize: config.authorize,
    onError: config.onError,
    forbidden: 'You are not allowed to edit MCP servers',
  });

  const show = (server: ServerRecord): ConsoleServer => {
    const shown = toConsoleServer(server, config.mcpPath);
    if (typeof shown.url !== 'string' && shown.server_code !== null)
      throw new TypeError('mcpConsole: mcpPath must return a string');
    return shown;
  };

  /** Every endpoint asks the host for the app first: one it does not know (any more) is 404, even to unpublish. */
  async function loadApp(appId: string, access: ConsoleAccess): Promise<HostApp> {
    const app = await config.loadApp(appId, access.tenantId);
    if (!app) throw new ConsoleError('not_found', 'app not found');
    return app;
  }

  const listApps = async ({
    access,
  }: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleApp[]>> => {
    const apps = (await config.listApps?.(access.tenantId)) ?? [];
    const listed: ConsoleApp[] = [];
    for (const app of apps) {
      const server = await config.store.getServerByApp(access.tenantId, app.id);
      listed.push(toConsoleApp(app, server && show(server)));
    }
    return { status: 200, body: listed };
  };

  const getServer: Handler = async ({ req, access, context }) => {
    const appId = param(req, 'appId');
    context.appId = appId;
    await loadApp(appId, access);
    const server = await config.store.getServerByApp(access.tenantId, appId);
    return { status: 200, body: server && show(server) };
  };

  const publish: Handler = async ({ req, res, access, context }) => {
    const appId = param(req, 'appId');
    context.appId = appId;
    const body = validateBody(PublishBodySchema, await readJsonBody(req, res));
    const app = await loadApp(appId, access);
    checkParameterKeys(body.parameters, formVariables(app));
    try {
      const input = {
        tenantId: access.tenantId,
        appId,
        // A server is named after its app, as in Dify.
        name: app.name,
        description: body.description || (app.description ?? ''),
        parameters: body.parameters,
        ...(body.annotations && { annotations: body.annotations }),
        authMode: body.auth_mode ?? 'code',
        taskSupport: body.task_support ?? 'optional',
      } as const;
      const audit = auditEntry(access, 'server.publish', {
        app_id: appId,
        name: input.name,
        description: input.description,
        parameters: input.parameters,
        annotations: input.annotations ?? {},
        auth_mode: input.authMode,
        task_support: input.taskSupport,
      });
      const server = await config.store.createServer(input, audit);
      return { status: 201, body: show(server) };
    } catch (error) {
      if (error instanceof ServerExistsError) {
        throw new ConsoleError('server_exists', 'This app already has an MCP server');
      }
      throw error;
    }
  };

  const update: Handler = async ({ req, res, access, context }) => {
    const appId = param(req, 'appId');
    context.appId = appId;
    const body = validateBody(UpdateBodySchema, await readJsonBody(req, res));
    const app = await loadApp(appId, access);
    context.serverId = body.id;
    const current = await config.store.getServerById(body.id);
    // Dify's fault: it edited any server by id. Another tenant's or another app's server is "not found".
    if (!current || current.tenantId !== access.tenantId || current.appId !== appId) throw serverNotFound();
    checkParameterKeys(body.parameters, formVariables(app), current.parameters);
    const changes = {
      parameters: body.parameters,
      // null or absent keeps the description, "" resets it to the app's.
      ...(body.description === null || body.description === undefined
        ? {}
        : { description: body.description || (app.description ?? '') }),
      ...(body.status ? { status: body.status } : {}),
      ...(body.annotations && { annotations: body.annotations }),
      ...(body.auth_mode ? { authMode: body.auth_mode } : {}),
      ...(body.task_support ? { taskSupport: body.task_support } : {}),
    };
    const audit = auditEntry(
      access,
      'server.update',
      { app_id: appId, changed: changedFields(serverFields(current), serverFields(changes)) },
      current.id,
    );
    const updated = await config.store.updateServer(current.id, changes, audit);
    if (!updated) throw serverNotFound();
    return { status: 200, body: show(updated) };
  };

  const refresh: Handler = async ({ req, access, context }) => {
    const serverId = param(req, 'serverId');
    context.serverId = serverId;
    const current = await config.store.getServerById(serverId);
    if (!current || current.tenantId !== access.tenantId) throw serverNotFound();
    context.appId = current.appId;
    await loadApp(current.appId, access);
    const audit = auditEntry(access, 'server.rotate', { app_id: current.appId }, current.id);
    const rotated = await config.store.rotateCode(current.id, audit);
    if (!rotated) throw serverNotFound();
    return { status: 200, body: show(rotated) };
  };

  const unpublish: Handler = async ({ req, access, context }) => {
    const appId = param(req, 'appId');
    context.appId = appId;
    await loadApp(appId, access);
    const server = await config.store.getServerByApp(access.tenantId, appId);
    if (!server) throw serverNotFound();
    context.serverId = server.id;
    const audit = auditEntry(access, 'server.unpublish', { app_id: appId, name: server.name }, server.id);
    if (!(await config.store.deleteServer(server.id, audit))) throw serverNotFound();
    return { status: 204 };
  };

  const router = Router();
  if (config.listApps) {
    router
      .route('/apps')
      .get(endpoint('list', 'read', listApps))
      .all(methodNotAllowed('GET'));
  }
  if (config.page) {
    const report = safeHook(config.onError);
    servePage(router, config.page, (error) => report(error, { operation: 'page' }));
  }
  router
    .route('/apps/:appId/server')
    .get(endpoint('get', 'read', getServer))
    .post(endpoint('publish', 'edit', publish))
    .put(endpoint('update', 'edit', update))
    .delete(endpoint('unpublish', 'edit', unpublish))
    .all(methodNotAllowed('GET, POST, PUT, DELETE'));
  mountToolsets(router, endpoint, config);
  const refreshMethods = config.allowGetRefresh ? 'GET, POST' : 'POST';
  const refreshRoute = router
    .route('/apps/:serverId/server/refresh')
    // Express answers HEAD with the GET handler; a link checker's HEAD must not rotate a code.
    .head(methodNotAllowed(refreshMethods));
  // GET rotates only when the host opts in (Dify's UI calls it that way); it still needs `canEdit`.
  if (config.allowGetRefresh) refreshRoute.get(endpoint('refresh', 'edit', refresh));
  else refreshRoute.get(methodNotAllowed(refreshMethods, GET_REFRESH_HINT));
  refreshRoute.post(endpoint('refresh', 'edit', refresh)).all(methodNotAllowed(refreshMethods));
  serveUsageRoutes(router, endpoint, parsed.store, config.resolveTimeoutMs);
  mountKeyRoutes(router, config.store, endpoint);
  return router;
}

/** A server's editable fields under the console's names, for what an edit changed. */
const serverFields = (server: Partial<ServerRecord>): Record<string, unknown> => ({
  description: server.description,
  parameters: server.parameters,
  status: server.status,
  annotations: server.annotations,
  auth_mode: server.authMode,
  task_support: server.taskSupport,
});

const param = (req: Request, name: string): string => req.params[name] as string;

const serverNotFound = () => new ConsoleError('not_found', 'MCP server not found');

/** What a console that rotates codes with GET, as Dify's UI does, needs to be told. */
const GET_REFRESH_HINT =
  "rotating a code takes POST; to allow GET, as Dify's UI sends it, create mcpConsole with allowGetRefresh: true";
