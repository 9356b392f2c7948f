import type { Knex } from 'knex';
import { parseFactoryOptions } from '../util/factory-options.js';
import { codeHintOf, hashServerCode, isHashedCode } from './code-hash.js';
import { type MigrateOptions, migrationStatus } from './migrations.js';
import { migrateOptionsSchema } from './store-options.js';
import { tableNames } from './tables.js';

/** The migration that makes room for hashed codes. */
const NEEDS = '0014_hashed_server_codes';

/** A database whose migrations are behind: `hash-codes` needs 0014 first. */
export class CodesNotReady extends Error {
  override name = 'CodesNotReady';
}

/**
 * Replaces every server code still stored as it is by its SHA-256 and its hint, in place, in one
 * transaction (docs/keys.md, "Codes hashed at rest"): the URLs keep working, since lookups find a
 * code by its hash, and the database no longer holds one. Idempotent: hashed codes are left alone.
 * Returns how many codes it hashed.
 */
export async function hashStoredCodes(knex: Knex, options?: MigrateOptions): Promise<number> {
  const { tablePrefix } = parseFactoryOptions(migrateOptionsSchema, options ?? {}, 'hashStoredCodes');
  const { completed } = await migrationStatus(knex, { tablePrefix });
  if (!completed.includes(NEEDS)) {
    throw new CodesNotReady(`the database lacks the migration ${NEEDS}: run the migrate command first`);
  }
  const { servers } = tableNames(tablePrefix);
  return knex.transaction(async (trx) => {
    const rows: { id: string; server_code: string }[] = await trx(servers)
      .select('id', 'server_code')
      .whereRaw('length(??) <> 64', ['server_code']);
    let hashed = 0;
    for (const { id, server_code: code } of rows) {
      if (isHashedCode(code)) continue;
      // `updated_at` is left as it is: the server did not change, only how its code is kept.
      await trx(servers)
        .where({ id })
        .update({ server_code: hashServerCode(code), code_hint: codeHintOf(code) });
      hashed++;
    }
    return hashed;
  });
}
