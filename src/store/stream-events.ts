import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { TableNames } from './tables.js';

/** Events of a stream read back, after a given one. */
export interface StreamRead {
  events: { seq: number; message: unknown }[];
  /** The stream has ended: nothing will follow the events read. */
  ended: boolean;
}

/** One event of a stream as it is stored: its number in the stream and its message's JSON text. */
export interface StoredEvent {
  seq: number;
  data: string;
}

/** A new stream's id: unguessable (128 random bits), so that it may be sent before it is stored. */
export const newStreamId = (): string => randomBytes(16).toString('base64url');

/** The events of resumable streams, in the host's database (PostgreSQL or SQLite). */
export interface StreamEventStore {
  /** Starts stream `streamId` (`newStreamId`) of `serverId`. */
  open(streamId: string, serverId: string): Promise<void>;
  /** Stores events of a stream, numbered 1, 2, … in order, after those stored before. */
  append(streamId: string, events: readonly StoredEvent[]): Promise<void>;
  /** The stream is over; its events are kept `retentionMs` more. */
  end(streamId: string, retentionMs: number): Promise<void>;
  /** The events after `afterSeq`; `null` when there is no such stream for that server (any more). */
  read(streamId: string, serverId: string, afterSeq: number): Promise<StreamRead | null>;
  /** Calls `listener` when the stream may have new events, from any instance; returns a function that stops it. */
  watch(streamId: string, listener: () => void): () => void;
}

/** A stream whose run never ended (its process died) is deleted after this. */
const UNFINISHED_STREAM_MS = 24 * 60 * 60 * 1000;
/** Expired streams are deleted at most this often, by the store that opens a stream. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The event store of the Knex store. `announce` tells the other instances that a stream has a new
 * event (PostgreSQL `NOTIFY`); `heard` is what the store calls when such an announcement arrives.
 */
export function knexStreamEvents(
  knex: Knex,
  tables: TableNames,
  announce: ((streamId: string) => Promise<void>) | undefined,
): StreamEventStore & { heard(streamId: string): void } {
  const watchers = new Map<string, Set<() => void>>();
  let lastSweep = 0;
  const heard = (streamId: string) => {
    for (const listener of watchers.get(streamId) ?? []) listener();
  };

  async function sweep(now: number): Promise<void> {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    const expired = knex(tables.streams).select('id').where('expires_at', '<', now);
    await knex(tables.streamEvents).whereIn('stream_id', expired).delete();
    await knex(tables.streams).where('expires_at', '<', now).delete();
  }

  return {
    heard,

    async open(id, serverId) {
      const now = Date.now();
      await knex(tables.streams).insert({
        id,
        server_id: serverId,
        created_at: now,
        ended_at: null,
        expires_at: now + UNFINISHED_STREAM_MS,
      });
      // Cleaning up is nobody's request: a failure here must not fail the stream.
      sweep(now).catch(() => {});
    },

    async append(streamId, events) {
      const rows = events.map(({ seq, data }) => ({ stream_id: streamId, seq, data }));
      await knex(tables.streamEvents).insert(rows);
      heard(streamId);
      await announce?.(streamId);
    },

    async end(streamId, retentionMs) {
      const now = Date.now();
      await knex(tables.streams)
        .where({ id: streamId })
        .update({ ended_at: now, expires_at: now + retentionMs });
      heard(streamId);
      await announce?.(streamId);
    },

    async read(streamId, serverId, afterSeq) {
      const stream: { ended_at: number | string | null; expires_at: number | string } | undefined =
        await knex(tables.streams)
          .select('ended_at', 'expires_at')
          .where({ id: streamId, server_id: serverId })
          .first();
      if (!stream || Number(stream.expires_at) < Date.now()) return null;
      const rows: { seq: number; data: string }[] = await knex(tables.streamEvents)
        .select('seq', 'data')
        .where({ stream_id: streamId })
        .andWhere('seq', '>', afterSeq)
        .orderBy('seq');
      return {
        events: rows.map((row) => ({ seq: Number(row.seq), message: JSON.parse(row.data) })),
        // The stream row is read first: a stream that had ended by then has all its events in rows.
        ended: stream.ended_at !== null,
      };
    },

    watch(streamId, listener) {
      let listeners = watchers.get(streamId);
      if (!listeners) {
        listeners = new Set();
        watchers.set(streamId, listeners);
      }
      listeners.add(listener);
      return () => {
        // Once only: a second call must not drop the set a new follower of the stream may have made since.
        if (!listeners.delete(listener)) return;
        if (listeners.size === 0) watchers.delete(streamId);
      };
    },
  };
}
