/**
 * The Knex store as one instance of a farm on PostgreSQL: every server change is announced with
 * NOTIFY and heard by the other instances within a second, whatever the cache TTL; the LISTEN
 * connection reconnects by itself; a cached code rides out a database outage for
 * `staleIfErrorMs`. Two stores on two Knex instances stand for two processes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostgresFarm } from '../../src/store/farm/postgres-farm.js';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import type { ServerRecord } from '../../src/types/index.js';
import { sleep } from '../helpers/common.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

const postgres = databases.filter((kind) => kind.name === 'postgres');
const sqlite = databases.filter((kind) => kind.name === 'sqlite');

/** Long enough that only NOTIFY can explain a change seen within a second. */
const DEFAULT_TTL_MS = 5000;

describeEach(postgres)('a farm of Knex stores on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  // A prefix of its own, so the channels this suite listens on are its own too.
  const tablePrefix = `farm_${randomBytes(3).toString('hex')}_`;
  const stores: KnexServerStore[] = [];
  const store = (options: Parameters<typeof knexServerStore>[1] = {}, on: Knex = db.connect()) => {
    const made = knexServerStore(on, { tablePrefix, ...options });
    stores.push(made);
    return made;
  };

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    await migrate(knex, { tablePrefix });
  });
  afterAll(async () => {
    await Promise.all(stores.map((made) => made.close()));
    await db?.destroy();
  });

  const publish = (writer: KnexServerStore) =>
    writer.createServer({
      tenantId: 'tenant',
      appId: `app-${randomUUID()}`,
      name: 'App',
      description: '',
      parameters: {},
    });

  /** Another instance that has the server in its cache, and is listening. */
  async function cachedElsewhere(server: ServerRecord): Promise<KnexServerStore> {
    const other = store();
    expect(await other.getServerByCode(server.serverCode)).toEqual(server);
    await waitForListener(other);
    return other;
  }

  /** The other store's listener is up once a change made now reaches it. */
  async function waitForListener(other: KnexServerStore): Promise<void> {
    await vi.waitFor(() => expect(listeners()).resolves.toBeGreaterThan(0), { timeout: 5000, interval: 20 });
    void other;
  }

  const listeners = async () => {
    const { rows } = await knex.raw<{ rows: unknown[] }>(
      'select pid from pg_stat_activity where query like ? and pid <> pg_backend_pid()',
      [`LISTEN "${tablePrefix}%`],
    );
    return rows.length;
  };

  const withinOneSecond = { timeout: 1000, interval: 20 };

  it('a rotation is seen by another instance within a second, with the default TTL', async () => {
    const writer = store();
    const server = await publish(writer);
    const other = await cachedElsewhere(server);
    const started = Date.now();
    const rotated = await writer.rotateCode(server.id);
    await vi.waitFor(
      async () => expect(await other.getServerByCode(server.serverCode)).toBeNull(),
      withinOneSecond,
    );
    expect(Date.now() - started).toBeLessThan(DEFAULT_TTL_MS);
    expect(await other.getServerByCode(rotated!.serverCode)).toEqual(rotated);
  });

  it('a deactivation is seen by another instance within a second', async () => {
    const writer = store();
    const server = await publish(writer);
    const other = await cachedElsewhere(server);
    await writer.deactivateServer(server.id);
    await vi.waitFor(
      async () =>
        expect(await other.getServerByCode(server.serverCode)).toMatchObject({ status: 'inactive' }),
      withinOneSecond,
    );
  });

  it('a deletion, and a change written with plain SQL, are heard as well', async () => {
    const writer = store();
    const edited = await publish(writer);
    const deleted = await publish(writer);
    const other = await cachedElsewhere(edited);
    expect(await other.getServerByCode(deleted.serverCode)).toEqual(deleted);
    await knex(`${tablePrefix}mcp_servers`).where({ id: edited.id }).update({ description: 'by hand' });
    await writer.deleteServer(deleted.id);
    await vi.waitFor(async () => {
      expect(await other.getServerByCode(edited.serverCode)).toMatchObject({ description: 'by hand' });
      expect(await other.getServerByCode(deleted.serverCode)).toBeNull();
    }, withinOneSecond);
  });

  it('a lost LISTEN connection comes back by itself, and what changed meanwhile is not served', async () => {
    const writer = store();
    const server = await publish(writer);
    const other = await cachedElsewhere(server);
    await knex.raw('select pg_terminate_backend(pid) from pg_stat_activity where query like ?', [
      `LISTEN "${tablePrefix}%`,
    ]);
    // Written while the other instance may have no listener: it must not keep the old copy.
    await writer.rotateCode(server.id);
    await vi.waitFor(async () => expect(await other.getServerByCode(server.serverCode)).toBeNull(), {
      timeout: 2000,
      interval: 20,
    });
    await waitForListener(other);
    const later = await publish(writer);
    expect(await other.getServerByCode(later.serverCode)).toEqual(later);
    await writer.deactivateServer(later.id);
    await vi.waitFor(
      async () => expect(await other.getServerByCode(later.serverCode)).toMatchObject({ status: 'inactive' }),
      withinOneSecond,
    );
  });

  it('close() ends the store’s own connection and leaves the host’s Knex working', async () => {
    const backends = async (where: string, binding: string) =>
      (
        await knex.raw<{ rows: { pid: number }[] }>(`select pid from pg_stat_activity where ${where}`, [
          binding,
        ])
      ).rows.map((row) => row.pid);
    const listening = () => backends('query like ?', `LISTEN "${tablePrefix}%`);
    const own = db.connect();
    const closing = store({}, own);
    const server = await publish(closing);
    const before = await listening();
    await closing.getServerByCode(server.serverCode); // first use: it starts listening
    let pid = 0;
    await vi.waitFor(
      async () => {
        const started = (await listening()).filter((candidate) => !before.includes(candidate));
        expect(started).toHaveLength(1);
        pid = started[0]!;
      },
      { timeout: 5000, interval: 20 },
    );
    await closing.close();
    await vi.waitFor(async () => expect(await backends('pid = ?', String(pid))).toEqual([]), {
      timeout: 5000,
    });
    expect(await own(`${tablePrefix}mcp_servers`).where({ id: server.id }).count({ n: '*' })).toEqual([
      { n: '1' },
    ]);
  });

  describe('through a database outage', () => {
    let proxy: TcpProxy;
    let proxied: Knex;
    beforeAll(async () => {
      const url = new URL(process.env.TEST_POSTGRES_URL as string);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      proxied = knexFactory({
        client: 'pg',
        connection: throughProxy(url.toString(), proxy),
        searchPath: knex.client.config.searchPath,
        pool: { min: 0, max: 2 },
        acquireConnectionTimeout: 2000,
      });
    });
    afterEach(() => proxy.restore());

    /**
     * Caches the server in `cut` once its listener is up: a lookup that overlaps the listener's
     * start is not cached (changes made before it may have gone unheard).
     */
    async function warm(cut: KnexServerStore, server: ServerRecord): Promise<void> {
      expect(await cut.getServerByCode(server.serverCode)).toEqual(server);
      await sleep(300);
      expect(await cut.getServerByCode(server.serverCode)).toEqual(server);
    }
    afterAll(async () => {
      await proxied?.destroy();
      await proxy?.close();
    });

    it('a cached code is served past its TTL while the database fails, then fails closed', async () => {
      const server = await publish(store());
      const cut = store({ cacheTtlMs: 50, staleIfErrorMs: 600 }, proxied);
      await warm(cut, server);
      proxy.cut('reset');
      await sleep(100); // past the TTL
      expect(await cut.getServerByCode(server.serverCode)).toEqual(server);
      await sleep(600); // past staleIfErrorMs
      await expect(cut.getServerByCode(server.serverCode)).rejects.toThrow();
      proxy.restore();
      await vi.waitFor(async () => expect(await cut.getServerByCode(server.serverCode)).toEqual(server), {
        timeout: 5000,
      });
    });

    it('a database that does not answer serves the stale copy when the caller stops waiting', async () => {
      const server = await publish(store());
      const cut = store({ cacheTtlMs: 50 }, proxied);
      await warm(cut, server);
      proxy.cut('silence');
      await sleep(100);
      const signal = AbortSignal.timeout(300);
      expect(await cut.getServerByCode(server.serverCode, { signal })).toEqual(server);
      expect(signal.aborted).toBe(true);
      // Right after a lookup was given up, the copy is served without waiting on the database again:
      // this lookup has no deadline at all, and would otherwise wait as long as the outage lasts.
      expect(await cut.getServerByCode(server.serverCode)).toEqual(server);
    });

    it('after a long outage that ends silent, LISTEN is back and the cache re-read within a second', async () => {
      const writer = store();
      const server = await publish(writer);
      // Only the listener coming back can explain a re-read within a second.
      const cut = store({ cacheTtlMs: 60_000 }, proxied);
      await warm(cut, server);
      const farm = cut.farm as PostgresFarm;
      expect(farm.listening).toBe(true);
      // The database refuses connections for long enough that a backoff would have grown to
      // seconds, then the network drops every packet.
      proxy.cut('reset');
      await vi.waitFor(() => expect(farm.listening).toBe(false), { timeout: 2000, interval: 20 });
      await sleep(7000);
      proxy.cut('silence');
      await sleep(2000);
      // Written meanwhile: the cut instance cannot hear it.
      await writer.rotateCode(server.id);
      proxy.restore();
      await vi.waitFor(async () => {
        expect(farm.listening).toBe(true);
        expect(await cut.getServerByCode(server.serverCode)).toBeNull();
      }, withinOneSecond);
    }, 20_000);

    it('a code that was never cached is not served from anywhere during the outage', async () => {
      const server = await publish(store());
      const cut = store({ cacheTtlMs: 50 }, proxied);
      proxy.cut('reset');
      await expect(cut.getServerByCode(server.serverCode)).rejects.toThrow();
    });
  });
});

describe.each(sqlite)('a Knex store on $name', (kind) => {
  it('has no farm: nothing to listen to, and close() has nothing to end', async () => {
    const db = await kind.create();
    try {
      const own = db.connect();
      await migrate(own);
      const made = knexServerStore(own);
      expect(made.farm).toBeUndefined();
      await expect(made.close()).resolves.toBeUndefined();
      expect(await migrate(own)).toEqual([]);
      expect(await own.schema.hasTable('mcp_rate_limits')).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});
