/**
 * Draining writes the usage counts still in memory (docs/usage.md), and waits for that write at most
 * the drain's own deadline: a database that does not answer never holds the shutdown.
 */
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServer, memoryServerStore } from '../../src/index.js';
import type { UsageStore } from '../../src/store/usage/types.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';
import {
  LEGACY_HEADERS,
  legacyCall,
  loadUsageApp,
  publishUsageServers,
  runUsageApp,
  type UsageServers,
} from '../helpers/usage.js';

describe('drain and the usage counts', () => {
  const store = memoryServerStore();
  let servers: UsageServers;
  const hosts: Host[] = [];

  beforeAll(async () => {
    servers = await publishUsageServers(store);
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
  });

  async function start(usage: UsageStore) {
    const app = express();
    const router = mcpServer({
      resolveServer: store.resolver(loadUsageApp),
      store: { ...store, usage },
      runApp: runUsageApp,
      onError: () => {},
    });
    app.use(router);
    const host = await serveApp(app, hostVariants[0]!);
    hosts.push(host);
    const reply = await host.post(servers.echo.serverCode, legacyCall(1, 'Echo', 'hi'), LEGACY_HEADERS);
    expect(reply.status).toBe(200);
    return router;
  }

  it('writes what is left when the router drains', async () => {
    const written: number[] = [];
    const router = await start({ ...store.usage!, addUsage: async (rows) => void written.push(rows.length) });
    expect(written).toEqual([]);
    expect(await router.drain()).toEqual({ completed: true, inFlight: 0 });
    expect(written).toEqual([1]);
  });

  it('a write that never ends is given up at the drain deadline', async () => {
    const router = await start({ ...store.usage!, addUsage: () => new Promise<void>(() => {}) });
    const started = Date.now();
    expect(await router.drain({ timeoutMs: 300 })).toEqual({ completed: true, inFlight: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
