import type { Server } from 'node:net';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { Drainer, type DrainOptions, type DrainResult } from './drain.js';
import { BodyTooLarge, parsedByHost, readJsonBody } from './http/body.js';
import { checkAccept, checkContentType, checkHost, checkOrigin, isLoopbackAddress } from './http/guards.js';
import { warnBodyAlreadyParsed } from './http/parsed-body-warning.js';
import { type McpServerOptions, parseOptions } from './options.js';
import type { ErrorContext, McpHeaders } from './protocol/context.js';
import { createEndpoint } from './protocol/endpoint.js';
import { errorBody, McpError } from './protocol/errors.js';

export type { McpServerOptions } from './options.js';

/** The route, relative to where the host mounts the router (SPEC §1). */
export const MCP_ROUTE = '/mcp/server/:serverCode/mcp';
/** `MCP_ROUTE` as Express matches it (case-insensitive, optional trailing slash), without decoding the code. */
const MCP_ROUTE_SHAPE = /^\/mcp\/server\/[^/]+\/mcp\/?$/i;

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
 * `app.use(mcpServer({ resolveServer, runApp }))`: an Express Router (Express 4 and 5) that
 * serves `POST /mcp/server/:serverCode/mcp`. The Express layer only handles the body, the headers
 * and the status; the protocol lives in a framework-free core.
 */
export function mcpServer(options: McpServerOptions): McpServerRouter {
  const config = parseOptions(options);
  const allowedOrigins = new Set(config.allowedOrigins.map((origin) => origin.toLowerCase()));
  const allowedHosts = new Set(config.allowedHosts.map((host) => host.toLowerCase()));
  const report = (error: unknown, context: ErrorContext) => {
    try {
      config.onError(error, context);
    } catch {
      // A failing hook must not turn into a second failure of the request.
    }
  };
  const endpoint = createEndpoint({
    runApp: config.runApp,
    serverInfo: config.serverInfo,
    toolName: config.toolName,
    callTimeoutMs: config.callTimeoutMs,
    report,
    onCall: config.onCall,
  });

  const handle = async (req: Request, res: Response) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return send(res, new McpError('methodNotAllowed', `Method not allowed: ${req.method}; use POST`));
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
    if (transportError) return send(res, transportError);

    if (parsedByHost(req)) warnBodyAlreadyParsed(config.maxBodyBytes);
    let payload: unknown;
    try {
      payload = await readJsonBody(req, config.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) res.setHeader('Connection', 'close');
      if (error instanceof McpError) return send(res, error);
      if (req.destroyed) return; // the client went away mid-body: nothing failed here, nobody to answer
      report(error, { phase: 'dispatch' });
      return send(res, new McpError('internal', 'Internal error'));
    }

    const serverCode = req.params.serverCode as string;
    const reply = await endpoint({
      payload,
      headers: mcpHeaders(req),
      resolve: () => config.resolveServer(serverCode, req),
      onClosed: (listener) => watchClose(res, listener),
      request: req,
    });
    write(res, reply.status, reply.body, reply.json);
  };

  const drainer = new Drainer();
  const router = Router();
  router.all(MCP_ROUTE, (req: Request, res: Response, next: NextFunction) => {
    if (drainer.draining) return refuseWhileDraining(res);
    drainer.track(handle(req, res)).catch((error) => {
      // Unreachable by design: the core answers every failure. Never hand over to the host's HTML error page.
      report(error, { phase: 'dispatch' });
      if (!res.headersSent) send(res, new McpError('internal', 'Internal error'));
      else next(error);
    });
  });
  // Express decodes `:serverCode` before our handler runs, and a malformed escape (`%ZZ`) fails
  // there; that failure would reach the host's HTML error page (SPEC §2: every reply is a JSON-RPC
  // envelope). Only that failure, on our route's shape, is ours: every other error goes on to the host.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof URIError) || res.headersSent || !MCP_ROUTE_SHAPE.test(req.path))
      return next(error);
    send(res, new McpError('serverNotFound', 'MCP server not found'));
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
  send(res, new McpError('shuttingDown', 'Service unavailable: the server is shutting down; retry'));
}

function mcpHeaders(req: Request): McpHeaders {
  return {
    protocolVersion: header(req, 'mcp-protocol-version'),
    method: header(req, 'mcp-method'),
    name: header(req, 'mcp-name'),
  };
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** MCP 2026-07-28: a client that closes the response stream before the reply cancels the request. */
function watchClose(res: Response, listener: () => void): () => void {
  if (res.closed) {
    if (!res.writableFinished) listener();
    return () => {};
  }
  // Every response closes once, so the listener stays and stopping is a flag: cheaper than
  // taking the listener off again.
  let watching = true;
  res.on('close', () => {
    if (watching && !res.writableFinished) listener();
  });
  return () => {
    watching = false;
  };
}

const loopbackByServer = new WeakMap<Server, boolean>();

/** SPEC §2 row 3 looks at where the host's HTTP server listens, which never changes while it runs. */
function listensOnLoopback(req: Request): boolean {
  const server = (req.socket as { server?: Server }).server;
  if (!server) return false;
  let loopback = loopbackByServer.get(server);
  if (loopback === undefined) {
    loopback = isLoopbackAddress(server.address());
    loopbackByServer.set(server, loopback);
  }
  return loopback;
}

function send(res: Response, error: McpError): void {
  write(res, error.status, errorBody(error));
}

function write(res: Response, status: number, body: unknown, serialized?: string): void {
  res.statusCode = status;
  if (body === undefined) {
    res.end();
    return;
  }
  const json = serialized ?? JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
