/**
 * Usage counts (docs/usage.md): a known mix of calls (answers, failing runs, invalid arguments,
 * tasks, runs that ask a person) over two tools and three callers, in two UTC hours, comes back
 * from the store per hour, per tool and per caller exactly; and the buffer holds at most its key cap.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpCore } from '../../src/endpoint/mcp-core.js';
import { type McpServerOptions, parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import { memoryServerStore } from '../../src/index.js';
import { UsageBuffer, UsageNotCounted } from '../../src/store/usage/buffer.js';
import type { UsageCounts, UsageStore } from '../../src/store/usage/types.js';
import {
  LEGACY_HEADERS,
  legacyCall,
  loadUsageApp,
  modernCall,
  publishUsageServers,
  runUsageApp,
  type UsageServers,
  usageCore,
} from '../helpers/usage.js';

const HOUR_S = 3600;
/** 2026-03-01 10:20 UTC, and an hour later. */
const TEN = Date.UTC(2026, 2, 1, 10, 20);
const ELEVEN = TEN + HOUR_S * 1000;
const hourOf = (ms: number) => Math.floor(ms / 3_600_000) * HOUR_S;

describe('usage counts after a known mix of calls', () => {
  const store = memoryServerStore();
  let servers: UsageServers;
  let core: ReturnType<typeof usageCore>;

  beforeAll(async () => {
    servers = await publishUsageServers(store);
    core = usageCore(store, { usage: { flushMs: 60_000, maxKeys: 1000 } });
    vi.useFakeTimers({ toFake: ['Date'] });
    const echo = servers.echo.serverCode;
    const shout = servers.shout.serverCode;
    const expectOk = async (reply: Promise<{ status: number }>) => expect((await reply).status).toBe(200);

    // 10:20 UTC — the code's holder: 3 good Echo calls, 1 failing run, 1 call with invalid arguments.
    vi.setSystemTime(TEN);
    for (let id = 1; id <= 3; id++)
      await expectOk(core.post(echo, legacyCall(id, 'Echo', 'hi'), LEGACY_HEADERS));
    await expectOk(core.post(echo, legacyCall(4, 'Echo', 'fail'), LEGACY_HEADERS));
    await expectOk(
      core.post(
        echo,
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'Echo', arguments: {} } },
        LEGACY_HEADERS,
      ),
    );
    // Alice on Shout: 2 good calls; Bob: 1 failing run.
    await expectOk(core.post(shout, legacyCall(6, 'Shout', 'hi'), LEGACY_HEADERS, 'alice'));
    await expectOk(core.post(shout, legacyCall(7, 'Shout', 'hi'), LEGACY_HEADERS, 'alice'));
    await expectOk(core.post(shout, legacyCall(8, 'Shout', 'fail'), LEGACY_HEADERS, 'bob'));

    // 11:20 UTC — a task (2025-11-25), and a run that asks (2026-07-28: input_required, then the answer).
    vi.setSystemTime(ELEVEN);
    const task = await core.post(
      echo,
      legacyCall(9, 'Echo', 'later', { task: { ttl: 60_000 } }),
      LEGACY_HEADERS,
    );
    expect(task.json).toMatchObject({ result: { task: { status: 'working' } } });
    const asking = modernCall(10, 'Shout', 'ask');
    const first = await core.post(shout, asking.payload, asking.headers, 'alice');
    const { requestState } = (first.json as { result: { requestState: string } }).result;
    expect(first.json).toMatchObject({ result: { resultType: 'input_required' } });
    const retry = modernCall(11, 'Shout', 'ask', {
      requestState,
      inputResponses: { 'question-1': { action: 'accept', content: { name: 'Ann' } } },
    });
    const answered = await core.post(shout, retry.payload, retry.headers, 'alice');
    expect(answered.json).toMatchObject({ result: { resultType: 'complete', isError: false } });
    // Five keys (server, tool, caller, hour); the task's run ends on its own, and its key comes then.
    await vi.waitFor(() => expect(core.usage.size).toBe(5));
    await core.usage.flush();
  });

  afterAll(() => {
    vi.useRealTimers();
  });

  const read = async (serverId: string, groupBy: 'hour' | 'tool' | 'caller') =>
    (store.usage as UsageStore).readUsage(serverId, hourOf(TEN), hourOf(ELEVEN) + HOUR_S, groupBy);

  it('per hour: each call in the UTC hour it began in, errors and tasks and asks counted', async () => {
    expect(await read(servers.echo.id, 'hour')).toEqual([
      { hour: hourOf(TEN), calls: 5, errors: 2, durationMs: expect.any(Number), tasks: 0, asks: 0 },
      { hour: hourOf(ELEVEN), calls: 1, errors: 0, durationMs: expect.any(Number), tasks: 1, asks: 0 },
    ]);
    expect(await read(servers.shout.id, 'hour')).toEqual([
      { hour: hourOf(TEN), calls: 3, errors: 1, durationMs: expect.any(Number), tasks: 0, asks: 0 },
      // The call that asked counts once, with its question, however many rounds it took.
      { hour: hourOf(ELEVEN), calls: 1, errors: 0, durationMs: expect.any(Number), tasks: 0, asks: 1 },
    ]);
  });

  it('per tool and per caller, largest first', async () => {
    expect(await read(servers.echo.id, 'tool')).toEqual([
      { tool: 'Echo', calls: 6, errors: 2, durationMs: expect.any(Number), tasks: 1, asks: 0 },
    ]);
    expect(await read(servers.echo.id, 'caller')).toEqual([
      {
        caller: { kind: 'code', id: '', name: null },
        calls: 6,
        errors: 2,
        durationMs: expect.any(Number),
        tasks: 1,
        asks: 0,
      },
    ]);
    expect(await read(servers.shout.id, 'caller')).toEqual([
      {
        caller: { kind: 'oauth', id: 'alice', name: null },
        calls: 3,
        errors: 0,
        durationMs: expect.any(Number),
        tasks: 0,
        asks: 1,
      },
      {
        caller: { kind: 'oauth', id: 'bob', name: null },
        calls: 1,
        errors: 1,
        durationMs: expect.any(Number),
        tasks: 0,
        asks: 0,
      },
    ]);
  });
});

