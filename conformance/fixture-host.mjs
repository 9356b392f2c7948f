/**
 * A host of the conformance suite's fixture tools (./fixture-apps.mjs): each one published as an
 * app on its own MCP server, through the built package as a user would mount it. `run.mjs` starts
 * it after `npm run build` and runs each tool scenario against the server of its tool.
 *
 *   PORT=4000 node conformance/fixture-host.mjs
 *
 * `GET /servers` answers `{ "<tool name>": "<MCP endpoint path>" }`, and `"tasks-fixtures"` the
 * path of the router below. Servers live in memory: they are new on every start, and so are their
 * codes. Listens on 127.0.0.1 only; SIGTERM or SIGINT stops it.
 *
 * The `tasks-*` scenarios call several tools on one URL, and a server here has exactly one tool:
 * `POST /tasks-fixtures/mcp` is a conformance-only router that hands each request to the server
 * of its tool (`tools/call`), of its task (the task methods, for a task it saw created), or of
 * `slow_compute` (everything else), headers and body unchanged.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import express from 'express';
import { mcpServer, memoryServerStore } from 'express-app-mcp';
import { FIXTURE_APPS, runFixture } from './fixture-apps.mjs';
import { runTaskFixture, TASK_FIXTURE_APPS, TASK_SUPPORT } from './task-fixtures.mjs';

const TENANT_ID = 'conformance';

const APPS = [...FIXTURE_APPS, ...TASK_FIXTURE_APPS];
const TASKS_ROUTE = '/tasks-fixtures/mcp';
const store = memoryServerStore();
const servers = {};
for (const app of APPS) {
  const server = await store.createServer({
    tenantId: TENANT_ID,
    appId: app.id,
    name: app.name,
    description: app.description,
    parameters: {},
    taskSupport: TASK_SUPPORT[app.id] ?? 'optional',
  });
  servers[app.name] = `/mcp/server/${server.serverCode}/mcp`;
}
const loadApp = (appId, tenantId) =>
  tenantId === TENANT_ID ? (APPS.find((app) => app.id === appId) ?? null) : null;
const runApp = (run) => (TASK_SUPPORT[run.app.id] ? runTaskFixture(run) : runFixture(run));

const app = express();
app.post(TASKS_ROUTE, express.raw({ type: () => true, limit: '4mb' }), (req, res, next) => {
  routeTaskRequest(req, res).catch(next);
});
app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
app.get('/servers', (_req, res) => {
  res.json({ ...servers, 'tasks-fixtures': TASKS_ROUTE });
});

/** The server each task was created on, by its id. */
const taskServers = new Map();
const FORWARDED = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

/** Hands one request of the tasks router to the server it is for, and its reply back as it comes. */
async function routeTaskRequest(req, res) {
  let message;
  try {
    message = JSON.parse(Buffer.from(req.body).toString('utf8'));
  } catch {
    message = undefined;
  }
  const params = message?.params ?? {};
  const calling = message?.method === 'tools/call';
  let tool = 'slow_compute';
  if (calling && typeof params.name === 'string' && servers[params.name]) tool = params.name;
  else if (typeof params.taskId === 'string' && taskServers.has(params.taskId))
    tool = taskServers.get(params.taskId);
  const headers = {};
  for (const name of FORWARDED) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const reply = await fetch(`http://127.0.0.1:${httpServer.address().port}${servers[tool]}`, {
    method: 'POST',
    headers,
    body: req.body,
  });
  res.status(reply.status);
  for (const [name, value] of reply.headers) {
    if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
      res.setHeader(name, value);
  }
  if (calling && (reply.headers.get('content-type') ?? '').startsWith('application/json')) {
    const text = await reply.text();
    try {
      const taskId = JSON.parse(text)?.result?.taskId;
      if (typeof taskId === 'string') taskServers.set(taskId, tool);
    } catch {
      // not JSON after all: passed on as it is
    }
    res.end(text);
    return;
  }
  if (reply.body) for await (const chunk of reply.body) res.write(chunk);
  res.end();
}

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
