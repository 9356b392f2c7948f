/**
 * One run never takes the host down (docs/http-contract.md, "The tool"): a host in a process of
 * its own whose apps answer 46 MiB of control characters (276 MiB once in JSON, twice over) gets an
 * error result saying the result is too large, in a JSON reply and in an event stream, in both
 * eras and for a task; `onError` is told, the flooding run's signal aborts, and the same process
 * serves the next call.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleInstance, type FarmProcess, startInstance, stopInstance } from '../helpers/farm-processes.js';
import { send } from '../helpers/hosts.js';
import { envelope, standardHeaders } from '../helpers/modern.js';
import { ROOT } from '../helpers/processes.js';
import { request } from '../helpers/rpc.js';
import { openSse } from '../helpers/sse.js';

const TOO_LARGE =
  'the result is too large: more than the 16777216 bytes one result may carry (maxResultBytes)';
const tooLarge = { content: [{ type: 'text', text: TOO_LARGE }], isError: true };
const V = { 'mcp-protocol-version': '2025-11-25' };
const JSON_ONLY = { ...V, accept: 'application/json' };

let host: FarmProcess;
let codes: Record<string, string>;

beforeAll(async () => {
  const bundle = await bundleInstance(join(ROOT, 'test', 'farm', 'oversized-host.ts'));
  host = await startInstance(bundle, {});
  codes = host.ready.codes as Record<string, string>;
}, 120_000);

afterAll(async () => {
  if (host) await stopInstance(host);
});

const path = (app: string) => `/mcp/server/${codes[app]}/mcp`;
const call = (app: string, id: number, extra: Record<string, unknown> = {}) =>
  request(id, 'tools/call', { name: app, arguments: { query: 'go' }, ...extra });
const reports = async () => (await send(host.url, { method: 'GET', path: '/reports' })).json as unknown[];
const stops = async () =>
  ((await send(host.url, { method: 'GET', path: '/stops' })).json as { stops: number }).stops;

/** The host is alive and answers a small call as always. */
async function expectServing(id: number): Promise<void> {
  expect(host.child.exitCode).toBeNull();
  const reply = await send(host.url, {
    path: path('echo'),
    body: call('echo', id, { arguments: { query: 'hi' } }),
    headers: JSON_ONLY,
  });
  expect(reply.status).toBe(200);
  expect(reply.json).toEqual({
    jsonrpc: '2.0',
    id,
    result: {
      content: [{ type: 'text', text: 'echo: hi' }],
      structuredContent: { answer: 'echo: hi' },
      isError: false,
    },
  });
}

describe('an answer larger than maxResultBytes, in a host of its own', () => {
  it.each(['ai-flood', 'event-flood', 'output-flood'])(
    '%s: a JSON reply carries an error result that says the result is too large; onError is told',
    async (app) => {
      const before = (await reports()).length;
      const reply = await send(host.url, { path: path(app), body: call(app, 1), headers: JSON_ONLY });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json).toEqual({ jsonrpc: '2.0', id: 1, result: tooLarge });
      expect((await reports()).slice(before)).toEqual([{ message: TOO_LARGE, phase: 'outputs' }]);
      await expectServing(2);
    },
    60_000,
  );

  it.each(['ai-flood', 'event-flood'])(
    '%s: an event stream ends with the error result after the progress; the run is stopped',
    async (app) => {
      const before = (await reports()).length;
      const stopped = await stops();
      const stream = await openSse(host.url, {
        path: path(app),
        headers: V,
        body: call(app, 3, { _meta: { progressToken: 'p' } }),
      });
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      const events = (await stream.rest()).map((event) => JSON.parse(event.data as string));
      expect(events).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'p', progress: 1, message: 'writing' },
        },
        { jsonrpc: '2.0', id: 3, result: tooLarge },
      ]);
      expect((await reports()).slice(before)).toEqual([{ message: TOO_LARGE, phase: 'outputs' }]);
      // The answer was cut as it grew: the app's signal told it to stop.
      await expect.poll(stops).toBe(stopped + 1);
      await expectServing(4);
    },
    60_000,
  );

  it('a 2026-07-28 call gets the same error result beside the server info', async () => {
    const before = (await reports()).length;
    const reply = await send(host.url, {
      path: path('event-flood'),
      body: request(5, 'tools/call', { name: 'event-flood', arguments: { query: 'go' }, _meta: envelope() }),
      headers: { ...standardHeaders('tools/call', 'event-flood'), accept: 'application/json' },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { resultType: 'complete', ...tooLarge, _meta: expect.any(Object) },
    });
    expect((await reports()).slice(before)).toEqual([{ message: TOO_LARGE, phase: 'outputs' }]);
    await expectServing(6);
  }, 60_000);

  it('a task keeps the error result: tasks/result answers it', async () => {
    const created = await send(host.url, {
      path: path('event-flood'),
      body: call('event-flood', 7, { task: { ttl: 60_000 } }),
      headers: JSON_ONLY,
    });
    expect(created.status).toBe(200);
    const { taskId } = (created.json as { result: { task: { taskId: string } } }).result.task;
    const result = await send(host.url, {
      path: path('event-flood'),
      body: request(8, 'tasks/result', { taskId }),
      headers: JSON_ONLY,
    });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: {
        ...tooLarge,
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      },
    });
    await expectServing(9);
  }, 60_000);
});
