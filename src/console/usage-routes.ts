import type { Router } from 'express';
import { z } from 'zod';
import type { ServerStore } from '../store/types.js';
import type {
  AuditCursor,
  AuditLog,
  AuditRecord,
  CallerColumns,
  UsageStore,
  UsageSummary,
} from '../store/usage/types.js';
import { validateBody } from './bodies.js';
import type { ConsoleErrorContext } from './console-options.js';
import type { ConsoleCall, consoleEndpoint } from './endpoint.js';
import { ConsoleError } from './errors.js';
import { methodNotAllowed } from './reply.js';
import { storeWithDeadline } from './store-deadline.js';

/** A usage row as the console shows it (docs/usage.md). */
export interface ConsoleUsage {
  hour?: number;
  tool?: string;
  caller?: { kind: CallerColumns['kind']; id?: string; name?: string };
  calls: number;
  errors: number;
  duration_ms: number;
  tasks: number;
  asks: number;
}

/** An audit record as the console shows it; `at` in unix seconds. */
export interface ConsoleAuditRecord {
  id: string;
  at: number;
  tenant_id: string;
  actor: string | null;
  action: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

const DAY_S = 86_400;
/** The longest range one usage request reads: a little over a year of hours. */
const MAX_RANGE_S = 400 * DAY_S;

const unixSeconds = z.coerce
  .number({ error: 'must be unix seconds' })
  .int('must be unix seconds')
  .nonnegative('must be unix seconds');

const UsageQuerySchema = z
  .object({
    from: unixSeconds.optional(),
    to: unixSeconds.optional(),
    group_by: z.enum(['hour', 'tool', 'caller'], { error: 'must be hour, tool or caller' }).default('hour'),
  })
  .transform(({ from, to, group_by }) => {
    const until = to ?? Math.floor(Date.now() / 1000);
    return { from: from ?? until - DAY_S, to: until, groupBy: group_by };
  })
  .refine(({ from, to }) => from < to, { path: ['from'], error: 'must be before to' })
  .refine(({ from, to }) => to - from <= MAX_RANGE_S, {
    path: ['to'],
    error: 'must be at most 400 days after from',
  });

const AuditQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'must be an integer from 1 to 200' })
    .int('must be an integer from 1 to 200')
    .min(1, 'must be an integer from 1 to 200')
    .max(200, 'must be an integer from 1 to 200')
    .default(50),
  cursor: z.string().optional(),
});

type Endpoint = ReturnType<typeof consoleEndpoint<ConsoleErrorContext>>;

/**
 * `GET /servers/:id/usage` and `GET /audit` (docs/usage.md): a server's (or toolset's) usage,
 * and the tenant's audit log, newest first. Both read, and need any access.
 */
export function serveUsageRoutes(
  router: Router,
  endpoint: Endpoint,
  store: ServerStore,
  resolveTimeoutMs: number,
): void {
  const usage: UsageStore | undefined =
    store.usage && storeWithDeadline(store.usage, ['readUsage'], resolveTimeoutMs);
  const audit: AuditLog | undefined =
    store.audit && storeWithDeadline(store.audit, ['listAudit'], resolveTimeoutMs);

  const readUsage = async ({ req, access, context }: ConsoleCall<ConsoleErrorContext>) => {
    const serverId = req.params.id as string;
    context.serverId = serverId;
    const query = validateBody(UsageQuerySchema, req.query);
    const server = await store.getServerById(serverId);
    if (!server || server.tenantId !== access.tenantId)
      throw new ConsoleError('not_found', 'MCP server not found');
    const rows = usage ? await usage.readUsage(server.id, query.from, query.to, query.groupBy) : [];
    return { status: 200, body: { data: rows.map(toConsoleUsage) } };
  };

  const readAudit = async ({ req, access }: ConsoleCall<ConsoleErrorContext>) => {
    const query = validateBody(AuditQuerySchema, req.query);
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = audit
      ? await audit.listAudit(access.tenantId, query.limit, cursor)
      : { records: [], next: null };
    return {
      status: 200,
      body: { data: page.records.map(toConsoleAudit), next_cursor: page.next && encodeCursor(page.next) },
    };
  };

  router
    .route('/servers/:id/usage')
    .get(endpoint('usage', 'read', readUsage))
    .all(methodNotAllowed('GET'));
  router
    .route('/audit')
    .get(endpoint('audit', 'read', readAudit))
    .all(methodNotAllowed('GET'));
}

function toConsoleUsage(row: UsageSummary): ConsoleUsage {
  const shown: ConsoleUsage = {
    calls: row.calls,
    errors: row.errors,
    duration_ms: row.durationMs,
    tasks: row.tasks,
    asks: row.asks,
  };
  if (row.hour !== undefined) return { hour: row.hour, ...shown };
  if (row.tool !== undefined) return { tool: row.tool, ...shown };
  const caller = row.caller as CallerColumns;
  return {
    caller: {
      kind: caller.kind,
      ...(caller.kind === 'code' ? {} : { id: caller.id }),
      ...(caller.name === null ? {} : { name: caller.name }),
    },
    ...shown,
  };
}

function toConsoleAudit(record: AuditRecord): ConsoleAuditRecord {
  return {
    id: record.id,
    at: Math.floor(record.at.getTime() / 1000),
    tenant_id: record.tenantId,
    actor: record.actor,
    action: record.action,
    target_id: record.targetId,
    details: record.details,
  };
}

/** A cursor is opaque to clients: the last record's time and id, as base64url JSON. */
const encodeCursor = (cursor: AuditCursor): string =>
  Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');

function decodeCursor(text: string): AuditCursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(at) && typeof id === 'string') return { at: at as number, id };
  } catch {
    // Answered below, as any other malformed cursor.
  }
  throw new ConsoleError('invalid_request', 'Invalid request: cursor is not one this console gave', {
    cursor: 'is not one this console gave',
  });
}
