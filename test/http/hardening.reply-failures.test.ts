/**
 * A reply that fails while it is written is that call's failure, never the process's
 * (docs/http-contract.md, "The tool"): a result whose serialization throws only when the reply is
 * written (past every check before it) answers a JSON-RPC internal error with the call's id, as JSON
 * or as the stream's last event; the cause goes to `onError`, and the host serves the next call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEvent, HostApp } from '../../src/index.js';
import { type DemoHost, startDemoHost } from '../helpers/apps.js';
import { send } from '../helpers/hosts.js';
import { request } from '../helpers/rpc.js';
import { openSse } from '../helpers/sse.js';

const FICKLE: HostApp = { id: 'fickle', name: 'Fickle', mode: 'workflow', inputForm: [] };
const ECHO: HostApp = { id: 'echo', name: 'Echo', mode: 'workflow', inputForm: [] };
const V = { 'mcp-protocol-version': '2025-11-25' };

/** Serializes while the result is checked, and throws once the HTTP layer writes it. */
const fickle = {
  toJSON() {
    const stack = new Error().stack ?? '';
    if (stack.includes('writeJson') || stack.includes('formatEvent')) throw new Error('fails when written');
    return 'fine';
  },
};

let host: DemoHost;
beforeAll(async () => {
  host = await startDemoHost({
    apps: [FICKLE, ECHO],
    runApp: async function* (run): AsyncIterable<AppEvent> {
      yield { event: 'progress', progress: 1 };
      yield {
        event: 'workflow_finished',
        outputs: run.app.id === FICKLE.id ? { value: fickle } : { ok: true },
      };
    },
  });
});
afterAll(async () => {
  await host?.close();
});

const path = (app: HostApp) => host.endpointOf(app).pathname;
const internal = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });

async function expectServing(id: number): Promise<void> {
  const reply = await send(host.url, {
    path: path(ECHO),
    body: request(id, 'tools/call', { name: ECHO.name, arguments: {} }),
    headers: { ...V, accept: 'application/json' },
  });
  expect({ status: reply.status, body: reply.json }).toEqual({
    status: 200,
    body: {
      jsonrpc: '2.0',
      id,
      result: {
        content: [{ type: 'text', text: '{"ok":true}' }],
        structuredContent: { ok: true },
        isError: false,
      },
    },
  });
}

describe('a reply that fails while it is written', () => {
  it('as JSON: a JSON-RPC internal error with the call id; the cause to onError', async () => {
    const reports = host.reports.length;
    const reply = await send(host.url, {
      path: path(FICKLE),
      body: request(1, 'tools/call', { name: FICKLE.name, arguments: {} }),
      headers: { ...V, accept: 'application/json' },
    });
    expect({ status: reply.status, type: reply.headers['content-type'], body: reply.json }).toEqual({
      status: 500,
      type: 'application/json',
      body: internal(1),
    });
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fails when written',
    ]);
    expect(host.reportContexts.slice(reports).map((context) => context.phase)).toEqual(['dispatch']);
    await expectServing(2);
  });

  it('as JSON from a call that might have streamed (a reply known later): the same internal error', async () => {
    const reports = host.reports.length;
    const reply = await send(host.url, {
      path: path(FICKLE),
      body: request(5, 'tools/call', { name: FICKLE.name, arguments: {} }),
      headers: V,
    });
    expect({ status: reply.status, type: reply.headers['content-type'], body: reply.json }).toEqual({
      status: 500,
      type: 'application/json',
      body: internal(5),
    });
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fails when written',
    ]);
    await expectServing(6);
  });

  it('as an event stream: the last event is the internal error; the cause to onError', async () => {
    const reports = host.reports.length;
    const stream = await openSse(host.url, {
      path: path(FICKLE),
      headers: V,
      body: request(3, 'tools/call', { name: FICKLE.name, arguments: {}, _meta: { progressToken: 't' } }),
    });
    expect({ status: stream.status, type: stream.headers['content-type'] }).toEqual({
      status: 200,
      type: 'text/event-stream',
    });
    expect((await stream.rest()).map((event) => JSON.parse(event.data as string))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } },
      internal(3),
    ]);
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fails when written',
    ]);
    await expectServing(4);
  });
});
