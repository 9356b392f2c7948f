/**
 * Rate limits count what runs (docs/http-contract.md, row 15a; docs/security.md): each message of a
 * batch counts as it would alone, and so does each `notifications/cancelled`; other notifications
 * stay free. On a farm, a cancellation is passed to the other instances (`NOTIFY`) only for a call
 * one of them told running, so a flood of unknown ids sends nothing to the database.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpServerOptions } from '../../src/index.js';
import { createWorld, type World } from '../helpers/apps.js';
import { databases, describeEach, expectCancelledAcross, twoInstances } from '../helpers/databases.js';
import { type Host, hostVariants, loadWorld, type Reply, suiteHosts } from '../helpers/hosts.js';
import {
  expectAccepted,
  expectRpcError,
  expectRpcReply,
  notification,
  request,
  rpcError,
  rpcResult,
} from '../helpers/rpc.js';

const variant = hostVariants[0]!;
const TOO_MANY = 'Too many requests';
const call = (id: string | number) =>
  request(id, 'tools/call', { name: 'Text_Stats', arguments: { text: 'the cat and the hat' } });
const cancel = (requestId: string | number) => notification('notifications/cancelled', { requestId });

/** The ids and error codes of a batch reply, in order. */
const outcomes = (reply: Reply) =>
  (reply.json as { id: unknown; error?: { code: number } }[]).map(({ id, error }) => [
    id,
    error?.code ?? 'ok',
  ]);

describe('what a rate limit counts, on one instance', () => {
  let world: World;
  const suite = suiteHosts(variant);
  const start = (overrides: Partial<McpServerOptions>) => suite.start(world.options(overrides));
  beforeEach(async () => {
    world = (await loadWorld(variant, createWorld)).world;
  });
  afterAll(suite.close);

  it('five batches of 100 calls at 5 a minute run 5 calls, not 500', async () => {
    const host = await start({ rateLimit: { requests: 5, windowMs: 60_000 } });
    const batchOf = (round: number) => Array.from({ length: 100 }, (_, i) => call(`${round}-${i}`));

    const replies: Reply[] = [];
    for (let round = 0; round < 5; round++) {
      replies.push(await host.post(world.codes.textStats, batchOf(round)));
    }

    expect(world.runs).toHaveLength(5);
    const [first, ...rest] = replies as [Reply, ...Reply[]];
    expect(first.status).toBe(200);
    expect(outcomes(first)).toEqual(Array.from({ length: 100 }, (_, i) => [`0-${i}`, i < 5 ? 'ok' : -32000]));
    expect((first.json as unknown[])[5]).toEqual(rpcError('0-5', -32000, TOO_MANY));
    for (const reply of rest) {
      expectRpcError(reply, 429, null, -32000, TOO_MANY);
      expect(reply.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    }
  });

  it('a batch counts each of its messages, notifications included, in order', async () => {
    const host = await start({ rateLimit: { requests: 3, windowMs: 60_000 } });

    const reply = await host.post(world.codes.faqBot, [
      request(1, 'ping'),
      notification('notifications/initialized'),
      request(2, 'ping'),
      request(3, 'ping'),
    ]);
    const after = await host.post(world.codes.faqBot, request(4, 'ping'));

    expectRpcReply(reply, 200, [rpcResult(1, {}), rpcResult(2, {}), rpcError(3, -32000, TOO_MANY)]);
    expectRpcError(after, 429, 4, -32000, TOO_MANY);
  });

  it('each notifications/cancelled counts, alone or in a batch, in both eras; other notifications stay free', async () => {
    const host = await start({ rateLimit: { requests: 4, windowMs: 60_000 } });
    const code = world.codes.faqBot;
    const modern = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: {
        requestId: 'm',
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      },
    };

    expectAccepted(await host.post(code, cancel(1)));
    expectAccepted(await host.post(code, modern, { 'mcp-protocol-version': '2026-07-28' }));
    expectAccepted(await host.post(code, [cancel(2), cancel(3)]));
    const over = await host.post(code, cancel(4));
    const overModern = await host.post(code, modern, { 'mcp-protocol-version': '2026-07-28' });
    const free = await host.post(code, notification('notifications/initialized'));

    expectRpcError(over, 429, null, -32000, TOO_MANY);
    expect(overModern.status).toBe(429);
    expectAccepted(free);
  });
});

/** Every `NOTIFY` on the calls channel whose payload names one of `ids`, as a third party hears them. */
async function listenForCalls(url: string, ids: () => string[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const heard: string[] = [];
  client.on('notification', ({ payload }) => {
    if (payload && ids().some((id) => payload.includes(id))) heard.push(payload);
  });
  await client.query('LISTEN mcp_calls_cancelled');
  return { heard, close: () => client.end() };
}

describeEach(databases.filter((kind) => kind.name === 'postgres'))(
  'cancellations on a farm on $name',
  (kind) => {
    let farm: Awaited<ReturnType<typeof twoInstances>>;
    let world: World;
    let hosts: Host[];
    let listener: Awaited<ReturnType<typeof listenForCalls>>;

    beforeAll(async () => {
      farm = await twoInstances(kind);
      ({ world, hosts } = farm);
      listener = await listenForCalls(process.env.TEST_POSTGRES_URL as string, () => [world.servers.slow.id]);
      // Both instances have looked the server up once, so both listen.
      for (const host of hosts)
        expect((await host.post(world.codes.slow, request(0, 'ping'))).status).toBe(200);
    });
    afterAll(async () => {
      await listener?.close();
      await farm?.close();
    });

    it('5,000 cancellations of ids that run nowhere send no NOTIFY', async () => {
      const [, b] = hosts as [Host, Host];
      listener.heard.length = 0;

      for (let round = 0; round < 50; round++) {
        const batch = Array.from({ length: 100 }, (_, i) => cancel(`nowhere-${round}-${i}`));
        expectAccepted(await b.post(world.codes.slow, batch));
      }
      // Passing a cancellation on is asynchronous: what would be sent is heard within moments.
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(listener.heard).toEqual([]);
    });

    it('a call that runs is told, and a cancellation sent to the other instance stops it', async () => {
      const slow = world.servers.slow.id;
      listener.heard.length = 0;
      await expectCancelledAcross(hosts, world, 'told', cancel, () =>
        vi.waitFor(() => expect(listener.heard).toEqual([JSON.stringify({ running: [slow, 'told'] })]), {
          timeout: 5000,
        }),
      );
      await vi.waitFor(() =>
        expect(listener.heard).toEqual([
          JSON.stringify({ running: [slow, 'told'] }),
          JSON.stringify([slow, 'told']),
          JSON.stringify({ ended: [slow, 'told'] }),
        ]),
      );
    });

    it('a cancellation that comes before the call is told waits for it, and stops it', async () => {
      await expectCancelledAcross(hosts, world, 'early', cancel);
    });

    it('a call that ends before it is told sends nothing', async () => {
      const [a] = hosts as [Host, Host];
      listener.heard.length = 0;
      const replying = a.post(
        world.codes.slow,
        request('quick', 'tools/call', { name: 'Slow', arguments: {} }),
      );
      (await world.nextSlowRun()).release('done');
      expect((await replying).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(listener.heard.filter((payload) => payload.includes('quick'))).toEqual([]);
    });
  },
);
