/**
 * Per-user access and the farm's features together (README, "Per-user access with OAuth" and
 * "Running several instances"): a resumed stream of an `"oauth"` server needs a valid token like
 * any request; callers refused at the door spend nothing of the server's rate limit; a
 * cancellation on an `"oauth"` server stops only the calls of the user who sent it, on any
 * instance; a server switched to `"oauth"` is refused on every instance within a second.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEvent, AppRun, HostApp, McpServerOptions, ServerRecord } from '../../src/index.js';
import { knexServerStore } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { publishApp } from '../helpers/apps.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { hostVariants, suiteHosts } from '../helpers/hosts.js';
import { skippedTitle } from '../helpers/postgres-skips.js';
import { expectAccepted, expectRpcError, expectRpcResult, notification, request } from '../helpers/rpc.js';
import { openSse, said } from '../helpers/sse.js';

const TENANT = 'acme';
const variant = hostVariants[0]!;
const TICKER: HostApp = { id: 'ticker', name: 'Ticker', mode: 'workflow', inputForm: [] };
const SLOW: HostApp = { id: 'slow', name: 'Slow', mode: 'completion', inputForm: [] };
const LIMITED: HostApp = { id: 'limited', name: 'Limited', mode: 'workflow', inputForm: [] };
const SWITCHED: HostApp = { id: 'switched', name: 'Switched', mode: 'workflow', inputForm: [] };
const APPS = [TICKER, SLOW, LIMITED, SWITCHED];
const NO_TOKEN = 'Unauthorized: this MCP server requires an OAuth access token (Authorization: Bearer)';
const BAD_TOKEN = 'Unauthorized: The access token is not valid for this server';

/** `user.<subject>` is a valid token of that subject; anything else is refused. */
const verifyToken = (token: string) =>
  token.startsWith('user.') ? { subject: token.slice(5), tenantId: TENANT, scopes: [] } : null;
const bearer = (subject: string) => ({ authorization: `Bearer user.${subject}` });

/** Four progress events 80 ms apart, then the outputs. */
async function* tick(): AsyncIterable<AppEvent> {
  for (let i = 1; i <= 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 80));
    yield { event: 'progress', progress: i, total: 4 };
  }
  yield { event: 'workflow_finished', outputs: { ticks: 4 } };
}

/** Runs of the slow app in progress, by their JSON-RPC id, until their signal fires. */
const slowRuns = new Map<string, AppRun>();
function runApp(run: AppRun) {
  if (run.app.id === TICKER.id) return tick();
  if (run.app.id !== SLOW.id) return { outputs: { ok: true } };
  return new Promise<{ answer: string }>((resolve) => {
    const key = `${run.auth?.subject}:${String(run.inputs.id ?? '')}`;
    slowRuns.set(key, run);
    run.signal.addEventListener('abort', () => resolve({ answer: 'stopped' }), { once: true });
    setTimeout(() => resolve({ answer: 'done' }), 600);
  });
}

const RATE_LIMIT = 10;
const slowCall = (id: string) => request(id, 'tools/call', { name: 'Slow', arguments: {} });
const cancel = (requestId: string) =>
  notification('notifications/cancelled', { requestId, reason: 'enough' });
