import type { StreamEventStore } from '../store/stream-events.js';

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
  /** A resumed stream sends a comment line after this long without an event (none when 0). */
  heartbeatMs: number;
}
