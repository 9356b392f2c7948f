import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';
import type { TableNames } from '../tables.js';

const quoteLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** Every value `auth_mode` takes once `"key"` servers exist (docs/keys.md). */
const AUTH_MODES = ['code', 'oauth', 'key'];
const EARLIER_AUTH_MODES = ['code', 'oauth'];

/**
 * Widens (or narrows back) the check on `auth_mode`. PostgreSQL replaces the named constraint.
 * SQLite cannot alter a check, and rebuilding the table would cascade to the end users: the column
 * is added again with the new check, filled, and the old one dropped (a column check goes with its
 * column), then renamed; no row leaves the table.
 */
async function checkAuthModes(knex: Knex, { servers, constraints }: TableNames, modes: string[]) {
  if (dialectOf(knex).notifies) {
    await knex.raw('alter table ?? drop constraint ??', [servers, constraints.authMode]);
    await knex.raw(
      `alter table ?? add constraint ?? check (auth_mode in (${modes.map(quoteLiteral).join(', ')}))`,
      [servers, constraints.authMode],
    );
    return;
  }
  await knex.schema.alterTable(servers, (table) => {
    table.string('auth_mode_next', 16).notNullable().defaultTo('code').checkIn(modes, constraints.authMode);
  });
  await knex(servers).update({ auth_mode_next: knex.ref('auth_mode') });
  await knex.raw('alter table ?? drop column ??', [servers, 'auth_mode']);
  await knex.raw('alter table ?? rename column ?? to ??', [servers, 'auth_mode_next', 'auth_mode']);
}

/**
 * Caller keys (docs/keys.md): one row per key of a server, its secret kept only as a hash. A
 * change of a key is announced as a change of its server, in the transaction that makes it, so
 * that every instance of a farm drops the key from its cache at once (PostgreSQL only; SQLite
 * relies on the cache's TTL). `last_used_at` is left out of the trigger: it moves once a minute
 * per key and invalidates nothing.
 */
export const createServerKeys = {
  name: '0013_create_server_keys',
  async up(knex: Knex, tables: TableNames): Promise<void> {
    const { servers, serverKeys, constraints, keyChangeTrigger, channels } = tables;
    await knex.schema.createTable(serverKeys, (table) => {
      table.string('id', 36).notNullable().primary();
      table.string('server_id', 36).notNullable().index(`${serverKeys}_server_index`);
      table.text('name').notNullable();
      table.string('prefix', 16).notNullable();
      table.string('secret_hash', 64).notNullable();
      table.string('previous_hash', 64).nullable();
      table.bigInteger('grace_until').nullable();
      table.bigInteger('created_at').notNullable();
      table.bigInteger('expires_at').nullable();
      table.bigInteger('last_used_at').nullable();
      table.bigInteger('revoked_at').nullable();
      table.integer('daily_call_quota').nullable();
      table.unique(['prefix'], { indexName: constraints.serverKeyPrefix });
      table
        .foreign('server_id', constraints.serverKeyServerForeign)
        .references('id')
        .inTable(servers)
        .onDelete('CASCADE');
    });
    await checkAuthModes(knex, tables, AUTH_MODES);
    if (!dialectOf(knex).notifies) return;
    await knex.raw(
      `create function ?? () returns trigger language plpgsql as $$
       begin perform pg_notify(${quoteLiteral(channels.serverChanged)}, old.server_id); return null; end $$`,
      [keyChangeTrigger],
    );
    await knex.raw(
      `create trigger ?? after update of secret_hash, previous_hash, grace_until, expires_at, revoked_at, name,
       daily_call_quota or delete on ?? for each row execute procedure ?? ()`,
      [keyChangeTrigger, serverKeys, keyChangeTrigger],
    );
  },
  async down(knex: Knex, tables: TableNames): Promise<void> {
    const { servers, serverKeys, keyChangeTrigger } = tables;
    if (dialectOf(knex).notifies) {
      await knex.raw('drop trigger ?? on ??', [keyChangeTrigger, serverKeys]);
      await knex.raw('drop function ?? ()', [keyChangeTrigger]);
    }
    await knex.schema.dropTable(serverKeys);
    // Servers that took keys go back to their code alone.
    await knex(servers).where({ auth_mode: 'key' }).update({ auth_mode: 'code' });
    await checkAuthModes(knex, tables, EARLIER_AUTH_MODES);
  },
};

/**
 * Server codes hashed at rest (docs/keys.md, "Codes hashed at rest"): `server_code` may hold the
 * SHA-256 of a code (64 hex characters) instead of the code, and `code_hint` its first four
 * characters, the one part the console still shows.
 */
export const hashedServerCodes = {
  name: '0014_hashed_server_codes',
  async up(knex: Knex, { servers }: TableNames): Promise<void> {
    // SQLite does not enforce a varchar's length; PostgreSQL does.
    if (dialectOf(knex).notifies)
      await knex.raw('alter table ?? alter column server_code type varchar(64)', [servers]);
    await knex.schema.alterTable(servers, (table) => {
      table.string('code_hint', 4).nullable();
    });
  },
  async down(knex: Knex, { servers }: TableNames): Promise<void> {
    // A hashed code cannot be turned back: such a database fails here, on PostgreSQL, by design.
    if (dialectOf(knex).notifies)
      await knex.raw('alter table ?? alter column server_code type varchar(16)', [servers]);
    // Not Knex's dropColumn: on SQLite it rebuilds the table, which would cascade to the end users.
    await knex.raw('alter table ?? drop column ??', [servers, 'code_hint']);
  },
};
