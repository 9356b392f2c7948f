/**
 * Console writes from other sites are refused (docs/security.md, "Console writes from other
 * sites"): a rotate or a delete carries no body, so the JSON content-type rule does not stop a
 * page elsewhere from sending one with the admin's cookie. A write whose `Sec-Fetch-Site` is not
 * `same-origin` (or `none`), or, without it, whose `Origin` is not the request's own, answers 403
 * before `authorize` runs, and nothing changes; requests without those headers (curl, another
 * server) work as before. Both consoles, every write method.
 */
import express from 'express';
import knexFactory, { type Knex } from 'knex';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HostApp,
  knexToolProviderStore,
  mcpConsole,
  mcpToolProviderConsole,
  memoryServerStore,
  migrate,
} from '../../src/index.js';

const APP: HostApp = { id: 'app-1', name: 'App', mode: 'workflow', inputForm: [] };
const KEY = Buffer.alloc(32, 7);

let knex: Knex;
beforeAll(async () => {
  knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
  });
  await migrate(knex);
});
afterAll(async () => {
  await knex?.destroy();
});

/** A host whose consoles take a cookie session, the case this guards; `authorized` counts the calls of `authorize`. */
async function consoleHost() {
  const store = memoryServerStore();
  const server = await store.createServer({
    tenantId: 't',
    appId: APP.id,
    name: 'App',
    description: '',
    parameters: {},
  });
  const providers = knexToolProviderStore(knex, { encryptionKey: KEY });
  const provider = await providers.createProvider({
    tenantId: 't',
    name: `remote-${server.id}`,
    serverUrl: 'https://tools.example.com/mcp',
  });
  const counts = { authorized: 0 };
  const authorize = (req: express.Request) => {
    counts.authorized++;
    return req.headers.cookie === 'session=admin' ? { tenantId: 't', canEdit: true } : null;
  };
  const app = express();
  app.use('/console/api/tool-providers', mcpToolProviderConsole({ store: providers, authorize }));
  app.use(
    '/console/api',
    mcpConsole({
      store,
      loadApp: async (appId) => (appId === APP.id ? APP : null),
      authorize,
      allowGetRefresh: true,
    }),
  );
  const code = async () => (await store.getServerById(server.id))?.serverCode;
  const providerLeft = async () => (await providers.getProvider('t', provider.id)) !== null;
  return { app, server, provider, counts, code, providerLeft, originalCode: server.serverCode };
}

type Host = Awaited<ReturnType<typeof consoleHost>>;

const refused = (why: string) => ({
  status: 403,
  contentType: 'application/json; charset=utf-8',
  cacheControl: 'no-store',
  body: {
    error: {
      code: 'forbidden',
      message: `Requests from another site may not change the console (${why}); use the console's own page, or send the request without a browser`,
    },
  },
});
const whole = (reply: request.Response) => ({
  status: reply.status,
  contentType: reply.headers['content-type'],
  cacheControl: reply.headers['cache-control'],
  body: reply.body,
});

/** Every write of both consoles, as a request to send (with the admin's cookie). */
const writes: [string, (host: Host) => request.Test][] = [
  ['POST rotate', (host) => request(host.app).post(`/console/api/apps/${host.server.id}/server/refresh`)],
  [
    'GET rotate (allowGetRefresh)',
    (host) => request(host.app).get(`/console/api/apps/${host.server.id}/server/refresh`),
  ],
  ['DELETE the server', (host) => request(host.app).delete(`/console/api/apps/${APP.id}/server`)],
  [
    'PUT the server',
    (host) =>
      request(host.app)
        .put(`/console/api/apps/${APP.id}/server`)
        .send({ id: host.server.id, parameters: {}, status: 'inactive' }),
  ],
  [
    'POST publish',
    (host) => request(host.app).post(`/console/api/apps/${APP.id}/server`).send({ parameters: {} }),
  ],
  [
    'DELETE a tool provider',
    (host) => request(host.app).delete(`/console/api/tool-providers/${host.provider.id}`),
  ],
  [
    'POST a provider refresh',
    (host) => request(host.app).post(`/console/api/tool-providers/${host.provider.id}/tools/refresh`),
  ],
];

describe('console writes from another site', () => {
  it.each(writes)(
    '%s with Sec-Fetch-Site: cross-site is 403, authorize never runs, nothing changes',
    async (_name, send) => {
      const host = await consoleHost();
      const reply = await send(host).set('Cookie', 'session=admin').set('Sec-Fetch-Site', 'cross-site');
      expect(whole(reply)).toEqual(refused('Sec-Fetch-Site: cross-site'));
      expect(host.counts.authorized).toBe(0);
      expect(await host.code()).toBe(host.originalCode);
      expect(await host.providerLeft()).toBe(true);
    },
  );

  it.each([
    ['another origin', 'https://evil.example'],
    ['an opaque origin', 'null'],
    ['its own host on another scheme', 'https://console.example.com'],
  ])('a rotate whose Origin is %s (no Sec-Fetch-Site) is 403, and the code stays', async (_case, origin) => {
    const host = await consoleHost();
    const reply = await request(host.app)
      .post(`/console/api/apps/${host.server.id}/server/refresh`)
      .set('Host', 'console.example.com')
      .set('Cookie', 'session=admin')
      .set('Origin', origin);
    expect(whole(reply)).toEqual(refused(`Origin: ${origin}`));
    expect(await host.code()).toBe(host.originalCode);
  });

  it('a sibling site (Sec-Fetch-Site: same-site) is refused too: it is another origin', async () => {
    const host = await consoleHost();
    const reply = await request(host.app)
      .delete(`/console/api/apps/${APP.id}/server`)
      .set('Cookie', 'session=admin')
      .set('Sec-Fetch-Site', 'same-site');
    expect(whole(reply)).toEqual(refused('Sec-Fetch-Site: same-site'));
    expect(await host.code()).toBe(host.originalCode);
  });

  it('reads are not writes: a cross-site GET of the server answers as always', async () => {
    const host = await consoleHost();
    const reply = await request(host.app)
      .get(`/console/api/apps/${APP.id}/server`)
      .set('Cookie', 'session=admin')
      .set('Sec-Fetch-Site', 'cross-site');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: host.server.id, server_code: host.originalCode });
  });
});

describe('console writes that pass', () => {
  it('without Sec-Fetch-Site or Origin (curl, another server): a rotate works as before', async () => {
    const host = await consoleHost();
    const reply = await request(host.app)
      .post(`/console/api/apps/${host.server.id}/server/refresh`)
      .set('Cookie', 'session=admin');
    expect(reply.status).toBe(200);
    expect(reply.body.server_code).not.toBe(host.originalCode);
    expect(await host.code()).toBe(reply.body.server_code);
  });

  it.each([
    ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
    ['Sec-Fetch-Site: none (typed by the person)', { 'Sec-Fetch-Site': 'none' }],
    [
      'same-origin, even when a proxy changed Host',
      { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://admin.example.com' },
    ],
    ['its own Origin, from a browser without Fetch Metadata', { Origin: 'http://Console.Example.com' }],
  ])('%s: a delete works', async (_case, headers: Record<string, string>) => {
    const host = await consoleHost();
    const remove = request(host.app)
      .delete(`/console/api/apps/${APP.id}/server`)
      .set('Host', 'console.example.com');
    for (const [name, value] of Object.entries(headers)) remove.set(name, value);
    const reply = await remove.set('Cookie', 'session=admin');
    expect({ status: reply.status, body: reply.text }).toEqual({ status: 204, body: '' });
    expect(await host.code()).toBeUndefined();
  });
});
