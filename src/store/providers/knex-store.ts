import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../client/options.js';
import type { RemoteTool } from '../../client/types.js';
import { parseFactoryOptions } from '../../util/factory-options.js';
import { dialectOf, type UniqueConstraint } from '../dialect.js';
import { assertKnexInstance } from '../knex-instance.js';
import { guardMissingTables } from '../migration-required.js';
import { storeOptionsSchema } from '../store-options.js';
import { tableNames } from '../tables.js';
import { auditedWrite } from '../usage/knex-audit.js';
import type { AuditEntry } from '../usage/types.js';
import { encryptionKeySchema, sealer } from './encryption.js';
import {
  type NewToolProvider,
  type ToolProvider,
  type ToolProviderChanges,
  ToolProviderExistsError,
  type ToolProviderStore,
} from './types.js';

/** Options of `knexToolProviderStore`. */
export interface KnexToolProviderStoreOptions {
  /**
   * Encrypts every provider's URL and headers at rest (AES-256-GCM): 32 bytes, as a Buffer or 64
   * hexadecimal characters (`openssl rand -hex 32`). Keep it outside the database. Required.
   */
  encryptionKey: Uint8Array | string;
  /** The prefix given to `migrate`; the store uses the same table names. Default `''`. */
  tablePrefix?: string;
}

/** The options `knexToolProviderStore` accepts (docs/options.md lists them). */
export const optionsSchema = z.strictObject({
  encryptionKey: encryptionKeySchema,
  tablePrefix: storeOptionsSchema.shape.tablePrefix,
});

interface ProviderRow {
  id: string;
  tenant_id: string;
  name: string;
  encrypted_server_url: string;
  encrypted_headers: string;
  timeout_ms: number;
  call_timeout_ms: number;
  tools: string;
  /** `pg` returns bigint columns as strings, SQLite as numbers. */
  tools_updated_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

const date = (value: number | string) => new Date(Number(value));

/**
 * Remote MCP servers per tenant in the host's database, through the host's own Knex instance
 * (SQLite or PostgreSQL). The URL and the headers are encrypted with `encryptionKey`; names,
 * timeouts and the cached tool list are plain. The table must exist already: run `migrate(knex)`
 * first; constructing a store creates nothing.
 *
 * @example
 * ```ts
 * await migrate(db); // creates the tool providers' table with the servers'
 * const providers = knexToolProviderStore(db, { encryptionKey: process.env.MCP_PROVIDER_KEY! }); // 64 hex characters
 * ```
 */
export function knexToolProviderStore(knex: Knex, options: KnexToolProviderStoreOptions): ToolProviderStore {
  assertKnexInstance(knex, 'knexToolProviderStore');
  const { encryptionKey, tablePrefix } = parseFactoryOptions(
    optionsSchema,
    options ?? {},
    'knexToolProviderStore',
  );
  const tables = tableNames(tablePrefix);
  const dialect = dialectOf(knex);
  const nameConstraint: UniqueConstraint = {
    name: tables.constraints.toolProviderName,
    table: tables.toolProviders,
    columns: ['tenant_id', 'name'],
  };
  const secrets = sealer(encryptionKey);
  const providers = () => knex<ProviderRow>(tables.toolProviders);

  // The row id and the column are bound into each ciphertext, so values cannot be swapped around.
  const sealUrl = (id: string, url: string) => secrets.seal(url, `${id}:server_url`);
  const sealHeaders = (id: string, headers: Record<string, string>) =>
    secrets.seal(JSON.stringify(headers), `${id}:headers`);

  function toProvider(row: ProviderRow): ToolProvider {
    return {
      id: row.id,
      tenantId: row.tenant_id,
      name: row.name,
      serverUrl: secrets.open(row.encrypted_server_url, `${row.id}:server_url`),
      headers: JSON.parse(secrets.open(row.encrypted_headers, `${row.id}:headers`)) as Record<string, string>,
      timeoutMs: row.timeout_ms,
      callTimeoutMs: row.call_timeout_ms,
      tools: JSON.parse(row.tools) as RemoteTool[],
      toolsUpdatedAt: row.tools_updated_at === null ? null : date(row.tools_updated_at),
      createdAt: date(row.created_at),
      updatedAt: date(row.updated_at),
    };
  }

  /** Runs a write, turning a taken name into `ToolProviderExistsError`. */
  async function naming<T>(tenantId: string, name: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (name !== undefined && dialect.isUniqueViolation(error, nameConstraint)) {
        throw new ToolProviderExistsError(tenantId, name);
      }
      throw error;
    }
  }

  // A store used before `migrate(knex)` says so instead of the driver's "no such table".
  return guardMissingTables(
    {
      async createProvider(input: NewToolProvider, audit?: AuditEntry) {
        const id = randomUUID();
        const now = Date.now();
        const row: ProviderRow = {
          id,
          tenant_id: input.tenantId,
          name: input.name,
          encrypted_server_url: sealUrl(id, input.serverUrl),
          encrypted_headers: sealHeaders(id, input.headers ?? {}),
          timeout_ms: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          call_timeout_ms: input.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
          tools: JSON.stringify(input.tools ?? []),
          tools_updated_at: input.tools ? now : null,
          created_at: now,
          updated_at: now,
        };
        const insert = (db: Knex) => db(tables.toolProviders).insert(row);
        await naming(input.tenantId, input.name, () => auditedWrite(knex, tables, audit, insert, () => id));
        return toProvider(row);
      },

      async listProviders(tenantId) {
        const rows = await providers()
          .where({ tenant_id: tenantId })
          .orderBy([{ column: 'created_at' }, { column: 'id' }]);
        return (rows as ProviderRow[]).map(toProvider);
      },

      async getProvider(tenantId, id) {
        const row = await providers().where({ tenant_id: tenantId, id }).first();
        return row ? toProvider(row as ProviderRow) : null;
      },

      async getProviderByName(tenantId, name) {
        const row = await providers().where({ tenant_id: tenantId, name }).first();
        return row ? toProvider(row as ProviderRow) : null;
      },

      async updateProvider(tenantId, id, changes: ToolProviderChanges, audit?: AuditEntry) {
        const now = Date.now();
        const values: Partial<ProviderRow> = { updated_at: now };
        if (changes.name !== undefined) values.name = changes.name;
        if (changes.serverUrl !== undefined) values.encrypted_server_url = sealUrl(id, changes.serverUrl);
        if (changes.headers !== undefined) values.encrypted_headers = sealHeaders(id, changes.headers);
        if (changes.timeoutMs !== undefined) values.timeout_ms = changes.timeoutMs;
        if (changes.callTimeoutMs !== undefined) values.call_timeout_ms = changes.callTimeoutMs;
        if (changes.tools !== undefined) {
          values.tools = JSON.stringify(changes.tools);
          values.tools_updated_at = now;
        }
        const update = (db: Knex) =>
          db(tables.toolProviders).where({ tenant_id: tenantId, id }).update(values).returning('*');
        const [row] = await naming(tenantId, changes.name, () =>
          auditedWrite(knex, tables, audit, update, (rows) => rows.length > 0),
        );
        return row ? toProvider(row as ProviderRow) : null;
      },

      async deleteProvider(tenantId, id, audit?: AuditEntry) {
        const remove = (db: Knex) => db(tables.toolProviders).where({ tenant_id: tenantId, id }).delete();
        return (await auditedWrite(knex, tables, audit, remove, (count) => count > 0)) > 0;
      },
    },
    [tables.toolProviders, tables.auditLog],
  );
}
