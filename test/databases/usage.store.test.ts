/**
 * Usage on every database (docs/usage.md): two instances of the host, each with its own Knex
 * instance on one database, add up in the same rows; 200 calls make no usage write while they run
 * and one statement when the router drains; and a daily quota's counter lets exactly its quota of
 * calls through, however many instances race for it.
 */

import express from 'express';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, mcpServer, migrate } from '../../src/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';
import {
  LEGACY_HEADERS,
  legacyCall,
  loadUsageApp,
  publishUsageServers,
  runUsageApp,
  type UsageServers,
} from '../helpers/usage.js';

describeEach(databases)("usage counts on '$name'", (kind) => {
  let db: TestDatabase;
  const knexes: Knex[] = [];
  const stores: KnexServerStore[] = [];
  const hosts: Host[] = [];
  let servers: UsageServers;
  const reports: unknown[] = [];
  /** The statements instance A sent that touch the usage table. */
  const usageStatements: string[] = [];

  beforeAll(async () => {
    db = await kind.create();
    for (let index = 0; index < 2; index++) {
      const knex = db.connect();
      if (index === 0) await migrate(knex);
      const store = knexServerStore(knex);
      knexes.push(knex);
      stores.push(store);
    }
    knexes[0]!.on('query', (query: { sql: string }) => {
      if (query.sql.includes('mcp_usage')) usageStatements.push(query.sql);
    });
    servers = await publishUsageServers(stores[0]!);
  });

  /** One instance of the host on store `index`'s Knex instance; a router drained stays closed. */
  async function startInstance(index: number) {
    const app = express();
    // No `store` option: the resolver's store counts the usage, as in the README's quick start.
    const router = mcpServer({
      resolveServer: stores[index]!.resolver(loadUsageApp),
      runApp: runUsageApp,
      onError: (error) => reports.push(error),
    });
    app.use(router);
    const host = await serveApp(app, hostVariants[0]!);
    hosts.push(host);
    const call = async (id: number, text = 'hi') => {
      const reply = await host.post(servers.echo.serverCode, legacyCall(id, 'Echo', text), LEGACY_HEADERS);
      expect(reply.status).toBe(200);
    };
    return { call, drain: () => router.drain() };
  }

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await Promise.all(stores.map((store) => store.close()));
    await db?.destroy();
  });

  it('200 calls make no usage write while they run, and one statement when the router drains', async () => {
    const instance = await startInstance(0);
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          instance.call(batch * 20 + index, index % 10 === 0 ? 'fail' : 'hi'),
        ),
      );
    }
    expect(usageStatements).toEqual([]);
    await instance.drain();
    expect(usageStatements).toHaveLength(1);
    expect(usageStatements[0]).toMatch(/^insert into ["`]mcp_usage["`]/);
    const now = Math.floor(Date.now() / 1000);
    expect(await stores[0]!.usage!.readUsage(servers.echo.id, now - 3600, now + 3600, 'tool')).toEqual([
      { tool: 'Echo', calls: 200, errors: 20, durationMs: expect.any(Number), tasks: 0, asks: 0 },
    ]);
    expect(reports).toEqual([]);
  });

  it('two instances add up in the same rows, even when they write at the same moment', async () => {
    const before = (await stores[1]!.usage!.readUsage(servers.echo.id, 0, 2 ** 40, 'caller'))[0]!.calls;
    const [a, b] = [await startInstance(0), await startInstance(1)];
    await Promise.all([
      ...Array.from({ length: 30 }, (_, index) => a.call(1000 + index)),
      ...Array.from({ length: 45 }, (_, index) => b.call(2000 + index)),
    ]);
    await Promise.all([a.drain(), b.drain()]);
    const rows = await stores[1]!.usage!.readUsage(servers.echo.id, 0, 2 ** 40, 'caller');
    expect(rows).toEqual([
      {
        caller: { kind: 'code', id: '', name: null },
        calls: before + 75,
        errors: 20,
        durationMs: expect.any(Number),
        tasks: 0,
        asks: 0,
      },
    ]);
    expect(reports).toEqual([]);
  });

  it('over HTTP, a spent daily quota answers 429 with Retry-After to midnight UTC, on every instance', async () => {
    const withQuota = (index: number) => ({
      ...stores[index]!,
      // Every caller of the Shout server may make two calls a day; Echo's have no quota.
      dailyCallQuota: (serverId: string) => (serverId === servers.shout.id ? 2 : null),
    });
    const hosts2: Host[] = [];
    for (const index of [0, 1]) {
      const app = express();
      app.use(
        mcpServer({
          resolveServer: stores[index]!.resolver(loadUsageApp),
          store: withQuota(index),
          runApp: runUsageApp,
          onError: (error) => reports.push(error),
          auth: {
            verifyToken: async (token) => ({ subject: token, tenantId: 'tenant-usage', scopes: [] }),
            authorizationServers: ['https://auth.example.com'],
          },
        }),
      );
      const host = await serveApp(app, hostVariants[0]!);
      hosts.push(host);
      hosts2.push(host);
    }
    const call = (index: number, id: number, who: string) =>
      hosts2[index]!.post(servers.shout.serverCode, legacyCall(id, 'Shout', 'hi'), {
        ...LEGACY_HEADERS,
        authorization: `Bearer ${who}`,
      });
    expect((await call(0, 1, 'alice')).status).toBe(200);
    expect((await call(1, 2, 'alice')).status).toBe(200);
    const refused = await call(0, 3, 'alice');
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400;
    expect({ status: refused.status, type: refused.headers['content-type'], body: refused.json }).toEqual({
      status: 429,
      type: 'application/json',
      body: {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32000,
          message:
            'Daily call quota spent: this caller has made all the calls its quota allows for today (UTC); try again after midnight UTC',
        },
      },
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Math.abs(retryAfter - (midnight - Math.floor(Date.now() / 1000)))).toBeLessThanOrEqual(2);
    expect((await call(1, 4, 'alice')).status).toBe(429);
    // Bob has his own two calls; Echo's callers have no quota.
    expect((await call(1, 5, 'bob')).status).toBe(200);
    const echo = await hosts2[0]!.post(servers.echo.serverCode, legacyCall(6, 'Echo', 'hi'), LEGACY_HEADERS);
    expect(echo.status).toBe(200);
  });

  it("a daily quota's counter lets exactly its quota through, across instances racing for it", async () => {
    const caller = { kind: 'key' as const, id: 'key-1', name: 'ci' };
    const taken = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        stores[index % 2]!.usage!.takeDailyCall(servers.echo.id, caller, '2026-03-01', 10),
      ),
    );
    expect(taken.filter(Boolean)).toHaveLength(10);
    // Another key, and the next day, each have their own counter.
    expect(
      await stores[0]!.usage!.takeDailyCall(servers.echo.id, { ...caller, id: 'key-2' }, '2026-03-01', 10),
    ).toBe(true);
    expect(await stores[1]!.usage!.takeDailyCall(servers.echo.id, caller, '2026-03-02', 10)).toBe(true);
    expect(await stores[1]!.usage!.takeDailyCall(servers.echo.id, caller, '2026-03-01', 0)).toBe(false);
  });
});
