/**
 * A host of the conformance suite's fixture tools (./fixture-apps.mjs): each one published as an
 * app on its own MCP server, through the built package as a user would mount it. `run.mjs` starts
 * it after `npm run build` and runs each tool scenario against the server of its tool.
 *
 *   PORT=4000 node conformance/fixture-host.mjs
 *
 * `GET /servers` answers `{ "<tool name>": "<MCP endpoint path>" }`. Servers live in memory: they
 * are new on every start, and so are their codes. Listens on 127.0.0.1 only; SIGTERM or SIGINT
 * stops it.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import express from 'express';
import { mcpServer, memoryServerStore } from 'express-app-mcp';
import { FIXTURE_APPS, runFixture } from './fixture-apps.mjs';

const TENANT_ID = 'conformance';

const store = memoryServerStore();
const servers = {};
for (const app of FIXTURE_APPS) {
  const server = await store.createServer({
    tenantId: TENANT_ID,
    appId: app.id,
    name: app.name,
    description: app.description,
    parameters: {},
  });
  servers[app.name] = `/mcp/server/${server.serverCode}/mcp`;
}
const loadApp = (appId, tenantId) =>
  tenantId === TENANT_ID ? (FIXTURE_APPS.find((app) => app.id === appId) ?? null) : null;

const app = express();
app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp: runFixture }));
app.get('/servers', (_req, res) => {
  res.json(servers);
});

const httpServer = createServer(app);
httpServer.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
await once(httpServer, 'listening');
console.log(`conformance fixture host on http://127.0.0.1:${httpServer.address().port}`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    httpServer.close(() => process.exit(0));
    httpServer.closeAllConnections();
  });
}
