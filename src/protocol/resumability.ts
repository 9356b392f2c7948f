import type { Delayed, DelayQueue } from '../delay-queue.js';
import type { StreamEventStore } from '../store/stream-events.js';
import type { PushQueue } from './push-queue.js';
import type { StreamItem } from './reply.js';

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
  readonly out: PushQueue<StreamItem>;
  entry: Delayed<ResumedBeat> | undefined;
}
