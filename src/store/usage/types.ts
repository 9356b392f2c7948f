import type { Caller } from '../../types/index.js';

/** The columns a caller is counted under: `code` (id `''`), `oauth` (id: the subject), `key` (id: the key's). */
export interface CallerColumns {
  kind: Caller['kind'];
  id: string;
  /** A key's name; `null` for the others. */
  name: string | null;
}

/** One server, tool, caller and UTC hour's counts, as buffered and as added to the store. */
export interface UsageCounts {
  serverId: string;
  /** The UTC hour the calls began in, as unix seconds (a multiple of 3600). */
  hour: number;
  tool: string;
  caller: CallerColumns;
  calls: number;
  /** Error replies and `isError` results. */
  errors: number;
  /** The calls' durations added up, in whole milliseconds. */
  durationMs: number;
  /** Calls that became tasks. */
  tasks: number;
  /** Questions the calls' runs asked a person (`run.ask`). */
  asks: number;
}

/** How `usage` groups the rows it reads. */
export type UsageGroup = 'hour' | 'tool' | 'caller';

/** One group of a server's usage: the counts, and the hour, tool or caller it is for. */
export interface UsageSummary {
  hour?: number;
  tool?: string;
  caller?: CallerColumns;
  calls: number;
  errors: number;
  durationMs: number;
  tasks: number;
  asks: number;
}

/** What the usage counts, the daily quotas and the audit log need of a store (docs/usage.md). */
export interface UsageStore {
  /**
   * Adds counts to the rows of their server, hour, tool and caller, creating the rows that do not
   * exist yet: every instance of a farm adds to the same rows. A few statements per batch.
   */
  addUsage(counts: readonly UsageCounts[]): Promise<void>;
  /** A server's counts for the hours in `[from, to)` (unix seconds), grouped, largest first by calls (by hour: oldest first). */
  readUsage(serverId: string, from: number, to: number, groupBy: UsageGroup): Promise<UsageSummary[]>;
  /**
   * Takes one call from a caller's allowance of `quota` calls on the UTC day `day` (`YYYY-MM-DD`),
   * atomically across the instances that share the store: `false` when the day's calls are spent.
   */
  takeDailyCall(serverId: string, caller: CallerColumns, day: string, quota: number): Promise<boolean>;
}

/** Every action the audit log records (docs/usage.md, "Audit log"). */
export const AUDIT_ACTIONS = [
  'server.publish',
  'server.update',
  'server.rotate',
  'server.unpublish',
  'toolset.create',
  'toolset.update',
  'toolset.rotate',
  'toolset.delete',
  'key.create',
  'key.rotate',
  'key.revoke',
  'provider.create',
  'provider.update',
  'provider.refresh',
  'provider.delete',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * A console write to record, handed to the store's write method: it is written in the same
 * transaction as the write (and not at all when the write finds nothing to change). Never a code,
 * a key or a header value in `details`.
 */
export interface AuditEntry {
  tenantId: string;
  /** Who wrote, as the console's `authorize` named them; `null` when it did not. */
  actor: string | null;
  action: AuditAction;
  /**
   * The row written: a server's, toolset's, key's or provider's id. Absent for a write that makes
   * its target: the store fills in the id it drew.
   */
  targetId?: string;
  /** What changed. */
  details: Record<string, unknown>;
}

/** One recorded console write. */
export interface AuditRecord {
  id: string;
  at: Date;
  tenantId: string;
  actor: string | null;
  action: AuditAction;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** Where a page of the audit log begins: after the record of this time and id. */
export interface AuditCursor {
  at: number;
  id: string;
}

/** A page of a tenant's audit log, newest first; `next` reads on, `null` at the end. */
export interface AuditPage {
  records: AuditRecord[];
  next: AuditCursor | null;
}

/** Where the audit log is read. */
export interface AuditLog {
  /** The tenant's records, newest first, `limit` at most, after `cursor` (from a previous page). */
  listAudit(tenantId: string, limit: number, cursor?: AuditCursor): Promise<AuditPage>;
}

/**
 * Where a caller's daily call quota comes from (docs/usage.md, "Quotas"): the caller keys' store,
 * which reads it from the key's record. `null`: no quota. Called once per `tools/call` of the
 * caller, so it answers from memory (synchronously when it can).
 */
export type DailyCallQuota = (serverId: string, caller: Caller) => number | null | Promise<number | null>;
