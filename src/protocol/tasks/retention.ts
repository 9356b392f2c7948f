import type { TaskStore } from '../../store/tasks/types.js';

/** A check that failed (the database out of reach) is tried again this much later. */
const RETRY_MS = 1000;

export interface TaskRetentionOptions {
  store: TaskStore;
  /** This instance's name in the tasks it runs. */
  instance: string;
  /** Tasks this instance runs that are no longer running (their retention ended): their runs stop. */
  onEnded(ids: string[]): void;
  report(error: unknown): void;
}

/**
 * The retention of the tasks this instance runs (docs/tasks.md, "How long a task is kept"): a
 * running task never expires in the store, so the instance that runs it ends it once its ttl has
 * passed since its last change, and stops its run. One timer, for the first retention to end;
 * what a change moved later is read back from the store when the timer fires. The timer never keeps
 * the process alive.
 */
export class TaskRetention {
  readonly #options: TaskRetentionOptions;
  /** The tasks this instance runs, and the earliest their retention may end. */
  readonly #held = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #checking = false;
  #closed = false;

  constructor(options: TaskRetentionOptions) {
    this.#options = options;
  }

  /** This instance runs `id`, whose retention ends at `expiresAt` unless a change moves it. */
  hold(id: string, expiresAt: number): void {
    this.#held.set(id, expiresAt);
    this.#arm(expiresAt);
  }

  release(id: string): void {
    this.#held.delete(id);
    if (this.#held.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #arm(at: number): void {
    if (this.#closed || this.#checking || at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    // The store ends what expired strictly before its `now`: one millisecond past the end.
    this.#timer = setTimeout(() => void this.#check(), Math.max(1, at - Date.now() + 1));
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const due = [...this.#held].filter(([, at]) => at < now).map(([id]) => id);
    this.#checking = true;
    let retryAt: number | undefined;
    try {
      if (due.length > 0) {
        const { ended, over, running } = await this.#options.store.expire(this.#options.instance, due, now);
        // One not ended though past its end (another instance's clock): looked at again later.
        for (const { id, expiresAt } of running) {
          if (this.#held.has(id)) this.#held.set(id, expiresAt < now ? now + RETRY_MS : expiresAt);
        }
        // What ended otherwise is stopped by its own end (or the lease renewal).
        for (const id of [...ended, ...over]) this.#held.delete(id);
        if (ended.length > 0) this.#options.onEnded(ended);
      }
    } catch (error) {
      this.#options.report(error);
      retryAt = Date.now() + RETRY_MS;
    } finally {
      this.#checking = false;
    }
    let next = Number.POSITIVE_INFINITY;
    for (const at of this.#held.values()) next = Math.min(next, at);
    if (retryAt !== undefined) next = Math.max(next, retryAt);
    if (this.#held.size > 0) this.#arm(next);
  }

  /** Stops the timer (tests, shutdown). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
