/**
 * Replaces a secret (a server code, a bearer token) wherever an error repeats it: Knex writes a
 * failed query's bindings into its message, PostgreSQL repeats a conflicting value in `detail`,
 * and a host's token check may quote the token it refused. Secrets must not reach logs that way.
 */
export function redactSecret(error: unknown, secret: string, label: string, depth = 0): unknown {
  if (typeof error !== 'object' || error === null || secret === '' || depth > 4) return error;
  const record = error as Record<string, unknown>;
  for (const key of ['message', 'stack', 'detail', 'sql']) {
    const value = record[key];
    if (typeof value === 'string' && value.includes(secret)) record[key] = value.replaceAll(secret, label);
  }
  if (Array.isArray(record.bindings))
    record.bindings = record.bindings.map((binding) => (binding === secret ? label : binding));
  // Errors that wrap others (`new Error('…', { cause })`) carry the secret one level down.
  redactSecret(record.cause, secret, label, depth + 1);
  return error;
}
