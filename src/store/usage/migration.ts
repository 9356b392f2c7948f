import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';

/** The columns a caller is counted under (`CallerColumns`): `code` has the id `''`. */
function callerColumns(table: Knex.CreateTableBuilder): void {
  table.string('caller_kind', 16).notNullable();
  table.string('caller_id', 255).notNullable();
}

/**
 * `0015_create_usage`: the counts per server, UTC hour, tool and caller, which every instance adds
 * to (an upsert), and each caller's calls per UTC day, for daily call quotas.
 */
export const createUsage = {
  name: '0015_create_usage',
  async up(knex: Knex, { usage, dailyCalls }: TableNames) {
    await knex.schema.createTable(usage, (table) => {
      table.string('server_id', 36).notNullable();
      // The hour's start, unix seconds: the same integer on every driver.
      table.bigInteger('hour').notNullable();
      table.string('tool', 128).notNullable();
      callerColumns(table);
      table.text('caller_name').nullable();
      for (const count of ['calls', 'errors', 'duration_ms', 'tasks', 'asks']) {
        table.bigInteger(count).notNullable().defaultTo(0);
      }
      // The key the upsert adds on; it also serves a server's hours in a range.
      table.primary(['server_id', 'hour', 'tool', 'caller_kind', 'caller_id'], `${usage}_pkey`);
    });
    await knex.schema.createTable(dailyCalls, (table) => {
      table.string('server_id', 36).notNullable();
      callerColumns(table);
      table.string('day', 10).notNullable();
      table.bigInteger('calls').notNullable().defaultTo(0);
      table.primary(['server_id', 'caller_kind', 'caller_id', 'day'], `${dailyCalls}_pkey`);
    });
  },
  async down(knex: Knex, { usage, dailyCalls }: TableNames) {
    await knex.schema.dropTableIfExists(dailyCalls);
    await knex.schema.dropTableIfExists(usage);
  },
};

/** `0016_create_audit_log`: every console write, read per tenant, newest first. */
export const createAuditLog = {
  name: '0016_create_audit_log',
  async up(knex: Knex, { auditLog }: TableNames) {
    await knex.schema.createTable(auditLog, (table) => {
      table.string('id', 36).notNullable().primary();
      table.string('tenant_id', 255).notNullable();
      table.bigInteger('at').notNullable();
      table.text('actor').nullable();
      table.string('action', 32).notNullable();
      table.string('target_id', 255).nullable();
      // JSON text, as the servers' parameters: the same on SQLite and PostgreSQL.
      table.text('details').notNullable().defaultTo('{}');
      table.index(['tenant_id', 'at', 'id'], `${auditLog}_tenant_at_index`);
    });
  },
  async down(knex: Knex, { auditLog }: TableNames) {
    await knex.schema.dropTableIfExists(auditLog);
  },
};
