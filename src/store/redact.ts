import { redactSecret } from '../util/redact-secret.js';

/**
 * Knex writes a failed query's bindings into the error message ("select … where server_code =
 * 'AbC…' - connection reset"), and PostgreSQL repeats a conflicting value in `detail`. A server code
 * is a credential and must not reach logs that way, so errors of queries that bind one are
 * scrubbed before they leave the store.
 */
export const REDACTED_CODE = '[server code]';

/** Runs `work`, scrubbing the code (or each of the codes) it binds from any error it fails with. */
export async function withCodeRedacted<T>(
  codes: string | readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    let scrubbed = error;
    for (const code of typeof codes === 'string' ? [codes] : codes) {
      scrubbed = redactSecret(scrubbed, code, REDACTED_CODE);
    }
    throw scrubbed;
  }
}
