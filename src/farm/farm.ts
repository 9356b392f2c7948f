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
  /** Tells every instance to abort the run of `requestId` in that scope (see `CancelListener`), if it runs there. */
  publishCancel(scope: string, requestId: CallId): Promise<void>;
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
