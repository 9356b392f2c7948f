import type { RequestId } from './messages.js';

/**
 * The `tools/call` runs in progress in this process, so that `notifications/cancelled` can abort
 * the matching one of the same server (MCP "Cancellation"). Transient by nature: a cancel that
 * reaches another instance finds nothing, which the protocol allows.
 */
export class InflightCalls {
  readonly #calls = new Map<string, AbortController>();

  static #key(serverId: string, id: RequestId): string {
    return `${serverId}\u0000${typeof id}\u0000${id}`;
  }

  /** Registers a run; the returned function unregisters it. */
  add(serverId: string, id: RequestId, controller: AbortController): () => void {
    const key = InflightCalls.#key(serverId, id);
    this.#calls.set(key, controller);
    return () => {
      if (this.#calls.get(key) === controller) this.#calls.delete(key);
    };
  }

  /** Aborts the matching run, if there is one. */
  cancel(serverId: string, id: RequestId, reason: unknown): boolean {
    const controller = this.#calls.get(InflightCalls.#key(serverId, id));
    controller?.abort(reason);
    return controller !== undefined;
  }
}
