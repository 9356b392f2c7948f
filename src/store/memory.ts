import { randomUUID } from 'node:crypto';
import { ServerExistsError } from '../errors/package-errors.js';
import type { EndUser, LoadApp, ResolveServer, ServerRecord } from '../types/index.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { withAnnotations } from './annotations.js';
import { generateServerCode } from './codes.js';
import { copyServer } from './copy-server.js';
import { cachedKeyStore } from './keys/key-store.js';
import { memoryKeyRows } from './keys/memory-rows.js';
import { resolverFactory, storeResolver, withResolverStore } from './resolver.js';
import { memoryStoreOptionsSchema } from './store-options.js';
import { memoryToolsets } from './toolsets/memory-store.js';
import type { NewServer, ResolverOptions, ServerChanges, ServerStore } from './types.js';
import { memoryUsage } from './usage/memory-usage.js';
import type { AuditEntry } from './usage/types.js';

/** Options of `memoryServerStore`. */
export interface MemoryServerStoreOptions {
  /** As `knexServerStore`'s: caller keys are kept as HMAC-SHA-256 with it. Default: none. */
  keyPepper?: string;
}

/**
 * A store that keeps everything in this process: for tests, demos and single-process prototypes.
 * Nothing survives a restart; use `knexServerStore` in production.
 *
 * @example
 * ```ts
 * const store = memoryServerStore();
 * const server = await store.createServer({ tenantId: 't1', appId: 'faq', name: 'FAQ', description: '', parameters: {} });
 * app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
 * console.log(`/mcp/server/${server.serverCode}/mcp`);
 * ```
 */
export function memoryServerStore(options?: MemoryServerStoreOptions): ServerStore {
  const { keyPepper } = parseFactoryOptions(memoryStoreOptionsSchema, options ?? {}, 'memoryServerStore');
  const servers = new Map<string, ServerRecord>();
  const keyRows = memoryKeyRows((audit, keyId) => recorded(audit, true, keyId));
  // Rows in this process need no cache: every read is already one.
  const {
    forgetServer: _forget,
    expireAll: _expire,
    ...keys
  } = cachedKeyStore(keyRows, {
    ...(keyPepper === undefined ? {} : { pepper: keyPepper }),
    cacheTtlMs: 0,
    cacheMaxEntries: 10_000,
  });
  /** Keyed by server id and subject (`''` on a `"code"` server); server ids hold no line break. */
  const endUsers = new Map<string, Promise<EndUser>>();
  const forgetEndUsers = (serverId: string) => {
    for (const key of [...endUsers.keys()]) if (key.startsWith(`${serverId}\n`)) endUsers.delete(key);
  };
  // Callers get their own copies, so changing a returned record never changes the store.
  const copy = (server: ServerRecord | undefined): ServerRecord | null =>
    server ? copyServer(server) : null;
  const find = (predicate: (server: ServerRecord) => boolean) => {
    for (const server of servers.values()) if (predicate(server)) return copy(server);
    return null;
  };
  // Strictly forward, as the Knex store moves it, even for two changes in one millisecond.
  const move = (server: ServerRecord) => {
    server.updatedAt = new Date(Math.max(Date.now(), server.updatedAt.getTime() + 1));
  };
  const toolsets = memoryToolsets({ servers, move, record: (audit, id) => recorded(audit, true, id) });
  const change = (id: string, apply: (server: ServerRecord) => void, touches = true) => {
    const server = servers.get(id);
    if (!server) return null;
    apply(server);
    move(server);
    if (touches) toolsets.touch(server);
    return copy(server);
  };

  const usage = memoryUsage();
  /** A write's audit entry, recorded once the write is made: nothing runs between the two. */
  const recorded = <T>(audit: AuditEntry | undefined, result: T, targetId: string | undefined): T => {
    if (audit && result && targetId !== undefined) usage.recordAudit(audit, targetId);
    return result;
  };

  const store: ServerStore = {
    async createServer(input: NewServer, audit?: AuditEntry) {
      if (find((s) => s.kind !== 'toolset' && s.tenantId === input.tenantId && s.appId === input.appId)) {
        throw new ServerExistsError(input.tenantId, input.appId);
      }
      const now = new Date();
      const server: ServerRecord = {
        id: randomUUID(),
        ...input,
        parameters: { ...input.parameters },
        serverCode: generateServerCode(),
        status: 'active',
        authMode: input.authMode ?? 'code',
        taskSupport: input.taskSupport ?? 'optional',
        kind: 'app',
        createdAt: now,
        updatedAt: now,
      };
      servers.set(server.id, withAnnotations(server, input.annotations));
      toolsets.touch(server);
      return recorded(audit, copy(server) as ServerRecord, server.id);
    },
    async getServerByApp(tenantId, appId) {
      return find((s) => s.kind !== 'toolset' && s.tenantId === tenantId && s.appId === appId);
    },
    async getServerById(id) {
      return copy(servers.get(id));
    },
    async getServerByCode(serverCode) {
      return find((s) => s.serverCode === serverCode);
    },
    async updateServer(id, changes: ServerChanges, audit?: AuditEntry) {
      const changed = change(id, (server) => {
        if (changes.name !== undefined) server.name = changes.name;
        if (changes.description !== undefined) server.description = changes.description;
        if (changes.parameters !== undefined) server.parameters = { ...changes.parameters };
        if (changes.annotations !== undefined) withAnnotations(server, changes.annotations);
        if (changes.status !== undefined) server.status = changes.status;
        if (changes.authMode !== undefined) server.authMode = changes.authMode;
        if (changes.taskSupport !== undefined) server.taskSupport = changes.taskSupport;
      });
      return recorded(audit, changed, id);
    },
    async rotateCode(id, audit?: AuditEntry) {
      const rotated = change(
        id,
        (server) => {
          server.serverCode = generateServerCode();
        },
        false,
      );
      return recorded(audit, rotated, id);
    },
    async deactivateServer(id) {
      return store.updateServer(id, { status: 'inactive' });
    },
    async deleteServer(id, audit?: AuditEntry) {
      forgetEndUsers(id);
      keyRows.deleteServer(id);
      const server = servers.get(id);
      if (!server) return false;
      servers.delete(id);
      toolsets.forget(id);
      toolsets.touch(server);
      return recorded(audit, true, id);
    },
    getOrCreateEndUser(server, name, subject = '') {
      // One promise per server and subject: concurrent first calls share it, so exactly one record exists.
      const key = `${server.id}\n${subject}`;
      let endUser = endUsers.get(key);
      if (!endUser) {
        endUser = Promise.resolve({ id: randomUUID(), name });
        endUsers.set(key, endUser);
      }
      return endUser;
    },
    resolver: resolverFactory(
      (loadApp: LoadApp, options?: ResolverOptions): ResolveServer => storeResolver(store, loadApp, options),
    ),
    usage,
    audit: usage,
    keys,
    dailyCallQuota: (_serverId, caller) => (caller.kind === 'key' ? keys.dailyCallQuota(caller.id) : null),
    toolsets: toolsets.store,
  };
  return withResolverStore(store, { resolver: store.resolver });
}
