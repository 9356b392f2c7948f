import { z } from 'zod';
import { ConfigurationError } from '../errors.js';

/**
 * The prefix is spliced into table and constraint names, so it is limited to characters that need
 * no quoting anywhere, and kept short because PostgreSQL cuts identifiers at 63 bytes.
 */
const tablePrefix = z
  .string()
  .regex(/^[A-Za-z0-9_]{0,32}$/, 'must be at most 32 letters, digits or underscores')
  .default('');

export const migrateOptionsSchema = z.strictObject({ tablePrefix });

export const rollbackOptionsSchema = z.strictObject({
  tablePrefix,
  all: z.boolean().default(false),
});

export const storeOptionsSchema = z.strictObject({
  tablePrefix,
  cacheTtlMs: z.number().int().nonnegative().default(5000),
  cacheMaxEntries: z.number().int().positive().default(10_000),
});

/**
 * Parses options once, at factory time (STYLE habit 2): defaults filled, unknown keys and wrong
 * types throw a `ConfigurationError` naming the option, the caller's object is left untouched.
 */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown, caller: string): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `unknown option "${key}"`).join('; ');
    }
    const name = issue.path.join('.');
    return name ? `option "${name}" ${issue.message}` : issue.message;
  });
  throw new ConfigurationError(`${caller}: ${problems.join('; ')}`);
}
