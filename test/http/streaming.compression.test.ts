/**
 * A host that mounts `compression()` before the router, as many Express backends do: the stream is
 * gzip-compressed, and each event still reaches the client as it is produced rather than when the
 * compressor's buffer fills or the reply ends. The app waits for the test to have read the first
 * event before it goes on, so a stream held back by the middleware would never finish.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import compression from 'compression';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Host, type HostVariant, hostVariants, loadWorld, serveApp } from '../helpers/hosts.js';
import {
  callRequest,
  createStreamingWorld,
  event,
  expectStreamHeaders,
  KEEP_ALIVE_COMMENT,
  postLive,
  progress,
  type StreamingWorld,
} from '../helpers/streaming.js';

const HEADERS = { 'mcp-protocol-version': '2025-11-25', 'accept-encoding': 'gzip' };
const result = (outputs: Record<string, unknown>) => ({
  content: [{ type: 'text', text: JSON.stringify(outputs) }],
  isError: false,
  structuredContent: outputs,
});

describe('behind compression()', () => {
  const variant = hostVariants[0] as HostVariant;
  let world: StreamingWorld;
  /** Heartbeats every 100 ms. */
  let host: Host;
  /** Heartbeats off, so that only the app's events are on the stream. */
  let quiet: Host;

  beforeAll(async () => {
    const { pkg, world: loaded } = await loadWorld(variant, createStreamingWorld);
    world = loaded;
    const serve = (heartbeatMs: number) => {
      const app = express();
      app.use(compression());
      app.use(pkg.mcpServer(world.options({ heartbeatMs })));
      return serveApp(app, variant);
    };
    host = await serve(100);
    quiet = await serve(0);
  });
  afterAll(async () => {
    await Promise.all([host?.close(), quiet?.close()]);
  });

  const post = (target: Host, payload: unknown) =>
    postLive(target.url, target.path(world.codes.report), payload, HEADERS);

  it('the first progress event reaches the client while the run still waits for it; the result comes last', async () => {
    const pending = post(quiet, callRequest(1, 'Report', 'tok-1'));
    const run = await world.nextRun();
    run.emit({ event: 'progress', progress: 1, total: 2, message: 'first half' });
    const reply = await pending;

    expectStreamHeaders(reply);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(await reply.next()).toBe(
      event(progress({ progressToken: 'tok-1', progress: 1, total: 2, message: 'first half' })),
    );
    // Only now does the app go on: had the middleware held the event back, this would never run.
    run.emit({ event: 'progress', progress: 2, total: 2, message: 'second half' });
    expect(await reply.next()).toBe(
      event(progress({ progressToken: 'tok-1', progress: 2, total: 2, message: 'second half' })),
    );
    run.finish({ halves: 2 });

    expect(await reply.rest()).toEqual([event({ jsonrpc: '2.0', id: 1, result: result({ halves: 2 }) })]);
  });

  it('heartbeat comment lines get through as they are written', async () => {
    const pending = post(host, callRequest(2, 'Report'));
    const run = await world.nextRun();
    const reply = await pending;

    expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
    expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
    run.finish({ beats: 2 });
    expect((await reply.rest()).at(-1)).toBe(event({ jsonrpc: '2.0', id: 2, result: result({ beats: 2 }) }));
  });

  it('the official v1 client gets each progress notification before the result', async () => {
    const client = new Client({ name: 'compression-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(quiet.path(world.codes.report), quiet.url)),
    );
    try {
      const notes: Progress[] = [];
      let heard: () => void = () => {};
      const firstHeard = new Promise<void>((resolve) => {
        heard = resolve;
      });
      const pending = client.callTool({ name: 'Report', arguments: {} }, undefined, {
        onprogress: (note) => {
          notes.push(note);
          heard();
        },
      });
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 1, message: 'all of it' });
      await firstHeard;
      run.finish({ done: true });

      expect(await pending).toEqual(result({ done: true }));
      expect(notes).toEqual([{ progress: 1, total: 1, message: 'all of it' }]);
    } finally {
      await client.close();
    }
  });
});
