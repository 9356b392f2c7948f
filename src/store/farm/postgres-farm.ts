import type { Knex } from 'knex';
import { CallsElsewhere } from './calls-elsewhere.js';
import type { CallId, CancelListener, Farm } from './farm.js';
import { PostgresListener } from './listener.js';

/** PostgreSQL refuses a `NOTIFY` payload of this many bytes or more (PostgreSQL documentation, "NOTIFY"). */
const MAX_NOTIFY_PAYLOAD_BYTES = 8000;
/**
 * How long a call runs before the other instances are told of it: most calls end sooner and are
 * never told, and a cancellation that comes earlier waits that long for the call to be told.
 */
const ANNOUNCE_DELAY_MS = 250;

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
  const elsewhere = new CallsElsewhere(ANNOUNCE_DELAY_MS);
  /** Sends on one of the farm's channels; the farm starts on first use. */
  const send = async (channel: string, payload: string) => {
    listener.start();
    await knex.raw('select pg_notify(?, ?)', [channel, payload]);
  };
  const notify = async (payload: string) => {
    // A cancel whose id is too long to pass on stays on this instance, as a cancel does without a farm.
    if (Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES) return;
    await send(cancelled, payload);
  };
  const sendCancel = (key: string) => notify(key).catch(() => {});
  const listener = new PostgresListener(knex, {
    channels: [serverChanged, cancelled, streamEvent, input],
    onNotification(channel, payload) {
      if (channel === serverChanged) cache?.forget(payload);
      else if (channel === streamEvent) onStreamEvent(payload);
      else if (channel === input) for (const listen of inputListeners) listen(payload);
      else if (channel === cancelled) {
        const message = parseCallMessage(payload);
        if (message?.kind === 'cancel') {
          for (const listen of cancelListeners) listen(message.scope, message.requestId);
        } else if (message) {
          const key = CallsElsewhere.key(message.scope, message.requestId);
          // A cancellation that waited for this call goes now; it was counted when it arrived.
          if (elsewhere.heard(key, message.kind === 'running')) void sendCancel(key);
        }
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
      listener.start();
      const key = CallsElsewhere.key(scope, requestId);
      if (elsewhere.cancel(key)) await notify(key);
    },

    async broadcastCancel(scope, requestId) {
      await notify(CallsElsewhere.key(scope, requestId));
    },

    async announceCall(scope, requestId, running) {
      await notify(JSON.stringify({ [running ? 'running' : 'ended']: [scope, requestId] }));
    },

    announceDelayMs: ANNOUNCE_DELAY_MS,

    async announceStreamEvent(streamId) {
      await send(streamEvent, streamId);
    },

    onCancel(listen) {
      cancelListeners.add(listen);
      return () => cancelListeners.delete(listen);
    },

    async publishInput(payload) {
      if (Buffer.byteLength(payload) >= MAX_NOTIFY_PAYLOAD_BYTES)
        throw new Error('input payload too long to notify');
      await send(input, payload);
    },

    onInput(listen) {
      inputListeners.add(listen);
      return () => inputListeners.delete(listen);
    },

    rateLimitStore: { storeClient: knex, storeType: 'knex', tableName: names.rateLimits },
  };
}

type CallMessage = { kind: 'cancel' | 'running' | 'ended'; scope: string; requestId: CallId };

/**
 * A message of the calls channel: `[scope, requestId]` cancels; `{"running": [scope, requestId]}`
 * and `{"ended": …}` tell a call's start and end. Instances of earlier versions send and read only
 * the first, and ignore the others.
 */
function parseCallMessage(payload: string): CallMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null; // not ours: another program on the same channel
  }
  let kind: CallMessage['kind'] = 'cancel';
  let call = parsed;
  if (!Array.isArray(parsed) && typeof parsed === 'object' && parsed !== null) {
    kind = 'running' in parsed ? 'running' : 'ended';
    call = (parsed as Record<string, unknown>)[kind];
  }
  if (!Array.isArray(call)) return null;
  const [scope, requestId] = call as unknown[];
  if (typeof scope !== 'string') return null;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return null;
  return { kind, scope, requestId };
}
