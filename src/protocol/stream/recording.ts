import type { ErrorContext, ErrorReporter } from '../report.js';
import type { EventStream, StreamProducer } from './event-stream.js';
import { isMessage, isResponse, type StreamItem, type StreamMessage } from './events.js';
import { cut, eventId, type Resumability, windowOf } from './resumability.js';

/** Marks the end of the items a recording takes, in its queue. */
const END: unique symbol = Symbol('end');

const noWindow = (): void => {};

/** How many items may wait for their turn before the producer is asked to pause (`backlogged`). */
const MAX_QUEUED = 16;

/**
 * A streamed reply made resumable (MCP 2025-03-26 Streamable HTTP, "Resumability and
 * redelivery"): every message gets an event id and is stored before it is sent, and keeps being
 * stored after the client has gone, until the response, so that a `GET` with `Last-Event-ID` on
 * any instance can send the rest. Items go out in the order they were taken, each after the one
 * before is stored. When `primes` (from 2025-11-25), the first event primes the client with an id
 * and no data (SSE polling).
 */
export class Recording {
  readonly #out: EventStream;
  readonly #resumability: Resumability;
  readonly #report: ErrorReporter;
  readonly #where: ErrorContext;
  #streamId = '';
  /** Items waiting for their turn: while the stream opens, or while the one before is stored. */
  readonly #queue: (StreamItem | typeof END)[] = [];
  #busy = true;
  #seq = 0;
  /** Whether events are still stored: not when the store has failed, and the stream goes on live. */
  #storing = false;
  #responded = false;
  /**
   * A client can resume only from an event id it holds: before 2025-11-25 there is no priming
   * event, and a window that passes before the first id waits for it.
   */
  #holdsId: boolean;
  #windowPassed = false;
  #stopWindow: () => void = noWindow;

  constructor(
    out: EventStream,
    resumability: Resumability,
    primes: boolean,
    report: ErrorReporter,
    where: ErrorContext,
    /** Told when the items that waited have gone, after `backlogged`. */
    readonly producer: Pick<StreamProducer, 'drained'>,
  ) {
    this.#out = out;
    this.#resumability = resumability;
    this.#holdsId = primes;
    this.#report = report;
    this.#where = where;
  }

  /** Whether the stream is stored: the client going away then stops only what is sent to it. */
  get opened(): boolean {
    return this.#streamId !== '';
  }

  /**
   * Opens the stored stream; settles once the reply may go out, recorded, or live when there is no
   * place to keep it (the database failing: reported). Never rejects.
   */
  open(): Promise<void> {
    const { serverId } = this.#where;
    return this.#resumability.store.open(serverId as string).then(
      (streamId) => {
        this.#streamId = streamId;
        this.#storing = true;
        if (this.#holdsId) this.#out.push({ eventId: eventId(streamId, 0), message: null });
        this.#stopWindow = windowOf(this.#resumability.windowMs, () => {
          this.#windowPassed = true;
          if (this.#holdsId) cut(this.#out);
        });
        this.#next();
      },
      (error: unknown) => {
        this.#report(error, this.#where);
        this.#next();
      },
    );
  }

  /** Whether many items wait for their turn (the database is slower than the app): the producer pauses. */
  get backlogged(): boolean {
    return this.#queue.length >= MAX_QUEUED;
  }

  take(item: StreamItem): void {
    this.#queue.push(item);
    if (!this.#busy) this.#next();
  }

  /** The stream is over: once what was taken is stored and sent, the stored stream ends, then the reply. */
  end(): void {
    this.#queue.push(END);
    if (!this.#busy) this.#next();
  }

  /** Sends what waits, up to the next message to store, which sends the rest once stored. */
  #next(): void {
    this.#busy = false;
    if (this.#queue.length >= MAX_QUEUED) queueMicrotask(() => this.producer.drained?.());
    for (let item = this.#queue.shift(); item !== undefined; item = this.#queue.shift()) {
      if (item === END) {
        this.#busy = true;
        this.#finish();
        return;
      }
      if (!isMessage(item) || !this.#storing) {
        this.#out.push(item);
        continue;
      }
      this.#busy = true;
      this.#store(item);
      return;
    }
  }

  #store(message: StreamMessage): void {
    this.#seq += 1;
    const seq = this.#seq;
    this.#resumability.store.append(this.#streamId, seq, message).then(
      () => {
        this.#out.push({ eventId: eventId(this.#streamId, seq), message });
        if (isResponse(message)) {
          // Nothing comes after the response, not even a `retry` hint.
          this.#responded = true;
          this.#stopWindow();
        } else if (!this.#holdsId) {
          this.#holdsId = true;
          if (this.#windowPassed) cut(this.#out);
        }
        this.#next();
      },
      (error: unknown) => {
        this.#giveUp(error);
        this.#out.push(message);
        this.#next();
      },
    );
  }

  #finish(): void {
    const done = (): void => {
      this.#stopWindow();
      this.#out.end();
    };
    if (!this.#storing) {
      done();
      return;
    }
    this.#resumability.store
      .end(this.#streamId, this.#resumability.retentionMs)
      .then(done, (error: unknown) => {
        this.#giveUp(error);
        done();
      });
  }

  /**
   * The live client still gets every message, to the end: the window no longer cuts a stream that
   * could not be resumed. Unless the response is stored, the stored stream ends at once and
   * expires, so that a resumption answers 404 instead of waiting for a response never stored.
   */
  #giveUp(error: unknown): void {
    const where: ErrorContext = { phase: 'dispatch', serverId: this.#where.serverId };
    this.#report(error, where);
    this.#stopWindow();
    if (!this.#storing) return;
    this.#storing = false;
    if (this.#responded) return;
    this.#resumability.store
      .end(this.#streamId, 0)
      .catch((endError: unknown) => this.#report(endError, where));
  }
}
