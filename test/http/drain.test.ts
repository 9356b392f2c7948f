/**
 * `drain()` for a graceful shutdown: from the moment it is called, new requests answer 503 with a
 * JSON-RPC error and a closed connection; it resolves when the calls in progress have finished, or
 * at its deadline with how many are left.
 */
import { once } from 'node:events';
import type http from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as Package from '../../src/index.js';
import { createWorld, type World } from '../helpers/apps.js';
import { type Host, type HostVariant, hostVariants, loadPackage, serveApp } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const V = { 'mcp-protocol-version': '2025-06-18' };
const slowCall = (id: number) => request(id, 'tools/call', { name: 'Slow', arguments: {} });
const answered = (id: number, text: string) =>
  rpcResult(id, { content: [{ type: 'text', text }], structuredContent: { answer: text }, isError: false });

describe.each(hostVariants.filter((variant) => !variant.globalJson))(
  'drain() on $name',
  (variant: HostVariant) => {
    let pkg: typeof Package;
    let world: World;
    let router: Package.McpServerRouter;
    let host: Host;

    /** A host of this variant serving `mounted`, after `before` when given (a host's own middleware). */
    const serveRouter = async (
      mounted: Package.McpServerRouter,
      before?: (req: http.IncomingMessage, res: unknown, next: () => void) => void,
    ) => {
      const express =
        variant.major === 4 ? (await import('express4')).default : (await import('express')).default;
      const app = express();
      if (before) app.use(before);
      app.use(mounted);
      return serveApp(app, variant);
    };

    beforeEach(async () => {
      pkg = await loadPackage(variant.major);
      world = await createWorld(pkg.memoryServerStore());
      router = pkg.mcpServer(world.options());
      host = await serveRouter(router);
    });
    afterEach(async () => {
      await host?.close();
    });

    it('with nothing in progress, resolves at once; then every request answers 503', async () => {
      expect(await router.drain()).toEqual({ completed: true, inFlight: 0 });
      const reply = await host.post(world.codes.textStats, request(1, 'tools/list'), V);
      expectRpcReply(
        reply,
        503,
        rpcError(null, -32603, 'Service unavailable: the server is shutting down; retry'),
      );
      expect({ connection: reply.headers.connection, retryAfter: reply.headers['retry-after'] }).toEqual({
        connection: 'close',
        retryAfter: '1',
      });
    });

    it('waits for the call in progress, which gets its answer, while a new call is refused', async () => {
      const inProgress = host.post(world.codes.slow, slowCall(1), V);
      const run = await world.nextSlowRun();
      let settled: unknown;
      const draining = router.drain({ timeoutMs: 30_000 }).then((result) => {
        settled = result;
        return result;
      });

      const refused = await host.post(world.codes.slow, slowCall(2), V);
      expect(refused.status).toBe(503);
      expect(settled).toBeUndefined();

      expect(run.release('finished in time')).toBe(false);
      expectRpcReply(await inProgress, 200, answered(1, 'finished in time'));
      expect(await draining).toEqual({ completed: true, inFlight: 0 });
    });

    it('at the deadline, resolves with the number of requests still in progress; stops nothing', async () => {
      const inProgress = host.post(world.codes.slow, slowCall(1), V);
      const run = await world.nextSlowRun();
      expect(await router.drain({ timeoutMs: 20 })).toEqual({ completed: false, inFlight: 1 });
      expect(run.run.signal.aborted).toBe(false);
      run.release('late');
      expectRpcReply(await inProgress, 200, answered(1, 'late'));
    });

    it('refuses an unknown option, with a hint', async () => {
      await expect(router.drain({ timeout: 5 } as never)).rejects.toThrow(
        'drain: unknown option "timeout" (did you mean "timeoutMs"?)',
      );
      // A refused drain() changes nothing.
      expectRpcReply(await host.post(world.codes.textStats, request(1, 'ping'), V), 200, rpcResult(1, {}));
    });

    it('while draining, a preflight of an allowed origin is still answered, and the page reads the 503 that follows', async () => {
      const origin = 'https://app.example.com';
      const browserRouter = pkg.mcpServer(world.options({ allowedOrigins: [origin] }));
      const browserHost = await serveRouter(browserRouter);
      try {
        expect(await browserRouter.drain()).toEqual({ completed: true, inFlight: 0 });
        const preflight = await browserHost.send({
          method: 'OPTIONS',
          path: browserHost.path(world.codes.textStats),
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'content-type': undefined,
            accept: '*/*',
          },
        });
        expect({
          status: preflight.status,
          text: preflight.text,
          allowOrigin: preflight.headers['access-control-allow-origin'],
        }).toEqual({ status: 204, text: '', allowOrigin: origin });
        const reply = await browserHost.post(world.codes.textStats, request(1, 'ping'), { ...V, origin });
        expectRpcReply(
          reply,
          503,
          rpcError(null, -32603, 'Service unavailable: the server is shutting down; retry'),
        );
        expect(reply.headers['access-control-allow-origin']).toBe(origin);
      } finally {
        await browserHost.close();
      }
    });

    const ping = JSON.stringify(request(1, 'ping'));
    it.each([
      { what: 'the client sent part of its body and went away', body: '{"jsonrpc"', leave: 'client' },
      { what: 'the client sent all of its body and went away', body: ping, leave: 'client' },
      { what: 'the host destroyed it while its body was still coming', body: '{"jsonrpc"', leave: 'host' },
    ])('a request is not left in progress when $what', async ({ body, leave }) => {
      // Such as a session or an authentication middleware waiting on its own store; or, for `host`,
      // one that gives up on a slow request (a destroy that emits no error).
      const slow = await serveRouter(router, (req, _res, next) => {
        if (leave === 'host') {
          next();
          setTimeout(() => req.destroy(), 100);
        } else setTimeout(next, 300);
      });
      try {
        const socket = net.connect(slow.port, '127.0.0.1');
        await once(socket, 'connect');
        socket.on('error', () => {});
        socket.write(
          [
            `POST ${slow.path(world.codes.textStats)} HTTP/1.1`,
            `Host: 127.0.0.1:${slow.port}`,
            'Content-Type: application/json',
            'Accept: application/json, text/event-stream',
            'MCP-Protocol-Version: 2025-06-18',
            // A partial body announces more than it sends.
            `Content-Length: ${body === ping ? Buffer.byteLength(body) : 100}`,
            '',
            body,
          ].join('\r\n'),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (leave === 'client') {
          if (body === ping) socket.end();
          else socket.destroy();
        }
        // The middleware lets the request through after the client has gone, or the host destroys it.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await router.drain({ timeoutMs: 300 })).toEqual({ completed: true, inFlight: 0 });
        socket.destroy();
      } finally {
        await slow.close();
      }
    });
  },
);
