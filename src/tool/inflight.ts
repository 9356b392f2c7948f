import type { RunStop } from './stop.js';

/** A JSON-RPC request id: a string or an integer. */
export type CallId = string | number;

/**
 * The `tools/call` runs in progress in this process, so that `notifications/cancelled` can stop
 * the matching one of the same server (MCP "Cancellation"). Transient by nature: a cancel that
 * reaches another instance finds nothing, which the protocol allows.
 */
export class InflightCalls {
  readonly #calls = new Map<string, RunStop>();

  /** One flat key per server and id; `1` and `"1"` stay apart, as JSON-RPC ids are. */
  static #key(serverId: string, id: CallId): string {
    return typeof id === 'string' ? `${serverId}\u0000s${id}` : `${serverId}\u0000n${id}`;
  }

  /** Registers a run; the returned function unregisters it. */
  add(serverId: string, id: CallId, stop: RunStop): () => void {
    const key = InflightCalls.#key(serverId, id);
    this.#calls.set(key, stop);
    return () => {
      if (this.#calls.get(key) === stop) this.#calls.delete(key);
    };
  }

  /** Stops the matching run, if there is one. */
  cancel(serverId: string, id: CallId, reason: unknown): boolean {
    const stop = this.#calls.get(InflightCalls.#key(serverId, id));
    stop?.stop(reason);
    return stop !== undefined;
  }
}
