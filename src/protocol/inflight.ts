import type { RequestId } from './messages.js';

/**
 * The `tools/call` runs in progress in this process, so that `notifications/cancelled` can abort
 * the matching one of the same server (MCP "Cancellation"). Transient by nature: a cancel that
 * reaches another instance finds nothing, which the protocol allows.
 */
export class InflightCalls {
  /** Server id -> request id -> run. Map keys keep `1` and `"1"` apart, as JSON-RPC ids are. */
  readonly #calls = new Map<string, Map<RequestId, AbortController>>();

  /** Registers a run; the returned function unregisters it. */
  add(serverId: string, id: RequestId, controller: AbortController): () => void {
    let calls = this.#calls.get(serverId);
    if (!calls) {
      calls = new Map();
      this.#calls.set(serverId, calls);
    }
    calls.set(id, controller);
    return () => {
      const current = this.#calls.get(serverId);
      if (current?.get(id) !== controller) return;
      current.delete(id);
      if (current.size === 0) this.#calls.delete(serverId);
    };
  }

  /** Aborts the matching run, if there is one. */
  cancel(serverId: string, id: RequestId, reason: unknown): boolean {
    const controller = this.#calls.get(serverId)?.get(id);
    controller?.abort(reason);
    return controller !== undefined;
  }
}
