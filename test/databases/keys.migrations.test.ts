/**
 * The migrations of caller keys (docs/keys.md) on a database with rows: `auth_mode` takes `"key"`
 * and still refuses anything else; rolling them back keeps every server and end user (SQLite
 * cannot alter a check in place, and rebuilding the table would cascade to the end users).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, migrate } from '../../src/store/index.js';
import { createServerKeys, hashedServerCodes } from '../../src/store/keys/migration.js';
import { tableNames } from '../../src/store/tables.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';

describeEach(databases)('the caller keys migrations on $name', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await kind.create();
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('take "key", refuse other modes, and roll back without losing a server or an end user', async () => {
    const knex = db.connect();
    await migrate(knex);
    const store = knexServerStore(knex);
    const oauth = await store.createServer({
      tenantId: 't',
      appId: 'a',
      name: 'A',
      description: '',
      parameters: {},
      authMode: 'oauth',
    });
    const keyed = await store.createServer({
      tenantId: 't',
      appId: 'b',
      name: 'B',
      description: '',
      parameters: {},
      authMode: 'key',
    });
    await store.getOrCreateEndUser(oauth, 'alice', 'alice');
    await store.keys!.create(keyed.id, { name: 'ci' });
    await expect(
      knex('mcp_servers').where({ id: oauth.id }).update({ auth_mode: 'password' }),
    ).rejects.toThrow();

    // The two migrations' own `down`, last first: `rollback` would undo the whole first batch.
    const tables = tableNames('');
    await knex.transaction(async (trx) => {
      await hashedServerCodes.down(trx, tables);
      await createServerKeys.down(trx, tables);
      await trx('mcp_migrations').whereIn('name', [hashedServerCodes.name, createServerKeys.name]).delete();
    });
    expect(await knex('mcp_servers').orderBy('app_id').select('id', 'auth_mode')).toEqual([
      { id: oauth.id, auth_mode: 'oauth' },
      // Back to its code alone: the earlier schema knows no "key".
      { id: keyed.id, auth_mode: 'code' },
    ]);
    expect(await knex('mcp_end_users').select('server_id', 'subject')).toEqual([
      { server_id: oauth.id, subject: 'alice' },
    ]);
    expect(await knex.schema.hasTable('mcp_server_keys')).toBe(false);
    await expect(knex('mcp_servers').where({ id: oauth.id }).update({ auth_mode: 'key' })).rejects.toThrow();

    expect(await migrate(knex)).toEqual(['0013_create_server_keys', '0014_hashed_server_codes']);
    await knex('mcp_servers').where({ id: keyed.id }).update({ auth_mode: 'key' });
    expect((await store.getServerById(keyed.id))?.authMode).toBe('key');
    await store.close();
  });
});
