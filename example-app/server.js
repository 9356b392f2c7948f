/**
 * The example host backend (SPEC §8). Start it from the repository root with `npm start`.
 *
 * Environment:
 *   PORT           default 3000 (0 picks a free port)
 *   HOST           default 127.0.0.1
 *   DATABASE_URL   default an SQLite file under example-app/data/; postgres://… uses PostgreSQL
 *   CONSOLE_TOKEN  default dev-console-token: the bearer token of the console at /console/api
 *
 * On start it migrates, publishes every demo app that has no server yet, and prints each app's MCP
 * URL. SIGINT (Ctrl-C) and SIGTERM close the HTTP server and the database, then exit 0.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { describeDatabase, openDatabase } from './database.js';
import { createHost, seedServers } from './host.js';

const DEFAULT_CONSOLE_TOKEN = 'dev-console-token';
/** How long in-flight requests may finish after a stop signal before their connections are cut. */
const GRACE_MS = 5000;

const config = readEnvironment(process.env);
const knex = openDatabase(config.databaseUrl);
let httpServer;
/** Ends the store's own PostgreSQL connection (its LISTEN), before the database closes. */
let closeStore = async () => {};

try {
  const { app, store } = await createHost({ knex, consoleToken: config.consoleToken });
  closeStore = () => store.close();
  const published = await seedServers(store);
  httpServer = createServer(app);
  httpServer.listen(config.port, config.host);
  await once(httpServer, 'listening');
  console.log(startupMessage(published, httpServer.address().port));
} catch (error) {
  console.error(`The example app could not start: ${error instanceof Error ? error.message : error}`);
  await knex.destroy().catch(() => {});
  process.exit(1);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) {
      console.log(`${signal} again: exiting without waiting.`);
      process.exit(1);
    }
    stopping = true;
    shutDown(signal).then(
      () => process.exit(0),
      (error) => {
        console.error('The example app did not shut down cleanly:', error);
        process.exit(1);
      },
    );
  });
}

async function shutDown(signal) {
  console.log(`${signal} received: closing the HTTP server and the database…`);
  const closed = new Promise((resolve) => httpServer.close(resolve));
  httpServer.closeIdleConnections();
  const cut = setTimeout(() => httpServer.closeAllConnections(), GRACE_MS);
  await closed;
  clearTimeout(cut);
  await closeStore();
  await knex.destroy();
  console.log('Stopped.');
}

function readEnvironment(env) {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number from 0 to 65535, not "${env.PORT}"`);
    process.exit(1);
  }
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL,
    consoleToken: env.CONSOLE_TOKEN || DEFAULT_CONSOLE_TOKEN,
  };
}

/** The host name clients should use: `localhost` unless the server listens on one specific other address. */
function publicHost(host) {
  if (['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function startupMessage(published, port) {
  const base = `http://${publicHost(config.host)}:${port}`;
  const token = config.consoleToken === DEFAULT_CONSOLE_TOKEN ? DEFAULT_CONSOLE_TOKEN : '$CONSOLE_TOKEN';
  const first = published.find(({ server }) => server.status === 'active') ?? published[0];
  const firstUrl = `${base}/mcp/server/${first.server.serverCode}/mcp`;
  const lines = [
    `express-app-mcp example app listening on ${base} (${describeDatabase(config.databaseUrl)}, pid ${process.pid})`,
    '',
    'MCP servers (one per app; the code in each URL is a secret):',
  ];
  for (const { app, server } of published) {
    const inactive = server.status === 'active' ? '' : '  [inactive: reactivate it in the console]';
    lines.push(`  ${app.name} (${app.mode})${inactive}`);
    lines.push(`    ${base}/mcp/server/${server.serverCode}/mcp`);
  }
  lines.push(
    '',
    'Connect a client, e.g. to the first one:',
    '  MCP Inspector (CLI, Node 22 or later):',
    `    npx @modelcontextprotocol/inspector --cli ${firstUrl} --transport http --method tools/list`,
    '  Claude Desktop (claude_desktop_config.json, through mcp-remote):',
    `    { "mcpServers": { "${first.app.id}": { "command": "npx", "args": ["mcp-remote", "${firstUrl}"] } } }`,
    '  Any MCP SDK: a Streamable HTTP client transport on the URL.',
    '',
    `Console API (Authorization: Bearer ${token}), e.g.:`,
    `  curl -H "Authorization: Bearer ${token}" ${base}/console/api/apps/${first.app.id}/server`,
    `Apps: curl ${base}/apps`,
    '',
    'Press Ctrl-C to stop.',
  );
  return lines.join('\n');
}
