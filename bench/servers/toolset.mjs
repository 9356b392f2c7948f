/**
 * A toolset of 100 apps (docs/toolsets.md) beside a one-app server of the first of them, in one
 * process: `mcpServer` on a bare Express 5 app, resolving both codes through the Knex store on an
 * SQLite file, as `ours.mjs` does. Each app is the Echo app under its own id and name (`Echo_0` …
 * `Echo_99`). Its URLs: the toolset's, then the one-app server's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import knexFactory from 'knex';
import { TOOLSET_APPS } from '../fixture.mjs';
import { loadPackage, publishBenchApp, serve } from './harness.mjs';

const { knexServerStore, mcpServer, migrate } = await loadPackage();

const folder = mkdtempSync(join(tmpdir(), 'express-app-mcp-bench-toolset-'));
const knex = knexFactory({
  client: 'better-sqlite3',
  connection: { filename: join(folder, 'bench.sqlite') },
  useNullAsDefault: true,
});
await migrate(knex);
const store = knexServerStore(knex);
const servers = [];
for (const app of TOOLSET_APPS) servers.push(await publishBenchApp(store, app));
const toolset = await store.toolsets.create({
  tenantId: 'bench',
  name: 'Bench toolset',
  description: '',
  allPublished: false,
  members: TOOLSET_APPS.map((app) => ({ appId: app.id })),
});

const apps = new Map(TOOLSET_APPS.map((app) => [app.id, app]));
const app = express();
app.use(
  mcpServer({
    resolveServer: store.resolver(async (appId) => apps.get(appId) ?? null),
    runApp: async ({ inputs }) => ({ outputs: { text: inputs.text } }),
  }),
);

serve(app, [`/mcp/server/${toolset.serverCode}/mcp`, `/mcp/server/${servers[0].serverCode}/mcp`], {
  onStop: async () => {
    await knex.destroy();
    rmSync(folder, { recursive: true, force: true });
  },
});
