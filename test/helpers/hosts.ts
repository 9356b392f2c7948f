/**
 * Real Express hosts for the endpoint suites: an app that mounts `mcpServer()` the way a user does,
 * listening on a real port, and a plain `node:http` client that can send any header (a custom
 * `Host`, no `Content-Length`, a chunked body) and returns the whole reply.
 *
 * Every host also has the things a real backend has and the endpoint must never fall through to:
 * an HTML 404 page and an HTML error handler. A reply that is not `application/json` (or a 202
 * without a body) fails the assertions below.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express5, { type NextFunction, type Request, type Response } from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, vi } from 'vitest';
import type * as Package from '../../src/index.js';
import type { McpServerOptions } from '../../src/index.js';

export interface HostVariant {
  /** How the suites name it: "Express 5 with a global express.json()". */
  name: string;
  major: 4 | 5;
  /**
   * Whether the host mounts `express.json()` for every route, before the router (the common
   * setup). The router must then take the body the host already parsed.
   */
  globalJson: boolean;
}

export const hostVariants: HostVariant[] = [
  { name: 'Express 5', major: 5, globalJson: false },
  { name: 'Express 5 with a global express.json()', major: 5, globalJson: true },
  { name: 'Express 4', major: 4, globalJson: false },
  { name: 'Express 4 with a global express.json()', major: 4, globalJson: true },
];

const expressOf = (major: 4 | 5) => (major === 4 ? express4 : express5);

/**
 * The package as a host on that Express major loads it: its own `import … from 'express'` then
 * resolves to that major (express is a peer dependency), so the router is Express 4's own Router
 * on an Express 4 host rather than Express 5's mounted into it.
 */
export async function loadPackage(major: 4 | 5): Promise<typeof Package> {
  vi.resetModules();
  if (major === 4) vi.doMock('express', () => import('express4'));
  else vi.doUnmock('express');
  return import('../../src/index.js');
}

export const HOST_NOT_FOUND_PAGE = '<!DOCTYPE html><title>Not found</title><p>host 404 page</p>';
export const HOST_ERROR_PAGE = '<!DOCTYPE html><title>Error</title><p>host error page</p>';

export interface Host {
  readonly variant: HostVariant;
  readonly port: number;
  /** `http://127.0.0.1:<port>` (or the address it listens on). */
  readonly url: string;
  /** The endpoint path for a server code. */
  path(serverCode: string): string;
  /** Sends one request to this host. */
  send(request: OutgoingRequest): Promise<Reply>;
  /** POSTs a JSON-RPC payload to a server's endpoint with the headers a real client sends. */
  post(serverCode: string, payload: unknown, headers?: Headers): Promise<Reply>;
  /** Resolves once every connection open now has closed on the server's side. */
  allConnectionsClosed(): Promise<void>;
  close(): Promise<void>;
}

export interface StartHostOptions {
  /** Where the HTTP server listens. Default `127.0.0.1`. */
  listen?: string;
  /** Where the host mounts the router. Default: at the root. */
  mountPath?: string;
}

/**
 * Starts a host of the variant with `mcpServer(options)` mounted, as a user's app would:
 * `[express.json()] -> mcpServer() -> HTML 404 -> HTML error handler`.
 */
export async function startHost(
  variant: HostVariant,
  pkg: typeof Package,
  options: McpServerOptions,
  { listen = '127.0.0.1', mountPath }: StartHostOptions = {},
): Promise<Host> {
  const express = expressOf(variant.major);
  const app = express();
  if (variant.globalJson) app.use(express.json());
  const router = pkg.mcpServer(options);
  if (mountPath) app.use(mountPath, router);
  else app.use(router);
  app.use((_req: Request, res: Response) => {
    res.status(404).type('html').send(HOST_NOT_FOUND_PAGE);
  });
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).type('html').send(HOST_ERROR_PAGE);
  });
  return serveApp(app, variant, { listen, mountPath });
}

/** Serves an app the test assembled itself on a real port. */
export function serveApp(
  app: http.RequestListener,
  variant: HostVariant,
  { listen = '127.0.0.1', mountPath = '' }: StartHostOptions = {},
): Promise<Host> {
  const server = http.createServer(app);
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listen, () => {
      const { port, address } = server.address() as AddressInfo;
      const hostname = address.includes(':') ? `[${address}]` : address;
      const url = `http://${hostname === '[::]' ? '[::1]' : hostname === '0.0.0.0' ? '127.0.0.1' : hostname}:${port}`;
      const host: Host = {
        variant,
        port,
        url,
        path: (serverCode) => `${mountPath}/mcp/server/${serverCode}/mcp`,
        send: (request) => send(url, request),
        post: (serverCode, payload, headers = {}) =>
          send(url, { path: host.path(serverCode), body: payload, headers }),
        allConnectionsClosed: async () => {
          await Promise.all([...open].map((socket) => once(socket, 'close')));
        },
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      };
      resolve(host);
    });
  });
}

