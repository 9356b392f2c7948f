import type { Knex } from 'knex';

/**
 * Whether a Knex instance talks to PostgreSQL, whose `LISTEN`/`NOTIFY` and shared counters let
 * several instances act as one; on SQLite (one process) those features have nothing to share.
 */
export const isPostgres = (knex: Knex): boolean => knex.client.dialect === 'postgresql';
