const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * An async iterable the test feeds as things happen, for one reader: items come out in the order
 * they were pushed, whether the reader asked before or after; `end()` lets the reader finish what
 * is queued, and nothing pushed after it comes out.
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  readonly #items: T[] = [];
  #ended = false;
  #waiting: ((result: IteratorResult<T>) => void) | undefined;

  push(item: T): void {
    if (this.#ended) return;
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
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#ended) return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#items.length = 0;
    this.end();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
