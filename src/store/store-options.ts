import { z } from 'zod';

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
  staleIfErrorMs: z.number().int().nonnegative().default(300_000),
  hashCodes: z.boolean().default(false),
  keyPepper: z.string().min(16, 'must be at least 16 characters').optional(),
});

export const memoryStoreOptionsSchema = z.strictObject({
  keyPepper: z.string().min(16, 'must be at least 16 characters').optional(),
});

export const resolverOptionsSchema = z.strictObject({
  appCacheTtlMs: z.number().int().nonnegative().max(2_147_483_647).default(5000),
  appCacheMaxEntries: z.number().int().positive().default(1000),
});
