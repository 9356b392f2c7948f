import { formatEvent, type StreamItem } from './events.js';

/**
 * Where an event stream's text goes: the HTTP layer's response. It only writes; what to write,
 * when, and in what order is the stream's.
 */
export interface StreamOutput {
  /**
   * Writes `text` at once. `false`: the connection's buffer is full; the output calls
   * `EventStream.drained()` once it has emptied.
   */
  write(text: string): boolean;
  /** Writes `text`, the stream's last, and ends the body. */
  end(text: string): void;
  /** The stream's producer broke: ends the body after `text`; the failure is the output's to report. */
  fail(text: string, error: unknown): void;
}

/** What produces a stream, told what its reader does: an object rather than callbacks, held as long as the stream. */
export interface StreamProducer {
  /** The client went away: nothing more will be written. */
  readerGone(): void;
  /**
   * The stream takes more again after it was full (`EventStream.writable`): the connection's
   * buffer has emptied, or what waited for it went through. A producer that paused goes on.
   */
  drained?(): void;
}

/**
 * How much text may wait for the output, in UTF-16 code units (bytes, for the ASCII of JSON), before
 * the stream counts as full: with the connection's own buffer, what one reply holds when its client
 * does not read.
 */
const MAX_PENDING = 64 * 1024;

/**
 * One event stream reply, as text for the HTTP layer to write (`pipe`). Its producer pushes items
 * as things happen, before or after the output is there; items pushed in the same tick (an app that
 * reports several stages at once) leave in one write, at the end of the tick. `end()` lets what is
 * pushed go out and ends the body; nothing pushed after it goes out. An object whose methods the
 * producer and the output call, rather than an async loop: a stream stays open as long as its run,
 * and a pending async function would keep its whole frame for that time (README, "Long runs").
 */
export class EventStream {
  #pending = '';
  #ended = false;
  #out: StreamOutput | undefined;
  /** Whether the output's last write went through without filling its buffer. */
  #writable = true;
  /** A failure of the producer before the output was there, for the output to report. */
  #failure: { error: unknown } | undefined;
  readonly #producer: StreamProducer | undefined;

  constructor(producer?: StreamProducer) {
    this.#producer = producer;
  }

  /**
   * Whether the stream takes more without holding it: the connection's buffer has room and little
   * waits for it. The backpressure signal a producer pauses on; `StreamProducer.drained` tells it
   * when to go on. An ended stream holds nothing more: it is always writable.
   */
  get writable(): boolean {
    return this.#ended || (this.#writable && this.#pending.length < MAX_PENDING);
  }

  push(item: StreamItem): void {
    if (this.#ended) return;
    if (this.#pending === '' && this.#out !== undefined) process.nextTick(EventStream.#send, this);
    this.#pending += formatEvent(item);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#finish();
  }

  /** The producer broke: what was pushed goes out, then the body ends, and the output reports `error`. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const out = this.#out;
    if (out === undefined) {
      this.#failure = { error };
      return;
    }
    this.#out = undefined;
    out.fail(this.#take(), error);
  }

  /** Hands the stream to its output: what is pushed already at the end of this tick, the rest as it comes. */
  pipe(out: StreamOutput): void {
    this.#out = out;
    if (this.#failure) {
      this.#ended = false;
      this.fail(this.#failure.error);
    } else if (this.#ended) this.#finish();
    else if (this.#pending !== '') process.nextTick(EventStream.#send, this);
  }

  /** The client went away: what is pending is dropped, the body ended, and the producer told. */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending = '';
    this.#finish();
    this.#producer?.readerGone();
  }

  /** The output's buffer has emptied (`StreamOutput.write`). */
  drained(): void {
    this.#writable = true;
    this.#producer?.drained?.();
  }

  static #send(stream: EventStream): void {
    const out = stream.#out;
    if (stream.#pending === '' || out === undefined) return;
    const wasFull = stream.#pending.length >= MAX_PENDING;
    stream.#writable = out.write(stream.#take());
    // What waited went through at once: a producer that paused on it goes on.
    if (wasFull && stream.#writable) stream.#producer?.drained?.();
  }

  #take(): string {
    const text = this.#pending;
    this.#pending = '';
    return text;
  }

  #finish(): void {
    const out = this.#out;
    if (out === undefined) return;
    this.#out = undefined;
    out.end(this.#take());
  }
}
