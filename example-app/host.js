/**
 * The example host's Express application: what a team adds to its own backend to publish its apps
 * as MCP servers and to call remote MCP servers from them, plus routes of its own (`GET /apps`, and
 * the consoles behind a bearer token). Its apps: the demo apps (apps.js), two built with the AI SDK
 * and LangGraph (framework-apps.js), and Who Am I (oauth-demo.js).
 */
import { timingSafeEqual } from 'node:crypto';
import express from 'express';
import {
  jwtVerifier,
  knexServerStore,
  knexToolProviderStore,
  mcpConsole,
  mcpServer,
  mcpToolProviderConsole,
  migrate,
  ServerExistsError,
} from 'express-app-mcp';
import {
  DEMO_ANNOTATIONS,
  DEMO_APPS,
  loadApp as loadDemoApp,
  runApp as runLocalApp,
  TENANT_ID,
} from './apps.js';
import { MCP_SCOPE } from './dev-authorization-server.js';
import { FRAMEWORK_ANNOTATIONS, FRAMEWORK_APPS, runFrameworkApp } from './framework-apps.js';
import { runWhoami, WHOAMI_APP } from './oauth-demo.js';
import { REMOTE_STATS_APP_ID, remoteStatsRunner } from './remote-stats.js';

/** The host's apps: the demo apps, the framework apps, and Who Am I, the app of the "oauth" demo server. */
const HOST_APPS = [...FRAMEWORK_APPS, WHOAMI_APP];
const loadApp = (appId, tenantId) =>
  (tenantId === TENANT_ID && HOST_APPS.find((app) => app.id === appId)) || loadDemoApp(appId, tenantId);

/** The apps `GET /apps` lists: all but Who Am I, the app of the "oauth" demo server. */
const LISTED_APPS = [...DEMO_APPS, ...FRAMEWORK_APPS];

/**
 * Creates the tables if needed and the Express app. Nothing listens yet. With an `issuer`, servers
 * in "oauth" mode accept that authorization server's access tokens.
 * @param {{ knex: import('knex').Knex, consoleToken: string, encryptionKey: string, issuer?: string }} options
 */
export async function createHost({ knex, consoleToken, encryptionKey, issuer }) {
  // The package's own tables, with its own migrations table: the host's migrations are untouched.
  await migrate(knex);
  const store = knexServerStore(knex);
  // Remote MCP servers the apps may call; their URLs and headers are encrypted with the key.
  const providers = knexToolProviderStore(knex, { encryptionKey });
  // Tool providers may not reach loopback or private addresses (docs/security.md): this one may
  // reach the example's own server, where the Text Stats provider lives, once it listens, by any
  // of its loopback names (the console shows `localhost`, the seeded provider uses the address).
  /** @type {{ port: number | undefined }} */
  const ownServer = { port: undefined };
  /** @param {URL} url */
  const isAllowedUrl = (url) =>
    url.protocol === 'http:' &&
    url.port === String(ownServer.port) &&
    ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  const runRemoteStats = remoteStatsRunner(providers, { isAllowedUrl });
  /** @type {import('express-app-mcp').RunApp} */
  const runApp = (run) => {
    if (run.app.id === REMOTE_STATS_APP_ID) return runRemoteStats(run);
    if (run.app.id === WHOAMI_APP.id) return runWhoami(run);
    return runFrameworkApp(run) ?? runLocalApp(run);
  };

  const app = express();
  app.disable('x-powered-by');

  // Mounted before any global body parser: the MCP router reads its bodies itself, with its own
  // size limit, and answers bad JSON with a JSON-RPC error instead of the host's error page.
  // `store`: on PostgreSQL, cancellations reach the call on any instance (README, "Running several instances").
  const mcp = mcpServer({
    resolveServer: store.resolver(loadApp),
    store,
    runApp,
    ...(issuer ? { auth: oauth(issuer) } : {}),
  });
  app.use(mcp);

  // The rest of the host: a global JSON parser, as most Express backends have.
  app.use(express.json());

  // Handy for scripts: which apps exist. Never the server codes: they are credentials.
  app.get('/apps', (_req, res) => {
    res.json(LISTED_APPS.map(({ id, name, mode }) => ({ id, name, mode })));
  });

  const authorize = (req) => authorizeBearer(req, consoleToken);
  // The admin console for the remote MCP servers the apps may call: add, edit, refresh, try.
  app.use(
    '/console/api/tool-providers',
    mcpToolProviderConsole({ store: providers, authorize, isAllowedUrl }),
  );
  // The admin console: publish, edit, deactivate, rotate and unpublish servers (README, "Console API"),
  // and a page for people at /console/api/ that does the same (docs/console.md): it asks for the
  // console token once per browser tab and sends it as the bearer token `authorize` reads.
  app.use(
    '/console/api',
    mcpConsole({
      store,
      loadApp,
      authorize,
      listApps: (tenantId) => (tenantId === TENANT_ID ? [...LISTED_APPS, WHOAMI_APP] : []),
      page: { toolProviders: 'tool-providers' },
    }),
  );

  // `mcp.drain()` on shutdown: new calls answer 503, those in progress may finish (server.js).
  // `ownServer.port`: set it to the port the example listens on.
  return { app, store, providers, mcp, ownServer };
}

/**
 * Per-user access: JWT access tokens of the issuer, minted for the server's URL, with the scope
 * `mcp:tools`. The identity provider names each user's tenant in a `tenant_id` claim; a token of
 * another tenant is refused with 403.
 * @param {string} issuer
 * @returns {import('express-app-mcp').McpAuthOptions}
 */
function oauth(issuer) {
  const verifyJwt = jwtVerifier({ issuer });
  return {
    verifyToken: async (token, context) => {
      const info = await verifyJwt(token, context);
      const tenantId = info?.extra?.tenant_id;
      return info && typeof tenantId === 'string' ? { ...info, tenantId } : info;
    },
    authorizationServers: [issuer],
    scopesSupported: [MCP_SCOPE],
    requiredScopes: [MCP_SCOPE],
    resourceName: 'express-app-mcp example app',
  };
}

/**
 * The console's `authorize`: the demo tenant, with edit rights, for `Authorization: Bearer <token>`.
 * A real host would look up the signed-in user and their role here.
 */
function authorizeBearer(req, token) {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match || !safeEqual(match[1], token)) return null;
  return { tenantId: TENANT_ID, canEdit: true };
}

function safeEqual(given, expected) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Publishes every demo app that has no server yet (its first start), and returns each app with its
 * server. Two instances starting at once on one database both end up with the one server the
 * unique index let through.
 * @param {import('express-app-mcp').ServerStore} store
 */
export async function seedServers(store) {
  const published = [];
  for (const app of [...LISTED_APPS, WHOAMI_APP]) {
    let server = await store.getServerByApp(TENANT_ID, app.id);
    if (!server) {
      try {
        server = await store.createServer({
          tenantId: TENANT_ID,
          appId: app.id,
          name: app.name,
          description: app.description ?? '',
          parameters: {},
          annotations: DEMO_ANNOTATIONS[app.id] ?? FRAMEWORK_ANNOTATIONS[app.id],
          authMode: app === WHOAMI_APP ? 'oauth' : 'code',
        });
      } catch (error) {
        if (!(error instanceof ServerExistsError)) throw error;
        server = await store.getServerByApp(TENANT_ID, app.id);
      }
    }
    published.push({ app, server });
  }
  return published;
}
