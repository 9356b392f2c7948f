import type { ServerRecord } from '../types/index.js';

/** What a lookup found, and whether it came from the database just now. */
export interface Looked {
  server: ServerRecord | null;
  fresh: boolean;
}

/**
 * After a lookup failed or was given up, how long copies at hand are served without asking the
 * database again: during an outage, only one request in this interval pays the wait.
 */
const TROUBLE_MS = 1000;

/**
 * Lookups that ride out database trouble (RFC 5861's `stale-if-error`, applied to code lookups):
 * when a copy that is no longer fresh but still within `staleIfErrorMs` is at hand, a query that
 * fails, or that is still waiting when the `signal` of `options` aborts (the endpoint's deadline),
 * yields that copy instead. Without one, the query's own outcome stands.
 */
export class StaleIfError {
  #troubleUntil = 0;

  async read(
    read: () => Promise<ServerRecord | null>,
    stale: ServerRecord | undefined,
    options: { readonly signal?: AbortSignal } | undefined,
  ): Promise<Looked> {
    if (!stale) return { server: await read(), fresh: true };
    // Read only here: the endpoint makes the signal on first use (an AbortSignal is not free).
    const signal = options?.signal;
    const served: Looked = { server: stale, fresh: false };
    if (signal?.aborted || Date.now() < this.#troubleUntil) return served;
    return new Promise<Looked>((resolve) => {
      const fallBack = () => {
        this.#troubleUntil = Date.now() + TROUBLE_MS;
        resolve(served);
      };
      signal?.addEventListener('abort', fallBack, { once: true });
      read()
        .then((server) => resolve({ server, fresh: true }), fallBack)
        .finally(() => signal?.removeEventListener('abort', fallBack));
    });
  }
}
