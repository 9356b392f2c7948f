/**
 * A task's status (MCP 2025-11-25 "Tasks", and the tasks extension of 2026-07-28): `working` and
 * `input_required` while it runs, then one of the three terminal ones, which never change again.
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const ACTIVE_STATUSES: readonly TaskStatus[] = ['working', 'input_required'];

export const isTerminal = (status: TaskStatus): boolean => !ACTIVE_STATUSES.includes(status);

/** A JSON-RPC error a task ended with, instead of a result. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** Whose task it is: a task exists only for the server and the caller that created it. */
export interface TaskOwner {
  serverId: string;
  /** The end user that created it (one per server, or per signed-in user on an `"oauth"` server). */
  caller: string;
}

/** One task as the store keeps it. Times are epoch milliseconds. */
export interface TaskRecord extends TaskOwner {
  id: string;
  status: TaskStatus;
  statusMessage: string | null;
  /** The `tools/call` result once there is one. */
  result: Record<string, unknown> | null;
  /** The JSON-RPC error the task failed with, when it failed without a result. */
  error: TaskError | null;
  /** The requests the run waits on while `input_required`, by key. */
  inputRequests: Record<string, unknown> | null;
  /** How long the task is kept after its last change. */
  ttlMs: number;
  pollIntervalMs: number;
  createdAt: number;
  updatedAt: number;
  /** Past this the task no longer exists (`ttlMs` after its last change). */
  expiresAt: number;
  /** The instance that runs it, and until when it holds the task; `null` once the task is over. */
  ownerInstance: string;
  leaseExpiresAt: number | null;
}

/** What a new task needs; the store draws its id. */
export interface NewTask extends TaskOwner {
  ttlMs: number;
  pollIntervalMs: number;
  ownerInstance: string;
  leaseMs: number;
}

/** How a task ends: a terminal status, with the result (as JSON text) or the error. */
export interface TaskEnd {
  status: 'completed' | 'failed' | 'cancelled';
  statusMessage?: string | null;
  /** The result's JSON text, already measured against `maxTaskResultBytes`. */
  resultJson?: string;
  error?: TaskError;
}

/** A change while the task runs: its status, its message, what it waits on. */
export interface TaskProgress {
  status?: 'working' | 'input_required';
  statusMessage?: string | null;
  inputRequests?: Record<string, unknown> | null;
}

/** A page of a caller's tasks, newest first. */
export interface TaskPage {
  tasks: TaskRecord[];
  /** Where the next page starts; absent on the last page. */
  next?: TaskCursor;
}

/** A position in a caller's tasks, newest first. */
export interface TaskCursor {
  createdAt: number;
  id: string;
}

/** The first `limit` of `found` (newest first); more than `limit` found means another page follows. */
export function taskPage<Found>(
  found: readonly Found[],
  limit: number,
  toTask: (found: Found) => TaskRecord,
): TaskPage {
  const tasks = found.slice(0, limit).map(toTask);
  const last = tasks[tasks.length - 1];
  return found.length > limit && last
    ? { tasks, next: { createdAt: last.createdAt, id: last.id } }
    : { tasks };
}

/** The status message of a task whose instance stopped before it ended (its lease lapsed). */
export const INSTANCE_STOPPED = 'the instance running this task stopped';

/** The status message of a task whose retention ended while its run went on: the run was stopped. */
export const TTL_PASSED = "the task's ttl passed before its run ended: the run was stopped";

/** What `expire` found of the tasks it was given. */
export interface RetentionCheck {
  /** Those that ended because their retention passed while they ran (by this call or an earlier one). */
  ended: string[];
  /** Those that ended otherwise (completed, failed, cancelled), or are gone. */
  over: string[];
  /** Those still running, and when their retention ends now (a change moves it). */
  running: { id: string; expiresAt: number }[];
}

/**
 * Where tasks live: the Knex store's database (shared by a farm) or this process. Every read is
 * scoped to the task's owner and ignores expired tasks: anyone else's task, like an expired
 * one, does not exist. A task whose run goes on is never expired: it stays visible until its
 * instance ends it (`expire`, docs/tasks.md, "How long a task is kept").
 */
export interface TaskStore {
  /** Stores a new `working` task held by `ownerInstance` for `leaseMs`; its id is unguessable. */
  create(task: NewTask): Promise<TaskRecord>;
  /** The owner's task, or `null`. */
  get(id: string, owner: TaskOwner): Promise<TaskRecord | null>;
  /** The owner's tasks, newest first, `limit` at most, after `cursor`. */
  list(owner: TaskOwner, limit: number, cursor?: TaskCursor): Promise<TaskPage>;
  /** Applies a change to a task still running; `false` when it is over (or gone). */
  progress(id: string, change: TaskProgress): Promise<boolean>;
  /** Ends a task still running; `false` when it had ended already (or is gone). */
  finish(id: string, end: TaskEnd): Promise<boolean>;
  /**
   * Extends the lease of the tasks `ownerInstance` runs; returns those of `ids` that are no longer
   * running (cancelled, or failed by a lapsed lease), which the instance must stop.
   */
  renew(ownerInstance: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Fails every running task whose lease has lapsed (`INSTANCE_STOPPED`); returns their ids. */
  failLapsed(): Promise<string[]>;
  /** How many of the owner's tasks are running, on any instance. */
  countActive(owner: TaskOwner): Promise<number>;
  /**
   * Ends (`failed`, `TTL_PASSED`) those of `ids` that `ownerInstance` runs and whose retention
   * ended before `now`; tells which of `ids` are no longer running, and when the others expire.
   */
  expire(ownerInstance: string, ids: readonly string[], now: number): Promise<RetentionCheck>;
  /** Deletes the tasks that expired; returns how many. */
  purge(): Promise<number>;
}
