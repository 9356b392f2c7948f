import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';

/**
 * Tasks (MCP 2025-11-25 "Tasks"; the tasks extension of 2026-07-28): one row per task, read by
 * any instance of a farm. The result and the error are JSON text, as `parameters` is, so that both
 * databases store them alike; an instance holds each task it runs by a lease it renews.
 */
export const createTasks = {
  name: '0009_create_tasks',
  async up(knex: Knex, { tasks, constraints }: TableNames): Promise<void> {
    await knex.schema.createTable(tasks, (table) => {
      table.string('id', 64).notNullable().primary();
      table.string('server_id', 36).notNullable();
      table.string('caller', 255).notNullable();
      table
        .string('status', 16)
        .notNullable()
        .checkIn(['working', 'input_required', 'completed', 'failed', 'cancelled'], constraints.taskStatus);
      table.text('status_message');
      table.text('result');
      table.text('error');
      table.text('input_requests');
      table.bigInteger('ttl_ms').notNullable();
      table.integer('poll_interval_ms').notNullable();
      table.bigInteger('created_at').notNullable();
      table.bigInteger('updated_at').notNullable();
      table.bigInteger('expires_at').notNullable().index(`${tasks}_expires_index`);
      table.string('owner_instance', 64).notNullable();
      // NULL once the task is over: nobody holds it any more.
      table.bigInteger('lease_expires_at').index(`${tasks}_lease_index`);
      // tasks/list: a caller's tasks, newest first.
      table.index(['server_id', 'caller', 'created_at'], `${tasks}_owner_index`);
    });
  },
  async down(knex: Knex, { tasks }: TableNames): Promise<void> {
    await knex.schema.dropTable(tasks);
  },
};

/**
 * Per server, whether its tool runs as a task (docs/tasks.md): `optional` for every server that
 * exists, as for new ones.
 */
export const serverTaskSupport = {
  name: '0010_server_task_support',
  async up(knex: Knex, { servers, constraints }: TableNames): Promise<void> {
    await knex.schema.alterTable(servers, (table) => {
      table
        .string('task_support', 16)
        .notNullable()
        .defaultTo('optional')
        .checkIn(['forbidden', 'optional', 'required'], constraints.taskSupport);
    });
  },
  async down(knex: Knex, { servers, constraints }: TableNames): Promise<void> {
    await knex.schema.alterTable(servers, (table) => {
      table.dropChecks([constraints.taskSupport]);
      table.dropColumn('task_support');
    });
  },
};
