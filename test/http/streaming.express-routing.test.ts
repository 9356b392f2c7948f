/**
 * Express keeps a request's routing state in `req.next`: a chain of closures through every router
 * the request went through. The endpoint answers every request it takes itself, and a call that
 * streams stays open as long as its run, so it lets that state go as soon as it takes the request
 * (README, "Long runs"), whatever the reply. Checked on both Express majors, with the router
 * mounted by `app.use` as a host does, and a middleware of the host's own before it.
 */

import type { Request } from 'express';
import express5 from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Host, type HostVariant, hostVariants, loadWorld, serveApp } from '../helpers/hosts.js';
import {
  callRequest,
  createStreamingWorld,
  event,
  expectStreamHeaders,
  postLive,
  progress,
  type StreamingWorld,
} from '../helpers/streaming.js';

const HEADERS = { 'mcp-protocol-version': '2025-11-25' };
const result = (outputs: Record<string, unknown>) => ({
  content: [{ type: 'text', text: JSON.stringify(outputs) }],
  isError: false,
  structuredContent: outputs,
});

describe.each(hostVariants.filter((variant) => !variant.globalJson))(
  'routing state of a request to the endpoint on $name',
  (variant: HostVariant) => {
    let world: StreamingWorld;
    let host: Host;
    /** Every request the host saw, in order, as its own middleware saw it. */
    const seen: Request[] = [];
    /** What `req.next` was when the host's middleware saw the request. */
    const nextWhenSeen: string[] = [];

    beforeAll(async () => {
      const { pkg, world: loaded } = await loadWorld(variant, createStreamingWorld);
      world = loaded;
      const app = (variant.major === 4 ? express4 : express5)();
      app.use((req: Request, _res: unknown, next: () => void) => {
        seen.push(req);
        nextWhenSeen.push(typeof req.next);
        next();
      });
      app.use(pkg.mcpServer(world.options({ heartbeatMs: 0 })));
      host = await serveApp(app, variant);
    });
    afterAll(async () => {
      await host?.close();
    });

    it('a call that streams has let go of req.next before its first event; the response still comes last', async () => {
      const pending = postLive(
        host.url,
        host.path(world.codes.report),
        callRequest(1, 'Report', 'tok'),
        HEADERS,
      );
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 2 });
      const reply = await pending;
      expectStreamHeaders(reply);
      expect(await reply.next()).toBe(event(progress({ progressToken: 'tok', progress: 1, total: 2 })));

      expect(seen.at(-1)?.next).toBeUndefined();

      run.finish({ done: true });
      expect(await reply.rest()).toEqual([event({ jsonrpc: '2.0', id: 1, result: result({ done: true }) })]);
    });

    it('so has a call answered with JSON, and the host middleware before the router saw it set', async () => {
      const reply = await host.post(world.codes.quick, callRequest(2, 'Quick'), HEADERS);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json).toEqual({ jsonrpc: '2.0', id: 2, result: result({ done: true }) });

      expect(nextWhenSeen.at(-1)).toBe('function');
      expect(seen.at(-1)?.next).toBeUndefined();
    });
  },
);
