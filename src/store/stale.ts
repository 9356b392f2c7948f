import type { ServerRecord } from '../types.js';

/** What a lookup found, and whether it came from the database just now. */
export interface Looked {
  server: ServerRecord | null;
  fresh: boolean;
}

/**
 * A lookup that rides out database trouble (RFC 5861's `stale-if-error`, applied to a code
 * lookup): when a copy that is no longer fresh but still within `staleIfErrorMs` is at hand, a
 * query that fails, or that is still waiting when `signal` aborts (the endpoint's deadline),
 * yields that copy instead. Without one, the query's own outcome stands.
 */
export async function readOrStale(
  read: () => Promise<ServerRecord | null>,
  stale: ServerRecord | undefined,
  signal: AbortSignal | undefined,
): Promise<Looked> {
  if (!stale) return { server: await read(), fresh: true };
  const served: Looked = { server: stale, fresh: false };
  if (signal?.aborted) return served;
  return new Promise<Looked>((resolve) => {
    const onAbort = () => resolve(served);
    signal?.addEventListener('abort', onAbort, { once: true });
    read()
      .then(
        (server) => resolve({ server, fresh: true }),
        () => resolve(served),
      )
      .finally(() => signal?.removeEventListener('abort', onAbort));
  });
}
