import type { Farm } from '../../store/farm/farm.js';
import type { TaskRecord, TaskStatus, TaskStore } from '../../store/tasks/types.js';
import { isJsonObject, parseJsonObject } from '../../util/plain-object.js';

/** How long a `tasks/update` waits for the instance that runs its task to take the answers. */
const TAKE_WITHIN_MS = 3000;
/** How often it reads the task meanwhile. */
const TAKE_POLL_MS = 100;

/** A task's run that asks, on the instance that runs it: how answers by key reach its questions. */
export interface AnsweringTask {
  /** Answers by key (SEP-2663 `inputResponses`); settles once the stored task says what is left to answer. */
  answer(responses: Record<string, unknown>): Promise<void>;
}

/** A task whose run has asked, on this instance: its latest status, and its writes, one after another. */
interface Asked {
  serverId: string;
  status: TaskStatus;
  writing: Promise<void>;
  asker: AnsweringTask;
}

export interface TaskInputsOptions {
  store: TaskStore;
  farm?: Farm;
  changed(taskId: string): void;
  told(serverId: string, taskId: string, from: TaskStatus, to: TaskStatus): void;
  report(error: unknown, serverId?: string): void;
}

/**
 * The questions of the tasks this instance runs, as their stored status: `input_required` with
 * the requests while any waits, `working` again once none does (MCP 2025-11-25 "Tasks",
 * SEP-2663). Only tasks whose run asks have an entry here.
 */
export class TaskInputs {
  readonly #asked = new Map<string, Asked>();

  constructor(readonly options: TaskInputsOptions) {
    options.farm?.onInput((payload) => this.#heard(payload));
  }

  /** The status this instance last gave a task that asked; `undefined` for any other. */
  statusOf(taskId: string): TaskStatus | undefined {
    return this.#asked.get(taskId)?.status;
  }

  /**
   * Stores what the task waits on: `requests` by key (`input_required`, the first question's
   * `message` as status message), or `null` (`working` again). Writes of one task are applied in
   * the order they are made.
   */
  write(
    taskId: string,
    serverId: string,
    requests: Record<string, unknown> | null,
    message: string | null,
    asker: AnsweringTask,
  ): Promise<void> {
    let asked = this.#asked.get(taskId);
    if (!asked) {
      asked = { serverId, status: 'working', writing: Promise.resolve(), asker };
      this.#asked.set(taskId, asked);
    }
    const entry = asked;
    const { store, told, changed, report } = this.options;
    const to: TaskStatus = requests ? 'input_required' : 'working';
    entry.writing = entry.writing
      .then(async () => {
        const written = await store.progress(taskId, {
          status: to,
          statusMessage: message,
          inputRequests: requests,
        });
        if (!written) return;
        const from = entry.status;
        entry.status = to;
        if (from !== to) told(serverId, taskId, from, to);
        changed(taskId);
      })
      .catch((error: unknown) => report(error, serverId));
    return entry.writing;
  }

  /** The task's run is over: nothing it asked waits any more. */
  end(taskId: string): void {
    this.#asked.delete(taskId);
  }

  /**
   * SEP-2663 `tasks/update`: the answers whose keys the task waits on go to its run, here or on
   * the instance that runs it; this settles once the stored task no longer lists them (a
   * `tasks/get` right after sees the change), or after `TAKE_WITHIN_MS` when no instance takes
   * them (its instance stopped: the lease fails the task). Other keys are ignored.
   */
  async answer(task: TaskRecord, responses: Record<string, unknown>): Promise<void> {
    const requests = task.inputRequests;
    if (task.status !== 'input_required' || !requests) return;
    const picked: Record<string, unknown> = {};
    for (const key of Object.keys(responses)) {
      if (Object.hasOwn(requests, key))
        Object.defineProperty(picked, key, { value: responses[key], enumerable: true });
    }
    const keys = Object.keys(picked);
    if (keys.length === 0) return;
    const local = this.#asked.get(task.id);
    if (local) return local.asker.answer(picked);
    const { farm, store } = this.options;
    if (!farm) return;
    await farm.publishInput(JSON.stringify({ k: 'task-input', s: task.serverId, t: task.id, a: picked }));
    const until = Date.now() + TAKE_WITHIN_MS;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, TAKE_POLL_MS));
      const now = await store.get(task.id, task);
      const left = now?.status === 'input_required' ? now.inputRequests : null;
      if (!left || keys.every((key) => !Object.hasOwn(left, key))) return;
    }
  }

  /** Answers announced by another instance, for a task whose run asks here. */
  #heard(payload: string): void {
    // Anything else is not ours: another program on the same channel, or the other input kinds.
    const message = parseJsonObject(payload);
    if (message === null || message.k !== 'task-input' || typeof message.t !== 'string') return;
    const asked = this.#asked.get(message.t);
    if (!asked || asked.serverId !== message.s || !isJsonObject(message.a)) return;
    asked.asker.answer(message.a).catch((error: unknown) => this.options.report(error, asked.serverId));
  }
}
