import type { TaskStore } from '../../store/tasks/types.js';

export interface TaskLeaseOptions {
  store: TaskStore;
  /** This instance's name in the tasks it runs. */
  instance: string;
  /** How long a task stays held without a renewal (`taskLeaseMs`). */
  leaseMs: number;
  /** Tasks this instance runs that ended elsewhere (cancelled through the store): their runs stop. */
  onGone(ids: string[]): void;
  /** The tasks of other instances that stopped: their waiters learn the end. */
  onFailed(ids: string[]): void;
  report(error: unknown): void;
}

/**
 * The leases of the tasks this instance runs, and the sweep that ends everybody else's lapsed
 * ones (docs/tasks.md, "When an instance stops"). The owner renews every third of a lease, so a
 * live instance never lets one lapse; any instance sweeps every half lease, so a task whose instance
 * stopped is `failed` at most a lease and a half after its last renewal: within two leases. Timers
 * never keep the process alive, and start with the first task this instance sees.
 */
export class TaskLeases {
  readonly #options: TaskLeaseOptions;
  readonly #held = new Set<string>();
  #renewing: NodeJS.Timeout | undefined;
  #sweeping: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: TaskLeaseOptions) {
    this.#options = options;
  }

  /** Starts the sweep; called whenever tasks are used, it does anything the first time only. */
  start(): void {
    if (this.#sweeping !== undefined || this.#closed) return;
    this.#sweeping = setInterval(() => this.sweep(), Math.max(1, Math.floor(this.#options.leaseMs / 2)));
    this.#sweeping.unref();
  }

  /** This instance runs `id` from now on, until `release`. */
  hold(id: string): void {
    this.start();
    this.#held.add(id);
    if (this.#renewing !== undefined || this.#closed) return;
    this.#renewing = setInterval(() => this.#renew(), Math.max(1, Math.floor(this.#options.leaseMs / 3)));
    this.#renewing.unref();
  }

  release(id: string): void {
    this.#held.delete(id);
    if (this.#held.size > 0 || this.#renewing === undefined) return;
    clearInterval(this.#renewing);
    this.#renewing = undefined;
  }

  /** Fails the lapsed tasks and deletes the expired ones; resolves when done. */
  async sweep(): Promise<void> {
    const { store, report, onFailed } = this.#options;
    try {
      const failed = await store.failLapsed();
      if (failed.length > 0) onFailed(failed);
      await store.purge();
    } catch (error) {
      report(error);
    }
  }

  async #renew(): Promise<void> {
    const { store, instance, leaseMs, onGone, report } = this.#options;
    try {
      const gone = await store.renew(instance, [...this.#held], leaseMs);
      if (gone.length > 0) onGone(gone);
    } catch (error) {
      report(error);
    }
  }

  /** Stops both timers: the process goes on without renewing (the leases then lapse), or ends. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#renewing);
    clearInterval(this.#sweeping);
    this.#renewing = undefined;
    this.#sweeping = undefined;
  }
}
