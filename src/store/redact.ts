import { redactSecret } from '../redact-secret.js';

/**
 * Knex writes a failed query's bindings into the error message ("select … where server_code =
 * 'AbC…' - connection reset"), and PostgreSQL repeats a conflicting value in `detail`. A server code
 * is a credential and must not reach logs that way, so errors of queries that bind one are
 * scrubbed before they leave the store.
 */
export const REDACTED_CODE = '[server code]';

export async function withCodeRedacted<T>(code: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw redactSecret(error, code, REDACTED_CODE);
  }
}
