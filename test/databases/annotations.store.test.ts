/**
 * A server's tool annotations, as part of the store contract (`store.contract.test.ts`) on every
 * store: `memoryServerStore`, and `knexServerStore` on SQLite and PostgreSQL, where they live in
 * the `annotations` column that migration `0003_server_annotations` adds (and its `down` removes).
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { knexServerStore, migrate, rollback, type ToolAnnotations } from '../../src/index.js';
import { databaseFor, databases, describeEach } from '../helpers/databases.js';
import { storeFor, storeKinds } from '../helpers/stores.js';

const ALL_HINTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

describeEach(storeKinds)('the store contract on $name: annotations', (kind) => {
  const opened = storeFor(kind);

  const publish = (annotations?: ToolAnnotations) =>
    opened.store.createServer({
      tenantId: 'tenant',
      appId: `app-${randomUUID()}`,
      name: 'Title Case',
      description: 'Capitalises words',
      parameters: {},
      ...(annotations && { annotations }),
    });

  it('a server published with hints keeps them, found by id, app and code', async () => {
    const server = await publish({ readOnlyHint: true, openWorldHint: false });
    expect(server.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(await opened.store.getServerById(server.id)).toEqual(server);
    expect(await opened.store.getServerByApp(server.tenantId, server.appId)).toEqual(server);
    expect(await opened.store.getServerByCode(server.serverCode)).toEqual(server);
    expect((await opened.store.getServerByCode(server.serverCode))?.annotations).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });

  it('a server published without hints, or with none, has no annotations field', async () => {
    for (const server of [await publish(), await publish({})]) {
      expect(Object.hasOwn(server, 'annotations')).toBe(false);
      const found = await opened.store.getServerById(server.id);
      expect(found).toEqual(server);
      expect(Object.hasOwn(found!, 'annotations')).toBe(false);
    }
  });

  it('all four hints are kept, in their own order', async () => {
    const server = await publish({
      openWorldHint: false,
      idempotentHint: true,
      destructiveHint: true,
      readOnlyHint: false,
    });
    const found = await opened.store.getServerByCode(server.serverCode);
    expect(found?.annotations).toEqual(ALL_HINTS);
    expect(Object.keys(found!.annotations!)).toEqual([
      'readOnlyHint',
      'destructiveHint',
      'idempotentHint',
      'openWorldHint',
    ]);
  });

  it('only boolean hints are stored; anything else given is left out', async () => {
    const server = await publish({
      readOnlyHint: true,
      title: 'x',
      destructiveHint: 'no',
    } as unknown as ToolAnnotations);
    expect(server.annotations).toEqual({ readOnlyHint: true });
    expect((await opened.store.getServerById(server.id))?.annotations).toEqual({ readOnlyHint: true });
  });

  it('updateServer replaces every hint, keeps them when absent, clears them with {}, and moves updatedAt', async () => {
    const server = await publish({ readOnlyHint: true, openWorldHint: false });
    const replaced = await opened.store.updateServer(server.id, { annotations: { destructiveHint: false } });
    expect(replaced).toEqual({
      ...server,
      annotations: { destructiveHint: false },
      updatedAt: expect.any(Date),
    });
    expect(replaced!.updatedAt.getTime()).toBeGreaterThanOrEqual(server.updatedAt.getTime());
    expect(await opened.store.getServerByCode(server.serverCode)).toEqual(replaced);

    const kept = await opened.store.updateServer(server.id, { description: 'Edited' });
    expect(kept?.annotations).toEqual({ destructiveHint: false });

    const cleared = await opened.store.updateServer(server.id, { annotations: {} });
    expect(Object.hasOwn(cleared!, 'annotations')).toBe(false);
    expect(Object.hasOwn((await opened.store.getServerByCode(server.serverCode))!, 'annotations')).toBe(
      false,
    );
  });

  it('rotating or deactivating keeps the hints', async () => {
    const server = await publish({ readOnlyHint: true });
    expect((await opened.store.rotateCode(server.id))?.annotations).toEqual({ readOnlyHint: true });
    expect((await opened.store.deactivateServer(server.id))?.annotations).toEqual({ readOnlyHint: true });
  });

  it('a returned record is a copy: changing its hints changes nothing stored', async () => {
    const server = await publish({ readOnlyHint: true });
    const found = await opened.store.getServerByCode(server.serverCode);
    found!.annotations!.readOnlyHint = false;
    server.annotations!.readOnlyHint = false;
    expect((await opened.store.getServerByCode(server.serverCode))?.annotations).toEqual({
      readOnlyHint: true,
    });
    expect((await opened.store.getServerById(server.id))?.annotations).toEqual({ readOnlyHint: true });
  });
});

describeEach(databases)('the annotations column and its migration on $name', (kind) => {
  const fresh = databaseFor(kind);

  it('the Knex store keeps the hints as JSON text, and NULL when there are none', async () => {
    await migrate(fresh.knex, { tablePrefix: 'col_' });
    const store = knexServerStore(fresh.knex, { tablePrefix: 'col_' });
    const publish = (annotations?: ToolAnnotations) =>
      store.createServer({
        tenantId: 't',
        appId: randomUUID(),
        name: 'n',
        description: '',
        parameters: {},
        annotations,
      });
    const column = async (id: string) =>
      (await fresh.knex('col_mcp_servers').where({ id }).first()).annotations;
    const withHints = await publish(ALL_HINTS);
    expect(await column(withHints.id)).toBe(
      '{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}',
    );
    expect(await column((await publish()).id)).toBeNull();
    expect(await column((await publish({})).id)).toBeNull();
    await store.updateServer(withHints.id, { annotations: {} });
    expect(await column(withHints.id)).toBeNull();
    await rollback(fresh.knex, { tablePrefix: 'col_', all: true });
  });

  /**
   * A database as an earlier release of the package left it: the first two migrations ran, and a
   * server exists. Made by migrating and then taking the later migrations back by hand.
   */
  async function databaseBeforeAnnotations(tablePrefix: string): Promise<string> {
    await migrate(fresh.knex, { tablePrefix });
    await fresh.knex.schema.dropTable(`${tablePrefix}mcp_tool_providers`);
    await fresh.knex.schema.alterTable(`${tablePrefix}mcp_servers`, (table) =>
      table.dropColumn('annotations'),
    );
    await fresh
      .knex(`${tablePrefix}mcp_migrations`)
      .whereIn('name', ['0003_server_annotations', '0004_create_tool_providers'])
      .delete();
    const id = randomUUID();
    await fresh.knex(`${tablePrefix}mcp_servers`).insert({
      id,
      tenant_id: 'tenant',
      app_id: 'app',
      name: 'Old Server',
      description: '',
      server_code: 'OldServerCode000',
      status: 'active',
      parameters: '{}',
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    return id;
  }

  it('migrate adds the column to an existing database; its servers keep no hints and can get some', async () => {
    const id = await databaseBeforeAnnotations('up_');
    expect(await fresh.knex.schema.hasColumn('up_mcp_servers', 'annotations')).toBe(false);

    expect(await migrate(fresh.knex, { tablePrefix: 'up_' })).toEqual([
      '0003_server_annotations',
      '0004_create_tool_providers',
    ]);
    expect(await fresh.knex.schema.hasColumn('up_mcp_servers', 'annotations')).toBe(true);
    const store = knexServerStore(fresh.knex, { tablePrefix: 'up_' });
    const old = await store.getServerById(id);
    expect(old).toMatchObject({ id, name: 'Old Server', serverCode: 'OldServerCode000' });
    expect(Object.hasOwn(old!, 'annotations')).toBe(false);
    expect((await store.updateServer(id, { annotations: { readOnlyHint: true } }))?.annotations).toEqual({
      readOnlyHint: true,
    });
    expect(await migrate(fresh.knex, { tablePrefix: 'up_' })).toEqual([]);
    await rollback(fresh.knex, { tablePrefix: 'up_', all: true });
  });

  it('its down removes the column and keeps the servers', async () => {
    const id = await databaseBeforeAnnotations('down_');
    await migrate(fresh.knex, { tablePrefix: 'down_' });
    const store = knexServerStore(fresh.knex, { tablePrefix: 'down_', cacheTtlMs: 0 });
    await store.updateServer(id, { annotations: { readOnlyHint: true } });

    expect(await rollback(fresh.knex, { tablePrefix: 'down_' })).toEqual([
      '0004_create_tool_providers',
      '0003_server_annotations',
    ]);
    expect(await fresh.knex.schema.hasColumn('down_mcp_servers', 'annotations')).toBe(false);
    const row = await fresh.knex('down_mcp_servers').where({ id }).first();
    expect(row).toMatchObject({ id, name: 'Old Server', server_code: 'OldServerCode000', status: 'active' });
    // The unique code index survives the column's removal (SQLite rebuilds the table to drop a column).
    await expect(
      fresh.knex('down_mcp_servers').insert({ ...row, id: randomUUID(), app_id: 'another-app' }),
    ).rejects.toThrow();
    await rollback(fresh.knex, { tablePrefix: 'down_', all: true });
  });
});
