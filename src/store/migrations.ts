import type { Knex } from 'knex';
import { parseFactoryOptions } from '../util/factory-options.js';
import { dialectOf } from './dialect.js';
import { createServerKeys, hashedServerCodes } from './keys/migration.js';
import { serverAuthMode } from './migration-auth-mode.js';
import { migrateOptionsSchema, rollbackOptionsSchema } from './store-options.js';
import { type TableNames, tableNames } from './tables.js';
import { createTasks, serverTaskSupport } from './tasks/migration.js';
import { createToolsets } from './toolsets/migration.js';
import { createAuditLog, createUsage } from './usage/migration.js';

/** Options of `migrate`. */
export interface MigrateOptions {
  /** Prepended to every table the package creates, including its migrations table. Default `''`. */
  tablePrefix?: string;
}

/** Options of `rollback`. */
export interface RollbackOptions extends MigrateOptions {
  /** Undo every migration of the package, not only the last batch. Default `false`. */
  all?: boolean;
}

interface Migration {
  name: string;
  up(knex: Knex, tables: TableNames): Promise<void>;
  down(knex: Knex, tables: TableNames): Promise<void>;
}

/**
 * Timestamps are epoch milliseconds in a bigint column: SQLite has no date type, so this is the one
 * representation that reads back the same on every driver, keeps millisecond precision, and lets an
 * UPDATE move `updated_at` strictly forward with plain arithmetic.
 */
function timestamps(table: Knex.CreateTableBuilder): void {
  table.bigInteger('created_at').notNullable();
  table.bigInteger('updated_at').notNullable();
}

/**
 * The package's migrations, in order. Released entries are never edited: a schema change is a new
 * entry, so hosts that already ran the old ones move forward with `migrate`.
 */
