const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/** Takes a queue's items as they are pushed (`PushQueue.read`). Called synchronously: must not throw. */
export interface PushReader<T> {
  item(value: T): void;
  end(): void;
}

/** Learns that the reader of its queue stopped early (`PushQueue.return`), so that it can stop producing. */
export interface QueueProducer {
  readerGone(): void;
}

/**
 * An async iterable that a producer feeds as things happen, for one reader: items come out in the
 * order they were pushed, whether the reader asked before or after. `end()` lets the reader finish
 * what is queued; nothing pushed after it comes out. A reader that stops early (`return()`, as a
 * `for await` loop does on `break`, or as the writer does when the client goes away) drops what is
 * queued and tells the producer (an object rather than a callback: a queue can stay open as long
 * as a long run, and a closure per queue would be held that long).
 */
export class PushQueue<T> implements AsyncIterableIterator<T> {
  readonly #items: T[] = [];
  #ended = false;
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #reader: PushReader<T> | undefined;
  readonly #producer: QueueProducer | undefined;

  constructor(producer?: QueueProducer) {
    this.#producer = producer;
  }

  push(item: T): void {
    if (this.#ended) return;
    if (this.#reader !== undefined) {
      this.#reader.item(item);
      return;
    }
    const waiting = this.#waiting;
    if (waiting === undefined) this.#items.push(item);
    else {
      this.#waiting = undefined;
      waiting({ value: item, done: false });
    }
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.(DONE);
    this.#reader?.end();
  }

  /**
   * Hands every item, those queued and those to come, to `reader` as it is pushed, and then the
   * end, in place of `next()`: a reader that stays for as long as a long run holds no promise per
   * item while it waits. Once called, the queue is read this way only.
   */
  read(reader: PushReader<T>): void {
    this.#reader = reader;
    for (const item of this.#items.splice(0)) reader.item(item);
    if (this.#ended) reader.end();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#ended) return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    const wasEnded = this.#ended;
    this.#items.length = 0;
    this.end();
    if (!wasEnded) this.#producer?.readerGone();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
