/**
 * The example host backend (README, "The example app"). Start it from the repository root with `npm start`.
 *
 * Environment:
 *   PORT           default 3000 (0 picks a free port)
 *   HOST           default 127.0.0.1
 *   DATABASE_URL   default an SQLite file under example-app/data/; postgres://… uses PostgreSQL
 *   CONSOLE_TOKEN  default dev-console-token: the bearer token of the console at /console/api
 *   ENCRYPTION_KEY default a fixed development key: 64 hex characters that encrypt the stored tool
 *                  providers' URLs and headers (`openssl rand -hex 32`)
 *   AUTH_PORT      default 0 (any free port): the port of the development authorization server
 *
 * On start it starts the development authorization server (a stand-in for your identity provider,
 * for the "oauth" demo server), migrates, publishes every demo app that has no server yet, stores
 * its own Text Stats server as the tool provider that Remote Text Stats calls, and prints each app's
 * MCP URL. SIGINT (Ctrl-C) and SIGTERM drain the MCP calls in progress (new ones answer 503), close
 * the HTTP servers and the database, then exit 0.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { TENANT_ID } from './apps.js';
import { describeDatabase, openDatabase } from './database.js';
import { startDevAuthorizationServer } from './dev-authorization-server.js';
import { createHost, seedServers } from './host.js';
import { seedTextStatsProvider } from './remote-stats.js';
import { seedToolsets } from './toolsets.js';

const DEFAULT_CONSOLE_TOKEN = 'dev-console-token';
/** The Inspector the printed command runs, at the version docs/clients.md names (npx -y: no prompt). */
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
/** For trying the example only: a real host keeps its key out of the code and the database. */
const DEFAULT_ENCRYPTION_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
/** How long in-flight requests may finish after a stop signal before their connections are cut. */
const GRACE_MS = 5000;

const config = readEnvironment(process.env);
const knex = openDatabase(config.databaseUrl);
let httpServer;
let startup;
let mcpRouter;
let devAuthorizationServer;
/** Ends the store's own PostgreSQL connection (its LISTEN), before the database closes. */
let closeStore = async () => {};

