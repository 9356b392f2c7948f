import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';
import type { CallerColumns, UsageGroup, UsageStore, UsageSummary } from './types.js';

/** Rows per upsert: well under SQLite's and PostgreSQL's limits on bound values (11 a row). */
const ROWS_PER_STATEMENT = 500;

const COUNT_COLUMNS = ['calls', 'errors', 'duration_ms', 'tasks', 'asks'] as const;

interface SummaryRow {
  hour?: number | string;
  tool?: string;
  caller_kind?: string;
  caller_id?: string;
  caller_name?: string | null;
  calls: number | string;
  errors: number | string;
  duration_ms: number | string;
  tasks: number | string;
  asks: number | string;
}

/** Usage and daily call counters in the host's database (tables of `0015_create_usage`). */
export function knexUsageStore(knex: Knex, tables: TableNames): UsageStore {
  const { usage, dailyCalls } = tables;
  // Each count is added to the row's own: `excluded` is the row the statement tried to insert.
  const added = Object.fromEntries(
    COUNT_COLUMNS.map((column) => [column, knex.raw('?? + excluded.??', [`${usage}.${column}`, column])]),
  );

  return {
    async addUsage(counts) {
      for (let start = 0; start < counts.length; start += ROWS_PER_STATEMENT) {
        const rows = counts.slice(start, start + ROWS_PER_STATEMENT).map((count) => ({
          server_id: count.serverId,
          hour: count.hour,
          tool: count.tool,
          caller_kind: count.caller.kind,
          caller_id: count.caller.id,
          caller_name: count.caller.name,
          calls: count.calls,
          errors: count.errors,
          duration_ms: Math.round(count.durationMs),
          tasks: count.tasks,
          asks: count.asks,
        }));
        await knex(usage)
          .insert(rows)
          .onConflict(['server_id', 'hour', 'tool', 'caller_kind', 'caller_id'])
          .merge({ ...added, caller_name: knex.raw('excluded.caller_name') });
      }
    },

    async readUsage(serverId, from, to, groupBy) {
      const sums = COUNT_COLUMNS.map((column) => knex.raw('sum(??) as ??', [column, column]));
      const query = knex(usage)
        .where('server_id', serverId)
        .andWhere('hour', '>=', from - (from % 3600))
        .andWhere('hour', '<', to);
      const grouped = groupedBy(query, groupBy, knex).select(sums);
      const rows = (await grouped) as SummaryRow[];
      return rows.map((row) => toSummary(row, groupBy));
    },

    async takeDailyCall(serverId, caller, day, quota) {
      if (quota <= 0) return false;
      // One statement: the counter moves only while it is under the quota, so that concurrent
      // calls on every instance cannot take more than the quota between them.
      const result = await knex.raw(
        `insert into ?? (server_id, caller_kind, caller_id, day, calls) values (?, ?, ?, ?, 1)
         on conflict (server_id, caller_kind, caller_id, day)
         do update set calls = ??.calls + 1 where ??.calls < ?
         returning calls`,
        [dailyCalls, serverId, caller.kind, caller.id, day, dailyCalls, dailyCalls, quota],
      );
      // node-postgres answers a result with `rows`; better-sqlite3 the rows themselves.
      const rows: unknown[] = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
      return rows.length > 0;
    },
  };
}

function groupedBy(query: Knex.QueryBuilder, groupBy: UsageGroup, knex: Knex): Knex.QueryBuilder {
  if (groupBy === 'hour') return query.select('hour').groupBy('hour').orderBy('hour', 'asc');
  if (groupBy === 'tool')
    return query
      .select('tool')
      .groupBy('tool')
      .orderBy([{ column: 'calls', order: 'desc' }, 'tool']);
  return query
    .select('caller_kind', 'caller_id', knex.raw('max(caller_name) as caller_name'))
    .groupBy('caller_kind', 'caller_id')
    .orderBy([{ column: 'calls', order: 'desc' }, 'caller_kind', 'caller_id']);
}

function toSummary(row: SummaryRow, groupBy: UsageGroup): UsageSummary {
  const summary: UsageSummary = {
    calls: Number(row.calls),
    errors: Number(row.errors),
    durationMs: Number(row.duration_ms),
    tasks: Number(row.tasks),
    asks: Number(row.asks),
  };
  if (groupBy === 'hour') return { hour: Number(row.hour), ...summary };
  if (groupBy === 'tool') return { tool: row.tool as string, ...summary };
  const caller: CallerColumns = {
    kind: row.caller_kind as CallerColumns['kind'],
    id: row.caller_id as string,
    name: row.caller_name ?? null,
  };
  return { caller, ...summary };
}
