import { RetryLater } from '../errors/retry-later.js';
import { StoreTimeout } from '../errors/unavailable.js';
import { callerColumns, callerKeyOf } from '../store/usage/buffer.js';
import type { DailyCallQuota, UsageStore } from '../store/usage/types.js';
import { Deadlines } from '../util/deadlines.js';
import type { RequestId } from './messages.js';
import type { ErrorReporter } from './report.js';
import { appIdOf, type ServingTarget } from './target.js';

const DAY_MS = 86_400_000;

/** The most callers whose spent day this process remembers; past it, it forgets them all. */
const MAX_SPENT = 10_000;

/**
 * How long a call waits for the day's counter before it goes on uncounted, as the shared rate
 * limit does (store/farm/rate-limit.ts): a slow database must not hold every call of a key.
 */
const COUNTER_TIMEOUT_MS = 250;

/** What daily call quotas need: where a caller's quota is read, the farm-wide counters, a clock. */
export interface DailyQuotaOptions {
  quotaOf: DailyCallQuota;
  store: UsageStore;
  /** Epoch milliseconds; `Date.now` outside tests. */
  now: () => number;
  report: ErrorReporter;
}

/** Checks a `tools/call` against its caller's daily quota: `undefined` at once when it has none. */
export type QuotaCheck = (target: ServingTarget, id: RequestId | null) => Promise<void> | undefined;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Daily call quotas (docs/usage.md, "Quotas"): each call of a caller with a quota takes one from
 * the day's counter in the store, atomically for the whole farm; a spent day answers 429 with
 * `Retry-After` up to the next UTC midnight, and is remembered here until then so that the
 * refused calls cost no query. A counter that fails, or does not answer within 250 ms, lets the
 * call through (reported): the quota must not become an outage.
 */
export function createQuotaCheck(options: DailyQuotaOptions): QuotaCheck {
  const { quotaOf, store, now, report } = options;
  /** Callers whose day is spent: the day, and the quota it was spent under. */
  const spent = new Map<string, { day: string; quota: number }>();
  const counters = new Deadlines(
    COUNTER_TIMEOUT_MS,
    () => new StoreTimeout('the daily call counter', COUNTER_TIMEOUT_MS),
  );

  async function take(target: ServingTarget, id: RequestId | null, quota: number): Promise<void> {
    const at = now();
    const day = utcDay(at);
    const key = `${target.server.id}\n${callerKeyOf(target.caller)}`;
    const known = spent.get(key);
    // A quota raised since the day was spent is asked again.
    if (known && known.day === day && known.quota >= quota) throw quotaSpent(at, id);
    let allowed: boolean;
    try {
      allowed = await counters.within(
        store.takeDailyCall(target.server.id, callerColumns(target.caller), day, quota),
      );
    } catch (error) {
      report(error, { phase: 'dispatch', serverId: target.server.id, appId: appIdOf(target) });
      return;
    }
    if (allowed) return;
    if (spent.size >= MAX_SPENT) spent.clear();
    spent.set(key, { day, quota });
    throw quotaSpent(at, id);
  }

  return (target, id) => {
    let quota: ReturnType<DailyCallQuota>;
    try {
      quota = quotaOf(target.server.id, target.caller);
    } catch (error) {
      return Promise.reject(error);
    }
    if (quota === null) return undefined;
    if (quota instanceof Promise)
      return quota.then((known) => (known === null ? undefined : take(target, id, known)));
    return take(target, id, quota);
  };
}

/** 429: the day's calls are spent; `Retry-After` is the time to the next UTC midnight. */
function quotaSpent(at: number, id: RequestId | null): RetryLater {
  const untilMidnight = DAY_MS - (at % DAY_MS);
  return new RetryLater(
    'tooManyRequests',
    'Daily call quota spent: this caller has made all the calls its quota allows for today (UTC); try again after midnight UTC',
    untilMidnight,
    id,
  );
}
