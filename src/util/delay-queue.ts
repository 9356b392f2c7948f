/** One entry of a `DelayQueue`, kept by its owner to refresh or remove it. */
export interface Delayed<T> {
  readonly value: T;
  dueAt: number;
  prev: Delayed<T> | undefined;
  next: Delayed<T> | undefined;
  queued: boolean;
}

/**
 * Things that are each due a fixed delay after they were added or last refreshed: call timeouts,
 * stream heartbeats. With one delay for all, the order they fall due in is the order they were
 * queued in, so a linked list in that order and one timer for its head do the work of a timer each,
 * at a fraction of the memory a long run holds (README, "Long runs") and with nothing to allocate
 * when an entry moves. Each is handed to `onDue` when its time comes, within the millisecond a
 * timer of its own would fire in. The timer keeps the process alive only while something is queued.
 */
export class DelayQueue<T> {
  #head: Delayed<T> | undefined = undefined;
  #tail: Delayed<T> | undefined = undefined;
  #timer: NodeJS.Timeout | undefined = undefined;
  /** When the armed timer fires; it may be early for the head (its entry was removed), never late. */
  #timerAt = 0;

  readonly #onDue: (value: T) => void;

  constructor(
    readonly delayMs: number,
    onDue: (value: T) => void,
  ) {
    this.#onDue = onDue;
  }

  /** Queues `value`, due `delayMs` from now. */
  add(value: T): Delayed<T> {
    const entry: Delayed<T> = { value, dueAt: 0, prev: undefined, next: undefined, queued: false };
    this.#append(entry);
    return entry;
  }

  /** Makes `entry` due `delayMs` from now, queuing it again if it had fallen due or been removed. */
  refresh(entry: Delayed<T>): void {
    if (entry.queued) this.#unlink(entry);
    this.#append(entry);
  }

  remove(entry: Delayed<T>): void {
    if (!entry.queued) return;
    this.#unlink(entry);
    // Empty: the timer stays for the next entry, which falls due after it fires anyway (a fast
    // call empties the queue it joined, and a timer made and cleared per call costs more than the
    // rest of the queue), but no longer keeps the process alive.
    if (this.#head === undefined) this.#timer?.unref();
  }

  #append(entry: Delayed<T>): void {
    entry.dueAt = performance.now() + this.delayMs;
    entry.queued = true;
    entry.prev = this.#tail;
    entry.next = undefined;
    if (this.#tail) this.#tail.next = entry;
    else this.#head = entry;
    this.#tail = entry;
    // Only the head needs a timer; one armed for it already fires in time for every later entry,
    // and one left from an earlier head fires before this one is due.
    if (this.#head !== entry) return;
    if (this.#timer === undefined) this.#arm(entry.dueAt);
    else this.#timer.ref();
  }

  #unlink(entry: Delayed<T>): void {
    if (entry.prev) entry.prev.next = entry.next;
    else this.#head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.#tail = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
    entry.queued = false;
  }

  #arm(dueAt: number): void {
    this.#timerAt = dueAt;
    this.#timer = setTimeout(DelayQueue.#fire, Math.max(1, Math.ceil(dueAt - performance.now())), this);
  }

  static #fire<T>(queue: DelayQueue<T>): void {
    queue.#timer = undefined;
    // Timers count whole milliseconds: what falls due within the same millisecond goes now.
    const now = Math.max(performance.now(), queue.#timerAt);
    try {
      for (let head = queue.#head; head !== undefined && head.dueAt <= now + 1; head = queue.#head) {
        queue.#unlink(head);
        queue.#onDue(head.value);
      }
    } finally {
      if (queue.#head !== undefined && queue.#timer === undefined) queue.#arm(queue.#head.dueAt);
    }
  }
}
