/**
 * A database outage on the request path (docs/http-contract.md, row 19a, and "What is bounded"):
 * every database write a request waits for has the deadline `resolveTimeoutMs`, and an outage
 * answers 503 with `Retry-After`, never a 500 and never a hang, whether the database refuses
 * connections or the network drops every packet. The code is in the store's cache, as it is for a
 * server in use, so the lookup itself is served.
 * Measured before: 500 in 15 ms when refused; hangs of 30 to 45 s on a silent network.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppEvent, AppResult, HostApp, McpServerOptions, ServerRecord } from '../../src/index.js';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { AsyncQueue } from '../helpers/async-queue.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { type CutDatabase, cutDatabase, expectRetryAfter, OUTAGES } from '../helpers/outage.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';
import { openSse, type SseEvent } from '../helpers/sse.js';
import { untilListening } from '../helpers/stores.js';

const postgres = databases.filter((kind) => kind.name === 'postgres');

const APP: HostApp = { id: 'echo', name: 'Echo', mode: 'workflow', inputForm: [] };
const DEADLINE_MS = 300;
const UNAVAILABLE = 'MCP server temporarily unavailable: try again later';

describeEach(postgres)('a database outage on the request path, on $name', (kind) => {
  let db: TestDatabase;
  let direct: Knex;
  let writer: KnexServerStore;
  let cut: CutDatabase;
  let store: KnexServerStore;
  const hosts: Host[] = [];
  const reports: { error: unknown; context: unknown }[] = [];

  beforeAll(async () => {
    db = await kind.create();
    direct = db.connect();
    await migrate(direct);
    writer = knexServerStore(direct);
    cut = await cutDatabase(direct);
    store = knexServerStore(cut.knex);
  });
  afterEach(() => {
    cut.proxy.restore();
    reports.length = 0;
    script = undefined;
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await store?.close();
    await writer?.close();
    await cut?.close();
    await db?.destroy();
  });

  async function start(overrides: Partial<McpServerOptions> = {}): Promise<Host> {
    const pkg = await loadPackage(5);
    const host = await startHost(hostVariants[0]!, pkg, {
      resolveServer: store.resolver((appId) => (appId === APP.id ? APP : null)),
      runApp: async () => ({ outputs: { echoed: true } }),
      resolveTimeoutMs: DEADLINE_MS,
      onError: (error, context) => {
        reports.push({ error, context });
      },
      ...overrides,
    });
    hosts.push(host);
    return host;
  }

  /** A server nobody has called yet: its end user is still to be created. */
  const publish = (): Promise<ServerRecord> =>
    writer.createServer({
      tenantId: randomUUID(),
      appId: APP.id,
      name: APP.name,
      description: '',
      parameters: {},
    });

  /**
   * Looks the code up through the proxy while the database answers, so the store has it in its
   * cache: once its farm listens (a lookup that overlaps the listener's start is not cached).
   */
  async function warm(host: Host, server: ServerRecord): Promise<void> {
    expect((await host.post(server.serverCode, request(0, 'tools/list'))).status).toBe(200);
    await untilListening(store);
    expect((await host.post(server.serverCode, request(0, 'tools/list'))).status).toBe(200);
  }

  const callTool = (id: number) => request(id, 'tools/call', { name: 'Echo', arguments: {} });

  /** The app of a streamed call: it says what the test pushes, when it pushes it. */
  let script: AsyncQueue<AppEvent> | undefined;
  const scripted = async (): Promise<AppResult | AsyncIterable<AppEvent>> => {
    const events = script;
    if (!events) return { outputs: { echoed: true } };
    return (async function* () {
      yield* events;
    })();
  };
  /** A server in use: its code cached, its end user created, before the outage. */
  async function inUse(host: Host): Promise<ServerRecord> {
    const server = await publish();
    await warm(host, server);
    expect((await host.post(server.serverCode, callTool(0))).status).toBe(200);
    return server;
  }
  const streamedCall = (host: Host, server: ServerRecord, id: number) =>
    openSse(host.url, {
      path: host.path(server.serverCode),
      headers: { 'mcp-protocol-version': '2025-06-18' },
      body: request(id, 'tools/call', { name: 'Echo', arguments: {}, _meta: { progressToken: id } }),
    });
  const progressEvent = (token: number, value: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: value },
    });
  const finished = (id: number) => ({
    jsonrpc: '2.0',
    id,
    result: {
      content: [{ type: 'text', text: '{"echoed":true}' }],
      structuredContent: { echoed: true },
      isError: false,
    },
  });
  /** Events as the client read them, with their data parsed. */
  const parsed = (events: SseEvent[]) =>
    events.map((event) => ({ ...event, data: JSON.parse(event.data ?? 'null') }));

  describe.each(OUTAGES)('when the database %s', (_label, how) => {
    it('a stream that cannot be stored from its start goes out live, each event as the app says it, without ids', async () => {
      const host = await start({ store, runApp: scripted });
      const server = await inUse(host);
      script = new AsyncQueue();
      cut.proxy.cut(how);
      script.push({ event: 'progress', progress: 1 });
      const stream = await streamedCall(host, server, 3);
      expect(await stream.next()).toEqual({ data: progressEvent(3, 1) });
      // The app says more only once the client has had what came before.
      script.push({ event: 'progress', progress: 2 });
      expect(await stream.next()).toEqual({ data: progressEvent(3, 2) });
      script.push({ event: 'workflow_finished', outputs: { echoed: true } });
      script.end();
      expect(parsed(await stream.rest())).toEqual([{ data: finished(3) }]);
      expect(reports).toContainEqual({
        error: expect.anything(),
        context: { phase: 'dispatch', serverId: server.id },
      });
    });

    it('a stream whose storing stalls midway goes on live at once, with the ids it had', async () => {
      const host = await start({ store, runApp: scripted });
      const server = await inUse(host);
      script = new AsyncQueue();
      script.push({ event: 'progress', progress: 1 });
      const stream = await streamedCall(host, server, 4);
      const first = (await stream.next())!;
      expect(first.data).toBe(progressEvent(4, 1));
      expect(first.id).toMatch(/^[A-Za-z0-9_-]{22}\.1$/);
      cut.proxy.cut(how);
      script.push({ event: 'progress', progress: 2 });
      const second = (await stream.next())!;
      expect(second).toEqual({ id: first.id!.replace(/1$/, '2'), data: progressEvent(4, 2) });
      script.push({ event: 'workflow_finished', outputs: { echoed: true } });
      script.end();
      const rest = parsed(await stream.rest());
      expect(rest.map((event) => event.data)).toEqual([finished(4)]);
    });

    it('a GET that resumes a stream answers 503 with Retry-After', async () => {
      const host = await start({ store, runApp: scripted });
      const server = await inUse(host);
      script = new AsyncQueue();
      script.push({ event: 'progress', progress: 1 });
      script.push({ event: 'workflow_finished', outputs: { echoed: true } });
      script.end();
      const events = await (await streamedCall(host, server, 5)).rest();
      expect(events).toHaveLength(2);
      cut.proxy.cut(how);
      const reply = await host.send({
        method: 'GET',
        path: host.path(server.serverCode),
        headers: { 'last-event-id': events[0]!.id!, accept: 'text/event-stream' },
      });
      expectRpcReply(reply, 503, rpcError(null, -32603, UNAVAILABLE));
      expectRetryAfter(reply);
    });

    it('a call whose end user is not created yet answers 503 with Retry-After, and is reported', async () => {
      const host = await start();
      const server = await publish();
      await warm(host, server);
      cut.proxy.cut(how);
      const reply = await host.post(server.serverCode, callTool(1));
      expectRpcReply(reply, 503, rpcError(1, -32603, UNAVAILABLE));
      expectRetryAfter(reply);
      expect(reports).toContainEqual({
        error: expect.anything(),
        context: { phase: 'dispatch', serverId: server.id, appId: APP.id },
      });
      cut.proxy.restore();
      await servedAgain(host, server);
    });

    it('initialize, which creates the end user too, answers the same 503', async () => {
      const host = await start();
      const server = await publish();
      await warm(host, server);
      cut.proxy.cut(how);
      const reply = await host.post(
        server.serverCode,
        request(2, 'initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: `client-${randomUUID()}`, version: '1' },
        }),
      );
      expectRpcReply(reply, 503, rpcError(2, -32603, UNAVAILABLE));
      expectRetryAfter(reply);
    });

    it('tasks answer the same 503: creating one, reading one, listing them (2025-11-25)', async () => {
      const host = await start({ store });
      const server = await inUse(host);
      const v = { 'mcp-protocol-version': '2025-11-25' };
      cut.proxy.cut(how);
      const create = request(6, 'tools/call', { name: 'Echo', arguments: {}, task: { ttl: 60_000 } });
      const created = await host.post(server.serverCode, create, v);
      expectRpcReply(created, 503, rpcError(6, -32603, UNAVAILABLE));
      expectRetryAfter(created);
      const got = await host.post(server.serverCode, request(7, 'tasks/get', { taskId: 'a'.repeat(32) }), v);
      expectRpcReply(got, 503, rpcError(7, -32603, UNAVAILABLE));
      expectRetryAfter(got);
      const listed = await host.post(server.serverCode, request(8, 'tasks/list', {}), v);
      expectRpcReply(listed, 503, rpcError(8, -32603, UNAVAILABLE));
      expectRetryAfter(listed);
    });
  });

  it('a request that waits on the lookup and then on its end user answers 503 within one deadline, not two', async () => {
    const deadlineMs = 1000;
    // A short cache: the copy goes stale, and the lookup waits on the database before it serves it.
    const staleing = knexServerStore(cut.knex, { cacheTtlMs: 200 });
    try {
      const host = await start({
        resolveTimeoutMs: deadlineMs,
        resolveServer: staleing.resolver((appId) => (appId === APP.id ? APP : null)),
      });
      const server = await publish();
      expect((await host.post(server.serverCode, request(0, 'tools/list'))).status).toBe(200);
      await untilListening(staleing);
      expect((await host.post(server.serverCode, request(0, 'tools/list'))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      cut.proxy.cut('silence');
      const started = performance.now();
      const reply = await host.post(server.serverCode, callTool(1));
      const elapsed = performance.now() - started;
      expectRpcReply(reply, 503, rpcError(1, -32603, UNAVAILABLE));
      expectRetryAfter(reply);
      // The lookup waited its deadline, and the end user had only what was left of it.
      expect(elapsed).toBeGreaterThanOrEqual(deadlineMs - 100);
      expect(elapsed).toBeLessThan(2 * deadlineMs);
      expect(reports).toContainEqual({
        error: expect.objectContaining({ name: 'StoreTimeout' }),
        context: { phase: 'dispatch', serverId: server.id, appId: APP.id },
      });
    } finally {
      cut.proxy.restore();
      await staleing.close();
    }
  });

  /** Once the database is back, the same call is served: the failed creation was not kept. */
  async function servedAgain(host: Host, server: ServerRecord): Promise<void> {
    for (;;) {
      const reply = await host.post(server.serverCode, callTool(9));
      if (reply.status === 200) {
        expect(reply.json).toMatchObject({ id: 9, result: { isError: false } });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});
