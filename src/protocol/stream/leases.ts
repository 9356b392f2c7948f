import type { StreamEventStore } from '../../store/stream-events.js';
import type { Deadlines } from '../../util/deadlines.js';
import type { ErrorReporter } from '../report.js';

/**
 * The leases of the stored streams whose runs this instance runs (docs/http-contract.md,
 * "Resumable streams"): renewed together every third of a lease, in one write, while there are
 * any, so that a follower on any instance can tell a run that goes on from one whose instance
 * stopped (its lease lapses). The timer never keeps the process alive.
 */
export class StreamLeases {
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;

  constructor(
    readonly leaseMs: number,
    readonly store: StreamEventStore,
    readonly deadlines: Deadlines,
    readonly report: ErrorReporter,
  ) {}

  /** This instance runs the stream's run from now on, until `release`. */
  hold(streamId: string): void {
    this.#held.add(streamId);
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.#timer.unref();
  }

  release(streamId: string): void {
    this.#held.delete(streamId);
    if (this.#held.size > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #renew(): void {
    // One renewal at a time: a database that is slow must not pile them up.
    if (this.#renewing) return;
    this.#renewing = true;
    this.deadlines
      .within(this.store.renew([...this.#held], this.leaseMs))
      .catch((error: unknown) => this.report(error, { phase: 'dispatch' }))
      .finally(() => {
        this.#renewing = false;
      });
  }
}
