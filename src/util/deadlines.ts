import { DelayQueue } from './delay-queue.js';

/**
 * Promises that must settle within the same time, `ms` after each began, or fail with what `miss`
 * makes: the database writes of a request (`resolveTimeoutMs`). One queue and one timer for all,
 * rather than a timer each: most settle at once (a cached end user), and a timer made and cleared
 * per request costs more than the rest of it. The work itself goes on; only its caller stops waiting.
 */
export class Deadlines {
  readonly #queue: DelayQueue<(error: Error) => void> | undefined;

  /** `ms` 0: no deadline. */
  constructor(ms: number, miss: () => Error) {
    this.#queue = ms > 0 ? new DelayQueue(ms, (fail) => fail(miss())) : undefined;
  }

  /** `work`, or its deadline's failure if that comes first. */
  within<T>(work: Promise<T>): Promise<T> {
    const queue = this.#queue;
    if (queue === undefined) return work;
    return new Promise<T>((resolve, reject) => {
      const entry = queue.add(reject);
      work.then(
        (value) => {
          queue.remove(entry);
          resolve(value);
        },
        (error: unknown) => {
          queue.remove(entry);
          reject(error);
        },
      );
    });
  }
}
