/**
 * Three instances of a host, each a process of its own, on one PostgreSQL, behind a round-robin
 * proxy, as in the README's "Running several instances". Between the instances and PostgreSQL
 * sits a TCP proxy the suite can cut, to stand for a database outage. The suite shows that the
 * three act as one server: a rotation or a deactivation is seen by all of them within a second
 * with the default cache TTL; a cancellation sent to one stops the run on another; the rate limit
 * is counted for all together; through an outage they answer from their caches or 503, never
 * hang, and they recover without a restart.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import type { ServerRecord } from '../../src/types/index.js';
import { sleep } from '../helpers/common.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import {
  bundleInstance,
  type FarmProcess as Instance,
  startInstance,
  stopInstance,
} from '../helpers/farm-processes.js';
import { type Reply, send } from '../helpers/hosts.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../helpers/round-robin-proxy.js';
import { expectAccepted, expectRpcError, expectRpcResult, notification, request } from '../helpers/rpc.js';
import { openSse, said } from '../helpers/sse.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

const RATE_LIMIT_REQUESTS = 6;
const RESOLVE_TIMEOUT_MS = 1000;
/** The default `cacheTtlMs` the instances run with. */
const DEFAULT_TTL_MS = 5000;
/** A reply later than this is a hang: the endpoint promises an answer within `resolveTimeoutMs` or so. */
const HANG_MS = 15_000;
const UNAVAILABLE = 'MCP server temporarily unavailable: try again later';
const NOT_FOUND = 'MCP server not found';
const withinOneSecond = { timeout: 1000, interval: 25 };
/** Short, so that a stream of a killed instance is known lost soon. */
const STREAM_LEASE_MS = 600;
const RUN_LOST = 'Run lost: the call stopped before it answered; call the tool again';

