/** Who waits on this instance for a task to change: each wakes at the next change, or after its time. */
export class TaskChanges {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Resolves at the task's next change here, or after `ms` (a change made on another instance). */
  next(id: string, ms: number): Promise<void> {
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

  changed(id: string): void {
    for (const wake of [...(this.#waiters.get(id) ?? [])]) wake();
  }
}
