import type { Knex } from 'knex';

/** A JSON-RPC request id, by which `notifications/cancelled` names a call. */
export type CallId = string | number;

/** `scope`: the server's id, or on an `"oauth"` server the server and the signed-in user (`callScope`). */
export type CancelListener = (scope: string, requestId: CallId) => void;

/**
 * What the instances of a farm share through the store's database, for `mcpServer({ store })`
 * (see the README, "Running several instances"). Only a store on PostgreSQL has one.
 */
export interface Farm {
  /**
   * Tells the instance that runs `requestId` in that scope (see `CancelListener`) to abort it: only
   * when some instance told the call running (`announceCall`), at once or as soon as it is told, so
   * that a cancellation of an id that runs nowhere sends nothing.
   */
  publishCancel(scope: string, requestId: CallId): Promise<void>;
  /**
   * Tells every instance at once to abort `requestId` in that scope, whether or not a call was
   * announced: for a task's run, which outlives whatever the instances were told when it started
   * (docs/tasks.md).
   */
  broadcastCancel(scope: string, requestId: CallId): Promise<void>;
  /** Tells every instance that a call runs on this one (`running`), or no longer does. */
  announceCall(scope: string, requestId: CallId, running: boolean): Promise<void>;
  /** How long a call runs before it is told (see `CallAnnouncer` of the tool runs). */
  readonly announceDelayMs: number;
  /** Hears the cancellations of every instance; returns a function that stops listening. */
  onCancel(listener: CancelListener): () => void;
  /**
   * Tells every instance about input for a run waiting for a person: an answer POSTed to one
   * instance, or a 2026-07-28 retry, for the instance the run waits on. `payload` is short text.
   */
  publishInput(payload: string): Promise<void>;
  /** Hears the input of every instance (`publishInput`); returns a function that stops listening. */
  onInput(listener: (payload: string) => void): () => void;
  /** Where rate-limiter-flexible's PostgreSQL store keeps shared counters: the table `migrate` made. */
  rateLimitStore: { storeClient: Knex; storeType: 'knex'; tableName: string };
}
