/**
 * `auth_mode` and per-subject end users in both stores, on every database: stored and edited with
 * the server, one end user per (server, subject) even when several instances create it at once,
 * and the migration undone cleanly.
 */

import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, memoryServerStore, migrate, rollback, type ServerStore } from '../../src/index.js';
import { serverAuthMode } from '../../src/store/migration-auth-mode.js';
import { tableNames } from '../../src/store/tables.js';
import { databaseFor, databases, describeEach } from '../helpers/databases.js';

const newServer = (appId: string, authMode?: 'code' | 'oauth') => ({
  tenantId: 'acme',
  appId,
  name: appId,
  description: '',
  parameters: {},
  ...(authMode ? { authMode } : {}),
});

interface StoreKind {
  name: string;
  skipped?: string;
  open(): Promise<{ store: ServerStore; second: ServerStore; close(): Promise<void> }>;
}

const storeKinds: StoreKind[] = [
  {
    name: 'the memory store',
    async open() {
      const store = memoryServerStore();
      return { store, second: store, close: async () => {} };
    },
  },
  ...databases.map(
    (database): StoreKind => ({
      name: `the Knex store on ${database.name}`,
      ...(database.skipped ? { skipped: database.skipped } : {}),
      async open() {
        const db = await database.create();
        await migrate(db.connect());
        // Two instances on one database, as two processes would be.
        return {
          store: knexServerStore(db.connect()),
          second: knexServerStore(db.connect()),
          close: () => db.destroy(),
        };
      },
    }),
  ),
];

describeEach(storeKinds)('auth_mode and end users per subject in $name', (kind) => {
  let store: ServerStore;
  let second: ServerStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, second, close } = await kind.open());
  });
  afterAll(async () => {
    await close?.();
  });

  it('a server is "code" unless published as "oauth", and the mode can be changed', async () => {
    const plain = await store.createServer(newServer('plain'));
    const guarded = await store.createServer(newServer('guarded', 'oauth'));
    expect([plain.authMode, guarded.authMode]).toEqual(['code', 'oauth']);
    expect((await store.getServerByCode(guarded.serverCode))?.authMode).toBe('oauth');
    const changed = await store.updateServer(plain.id, { authMode: 'oauth' });
    expect(changed?.authMode).toBe('oauth');
    expect((await store.getServerByCode(plain.serverCode))?.authMode).toBe('oauth');
    expect((await store.updateServer(plain.id, { description: 'kept' }))?.authMode).toBe('oauth');
  });

  it('one end user per server and subject, created once even when instances race for it', async () => {
    const server = await store.createServer(newServer('race', 'oauth'));
    const attempts = Array.from({ length: 12 }, (_, index) =>
      (index % 2 === 0 ? store : second).getOrCreateEndUser(
        server,
        index < 6 ? 'alice' : 'bob',
        index < 6 ? 'alice' : 'bob',
      ),
    );
    const endUsers = await Promise.all(attempts);
    const alice = endUsers.slice(0, 6);
    const bob = endUsers.slice(6);
    for (const endUser of alice) expect(endUser).toEqual(alice[0]);
    for (const endUser of bob) expect(endUser).toEqual(bob[0]);
    expect(alice[0]?.name).toBe('alice');
    expect(bob[0]?.name).toBe('bob');
    expect(alice[0]?.id).not.toBe(bob[0]?.id);
    // The client-named end user of the server (no subject) is another one still.
    const unnamed = await store.getOrCreateEndUser(server, 'client@1.0');
    expect([alice[0]?.id, bob[0]?.id]).not.toContain(unnamed.id);
    expect(await second.getOrCreateEndUser(server, 'other@2.0')).toEqual(unnamed);
  });

  it('unpublishing a server forgets all its end users', async () => {
    const server = await store.createServer(newServer('gone', 'oauth'));
    const before = await store.getOrCreateEndUser(server, 'alice', 'alice');
    expect(await store.deleteServer(server.id)).toBe(true);
    const republished = await store.createServer(newServer('gone', 'oauth'));
    const after = await store.getOrCreateEndUser(republished, 'alice', 'alice');
    expect(after.id).not.toBe(before.id);
  });
});

describeEach(databases)('the 0005_server_auth_mode migration on $name', (database) => {
  const fresh = databaseFor(database);

  it('adds auth_mode (default "code", only code or oauth) and subjects, and its down goes back to one end user per server, and it can run again', async () => {
    const tablePrefix = 'am_';
    expect(await migrate(fresh.knex, { tablePrefix })).toContain('0005_server_auth_mode');
    const store = knexServerStore(fresh.knex, { tablePrefix });
    const server = await store.createServer(newServer('notes', 'oauth'));
    await store.getOrCreateEndUser(server, 'client', undefined);
    await store.getOrCreateEndUser(server, 'alice', 'alice');
    await expect(
      fresh.knex('am_mcp_servers').where({ id: server.id }).update({ auth_mode: 'password' }),
    ).rejects.toThrow();
    await fresh.knex('am_mcp_servers').insert({
      id: 'legacy-row',
      tenant_id: 'acme',
      app_id: 'legacy',
      name: 'Legacy',
      server_code: 'Legacy0000000000',
      created_at: 0,
      updated_at: 0,
    });
    expect((await fresh.knex('am_mcp_servers').where({ id: 'legacy-row' }).first()).auth_mode).toBe('code');

    // An install that had this migration alone to undo: its down, then its row gone.
    await serverAuthMode.down(fresh.knex, tableNames(tablePrefix));
    await fresh.knex('am_mcp_migrations').where({ name: '0005_server_auth_mode' }).delete();
    expect(await fresh.knex.schema.hasColumn('am_mcp_servers', 'auth_mode')).toBe(false);
    expect(await fresh.knex.schema.hasColumn('am_mcp_end_users', 'subject')).toBe(false);
    const left = await fresh.knex('am_mcp_end_users').where({ server_id: server.id });
    expect(left.map((row: { name: string }) => row.name)).toEqual(['client']);
    // One end user per server again.
    await expect(
      fresh.knex('am_mcp_end_users').insert({ ...left[0], id: 'second-end-user' }),
    ).rejects.toThrow();

    expect(await migrate(fresh.knex, { tablePrefix })).toEqual(['0005_server_auth_mode']);
    expect((await knexServerStore(fresh.knex, { tablePrefix }).getServerById(server.id))?.authMode).toBe(
      'code',
    );
    await rollback(fresh.knex, { tablePrefix, all: true });
  });
});
