import { randomUUID } from 'node:crypto';
import { McpError, type RequestId, RPC_CODES } from '../../errors/mcp-error.js';
import { StoreTimeout } from '../../errors/unavailable.js';
import {
  isTerminal,
  type TaskCursor,
  type TaskEnd,
  type TaskOwner,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../../store/tasks/types.js';
import { Deadlines } from '../../util/deadlines.js';
import { KeyedQueue } from '../../util/keyed-queue.js';
import { TaskChanges } from './changes.js';
import { TaskInputs } from './inputs.js';
import { TaskLeases } from './lease.js';
import { TaskNotes } from './notes.js';
import { TaskRetention } from './retention.js';
import type { TaskOutcome, TaskRun, TaskServiceOptions } from './service-options.js';

export type { TaskOutcome, TaskRun, TaskServiceOptions } from './service-options.js';

/** A task is kept this long after its last change when the client asks for no `ttl`, at most `maxTaskTtlMs`. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/**
 * The shortest a task is kept: a client's smaller `ttl` (0 too) is raised to it, and the task says
 * so in its `ttl` (MCP 2025-11-25: the receiver may choose the ttl it reports).
 */
export const MIN_TASK_TTL_MS = 1000;
/** How often a client is asked to poll a task (`pollInterval`). */
export const TASK_POLL_INTERVAL_MS = 1000;
/** How often a waiter reads the stored status of a task that runs on another instance. */
const REMOTE_POLL_MS = 500;
/**
 * Farm cancellations name a scope and an id; a task's cancel uses this scope, which no server id
 * (a UUID) and no `callScope` can be.
 */
const TASK_SCOPE = '\u0000task';

/** Bounds a store call: a request's deadline (`ServingTarget.within`), or `resolveTimeoutMs` from its start. */
type Within = <T>(work: Promise<T>) => Promise<T>;

/**
 * The tasks of one endpoint (docs/tasks.md): made, followed while their runs go, ended once,
 * read back by their owner on any instance. The store is the truth; this instance knows only the
 * runs it holds (to stop them) and who waits here for a task to change.
 */
export class TaskService {
  readonly instance = randomUUID();
  readonly #options: TaskServiceOptions;
  readonly #store: TaskStore;
  readonly #leases: TaskLeases;
  readonly #retention: TaskRetention;
  readonly #runs = new Map<string, { run: TaskRun; serverId: string }>();
  /** The creations in progress per owner, one after the other, so that the cap holds on this instance. */
  readonly #creating = new KeyedQueue();
  readonly #changes = new TaskChanges();
  readonly #notes: TaskNotes;
  /** The questions of the tasks this instance runs, as their status (docs/tasks.md, "A task that asks"). */
  readonly inputs: TaskInputs;
  /** Store calls a request waits for answer within `resolveTimeoutMs`, or 503 (docs/http-contract.md, row 19b). */
  readonly #deadlines: Deadlines;
  /** Each store call within `resolveTimeoutMs` from its start: for work no request's deadline bounds. */
  readonly #within: Within = (work) => this.#deadlines.within(work);

  constructor(options: TaskServiceOptions) {
    this.#options = options;
    const ms = options.deadlineMs ?? 0;
    this.#deadlines = new Deadlines(ms, () => new StoreTimeout('the task store', ms));
    this.#store = options.store;
    this.#leases = new TaskLeases({
      store: options.store,
      instance: this.instance,
      leaseMs: options.leaseMs,
      onGone: (ids) => {
        for (const id of ids) this.#runs.get(id)?.run.stop();
      },
      onFailed: (ids) => {
        for (const id of ids) this.#changed(id);
      },
      report: (error) => options.report(error),
    });
    this.#notes = new TaskNotes({
      store: options.store,
      waitsForPerson: (id) => this.inputs.statusOf(id) === 'input_required',
      changed: (id) => this.#changed(id),
      report: (error) => options.report(error),
    });
    this.#retention = new TaskRetention({
      store: options.store,
      instance: this.instance,
      onEnded: (ids) => this.#expired(ids),
      report: (error) => options.report(error),
    });
    this.inputs = new TaskInputs({
      store: options.store,
      ...(options.farm ? { farm: options.farm } : {}),
      changed: (id) => this.#changed(id),
      told: (serverId, id, from, to) => this.#told(serverId, id, from, to),
      report: options.report,
    });
    options.farm?.onCancel((scope, id) => {
      if (scope === TASK_SCOPE && typeof id === 'string') this.#runs.get(id)?.run.stop();
    });
  }

  /** The `ttl` a task is kept: the client's, capped by `maxTaskTtlMs`, at least `MIN_TASK_TTL_MS`. */
  ttlFor(requested: number | undefined): number {
    const { maxTtlMs } = this.#options;
    return Math.max(MIN_TASK_TTL_MS, Math.min(requested ?? DEFAULT_TASK_TTL_MS, maxTtlMs));
  }

  /**
   * Stores a new `working` task held by this instance; its run follows with `follow`. An owner that
   * holds `maxActiveTasks` running tasks already is refused (request `id`). `within` bounds the
   * store's work (the request's deadline); by default, `resolveTimeoutMs` from now.
   */
  create(owner: TaskOwner, ttlMs: number, id: RequestId, within: Within = this.#within): Promise<TaskRecord> {
    this.#leases.start();
    const key = `${owner.serverId}\u0000${owner.caller}`;
    return within(this.#creating.run(key, () => this.#create(owner, ttlMs, id)));
  }

  async #create(owner: TaskOwner, ttlMs: number, id: RequestId): Promise<TaskRecord> {
    const { maxActive } = this.#options;
    if (maxActive !== undefined && (await this.#store.countActive(owner)) >= maxActive) {
      throw new McpError(
        'tooManyTasks',
        `Too many active tasks: this caller already has ${maxActive} running on this server ` +
          '(the maxActiveTasks limit); wait for one to end, or cancel one',
        undefined,
        id,
      );
    }
    const task = await this.#store.create({
      ...owner,
      ttlMs,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      ownerInstance: this.instance,
      leaseMs: this.#options.leaseMs,
    });
    this.#leases.hold(task.id);
    this.#told(task.serverId, task.id, null, 'working');
    return task;
  }

  /** Tasks this instance ran whose retention ended while they ran: the store has them `failed`; their runs stop. */
  #expired(ids: string[]): void {
    for (const id of ids) {
      const held = this.#runs.get(id);
      if (!held) continue;
      this.#told(held.serverId, id, this.inputs.statusOf(id) ?? 'working', 'failed');
      held.run.stop();
      this.#changed(id);
    }
  }

  /** Follows a task's run to its end, which is stored once; the run may have ended already. */
  follow(task: TaskRecord, run: TaskRun): void {
    this.#runs.set(task.id, { run, serverId: task.serverId });
    this.#retention.hold(task.id, task.expiresAt);
    run.done
      .then(
        (outcome) => this.#finish(task, outcome),
        (error: unknown) => {
          this.#options.report(error, task.serverId);
          return this.#finish(task, {
            status: 'failed',
            error: { code: RPC_CODES.INTERNAL_ERROR, message: 'Internal error' },
          });
        },
      )
      .catch((error: unknown) => this.#options.report(error, task.serverId))
      .finally(() => {
        this.#runs.delete(task.id);
        this.#retention.release(task.id);
        this.inputs.end(task.id);
        this.#leases.release(task.id);
        this.#notes.drop(task.id);
        this.#changed(task.id);
      });
  }

  async #finish(task: TaskRecord, outcome: TaskOutcome): Promise<void> {
    const from = this.inputs.statusOf(task.id) ?? task.status;
    let end: TaskEnd = { status: outcome.status, statusMessage: outcome.statusMessage ?? null };
    if (outcome.error !== undefined) end.error = outcome.error;
    if (outcome.result !== undefined) {
      const resultJson = serialized(outcome.result);
      const bytes = resultJson === undefined ? Number.POSITIVE_INFINITY : Buffer.byteLength(resultJson);
      const limit = this.#options.maxResultBytes;
      if (resultJson !== undefined && bytes <= limit) end.resultJson = resultJson;
      else {
        const size = resultJson === undefined ? 'that cannot be serialized' : `of ${bytes} bytes`;
        const message = `the result ${size} is larger than the ${limit} bytes a task may keep`;
        this.#options.report(new Error(message), task.serverId);
        end = {
          status: 'failed',
          statusMessage: message,
          error: { code: RPC_CODES.INTERNAL_ERROR, message },
        };
      }
    }
    if (await this.#store.finish(task.id, end)) this.#told(task.serverId, task.id, from, end.status);
  }

  #told(serverId: string, taskId: string, from: TaskStatus | null, to: TaskStatus | null): void {
    this.#options.onStatus?.({ type: 'task.status', serverId, taskId, from, to });
  }

  /** The app's latest progress message becomes the task's status message, written at most once a second. */
  note(id: string, message: string): void {
    this.#notes.note(id, message);
  }

  /**
   * The owner's task, or `null`; a task whose instance stopped is failed first. `within` bounds
   * the store's work (a request's deadline, see `create`).
   */
  async get(id: string, owner: TaskOwner, within: Within = this.#within): Promise<TaskRecord | null> {
    this.#leases.start();
    const task = await within(this.#store.get(id, owner));
    if (!task || isTerminal(task.status) || !this.#lapsed(task)) return task;
    await within(this.#leases.sweep());
    return within(this.#store.get(id, owner));
  }

  #lapsed(task: TaskRecord): boolean {
    return task.leaseExpiresAt !== null && task.leaseExpiresAt < Date.now();
  }

  list(
    owner: TaskOwner,
    limit: number,
    cursor?: TaskCursor,
    within: Within = this.#within,
  ): Promise<TaskPage> {
    this.#leases.start();
    return within(this.#store.list(owner, limit, cursor));
  }

  /**
   * Cancels the owner's task: the status is stored before this resolves, then the run is stopped
   * here or, through the farm, on the instance that runs it. `null` when there is no such task;
   * `cancelled: false` when it had ended already.
   */
  async cancel(
    id: string,
    owner: TaskOwner,
    within: Within = this.#within,
  ): Promise<{ task: TaskRecord; cancelled: boolean } | null> {
    const task = await this.get(id, owner, within);
    if (!task) return null;
    if (isTerminal(task.status)) return { task, cancelled: false };
    const cancelled = await within(this.#store.finish(id, { status: 'cancelled', statusMessage: null }));
    const after = (await within(this.#store.get(id, owner))) ?? task;
    if (!cancelled) return { task: after, cancelled: false };
    this.#told(task.serverId, id, this.inputs.statusOf(id) ?? task.status, 'cancelled');
    this.#changed(id);
    const local = this.#runs.get(id);
    if (local) local.run.stop();
    else await this.#options.farm?.broadcastCancel(TASK_SCOPE, id);
    return { task: after, cancelled: true };
  }

  /**
   * Waits for the owner's task to end, following its stored status: changes made here are heard at
   * once, those of another instance within `REMOTE_POLL_MS`; `seen` reads it while it runs.
   * `null` when there is no such task; `undefined` when `gone()` says the waiter left first.
   */
  async waitForEnd(
    id: string,
    owner: TaskOwner,
    gone: () => boolean,
    seen?: (task: TaskRecord) => void,
  ): Promise<TaskRecord | null | undefined> {
    for (;;) {
      const task = await this.get(id, owner);
      if (!task || isTerminal(task.status)) return task;
      seen?.(task);
      await this.#changes.next(id, REMOTE_POLL_MS);
      if (gone()) return undefined;
    }
  }

  #changed(id: string): void {
    this.#changes.changed(id);
  }

  /** Stops the lease timers (tests, shutdown); the tasks this instance runs then lapse. */
  close(): void {
    this.#leases.close();
    this.#retention.close();
  }
}

/** A task's result as JSON; `undefined` when it cannot be serialized (a string longer than JavaScript holds). */
function serialized(result: unknown): string | undefined {
  try {
    return JSON.stringify(result);
  } catch {
    return undefined;
  }
}
