import { z } from 'zod';
import { parseFactoryOptions } from '../util/factory-options.js';

/** Options of `drain()`. */
export interface DrainOptions {
  /** How long to wait for the requests in progress, in milliseconds. Default: 10000. */
  timeoutMs?: number;
}

/** What `drain()` found when it settled. */
export interface DrainResult {
  /** `true` when every request in progress finished before the deadline. */
  completed: boolean;
  /** How many requests were still in progress at the deadline (0 when `completed`). */
  inFlight: number;
}

/** How long `drain()` waits by default, in ms. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** The options `drain()` accepts (docs/options.md lists them). */
export const DrainOptionsSchema = z.strictObject({
  // setTimeout cannot wait longer than 2^31-1 ms.
  timeoutMs: z.int().nonnegative().max(2_147_483_647).default(DEFAULT_DRAIN_TIMEOUT_MS),
});

/**
 * Graceful shutdown of one router: once `drain()` is called, new requests are refused (the router
 * answers them 503), and `drain()` settles when the requests already in progress have all
 * finished, or at the deadline, whichever comes first. It never stops a run itself: at the deadline
 * the host decides, usually by closing its HTTP server.
 */
export class Drainer {
  #inFlight = 0;
  #draining = false;
  #idle: (() => void)[] = [];

  /** Whether new requests must be refused. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Counts a request as in progress until `leave` is called for it. */
  enter(): void {
    this.#inFlight++;
  }

  /** One function for every request rather than one each: a streamed reply holds it while it runs. */
  readonly leave = (): void => {
    this.#inFlight--;
    if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
  };

  drain(options?: DrainOptions): Promise<DrainResult> {
    let timeoutMs: number;
    try {
      ({ timeoutMs } = parseFactoryOptions(DrainOptionsSchema, options ?? {}, 'drain'));
    } catch (error) {
      return Promise.reject(error);
    }
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve({ completed: true, inFlight: 0 });
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve({ completed: true, inFlight: 0 });
      };
      const timer = setTimeout(() => {
        this.#idle = this.#idle.filter((waiter) => waiter !== done);
        resolve({ completed: false, inFlight: this.#inFlight });
      }, timeoutMs);
      this.#idle.push(done);
    });
  }
}
