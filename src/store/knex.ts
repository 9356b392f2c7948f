import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ServerExistsError } from '../errors/package-errors.js';
import type { EndUser, LoadApp, ResolveServer, ServerRecord } from '../types/index.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { annotationsToColumn } from './annotations.js';
import { CodeCache } from './cache.js';
import { codeStorage } from './code-storage.js';
import { generateServerCode, isWellFormedServerCode } from './codes.js';
import { dialectOf, type UniqueConstraint } from './dialect.js';
import { EndUserCache } from './end-user-cache.js';
import { cachedKeyStore } from './keys/key-store.js';
import { knexKeyRows } from './keys/knex-rows.js';
import { knexFarm } from './knex-farm.js';
import { assertKnexInstance } from './knex-instance.js';
import { guardMissingTables, requireMigrations } from './migration-required.js';
import { withCodeRedacted } from './redact.js';
import { resolverFactory, storeResolver, withResolverStore } from './resolver.js';
import { type EndUserRow, type ServerRow, toServer } from './server-rows.js';
import { StaleIfError } from './stale.js';
import { storeOptionsSchema } from './store-options.js';
import { tableNames } from './tables.js';
import { knexTaskStore } from './tasks/knex-store.js';
import { knexToolsets } from './toolsets/knex-store.js';
import type { KnexServerStore, NewServer, ResolverOptions, ServerChanges, ServerStore } from './types.js';
import { nextUpdatedAt } from './updated-at.js';
import { auditedWrite, insertAudit, knexAuditLog } from './usage/knex-audit.js';
import { knexUsageStore } from './usage/knex-usage.js';
import type { AuditEntry } from './usage/types.js';

/** Options of `knexServerStore`. */
export interface KnexServerStoreOptions {
  /** The prefix given to `migrate`; the store uses the same table names. Default `''`. */
  tablePrefix?: string;
  /**
   * How long a code lookup is cached in this process, in milliseconds; also how long another
   * instance's rotation or deactivation may go unseen here. `0` disables the cache. Default `5000`.
   */
  cacheTtlMs?: number;
  /** How many codes (and, separately, end users) are cached at most. Default `10000`. */
  cacheMaxEntries?: number;
  /** How long past `cacheTtlMs` a cached code is still served while the database fails; `0`: never. Default `300000`. */
  staleIfErrorMs?: number;
  /**
   * Keep only a SHA-256 of each new or rotated server code (docs/keys.md, "Codes hashed at rest"):
   * the console then shows a code only in the reply that makes it. Lookups find hashed and plain
   * codes alike; `express-app-mcp hash-codes` converts the codes already stored. Default `false`.
   */
  hashCodes?: boolean;
  /**
   * A secret of the host's, kept outside the database: caller keys are then stored as
   * HMAC-SHA-256 with it instead of a plain SHA-256 (docs/keys.md). Changing it invalidates every
   * key. Default: none.
   */
  keyPepper?: string;
}

/**
 * A fresh code collides with an existing one with probability ~n/62^16; a few retries make a
 * failure a sign of something else (a broken random source, a wrong unique index), not bad luck.
 */
const CODE_ATTEMPTS = 5;

/**
 * The production store: servers and end users in the host's database through the host's
 * own Knex instance (SQLite or PostgreSQL), code lookups served from an in-process cache.
 * The tables must exist already: run `migrate(knex)` first; constructing a store creates nothing.
 *
 * @example
 * ```ts
 * const db = knex({ client: 'pg', connection: process.env.DATABASE_URL });
 * await migrate(db);
 * const store = knexServerStore(db, { cacheTtlMs: 5000 });
 * app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
 * ```
 */