describe('the usage buffer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const recording = () => {
    const batches: UsageCounts[][] = [];
    let release: () => void = () => {};
    let hold = false;
    const store: UsageStore = {
      addUsage: async (rows) => {
        batches.push(rows.map((row) => ({ ...row })));
        if (hold) await new Promise<void>((resolve) => (release = resolve));
      },
      readUsage: async () => [],
      takeDailyCall: async () => true,
    };
    return {
      store,
      batches,
      holdWrites: () => (hold = true),
      release: () => {
        hold = false;
        release();
      },
    };
  };

  it('reaching the key cap writes the batch at once; keys beyond it while that write is under way are reported, not held', async () => {
    const written = recording();
    const reports: unknown[] = [];
    const buffer = new UsageBuffer(written.store, {
      flushMs: 60_000,
      maxKeys: 3,
      report: (error) => reports.push(error),
    });
    written.holdWrites();
    const caller = { kind: 'code' } as const;
    for (const tool of ['a', 'b', 'c']) buffer.count('s1', tool, caller, TEN, 5, false, false, 0);
    expect(written.batches).toEqual([]);
    buffer.count('s1', 'd', caller, TEN, 5, false, false, 0); // the cap: a, b, c go now
    expect(written.batches.map((batch) => batch.map((row) => row.tool))).toEqual([['a', 'b', 'c']]);
    for (const tool of ['e', 'f', 'g', 'h', 'i']) buffer.count('s1', tool, caller, TEN, 5, false, false, 0);
    expect(buffer.size).toBe(3); // d, e, f; g, h and i found the buffer full with a write under way
    written.release();
    await buffer.flush();
    expect(written.batches.map((batch) => batch.map((row) => row.tool))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(reports).toEqual([new UsageNotCounted(3)]);
  });

  it('a batch that fails is reported and written with the next one', async () => {
    const rows: UsageCounts[][] = [];
    let failing = true;
    const reports: unknown[] = [];
    const store: UsageStore = {
      addUsage: async (batch) => {
        if (failing) throw new Error('database down');
        rows.push(batch.map((row) => ({ ...row })));
      },
      readUsage: async () => [],
      takeDailyCall: async () => true,
    };
    const buffer = new UsageBuffer(store, {
      flushMs: 60_000,
      maxKeys: 10,
      report: (error) => reports.push(error),
    });
    buffer.count('s1', 'a', { kind: 'code' }, TEN, 5, true, false, 0);
    await buffer.flush();
    expect(reports).toEqual([new Error('database down')]);
    failing = false;
    buffer.count('s1', 'a', { kind: 'code' }, TEN, 7, false, false, 0);
    await buffer.flush();
    expect(rows).toEqual([
      [
        {
          serverId: 's1',
          hour: hourOf(TEN),
          tool: 'a',
          caller: { kind: 'code', id: '', name: null },
          calls: 2,
          errors: 1,
          durationMs: 12,
          tasks: 0,
          asks: 0,
        },
      ],
    ]);
  });
});

describe('switching usage counting', () => {
  const options = (extra: Partial<McpServerOptions>) =>
    parseMcpServerOptions({ resolveServer: async () => null, runApp: runUsageApp, ...extra });

  it("is on with a store's resolver or a store, and off with usage: false or without a store", () => {
    const store = memoryServerStore();
    expect(createMcpCore(options({ resolveServer: store.resolver(loadUsageApp) })).usage).toBeInstanceOf(
      UsageBuffer,
    );
    expect(createMcpCore(options({ store })).usage).toBeInstanceOf(UsageBuffer);
    expect(
      createMcpCore(options({ resolveServer: store.resolver(loadUsageApp), usage: false })).usage,
    ).toBeUndefined();
    expect(createMcpCore(options({})).usage).toBeUndefined();
  });

  it('usage takes only true, false or { flushMs, maxKeys }', () => {
    expect(() => options({ usage: { flushMs: 0 } })).toThrow(/usage/);
    expect(() => options({ usage: { every: 5 } as never })).toThrow(/usage/);
    expect(options({ usage: { maxKeys: 50 } }).usage).toEqual({ flushMs: 5000, maxKeys: 50 });
  });
});
