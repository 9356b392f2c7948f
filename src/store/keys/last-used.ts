import { LRUCache } from 'lru-cache';
import type { KeyRows } from './rows.js';

/** A key's `last_used_at` is written at most this often (docs/keys.md). */
export const LAST_USED_EVERY_MS = 60_000;
/** How long a use waits, buffered with others, before it is written. */
const FLUSH_DELAY_MS = 1000;

/**
 * When keys were last used, buffered off the request path: a use is noted in memory (at most once
 * a minute per key) and written with the others of the same second, by a timer that never keeps
 * the process alive. A failed write is dropped: the time is a hint, not a record.
 */
export class LastUsed {
  readonly #rows: KeyRows;
  readonly #now: () => number;
  /** Keys noted within the last minute: their next use writes nothing. */
  readonly #recent: LRUCache<string, true>;
  #pending = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(rows: KeyRows, maxEntries: number, now: () => number) {
    this.#rows = rows;
    this.#now = now;
    this.#recent = new LRUCache({ max: maxEntries, ttl: LAST_USED_EVERY_MS });
  }

  seen(keyId: string): void {
    if (this.#recent.has(keyId)) return;
    this.#recent.set(keyId, true);
    this.#pending.set(keyId, this.#now());
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
    this.#timer.unref();
  }

  /** Writes what is buffered; resolves once it is written (or failed). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const times = this.#pending;
    if (times.size === 0) return this.#writing;
    this.#pending = new Map();
    this.#writing = this.#writing.then(() => this.#rows.touch(times)).catch(() => {});
    return this.#writing;
  }
}
