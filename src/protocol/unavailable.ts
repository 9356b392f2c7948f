/**
 * Whether a failure of `resolveServer` means "the database is out of reach or busy right now",
 * worth a `503` and a retry, rather than a fault (`500`): a lookup that missed its deadline, a
 * connection refused, reset or timed out, no pooled connection to be had (Knex), PostgreSQL
 * shutting down or refusing connections (SQLSTATE classes 08 and 57P, 53300), SQLite busy.
 */
export function isTemporaryFailure(error: unknown): boolean {
  if (error instanceof ResolveTimeout) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300')
      return true;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  }
  // node-postgres names a dropped connection in its message only.
  return typeof message === 'string' && message.startsWith('Connection terminated');
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** `resolveServer` did not answer within `resolveTimeoutMs`. */
export class ResolveTimeout extends Error {
  override name = 'ResolveTimeout';
  constructor(ms: number) {
    super(`resolveServer did not answer within ${ms} ms`);
  }
}
