import type { TaskStatusEvent } from '../../observe/events.js';
import type { Farm } from '../../store/farm/farm.js';
import type { TaskError, TaskStore } from '../../store/tasks/types.js';

/** How a run ended, in a task's terms; each era decides which status a result gets. */
export interface TaskOutcome {
  status: 'completed' | 'failed';
  result?: Record<string, unknown>;
  error?: TaskError;
  statusMessage?: string | null;
}

/** A run a task follows: its outcome to come, and how to stop it. */
export interface TaskRun {
  done: Promise<TaskOutcome>;
  stop(): void;
}

export interface TaskServiceOptions {
  store: TaskStore;
  /** `taskLeaseMs` */
  leaseMs: number;
  /** `maxTaskResultBytes` */
  maxResultBytes: number;
  /** `maxTaskTtlMs` */
  maxTtlMs: number;
  /** `maxActiveTasks`: running tasks one owner may hold on one server; absent: no limit. */
  maxActive?: number;
  /** The store's farm: a cancel then reaches the instance that runs the task. */
  farm?: Farm;
  report(error: unknown, serverId?: string): void;
  /** `resolveTimeoutMs`: the deadline of each store call a request waits for; 0: none. */
  deadlineMs?: number;
  /** Tells the `metrics` sink each status this instance gives a task (observe/events.ts). */
  onStatus?(event: TaskStatusEvent): void;
}
