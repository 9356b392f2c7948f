import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { ServerExistsError } from '../errors.js';
import { safeHook } from '../express/hook.js';
import { writeEmpty, writeJson } from '../express/write.js';
import type { HostApp, ServerRecord } from '../types.js';
import { PublishBodySchema, UpdateBodySchema, validateBody } from './bodies.js';
import {
  type ConsoleAccess,
  ConsoleAccessSchema,
  type ConsoleErrorContext,
  type McpConsoleOptions,
  parseConsoleOptions,
} from './console-options.js';
import { ConsoleError, consoleErrorBody } from './errors.js';
import { type ConsoleServer, toConsoleServer } from './server-json.js';

export type {
  AuthorizeConsole,
  ConsoleAccess,
  ConsoleErrorContext,
  McpConsoleOptions,
} from './console-options.js';
export type { ConsoleServer } from './server-json.js';

/** What a console handler answers: a status and, unless 204, a JSON body (`null` is a body). */
interface Reply {
  status: number;
  body?: ConsoleServer | null;
}

/** One authorised console request, as a handler sees it. */
interface Call {
  req: Request;
  res: Response;
  access: ConsoleAccess;
  context: ConsoleErrorContext;
}

type Handler = (call: Call) => Promise<Reply>;

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
  const config = parseConsoleOptions(options);
  // The console parses its own JSON bodies, scoped to its write routes; hosts with a global
  // `express.json()` keep theirs (the body is then already parsed and this one steps aside).
  const jsonParser = express.json();

  const report = safeHook(config.onError);

  const show = (server: ServerRecord): ConsoleServer => {
    const shown = toConsoleServer(server, config.mcpPath);
    if (typeof shown.url !== 'string') throw new TypeError('mcpConsole: mcpPath must return a string');
    return shown;
  };

  async function authorizeCall(req: Request, context: ConsoleErrorContext): Promise<ConsoleAccess> {
    let granted: unknown;
    try {
      granted = await config.authorize(req);
    } catch (error) {
      report(error, { ...context, operation: 'authorize' });
      throw new ConsoleError('internal', 'Internal error');
    }
    // No `WWW-Authenticate`: the scheme is the host's, and the console does not know it.
    if (granted === null || granted === undefined) {
      throw new ConsoleError('unauthorized', 'Authentication required');
    }
    const access = ConsoleAccessSchema.safeParse(granted);
    if (!access.success) {
      // A malformed answer must never widen access (an undefined tenant would be one shared tenant).
      const misuse = new TypeError(
        'mcpConsole: authorize must return { tenantId: string, canEdit: boolean } or null',
      );
      report(misuse, { ...context, operation: 'authorize' });
      throw new ConsoleError('internal', 'Internal error');
    }
    return access.data;
  }

  async function readBody(req: Request, res: Response): Promise<unknown> {
    // An empty body (`Content-Length: 0`, often without a type) is no body: the fields are then missing.
    const empty =
      req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
    if (!empty && !req.is('application/json')) {
      throw new ConsoleError('unsupported_media_type', 'Content-Type must be application/json');
    }
    await new Promise<void>((resolve, reject) => {
      jsonParser(req, res, (error?: unknown) => (error ? reject(bodyError(error)) : resolve()));
    });
    return req.body;
  }

  /** Every endpoint asks the host for the app first: one it does not know (any more) is 404, even to unpublish. */
  async function loadApp(appId: string, access: ConsoleAccess): Promise<HostApp> {
    const app = await config.loadApp(appId, access.tenantId);
    if (!app) throw new ConsoleError('not_found', 'app not found');
    return app;
  }

  /** Runs a handler behind the authorization checks, turning every outcome into a JSON reply. */
  const endpoint =
    (operation: ConsoleErrorContext['operation'], need: 'read' | 'edit', handler: Handler) =>
    (req: Request, res: Response, next: NextFunction) => {
      const context: ConsoleErrorContext = { operation };
      const run = async (): Promise<Reply> => {
        const access = await authorizeCall(req, context);
        // Checked before anything is looked up, so a refusal never tells whether the app exists.
        if (need === 'edit' && !access.canEdit) {
          throw new ConsoleError('forbidden', 'You are not allowed to edit MCP servers');
        }
        context.tenantId = access.tenantId;
        return handler({ req, res, access, context });
      };
      run()
        .then((reply) => write(res, reply.status, reply.body))
        .catch((error: unknown) => {
          if (res.headersSent) return next(error);
          if (error instanceof ConsoleError) return write(res, error.status, consoleErrorBody(error));
          report(error, context);
          write(res, 500, consoleErrorBody(new ConsoleError('internal', 'Internal error')));
        });
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
    const body = validateBody(PublishBodySchema, await readBody(req, res));
    const app = await loadApp(appId, access);
    try {
      const server = await config.store.createServer({
        tenantId: access.tenantId,
        appId,
        // A server is named after its app, as in Dify.
        name: app.name,
        description: body.description || (app.description ?? ''),
        parameters: body.parameters,
      });
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
    const body = validateBody(UpdateBodySchema, await readBody(req, res));
    const app = await loadApp(appId, access);
    context.serverId = body.id;
    const current = await config.store.getServerById(body.id);
    // Dify's fault: it edited any server by id. Another tenant's or another app's server is "not found".
    if (!current || current.tenantId !== access.tenantId || current.appId !== appId) throw serverNotFound();
    const updated = await config.store.updateServer(current.id, {
      parameters: body.parameters,
      // null or absent keeps the description, "" resets it to the app's.
      ...(body.description === null || body.description === undefined
        ? {}
        : { description: body.description || (app.description ?? '') }),
      ...(body.status ? { status: body.status } : {}),
    });
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
    const rotated = await config.store.rotateCode(current.id);
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
    if (!(await config.store.deleteServer(server.id))) throw serverNotFound();
    return { status: 204 };
  };

  const router = Router();
  router
    .route('/apps/:appId/server')
    .get(endpoint('get', 'read', getServer))
    .post(endpoint('publish', 'edit', publish))
    .put(endpoint('update', 'edit', update))
    .delete(endpoint('unpublish', 'edit', unpublish))
    .all(methodNotAllowed('GET, POST, PUT, DELETE'));
  const refreshMethods = config.allowGetRefresh ? 'GET, POST' : 'POST';
  const refreshRoute = router
    .route('/apps/:serverId/server/refresh')
    // Express answers HEAD with the GET handler; a link checker's HEAD must not rotate a code.
    .head(methodNotAllowed(refreshMethods));
  // GET rotates only when the host opts in (Dify's UI calls it that way); it still needs `canEdit`.
  if (config.allowGetRefresh) refreshRoute.get(endpoint('refresh', 'edit', refresh));
  refreshRoute.post(endpoint('refresh', 'edit', refresh)).all(methodNotAllowed(refreshMethods));
  return router;
}

const param = (req: Request, name: string): string => req.params[name] as string;

const serverNotFound = () => new ConsoleError('not_found', 'MCP server not found');

/** Maps body-parser's failures to console errors, with our own texts (its messages quote the body). */
function bodyError(error: unknown): unknown {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ConsoleError('invalid_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new ConsoleError('payload_too_large', 'The request body is too large');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ConsoleError('unsupported_media_type', 'Unsupported request body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ConsoleError('invalid_request', 'The request body could not be read');
    default:
      return error;
  }
}

/** OPTIONS is left to the host (CORS middleware, Express's automatic answer). */
function methodNotAllowed(allow: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') return next();
    res.setHeader('Allow', allow);
    write(
      res,
      405,
      consoleErrorBody(new ConsoleError('method_not_allowed', `Method not allowed: ${req.method}`)),
    );
  };
}

function write(res: Response, status: number, body: unknown): void {
  // Replies carry server codes, which are secrets: no cache may keep them.
  res.setHeader('Cache-Control', 'no-store');
  if (body === undefined) writeEmpty(res, status);
  else writeJson(res, status, body, { contentType: 'application/json; charset=utf-8' });
}
