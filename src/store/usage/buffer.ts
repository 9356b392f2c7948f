import type { Caller } from '../../types/index.js';
import type { CallerColumns, UsageCounts, UsageStore } from './types.js';

/** Options of a `UsageBuffer`. */
export interface UsageBufferOptions {
  /** The longest counts wait in memory before they are written, in ms. */
  flushMs: number;
  /** The most distinct server, tool, caller and hour keys held; reaching it writes the batch early. */
  maxKeys: number;
  /** Receives a write that failed, and calls left uncounted. */
  report: (error: unknown) => void;
}

/** An hour in milliseconds. */
const HOUR_MS = 3_600_000;

const CODE_COLUMNS: CallerColumns = Object.freeze({ kind: 'code', id: '', name: null }) as CallerColumns;

/** The columns a caller is counted under. */
/** A caller as one string, for the keys of in-memory maps: `code`, or its kind and id. */
export const callerKeyOf = (caller: Caller): string =>
  caller.kind === 'code' ? 'code' : caller.kind === 'key' ? `k\n${caller.id}` : `o\n${caller.subject}`;

export function callerColumns(caller: Caller): CallerColumns {
  if (caller.kind === 'code') return CODE_COLUMNS;
  if (caller.kind === 'oauth') return { kind: 'oauth', id: caller.subject, name: null };
  return { kind: 'key', id: caller.id, name: caller.name };
}

/** Thrown to `report` when calls went uncounted, with how many. */
export class UsageNotCounted extends Error {
  override name = 'UsageNotCounted';
  constructor(readonly calls: number) {
    super(
      `usage: ${calls} calls were not counted: the buffer held its most keys while a write was under way, or a failed batch did not fit back`,
    );
  }
}

/**
 * Calls counted in memory, per server, tool, caller and UTC hour, and written to the store in
 * batches: every `flushMs` while there are counts, early when `maxKeys` keys are held, and on
 * `flush()` (the router's drain). One write is under way at a time; a batch that fails is added back
 * and written with the next one. A process that dies loses the counts not written yet: at most
 * `flushMs` of them (docs/usage.md).
 */
export class UsageBuffer {
  #counts = new Map<string, UsageCounts>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> | undefined;
  #uncounted = 0;
  readonly #store: UsageStore;
  readonly #options: UsageBufferOptions;

  constructor(store: UsageStore, options: UsageBufferOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** How many distinct keys wait to be written. */
  get size(): number {
    return this.#counts.size;
  }

  /**
   * Counts one call, begun at `startedAt` (epoch ms): a string key and a few additions, no
   * allocation unless the key is new.
   */
  count(
    serverId: string,
    tool: string,
    caller: Caller,
    startedAt: number,
    durationMs: number,
    error: boolean,
    tasked: boolean,
    asks: number,
  ): void {
    const hour = Math.floor(startedAt / HOUR_MS) * 3600;
    const key = `${serverId}\n${hour}\n${tool}\n${callerKeyOf(caller)}`;
    let counts = this.#counts.get(key);
    if (counts === undefined) {
      if (this.#counts.size >= this.#options.maxKeys && !this.#flushEarly()) {
        this.#uncounted++;
        return;
      }
      counts = {
        serverId,
        hour,
        tool,
        caller: callerColumns(caller),
        calls: 0,
        errors: 0,
        durationMs: 0,
        tasks: 0,
        asks: 0,
      };
      this.#counts.set(key, counts);
      this.#timer ??= this.#schedule();
    }
    counts.calls++;
    if (error) counts.errors++;
    counts.durationMs += durationMs;
    if (tasked) counts.tasks++;
    counts.asks += asks;
  }

  /** Writes what is buffered now, after the write under way; never rejects (failures are reported). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#counts.size > 0) await this.#write();
  }

  #schedule(): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#writing) void this.#write();
    }, this.#options.flushMs);
    // Counting never keeps the process alive; drain writes what is left.
    timer.unref?.();
    return timer;
  }

  /** At the key cap: writes the batch now, unless a write is already under way (`false`). */
  #flushEarly(): boolean {
    if (this.#writing) return false;
    void this.#write();
    return true;
  }

  /** Takes the batch (synchronously, so counting goes on into a new one) and writes it. */
  #write(): Promise<void> {
    const batch = this.#counts;
    this.#counts = new Map();
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const uncounted = this.#uncounted;
    this.#uncounted = 0;
    if (uncounted > 0) this.#options.report(new UsageNotCounted(uncounted));
    const writing = this.#store.addUsage([...batch.values()]).then(
      () => undefined,
      (error: unknown) => {
        this.#options.report(error);
        this.#putBack(batch);
      },
    );
    this.#writing = writing.finally(() => {
      this.#writing = undefined;
      if (this.#counts.size > 0) this.#timer ??= this.#schedule();
    });
    return this.#writing;
  }

  /** A batch that failed joins the one being counted, as far as the key cap allows. */
  #putBack(batch: Map<string, UsageCounts>): void {
    for (const [key, counts] of batch) {
      const current = this.#counts.get(key);
      if (current) {
        current.calls += counts.calls;
        current.errors += counts.errors;
        current.durationMs += counts.durationMs;
        current.tasks += counts.tasks;
        current.asks += counts.asks;
      } else if (this.#counts.size < this.#options.maxKeys) this.#counts.set(key, counts);
      else this.#uncounted += counts.calls;
    }
  }
}
