/**
 * docs/deployment.md's nginx configuration, taken from the guide as written (only its two ports
 * changed) and run in a real nginx in front of a real Express app: a call whose app says nothing
 * for 70 s gets through a `proxy_read_timeout` of 30 s, kept alive by heartbeats, and its events
 * reach the official SDK client one by one, while the run is still going, not all at its end.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostApp, mcpServer, memoryServerStore, type RunApp } from '../../src/index.js';
import { freePort } from '../helpers/common.js';
import { findNginx, type Nginx, startNginx } from '../helpers/nginx.js';
import { skippedTitle } from '../helpers/postgres-skips.js';

const NGINX = findNginx();
const NGINX_MISSING = 'nginx is not installed (apt-get install nginx, or /usr/sbin/nginx)';
if (NGINX === undefined && process.env.CI)
  throw new Error('nginx is not installed, and CI runs this suite: apt-get install nginx');
const TITLE = 'behind nginx, configured as docs/deployment.md says';

/** How long the silent app says nothing: more than twice nginx's 30 s read timeout. */
const SILENCE_MS = 70_000;

const SILENT: HostApp = {
  id: 'silent',
  name: 'Silent Report',
  mode: 'workflow',
  description: 'Says it started, then nothing until its result, 70 seconds later.',
  inputForm: [],
};
const QUICK: HostApp = {
  id: 'quick',
  name: 'Quick Report',
  mode: 'workflow',
  description: 'Reports progress once, then its result.',
  inputForm: [],
};

/** The guide's nginx block, with its listening port and its upstream moved to the test's ports. */
async function guideConfig(listen: number, upstream: number): Promise<string> {
  const guide = await readFile(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1];
  if (block === undefined) throw new Error('docs/deployment.md has no nginx block');
  for (const expected of ['listen 80;', 'server 127.0.0.1:3000;', 'proxy_read_timeout 30s;']) {
    if (!block.includes(expected)) throw new Error(`the guide's nginx block no longer says "${expected}"`);
  }
  return block
    .replace('listen 80;', `listen 127.0.0.1:${listen};`)
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${upstream};`);
}

describe.skipIf(NGINX === undefined)(NGINX ? TITLE : skippedTitle(TITLE, NGINX_MISSING), () => {
  let nginx: Nginx;
  let closeApp: () => Promise<void>;
  let base: string;
  let codes: { silent: string; quick: string };
  /** Where the silent run is: the client's notifications are checked against it. */
  let runEnded = false;

  const runApp: RunApp = ({ app, signal }) => {
    if (app.id === 'quick') {
      return (async function* () {
        yield { event: 'progress' as const, progress: 1, total: 2, message: 'halfway' };
        yield { event: 'workflow_finished' as const, outputs: { done: true } };
      })();
    }
    return (async function* () {
      yield { event: 'progress' as const, progress: 0, total: 1, message: 'started' };
      await sleep(SILENCE_MS, undefined, { signal });
      runEnded = true;
      yield { event: 'workflow_finished' as const, outputs: { slept_seconds: SILENCE_MS / 1000 } };
    })();
  };

  beforeAll(async () => {
    const store = memoryServerStore();
    const apps = [SILENT, QUICK];
    const [silent, quick] = await Promise.all(
      apps.map((app) =>
        store.createServer({ tenantId: 't', appId: app.id, name: app.name, description: '', parameters: {} }),
      ),
    );
    codes = { silent: silent!.serverCode, quick: quick!.serverCode };

    // The Express side of the guide; heartbeatMs is left at its default, 10 s.
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use(
      mcpServer({
        resolveServer: store.resolver((appId) => apps.find((candidate) => candidate.id === appId) ?? null),
        runApp,
        allowedHosts: ['mcp.example.com'],
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    closeApp = () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });

    const port = await freePort();
    nginx = await startNginx(NGINX!, await guideConfig(port, (server.address() as AddressInfo).port), port);
    base = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await closeApp?.();
  });

  it('a call silent for 70 s completes through proxy_read_timeout 30s, its events arriving one by one', {
    timeout: 240_000,
  }, async () => {
    const client = new Client({ name: 'behind-nginx', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp/server/${codes.silent}/mcp`)),
    );
    const received: { progress: number; message?: string; runEnded: boolean }[] = [];
    try {
      const result = await client.callTool({ name: 'Silent_Report', arguments: {} }, undefined, {
        onprogress: ({ progress, message }) => received.push({ progress, message, runEnded }),
        resetTimeoutOnProgress: true,
        timeout: 60_000,
        maxTotalTimeout: 200_000,
      });
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify({ slept_seconds: 70 }) }],
        structuredContent: { slept_seconds: 70 },
        isError: false,
      });
    } finally {
      await client.close();
    }
    // The app's own progress, then the heartbeats that bridged its silence: at least two, since
    // nginx cuts a reply silent for 30 s.
    expect(received[0]).toEqual({ progress: 0, message: 'started', runEnded: false });
    const heartbeats = received.slice(1);
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    for (const heartbeat of heartbeats) {
      expect(heartbeat).toEqual({ progress: expect.any(Number), message: 'started', runEnded: false });
      expect(heartbeat.progress).toBeGreaterThan(0);
      expect(heartbeat.progress).toBeLessThan(1);
    }
    // Each arrived while the run was still going: nginx passed every event on as it came.
    expect(received.every((event) => !event.runEnded)).toBe(true);
    expect(await nginx.errorLog()).not.toMatch(/upstream timed out|upstream prematurely closed/);
  });

  it('a streamed reply keeps its headers through nginx, which takes X-Accel-Buffering for itself', async () => {
    const response = await fetch(`${base}/mcp/server/${codes.quick}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'Quick_Report', arguments: {}, _meta: { progressToken: 'p1' } },
      }),
    });
    expect({
      status: response.status,
      contentType: response.headers.get('content-type'),
      cacheControl: response.headers.get('cache-control'),
      accelBuffering: response.headers.get('x-accel-buffering'),
    }).toEqual({
      status: 200,
      contentType: 'text/event-stream',
      cacheControl: 'no-cache',
      accelBuffering: null,
    });
    const events = (await response.text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => JSON.parse(event.slice('data: '.length)));
    expect(events).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: 1, total: 2, message: 'halfway' },
      },
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [{ type: 'text', text: JSON.stringify({ done: true }) }],
          structuredContent: { done: true },
          isError: false,
        },
      },
    ]);
  });

  it("an error reply is the endpoint's JSON-RPC envelope, passed through untouched", async () => {
    const response = await fetch(`${base}/mcp/server/not-a-code/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect({
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: await response.json(),
    }).toEqual({
      status: 404,
      contentType: 'application/json',
      body: { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'MCP server not found' } },
    });
  });
});
