/**
 * Stops one `tools/call` run, whoever stops it first: the client closing the response, a
 * `notifications/cancelled`, or the timeout, each with its own reason. The `AbortSignal` the app
 * reads as `run.signal` is made only when it is read: on Node 20 making one costs about 10 µs under
 * load, a few percent of a call, and many apps never look at it. The run itself extends this class
 * and learns of the stop through `onStopped`, so that a running call holds no listener for it.
 */
export class RunStop {
  #stopped = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;

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
    // The app's signal first, then the run: the order of one signal shared by both.
    this.#controller?.abort(this.#reason);
    this.onStopped();
  }

  /** Called once, on the first stop, after the app's signal has aborted. */
  protected onStopped(): void {}
}
