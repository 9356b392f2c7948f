import type { Knex } from 'knex';
import type { TableNames } from '../tables.js';
import { nextAuditId } from './audit-id.js';
import type { AuditAction, AuditEntry, AuditLog, AuditRecord } from './types.js';

interface AuditRow {
  id: string;
  tenant_id: string;
  /** `pg` returns bigint columns as strings, SQLite as numbers. */
  at: number | string;
  actor: string | null;
  action: string;
  target_id: string | null;
  details: string;
}

/** Writes one audit row on `db`: the transaction of the write it records. */
export async function insertAudit(
  db: Knex | Knex.Transaction,
  tables: TableNames,
  entry: AuditEntry,
  targetId: string | undefined,
): Promise<void> {
  const { at, id } = nextAuditId();
  await db(tables.auditLog).insert({
    id,
    tenant_id: entry.tenantId,
    at,
    actor: entry.actor,
    action: entry.action,
    target_id: entry.targetId ?? targetId ?? null,
    details: JSON.stringify(entry.details),
  });
}

/**
 * Runs `write` and, when `audit` is given and the write found its row (`targetOf` answers an id,
 * or `true`), writes the audit row with it in one transaction: a write and its record commit together.
 */
export function auditedWrite<T>(
  knex: Knex,
  tables: TableNames,
  audit: AuditEntry | undefined,
  write: (db: Knex) => Promise<T>,
  targetOf: (result: T) => string | boolean,
): Promise<T> {
  if (!audit) return write(knex);
  return knex.transaction(async (trx) => {
    const result = await write(trx);
    const target = targetOf(result);
    if (target !== false) await insertAudit(trx, tables, audit, target === true ? undefined : target);
    return result;
  });
}

/** The audit log in the host's database (`0016_create_audit_log`). */
export function knexAuditLog(knex: Knex, tables: TableNames): AuditLog {
  return {
    async listAudit(tenantId, limit, cursor) {
      const query = knex<AuditRow>(tables.auditLog).where('tenant_id', tenantId);
      if (cursor) {
        query.andWhere((before) =>
          before
            .where('at', '<', cursor.at)
            .orWhere((same) => same.where('at', '=', cursor.at).andWhere('id', '<', cursor.id)),
        );
      }
      // One more than asked: whether there is a next page.
      const rows = (await query
        .orderBy([
          { column: 'at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit + 1)) as AuditRow[];
      const records = rows.slice(0, limit).map(toRecord);
      const last = records.at(-1);
      const next = rows.length > limit && last ? { at: last.at.getTime(), id: last.id } : null;
      return { records, next };
    },
  };
}

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: new Date(Number(row.at)),
    tenantId: row.tenant_id,
    actor: row.actor,
    action: row.action as AuditAction,
    targetId: row.target_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
