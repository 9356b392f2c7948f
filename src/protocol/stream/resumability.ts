import type { StreamEventStore } from '../../store/stream-events.js';
import type { Delayed, DelayQueue } from '../../util/delay-queue.js';
import type { EventStream } from './event-stream.js';

/** How streams are kept for resumption (README, "Running several instances"). */
export interface Resumability {
  store: StreamEventStore;
  /** How long a stream's events are kept after its response. */
  retentionMs: number;
  /**
   * When > 0, a stream is ended after this long with a `retry` hint, and the client resumes with
   * GET; not before the client holds an event id.
   */
  windowMs: number;
  /** Where resumed streams wait for their next comment line (`resumedHeartbeats`); none when `heartbeatMs` is 0. */
  heartbeats: DelayQueue<ResumedBeat> | undefined;
}

/** A resumed stream's place among its router's heartbeats (`resumedHeartbeats`). */
export interface ResumedBeat {
  readonly out: EventStream;
  entry: Delayed<ResumedBeat> | undefined;
}

/** The `retry` hint of a stream ended by `streamWindowMs`: resume at once, or nearly. */
const RETRY_MS = 500;

/** SSE event ids are `<stream id>.<sequence>`; the stream id is what makes them unguessable. */
export const eventId = (streamId: string, seq: number): string => `${streamId}.${seq}`;

export function parseEventId(text: string): { streamId: string; seq: number } | null {
  const match = /^([A-Za-z0-9_-]{16,64})\.(0|[1-9][0-9]{0,8})$/.exec(text.trim());
  return match ? { streamId: match[1] as string, seq: Number(match[2]) } : null;
}

/** Calls `onEnd` once `windowMs` has passed (never when 0); returns what stops that. */
export function windowOf(windowMs: number, onEnd: () => void): () => void {
  if (windowMs === 0) return () => {};
  const timer = setTimeout(onEnd, windowMs);
  return () => clearTimeout(timer);
}

/** Ends a stream early with a `retry` hint, for the client to resume it with `GET`. */
export function cut(out: EventStream): void {
  out.push({ retryMs: RETRY_MS });
  out.end();
}
