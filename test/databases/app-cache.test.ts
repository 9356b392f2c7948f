/**
 * The app cache in the store's resolver: `loadApp` is a query in a real host, so its results are
 * kept for `appCacheTtlMs` (default 5 s; `0`: no cache), per tenant and app. Concurrent first loads
 * share one call; a failed load is not kept. On SQLite and PostgreSQL, a host whose `loadApp`
 * queries its own table makes one such query per app per TTL, not one per request.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HostApp,
  knexServerStore,
  type LoadApp,
  memoryServerStore,
  migrate,
  type ServerRecord,
} from '../../src/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type HostVariant, hostVariants, serveApp } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcResult } from '../helpers/rpc.js';

const APP: HostApp = { id: 'a', name: 'A', mode: 'completion', inputForm: [] };
/** The Express request, which the store's resolver does not read. */
const EXPRESS_REQUEST = {} as never;
const APP_LOADER: LoadApp = () => APP;

/** A `loadApp` that counts its calls, optionally failing on some of them. */
function countingLoadApp(fails: (call: number) => boolean = () => false) {
  const calls: [string, string][] = [];
  const loadApp: LoadApp = async (appId, tenantId) => {
    calls.push([appId, tenantId]);
    if (fails(calls.length)) throw new Error('the apps table is locked');
    return { ...APP, id: appId };
  };
  return { loadApp, calls };
}

describe('the resolver keeps loaded apps for a while', () => {
  let store: ReturnType<typeof memoryServerStore>;
  let first: ServerRecord;
  let second: ServerRecord;
  let otherTenant: ServerRecord;

  beforeAll(async () => {
    store = memoryServerStore();
    const publish = (tenantId: string, appId: string) =>
      store.createServer({ tenantId, appId, name: appId, description: '', parameters: {} });
    first = await publish('t1', 'a');
    second = await publish('t1', 'b');
    otherTenant = await publish('t2', 'a');
  });

  it('by default: one load per app, however many requests; the same app object each time', async () => {
    const { loadApp, calls } = countingLoadApp();
    const resolve = store.resolver(loadApp);
    const apps = [];
    for (let i = 0; i < 3; i++) apps.push((await resolve(first.serverCode, EXPRESS_REQUEST))?.app);
    expect(calls).toEqual([['a', 't1']]);
    expect(apps[0]).toEqual({ ...APP, id: 'a' });
    expect(apps[1]).toBe(apps[0]);
    expect(apps[2]).toBe(apps[0]);
  });

  it('apps are kept per tenant and app', async () => {
    const { loadApp, calls } = countingLoadApp();
    const resolve = store.resolver(loadApp);
    for (const server of [first, second, otherTenant, first, second, otherTenant]) {
      await resolve(server.serverCode, EXPRESS_REQUEST);
    }
    expect(calls).toEqual([
      ['a', 't1'],
      ['b', 't1'],
      ['a', 't2'],
    ]);
  });

  it('concurrent first requests share one load', async () => {
    const { loadApp, calls } = countingLoadApp();
    const resolve = store.resolver(loadApp);
    const resolved = await Promise.all([1, 2, 3, 4].map(() => resolve(first.serverCode, EXPRESS_REQUEST)));
    expect(calls).toHaveLength(1);
    expect(resolved.map((entry) => entry?.app?.id)).toEqual(['a', 'a', 'a', 'a']);
  });

  it('a failed load is not kept: the next request loads again', async () => {
    const { loadApp, calls } = countingLoadApp((call) => call === 1);
    const resolve = store.resolver(loadApp);
    await expect(resolve(first.serverCode, EXPRESS_REQUEST)).rejects.toThrow('the apps table is locked');
    expect((await resolve(first.serverCode, EXPRESS_REQUEST))?.app?.id).toBe('a');
    expect(calls).toHaveLength(2);
  });

  it('appCacheTtlMs: 0 loads the app on every request', async () => {
    const { loadApp, calls } = countingLoadApp();
    const resolve = store.resolver(loadApp, { appCacheTtlMs: 0 });
    for (let i = 0; i < 3; i++) await resolve(first.serverCode, EXPRESS_REQUEST);
    expect(calls).toHaveLength(3);
  });

  it('after appCacheTtlMs the app is loaded again', async () => {
    const { loadApp, calls } = countingLoadApp();
    const resolve = store.resolver(loadApp, { appCacheTtlMs: 40 });
    await resolve(first.serverCode, EXPRESS_REQUEST);
    await resolve(first.serverCode, EXPRESS_REQUEST);
    await new Promise((done) => setTimeout(done, 80));
    await resolve(first.serverCode, EXPRESS_REQUEST);
    expect(calls).toHaveLength(2);
  });

  it('an inactive server loads no app at all', async () => {
    const { loadApp, calls } = countingLoadApp();
    const inactive = await store.createServer({
      tenantId: 't3',
      appId: 'c',
      name: 'c',
      description: '',
      parameters: {},
    });
    await store.deactivateServer(inactive.id);
    expect((await store.resolver(loadApp)(inactive.serverCode, EXPRESS_REQUEST))?.app).toBeNull();
    expect(calls).toEqual([]);
  });

  it('bad options are refused when the resolver is made', () => {
    expect(() => store.resolver(APP_LOADER, { appCacheTtlMs: -1 })).toThrow(
      /^store\.resolver: invalid option "appCacheTtlMs"/,
    );
    expect(() => store.resolver(APP_LOADER, { appCacheMaxEntries: 0 })).toThrow(
      /^store\.resolver: invalid option "appCacheMaxEntries"/,
    );
  });
});

