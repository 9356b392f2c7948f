import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { isModuleNotFound, missingPeer } from '../../util/missing-peer.js';
import type { Farm } from './farm.js';

/** `rateLimit` of `mcpServer`: at most `requests` per server in any `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** What a key's allowance covers of `points` messages: how many may go on, and the ms until more may. */
export interface RateVerdict {
  allowed: number;
  waitMs: number;
}

/** Takes `points` messages (default 1) from a key's allowance. */
export type RateCheck = (key: string, points?: number) => Promise<RateVerdict>;

/**
 * How long the shared counter may take before this instance counts on its own for that request:
 * a database that does not answer must not hold requests up, nor let them all through.
 */
const SHARED_COUNTER_TIMEOUT_MS = 250;

/**
 * A rate check on rate-limiter-flexible (an optional peer dependency, loaded here only): counters
 * in PostgreSQL, shared by every instance, when the store has a farm; in this process otherwise,
 * and as the fallback while PostgreSQL fails or is slow. A package that cannot be loaded is told to
 * `onLoadError` once, when the router is made, and requests are then not limited.
 */
export function createRateCheck(
  limit: RateLimit,
  farm: Farm | undefined,
  onLoadError: (error: unknown) => void,
): RateCheck {
  const limiter = loadLimiter(limit, farm).catch((error: unknown) => {
    onLoadError(error);
    return null;
  });
  return async (key, points = 1) => {
    const loaded = await limiter;
    if (!loaded) return { allowed: points, waitMs: 0 };
    try {
      await loaded.consume(key, points);
      return { allowed: points, waitMs: 0 };
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const { consumedPoints, msBeforeNext } = rejection as RateLimiterRes;
      // The counter holds these points too; those that still fit the window may go on.
      const before = consumedPoints - points;
      return { allowed: Math.max(0, Math.min(points, limit.requests - before)), waitMs: msBeforeNext };
    }
  };
}

async function loadLimiter(limit: RateLimit, farm: Farm | undefined): Promise<RateLimiterAbstract> {
  const flexible = await import('rate-limiter-flexible').catch((error: unknown) => {
    throw isModuleNotFound(error, 'rate-limiter-flexible')
      ? missingPeer('mcpServer', 'rate-limiter-flexible', { cause: error, option: 'rateLimit' })
      : error;
  });
  const options = { keyPrefix: 'mcp', points: limit.requests, duration: limit.windowMs / 1000 };
  const inMemory = new flexible.RateLimiterMemory(options);
  if (!farm) return inMemory;
  const shared = new flexible.RateLimiterPostgres({ ...options, ...farm.rateLimitStore, tableCreated: true });
  return new flexible.RLWrapperTimeouts({
    limiter: shared,
    timeoutMs: SHARED_COUNTER_TIMEOUT_MS,
    insuranceLimiter: inMemory,
  }) as unknown as RateLimiterAbstract;
}
