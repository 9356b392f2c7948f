import { type NextFunction, type Request, type Response, Router } from 'express';
import { McpError } from '../errors/mcp-error.js';
import { isMcpRoutePath, MCP_ROUTE } from '../express/mcp-route.js';
import type { EndpointReply, NowReply, ReplySink } from '../protocol/reply.js';
import { ResolveDeadline } from '../protocol/resolve-deadline.js';
import type { AuthInfo, ResolveOptions, ServerRecord } from '../types/index.js';
import { requestAuthenticator } from './authenticate-request.js';
import {
  BEARER_CHALLENGE,
  BEARER_ROUTE,
  bearerCodeOf,
  missingBearer,
  oauthNeedsPathUrl,
} from './bearer-code.js';
import { BodyTooLarge, parsedByHost, readJsonBody } from './body.js';
import { header, mcpHeaders, watchClose } from './core-request.js';
import { corsForOrigins } from './cors.js';
import { Drainer, type DrainOptions, type DrainResult } from './drain.js';
import type { StreamWatcher } from './event-stream.js';
import { acceptsEventStream, checkAccept, checkContentType, checkHost, checkOrigin } from './guards.js';
import { listensOnLoopback } from './loopback.js';
import { createMcpCore } from './mcp-core.js';
import { type McpServerOptions, parseMcpServerOptions } from './mcp-server-options.js';
import { warnBodyAlreadyParsed } from './parsed-body-warning.js';
import { PROTECTED_RESOURCE_ROUTE, protectedResourceHandler } from './protected-resource-route.js';
import { writeError, writeReply } from './write-reply.js';

export type { McpAuthOptions, McpServerOptions } from './mcp-server-options.js';

/** Where a route reads the server code (`null`: none), and how it lets the caller of an `"oauth"` server in. */
interface McpRouteAccess {
  serverCodeOf: (req: Request) => string | null;
  /** Absent: no `auth` option, and an `"oauth"` server refuses every request. */
  authenticate?: (server: ServerRecord, req: Request) => Promise<AuthInfo>;
}

/** The router `mcpServer()` returns: an Express Router, and `drain()` for a graceful shutdown. */
export interface McpServerRouter extends Router {
  /**
   * Stops taking requests (new ones answer 503) and resolves once those in progress have finished,
   * or at the deadline (`timeoutMs`, default 10 s) with how many are left. Call it on SIGTERM,
   * before closing the HTTP server.
   */
  drain(options?: DrainOptions): Promise<DrainResult>;
}

