import type { Knex } from 'knex';
import type { TableNames } from './tables.js';

/**
 * Per-user access (see the README, "Per-user access with OAuth"): each server says who may call it,
 * and an `"oauth"` server has one end user per signed-in subject instead of one per server. Runs
 * of `"code"` servers keep the subject `''`, so the unique `(server_id, subject)` still makes their
 * one end user race-safe.
 */
export const serverAuthMode = {
  name: '0005_server_auth_mode',
  async up(knex: Knex, { servers, endUsers, constraints }: TableNames): Promise<void> {
    await knex.schema.alterTable(servers, (table) => {
      table
        .string('auth_mode', 16)
        .notNullable()
        .defaultTo('code')
        .checkIn(['code', 'oauth'], constraints.authMode);
    });
    await knex.schema.alterTable(endUsers, (table) => {
      table.string('subject', 255).notNullable().defaultTo('');
    });
    await knex.schema.alterTable(endUsers, (table) => {
      table.dropUnique(['server_id'], constraints.endUserServer);
      table.unique(['server_id', 'subject'], { indexName: constraints.endUserServerSubject });
    });
  },
  async down(knex: Knex, { servers, endUsers, constraints }: TableNames): Promise<void> {
    // Back to one end user per server: the signed-in users' records go.
    await knex(endUsers).whereNot({ subject: '' }).delete();
    await knex.schema.alterTable(endUsers, (table) => {
      table.dropUnique(['server_id', 'subject'], constraints.endUserServerSubject);
      table.unique(['server_id'], { indexName: constraints.endUserServer });
    });
    await knex.schema.alterTable(endUsers, (table) => {
      table.dropColumn('subject');
    });
    await knex.schema.alterTable(servers, (table) => {
      table.dropChecks([constraints.authMode]);
      table.dropColumn('auth_mode');
    });
  },
};
