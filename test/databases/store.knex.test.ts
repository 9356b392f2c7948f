/**
 * What only the Knex store does: its migrations, its code generation retries, its lookup cache, its
 * rows, and its failures. The behaviour every store shares is in `store.contract.test.ts`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, ServerExistsError } from '../../src/errors/package-errors.js';
import { generateServerCode } from '../../src/store/codes.js';
import {
  knexServerStore,
  migrate,
  type NewServer,
  rollback,
  type ServerStore,
} from '../../src/store/index.js';
import { REDACTED_CODE } from '../../src/store/redact.js';
import type { ServerRecord } from '../../src/types/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { publishFresh, untilListening } from '../helpers/stores.js';

// The real generator, wrapped so a test can force a collision with an existing code.
vi.mock('../../src/store/codes.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/codes.js')>();
  return { ...actual, generateServerCode: vi.fn(actual.generateServerCode) };
});
const codeGenerator = vi.mocked(generateServerCode);
const realGenerator = codeGenerator.getMockImplementation()!;

const CODE = /^[A-Za-z0-9]{16}$/;
/** Every migration of the package, in order. */
const MIGRATIONS = [
  '0001_create_servers',
  '0002_create_end_users',
  '0003_server_annotations',
  '0004_create_tool_providers',
  '0005_server_auth_mode',
  '0006_notify_server_changes',
  '0007_create_rate_limits',
  '0008_create_stream_events',
  '0009_create_tasks',
  '0010_server_task_support',
  '0011_stream_request_ids',
  '0012_create_toolsets',
  '0013_create_server_keys',
  '0014_hashed_server_codes',
  '0015_create_usage',
  '0016_create_audit_log',
];

/** Counts the queries a Knex instance sends while it is attached. */
function queryCounter(knex: Knex) {
  const queries: string[] = [];
  const listener = (query: { sql: string }) => queries.push(query.sql);
  knex.on('query', listener);
  return {
    get count() {
      return queries.length;
    },
    stop: () => knex.removeListener('query', listener),
  };
}

