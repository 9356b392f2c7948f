import { randomUUID } from 'node:crypto';
import { RPC_CODES } from '../../errors/mcp-error.js';
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
import { TaskInputs } from './inputs.js';
import { TaskLeases } from './lease.js';
import type { TaskOutcome, TaskRun, TaskServiceOptions } from './service-options.js';

export type { TaskOutcome, TaskRun, TaskServiceOptions } from './service-options.js';

/** A task is kept this long after its last change when the client asks for no `ttl`, at most `maxTaskTtlMs`. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** How often a client is asked to poll a task (`pollInterval`). */
export const TASK_POLL_INTERVAL_MS = 1000;
/** How often a waiter reads the stored status of a task that runs on another instance. */
const REMOTE_POLL_MS = 500;
/** A task's status message is written at most this often; the latest one wins. */
const NOTE_EVERY_MS = 1000;
/**
 * Farm cancellations name a scope and an id; a task's cancel uses this scope, which no server id
 * (a UUID) and no `callScope` can be.
 */
const TASK_SCOPE = '\u0000task';

/** What is pending of a task's status message: written when `NOTE_EVERY_MS` has passed since the last. */
interface Note {
  pending?: string;
  timer?: NodeJS.Timeout;
}

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
  readonly #runs = new Map<string, TaskRun>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #notes = new Map<string, Note>();
  /** The questions of the tasks this instance runs, as their status (docs/tasks.md, "A task that asks"). */
  readonly inputs: TaskInputs;
  /** Store calls a request waits for answer within `resolveTimeoutMs`, or 503 (docs/http-contract.md, row 19b). */
  readonly #deadlines: Deadlines;

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
        for (const id of ids) this.#runs.get(id)?.stop();
      },
      onFailed: (ids) => {
        for (const id of ids) this.#changed(id);
      },
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
      if (scope === TASK_SCOPE && typeof id === 'string') this.#runs.get(id)?.stop();
    });
  }

  /** The `ttl` a task is kept: the client's, capped by `maxTaskTtlMs`. */
  ttlFor(requested: number | undefined): number {
    const { maxTtlMs } = this.#options;
    return Math.min(requested ?? DEFAULT_TASK_TTL_MS, maxTtlMs);
  }

  /** Stores a new `working` task held by this instance; its run follows with `follow`. */
  async create(owner: TaskOwner, ttlMs: number): Promise<TaskRecord> {
    this.#leases.start();
    const task = await this.#deadlines.within(
      this.#store.create({
        ...owner,
        ttlMs,
        pollIntervalMs: TASK_POLL_INTERVAL_MS,
        ownerInstance: this.instance,
        leaseMs: this.#options.leaseMs,
      }),
    );
    this.#leases.hold(task.id);
    this.#told(task.serverId, task.id, null, 'working');
    return task;
  }

  /** Follows a task's run to its end, which is stored once; the run may have ended already. */
  follow(task: TaskRecord, run: TaskRun): void {
    this.#runs.set(task.id, run);
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
        this.inputs.end(task.id);
        this.#leases.release(task.id);
        this.#dropNote(task.id);
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
    let note = this.#notes.get(id);
    if (!note) {
      note = {};
      this.#notes.set(id, note);
    }
    note.pending = message;
    if (note.timer === undefined) this.#writeNote(id, note);
  }

  #writeNote(id: string, note: Note): void {
    const message = note.pending;
    note.pending = undefined;
    // While the task waits for a person, its status message is the question.
    if (message === undefined || this.inputs.statusOf(id) === 'input_required') {
      this.#notes.delete(id);
      return;
    }
    this.#store.progress(id, { statusMessage: message }).then(
      () => this.#changed(id),
      (error: unknown) => this.#options.report(error),
    );
    note.timer = setTimeout(() => {
      note.timer = undefined;
      if (this.#notes.get(id) === note) this.#writeNote(id, note);
    }, NOTE_EVERY_MS);
    note.timer.unref();
  }

  #dropNote(id: string): void {
    const note = this.#notes.get(id);
    if (note?.timer) clearTimeout(note.timer);
    this.#notes.delete(id);
  }

  /** The owner's task, or `null`; a task whose instance stopped is failed first. */
  async get(id: string, owner: TaskOwner): Promise<TaskRecord | null> {
    this.#leases.start();
    const task = await this.#deadlines.within(this.#store.get(id, owner));
    if (!task || isTerminal(task.status) || !this.#lapsed(task)) return task;
    await this.#deadlines.within(this.#leases.sweep());
    return this.#deadlines.within(this.#store.get(id, owner));
  }

  #lapsed(task: TaskRecord): boolean {
    return task.leaseExpiresAt !== null && task.leaseExpiresAt < Date.now();
  }

  list(owner: TaskOwner, limit: number, cursor?: TaskCursor): Promise<TaskPage> {
    this.#leases.start();
    return this.#deadlines.within(this.#store.list(owner, limit, cursor));
  }

  /**
   * Cancels the owner's task: the status is stored before this resolves, then the run is stopped
   * here or, through the farm, on the instance that runs it. `null` when there is no such task;
   * `cancelled: false` when it had ended already.
   */
  async cancel(id: string, owner: TaskOwner): Promise<{ task: TaskRecord; cancelled: boolean } | null> {
    const task = await this.get(id, owner);
    if (!task) return null;
    if (isTerminal(task.status)) return { task, cancelled: false };
    const cancelled = await this.#deadlines.within(
      this.#store.finish(id, { status: 'cancelled', statusMessage: null }),
    );
    const after = (await this.#deadlines.within(this.#store.get(id, owner))) ?? task;
    if (!cancelled) return { task: after, cancelled: false };
    this.#told(task.serverId, id, this.inputs.statusOf(id) ?? task.status, 'cancelled');
    this.#changed(id);
    const local = this.#runs.get(id);
    if (local) local.stop();
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
      await this.#nextChange(id, REMOTE_POLL_MS);
      if (gone()) return undefined;
    }
  }

  #nextChange(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.#waiters.get(id);
      if (!waiters) {
        waiters = new Set();
        this.#waiters.set(id, waiters);
      }
      const set = waiters;
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  #changed(id: string): void {
    for (const wake of [...(this.#waiters.get(id) ?? [])]) wake();
  }

  /** Stops the lease timers (tests, shutdown); the tasks this instance runs then lapse. */
  close(): void {
    this.#leases.close();
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
