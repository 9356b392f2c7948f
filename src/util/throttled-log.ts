/** How often a repeated failure is logged at most, by default. */
export const DEFAULT_LOG_INTERVAL_MS = 10_000;
/** Distinct failures tracked at once; beyond them, new kinds are counted together. */
const MAX_KINDS = 100;
const OTHER_KINDS = '\u0000other';

interface Kind {
  label: string;
  summary: string;
  repeats: number;
}

/**
 * The default `onError` output: a failure is written in full (with its stack) the first time, and
 * while it keeps happening, only a count of its repeats once per interval. A database outage that
 * fails every request gives one stack trace and one line per interval, not one per request (README
 * "Errors and logs"). A kind of failure that stops for a whole interval is forgotten, so its next
 * occurrence is written in full again. The timer never keeps the process alive.
 */
export class ThrottledLog {
  readonly #kinds = new Map<string, Kind>();
  readonly #write: (...data: unknown[]) => void;
  readonly #intervalMs: number;

  constructor(write: (...data: unknown[]) => void = console.error, intervalMs = DEFAULT_LOG_INTERVAL_MS) {
    this.#write = write;
    this.#intervalMs = intervalMs;
  }

  /** Logs `error` under `label` ("express-app-mcp: internal failure during resolve"). */
  log(label: string, error: unknown): void {
    const summary = summarize(error);
    let key = `${label}\u0000${summary}`;
    if (!this.#kinds.has(key) && this.#kinds.size >= MAX_KINDS) key = OTHER_KINDS;
    const kind = this.#kinds.get(key);
    if (kind) {
      kind.repeats++;
      return;
    }
    this.#write(label, error);
    this.#kinds.set(
      key,
      key === OTHER_KINDS
        ? { label: 'express-app-mcp: internal failures', summary: 'of other kinds', repeats: 0 }
        : { label, summary, repeats: 0 },
    );
    this.#schedule(key);
  }

  #schedule(key: string): void {
    setTimeout(() => {
      const kind = this.#kinds.get(key);
      if (!kind || kind.repeats === 0) {
        this.#kinds.delete(key);
        return;
      }
      this.#write(
        `${kind.label}: ${kind.repeats} more in the last ${this.#intervalMs / 1000} s (${kind.summary})`,
      );
      kind.repeats = 0;
      this.#schedule(key);
    }, this.#intervalMs).unref();
  }
}

/** One line that tells kinds of failure apart: the error's name and message, cut short. */
function summarize(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = 'an error that cannot be described';
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
