import { StoreTimeout } from '../errors/unavailable.js';
import { Deadlines } from '../util/deadlines.js';

/**
 * The console's store, each of `methods` answering within `ms` (`resolveTimeoutMs`; 0: no limit) or
 * failing with a `StoreTimeout`, which answers 503 (docs/http-contract.md, "Console API"): a
 * database that does not answer must not hang the admin UI. The query itself goes on.
 */
export function storeWithDeadline<Store extends object>(
  store: Store,
  methods: readonly (keyof Store & string)[],
  ms: number,
): Store {
  if (ms === 0) return store;
  const deadlines = new Deadlines(ms, () => new StoreTimeout('the console’s store', ms));
  // The store's other members are read through it, as they were.
  const timed = Object.create(store) as Record<string, unknown>;
  for (const name of methods) {
    const method = store[name] as (...args: unknown[]) => Promise<unknown>;
    timed[name] = (...args: unknown[]) =>
      deadlines.within(new Promise((resolve) => resolve(method.apply(store, args))));
  }
  return timed as Store;
}