describeEach(databases)('a host whose loadApp queries its own table, on $name', (kind) => {
  let database: TestDatabase;
  let knex: Knex;
  let code: string;
  /** Every query the host's Knex ran against its `apps` table. */
  const appQueries: string[] = [];

  beforeAll(async () => {
    database = await kind.create();
    knex = database.connect();
    await migrate(knex);
    await knex.schema.createTable('apps', (table) => {
      table.string('id').primary();
      table.string('tenant_id').notNullable();
      table.string('name').notNullable();
      table.string('mode').notNullable();
    });
    await knex('apps').insert({ id: 'echo', tenant_id: 't', name: 'Echo', mode: 'completion' });
    code = (
      await knexServerStore(knex).createServer({
        tenantId: 't',
        appId: 'echo',
        name: 'Echo',
        description: '',
        parameters: {},
      })
    ).serverCode;
    knex.on('query', (query: { sql: string }) => {
      if (/\bapps\b/.test(query.sql)) appQueries.push(query.sql);
    });
  });
  afterAll(async () => {
    await database?.destroy();
  });

  const loadApp: LoadApp = async (appId, tenantId) => {
    const row = await knex('apps').where({ id: appId, tenant_id: tenantId }).first();
    return row ? { id: row.id, name: row.name, mode: row.mode, inputForm: [] } : null;
  };

  it.each([
    ['the default cache', {}, 1],
    ['no cache (appCacheTtlMs: 0)', { appCacheTtlMs: 0 }, 3],
  ])('with %s, three tools/list make %i apps queries', async (_label, options, expected) => {
    appQueries.length = 0;
    const express = (await import('express')).default;
    const { mcpServer } = await import('../../src/index.js');
    const app = express();
    const store = knexServerStore(knex);
    app.use(mcpServer({ resolveServer: store.resolver(loadApp, options), runApp: () => ({ answer: '' }) }));
    const host = await serveApp(app, hostVariants[0] as HostVariant);
    try {
      for (const id of [1, 2, 3]) {
        const reply = await host.post(code, request(id, 'tools/list'), {
          'mcp-protocol-version': '2025-03-26',
        });
        expectRpcReply(
          reply,
          200,
          rpcResult(id, {
            tools: [
              {
                name: 'Echo',
                description: '',
                inputSchema: { type: 'object', properties: {}, required: [] },
              },
            ],
          }),
        );
      }
      expect(appQueries).toHaveLength(expected);
    } finally {
      await host.close();
    }
  });
});
