import { type NextFunction, type Request, type Response, Router } from 'express';
import { safeHook } from '../express/hook.js';
import { createRateCheck } from '../farm/rate-limit.js';
import { isMcpRoutePath, MCP_ROUTE } from '../mcp-route.js';
import { McpError } from '../protocol/errors.js';
import { createProtocolCore } from '../protocol/router.js';
import { BodyTooLarge, readJsonBody } from './body.js';
import { mcpHeaders, watchClose } from './core-request.js';
import { checkAccept, checkContentType, checkHost, checkOrigin } from './guards.js';
import { listensOnLoopback } from './loopback.js';
import { type McpServerOptions, parseMcpServerOptions } from './mcp-server-options.js';
import { writeError, writeReply } from './write-reply.js';

export type { McpServerOptions } from './mcp-server-options.js';

/**
 * An Express Router (Express 4 and 5) that serves `POST /mcp/server/:serverCode/mcp`, relative to
 * where it is mounted. The Express layer only handles the body, the transport headers and the
 * status; the protocol lives in a framework-free core. Every reply is a JSON-RPC envelope or a 202
 * (see `docs/http-contract.md`).
 *
 * @example
 * ```ts
 * import express from 'express';
 * import knex from 'knex';
 * import { knexServerStore, mcpServer, migrate } from 'express-app-mcp';
 *
 * const db = knex({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true });
 * await migrate(db);
 * const store = knexServerStore(db);
 *
 * const app = express();
 * app.use(
 *   mcpServer({
 *     resolveServer: store.resolver((appId, tenantId) => loadYourApp(appId, tenantId)),
 *     runApp: async ({ app, inputs, query, signal }) => ({ answer: await yourEngine.run(app.id, { inputs, query, signal }) }),
 *   }),
 * );
 * app.listen(3000, '127.0.0.1');
 * ```
 */
export function mcpServer(options: McpServerOptions): Router {
  const config = parseMcpServerOptions(options);
  const allowedOrigins = new Set(config.allowedOrigins.map((origin) => origin.toLowerCase()));
  const allowedHosts = new Set(config.allowedHosts.map((host) => host.toLowerCase()));
  const report = safeHook(config.onError);
  const core = createProtocolCore<Request>({
    runApp: config.runApp,
    serverInfo: config.serverInfo,
    toolName: config.toolName,
    callTimeoutMs: config.callTimeoutMs,
    report,
    resolveTimeoutMs: config.resolveTimeoutMs,
    rateCheck:
      config.rateLimit &&
      createRateCheck(config.rateLimit, config.store?.farm, (error) => report(error, { phase: 'dispatch' })),
    farm: config.store?.farm,
  });

  /** One request to the route: the transport checks, the body, then the core; the reply written. */
  async function handleMcpRequest(req: Request, res: Response): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return writeError(res, new McpError('methodNotAllowed', `Method not allowed: ${req.method}; use POST`));
    }
    const { origin } = req.headers;
    const transportError =
      // `req.protocol` is worked out only for browsers, the only clients that send an Origin.
      (origin === undefined
        ? null
        : checkOrigin(origin, `${req.protocol}://${req.headers.host}`, allowedOrigins)) ??
      checkHost(req.headers.host, listensOnLoopback(req), allowedHosts) ??
      checkContentType(req.headers['content-type']) ??
      checkAccept(req.headers.accept);
    if (transportError) return writeError(res, transportError);

    let payload: unknown;
    try {
      payload = await readJsonBody(req, config.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) res.setHeader('Connection', 'close');
      if (error instanceof McpError) return writeError(res, error);
      if (req.destroyed) return; // the client went away mid-body: nothing failed here, nobody to answer
      report(error, { phase: 'dispatch' });
      return writeError(res, new McpError('internal', 'Internal error'));
    }

    const serverCode = req.params.serverCode as string;
    const reply = await core({
      payload,
      headers: mcpHeaders(req),
      resolve: (resolveOptions) => config.resolveServer(serverCode, req, resolveOptions),
      onClosed: (listener) => watchClose(res, listener),
      request: req,
    });
    // Only a stream is written over time; its failure can no longer change the reply, only be told.
    const streaming = writeReply(res, reply);
    if (streaming) await streaming.catch((error: unknown) => report(error, { phase: 'dispatch' }));
  }

  const router = Router();
  router.all(MCP_ROUTE, (req: Request, res: Response, next: NextFunction) => {
    handleMcpRequest(req, res).catch((error) => {
      // Unreachable by design: the core answers every failure. Never hand over to the host's HTML error page.
      report(error, { phase: 'dispatch' });
      if (!res.headersSent) writeError(res, new McpError('internal', 'Internal error'));
      else next(error);
    });
  });
  // Express decodes `:serverCode` before our handler runs, and a malformed escape (`%ZZ`) fails
  // there; that failure would reach the host's HTML error page, and every reply of the endpoint is a
  // JSON-RPC envelope. Only that failure, on our route's shape, is ours: every other error goes on to the host.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof URIError) || res.headersSent || !isMcpRoutePath(req.path)) return next(error);
    writeError(res, new McpError('serverNotFound', 'MCP server not found'));
  });
  return router;
}
