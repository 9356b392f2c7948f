/**
 * What both framework adapters need besides the framework: asking a person through the run, and
 * stopping a framework's stream when the run's signal aborts. Nothing here may hold state or a
 * class whose identity matters: each adapter's CommonJS build carries its own copy of this module.
 */
import type { InputVariable, NestedInputVariable } from '../types/index.js';

/** A question for the person behind the client: a message and the fields of a form to fill in. */
export interface AskRequest {
  message: string;
  /** The same field shapes as an app's input form. */
  fields: (InputVariable | NestedInputVariable)[];
  /** How long to wait for the answer; the package's default when absent. */
  timeoutMs?: number;
}

/** The person's answer: the values of the form, or no answer (declined, dismissed, timed out). */
export type AskAnswer =
  | { action: 'accept'; values: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel'; reason?: string };

/** The part of a run that reaches a person: `ask`, usable when `canAsk` is true. */
export interface PersonAsker {
  ask?: (request: AskRequest) => Promise<AskAnswer>;
  canAsk?: boolean;
}

/** The run's `ask` when this run can reach a person (the client can be asked), else `undefined`. */
export function askOf(run: object): ((request: AskRequest) => Promise<AskAnswer>) | undefined {
  const { ask, canAsk } = run as PersonAsker;
  return canAsk === true && typeof ask === 'function' ? (request) => ask.call(run, request) : undefined;
}

const ABORTED: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The values of `source` until `signal` aborts: then it ends at once, without waiting for a value
 * that may never come, and asks `source` to stop. A framework that was given the signal stops by
 * itself; one that was not still stops being read.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let onAbort = () => {};
  const aborted = new Promise<IteratorReturnResult<undefined>>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    while (!signal.aborted) {
      const next = iterator.next();
      // When the abort wins the race, the source's own rejection (its abort error) is nobody's.
      next.catch(() => {});
      const step = await Promise.race([next, aborted]);
      if (step === ABORTED) return;
      if (step.done) {
        finished = true;
        return;
      }
      yield step.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/** A value as JSON for a person or a model to read; what JSON cannot show is named by its type. */
export function asJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return `(${typeof value})`;
  }
}
