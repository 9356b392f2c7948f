import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import { type CacheInvalidation, type PostgresFarm, postgresFarm } from './farm/postgres-farm.js';
import { knexStreamEvents, type StreamEventStore } from './stream-events.js';
import type { TableNames } from './tables.js';

/**
 * What a Knex store shares with the other instances: on PostgreSQL a farm (one `LISTEN` connection
 * hears server changes, cancellations and stream events), and on every database the events of
 * resumable streams.
 */
export function knexFarm(
  knex: Knex,
  dialect: Dialect,
  tables: TableNames,
  codes: CacheInvalidation | null,
): { farm: PostgresFarm | undefined; streams: StreamEventStore } {
  const farm = dialect.notifies
    ? postgresFarm(knex, tables, codes, (streamId) => streams.heard(streamId))
    : undefined;
  const streams = knexStreamEvents(knex, tables, farm?.announceStreamEvent);
  return { farm, streams };
}
