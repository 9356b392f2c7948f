import type { Knex } from 'knex';
import type { ServerRecord } from '../types/index.js';
import { codeHintOf, hashServerCode } from './code-hash.js';
import { codeLookups } from './code-lookups.js';
import type { ServerRow } from './server-rows.js';

/**
 * How the Knex store keeps codes (docs/keys.md, "Codes hashed at rest"): as they are, or with
 * `hashCodes` as their SHA-256 and hint. A lookup is one indexed query either way; with
 * `hashCodes` it finds a code stored hashed or, not converted yet, as it is.
 */
export function codeStorage(servers: () => Knex.QueryBuilder<ServerRow>, hashCodes: boolean) {
  const lookUp = codeLookups<ServerRow>(async (codes) => {
    if (!hashCodes) return servers().whereIn('server_code', codes);
    const hashes = new Map(codes.map((code) => [hashServerCode(code), code]));
    const rows: ServerRow[] = await servers().whereIn('server_code', [...codes, ...hashes.keys()]);
    for (const row of rows) row.server_code = hashes.get(row.server_code) ?? row.server_code;
    return rows;
  });
  return {
    lookUp,
    /** What a fresh code is stored as. */
    stored: (code: string): Pick<ServerRow, 'server_code' | 'code_hint'> =>
      hashCodes ? { server_code: hashServerCode(code), code_hint: codeHintOf(code) } : { server_code: code },
    /** The record of a server just given `code`: the one moment a hashing store knows it. */
    withCode: (server: ServerRecord, code: string): ServerRecord => ({
      ...server,
      serverCode: code,
      ...(hashCodes ? { codeHint: codeHintOf(code) } : {}),
    }),
  };
}
