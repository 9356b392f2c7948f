/**
 * The caller key suites' world (docs/keys.md): a Knex store on a real database, the console under
 * `/console/api` and the MCP endpoint at the root of one Express host on a real port, two servers
 * of tenant `acme` (`notes` in `"key"` mode, `open` in `"code"` mode), and what the host saw: runs,
 * `loadApp` calls, `onError` reports and what was written to the console.
 */
import express from 'express';
import type { Knex } from 'knex';
import request, { type Test } from 'supertest';
import {
  type AppRun,
  type ConsoleAccess,
  type ErrorContext,
  type HostApp,
  type KnexServerStore,
  type KnexServerStoreOptions,
  knexServerStore,
  type McpServerOptions,
  mcpConsole,
  mcpServer,
  type ServerRecord,
} from '../../src/index.js';
import { textWorkflow } from './apps.js';
import { createMigrated, type DatabaseKind, type TestDatabase } from './databases.js';
import { type Host, hostVariants, serveApp } from './hosts.js';

export const TENANT = 'acme';
export const OTHER_TENANT = 'globex';

export const KEY_APPS = { notes: textWorkflow('notes', 'Notes'), open: textWorkflow('open', 'Open Notes') };

const ACCESS: Record<string, ConsoleAccess> = {
  admin: { tenantId: TENANT, canEdit: true },
  viewer: { tenantId: TENANT, canEdit: false },
  other: { tenantId: OTHER_TENANT, canEdit: true },
};

export interface KeyWorld {
  db: TestDatabase;
  knex: Knex;
  store: KnexServerStore;
  host: Host;
  /** The host's Express app, for console requests the helpers do not name. */
  app: express.Express;
  servers: { notes: ServerRecord; open: ServerRecord };
  runs: AppRun[];
  loads: { count: number };
  errors: { error: unknown; context: ErrorContext }[];
  consoleReports: unknown[];
  /** The console as a caller (`admin`, `viewer`, `other`; none: not signed in). */
  console(token?: string): {
    list(serverId: string): Test;
    create(serverId: string, body: unknown): Test;
    rotate(serverId: string, keyId: string, body?: unknown): Test;
    revoke(serverId: string, keyId: string): Test;
  };
  /** Makes a key of a server through the console; its secret and id. */
  makeKey(serverId: string, body?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

export interface KeyWorldOptions {
  database: DatabaseKind;
  store?: KnexServerStoreOptions;
  mcp?: Partial<McpServerOptions>;
}

export async function startKeyWorld({
  database,
  store: storeOptions,
  mcp,
}: KeyWorldOptions): Promise<KeyWorld> {
  const { db, knex } = await createMigrated(database);
  const store = knexServerStore(knex, storeOptions);
  const publish = (app: HostApp, authMode: 'code' | 'key') =>
    store.createServer({
      tenantId: TENANT,
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
      authMode,
    });
  const servers = { notes: await publish(KEY_APPS.notes, 'key'), open: await publish(KEY_APPS.open, 'code') };
  const runs: AppRun[] = [];
  const loads = { count: 0 };
  const errors: KeyWorld['errors'] = [];
  const consoleReports: unknown[] = [];
  const loadApp = (appId: string, tenantId: string) => {
    loads.count++;
    return tenantId === TENANT ? (Object.values(KEY_APPS).find((app) => app.id === appId) ?? null) : null;
  };
  const app = express();
  app.use(
    '/console/api',
    mcpConsole({
      store,
      loadApp,
      authorize: (req) => ACCESS[/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? ''] ?? null,
      onError: (error) => consoleReports.push(error),
    }),
  );
  app.use(
    mcpServer({
      resolveServer: store.resolver(loadApp, { appCacheTtlMs: 0 }),
      runApp: (run) => {
        runs.push(run);
        return { outputs: { text: run.inputs.text, caller: run.caller, endUser: run.endUser.name } };
      },
      onError: (error, context) => errors.push({ error, context }),
      ...mcp,
    }),
  );
  const host = await serveApp(app, hostVariants[0]!);
  const consoleAs = (token?: string) => {
    const as = (test: Test) => (token ? test.set('Authorization', `Bearer ${token}`) : test);
    const keys = (serverId: string) => `/console/api/servers/${encodeURIComponent(serverId)}/keys`;
    return {
      list: (serverId: string) => as(request(app).get(keys(serverId))),
      create: (serverId: string, body: unknown) => as(request(app).post(keys(serverId))).send(body as object),
      rotate: (serverId: string, keyId: string, body: unknown = {}) =>
        as(request(app).post(`${keys(serverId)}/${keyId}/rotate`)).send(body as object),
      revoke: (serverId: string, keyId: string) => as(request(app).delete(`${keys(serverId)}/${keyId}`)),
    };
  };
  return {
    db,
    knex,
    store,
    host,
    app,
    servers,
    runs,
    loads,
    errors,
    consoleReports,
    console: consoleAs,
    async makeKey(serverId, body = { name: 'alice' }) {
      const reply = await consoleAs('admin').create(serverId, body);
      if (reply.status !== 201) throw new Error(`making a key answered ${reply.status}: ${reply.text}`);
      return { id: reply.body.id as string, secret: reply.body.key as string };
    },
    async close() {
      await host.close();
      await store.close();
      await db.destroy();
    },
  };
}

/** Every row of every table of the database, as text: for proving what is not stored. */
export async function dumpAllTables(knex: Knex): Promise<string> {
  const postgres = knex.client.config.client === 'pg';
  const tables: string[] = postgres
    ? (
        await knex.raw<{ rows: { tablename: string }[] }>(
          'select tablename from pg_tables where schemaname = current_schema()',
        )
      ).rows.map((row) => row.tablename)
    : ((await knex.raw("select name from sqlite_master where type = 'table'")) as { name: string }[]).map(
        (row) => row.name,
      );
  const dump: string[] = [];
  for (const table of tables) dump.push(table, JSON.stringify(await knex(table).select('*')));
  return dump.join('\n');
}
