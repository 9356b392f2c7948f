import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';

/**
 * Toolsets (docs/toolsets.md): a toolset is a row of the servers table, so that it has a code,
 * rotation, status, end users, tasks and the change trigger of every server, and whatever refers
 * to a server by its id works for it too. `kind` tells it apart; its apps are rows of their own.
 *
 * A toolset has no app of its own, but `app_id` is not null and `(tenant_id, app_id)` is unique:
 * it stores `toolset:<its id>`, which no other row can hold (its id is unique) and which one-app
 * lookups never read (they ask for `kind = 'app'`). Relaxing the constraints instead would need
 * SQLite to rebuild the table, and would let two one-app servers of one app in through a bug.
 */
export const createToolsets = {
  name: '0012_create_toolsets',
  async up(knex: Knex, { servers, toolsetMembers, constraints }: TableNames): Promise<void> {
    await knex.schema.alterTable(servers, (table) => {
      table
        .string('kind', 16)
        .notNullable()
        .defaultTo('app')
        .checkIn(['app', 'toolset'], constraints.serverKind);
      table.boolean('all_published').notNullable().defaultTo(false);
    });
    await knex.schema.createTable(toolsetMembers, (table) => {
      table.string('toolset_id', 36).notNullable();
      table.integer('position').notNullable();
      table.string('app_id', 255).notNullable();
      // NULL: the member takes what the app's own server, or the app, gives.
      table.string('tool_name', 128).nullable();
      table.text('description').nullable();
      table.text('parameters').nullable();
      table.text('annotations').nullable();
      table.string('task_support', 16).nullable();
      table.primary(['toolset_id', 'position']);
      table.unique(['toolset_id', 'app_id'], { indexName: constraints.toolsetMember });
      // Which toolsets list an app: read when that app's own server changes.
      table.index(['app_id'], `${toolsetMembers}_app_index`);
      table
        .foreign('toolset_id', constraints.toolsetMemberForeign)
        .references('id')
        .inTable(servers)
        .onDelete('CASCADE');
    });
  },
  async down(knex: Knex, { servers, toolsetMembers, constraints }: TableNames): Promise<void> {
    await knex.schema.dropTable(toolsetMembers);
    await knex(servers).where({ kind: 'toolset' }).delete();
    await knex.schema.alterTable(servers, (table) => {
      table.dropChecks([constraints.serverKind]);
      table.dropColumn('all_published');
      table.dropColumn('kind');
    });
  },
};
