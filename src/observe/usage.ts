import type { CallObservation, CallOutcome } from '../tool/observer.js';
import type { Caller } from '../types/index.js';

/**
 * Where finished calls are counted per server, tool, caller and hour (docs/usage.md): the store's
 * usage buffer. `count` is called synchronously as each call ends, so it must be quick and never throw.
 */
export interface UsageCounter {
  count(
    serverId: string,
    tool: string,
    caller: Caller,
    startedAt: number,
    durationMs: number,
    error: boolean,
    tasked: boolean,
    asks: number,
  ): void;
}

/** Whether an outcome counts as an error: an error reply or an `isError` result. */
export const isErrorOutcome = (outcome: CallOutcome): boolean => outcome !== 'ok';

/**
 * A call observed for its usage only (no `onCall`, metrics or tracing): one small object of plain
 * fields, and a clock read at each end.
 */
export class CountedCall implements CallObservation {
  readonly #counter: UsageCounter;
  readonly #serverId: string;
  readonly #tool: string;
  readonly #caller: Caller;
  readonly #startedAt = Date.now();
  #tasked = false;
  #asks = 0;
  #finished = false;

  constructor(counter: UsageCounter, serverId: string, tool: string, caller: Caller) {
    this.#counter = counter;
    this.#serverId = serverId;
    this.#tool = tool;
    this.#caller = caller;
  }

  attribute(): void {}

  tasked(): void {
    this.#tasked = true;
  }

  asked(): void {
    this.#asks++;
  }

  run<T>(work: () => T): T {
    return work();
  }

  finish(outcome: CallOutcome): void {
    if (this.#finished) return;
    this.#finished = true;
    const durationMs = Date.now() - this.#startedAt;
    this.#counter.count(
      this.#serverId,
      this.#tool,
      this.#caller,
      this.#startedAt,
      durationMs,
      isErrorOutcome(outcome),
      this.#tasked,
      this.#asks,
    );
  }
}
