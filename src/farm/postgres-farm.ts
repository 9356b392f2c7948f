import type { Knex } from 'knex';
import type { CallId, CancelListener, Farm } from './farm.js';
import { PostgresListener } from './listener.js';

/** PostgreSQL refuses a `NOTIFY` payload of this many bytes or more (PostgreSQL documentation, "NOTIFY"). */
const MAX_NOTIFY_PAYLOAD_BYTES = 8000;

/** What the farm does to the store's code cache. */
export interface CacheInvalidation {
  /** A server changed somewhere: drop its codes. */
  forget(serverId: string): void;
  /** Changes may have gone unheard: serve nothing from the cache before reading it again. */
  expireAll(): void;
}

/** The names the farm uses in the database, all made by `migrate`. */
export interface FarmNames {
  channels: { serverChanged: string; cancelled: string; streamEvent: string; input: string };
  rateLimits: string;
}

/** A farm with the connection it owns: started on first use, ended by `close()`. */
export interface PostgresFarm extends Farm {
  start(): void;
  close(): Promise<void>;
  /** Whether the `LISTEN` connection is up: from then on, changes made elsewhere are heard. */
  readonly listening: boolean;
  /** Tells every instance that a stream has a new event. */
  announceStreamEvent(streamId: string): Promise<void>;
}

/**
 * The farm of a store on PostgreSQL: one `LISTEN` connection hears the server changes (announced
 * by the trigger `migrate` installs) and the cancellations of every instance; cancellations and
 * rate-limit counters go through the host's own pool.
 */
export function postgresFarm(
  knex: Knex,
  names: FarmNames,
  cache: CacheInvalidation | null,
  onStreamEvent: (streamId: string) => void,
): PostgresFarm {
  const { serverChanged, cancelled, streamEvent, input } = names.channels;
  const cancelListeners = new Set<CancelListener>();
  const inputListeners = new Set<(payload: string) => void>();
  const listener = new PostgresListener(knex, {
    channels: [serverChanged, cancelled, streamEvent, input],
    onNotification(channel, payload) {
      if (channel === serverChanged) cache?.forget(payload);
      else if (channel === streamEvent) onStreamEvent(payload);
      else if (channel === input) for (const listen of inputListeners) listen(payload);
      else if (channel === cancelled) {
        const cancel = parseCancel(payload);
        if (cancel) for (const listen of cancelListeners) listen(cancel.scope, cancel.requestId);
      }
    },
    // Whatever was cached before this moment may have missed a change.
    onListening: () => cache?.expireAll(),
  });

  return {
    start: () => listener.start(),
    close: () => listener.close(),
    get listening() {
      return listener.listening;
    },

    async publishCancel(scope, requestId) {
      const payload = JSON.stringify([scope, requestId]);
      // A cancel whose id is too long to pass on stays on this instance, as a cancel does without a farm.
      if (Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES) return;
      listener.start();
      await knex.raw('select pg_notify(?, ?)', [cancelled, payload]);
    },

    async announceStreamEvent(streamId) {
      listener.start();
      await knex.raw('select pg_notify(?, ?)', [streamEvent, streamId]);
    },

    onCancel(listen) {
      cancelListeners.add(listen);
      return () => cancelListeners.delete(listen);
    },

    async publishInput(payload) {
      if (Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES)
        throw new Error('input payload too long to notify');
      listener.start();
      await knex.raw('select pg_notify(?, ?)', [input, payload]);
    },

    onInput(listen) {
      inputListeners.add(listen);
      return () => inputListeners.delete(listen);
    },

    rateLimitStore: { storeClient: knex, storeType: 'knex', tableName: names.rateLimits },
  };
}

function parseCancel(payload: string): { scope: string; requestId: CallId } | null {
  try {
    const [scope, requestId] = JSON.parse(payload) as unknown[];
    if (typeof scope !== 'string') return null;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return null;
    return { scope, requestId };
  } catch {
    return null; // not ours: another program on the same channel
  }
}
