/**
 * What the metrics suites share: a host mounted as the metrics guide (docs/metrics.md) shows it,
 * and reading one sample out of a scrape.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { type HostApp, type McpServerOptions, mcpServer, memoryServerStore } from '../../src/index.js';
import type { McpMetrics } from '../../src/metrics/index.js';
import { publishApp } from './apps.js';

/** One sample of a scrape: `name{labels} value`, the labels as written. */
export function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * `mcpServer({ …, metrics })` and `GET /metrics` on one Express app listening on 127.0.0.1,
 * serving `apps`, each published in a memory store; `options` gives `runApp` and what else the
 * suite needs. The servers come back in the order of `apps`.
 */
export async function startMetricsHost(
  apps: HostApp[],
  metrics: McpMetrics,
  options: Omit<McpServerOptions, 'resolveServer' | 'metrics'>,
) {
  const store = memoryServerStore();
  const servers = [];
  for (const app of apps) servers.push(await publishApp(store, app));
  const app = express();
  app.use(
    mcpServer({
      resolveServer: store.resolver((appId) => apps.find((candidate) => candidate.id === appId) ?? null),
      ...options,
      metrics,
    }),
  );
  app.get('/metrics', metrics.handler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url, servers, close };
}