try {
  devAuthorizationServer = await startDevAuthorizationServer({
    host: config.host,
    port: config.authPort,
    publicHost: publicHost(config.host),
    tenantId: TENANT_ID,
  });
  const { app, store, providers, mcp, ownServer } = await createHost({
    knex,
    consoleToken: config.consoleToken,
    encryptionKey: config.encryptionKey,
    issuer: devAuthorizationServer.issuer,
  });
  mcpRouter = mcp;
  closeStore = () => store.close();
  const published = await seedServers(store);
  const toolsets = await seedToolsets(store);
  httpServer = createServer(app);
  httpServer.listen(config.port, config.host);
  await once(httpServer, 'listening');
  const { port } = httpServer.address();
  ownServer.port = port;
  const textStats = published.find(({ app }) => app.id === 'text-stats').server;
  await seedTextStatsProvider(providers, `${selfUrl(port)}/mcp/server/${textStats.serverCode}/mcp`).catch(
    (error) => {
      // Not fatal: the other apps work, and the provider can be fixed in its console.
      console.warn(`Remote Text Stats cannot call Text Stats: ${error.reason ?? error.message}`);
    },
  );
  startup = startupMessage(published, toolsets, port);
} catch (error) {
  console.error(`The example app could not start: ${error instanceof Error ? error.message : error}`);
  await devAuthorizationServer?.close();
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
// Printed once the stop signals are handled: whoever waits for "Press Ctrl-C to stop." may send one.
console.log(startup);

async function shutDown(signal) {
  console.log(`${signal} received: closing the HTTP server and the database…`);
  // New MCP calls answer 503 from now on; the calls in progress get up to GRACE_MS to finish.
  const drained = await mcpRouter.drain({ timeoutMs: GRACE_MS });
  if (!drained.completed) console.log(`${drained.inFlight} MCP call(s) still running after ${GRACE_MS} ms.`);
  const closed = new Promise((resolve) => httpServer.close(resolve));
  httpServer.closeIdleConnections();
  // Calls still running after the grace period are cut now rather than after a second one.
  const cut = setTimeout(() => httpServer.closeAllConnections(), drained.completed ? GRACE_MS : 0);
  await closed;
  clearTimeout(cut);
  await devAuthorizationServer.close();
  await closeStore();
  await knex.destroy();
  console.log('Stopped.');
}

function readEnvironment(env) {
  return {
    port: portOf(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL,
    consoleToken: env.CONSOLE_TOKEN || DEFAULT_CONSOLE_TOKEN,
    encryptionKey: env.ENCRYPTION_KEY || DEFAULT_ENCRYPTION_KEY,
    authPort: portOf(env, 'AUTH_PORT', 0),
  };
}

function portOf(env, name, fallback) {
  const port = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number from 0 to 65535, not "${env[name]}"`);
    process.exit(1);
  }
  return port;
}

/** How this process reaches itself: over loopback when it listens on every address. */
function selfUrl(port) {
  const { address } = httpServer.address();
  if (['0.0.0.0', '127.0.0.1'].includes(address)) return `http://127.0.0.1:${port}`;
  if (['::', '::1'].includes(address)) return `http://[::1]:${port}`;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** The host name clients should use: `localhost` unless the server listens on one specific other address. */
function publicHost(host) {
  if (['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function startupMessage(published, toolsets, port) {
  const base = `http://${publicHost(config.host)}:${port}`;
  const token = config.consoleToken === DEFAULT_CONSOLE_TOKEN ? DEFAULT_CONSOLE_TOKEN : '$CONSOLE_TOKEN';
  const byCode = published.filter(({ server }) => server.authMode !== 'oauth');
  const byUser = published.filter(({ server }) => server.authMode === 'oauth');
  const first = byCode.find(({ server }) => server.status === 'active') ?? byCode[0];
  const firstUrl = `${base}/mcp/server/${first.server.serverCode}/mcp`;
  const lines = [
    `express-app-mcp example app listening on ${base} (${describeDatabase(config.databaseUrl)}, pid ${process.pid})`,
    '',
    'MCP servers (one per app; the code in each URL is a secret):',
  ];
  for (const { app, server } of byCode) {
    const inactive = server.status === 'active' ? '' : '  [inactive: reactivate it in the console]';
    lines.push(`  ${app.name} (${app.mode})${inactive}`);
    lines.push(`    ${base}/mcp/server/${server.serverCode}/mcp`);
  }
  lines.push('', 'Toolsets (several apps behind one URL, docs/toolsets.md):');
  for (const toolset of toolsets) {
    lines.push(`  ${toolset.name}`, `    ${base}/mcp/server/${toolset.serverCode}/mcp`);
  }
  lines.push(
    '',
    'Connect a client, e.g. to the first one:',
    '  MCP Inspector (CLI):',
    `    npx -y ${INSPECTOR} --cli ${firstUrl} --transport http --method tools/list`,
    '  Claude Code:',
    `    claude mcp add --transport http ${first.app.id} ${firstUrl}`,
    '  Claude Desktop (claude_desktop_config.json, through mcp-remote):',
    `    { "mcpServers": { "${first.app.id}": { "command": "npx", "args": ["-y", "mcp-remote", "${firstUrl}"] } } }`,
    '  Cursor, VS Code and more: docs/clients.md, or the console page.',
    '  Any MCP SDK: a Streamable HTTP client transport on the URL.',
    '',
    'Per-user access (OAuth): a user signs in before a client may call these:',
    ...byUser.flatMap(({ app, server }) => [
      `  ${app.name} (${app.mode}, oauth)`,
      `    ${base}/mcp/server/${server.serverCode}/mcp`,
    ]),
    `  Sign-in: ${devAuthorizationServer.issuer}, a DEVELOPMENT stand-in for your identity provider (any name signs in)`,
    '  Connect with a client that does OAuth, e.g. mcp-remote, which opens the sign-in page in your browser:',
    ...byUser
      .slice(0, 1)
      .map(({ server }) => `    npx -y mcp-remote ${base}/mcp/server/${server.serverCode}/mcp`),
    '',
    `Console page (sign in with the console token): ${base}/console/api/`,
    `Console API (Authorization: Bearer ${token}), e.g.:`,
    `  curl -H "Authorization: Bearer ${token}" ${base}/console/api/apps/${first.app.id}/server`,
    `Remote MCP servers the apps call (Remote Text Stats calls Text Stats through one):`,
    `  curl -H "Authorization: Bearer ${token}" ${base}/console/api/tool-providers`,
    `Apps: curl ${base}/apps`,
    '',
    'Press Ctrl-C to stop.',
  );
  return lines.join('\n');
}
