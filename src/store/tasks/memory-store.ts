import { RPC_CODES } from '../../errors/mcp-error.js';
import { newTaskId } from './ids.js';
import {
  INSTANCE_STOPPED,
  isTerminal,
  type RetentionCheck,
  type TaskRecord,
  type TaskStore,
  TTL_PASSED,
  taskPage,
} from './types.js';

/**
 * Tasks kept in this process, for an `mcpServer` without a Knex store: they end with the process.
 * Records are copied in and out through JSON, as the database stores them, so a caller never
 * holds the store's own objects.
 */
export function memoryTaskStore(): TaskStore {
  const tasks = new Map<string, TaskRecord>();
  const copy = (task: TaskRecord): TaskRecord => structuredClone(task);
  const live = (id: string): TaskRecord | undefined => {
    const task = tasks.get(id);
    return task && !isTerminal(task.status) ? task : undefined;
  };
  const touch = (task: TaskRecord, now = Date.now()) => {
    task.updatedAt = now;
    task.expiresAt = now + task.ttlMs;
  };
  const visible = (task: TaskRecord | undefined, serverId: string, caller: string): task is TaskRecord =>
    task !== undefined &&
    task.serverId === serverId &&
    task.caller === caller &&
    (task.expiresAt >= Date.now() || !isTerminal(task.status));

  const fail = (task: TaskRecord, message: string, now: number) => {
    task.status = 'failed';
    task.statusMessage = message;
    task.error = { code: RPC_CODES.INTERNAL_ERROR, message };
    task.inputRequests = null;
    task.leaseExpiresAt = null;
    touch(task, now);
  };

  return {
    async create(input) {
      const now = Date.now();
      const task: TaskRecord = {
        id: newTaskId(),
        serverId: input.serverId,
        caller: input.caller,
        status: 'working',
        statusMessage: null,
        result: null,
        error: null,
        inputRequests: null,
        ttlMs: input.ttlMs,
        pollIntervalMs: input.pollIntervalMs,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + input.ttlMs,
        ownerInstance: input.ownerInstance,
        leaseExpiresAt: now + input.leaseMs,
      };
      tasks.set(task.id, task);
      return copy(task);
    },

    async get(id, owner) {
      const task = tasks.get(id);
      return visible(task, owner.serverId, owner.caller) ? copy(task) : null;
    },

    async list(owner, limit, cursor) {
      const mine = [...tasks.values()]
        .filter((task) => visible(task, owner.serverId, owner.caller))
        .filter(
          (task) =>
            !cursor ||
            task.createdAt < cursor.createdAt ||
            (task.createdAt === cursor.createdAt && task.id < cursor.id),
        )
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      return taskPage(mine, limit, copy);
    },

    async progress(id, change) {
      const task = live(id);
      if (!task) return false;
      if (change.status !== undefined) task.status = change.status;
      if (change.statusMessage !== undefined) task.statusMessage = change.statusMessage;
      if (change.inputRequests !== undefined) task.inputRequests = structuredClone(change.inputRequests);
      touch(task);
      return true;
    },

    async finish(id, end) {
      const task = live(id);
      if (!task) return false;
      task.status = end.status;
      if (end.statusMessage !== undefined) task.statusMessage = end.statusMessage;
      if (end.resultJson !== undefined) task.result = JSON.parse(end.resultJson) as Record<string, unknown>;
      if (end.error !== undefined) task.error = structuredClone(end.error);
      task.inputRequests = null;
      task.leaseExpiresAt = null;
      touch(task);
      return true;
    },

    async renew(ownerInstance, ids, leaseMs) {
      const gone: string[] = [];
      for (const id of ids) {
        const task = live(id);
        if (task?.ownerInstance === ownerInstance) task.leaseExpiresAt = Date.now() + leaseMs;
        else if (!task) gone.push(id);
      }
      return gone;
    },

    async failLapsed() {
      const now = Date.now();
      const failed: string[] = [];
      for (const task of tasks.values()) {
        if (isTerminal(task.status) || task.leaseExpiresAt === null || task.leaseExpiresAt >= now) continue;
        fail(task, INSTANCE_STOPPED, now);
        failed.push(task.id);
      }
      return failed;
    },

    async countActive(owner) {
      let active = 0;
      for (const task of tasks.values()) {
        if (task.serverId === owner.serverId && task.caller === owner.caller && !isTerminal(task.status))
          active++;
      }
      return active;
    },

    async expire(ownerInstance, ids, now) {
      const check: RetentionCheck = { ended: [], over: [], running: [] };
      for (const id of ids) {
        const running = live(id);
        if (running?.ownerInstance === ownerInstance && running.expiresAt < now)
          fail(running, TTL_PASSED, now);
        const task = tasks.get(id);
        if (task && !isTerminal(task.status)) check.running.push({ id, expiresAt: task.expiresAt });
        else if (task?.statusMessage === TTL_PASSED && task.status === 'failed') check.ended.push(id);
        else check.over.push(id);
      }
      return check;
    },

    async purge() {
      const now = Date.now();
      let purged = 0;
      for (const [id, task] of tasks) {
        if (isTerminal(task.status) && task.expiresAt < now) {
          tasks.delete(id);
          purged++;
        }
      }
      return purged;
    },
  };
}
