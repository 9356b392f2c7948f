/**
 * Ours: `mcpServer` on a bare Express 5 app (no global body parser: the middleware reads the body
 * itself), resolving codes through the Knex store, on an SQLite file by default or on PostgreSQL
 * when BENCH_POSTGRES_URL is set (in a schema of its own, dropped on stop). BENCH_CACHE=off turns
 * the store's code cache off. The app is a trivial workflow with one string input.
 *
 * BENCH_LOAD_APP=query makes `loadApp` what it is in a real host: a query on the host's own `apps`
 * table in the same database (the app's form and outputs as JSON text), instead of a Map lookup;
 * BENCH_APP_CACHE=off then turns the resolver's app cache off (`appCacheTtlMs: 0`).
 *
 * BENCH_TASKS=1 passes the store to `mcpServer`, so that tasks live in its database (docs/tasks.md);
 * without it they live in memory.
 *
 * Usage is counted as it is by default (docs/usage.md: in memory, written every 5 s);
 * BENCH_USAGE=off turns it off (`usage: false`), for the usage row (bench/usage.mjs).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import knexFactory from 'knex';
import { ECHO_APP } from '../fixture.mjs';
import { loadPackage, publishBenchApp, serve } from './harness.mjs';

const { knexServerStore, mcpServer, migrate } = await loadPackage();

const cache = process.env.BENCH_CACHE !== 'off';
const postgresUrl = process.env.BENCH_POSTGRES_URL;

let cleanup;
let knex;
if (postgresUrl) {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  knex = knexFactory({
    client: 'pg',
    connection: postgresUrl,
    searchPath: [schema],
    // The bench loads each server in turns, 2 s in every 30 s or so: with tarn's default idle
    // timeout (30 s) the pool would close its connections between turns, and the next turn would
    // pay for opening them again (authentication, a new backend), which a host under steady load
    // does not. The connections are kept for the whole run instead.
    pool: { min: 0, max: 10, idleTimeoutMillis: 10 * 60_000 },
  });
  cleanup = async () => {
    await knex.destroy();
    await admin.raw('drop schema ?? cascade', [schema]);
    await admin.destroy();
  };
} else {
  const folder = mkdtempSync(join(tmpdir(), 'express-app-mcp-bench-'));
  knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: join(folder, 'bench.sqlite') },
    useNullAsDefault: true,
    // The tasks row writes on every call: WAL with NORMAL sync, the usual setting for an
    // application's SQLite file, rather than an fsync per statement.
    ...(process.env.BENCH_TASKS ? { pool: { afterCreate: walMode } } : {}),
  });
  cleanup = async () => {
    await knex.destroy();
    rmSync(folder, { recursive: true, force: true });
  };
}

await migrate(knex);
const store = knexServerStore(knex, cache ? {} : { cacheTtlMs: 0 });
// BENCH_SERVERS=n publishes the app under n codes (one tenant each), which the load takes in turn.
const servers = [];
for (let index = 0; index < Number(process.env.BENCH_SERVERS ?? 1); index++) {
  servers.push(await publishBenchApp(store, ECHO_APP, index === 0 ? 'bench' : `bench-${index}`));
}

const apps = new Map([[ECHO_APP.id, ECHO_APP]]);
const loadApp =
  process.env.BENCH_LOAD_APP === 'query' ? await appsTable(knex) : async (appId) => apps.get(appId) ?? null;
const appCache = process.env.BENCH_APP_CACHE === 'off' ? { appCacheTtlMs: 0 } : {};
const app = express();
app.use(
  mcpServer({
    resolveServer: store.resolver(loadApp, appCache),
    ...(process.env.BENCH_TASKS ? { store } : {}),
    ...(process.env.BENCH_USAGE === 'off' ? { usage: false } : {}),
    runApp: async ({ inputs }) => ({ outputs: { text: inputs.text } }),
  }),
);

serve(
  app,
  servers.map((server) => `/mcp/server/${server.serverCode}/mcp`),
  { onStop: cleanup },
);

/** The host's own `apps` table, holding the echo app, and a `loadApp` that reads one row of it. */
async function appsTable(db) {
  await db.schema.createTable('apps', (table) => {
    table.string('id').primary();
    table.string('tenant_id').notNullable();
    table.text('app').notNullable();
  });
  await db('apps').insert({ id: ECHO_APP.id, tenant_id: 'bench', app: JSON.stringify(ECHO_APP) });
  return async (appId, tenantId) => {
    const row = await db('apps').where({ id: appId, tenant_id: tenantId }).first();
    return row ? JSON.parse(row.app) : null;
  };
}

function walMode(connection, done) {
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  done(null);
}