const MIGRATIONS: Migration[] = [
  {
    name: '0001_create_servers',
    async up(knex, { servers, constraints }) {
      await knex.schema.createTable(servers, (table) => {
        table.string('id', 36).notNullable().primary();
        table.string('tenant_id', 255).notNullable();
        table.string('app_id', 255).notNullable();
        table.text('name').notNullable();
        table.text('description').notNullable().defaultTo('');
        table.string('server_code', 16).notNullable();
        table
          .string('status', 16)
          .notNullable()
          .defaultTo('active')
          .checkIn(['active', 'inactive'], constraints.status);
        // JSON text rather than a JSON column: the same on SQLite and PostgreSQL.
        table.text('parameters').notNullable().defaultTo('{}');
        timestamps(table);
        table.unique(['server_code'], { indexName: constraints.serverCode });
        // At most one server per app.
        table.unique(['tenant_id', 'app_id'], { indexName: constraints.tenantApp });
      });
    },
    async down(knex, { servers }) {
      await knex.schema.dropTable(servers);
    },
  },
  {
    name: '0002_create_end_users',
    async up(knex, { servers, endUsers, constraints }) {
      await knex.schema.createTable(endUsers, (table) => {
        table.string('id', 36).notNullable().primary();
        table.string('tenant_id', 255).notNullable();
        table.string('app_id', 255).notNullable();
        // One end user per server: the unique index is what makes creation race-safe.
        table.string('server_id', 36).notNullable();
        table.string('type', 16).notNullable().defaultTo('mcp');
        table.text('name').notNullable();
        timestamps(table);
        table.unique(['server_id'], { indexName: constraints.endUserServer });
        table
          .foreign('server_id', constraints.endUserServerForeign)
          .references('id')
          .inTable(servers)
          .onDelete('CASCADE');
      });
    },
    async down(knex, { endUsers }) {
      await knex.schema.dropTable(endUsers);
    },
  },
  {
    name: '0003_server_annotations',
    async up(knex, { servers }) {
      // The tool's hints as JSON text, NULL when there are none; existing servers keep none.
      await knex.schema.alterTable(servers, (table) => {
        table.text('annotations').nullable();
      });
    },
    async down(knex, { servers }) {
      await knex.schema.alterTable(servers, (table) => {
        table.dropColumn('annotations');
      });
    },
  },
  {
    name: '0004_create_tool_providers',
    async up(knex, { toolProviders, constraints }) {
      await knex.schema.createTable(toolProviders, (table) => {
        table.string('id', 36).notNullable().primary();
        table.string('tenant_id', 255).notNullable();
        table.string('name', 255).notNullable();
        // AES-256-GCM ciphertexts, never plain text: URLs and headers often carry credentials.
        table.text('encrypted_server_url').notNullable();
        table.text('encrypted_headers').notNullable();
        table.integer('timeout_ms').notNullable();
        table.integer('call_timeout_ms').notNullable();
        // The cached tools/list, as JSON text: it describes the tools and holds nothing secret.
        table.text('tools').notNullable().defaultTo('[]');
        table.bigInteger('tools_updated_at').nullable();
        timestamps(table);
        table.unique(['tenant_id', 'name'], { indexName: constraints.toolProviderName });
      });
    },
    async down(knex, { toolProviders }) {
      await knex.schema.dropTable(toolProviders);
    },
  },
  serverAuthMode,
  {
    // Every change of a server is announced to the instances of a farm in the transaction that
    // makes it (a NOTIFY is delivered on commit), whoever writes it, so that their caches drop
    // it at once. PostgreSQL only: SQLite has no NOTIFY, and its cache relies on the TTL.
    name: '0006_notify_server_changes',
    async up(knex, { servers, serverChangeTrigger, channels }) {
      if (!dialectOf(knex).notifies) return;
      await knex.raw(
        `create function ?? () returns trigger language plpgsql as $$
         begin perform pg_notify(${quoteLiteral(channels.serverChanged)}, old.id); return null; end $$`,
        [serverChangeTrigger],
      );
      await knex.raw('create trigger ?? after update or delete on ?? for each row execute procedure ?? ()', [
        serverChangeTrigger,
        servers,
        serverChangeTrigger,
      ]);
    },
    async down(knex, { servers, serverChangeTrigger }) {
      if (!dialectOf(knex).notifies) return;
      await knex.raw('drop trigger ?? on ??', [serverChangeTrigger, servers]);
      await knex.raw('drop function ?? ()', [serverChangeTrigger]);
    },
  },
  {
    // The counters of `rateLimit`, shared by the instances of a farm: exactly the table
    // rate-limiter-flexible's PostgreSQL store would create itself, made here so that the package
    // never creates a table outside `migrate`. PostgreSQL only: on SQLite limits are counted in memory.
    name: '0007_create_rate_limits',
    async up(knex, { rateLimits }) {
      if (!dialectOf(knex).notifies) return;
      await knex.schema.createTable(rateLimits, (table) => {
        table.string('key', 255).primary();
        table.integer('points').notNullable().defaultTo(0);
        table.bigInteger('expire');
      });
    },
    async down(knex, { rateLimits }) {
      if (!dialectOf(knex).notifies) return;
      await knex.schema.dropTable(rateLimits);
    },
  },
  {
    // Resumable streams (MCP 2025-03-26 Streamable HTTP, "Resumability and redelivery"): each
    // event of a streamed reply, so that a client that lost the stream gets the rest from any
    // instance. A stream belongs to one server; its events are kept a while after it ends.
    name: '0008_create_stream_events',
    async up(knex, { streams, streamEvents }) {
      await knex.schema.createTable(streams, (table) => {
        table.string('id', 64).notNullable().primary();
        table.string('server_id', 36).notNullable();
        table.bigInteger('created_at').notNullable();
        table.bigInteger('ended_at');
        // Past this, the stream and its events may be deleted.
        table.bigInteger('expires_at').notNullable().index(`${streams}_expires_index`);
      });
      await knex.schema.createTable(streamEvents, (table) => {
        table.string('stream_id', 64).notNullable();
        table.integer('seq').notNullable();
        table.text('data').notNullable();
        table.primary(['stream_id', 'seq']);
      });
    },
    async down(knex, { streams, streamEvents }) {
      await knex.schema.dropTable(streamEvents);
      await knex.schema.dropTable(streams);
    },
  },
  createTasks,
  serverTaskSupport,
  {
    // The JSON-RPC id of the request a stream answers, as JSON text, so that a resumed stream
    // whose run was lost can end with a response to that request (docs/http-contract.md,
    // "Resumable streams"). Streams stored before have none.
    name: '0011_stream_request_ids',
    async up(knex, { streams }) {
      await knex.schema.alterTable(streams, (table) => {
        table.text('request_id').nullable();
      });
    },
    async down(knex, { streams }) {
      await knex.schema.alterTable(streams, (table) => {
        table.dropColumn('request_id');
      });
    },
  },
  createToolsets,
  createServerKeys,
  hashedServerCodes,
  createUsage,
  createAuditLog,
];

