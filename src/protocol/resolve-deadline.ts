import { ResolveTimeout } from '../errors/unavailable.js';
import type { CheckServer, ResolveOptions } from '../types/index.js';

/** How often pending lookups are checked against their deadline: a deadline is kept to within this. */
const SWEEP_MS = 50;

/**
 * One lookup in progress, and the options it is given: its `signal` is made only if the lookup
 * reads it (an `AbortSignal` costs a few percent of a request on Node 20).
 */
class PendingLookup implements ResolveOptions {
  readonly deadline: number;
  readonly checkServer: CheckServer | undefined;
  readonly #ms: number;
  readonly #fail: (reason: unknown) => void;
  #controller: AbortController | undefined;
  #expired = false;
  /** A check begun once the deadline had passed: the lookup answered from what it had at hand. */
  #lateCheck = false;

  constructor(ms: number, fail: (reason: unknown) => void, checkServer: CheckServer | undefined) {
    this.deadline = Date.now() + ms;
    this.checkServer =
      checkServer &&
      ((server) => {
        const checking = checkServer(server);
        if (checking && this.#expired) this.#lateCheck = true;
        return checking;
      });
    this.#ms = ms;
    this.#fail = fail;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#expired && !this.#controller.signal.aborted)
      this.#controller.abort(new ResolveTimeout(this.#ms));
    return this.#controller.signal;
  }

  /**
   * The deadline passed: the signal aborts, and the lookup has the rest of this turn of the event
   * loop to answer from what it has at hand before it fails. A caller's check (an `"oauth"`
   * server's token) that the lookup begins on that copy is no database wait: it gets a deadline of
   * its own, as long again.
   */
  expire(): void {
    this.#expired = true;
    this.#controller?.abort(new ResolveTimeout(this.#ms));
    setImmediate(() => {
      if (!this.#lateCheck) return this.#fail(new ResolveTimeout(this.#ms));
      setTimeout(() => this.#fail(new ResolveTimeout(this.#ms)), this.#ms).unref();
    });
  }
}

/**
 * Runs lookups with a deadline (`resolveTimeoutMs`; `0`: none); a lookup that misses it fails with
 * `ResolveTimeout`, unless it answers as soon as its `signal` aborts (a stale copy, see
 * `ResolveOptions`). Nearly every lookup is a cache hit that settles at once, so each costs only an
 * entry in a set: one shared timer sweeps the set while lookups are pending, instead of a timer per
 * request (about 2.5 µs each, a percent of a request).
 */
export class ResolveDeadline {
  readonly #ms: number;
  readonly #pending = new Set<PendingLookup>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.#ms = ms;
  }

  run<T>(lookup: (options: ResolveOptions) => Promise<T>, checkServer?: CheckServer): Promise<T> {
    if (this.#ms === 0) return lookup({ checkServer });
    return new Promise<T>((resolve, reject) => {
      const pending = new PendingLookup(this.#ms, reject, checkServer);
      this.#watch(pending);
      lookup(pending).then(
        (value) => {
          this.#pending.delete(pending);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(pending);
          reject(error);
        },
      );
    });
  }

  #watch(pending: PendingLookup): void {
    this.#pending.add(pending);
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    // Pending lookups keep the process alive by themselves; the sweeper never does.
    this.#sweeper.unref();
  }

  #sweep(): void {
    const now = Date.now();
    for (const pending of this.#pending) {
      if (pending.deadline > now) continue;
      this.#pending.delete(pending);
      pending.expire();
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}