const waitForRun = async (subject: string): Promise<AppRun> => {
  for (let i = 0; i < 100; i++) {
    const run = slowRuns.get(`${subject}:`);
    if (run) {
      slowRuns.delete(`${subject}:`);
      return run;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no run of ${subject}`);
};

describeEach(databases)('per-user access with the farm’s features on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let store: KnexServerStore;
  let servers: Record<'ticker' | 'slow' | 'limited' | 'switched', ServerRecord>;
  const suite = suiteHosts(variant);
  const stores: KnexServerStore[] = [];
  // PostgreSQL only: instances hear each other through NOTIFY (README, "Running several instances").
  const acrossInstances = (title: string) =>
    kind.name === 'postgres'
      ? title
      : skippedTitle(title, 'SQLite has no NOTIFY to pass changes between instances');

  const options = (own: KnexServerStore): McpServerOptions => ({
    resolveServer: own.resolver((appId) => APPS.find((app) => app.id === appId) ?? null),
    runApp,
    store: own,
    // Room for the slow server's calls and cancellations in these tests (cancellations count, docs/http-contract.md row 15a).
    rateLimit: { requests: RATE_LIMIT, windowMs: 60_000 },
    auth: { verifyToken, authorizationServers: ['https://idp.example.com'] },
    onError: (error) => {
      throw error;
    },
  });
  const start = (own = store) => suite.start(options(own));

  beforeAll(async () => {
    ({ db, knex } = await createMigrated(kind));
    store = knexServerStore(knex);
    const publish = (app: HostApp, authMode: 'code' | 'oauth') =>
      publishApp(store, app, { tenantId: TENANT, authMode });
    servers = {
      ticker: await publish(TICKER, 'oauth'),
      slow: await publish(SLOW, 'oauth'),
      limited: await publish(LIMITED, 'oauth'),
      switched: await publish(SWITCHED, 'code'),
    };
  });
  afterAll(async () => {
    await suite.close();
    await Promise.all([store, ...stores].map((made) => made?.close()));
    await db?.destroy();
  });

  it('a resumed stream needs a valid token on the path URL (401 without one), and is refused on the header route', async () => {
    const host = await start();
    const stream = await openSse(host.url, {
      path: host.path(servers.ticker.serverCode),
      headers: { 'mcp-protocol-version': '2025-06-18', ...bearer('alice') },
      body: request('t', 'tools/call', { name: 'Ticker', arguments: {}, _meta: { progressToken: 'p' } }),
    });
    expect(stream.status).toBe(200);
    const first = (await stream.next())!;
    stream.drop();
    const resume = (headers: Record<string, string>, path = host.path(servers.ticker.serverCode)) =>
      host.send({ method: 'GET', path, headers: { 'last-event-id': first.id!, ...headers } });

    const without = await resume({});
    expectRpcError(without, 401, null, -32600, NO_TOKEN);
    expect(without.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
    expectRpcError(await resume({ authorization: 'Bearer forged' }), 401, null, -32600, BAD_TOKEN);
    const viaHeader = await resume(
      { authorization: `Bearer ${servers.ticker.serverCode}` },
      '/mcp/server/mcp',
    );
    expect(viaHeader.status).toBe(403);

    const resumed = await openSse(host.url, {
      method: 'GET',
      path: host.path(servers.ticker.serverCode),
      headers: { 'last-event-id': first.id!, accept: 'text/event-stream', ...bearer('alice') },
    });
    expect(resumed.status).toBe(200);
    expect(said(await resumed.rest())).toEqual([2, 3, 4, 'result']);
  });

  it('callers refused at the door spend nothing of the server’s rate limit', async () => {
    const host = await start();
    const code = servers.limited.serverCode;
    for (let i = 0; i < 10; i++) {
      expectRpcError(await host.post(code, request(i, 'ping')), 401, i, -32600, NO_TOKEN);
    }
    for (let id = 1; id <= RATE_LIMIT; id++) {
      expectRpcResult(await host.post(code, request(id, 'ping'), bearer('alice')), id, {});
    }
    expectRpcError(
      await host.post(code, request(RATE_LIMIT + 1, 'ping'), bearer('alice')),
      429,
      RATE_LIMIT + 1,
      -32000,
      'Too many requests',
    );
  });

  it('a cancellation on an "oauth" server stops the calls of the user who sent it only', async () => {
    const host = await start();
    const code = servers.slow.serverCode;
    const alices = host.post(code, slowCall('c1'), bearer('alice'));
    const run = await waitForRun('alice');
    // Bob's client numbers its requests as Alice's does: his cancel names his own call 'c1'.
    expectAccepted(await host.post(code, cancel('c1'), bearer('bob')));
    expect(run.signal.aborted).toBe(false);
    expectAccepted(await host.post(code, cancel('c1'), bearer('alice')));
    expect(run.signal.aborted).toBe(true);
    expectRpcResult(await alices, 'c1', {
      content: [{ type: 'text', text: 'the call was cancelled' }],
      isError: true,
    });
  });

  it.skipIf(kind.name !== 'postgres')(
    acrossInstances(
      'on another instance too: a cancellation passed on stops the calls of the same user only',
    ),
    async () => {
      const other = knexServerStore(db.connect());
      stores.push(other);
      const [a, b] = [await start(), await start(other)];
      const code = servers.slow.serverCode;
      // Both instances have looked the server up once, so both listen.
      for (const host of [a, b])
        expect((await host.post(code, request(0, 'ping'), bearer('carol'))).status).toBe(200);
      const alices = a.post(code, slowCall('c2'), bearer('alice'));
      const run = await waitForRun('alice');
      expectAccepted(await b.post(code, cancel('c2'), bearer('bob')));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(run.signal.aborted).toBe(false);
      expectAccepted(await b.post(code, cancel('c2'), bearer('alice')));
      expectRpcResult(await alices, 'c2', {
        content: [{ type: 'text', text: 'the call was cancelled' }],
        isError: true,
      });
    },
  );

  it.skipIf(kind.name !== 'postgres')(
    acrossInstances('a server switched to "oauth" is refused on another instance within a second'),
    async () => {
      const other = knexServerStore(db.connect());
      stores.push(other);
      const host = await start(other);
      const code = servers.switched.serverCode;
      expectRpcResult(await host.post(code, request(1, 'ping')), 1, {});
      // The other instance listens once its first lookup is done; give it the time to connect.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.updateServer(servers.switched.id, { authMode: 'oauth' });
      const started = Date.now();
      let reply = await host.post(code, request(2, 'ping'));
      while (reply.status === 200 && Date.now() - started < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        reply = await host.post(code, request(2, 'ping'));
      }
      expectRpcError(reply, 401, 2, -32600, NO_TOKEN);
    },
  );
});

describe('the protected-resource metadata while the database is in trouble', () => {
  const WELL_KNOWN = '/.well-known/oauth-protected-resource';
  const SERVER: ServerRecord = {
    id: 'server-1',
    tenantId: TENANT,
    appId: LIMITED.id,
    name: 'Limited',
    description: '',
    serverCode: 'MetadataCode0001',
    status: 'active',
    authMode: 'oauth',
    parameters: {},
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
  const reports: unknown[] = [];
  const suite = suiteHosts(variant);
  afterAll(suite.close);

  const metadata = async (resolveServer: McpServerOptions['resolveServer']) => {
    const host = await suite.start({
      resolveServer,
      runApp,
      resolveTimeoutMs: 100,
      auth: { verifyToken, authorizationServers: ['https://idp.example.com'] },
      onError: (error) => {
        reports.push(error);
      },
    });
    const started = Date.now();
    const reply = await host.send({
      method: 'GET',
      path: `${WELL_KNOWN}/mcp/server/${SERVER.serverCode}/mcp`,
    });
    return { reply, ms: Date.now() - started };
  };

  it('a lookup that does not answer within resolveTimeoutMs answers 503 with Retry-After, as the endpoint does', async () => {
    const { reply, ms } = await metadata(() => new Promise(() => {}));
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('5');
    expect(reply.json).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'MCP server temporarily unavailable: try again later',
    });
    expect(ms).toBeLessThan(1000);
    expect(reports).toEqual([expect.objectContaining({ name: 'ResolveTimeout' })]);
  });

  it('a resolver that answers its stale copy when the deadline passes serves the metadata', async () => {
    const { reply } = await metadata(
      (_code, _req, options) =>
        new Promise((resolve, reject) => {
          // As the store does with `staleIfErrorMs`: the database hangs, the copy at hand is served.
          options?.signal?.addEventListener('abort', () => {
            const checking = options.checkServer?.(SERVER);
            (checking ?? Promise.resolve()).then(() => resolve({ server: SERVER, app: LIMITED }), reject);
          });
        }),
    );
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ authorization_servers: ['https://idp.example.com'] });
  });

  it('a database out of reach answers 503; any other failure stays a 500', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { reply } = await metadata(() => Promise.reject(refused));
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('5');
    const { reply: failed } = await metadata(() => Promise.reject(new Error('a bug')));
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ error: 'server_error', error_description: 'Internal error' });
  });
});
