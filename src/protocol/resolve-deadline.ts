import type { ResolveOptions } from '../types.js';
import { ResolveTimeout } from './unavailable.js';

/**
 * Runs a lookup with a deadline (`resolveTimeoutMs`; `0`: none). At the deadline the lookup's
 * `signal` aborts, and the lookup still has the rest of that turn of the event loop to answer from
 * what it has at hand (a stale copy, see `ResolveOptions`); after that it fails with
 * `ResolveTimeout`. The signal is made only if the lookup reads it: most lookups are cache hits
 * that never do, and an `AbortSignal` costs a few percent of a request on Node 20.
 */
export function resolveWithin<T>(lookup: (options: ResolveOptions) => Promise<T>, ms: number): Promise<T> {
  if (ms === 0) return lookup({});
  let controller: AbortController | undefined;
  let expired = false;
  const options: ResolveOptions = {
    get signal() {
      controller ??= new AbortController();
      if (expired && !controller.signal.aborted) controller.abort(new ResolveTimeout(ms));
      return controller.signal;
    },
  };
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      expired = true;
      controller?.abort(new ResolveTimeout(ms));
      setImmediate(() => reject(new ResolveTimeout(ms)));
    }, ms);
    lookup(options)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}