/** Header values; `undefined` leaves a default header out. */
export type Headers = Record<string, string | undefined>;

export interface OutgoingRequest {
  method?: string;
  path: string;
  /** Merged over the defaults a Streamable HTTP client sends (JSON in, JSON or SSE accepted). */
  headers?: Headers;
  /** A string or Buffer is sent as it is; anything else as JSON. */
  body?: unknown;
  /** Send the body in these pieces with `Transfer-Encoding: chunked` and no `Content-Length`. */
  chunks?: (string | Buffer)[];
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body when the reply says it is JSON and has one, else `undefined`. */
  json: unknown;
}

export const CLIENT_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** One request on a fresh connection, so a server that closes the connection affects nothing else. */
export function send(baseUrl: string, request: OutgoingRequest): Promise<Reply> {
  const url = new URL(request.path, baseUrl);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...CLIENT_HEADERS, ...request.headers })) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const method = request.method ?? 'POST';
  let body: Buffer | undefined;
  if (request.body !== undefined) {
    body = Buffer.isBuffer(request.body)
      ? request.body
      : Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body));
    headers['content-length'] ??= String(body.length);
  }
  return new Promise((resolve, reject) => {
    let replied = false;
    const req = http.request(
      {
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers,
        agent: false,
      },
      (res) => {
        replied = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const text = Buffer.concat(chunks).toString('utf8');
            const isJson = /^application\/json\b/.test(res.headers['content-type'] ?? '') && text !== '';
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: isJson ? JSON.parse(text) : undefined,
            });
          } catch (error) {
            reject(error); // a reply that says JSON but is not
          }
        });
      },
    );
    // A server that answers early (413) and closes may cut off the rest of our upload; the reply counts.
    req.on('error', (error) => {
      if (!replied) reject(error);
    });
    if (request.chunks) {
      for (const chunk of request.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(body);
    }
  });
}

/**
 * The set-up most endpoint suites share: the package as the variant's host loads it, a world of
 * servers in a memory store, and one host serving it. Call from `beforeAll`; close `host` after.
 */
export async function startWorldHost<W extends Pick<import('./apps.js').World, 'options'>>(
  variant: HostVariant,
  createWorld: (store: Package.ServerStore) => Promise<W>,
  overrides?: Partial<McpServerOptions>,
) {
  const { pkg, world } = await loadWorld(variant, createWorld);
  const host = await startHost(variant, pkg, world.options(overrides));
  return { pkg, world, host };
}

/**
 * `startWorldHost` for the `describe` it is called in: started before its tests, closed after
 * them. Read `world` and `host` from the tests.
 */
export function worldHostFor<W extends Pick<import('./apps.js').World, 'options'>>(
  variant: HostVariant,
  createWorld: (store: Package.ServerStore) => Promise<W>,
  overrides?: Partial<McpServerOptions>,
): { world: W; host: Host } {
  const suite = {} as { world: W; host: Host };
  beforeAll(async () => {
    Object.assign(suite, await startWorldHost(variant, createWorld, overrides));
  });
  afterAll(async () => {
    await suite.host?.close();
  });
  return suite;
}

/** The package as the variant's host loads it, and a world of servers in a memory store of it. */
export async function loadWorld<W>(
  variant: HostVariant,
  createWorld: (store: Package.ServerStore) => Promise<W>,
) {
  const pkg = await loadPackage(variant.major);
  return { pkg, world: await createWorld(pkg.memoryServerStore()) };
}

/** Hosts a suite starts as it goes (`start`), on one variant, to `close` together after it. */
export function suiteHosts(variant: HostVariant = hostVariants[0]!) {
  const hosts: Host[] = [];
  const start = async (options: McpServerOptions) => {
    const host = await startHost(variant, await loadPackage(variant.major), options);
    hosts.push(host);
    return host;
  };
  return { hosts, start, close: async () => void (await Promise.all(hosts.map((host) => host.close()))) };
}
