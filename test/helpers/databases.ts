/**
 * The databases every storage-backed suite runs against (the same suite on every database,
 * `describeEach(databases)`). Each `create()` gives a suite its own empty database, so
 * test files running in parallel never see each other's rows:
 * - `sqlite`: a new file in a new temporary folder (better-sqlite3), always available;
 * - `postgres`: a new schema in the database named by `TEST_POSTGRES_URL`.
 *
 * Without `TEST_POSTGRES_URL` the `postgres` kind is marked `skipped`: suites declared with
 * `describeEach(databases)` are then registered skipped, with the reason (`postgres.ts`); with
 * `REQUIRE_POSTGRES=1` (CI) a missing URL fails every file that imports this helper instead.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, expect } from 'vitest';
import type { McpServerOptions } from '../../src/index.js';
import { knexServerStore, migrate } from '../../src/store/index.js';
import { createWorld, loadWorldApp, type World } from './apps.js';
import { type Host, hostVariants, loadPackage, startHost } from './hosts.js';
import { postgresSkipped, postgresUrl } from './postgres.js';
import { expectAccepted, expectRpcReply, request, rpcResult } from './rpc.js';

export { describeEach } from './postgres.js';

export interface TestDatabase {
  readonly name: DatabaseKind['name'];
  /**
   * The same database as a URL, for another process (the command line): `sqlite:<file>`, or the
   * PostgreSQL URL with the suite's schema as its search path.
   */
  readonly url: string;
  /**
   * A new Knex instance (its own connection pool) on this database: call it twice to get two
   * "processes" sharing one database. Every instance is closed by `destroy()`.
   */
  connect(): Knex;
  /** Closes every instance from `connect()` and deletes the database. */
  destroy(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres';
  /** Why this run skips the suites on this database (no `TEST_POSTGRES_URL`); absent when they run. */
  skipped?: string;
  /** Creates a fresh, empty database for one suite. */
  create(): Promise<TestDatabase>;
}

function tracked(
  name: DatabaseKind['name'],
  url: string,
  config: () => Knex.Config,
  drop: () => Promise<void>,
): TestDatabase {
  const instances: Knex[] = [];
  return {
    name,
    url,
    connect() {
      const knex = knexFactory(config());
      instances.push(knex);
      return knex;
    },
    async destroy() {
      await Promise.all(instances.map((knex) => knex.destroy()));
      await drop();
    },
  };
}

const sqlite: DatabaseKind = {
  name: 'sqlite',
  async create() {
    // A real file rather than `:memory:`, so two Knex instances share one database as two
    // processes would.
    const folder = await mkdtemp(join(tmpdir(), 'express-app-mcp-test-'));
    const filename = join(folder, 'test.sqlite');
    return tracked(
      'sqlite',
      `sqlite:${filename}`,
      () => ({
        client: 'better-sqlite3',
        connection: { filename },
        useNullAsDefault: true,
        // WAL with NORMAL sync is the usual setting for an application's SQLite file, and keeps
        // suites that write thousands of rows from waiting on an fsync per statement.
        pool: {
          afterCreate(connection: { pragma(sql: string): unknown }, done: (error: Error | null) => void) {
            connection.pragma('journal_mode = WAL');
            connection.pragma('synchronous = NORMAL');
            done(null);
          },
        },
      }),
      () => rm(folder, { recursive: true, force: true }),
    );
  },
};

function postgres(url: string): DatabaseKind {
  return {
    name: 'postgres',
    async create() {
      const schema = `test_${randomBytes(6).toString('hex')}`;
      const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await admin.raw('create schema ??', [schema]);
      const withSchema = new URL(url);
      withSchema.searchParams.set('options', `-c search_path=${schema}`);
      return tracked(
        'postgres',
        withSchema.href,
        // `searchPath` makes the schema the default one for every query and for Knex's migrator.
        () => ({ client: 'pg', connection: url, searchPath: [schema], pool: { min: 0, max: 5 } }),
        async () => {
          await admin.raw('drop schema ?? cascade', [schema]);
          await admin.destroy();
        },
      );
    },
  };
}

/** The `postgres` kind of a run without `TEST_POSTGRES_URL`: its suites are registered skipped. */
const postgresSkippedKind = (reason: string): DatabaseKind => ({
  name: 'postgres',
  skipped: reason,
  create: () => Promise.reject(new Error(`the PostgreSQL suites are skipped: ${reason}`)),
});

export const databases: DatabaseKind[] = [
  sqlite,
  postgresUrl ? postgres(postgresUrl) : postgresSkippedKind(postgresSkipped as string),
];

/** A fresh database of `kind`, migrated, and one connection to it: how a storage suite begins. */
export async function createMigrated(kind: DatabaseKind): Promise<{ db: TestDatabase; knex: Knex }> {
  const db = await kind.create();
  const knex = db.connect();
  await migrate(knex);
  return { db, knex };
}

/**
 * Two instances on one fresh database of `kind`, as two processes would be: a world of servers
 * written through one connection, and two hosts of the first variant, each with a store on a
 * connection of its own; `overrides` add to both hosts' options. `close` stops it all.
 */
export async function twoInstances(kind: DatabaseKind, overrides: Partial<McpServerOptions> = {}) {
  const { db, knex } = await createMigrated(kind);
  const world = await createWorld(knexServerStore(knex));
  const stores = [knexServerStore(db.connect()), knexServerStore(db.connect())];
  const variant = hostVariants[0]!;
  const pkg = await loadPackage(variant.major);
  const hosts = await Promise.all(
    stores.map((store) =>
      startHost(
        variant,
        pkg,
        world.options({ resolveServer: store.resolver(loadWorldApp), store, ...overrides }),
      ),
    ),
  );
  const close = async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await Promise.all(stores.map((store) => store.close()));
    await db.destroy();
  };
  return { db, knex, world, stores, hosts, close };
}

/**
 * A call of the world's slow app on instance `a`, cancelled with `cancel` sent to instance `b`
 * (after `whileRunning`, once the run has started): the call answers that it was cancelled, and
 * the run's signal fired.
 */
export async function expectCancelledAcross(
  [a, b]: Host[],
  world: World,
  id: string,
  cancel: (id: string) => unknown,
  whileRunning: () => Promise<void> = async () => {},
) {
  const replying = a!.post(world.codes.slow, request(id, 'tools/call', { name: 'Slow', arguments: {} }));
  const run = await world.nextSlowRun();
  await whileRunning();
  expectAccepted(await b!.post(world.codes.slow, cancel(id)));
  expectRpcReply(
    await replying,
    200,
    rpcResult(id, { content: [{ type: 'text', text: 'the call was cancelled' }], isError: true }),
  );
  expect(run.run.signal.aborted).toBe(true);
}

/**
 * A fresh, empty database of `kind` for the `describe` it is called in, not migrated: made before
 * its tests, dropped after them. Read `db` and `knex` from the tests.
 */
export function databaseFor(kind: DatabaseKind): { db: TestDatabase; knex: Knex } {
  const fresh = {} as { db: TestDatabase; knex: Knex };
  beforeAll(async () => {
    fresh.db = await kind.create();
    fresh.knex = fresh.db.connect();
  });
  afterAll(async () => {
    await fresh.db?.destroy();
  });
  return fresh;
}