describeEach(databases)('the Knex store on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let store: ServerStore;
  let firstMigration: string[];

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    firstMigration = await migrate(knex);
    store = knexServerStore(knex);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  beforeEach(() => {
    codeGenerator.mockClear();
  });

  /** A new server for an app nobody else uses, so tests never share rows. */
  const publish = (target: ServerStore = store, overrides: Partial<NewServer> = {}) =>
    publishFresh(target, overrides);

  const countRows = async (table: string, where: Record<string, string>) => {
    const [row] = await knex(table).where(where).count({ n: '*' });
    return Number(row?.n);
  };

  describe('migrations', () => {
    it('migrate creates the servers, end users and migrations tables', async () => {
      expect(firstMigration).toEqual(MIGRATIONS);
      expect(await knex.schema.hasTable('mcp_servers')).toBe(true);
      expect(await knex.schema.hasTable('mcp_end_users')).toBe(true);
      expect(await knex.schema.hasTable('mcp_migrations')).toBe(true);
    });

    it('running migrate again is a no-op that keeps the data', async () => {
      const server = await publish();
      expect(await migrate(knex)).toEqual([]);
      expect(await store.getServerById(server.id)).toEqual(server);
    });

    it('rollback drops the tables, and migrate creates them again', async () => {
      const tablePrefix = 'rb_';
      expect(await migrate(knex, { tablePrefix })).toHaveLength(MIGRATIONS.length);
      expect(await rollback(knex, { tablePrefix })).toEqual([...MIGRATIONS].reverse());
      expect(await knex.schema.hasTable('rb_mcp_servers')).toBe(false);
      expect(await knex.schema.hasTable('rb_mcp_end_users')).toBe(false);
      expect(await rollback(knex, { tablePrefix, all: true })).toEqual([]);
      expect(await migrate(knex, { tablePrefix })).toEqual(MIGRATIONS);
      expect(await knex.schema.hasTable('rb_mcp_servers')).toBe(true);
      await rollback(knex, { tablePrefix, all: true });
    });

    it('a table prefix is prepended to every table, and the prefixed store uses only those', async () => {
      const tablePrefix = 'acme_';
      await migrate(knex, { tablePrefix });
      for (const table of ['acme_mcp_servers', 'acme_mcp_end_users', 'acme_mcp_migrations']) {
        expect(await knex.schema.hasTable(table)).toBe(true);
      }
      const prefixed = knexServerStore(knex, { tablePrefix });
      const server = await publish(prefixed);
      expect(await countRows('acme_mcp_servers', { id: server.id })).toBe(1);
      expect(await countRows('mcp_servers', { id: server.id })).toBe(0);
      expect(await store.getServerByCode(server.serverCode)).toBeNull();
      expect(await prefixed.getServerByCode(server.serverCode)).toEqual(server);
      await rollback(knex, { tablePrefix, all: true });
    });

    it('constructing a store creates no tables and sends no query', async () => {
      const counter = queryCounter(knex);
      knexServerStore(knex, { tablePrefix: 'fresh_' });
      counter.stop();
      expect(counter.count).toBe(0);
      expect(await knex.schema.hasTable('fresh_mcp_servers')).toBe(false);
    });

    it('wrong options throw a configuration error naming the option', async () => {
      await expect(migrate(knex, { tablePrefix: 'bad-prefix' })).rejects.toThrow(/"tablePrefix"/);
      await expect(migrate(knex, { tablePrefix: 'bad-prefix' })).rejects.toBeInstanceOf(ConfigurationError);
      expect(() => knexServerStore(knex, { cacheTTL: 5 } as never)).toThrow(/unknown option "cacheTTL"/);
      expect(() => knexServerStore(knex, { cacheTtlMs: -1 })).toThrow(/"cacheTtlMs"/);
      expect(() => knexServerStore({} as Knex)).toThrow(ConfigurationError);
    });
  });

  describe('servers', () => {
    it('parameters are stored as JSON text, and read back as an object', async () => {
      const server = await publish();
      const row = await knex('mcp_servers').where({ id: server.id }).first();
      expect(row.parameters).toBe('{"text":"The text to analyse"}');
      expect((await store.getServerById(server.id))?.parameters).toEqual({ text: 'The text to analyse' });
    });

    it('a code that is already taken is retried with a fresh one on create and on rotate', async () => {
      const taken = await publish();
      codeGenerator.mockClear();
      codeGenerator.mockReturnValueOnce(taken.serverCode);
      const created = await publish();
      expect(codeGenerator).toHaveBeenCalledTimes(2);
      expect(created.serverCode).toMatch(CODE);
      expect(created.serverCode).not.toBe(taken.serverCode);

      codeGenerator.mockClear();
      codeGenerator.mockReturnValueOnce(taken.serverCode);
      const rotated = await store.rotateCode(created.id);
      expect(codeGenerator).toHaveBeenCalledTimes(2);
      expect(rotated?.serverCode).toMatch(CODE);
      expect(rotated?.serverCode).not.toBe(taken.serverCode);
      expect((await store.getServerByCode(taken.serverCode))?.id).toBe(taken.id);
    });

    it('a generator that keeps returning a taken code gives up after a few attempts', async () => {
      const taken = await publish();
      codeGenerator.mockClear();
      codeGenerator.mockReturnValue(taken.serverCode);
      try {
        const attempt = publish(store, { tenantId: 'stuck' });
        await expect(attempt).rejects.toThrow();
        await expect(attempt).rejects.not.toBeInstanceOf(ServerExistsError);
        expect(codeGenerator).toHaveBeenCalledTimes(5);
      } finally {
        codeGenerator.mockImplementation(realGenerator);
      }
      expect(await countRows('mcp_servers', { tenant_id: 'stuck' })).toBe(0);
    });
  });

  describe('the code cache', () => {
    it('a cached lookup does not query the database', async () => {
      const server = await publish();
      expect(await store.getServerByCode('AAAAAAAAAAAAAAAB')).toBeNull();
      await untilListening(store);
      const counter = queryCounter(knex);
      try {
        expect(await store.getServerByCode(server.serverCode)).toEqual(server);
        expect(counter.count).toBe(1);
        expect(await store.getServerByCode(server.serverCode)).toEqual(server);
        expect(await store.getServerByCode(server.serverCode)).toEqual(server);
        expect(counter.count).toBe(1);
      } finally {
        counter.stop();
      }
    });

    it('a malformed code is unknown without a query', async () => {
      const counter = queryCounter(knex);
      try {
        for (const code of ['', 'short', 'has-a-dash-00000', 'abcdefghijklmnopq', "' or 1=1 --......"]) {
          expect(await store.getServerByCode(code)).toBeNull();
        }
        expect(counter.count).toBe(0);
      } finally {
        counter.stop();
      }
    });

    it('unknown codes are not cached: a code is found as soon as it exists', async () => {
      const other = knexServerStore(db.connect());
      expect(await other.getServerByCode('AAAAAAAAAAAAAAAA')).toBeNull();
      codeGenerator.mockReturnValueOnce('AAAAAAAAAAAAAAAA');
      const server = await publish();
      expect(await other.getServerByCode('AAAAAAAAAAAAAAAA')).toEqual(server);
    });

    it('with cacheTtlMs: 0 every lookup queries the database', async () => {
      const uncached = knexServerStore(knex, { cacheTtlMs: 0 });
      const server = await publish(uncached);
      const counter = queryCounter(knex);
      try {
        await uncached.getServerByCode(server.serverCode);
        await uncached.getServerByCode(server.serverCode);
        expect(counter.count).toBe(2);
      } finally {
        counter.stop();
      }
    });

    it('holds at most cacheMaxEntries codes, dropping the least recently used', async () => {
      const small = knexServerStore(knex, { cacheMaxEntries: 2 });
      const [a, b, c] = await Promise.all([publish(small), publish(small), publish(small)]);
      expect(await small.getServerByCode('AAAAAAAAAAAAAAAB')).toBeNull();
      await untilListening(small);
      const counter = queryCounter(knex);
      try {
        for (const server of [a!, b!, c!]) await small.getServerByCode(server.serverCode);
        expect(counter.count).toBe(3);
        await small.getServerByCode(c!.serverCode);
        await small.getServerByCode(b!.serverCode);
        expect(counter.count).toBe(3);
        expect(await small.getServerByCode(a!.serverCode)).toEqual(a);
        expect(counter.count).toBe(4);
      } finally {
        counter.stop();
      }
    });

    /**
     * Two instances over one database, as two processes: `other` caches the server, this store
     * writes, and `other` keeps its cached copy until the TTL ends, then reads what `expectAfter` checks.
     */
    async function staleUntilTtl(
      write: (server: ServerRecord) => Promise<void>,
      expectAfter: (seen: ServerRecord | null) => void,
    ) {
      const other = knexServerStore(db.connect(), { cacheTtlMs: 500 });
      const server = await publish();
      expect(await other.getServerByCode(server.serverCode)).toEqual(server); // now cached there
      await write(server);
      // On PostgreSQL the write is announced and `other` may drop its copy at once (farm.*.test.ts).
      if (kind.name === 'sqlite') expect(await other.getServerByCode(server.serverCode)).toEqual(server);
      await vi.waitFor(async () => expectAfter(await other.getServerByCode(server.serverCode)), {
        timeout: 5000,
        interval: 50,
      });
      return other;
    }

    it('another instance keeps finding a rotated code until its TTL expires, then not', async () => {
      let newCode = '';
      const other = await staleUntilTtl(
        async (server) => {
          newCode = (await store.rotateCode(server.id))!.serverCode;
        },
        (seen) => expect(seen).toBeNull(),
      );
      expect(await other.getServerByCode(newCode)).toMatchObject({ serverCode: newCode });
    });

    it('another instance sees a deactivation once its TTL expires', async () => {
      await staleUntilTtl(
        async (server) => {
          await store.deactivateServer(server.id);
        },
        (seen) => expect(seen).toMatchObject({ status: 'inactive' }),
      );
    });
  });

  describe('lookups that start in the same turn', () => {
    const isLookup = (sql: string) => /^select\b/i.test(sql) && sql.includes('server_code');
    /**
     * A store without a code cache, listening already, so that only lookups query; `sent` has the
     * number of codes bound to each lookup query since.
     */
    const uncachedStore = async () => {
      const uncached = knexServerStore(knex, { cacheTtlMs: 0 });
      expect(await uncached.getServerByCode('AAAAAAAAAAAAAAAB')).toBeNull();
      await untilListening(uncached);
      const sent: number[] = [];
      const listener = (query: { sql: string; bindings?: unknown[] }) => {
        if (isLookup(query.sql)) sent.push(query.bindings?.length ?? 0);
      };
      knex.on('query', listener);
      const close = async () => {
        knex.removeListener('query', listener);
        await uncached.close();
      };
      return { uncached, sent, close };
    };

    it('share one query, each code once, and each lookup gets its own server or null', async () => {
      const { uncached, sent, close } = await uncachedStore();
      try {
        const [a, b, c] = await Promise.all([publish(), publish(), publish()]);
        const found = await Promise.all(
          [a, b, c, null, a].map((server) =>
            uncached.getServerByCode(server?.serverCode ?? 'AAAAAAAAAAAAAAAC'),
          ),
        );
        expect(found).toEqual([a, b, c, null, a]);
        expect(found[4]).not.toBe(found[0]); // a copy each, as every lookup returns
        expect(sent).toEqual([4]);
      } finally {
        await close();
      }
    });

    it('put 100 codes in one query at most', async () => {
      const { uncached, sent, close } = await uncachedStore();
      try {
        const codes = Array.from({ length: 250 }, () => realGenerator());
        const found = await Promise.all(codes.map((code) => uncached.getServerByCode(code)));
        expect(found).toEqual(codes.map(() => null));
        expect(sent).toEqual([100, 100, 50]);
      } finally {
        await close();
      }
    });

    it('a lookup begun once the query went out queries again, and sees a write made since', async () => {
      const { uncached, sent, close } = await uncachedStore();
      try {
        const server = await publish();
        const sentOut = new Promise<void>((resolve) => {
          const listener = (query: { sql: string }) => {
            if (!isLookup(query.sql)) return;
            knex.removeListener('query', listener);
            resolve();
          };
          knex.on('query', listener);
        });
        const first = uncached.getServerByCode(server.serverCode);
        await sentOut;
        const deactivated = await uncached.deactivateServer(server.id);
        const second = await uncached.getServerByCode(server.serverCode);
        expect(await first).not.toBeNull(); // active or not: it raced the write
        expect(second).toEqual(deactivated);
        expect(second?.status).toBe('inactive');
        expect(sent).toEqual([1, 1]);
      } finally {
        await close();
      }
    });

    it('the shared query runs outside every caller’s AsyncLocalStorage context', async () => {
      const { uncached, close } = await uncachedStore();
      const requests = new AsyncLocalStorage<string>();
      const seen: (string | undefined)[] = [];
      const listener = (query: { sql: string }) => {
        if (isLookup(query.sql)) seen.push(requests.getStore());
      };
      knex.on('query', listener);
      try {
        const server = await publish();
        const found = await Promise.all(
          ['request A', 'request B'].map((name) =>
            requests.run(name, () => uncached.getServerByCode(server.serverCode)),
          ),
        );
        expect(found).toEqual([server, server]);
        expect(seen).toEqual([undefined]);
      } finally {
        knex.removeListener('query', listener);
        await close();
      }
    });

    it('go out even while the host’s tests fake setImmediate', async () => {
      const { uncached, close } = await uncachedStore();
      vi.useFakeTimers({ toFake: ['setImmediate'] });
      try {
        const server = await publish();
        expect(await uncached.getServerByCode(server.serverCode)).toEqual(server);
      } finally {
        vi.useRealTimers();
        await close();
      }
    });
  });

  describe('end users', () => {
    it('the end user is a row of type mcp; a fresh instance reads the same record', async () => {
      const server = await publish();
      const endUser = await store.getOrCreateEndUser(server, 'Claude Desktop@1.2.3');
      expect(endUser).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Claude Desktop@1.2.3' });
      const row = await knex('mcp_end_users').where({ server_id: server.id }).first();
      expect(row).toMatchObject({
        id: endUser.id,
        tenant_id: server.tenantId,
        app_id: server.appId,
        type: 'mcp',
        name: 'Claude Desktop@1.2.3',
      });
      expect(await store.getOrCreateEndUser(server, 'another@2')).toEqual(endUser);
      // A fresh instance has nothing cached and reads the same record.
      expect(await knexServerStore(knex).getOrCreateEndUser(server, 'third@3')).toEqual(endUser);
    });

    it('once known, the end user is served without a query', async () => {
      const server = await publish();
      await store.getOrCreateEndUser(server, 'client@1');
      const counter = queryCounter(knex);
      try {
        await store.getOrCreateEndUser(server, 'client@1');
        expect(counter.count).toBe(0);
      } finally {
        counter.stop();
      }
    });

    it('concurrent first calls from ten instances sharing a pool produce exactly one row', async () => {
      // Each instance has its own end-user cache, so all ten really insert at the same time.
      const server = await publish();
      const shared = db.connect();
      const endUsers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => knexServerStore(shared).getOrCreateEndUser(server, `c${i}@1`)),
      );
      expect(await countRows('mcp_end_users', { server_id: server.id })).toBe(1);
      expect(new Set(endUsers.map((endUser) => endUser.id)).size).toBe(1);
    });

    it('a failed creation is not remembered: the next call tries again', async () => {
      const server = await publish();
      // A missing name breaks the NOT NULL constraint.
      await expect(store.getOrCreateEndUser(server, null as unknown as string)).rejects.toThrow();
      const endUser = await store.getOrCreateEndUser(server, 'client@1');
      expect(endUser.name).toBe('client@1');
      expect(await countRows('mcp_end_users', { server_id: server.id })).toBe(1);
    });
  });

  describe('failures', () => {
    // A store over tables that do not exist: every query fails, as on a broken connection.
    const broken = () => knexServerStore(knex, { tablePrefix: 'missing_', cacheTtlMs: 0 });

    it('a failed lookup reports the database error without the server code in it', async () => {
      const code = realGenerator();
      const failure = await broken()
        .getServerByCode(code)
        .then(
          () => null,
          (error: Error) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(failure?.message).toContain('missing_mcp_servers');
      // The whole error, its cause included: knex quotes the query with its values on SQLite
      // (with placeholders on PostgreSQL), so there the code was in it and is now redacted.
      const written = inspect(failure, { depth: 10 });
      if (kind.name === 'sqlite') expect(written).toContain(REDACTED_CODE);
      expect(written).not.toContain(code);
    });

    it('a failed query shared by several lookups fails each, naming none of their codes', async () => {
      const codes = [realGenerator(), realGenerator(), realGenerator()];
      const store = broken();
      const failures = await Promise.all(
        codes.map((code) =>
          store.getServerByCode(code).then(
            () => null,
            (error: Error) => error,
          ),
        ),
      );
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(Error);
        expect(failure?.message).toContain('missing_mcp_servers');
        const written = inspect(failure, { depth: 10 });
        if (kind.name === 'sqlite') expect(written).toContain(REDACTED_CODE);
        for (const code of codes) expect(written).not.toContain(code);
      }
    });

    it('a failed insert reports the database error without the new code in it', async () => {
      const code = realGenerator();
      codeGenerator.mockImplementationOnce(() => code);
      const failure = await publish(broken()).then(
        () => null,
        (error: Error) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(failure?.message).toContain('missing_mcp_servers');
      expect(`${failure?.message}\n${failure?.stack}`).not.toContain(code);
    });
  });
});
