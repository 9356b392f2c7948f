import type { RunStop } from './stop.js';

/** A JSON-RPC request id: a string or an integer. */
export type CallId = string | number;

/**
 * The `tools/call` runs in progress in this process, so that `notifications/cancelled` can stop
 * the matching ones of the same server (MCP "Cancellation"). Transient by nature: a cancel that
 * reaches another instance finds nothing, which the protocol allows.
 *
 * A cancel names a request by its id alone, and the 2025 transports carry no session here, so
 * every run of the server with that id is stopped: two clients of one code whose ids collide can
 * stop each other's calls (README "Cancellation"), but no run ever becomes impossible to cancel.
 */
export class InflightCalls {
  /** One run per key, the usual case; a set only when ids collide. */
  readonly #calls = new Map<string, RunStop | Set<RunStop>>();

  /** One flat key per server and id; `1` and `"1"` stay apart, as JSON-RPC ids are. */
  static #key(serverId: string, id: CallId): string {
    return typeof id === 'string' ? `${serverId}\u0000s${id}` : `${serverId}\u0000n${id}`;
  }

  /** Registers a run; the returned function unregisters it. */
  add(serverId: string, id: CallId, stop: RunStop): () => void {
    const key = InflightCalls.#key(serverId, id);
    const current = this.#calls.get(key);
    if (current === undefined) this.#calls.set(key, stop);
    else if (current instanceof Set) current.add(stop);
    else this.#calls.set(key, new Set([current, stop]));
    return () => this.#remove(key, stop);
  }

  /** Stops every matching run; whether there was one. */
  cancel(serverId: string, id: CallId, reason: unknown): boolean {
    const current = this.#calls.get(InflightCalls.#key(serverId, id));
    if (current instanceof Set) for (const stop of [...current]) stop.stop(reason);
    else current?.stop(reason);
    return current !== undefined;
  }

  #remove(key: string, stop: RunStop): void {
    const current = this.#calls.get(key);
    if (current === stop) this.#calls.delete(key);
    else if (current instanceof Set) {
      current.delete(stop);
      if (current.size === 0) this.#calls.delete(key);
    }
  }
}
