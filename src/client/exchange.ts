import { AsyncLocalStorage } from 'node:async_hooks';
import { type RequestLabel, toRemoteMcpError } from './classify.js';
import type { RemoteMcpError } from './errors.js';

/**
 * One request of a session (the handshake, a page of `tools/list`, a `tools/call`) with every
 * fetch its transport makes for it, redirects included: what its fetches saw go wrong belongs to
 * it, and never explains the failure of a later request.
 */
export class Exchange {
  /** A network failure or an HTTP error status one of its fetches met. */
  failure: RemoteMcpError | undefined;
  /** The redirect last passed on to the transport: a failure only if the transport leaves it unfollowed. */
  redirect: RemoteMcpError | undefined;

  /** What went wrong on the wire, for the errors the SDKs report in their own words. */
  get lastFailure(): RemoteMcpError | undefined {
    return this.redirect ?? this.failure;
  }
}

/** The fetches an SDK starts for a request run in its async context, however late (`node:async_hooks`). */
const exchanges = new AsyncLocalStorage<Exchange>();

/** The exchange a fetch belongs to; `undefined` outside any request (closing, a cancellation). */
export const currentExchange = (): Exchange | undefined => exchanges.getStore();

/** Runs `send` as an exchange of its own; it rejects with a `RemoteMcpError` saying what happened. */
export async function exchange<T>(label: RequestLabel, send: () => Promise<T>): Promise<T> {
  const record = new Exchange();
  try {
    return await exchanges.run(record, send);
  } catch (error) {
    throw toRemoteMcpError(error, { ...label, lastFailure: record.lastFailure });
  }
}
