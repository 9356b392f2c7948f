/**
 * Replaces a secret (a server code, a bearer token) wherever an error repeats it: Knex writes a
 * failed query's bindings into its message, PostgreSQL repeats a conflicting value in `detail`,
 * and a host's token check may quote the token it refused. Secrets must not reach logs that way.
 * Objects are scrubbed in place; a thrown string cannot be, so use what this returns.
 */
export function redactSecret(error: unknown, secret: string, label: string, depth = 0): unknown {
  if (secret === '' || depth > 4) return error;
  if (typeof error === 'string') return error.replaceAll(secret, label);
  if (typeof error !== 'object' || error === null) return error;
  const record = error as Record<string, unknown>;
  for (const key of ['message', 'stack', 'detail', 'sql']) {
    const value = record[key];
    if (typeof value === 'string' && value.includes(secret)) record[key] = value.replaceAll(secret, label);
  }
  if (Array.isArray(record.bindings))
    record.bindings = record.bindings.map((binding) => (binding === secret ? label : binding));
  // Errors that wrap others (`new Error('…', { cause })`) carry the secret one level down.
  const { cause } = record;
  const scrubbedCause = redactSecret(cause, secret, label, depth + 1);
  if (scrubbedCause !== cause) record.cause = scrubbedCause;
  // So does an `AggregateError` (`Promise.any`, a connection tried on several addresses), in `errors`.
  if (Array.isArray(record.errors)) {
    const errors: unknown[] = record.errors;
    errors.forEach((inner, index) => {
      const scrubbed = redactSecret(inner, secret, label, depth + 1);
      if (scrubbed !== inner) errors[index] = scrubbed;
    });
  }
  return error;
}
