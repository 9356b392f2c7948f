import { nextAuditId } from './audit-id.js';
import type {
  AuditAction,
  AuditEntry,
  AuditLog,
  AuditRecord,
  CallerColumns,
  UsageCounts,
  UsageStore,
  UsageSummary,
} from './types.js';

/** The usage counts, daily counters and audit log of `memoryServerStore()`, in this process. */
export function memoryUsage(): UsageStore &
  AuditLog & {
    /** Records a write, as the Knex store does in the write's transaction: call it once the write is made. */
    recordAudit(entry: AuditEntry, targetId?: string): void;
  } {
  const rows = new Map<string, UsageCounts>();
  const daily = new Map<string, number>();
  const audit: AuditRecord[] = [];
  const callerKey = (caller: CallerColumns) => `${caller.kind}\n${caller.id}`;

  return {
    async addUsage(counts) {
      for (const count of counts) {
        const key = `${count.serverId}\n${count.hour}\n${count.tool}\n${callerKey(count.caller)}`;
        const row = rows.get(key);
        if (!row) {
          rows.set(key, { ...count, caller: { ...count.caller }, durationMs: Math.round(count.durationMs) });
          continue;
        }
        row.calls += count.calls;
        row.errors += count.errors;
        row.durationMs += Math.round(count.durationMs);
        row.tasks += count.tasks;
        row.asks += count.asks;
        if (count.caller.name !== null) row.caller.name = count.caller.name;
      }
    },

    async readUsage(serverId, from, to, groupBy) {
      const groups = new Map<string, UsageSummary>();
      for (const row of rows.values()) {
        if (row.serverId !== serverId || row.hour < from - (from % 3600) || row.hour >= to) continue;
        const key =
          groupBy === 'hour' ? String(row.hour) : groupBy === 'tool' ? row.tool : callerKey(row.caller);
        let group = groups.get(key);
        if (!group) {
          group = { calls: 0, errors: 0, durationMs: 0, tasks: 0, asks: 0 };
          if (groupBy === 'hour') group.hour = row.hour;
          else if (groupBy === 'tool') group.tool = row.tool;
          else group.caller = { ...row.caller };
          groups.set(key, group);
        }
        group.calls += row.calls;
        group.errors += row.errors;
        group.durationMs += row.durationMs;
        group.tasks += row.tasks;
        group.asks += row.asks;
      }
      const summaries = [...groups.values()];
      if (groupBy === 'hour') return summaries.sort((a, b) => (a.hour as number) - (b.hour as number));
      return summaries.sort((a, b) => b.calls - a.calls);
    },

    async takeDailyCall(serverId, caller, day, quota) {
      const key = `${serverId}\n${callerKey(caller)}\n${day}`;
      const calls = daily.get(key) ?? 0;
      if (calls >= quota) return false;
      daily.set(key, calls + 1);
      return true;
    },

    async listAudit(tenantId, limit, cursor) {
      // Newest first, ties by id, as the Knex store orders them.
      const newestFirst = audit
        .filter((record) => record.tenantId === tenantId && (!cursor || before(record, cursor)))
        .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      const records = newestFirst.slice(0, limit).map(copyRecord);
      const last = records.at(-1);
      const more = newestFirst.length > limit;
      return { records, next: more && last ? { at: last.at.getTime(), id: last.id } : null };
    },

    recordAudit(entry, targetId) {
      const { at, id } = nextAuditId();
      audit.push({
        id,
        at: new Date(at),
        tenantId: entry.tenantId,
        actor: entry.actor,
        action: entry.action as AuditAction,
        targetId: entry.targetId ?? targetId ?? null,
        details: structuredClone(entry.details),
      });
    },
  };
}

/** Whether `record` comes after the cursor, newest first. */
function before(record: AuditRecord, cursor: { at: number; id: string }): boolean {
  const at = record.at.getTime();
  return at < cursor.at || (at === cursor.at && record.id < cursor.id);
}

const copyRecord = (record: AuditRecord): AuditRecord => ({
  ...record,
  at: new Date(record.at.getTime()),
  details: structuredClone(record.details),
});