/**
 * An Express Router (Express 4 and 5) that serves `POST /mcp/server/:serverCode/mcp`, and
 * `POST /mcp/server/mcp` with the code as a bearer token, relative to where it is mounted. The Express layer only handles the body, the transport headers and the
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
export function mcpServer(options: McpServerOptions): McpServerRouter {
  const config = parseMcpServerOptions(options);
  const allowedOrigins = new Set(config.allowedOrigins);
  const allowedHosts = new Set(config.allowedHosts.map((host) => host.toLowerCase()));
  const { core, report, emit } = createMcpCore(config);
  const drainer = new Drainer();
  // Only a stream is written over time; its failure can no longer change the reply, only be told.
  const streams: StreamWatcher = {
    ended: drainer.leave,
    failed: (error) => {
      drainer.leave();
      report(error, { phase: 'dispatch' });
    },
  };
  /**
   * Writes the core's reply. A stream is counted in progress on its own until it ends, and the
   * request's handler returns without waiting for it: a stream stays open as long as its run, and
   * whatever waited for it would be held that long.
   */
  const writeAnswer = (res: Response, reply: EndpointReply): void => {
    if (reply.kind === 'later') {
      // In progress until it is known and written; one small object per call meanwhile.
      drainer.enter();
      reply.reply.deliver(new LaterWrite(res));
      return;
    }
    if (reply.kind === 'stream') {
      drainer.enter();
      // The response's `close` comes once, whether the stream ended or its client went away
      // (already gone: it came before, and the stream is never written).
      if (emit && !res.destroyed) {
        emit({ type: 'stream.opened' });
        res.once('close', () => emit({ type: 'stream.closed' }));
      }
    }
    try {
      writeReply(res, reply, streams);
    } catch (error) {
      writeFailed(res, reply, error);
    }
  };
  /**
   * Writing a reply failed (a body that cannot be serialized): the request answers an internal
   * error with its id, its cause reported; a reply already begun is cut off.
   */
  const writeFailed = (res: Response, reply: NowReply, error: unknown): void => {
    report(error, { phase: 'dispatch' });
    if (reply.kind === 'stream') drainer.leave();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const id = reply.kind === 'json' && !Array.isArray(reply.body) ? reply.body.id : null;
    writeError(res, new McpError('internal', 'Internal error', undefined, id));
  };
  /** Writes a reply known later to its response (`ReplySink`). */
  class LaterWrite implements ReplySink {
    constructor(readonly res: Response) {}

    reply(reply: NowReply): void {
      writeAnswer(this.res, reply);
      drainer.leave();
    }
  }
  const authenticateByToken = config.auth && requestAuthenticator(config.auth, allowedHosts);
  // Without a store that keeps streams, `GET` stays 405 whatever it carries.
  const resumable = config.store?.streams !== undefined;

  // `req.protocol` is worked out only for browsers, the only clients that send an Origin.
  const originError = (req: Request, origin: string) =>
    checkOrigin(origin, `${req.protocol}://${req.headers.host}`, allowedOrigins);
  const cors = corsForOrigins((req, origin) => originError(req as Request, origin) === null);

  /** One request to a route: the transport checks, the server code, the body, then the core; the reply written. */
  async function handleMcpRequest(req: Request, res: Response, route: McpRouteAccess): Promise<void> {
    const { origin } = req.headers;
    const lastEventId = req.method === 'GET' ? header(req, 'last-event-id') : undefined;
    if (lastEventId !== undefined && resumable) return resumeStream(req, res, route, lastEventId);
    if (req.method !== 'POST') {
      // A preflight that the CORS layer did not answer comes from an origin row 2 refuses.
      const refused = req.method === 'OPTIONS' && origin !== undefined ? originError(req, origin) : null;
      if (refused) return writeError(res, refused);
      res.setHeader('Allow', 'POST');
      return writeError(res, new McpError('methodNotAllowed', `Method not allowed: ${req.method}; use POST`));
    }
    const transportError =
      (origin === undefined ? null : originError(req, origin)) ??
      checkHost(req.headers.host, listensOnLoopback(req), allowedHosts) ??
      checkContentType(req.headers['content-type']) ??
      checkAccept(req.headers.accept);
    if (transportError) return writeError(res, transportError);
    const serverCode = route.serverCodeOf(req);
    if (serverCode === null) {
      res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
      return writeError(res, missingBearer());
    }

    if (parsedByHost(req)) warnBodyAlreadyParsed(config.maxBodyBytes);
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

    // Returned rather than awaited, so that this frame is not held until a call that may stream
    // knows whether it does (`heartbeatMs` away).
    return core({
      payload,
      ...lookup(req, res, route, serverCode),
      acceptsEventStream: acceptsEventStream(req.headers.accept),
    }).then((reply) => writeAnswer(res, reply));
  }

  /** `GET` with `Last-Event-ID`: the rest of a stream (docs/http-contract.md, "Resumable streams"). */
  async function resumeStream(
    req: Request,
    res: Response,
    route: McpRouteAccess,
    lastEventId: string,
  ): Promise<void> {
    const { origin } = req.headers;
    const transportError =
      (origin === undefined ? null : originError(req, origin)) ??
      checkHost(req.headers.host, listensOnLoopback(req), allowedHosts);
    if (transportError) return writeError(res, transportError);
    const serverCode = route.serverCodeOf(req);
    if (serverCode === null) {
      res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
      return writeError(res, missingBearer());
    }
    return core({
      payload: undefined,
      ...lookup(req, res, route, serverCode),
      acceptsEventStream: true,
      lastEventId,
    }).then((reply) => writeAnswer(res, reply));
  }

  /** The parts of a core request that look the server up and let its caller in, for a `POST` and a resumption alike. */
  function lookup(req: Request, res: Response, route: McpRouteAccess, serverCode: string) {
    const { authenticate } = route;
    return {
      headers: mcpHeaders(req),
      resolve: (resolveOptions?: ResolveOptions) => config.resolveServer(serverCode, req, resolveOptions),
      ...(authenticate ? { authenticate: (server: ServerRecord) => authenticate(server, req) } : {}),
      onClosed: (listener: () => void) => watchClose(res, listener),
      request: req,
    };
  }

  const serve = (route: McpRouteAccess) => (req: Request, res: Response) => {
    // Express keeps its routing state for the request in `req.next`: closures through every router
    // on the way. The endpoint answers every request itself and never hands one on, and a call
    // that streams would otherwise hold that state as long as its run.
    (req as { next?: unknown }).next = undefined;
    if (drainer.draining) return refuseWhileDraining(res);
    drainer.enter();
    handleMcpRequest(req, res, route).then(drainer.leave, (error: unknown) => {
      drainer.leave();
      // Unreachable by design: the core answers every failure. Never hand over to the host's HTML
      // error page; a reply already begun is cut off, as Express does after its headers went out.
      report(error, { phase: 'dispatch' });
      if (!res.headersSent) writeError(res, new McpError('internal', 'Internal error'));
      else res.destroy();
    });
  };

  const router = Router();
  if (config.auth) {
    const deadline = new ResolveDeadline(config.resolveTimeoutMs);
    const metadata = protectedResourceHandler(
      config.resolveServer,
      config.auth,
      allowedHosts,
      report,
      deadline,
    );
    router.get(PROTECTED_RESOURCE_ROUTE, (req: Request, res: Response, next: NextFunction) => {
      metadata(req, res).catch(next);
    });
  }
  router.all(
    MCP_ROUTE,
    cors,
    serve({
      serverCodeOf: (req) => req.params.serverCode as string,
      ...(authenticateByToken ? { authenticate: authenticateByToken } : {}),
    }),
  );
  // The header route's bearer is the server code, never a user's token: an "oauth" server is refused there.
  router.all(BEARER_ROUTE, cors, serve({ serverCodeOf: bearerCodeOf, authenticate: oauthNeedsPathUrl }));
  // Express decodes `:serverCode` before our handler runs, and a malformed escape (`%ZZ`) fails
  // there; that failure would reach the host's HTML error page, and every reply of the endpoint is a
  // JSON-RPC envelope. Only that failure, on our route's shape, is ours: every other error goes on to the host.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof URIError) || res.headersSent || !isMcpRoutePath(req.path)) return next(error);
    writeError(res, new McpError('serverNotFound', 'MCP server not found'));
  });
  return Object.assign(router, { drain: (options?: DrainOptions) => drainer.drain(options) });
}

/**
 * After `drain()`: 503, and the connection closed, so that a client or a load balancer that keeps
 * connections alive goes to another instance.
 */
function refuseWhileDraining(res: Response): void {
  res.setHeader('Connection', 'close');
  res.setHeader('Retry-After', '1');
  writeError(res, new McpError('shuttingDown', 'Service unavailable: the server is shutting down; retry'));
}