/** A string as an SQL literal, for the one place a binding cannot go: the body of a function. */
const quoteLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** Hands our migrations to Knex as code, so nothing is read from the host's migrations folder. */
function migrationSource(tables: TableNames): Knex.MigrationSource<Migration> {
  return {
    getMigrations: async () => MIGRATIONS,
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => ({
      up: (knex: Knex) => migration.up(knex, tables),
      down: (knex: Knex) => migration.down(knex, tables),
    }),
  };
}

function migratorConfig(prefix: string): Knex.MigratorConfig {
  const tables = tableNames(prefix);
  return { migrationSource: migrationSource(tables), tableName: tables.migrations };
}

/**
 * Creates or updates the package's tables and nothing else; running it again is a no-op.
 * Returns the names of the migrations it ran.
 *
 * @example
 * ```ts
 * const db = knex({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true });
 * const ran = await migrate(db, { tablePrefix: 'acme_' }); // e.g. ['0001_create_servers', '0002_create_end_users']
 * ```
 */
export async function migrate(knex: Knex, options?: MigrateOptions): Promise<string[]> {
  const { tablePrefix } = parseFactoryOptions(migrateOptionsSchema, options ?? {}, 'migrate');
  const [, ran] = (await knex.migrate.latest(migratorConfig(tablePrefix))) as [number, string[]];
  return ran;
}

/**
 * Undoes the package's last batch of migrations (or all of them), dropping its tables and their
 * data. For tests and for admins removing the package. Returns the names of the migrations undone.
 *
 * @example
 * ```ts
 * await rollback(db, { tablePrefix: 'acme_', all: true }); // the package's tables are gone
 * ```
 */
export async function rollback(knex: Knex, options?: RollbackOptions): Promise<string[]> {
  const { tablePrefix, all } = parseFactoryOptions(rollbackOptionsSchema, options ?? {}, 'rollback');
  const [, undone] = (await knex.migrate.rollback(migratorConfig(tablePrefix), all)) as [number, string[]];
  return undone;
}

/** Which of the package's migrations a database has run, and which are pending, in order. */
export interface MigrationStatus {
  completed: string[];
  pending: string[];
}

/**
 * The package's migrations on this database. It only reads: on a database the package never
 * touched, every migration is pending and no table is created (Knex's own listing would create the
 * migrations table).
 */
export async function migrationStatus(knex: Knex, options?: MigrateOptions): Promise<MigrationStatus> {
  const { tablePrefix } = parseFactoryOptions(migrateOptionsSchema, options ?? {}, 'migrationStatus');
  const config = migratorConfig(tablePrefix);
  if (!(await knex.schema.hasTable(config.tableName!))) {
    return { completed: [], pending: MIGRATIONS.map((migration) => migration.name) };
  }
  const [completed, pending] = (await knex.migrate.list(config)) as [{ name: string }[], Migration[]];
  return { completed: completed.map((row) => row.name), pending: pending.map((migration) => migration.name) };
}
