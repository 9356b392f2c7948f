import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { TableNames } from './tables.js';

/** Events of a stream read back, after a given one. */
export interface StreamRead {
  events: { seq: number; message: unknown }[];
  /** The stream has ended: nothing will follow the events read. */
  ended: boolean;
  /** When the stream was opened (epoch ms). */
  startedAt: number;
  /**
   * The stream has not ended and its lease has lapsed: no instance has said for a lease that it
   * still runs the stream's run (its instance stopped). Nothing will follow.
   */
  lapsed: boolean;
  /** The JSON-RPC id of the request the stream answers; `null` for a stream stored without it. */
  requestId: string | number | null;
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
  /**
   * Starts stream `streamId` (`newStreamId`) of `serverId`, answering the request `requestId`,
   * held by this instance for `leaseMs` (`renew`).
   */
  open(streamId: string, serverId: string, requestId: string | number, leaseMs: number): Promise<void>;
  /** The instance still runs these streams' runs: each is held `leaseMs` more, unless it has ended. */
  renew(streamIds: readonly string[], leaseMs: number): Promise<void>;
  /** Stores events of a stream, numbered 1, 2, … in order, after those stored before. */
  append(streamId: string, events: readonly StoredEvent[]): Promise<void>;
  /** The stream is over; its events are kept `retentionMs` more. */
  end(streamId: string, retentionMs: number): Promise<void>;
  /** The events after `afterSeq`; `null` when there is no such stream for that server (any more). */
  read(streamId: string, serverId: string, afterSeq: number): Promise<StreamRead | null>;
  /** Calls `listener` when the stream may have new events, from any instance; returns a function that stops it. */
  watch(streamId: string, listener: () => void): () => void;
}

/**
 * A stream whose run never ended (its instance stopped) is deleted this long after its lease
 * lapsed; until then a `GET` learns that its run was lost, rather than that it never existed.
 */
const LOST_STREAM_KEPT_MS = 24 * 60 * 60 * 1000;
/** Expired streams are deleted at most this often, by the store that opens a stream. */
const SWEEP_EVERY_MS = 60_000;

/** `pg` returns bigint columns as strings, SQLite as numbers. */
interface StreamRow {
  created_at: number | string;
  ended_at: number | string | null;
  expires_at: number | string;
  request_id: string | null;
}

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
    // Until it ends, a stream's `expires_at` is its lease.
    const expired = (query: Knex.QueryBuilder) =>
      query
        .where((ended) => ended.whereNotNull('ended_at').andWhere('expires_at', '<', now))
        .orWhere('expires_at', '<', now - LOST_STREAM_KEPT_MS);
    await knex(tables.streamEvents)
      .whereIn('stream_id', expired(knex(tables.streams).select('id')))
      .delete();
    await expired(knex(tables.streams)).delete();
  }

  return {
    heard,

    async open(id, serverId, requestId, leaseMs) {
      const now = Date.now();
      await knex(tables.streams).insert({
        id,
        server_id: serverId,
        created_at: now,
        ended_at: null,
        expires_at: now + leaseMs,
        request_id: JSON.stringify(requestId),
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

    async renew(streamIds, leaseMs) {
      if (streamIds.length === 0) return;
      await knex(tables.streams)
        .whereIn('id', streamIds)
        .whereNull('ended_at')
        .update({ expires_at: Date.now() + leaseMs });
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
      const stream: StreamRow | undefined = await knex(tables.streams)
        .select('created_at', 'ended_at', 'expires_at', 'request_id')
        .where({ id: streamId, server_id: serverId })
        .first();
      const now = Date.now();
      const ended = stream !== undefined && stream.ended_at !== null;
      if (!stream || (ended && Number(stream.expires_at) < now)) return null;
      const rows: { seq: number; data: string }[] = await knex(tables.streamEvents)
        .select('seq', 'data')
        .where({ stream_id: streamId })
        .andWhere('seq', '>', afterSeq)
        .orderBy('seq');
      return {
        events: rows.map((row) => ({ seq: Number(row.seq), message: JSON.parse(row.data) })),
        // The stream row is read first: a stream that had ended by then has all its events in rows.
        ended,
        startedAt: Number(stream.created_at),
        lapsed: !ended && Number(stream.expires_at) < now,
        requestId: stream.request_id === null ? null : (JSON.parse(stream.request_id) as string | number),
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
