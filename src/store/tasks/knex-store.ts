import type { Knex } from 'knex';
import { RPC_CODES } from '../../errors/mcp-error.js';
import type { TableNames } from '../tables.js';
import { newTaskId } from './ids.js';
import { type TaskChange, type TaskRow, taskStatements, touched, unexpired } from './statements.js';
import {
  ACTIVE_STATUSES,
  INSTANCE_STOPPED,
  type NewTask,
  type RetentionCheck,
  type TaskError,
  type TaskRecord,
  type TaskStore,
  TTL_PASSED,
  taskPage,
} from './types.js';

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toTask(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    serverId: row.server_id,
    caller: row.caller,
    status: row.status,
    statusMessage: row.status_message,
    result: parsed<Record<string, unknown>>(row.result),
    error: parsed<TaskError>(row.error),
    inputRequests: parsed<Record<string, unknown>>(row.input_requests),
    ttlMs: Number(row.ttl_ms),
    pollIntervalMs: Number(row.poll_interval_ms),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
    ownerInstance: row.owner_instance,
    leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
  };
}

/** Tasks in the host's database (SQLite or PostgreSQL), shared by the instances of a farm. */
export function knexTaskStore(knex: Knex, tables: TableNames): TaskStore {
  const tasks = () => knex<TaskRow>(tables.tasks);
  const statements = taskStatements(knex, tables);

  return {
    async create(task: NewTask) {
      const now = Date.now();
      const row: TaskRow = {
        id: newTaskId(),
        server_id: task.serverId,
        caller: task.caller,
        status: 'working',
        status_message: null,
        result: null,
        error: null,
        input_requests: null,
        ttl_ms: task.ttlMs,
        poll_interval_ms: task.pollIntervalMs,
        created_at: now,
        updated_at: now,
        expires_at: now + task.ttlMs,
        owner_instance: task.ownerInstance,
        lease_expires_at: now + task.leaseMs,
      };
      await statements.insert(row);
      return toTask(row);
    },

    async get(id, owner) {
      const row = await statements.find(id, owner, Date.now());
      return row ? toTask(row) : null;
    },

    async list(owner, limit, cursor) {
      const query = tasks()
        .where({ server_id: owner.serverId, caller: owner.caller })
        .andWhere((kept) => unexpired(kept, Date.now()));
      if (cursor) {
        query.andWhere((older) =>
          older
            .where('created_at', '<', cursor.createdAt)
            .orWhere((same) => same.where('created_at', cursor.createdAt).andWhere('id', '<', cursor.id)),
        );
      }
      // One more than the page, to know whether another page follows.
      const rows = (await query
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit + 1)) as TaskRow[];
      return taskPage(rows, limit, toTask);
    },

    async progress(id, change) {
      const values: TaskChange = {};
      if (change.status !== undefined) values.status = change.status;
      if (change.statusMessage !== undefined) values.status_message = change.statusMessage;
      if (change.inputRequests !== undefined) {
        values.input_requests = change.inputRequests === null ? null : JSON.stringify(change.inputRequests);
      }
      return statements.change(id, Date.now(), values);
    },

    async finish(id, end) {
      const values: TaskChange = { status: end.status, input_requests: null, lease_expires_at: null };
      if (end.statusMessage !== undefined) values.status_message = end.statusMessage;
      if (end.resultJson !== undefined) values.result = end.resultJson;
      if (end.error !== undefined) values.error = JSON.stringify(end.error);
      return statements.change(id, Date.now(), values);
    },

    async renew(ownerInstance, ids, leaseMs) {
      if (ids.length === 0) return [];
      await tasks()
        .whereIn('id', ids)
        .andWhere({ owner_instance: ownerInstance })
        .whereIn('status', ACTIVE_STATUSES)
        .update({ lease_expires_at: Date.now() + leaseMs });
      const live = await tasks().select('id').whereIn('id', ids).whereIn('status', ACTIVE_STATUSES);
      const kept = new Set(live.map((row) => row.id));
      return ids.filter((id) => !kept.has(id));
    },

    async failLapsed() {
      const now = Date.now();
      const lapsed = tasks().whereIn('status', ACTIVE_STATUSES).andWhere('lease_expires_at', '<', now);
      const ids = (await lapsed.clone().select('id')).map((row) => row.id);
      if (ids.length === 0) return [];
      const error: TaskError = { code: RPC_CODES.INTERNAL_ERROR, message: INSTANCE_STOPPED };
      // The status is checked again: a task that ended meanwhile keeps its end.
      await tasks()
        .whereIn('id', ids)
        .whereIn('status', ACTIVE_STATUSES)
        .andWhere('lease_expires_at', '<', now)
        .update({
          ...touched(knex, now),
          status: 'failed',
          status_message: INSTANCE_STOPPED,
          error: JSON.stringify(error),
          input_requests: null,
          lease_expires_at: null,
        });
      return ids;
    },

    async countActive(owner) {
      const [row] = await tasks()
        .where({ server_id: owner.serverId, caller: owner.caller })
        .whereIn('status', ACTIVE_STATUSES)
        .count({ active: '*' });
      return Number(row?.active ?? 0);
    },

    async expire(ownerInstance, ids, now) {
      const check: RetentionCheck = { ended: [], over: [], running: [] };
      if (ids.length === 0) return check;
      const error: TaskError = { code: RPC_CODES.INTERNAL_ERROR, message: TTL_PASSED };
      await tasks()
        .whereIn('id', ids)
        .andWhere({ owner_instance: ownerInstance })
        .whereIn('status', ACTIVE_STATUSES)
        .andWhere('expires_at', '<', now)
        .update({
          ...touched(knex, now),
          status: 'failed',
          status_message: TTL_PASSED,
          error: JSON.stringify(error),
          input_requests: null,
          lease_expires_at: null,
        });
      // Read back: a task another instance ended, or that a change kept, is told as it is now.
      const rows = await tasks().select('id', 'status', 'status_message', 'expires_at').whereIn('id', ids);
      const found = new Map(rows.map((row) => [row.id, row]));
      for (const id of ids) {
        const row = found.get(id);
        if (row && ACTIVE_STATUSES.includes(row.status)) {
          check.running.push({ id, expiresAt: Number(row.expires_at) });
        } else if (row?.status === 'failed' && row.status_message === TTL_PASSED) check.ended.push(id);
        else check.over.push(id);
      }
      return check;
    },

    async purge() {
      return tasks().where('expires_at', '<', Date.now()).whereNotIn('status', ACTIVE_STATUSES).delete();
    },
  };
}
