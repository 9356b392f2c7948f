import { LRUCache } from 'lru-cache';
import type { CallId } from './farm.js';

/** How many calls of other instances are known at most; the oldest are forgotten first. */
const MAX_KNOWN_CALLS = 100_000;
/** How many cancellations wait, at most, for their call to be told. */
const MAX_WAITING_CANCELS = 10_000;
/**
 * A call told running was started about the announcer's delay earlier; a cancellation that arrived
 * before that, less this margin for the time the announcement took, was for another call.
 */
const STARTED_MARGIN_MS = 100;

/**
 * What an instance knows of the calls that run on the others, from their announcements: the calls
 * told running and not yet told ended. A cancellation is passed on only for one of those, so that
 * cancellations of ids that run nowhere send nothing to the database. A cancellation of a call not
 * yet told (younger than `announceDelayMs`) waits here that long, and is passed on if the call is
 * told in time.
 */
export class CallsElsewhere {
  readonly #running = new LRUCache<string, true>({ max: MAX_KNOWN_CALLS });
  readonly #waiting: LRUCache<string, number>;

  constructor(readonly announceDelayMs: number) {
    this.#waiting = new LRUCache<string, number>({
      max: MAX_WAITING_CANCELS,
      ttl: announceDelayMs + 1000,
      ttlAutopurge: false,
    });
  }

  /** One flat key per scope and id; `1` and `"1"` stay apart, as JSON-RPC ids are. */
  static key(scope: string, id: CallId): string {
    return JSON.stringify([scope, id]);
  }

  /**
   * A call was told running (or ended) by an instance; `true` when a cancellation waited for it
   * and is to be passed on now.
   */
  heard(key: string, running: boolean, now = Date.now()): boolean {
    if (!running) {
      this.#running.delete(key);
      return false;
    }
    this.#running.set(key, true);
    const cancelledAt = this.#waiting.get(key);
    if (cancelledAt === undefined) return false;
    this.#waiting.delete(key);
    return cancelledAt >= now - this.announceDelayMs - STARTED_MARGIN_MS;
  }

  /** A cancellation that found nothing here: `true` to pass it on now; else it waits for the call to be told. */
  cancel(key: string, now = Date.now()): boolean {
    if (this.#running.has(key)) return true;
    this.#waiting.set(key, now);
    return false;
  }
}
