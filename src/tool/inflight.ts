import type { Caller } from '../types/index.js';
import { type Delayed, DelayQueue } from '../util/delay-queue.js';
import type { RunStop } from './stop.js';

/** A JSON-RPC request id: a string or an integer. */
export type CallId = string | number;

/**
 * Whose calls a cancellation may stop: every caller of a `"code"` server shares its code, so its
 * calls are one scope (the server id); on an `"oauth"` server each signed-in user's calls are a
 * scope of their own, so one user's cancel never stops another's call (README "Cancellation").
 * Server ids hold no line break, so the two forms never meet.
 */
export const callScope = (serverId: string, subject?: string): string =>
  subject === undefined ? serverId : `${serverId}\n${subject}`;

/**
 * Who a caller is among a server's callers, for scoping its calls, tasks and end user: the OAuth
 * subject, `key:<id>` for a caller key (docs/keys.md), nothing for the holders of a code.
 */
export const subjectOf = (caller: Caller | undefined): string | undefined =>
  caller?.kind === 'oauth' ? caller.subject : caller?.kind === 'key' ? `key:${caller.id}` : undefined;

/**
 * Tells the other instances of a farm which calls run here, so that a cancellation reaching one of
 * them is passed on only for a call that runs (README, "Running several instances"). A call is
 * told once it has run `delayMs`, and told again when it ends; the many calls that end sooner are
 * never told, and cost nothing but a place in a queue.
 */
export interface CallAnnouncer {
  delayMs: number;
  announce(scope: string, id: CallId, running: boolean): void;
}

interface Announced {
  scope: string;
  id: CallId;
  key: string;
}

/**
 * The `tools/call` runs in progress in this process, so that `notifications/cancelled` can stop
 * the matching ones of the same scope (`callScope`; MCP "Cancellation"). Transient by nature: a
 * cancel that reaches another instance finds nothing, which the protocol allows.
 *
 * A cancel names a request by its id alone, and the 2025 transports carry no session here, so
 * every run of the scope with that id is stopped: two clients of one code whose ids collide can
 * stop each other's calls (README "Cancellation"), but no run ever becomes impossible to cancel.
 */
export class InflightCalls {
  /** One run per key, the usual case; a set only when ids collide. */
  readonly #calls = new Map<string, RunStop | Set<RunStop>>();
  readonly #announcer: CallAnnouncer | undefined;
  /** The keys that wait to be told, by key; absent without an announcer. */
  readonly #waiting = new Map<string, Delayed<Announced>>();
  /** The keys that were told running, by key. */
  readonly #told = new Map<string, Announced>();
  readonly #queue: DelayQueue<Announced> | undefined;

  constructor(announcer?: CallAnnouncer) {
    this.#announcer = announcer;
    this.#queue =
      announcer &&
      new DelayQueue<Announced>(announcer.delayMs, (call) => {
        this.#waiting.delete(call.key);
        this.#told.set(call.key, call);
        announcer.announce(call.scope, call.id, true);
      });
  }

  /** One flat key per scope and id; `1` and `"1"` stay apart, as JSON-RPC ids are. */
  static #key(scope: string, id: CallId): string {
    return typeof id === 'string' ? `${scope}\u0000s${id}` : `${scope}\u0000n${id}`;
  }

  /**
   * Registers a run; returns the key that `remove` takes back (a key rather than a function that
   * removes: a running call then holds no closure for it).
   */
  add(scope: string, id: CallId, stop: RunStop): string {
    const key = InflightCalls.#key(scope, id);
    const current = this.#calls.get(key);
    if (current === undefined) {
      this.#calls.set(key, stop);
      if (this.#queue && !this.#told.has(key)) this.#waiting.set(key, this.#queue.add({ scope, id, key }));
    } else if (current instanceof Set) current.add(stop);
    else this.#calls.set(key, new Set([current, stop]));
    return key;
  }

  /** Stops every matching run; whether there was one. */
  cancel(scope: string, id: CallId, reason: unknown): boolean {
    const current = this.#calls.get(InflightCalls.#key(scope, id));
    if (current instanceof Set) for (const stop of [...current]) stop.stop(reason);
    else current?.stop(reason);
    return current !== undefined;
  }

  /** Unregisters a run that `add` registered under `key`. */
  remove(key: string, stop: RunStop): void {
    const current = this.#calls.get(key);
    if (current === stop) this.#calls.delete(key);
    else if (current instanceof Set) {
      current.delete(stop);
      if (current.size === 0) this.#calls.delete(key);
    }
    if (this.#calls.has(key) || !this.#announcer) return;
    const waiting = this.#waiting.get(key);
    if (waiting) {
      this.#queue?.remove(waiting);
      this.#waiting.delete(key);
    }
    const told = this.#told.get(key);
    if (told) {
      this.#told.delete(key);
      this.#announcer.announce(told.scope, told.id, false);
    }
  }
}
