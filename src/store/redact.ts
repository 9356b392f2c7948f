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
    throw redact(error, code);
  }
}

function redact(error: unknown, code: string): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const record = error as Record<string, unknown>;
  for (const key of ['message', 'stack', 'detail', 'sql']) {
    const value = record[key];
    if (typeof value === 'string' && value.includes(code))
      record[key] = value.replaceAll(code, REDACTED_CODE);
  }
  if (Array.isArray(record.bindings))
    record.bindings = record.bindings.map((b) => (b === code ? REDACTED_CODE : b));
  return error;
}
