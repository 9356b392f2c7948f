import type { Knex } from 'knex';
import { ConfigurationError } from '../errors/package-errors.js';

/** A Knex store's first argument must be a Knex instance; anything else is a `ConfigurationError` naming the factory. */
export function assertKnexInstance(knex: unknown, factory: string): asserts knex is Knex {
  if (typeof knex !== 'function' || typeof (knex as Partial<Knex>).schema !== 'object') {
    throw new ConfigurationError('invalid_knex', `${factory}: the first argument must be a Knex instance`);
  }
}