export function knexServerStore(knex: Knex, options?: KnexServerStoreOptions): KnexServerStore {
  assertKnexInstance(knex, 'knexServerStore');
  const { tablePrefix, cacheTtlMs, cacheMaxEntries, staleIfErrorMs, hashCodes, keyPepper } =
    parseFactoryOptions(storeOptionsSchema, options ?? {}, 'knexServerStore');
  const tables = tableNames(tablePrefix);
  const dialect = dialectOf(knex);
  const codeConstraint: UniqueConstraint = {
    name: tables.constraints.serverCode,
    table: tables.servers,
    columns: ['server_code'],
  };
  const appConstraint: UniqueConstraint = {
    name: tables.constraints.tenantApp,
    table: tables.servers,
    columns: ['tenant_id', 'app_id'],
  };
  const codes =
    cacheTtlMs > 0 ? new CodeCache({ ttlMs: cacheTtlMs, maxEntries: cacheMaxEntries, staleIfErrorMs }) : null;
  const keys = cachedKeyStore(
    knexKeyRows(knex, dialect, tables, (audit, write, targetOf) =>
      auditedWrite(knex, tables, audit, write, targetOf),
    ),
    {
      ...(keyPepper === undefined ? {} : { pepper: keyPepper }),
      cacheTtlMs,
      cacheMaxEntries,
    },
  );
  // On PostgreSQL every instance hears every server change (a key's too) and drops it from its caches at once.
  const { farm, streams } = knexFarm(knex, dialect, tables, {
    forget(serverId) {
      codes?.forget(serverId);
      keys.forgetServer(serverId);
    },
    expireAll() {
      codes?.expireAll();
      keys.expireAll();
    },
  });
  const staleIfError = new StaleIfError();
  // An end user never changes once created, so it needs no TTL; one promise per server (and
  // subject) also folds concurrent first calls in this process into one insert.
  const endUsers = new EndUserCache(cacheMaxEntries);

  const servers = () => knex<ServerRow>(tables.servers);
  const codeStore = codeStorage(servers, hashCodes);
  const toolsets = knexToolsets({
    knex,
    tables,
    withFreshCode: (write) => withFreshCode(write),
    codes: codeStore,
    forget: (id) => codes?.forget(id),
  });

  /** Retries `write` with a fresh code while the code, and only the code, collides. */
  async function withFreshCode<T>(write: (code: string) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const code = generateServerCode();
      try {
        return await withCodeRedacted(code, () => write(code));
      } catch (error) {
        if (attempt >= CODE_ATTEMPTS || !dialect.isUniqueViolation(error, codeConstraint)) throw error;
      }
    }
  }

  /**
   * One UPDATE that also moves `updated_at` strictly forward (`nextUpdatedAt`). A change of what a
   * one-app server serves (`touches`) moves the toolsets that serve its app too.
   */
  async function change(
    id: string,
    values: Partial<ServerRow>,
    audit?: AuditEntry,
    touches = true,
  ): Promise<ServerRecord | null> {
    // The old code is gone from this instance's cache from the moment the write starts.
    codes?.forget(id);
    const row = await auditedWrite(
      knex,
      tables,
      audit,
      (db) => changeRow(db, id, values),
      (changed) => changed?.id ?? false,
    );
    // Forget again: a lookup that started before the UPDATE committed may have cached the old row.
    codes?.forget(id);
    if (row && touches) await toolsets.touch(row);
    return row ? toServer(row) : null;
  }

  async function changeRow(db: Knex, id: string, values: Partial<ServerRow>): Promise<ServerRow | undefined> {
    const [row]: ServerRow[] = await db(tables.servers)
      .where({ id })
      .update({ ...values, updated_at: nextUpdatedAt(db) })
      .returning('*');
    return row;
  }

  const { forgetServer: _forget, expireAll: _expire, dailyCallQuota, ...keyMethods } = keys;
  const store: ServerStore = {
    // Every method but the quota, which reads memory only, answers a missing table clearly.
    keys: { ...guardMissingTables(keyMethods, [tables.serverKeys]), dailyCallQuota },
    async createServer(input: NewServer, audit?: AuditEntry) {
      const now = Date.now();
      const base = {
        id: randomUUID(),
        tenant_id: input.tenantId,
        app_id: input.appId,
        name: input.name,
        description: input.description,
        status: 'active' as const,
        auth_mode: input.authMode ?? 'code',
        task_support: input.taskSupport ?? 'optional',
        parameters: JSON.stringify(input.parameters),
        annotations: annotationsToColumn(input.annotations),
        created_at: now,
        updated_at: now,
      };
      try {
        // Insert and let the unique index reject a taken code; never check first (a check races).
        const row = await withFreshCode(async (code) => {
          const candidate: ServerRow = {
            ...base,
            ...codeStore.stored(code),
            kind: 'app',
            all_published: false,
          };
          const insert = (db: Knex) =>
            db(tables.servers)
              .insert(candidate)
              .then(() => candidate);
          await auditedWrite(knex, tables, audit, insert, (inserted) => inserted.id);
          return { candidate, code };
        });
        await toolsets.touch(row.candidate);
        return codeStore.withCode(toServer(row.candidate), row.code);
      } catch (error) {
        if (dialect.isUniqueViolation(error, appConstraint))
          throw new ServerExistsError(input.tenantId, input.appId);
        throw error;
      }
    },

    async getServerByApp(tenantId, appId) {
      const row = await servers().where({ tenant_id: tenantId, app_id: appId, kind: 'app' }).first();
      return row ? toServer(row as ServerRow) : null;
    },

    async getServerById(id) {
      const row = await servers().where({ id }).first();
      return row ? toServer(row as ServerRow) : null;
    },

    async getServerByCode(serverCode, options) {
      // A string that cannot be a code is unknown without a query.
      if (!isWellFormedServerCode(serverCode)) return null;
      const cached = codes?.get(serverCode);
      if (cached) return cached;
      farm?.start();
      const token = codes?.begin() ?? 0;
      const read = async () => {
        const row = await codeStore.lookUp(serverCode);
        return row ? { ...toServer(row), serverCode } : null;
      };
      const { server, fresh } = await staleIfError.read(read, codes?.getStale(serverCode), options);
      if (server && fresh) codes?.remember(serverCode, server, token);
      return server;
    },

    async updateServer(id, changes: ServerChanges, audit?: AuditEntry) {
      const values: Partial<ServerRow> = {};
      if (changes.name !== undefined) values.name = changes.name;
      if (changes.description !== undefined) values.description = changes.description;
      if (changes.parameters !== undefined) values.parameters = JSON.stringify(changes.parameters);
      if (changes.annotations !== undefined) values.annotations = annotationsToColumn(changes.annotations);
      if (changes.status !== undefined) values.status = changes.status;
      if (changes.authMode !== undefined) values.auth_mode = changes.authMode;
      if (changes.taskSupport !== undefined) values.task_support = changes.taskSupport;
      return change(id, values, audit);
    },

    async rotateCode(id, audit?: AuditEntry) {
      // One UPDATE: the old code stops existing in the same statement that creates the new one.
      return withFreshCode(async (code) => {
        const rotated = await change(id, codeStore.stored(code), audit, false);
        return rotated && codeStore.withCode(rotated, code);
      });
    },

    async deactivateServer(id) {
      return change(id, { status: 'inactive' });
    },

    async deleteServer(id, audit?: AuditEntry) {
      codes?.forget(id);
      endUsers.forget(id);
      const deleted = await knex.transaction(async (trx) => {
        const row = (await trx(tables.servers).where({ id }).first()) as ServerRow | undefined;
        if (!row) return undefined;
        await trx(tables.servers).where({ id }).delete();
        // The foreign keys cascade on PostgreSQL; SQLite enforces them only with PRAGMA foreign_keys.
        await trx(tables.endUsers).where({ server_id: id }).delete();
        await trx(tables.serverKeys).where({ server_id: id }).delete();
        await trx(tables.toolsetMembers).where({ toolset_id: id }).delete();
        if (audit) await insertAudit(trx, tables, audit, id);
        return row;
      });
      codes?.forget(id);
      endUsers.forget(id);
      keys.forgetServer(id);
      if (deleted) await toolsets.touch(deleted);
      return deleted !== undefined;
    },

    getOrCreateEndUser(server, name, subject = '') {
      return endUsers.getOrCreate(server.id, subject, () => findOrCreateEndUser(server, name, subject));
    },

    resolver: resolverFactory(
      (loadApp: LoadApp, options?: ResolverOptions): ResolveServer => storeResolver(store, loadApp, options),
    ),
  };

  /**
   * Race-safe across processes: every contender inserts, the unique index on
   * `(server_id, subject)` keeps the first and ignores the rest, and all read back the one that won.
   * Runs of a `"code"` server share the subject `''`: one end user per server.
   */
  async function findOrCreateEndUser(server: ServerRecord, name: string, subject: string): Promise<EndUser> {
    const now = Date.now();
    await knex(tables.endUsers)
      .insert({
        id: randomUUID(),
        tenant_id: server.tenantId,
        app_id: server.appId,
        server_id: server.id,
        type: 'mcp',
        name,
        subject,
        created_at: now,
        updated_at: now,
      })
      .onConflict(['server_id', 'subject'])
      .ignore();
    const row: EndUserRow | undefined = await knex(tables.endUsers)
      .select('id', 'name')
      .where({ server_id: server.id, subject })
      .first();
    // Only a concurrent delete of the server between the two statements gets here.
    if (!row) throw new Error(`the end user of server ${server.id} vanished while it was created`);
    return { id: row.id, name: row.name };
  }

  const guarded = requireMigrations(store, [tables.servers, tables.endUsers, tables.auditLog], storeResolver);
  // Set on the guarded store itself: its resolver reads toolsets through it.
  const guardedToolsets = guardMissingTables(toolsets.store, [tables.servers, tables.toolsetMembers]);
  Object.defineProperty(guarded, 'toolsets', { value: guardedToolsets, enumerable: true });
  const tasks = guardMissingTables(knexTaskStore(knex, tables), [tables.tasks]);
  const usage = guardMissingTables(knexUsageStore(knex, tables), [tables.usage, tables.dailyCalls]);
  const audit = guardMissingTables(knexAuditLog(knex, tables), [tables.auditLog]);
  const full: KnexServerStore = {
    ...guarded,
    farm,
    streams,
    tasks,
    usage,
    audit,
    // A key's quota, from the row its last verification read (docs/usage.md, "Quotas").
    dailyCallQuota: (_serverId, caller) => (caller.kind === 'key' ? keys.dailyCallQuota(caller.id) : null),
    close: () => farm?.close() ?? Promise.resolve(),
  };
  // `mcpServer` finds the usage counts through the resolver it is given (docs/usage.md).
  return withResolverStore(full, guarded);
}
