import type {
  AuthMode,
  EndUser,
  LoadApp,
  ResolveOptions,
  ResolveServer,
  ServerRecord,
  TaskSupport,
  ToolAnnotations,
} from '../types/index.js';
import type { Farm } from './farm/farm.js';
import type { KeyStore } from './keys/types.js';
import type { StreamEventStore } from './stream-events.js';
import type { TaskStore } from './tasks/types.js';
import type { ToolsetStore } from './toolsets/types.js';
import type { AuditEntry, AuditLog, DailyCallQuota, UsageStore } from './usage/types.js';

/** What a new server needs; the store draws its id and code. */
export interface NewServer {
  tenantId: string;
  appId: string;
  name: string;
  description: string;
  parameters: Record<string, string>;
  /** The tool's hints; absent or empty: none. */
  annotations?: ToolAnnotations;
  /** Default `"code"`. */
  authMode?: AuthMode;
  /** Whether the tool runs as a task (docs/tasks.md). Default `"optional"`. */
  taskSupport?: TaskSupport;
}

/** The editable fields of a server; absent fields are kept. */
export interface ServerChanges {
  name?: string;
  description?: string;
  parameters?: Record<string, string>;
  /** Replaces every hint: `{}` removes them all. */
  annotations?: ToolAnnotations;
  status?: 'active' | 'inactive';
  authMode?: AuthMode;
  taskSupport?: TaskSupport;
}

/**
 * Where servers and their end users live. The Knex store implements it; so does the
 * memory store used in tests. Every write invalidates the store's own code cache at once.
 */
export interface ServerStore {
  /**
   * Publishes an app: a new active server with a fresh code. Throws `ServerExistsError` when the app
   * has one. Each write takes an optional `audit` entry, recorded in the same transaction as the
   * write, and only when the write found its server (docs/usage.md, "Audit log").
   */
  createServer(input: NewServer, audit?: AuditEntry): Promise<ServerRecord>;
  /** The app's server within a tenant, or `null`. */
  getServerByApp(tenantId: string, appId: string): Promise<ServerRecord | null>;
  /** A server by its id, or `null`. */
  getServerById(id: string): Promise<ServerRecord | null>;
  /**
   * A server by its code (served from the lookup cache when enabled), or `null`. `signal`: see
   * `ResolveOptions`.
   */
  getServerByCode(serverCode: string, options?: ResolveOptions): Promise<ServerRecord | null>;
  /** Applies changes and moves `updatedAt`; `null` when there is no such server. */
  updateServer(id: string, changes: ServerChanges, audit?: AuditEntry): Promise<ServerRecord | null>;
  /** Replaces the code atomically; the old one is unknown from then on. `null` when there is no such server. */
  rotateCode(id: string, audit?: AuditEntry): Promise<ServerRecord | null>;
  /** Sets the status to `inactive`; `null` when there is no such server. */
  deactivateServer(id: string): Promise<ServerRecord | null>;
  /** Unpublishes: removes the server and its end user. `false` when there was none. */
  deleteServer(id: string, audit?: AuditEntry): Promise<boolean>;
  /**
   * The server's end user, created on first use; concurrent first calls yield one record. With a
   * `subject` (a user signed in to an `"oauth"` server) there is one per server and subject.
   */
  getOrCreateEndUser(server: ServerRecord, name: string, subject?: string): Promise<EndUser>;
  /** A `resolveServer` for `mcpServer`, loading each code's app with `loadApp` (cached, see `ResolverOptions`). */
  resolver(loadApp: LoadApp, options?: ResolverOptions): ResolveServer;
  /**
   * What the instances of a farm share through this store's database, for `mcpServer({ store })`;
   * only a store on PostgreSQL has it.
   */
  readonly farm?: Farm;
  /** Where streamed replies are kept so that a client can resume them; only the Knex store has it. */
  readonly streams?: StreamEventStore;
  /** Where tasks live, shared by the instances that share the store; only the Knex store has it. */
  readonly tasks?: TaskStore;
  /** Where calls are counted and daily quotas kept, shared by the instances that share the store (docs/usage.md). */
  readonly usage?: UsageStore;
  /** Where the console's writes are recorded (docs/usage.md, "Audit log"). */
  readonly audit?: AuditLog;
  /** Each caller's daily call quota, read from its key's record; absent or `null`: none (docs/usage.md, "Quotas"). */
  readonly dailyCallQuota?: DailyCallQuota;
  /** The caller keys of `"key"` servers (docs/keys.md); both stores of the package have them. */
  readonly keys?: KeyStore;
  /** Where toolsets live (docs/toolsets.md); the Knex and memory stores have it. */
  readonly toolsets?: ToolsetStore;
}

/** The Knex store, with the one connection of its own it may open. */
export interface KnexServerStore extends ServerStore {
  /**
   * Ends the store's own `LISTEN` connection (PostgreSQL), opened on first use; the host's Knex
   * instance stays open. Call it before `knex.destroy()` when the process shuts down.
   */
  close(): Promise<void>;
}

/** Options of `store.resolver(loadApp, options)`. */
export interface ResolverOptions {
  /**
   * How long an app `loadApp` returned is kept in this process, in milliseconds: also how long a
   * change to an app (its name, form, availability) may go unseen by clients. `0` calls `loadApp`
   * on every request. Default `5000`.
   */
  appCacheTtlMs?: number;
  /** How many apps are kept at most. Default `1000`. */
  appCacheMaxEntries?: number;
}