describeEach(databases.filter((kind) => kind.name === 'postgres'))('three instances on one $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let writer: KnexServerStore;
  let database: TcpProxy;
  let balancer: RoundRobinProxy;
  let bundle: string;
  const instances: Instance[] = [];
  let instanceEnv: Record<string, string>;

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    await migrate(knex);
    // The console's instance: writes go straight to the database.
    writer = knexServerStore(knex);
    const url = new URL(process.env.TEST_POSTGRES_URL as string);
    database = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    bundle = await bundleInstance();
    const env = {
      DATABASE_URL: throughProxy(url.toString(), database),
      DATABASE_SCHEMA: (knex.client.config.searchPath as string[])[0] as string,
      RATE_LIMIT_REQUESTS: String(RATE_LIMIT_REQUESTS),
      RESOLVE_TIMEOUT_MS: String(RESOLVE_TIMEOUT_MS),
      STREAM_LEASE_MS: String(STREAM_LEASE_MS),
    };
    instanceEnv = env;
    instances.push(...(await Promise.all([0, 1, 2].map(() => startInstance(bundle, env)))));
    balancer = await startRoundRobinProxy(instances.map((instance) => Number(new URL(instance.url).port)));
    // Each instance listens from its first lookup on; let that happen before the suite starts.
    const warmUp = await publish('warm-up');
    for (const instance of instances) await ping(instance.url, warmUp, 200);
    await sleep(500);
  });
  afterAll(async () => {
    await balancer?.close();
    await Promise.all(instances.map((instance) => stopInstance(instance)));
    await database?.close();
    await writer?.close();
    await db?.destroy();
    if (bundle) await rm(dirname(bundle), { recursive: true, force: true });
  });

  const publish = (appId: string) =>
    writer.createServer({ tenantId: 't', appId, name: appId, description: '', parameters: {} });

  /** One request, guarded: a reply that does not come is a failure, not a stuck suite. */
  const post = (url: string, code: string, payload: unknown, headers: Record<string, string> = {}) =>
    guard(send(url, { path: `/mcp/server/${code}/mcp`, body: payload, headers }));

  async function ping(url: string, server: ServerRecord | string, status: number): Promise<Reply> {
    const code = typeof server === 'string' ? server : server.serverCode;
    const reply = await post(url, code, request(1, 'ping'));
    expect(reply.status).toBe(status);
    return reply;
  }

  /** Polls each instance on its own until `check` passes there; each has one second. */
  const everywhereWithinOneSecond = (check: (url: string) => Promise<void>) =>
    Promise.all(instances.map(({ url }) => vi.waitFor(() => check(url), withinOneSecond)));

  const call = (id: string, tool: string, tag: string) =>
    request(id, 'tools/call', { name: tool, arguments: { tag } });
  const runsOf = async (instance: Instance) =>
    (await guard(send(instance.url, { method: 'GET', path: '/runs' }))).json as {
      tag: string;
      event: string;
    }[];

  it('requests through the balancer go round the three instances', async () => {
    const server = await publish('echo');
    const pids = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const reply = await post(balancer.url, server.serverCode, call(`c${i}`, 'echo', `t${i}`), {
        'mcp-protocol-version': '2025-06-18',
      });
      pids.add(
        (reply.json as { result: { structuredContent: { pid: number } } }).result.structuredContent.pid,
      );
    }
    expect(pids.size).toBe(3);
  });

  it('a rotation is seen by all three within a second, with the default TTL', async () => {
    const server = await publish('rotated');
    for (const { url } of instances) await ping(url, server, 200); // cached everywhere now
    const rotated = await writer.rotateCode(server.id);
    // Polled with a notification, which the rate limit does not count: on a busy machine the
    // old code may still answer a few polls, and pings would spend the allowance the new code needs.
    await everywhereWithinOneSecond(async (url) =>
      expectRpcError(
        await post(url, server.serverCode, notification('notifications/initialized')),
        404,
        null,
        -32600,
        NOT_FOUND,
      ),
    );
    expect(DEFAULT_TTL_MS).toBeGreaterThan(withinOneSecond.timeout);
    for (const { url } of instances) await ping(url, rotated!, 200);
  });

  it('a deactivation is seen by all three within a second', async () => {
    const server = await publish('deactivated');
    for (const { url } of instances) await ping(url, server, 200);
    await writer.deactivateServer(server.id);
    await everywhereWithinOneSecond(async (url) =>
      expectRpcError(
        await post(url, server.serverCode, request(3, 'ping')),
        404,
        3,
        -32600,
        'MCP server is not active',
      ),
    );
  });

  it('a cancellation sent to instance B stops the run on instance A', async () => {
    const [a, b] = instances as [Instance, Instance];
    const server = await publish('wait');
    await ping(b.url, server, 200);
    const replying = post(a.url, server.serverCode, call('long-run', 'wait', 'cancel-me'));
    await vi.waitFor(
      async () => expect(await runsOf(a)).toContainEqual({ tag: 'cancel-me', event: 'started' }),
      {
        timeout: 5000,
      },
    );
    expectAccepted(
      await post(
        b.url,
        server.serverCode,
        notification('notifications/cancelled', { requestId: 'long-run' }),
      ),
    );
    expectRpcResult(await replying, 'long-run', {
      content: [{ type: 'text', text: 'the call was cancelled' }],
      isError: true,
    });
    expect(await runsOf(a)).toContainEqual({ tag: 'cancel-me', event: 'aborted' });
  });

  /**
   * A call of the tool of a freshly published `app`, with a progress token, opened as an event
   * stream on the instance at `url` (2025-06-18); `resume` takes it up after an event on another.
   */
  const streamedCall = async (url: string, app: string, id: string, tag: string) => {
    const server = await publish(app);
    const path = `/mcp/server/${server.serverCode}/mcp`;
    const body = request(id, 'tools/call', { name: app, arguments: { tag }, _meta: { progressToken: app } });
    const stream = await openSse(url, { path, headers: { 'mcp-protocol-version': '2025-06-18' }, body });
    const resume = (on: string, lastEventId: string) =>
      openSse(on, {
        method: 'GET',
        path,
        headers: { 'last-event-id': lastEventId, accept: 'text/event-stream' },
      });
    return { stream, resume };
  };

  it('a stream dropped on instance A is resumed on instance B, with no gap and no duplicate', async () => {
    const [a, b] = instances as [Instance, Instance];
    const { stream, resume } = await streamedCall(a.url, 'ticker', 'stream', 'resume-me');
    const first = [(await stream.next())!, (await stream.next())!];
    expect(said(first)).toEqual([1, 2]);
    stream.drop();
    const resumed = await resume(b.url, first[1]!.id!);
    expect(resumed.status).toBe(200);
    const rest = await resumed.rest();
    expect(said(rest)).toEqual([3, 4, 5, 6, 'result']);
    expect(JSON.parse(rest.at(-1)!.data!).result.structuredContent).toEqual({ tag: 'resume-me', ticks: 6 });
  });

  it('a stream whose instance is killed ends on another instance with an error saying its run was lost', async () => {
    const [, b] = instances as [Instance, Instance];
    const doomed = await startInstance(bundle, instanceEnv);
    try {
      const call = await streamedCall(doomed.url, 'hang', 'doomed', 'killed');
      const first = (await call.stream.next())!;
      expect(said([first])).toEqual([1]);
      call.stream.drop();
      const resume = () => call.resume(b.url, first.id!);
      // A follower from before the kill, and a resumption after it.
      const follower = await resume();
      expect(follower.status).toBe(200);
      doomed.child.kill('SIGKILL');
      const lost = { jsonrpc: '2.0', id: 'doomed', error: { code: -32603, message: RUN_LOST } };
      const followed = await guard(follower.rest());
      expect(followed.map((event) => JSON.parse(event.data!))).toEqual([lost]);
      const resumed = await guard(resume());
      expect(resumed.status).toBe(200);
      expect((await guard(resumed.rest())).map((event) => JSON.parse(event.data!))).toEqual([lost]);
    } finally {
      await stopInstance(doomed);
    }
  });

  it('the rate limit is shared: the allowance is spent across the three, not per instance', async () => {
    const server = await publish('limited');
    const statuses: number[] = [];
    const retryAfter: (string | undefined)[] = [];
    for (let i = 0; i < RATE_LIMIT_REQUESTS + 2; i++) {
      const reply = await post(balancer.url, server.serverCode, request(i, 'ping'));
      statuses.push(reply.status);
      if (reply.status === 429) {
        expectRpcError(reply, 429, i, -32000, 'Too many requests');
        retryAfter.push(reply.headers['retry-after']);
      }
    }
    // Round-robin, no instance saw more than 3 of these 8 requests: only a shared count stops them.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(retryAfter).toEqual([expect.stringMatching(/^(59|60)$/), expect.stringMatching(/^(59|60)$/)]);
  });

  it.each([
    ['drops every packet', 'silence'],
    ['refuses connections', 'reset'],
  ] as const)(
    'while PostgreSQL %s they serve cached codes, answer the rest 503, never hang, and recover',
    async (_what, how) => {
      const cached = await publish(`cached-${how}`);
      const uncached = await publish(`uncached-${how}`);
      for (const { url } of instances) await ping(url, cached, 200);
      database.cut(how);
      try {
        for (const { url } of instances) {
          await ping(url, cached, 200);
          const reply = await post(url, uncached.serverCode, request('u', 'ping'));
          expectRpcError(reply, 503, 'u', -32603, UNAVAILABLE);
          expect(reply.headers['retry-after']).toBe('5');
        }
        await sleep(DEFAULT_TTL_MS + 200); // every cached copy is stale now
        for (const { url } of instances) await ping(url, cached, 200);
      } finally {
        database.restore();
      }
      await recovered(uncached);
      await changesHeardAgain();
    },
  );

  /** Each instance serves a code it never saw before the outage, without a restart. */
  async function recovered(server: ServerRecord): Promise<void> {
    for (const { url } of instances) {
      await vi.waitFor(() => ping(url, server, 200), { timeout: 15_000, interval: 200 });
    }
  }

  /** The LISTEN connections are back: a deactivation is heard everywhere within a second again. */
  async function changesHeardAgain(): Promise<void> {
    // A listener may still be reconnecting: try again, each time with a server of its own.
    await vi.waitFor(
      async () => {
        const server = await publish(`after-${randomUUID()}`);
        for (const { url } of instances) await ping(url, server, 200);
        await writer.deactivateServer(server.id);
        await everywhereWithinOneSecond(async (url) => {
          await ping(url, server, 404);
        });
      },
      { timeout: 20_000, interval: 500 },
    );
  }
});

function guard<T>(work: Promise<T>, ms = HANG_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
