import type { Deadlines } from '../util/deadlines.js';

/**
 * Spent this little of the budget, a request's store work takes the shared deadline (`ms` from
 * now): the budget is kept to within this, without a timer of its own. Nearly every lookup is a
 * cache hit that spends nothing.
 */
const SLACK_MS = 5;

/** Bounds a request's database work, each step as the request's deadline allows. */
export type WithinBudget = <T>(work: Promise<T>) => Promise<T>;

/**
 * One deadline for the whole of a request's database work before its run (docs/http-contract.md,
 * row 19b): the lookup, the end user, the task row share `ms` from `startedAt` (`performance.now()`),
 * so that a request that waits on two of them in an outage answers 503 once, not after twice the
 * deadline. The rest of the budget is given with the shared deadlines when nearly all of it is
 * left, and with a timer of its own otherwise (a lookup that waited on the database already).
 * What misses it fails with `miss()`; its work goes on, only the request stops waiting.
 */
export function requestBudget(
  startedAt: number,
  ms: number,
  shared: Deadlines,
  miss: () => Error,
): WithinBudget {
  if (ms === 0) return (work) => work;
  return <T>(work: Promise<T>): Promise<T> => {
    const left = ms - (performance.now() - startedAt);
    if (left >= ms - SLACK_MS) return shared.within(work);
    return new Promise<T>((resolve, reject) => {
      // Past the budget, a step that settles within this turn of the event loop (a cached end user) still goes on.
      const timer = setTimeout(() => reject(miss()), Math.max(1, Math.ceil(left)));
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
}
