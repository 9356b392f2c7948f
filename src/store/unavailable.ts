import { Unavailable } from '../errors/unavailable.js';
import { ANY_DIALECT } from './dialect.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Whether a failure means "the database is out of reach or busy right now", worth a `503` and a
 * retry, rather than a fault (`500`): an `Unavailable` (a lookup that missed its deadline among
 * them), a connection refused, reset or timed out, no pooled connection to be had (Knex), or what
 * a driver says of it (`Dialect.isUnavailable`). Any driver's: `resolveServer` may be the host's
 * own, over a database the store does not know.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof Unavailable) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return ANY_DIALECT.isUnavailable(error);
}
