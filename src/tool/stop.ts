/**
 * Stops one `tools/call` run, whoever stops it first: the client closing the response, a
 * `notifications/cancelled`, or the timeout, each with its own reason. The `AbortSignal` the app
 * reads as `run.signal` is made only when it is read: on Node 20 making one costs about 10 µs under
 * load, a few percent of a call, and many apps never look at it.
 */
export class RunStop {
  #stopped = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;
  #listeners: (() => void)[] | undefined = undefined;

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Why the run was stopped; `undefined` while it runs. */
  get reason(): unknown {
    return this.#reason;
  }

  /**
   * Aborted with the stop's reason; made on first read, already aborted if the run was stopped
   * before that.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /**
   * Stops the run; only the first stop counts, as with `AbortController.abort`. Without a reason,
   * the reason is the `AbortError` that `abort()` would give.
   */
  stop(reason?: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    // The app's signal first, then our own listeners: the order of one signal shared by both.
    this.#controller?.abort(this.#reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  /**
   * Calls `listener` once, when the run stops; the returned function stops listening. Like an
   * abort listener added to an aborted signal, it is never called if the run has already stopped.
   */
  onStop(listener: () => void): () => void {
    if (this.#stopped) return () => {};
    if (this.#listeners === undefined) this.#listeners = [listener];
    else this.#listeners.push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.#listeners?.splice(index, 1);
    };
  }
}
