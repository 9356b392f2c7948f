/**
 * The endpoint's side of a farm: a lookup that does not answer in time (503 + Retry-After), a
 * database out of reach (503), rate limits (429 + Retry-After + -32000), in one process; then two
 * hosts on one PostgreSQL, each with its own store, as two instances: a cancellation sent to one
 * stops the run on the other, for the same server only, and the rate limit is counted for both.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpServerOptions, ResolvedServer } from '../../src/index.js';
import { createWorld, UNKNOWN_CODE, type World } from '../helpers/apps.js';
import { databases, describeEach, expectCancelledAcross, twoInstances } from '../helpers/databases.js';
import {
  type Host,
  hostVariants,
  loadPackage,
  loadWorld,
  type Reply,
  startHost,
  suiteHosts,
} from '../helpers/hosts.js';
import { expectAccepted, expectRpcError, expectRpcResult, notification, request } from '../helpers/rpc.js';

const variant = hostVariants[0]!;
const UNAVAILABLE = 'MCP server temporarily unavailable: try again later';

/** The JSON-RPC errors that tell when to come back: 503 while the store is out of reach, 429 over the rate limit. */
const RETRY_LATER = { 503: [-32603, UNAVAILABLE], 429: [-32000, 'Too many requests'] } as const;

/** A JSON-RPC error reply that also tells when to come back. */
function expectRetryLater(
  reply: Reply,
  status: keyof typeof RETRY_LATER,
  id: string | number,
  retryAfter: (seconds: number) => void,
) {
  const [code, message] = RETRY_LATER[status];
  expectRpcError(reply, status, id, code, message);
  expect(reply.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  retryAfter(Number(reply.headers['retry-after']));
}

describe('database trouble and rate limits, on one instance', () => {
  let world: World;
  const suite = suiteHosts(variant);
  const start = (overrides: Partial<McpServerOptions>) => suite.start(world.options(overrides));

  beforeAll(async () => {
    world = (await loadWorld(variant, createWorld)).world;
  });
  beforeEach(() => {
    world.reports.length = 0;
  });
  afterAll(suite.close);

  it('a lookup that does not answer within resolveTimeoutMs answers 503 with Retry-After, and is reported', async () => {
    const host = await start({ resolveServer: () => new Promise(() => {}), resolveTimeoutMs: 100 });
    const reply = await host.post(world.codes.textStats, request(7, 'tools/list'));
    expectRetryLater(reply, 503, 7, (seconds) => expect(seconds).toBe(5));
    expect(world.reports).toEqual([
      {
        error: expect.objectContaining({
          name: 'ResolveTimeout',
          message: 'resolveServer did not answer within 100 ms',
        }),
        context: { phase: 'resolve' },
      },
    ]);
  });

  it('a resolver that answers from what it has when the deadline passes is served', async () => {
    const resolve = world.options().resolveServer;
    const host = await start({
      resolveTimeoutMs: 100,
      resolveServer: (code, req, options) =>
        new Promise<ResolvedServer | null>((answer) => {
          options?.signal?.addEventListener('abort', () => answer(resolve(code, req)));
        }),
    });
    expectRpcResult(await host.post(world.codes.faqBot, request(1, 'ping')), 1, {});
    expect(world.reports).toEqual([]);
  });

  it('a database out of reach answers 503; any other failure stays a 500', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const down = await start({ resolveServer: async () => Promise.reject(refused) });
    expectRetryLater(await down.post(world.codes.textStats, request('a', 'ping')), 503, 'a', () => {});
    const broken = await start({ resolveServer: async () => Promise.reject(new TypeError('a bug')) });
    const reply = await broken.post(world.codes.textStats, request('b', 'ping'));
    expectRpcError(reply, 500, 'b', -32603, 'Internal error');
    expect(reply.headers['retry-after']).toBeUndefined();
    expect(world.reports.map((report) => report.error)).toEqual([refused, expect.any(TypeError)]);
  });

  it('the 2026-07-28 era answers the same 503', async () => {
    const host = await start({ resolveServer: () => new Promise(() => {}), resolveTimeoutMs: 50 });
    const params = {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
    const reply = await host.post(world.codes.textStats, request(3, 'tools/list', params), {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    });
    expectRetryLater(reply, 503, 3, () => {});
  });

  it('over rateLimit a server answers requests and cancellations 429 with Retry-After and -32000; other notifications, other servers and unknown codes are not affected', async () => {
    const host = await start({ rateLimit: { requests: 2, windowMs: 60_000 } });
    const code = world.codes.textStats;
    expectRpcResult(await host.post(code, request(1, 'ping')), 1, {});
    expectAccepted(await host.post(code, notification('notifications/initialized')));
    expectRpcResult(await host.post(code, request(2, 'ping')), 2, {});
    expectRetryLater(await host.post(code, request('over', 'ping')), 429, 'over', (seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(59);
      expect(seconds).toBeLessThanOrEqual(60);
    });
    // A cancellation counts as a request does (docs/http-contract.md, row 15a).
    expectRpcError(
      await host.post(code, notification('notifications/cancelled', { requestId: 1 })),
      429,
      null,
      -32000,
      'Too many requests',
    );
    expectAccepted(await host.post(code, notification('notifications/initialized')));
    expectRpcResult(await host.post(world.codes.faqBot, request(2, 'ping')), 2, {});
    expectRpcError(await host.post(UNKNOWN_CODE, request(3, 'ping')), 404, 3, -32600, 'MCP server not found');
    expectRpcError(await host.post(UNKNOWN_CODE, request(4, 'ping')), 404, 4, -32600, 'MCP server not found');
  });

  it('the allowance comes back when the window has passed', async () => {
    const host = await start({ rateLimit: { requests: 1, windowMs: 300 } });
    expectRpcResult(await host.post(world.codes.faqBot, request(1, 'ping')), 1, {});
    const over = await host.post(world.codes.faqBot, request(2, 'ping'));
    expectRetryLater(over, 429, 2, (seconds) => expect(seconds).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 350));
    expectRpcResult(await host.post(world.codes.faqBot, request(3, 'ping')), 3, {});
  });

  it('without rate-limiter-flexible installed, rateLimit is reported once when the router is made, and requests go on', async () => {
    vi.resetModules();
    vi.doMock('rate-limiter-flexible', () => {
      // What the module loader throws for a package that is not installed.
      throw Object.assign(new Error("Cannot find package 'rate-limiter-flexible'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    });
    try {
      const pkg = await import('../../src/index.js');
      const host = await startHost(
        variant,
        pkg,
        world.options({ rateLimit: { requests: 1, windowMs: 60_000 } }),
      );
      suite.hosts.push(host);
      await vi.waitFor(() => expect(world.reports).toHaveLength(1));
      for (const id of [1, 2, 3]) {
        expectRpcResult(await host.post(world.codes.faqBot, request(id, 'ping')), id, {});
      }
      expect(world.reports).toEqual([
        {
          // The test runner wraps what the mock throws; the error a host without the package gets
          // is in auth.optional-jose.test.ts, which has no rate-limiter-flexible.
          error: expect.objectContaining({
            cause: expect.objectContaining({ code: 'ERR_MODULE_NOT_FOUND' }),
          }),
          context: { phase: 'dispatch' },
        },
      ]);
    } finally {
      vi.doUnmock('rate-limiter-flexible');
    }
  });

  it.each([
    [{ rateLimit: { requests: 0, windowMs: 1000 } }, 'invalid option "rateLimit.requests"'],
    [{ rateLimit: { requests: 5 } }, 'invalid option "rateLimit.windowMs"'],
    [{ rateLimit: { requests: 5, windowMs: 1000, burst: 2 } }, 'unknown option "rateLimit.burst"'],
    [{ resolveTimeoutMs: -1 }, 'invalid option "resolveTimeoutMs"'],
    [{ store: {} }, 'store must be a server store'],
  ])('mcpServer(%j) is refused at once', async (overrides, message) => {
    const pkg = await loadPackage(variant.major);
    expect(() => pkg.mcpServer(world.options(overrides as Partial<McpServerOptions>))).toThrow(message);
  });
});

describeEach(databases.filter((kind) => kind.name === 'postgres'))('two instances on one $name', (kind) => {
  let farm: Awaited<ReturnType<typeof twoInstances>>;
  let world: World;
  let hosts: Host[];

  beforeAll(async () => {
    farm = await twoInstances(kind, { rateLimit: { requests: 8, windowMs: 60_000 } });
    ({ world, hosts } = farm);
  });
  afterAll(async () => {
    await farm?.close();
  });

  const call = (id: string) => request(id, 'tools/call', { name: 'Slow', arguments: {} });
  const cancel = (requestId: string) =>
    notification('notifications/cancelled', { requestId, reason: 'enough' });

  // The slow server takes 6 messages in these tests (cancellations count), within its allowance.
  it('a cancellation sent to instance B stops the run on instance A', async () => {
    // Both instances have looked the server up once, so both listen.
    for (const host of hosts) expectRpcResult(await host.post(world.codes.slow, request(0, 'ping')), 0, {});
    await expectCancelledAcross(hosts, world, 'long', cancel);
  });

  it('a cancellation for the same request id of another server stops nothing', async () => {
    const [a, b] = hosts as [Host, Host];
    const replying = a.post(world.codes.slow, call('mine'));
    const run = await world.nextSlowRun();
    expectAccepted(await b.post(world.codes.faqBot, cancel('mine')));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(run.release('done')).toBe(false);
    expectRpcResult(await replying, 'mine', { content: [{ type: 'text', text: 'done' }], isError: false });
  });

  it('a cancellation whose id is too long for a NOTIFY is accepted and stays on its instance, with nothing reported', async () => {
    const [, b] = hosts as [Host, Host];
    world.reports.length = 0;
    expectAccepted(await b.post(world.codes.slow, cancel('x'.repeat(9000))));
    // Passing it on is asynchronous: a failure would be reported within moments.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.reports).toEqual([]);
  });

  it('the rate limit is counted for both instances together, in the table migrate made', async () => {
    const [a, b] = hosts as [Host, Host];
    const code = world.codes.textStats;
    for (const [index, host] of [a, b, a, b, a, b, a, b].entries()) {
      expectRpcResult(await host.post(code, request(index, 'ping')), index, {});
    }
    expectRetryLater(await a.post(code, request('over', 'ping')), 429, 'over', () => {});
    expectRetryLater(await b.post(code, request('over', 'ping')), 429, 'over', () => {});
    const rows = await farm
      .knex('mcp_rate_limits')
      .where({ key: `mcp:${world.servers.textStats.id}` })
      .select('points');
    expect(rows).toEqual([{ points: 10 }]);
  });
});
