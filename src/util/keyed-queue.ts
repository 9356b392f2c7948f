/**
 * Work that runs one at a time per key, in the order it came: each waits for the one before it
 * under the same key, whether that one succeeded or failed. Keys with nothing queued hold nothing.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const done = (this.#tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = done.then(
      () => {},
      () => {},
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return done;
  }
}
