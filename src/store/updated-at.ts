import type { Knex } from 'knex';

/**
 * The `updated_at` of a row being written: now, or 1 ms past what the row holds when that is now
 * or later (two writes in the same millisecond, or a clock that went back), so that it moves
 * strictly forward: it is the revision caches compare.
 */
export function nextUpdatedAt(knex: Knex, now = Date.now()): Knex.Raw {
  return knex.raw('case when ?? < ? then ? else ?? + 1 end', ['updated_at', now, now, 'updated_at']);
}
