/**
 * Daily call quotas (docs/usage.md, "Quotas"): a caller with a quota of 2 makes two calls, its
 * third answers 429 with `Retry-After` up to the next UTC midnight and a JSON-RPC error that says
 * the quota is spent; another caller goes on; once the clock passes midnight the caller calls
 * again. The quota comes through the store's `dailyCallQuota`, as the caller keys' store gives it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/index.js';
import { createQuotaCheck } from '../../src/protocol/quota.js';
import type { ServingTarget } from '../../src/protocol/target.js';
import type { ServerStore } from '../../src/store/types.js';
import type { Caller } from '../../src/types/index.js';
import { expectRpcReply, rpcError } from '../helpers/rpc.js';
import {
  ECHO_APP,
  LEGACY_HEADERS,
  legacyCall,
  modernCall,
  publishUsageServers,
  type UsageServers,
  usageCore,
} from '../helpers/usage.js';

/** 2026-03-01 22:00 UTC: two hours to midnight. */
const LATE = Date.UTC(2026, 2, 1, 22, 0, 0);
const NEXT_DAY = Date.UTC(2026, 2, 2, 0, 0, 1);

const SPENT =
  'Daily call quota spent: this caller has made all the calls its quota allows for today (UTC); try again after midnight UTC';

describe('a caller with a daily call quota', () => {
  let servers: UsageServers;
  let core: ReturnType<typeof usageCore>;
  let clock = LATE;
  const quotas: Record<string, number> = { alice: 2 };

  const store = memoryServerStore();

  beforeAll(async () => {
    servers = await publishUsageServers(store);
    const withQuotas: ServerStore = {
      ...store,
      dailyCallQuota: (_serverId, caller) =>
        caller.kind === 'oauth' ? (quotas[caller.subject] ?? null) : null,
    };
    core = usageCore(store, { store: withQuotas }, () => clock);
  });

  const call = (id: number, subject: string) =>
    core.post(servers.shout.serverCode, legacyCall(id, 'Shout', 'hi'), LEGACY_HEADERS, subject);

  it('makes its quota of calls, then answers 429 with Retry-After to midnight UTC and a JSON-RPC error', async () => {
    expect((await call(1, 'alice')).status).toBe(200);
    expect((await call(2, 'alice')).status).toBe(200);
    const refused = await call(3, 'alice');
    expectRpcReply(refused, 429, rpcError(3, -32000, SPENT));
    expect(refused.headers['retry-after']).toBe('7200');
    // The 2026-07-28 era answers the same.
    const modern = modernCall(4, 'Shout', 'hi');
    const again = await core.post(servers.shout.serverCode, modern.payload, modern.headers, 'alice');
    expectRpcReply(again, 429, rpcError(4, -32000, SPENT));
    expect(again.headers['retry-after']).toBe('7200');
  });

  it('another caller of the same server is unaffected, and so is a caller without a quota', async () => {
    quotas.bob = 5;
    for (let id = 10; id < 13; id++) expect((await call(id, 'bob')).status).toBe(200);
    const echo = await core.post(servers.echo.serverCode, legacyCall(20, 'Echo', 'hi'), LEGACY_HEADERS);
    expect(echo.status).toBe(200);
  });

  it('the refused calls are not counted as usage', async () => {
    await core.usage.flush();
    const now = Math.floor(Date.now() / 1000);
    const callers = await store.usage!.readUsage(servers.shout.id, now - 3600, now + 3600, 'caller');
    expect(callers.map(({ caller, calls, errors }) => ({ caller, calls, errors }))).toEqual([
      { caller: { kind: 'oauth', id: 'bob', name: null }, calls: 3, errors: 0 },
      { caller: { kind: 'oauth', id: 'alice', name: null }, calls: 2, errors: 0 },
    ]);
  });

  it('when the UTC day turns, the caller calls again', async () => {
    clock = NEXT_DAY;
    expect((await call(30, 'alice')).status).toBe(200);
    expect((await call(31, 'alice')).status).toBe(200);
    const refused = await call(32, 'alice');
    expectRpcReply(refused, 429, rpcError(32, -32000, SPENT));
    expect(refused.headers['retry-after']).toBe(String(86_400 - 1));
  });

  it('a quota raised after the day was spent is asked again', async () => {
    quotas.alice = 3;
    expect((await call(40, 'alice')).status).toBe(200);
    expect((await call(41, 'alice')).status).toBe(429);
  });
});

describe('the quota check, for a caller key', () => {
  const target = (caller: Caller) =>
    ({
      server: { id: 'server-1', kind: 'app' },
      tools: { tools: [{ app: ECHO_APP }] },
      caller,
    }) as unknown as ServingTarget;
  const key = (id: string): Caller => ({ kind: 'key', id, name: `key ${id}` });

  it('counts per key id: one key spent leaves another of the same server its calls', async () => {
    const store = memoryServerStore();
    const check = createQuotaCheck({
      quotaOf: (_serverId, caller) => (caller.kind === 'key' ? 1 : null),
      store: store.usage!,
      now: () => LATE,
      report: () => {},
    });
    await check(target(key('a')), 1);
    await expect(check(target(key('a')), 2)).rejects.toMatchObject({
      kind: 'tooManyRequests',
      message: SPENT,
      headers: { 'Retry-After': '7200' },
    });
    await check(target(key('b')), 3);
    expect(check(target({ kind: 'code' }), 4)).toBeUndefined();
  });

  it('a counter that fails or does not answer within 250 ms lets the call through, and is reported', async () => {
    const reports: unknown[] = [];
    const counter = (take: () => Promise<boolean>) =>
      createQuotaCheck({
        quotaOf: () => 1,
        store: { ...memoryServerStore().usage!, takeDailyCall: take },
        now: () => LATE,
        report: (error) => reports.push(error),
      });
    await counter(() => Promise.reject(new Error('database down')))(target(key('a')), 1);
    const started = Date.now();
    await counter(() => new Promise<boolean>(() => {}))(target(key('a')), 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(reports.map((error) => (error as Error).message)).toEqual([
      'database down',
      'the daily call counter did not answer within 250 ms',
    ]);
  });
});
