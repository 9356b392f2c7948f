import { newStreamId, type StoredEvent } from '../../store/stream-events.js';
import type { ErrorContext, ErrorReporter } from '../report.js';
import type { EventStream, StreamProducer } from './event-stream.js';
import { isMessage, isResponse, type StreamItem, type StreamMessage } from './events.js';
import { cut, eventId, type Resumability, windowOf } from './resumability.js';

const noWindow = (): void => {};

/**
 * How much may wait to be stored, in characters of JSON, before the producer is asked to pause
 * (`backlogged`): with the connection's buffer, what one stored reply holds when the database is
 * slower than the app.
 */
const MAX_UNSTORED = 512 * 1024;
/** At most this many events go into one insert. */
const MAX_BATCH = 100;

/**
 * A streamed reply made resumable (MCP 2025-03-26 Streamable HTTP, "Resumability and
 * redelivery"): every message gets an event id and is stored, and keeps being stored after the
 * client has gone, until the response, so that a `GET` with `Last-Event-ID` on any instance can
 * send the rest. When `primes` (from 2025-11-25), the first event primes the client with an id and
 * no data (SSE polling).
 *
 * The live client never waits for the database: each message goes out at once with its id, and
 * is stored behind it, in order, each write within `resolveTimeoutMs` (docs/http-contract.md,
 * "Resumable streams"). A write that fails or misses its deadline ends the storing: the stored
 * stream expires, and the live client gets the rest without ids (resumption is what degrades).
 */
export class Recording {
  readonly streamId = newStreamId();
  readonly #out: EventStream;
  readonly #resumability: Resumability;
  readonly #report: ErrorReporter;
  readonly #where: ErrorContext;
  readonly #producer: Pick<StreamProducer, 'drained'>;
  #seq = 0;
  /** Messages sent (or taken, once nobody reads them live) and not stored yet, in order. */
  #unstored: StoredEvent[] = [];
  /** Characters of JSON not stored yet, those being written included. */
  #unstoredChars = 0;
  /** The event number of the response, once taken; 0 before. */
  #responseSeq = 0;
  #storedSeq = 0;
  /** The stream's row is stored: a `GET` can find it. */
  #opened = false;
  /** Whether events are still stored: not once a write has failed, and the stream goes on live. */
  #storing = true;
  #writing = false;
  /** Everything is taken: the response, or a cancellation. */
  #ended = false;
  /** The stored stream is ended. */
  #closed = false;
  /** Whether what is taken still goes to the client: not once the window cut the stream. */
  #live = true;
  /** What waits to go out until the stream's row is stored, in order, with the event number of each message. */
  #held: { item: StreamItem | null; seq: number; data?: string }[] | undefined = [];
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
    /** Told when the stream takes more again, after `backlogged`. */
    producer: Pick<StreamProducer, 'drained'>,
    /** The request the stream answers, for a follower to answer if its run is lost. */
    readonly requestId: string | number,
  ) {
    this.#out = out;
    this.#resumability = resumability;
    this.#holdsId = primes;
    this.#report = report;
    this.#where = where;
    this.#producer = producer;
  }

  /** Whether the stream is being stored: the client going away then stops only what is sent to it. */
  get storing(): boolean {
    return this.#storing;
  }

  /** Whether much waits to be stored (the database is slower than the app): the producer pauses. */
  get backlogged(): boolean {
    return this.#storing && this.#unstoredChars >= MAX_UNSTORED;
  }

  /** Opens the stored stream; the reply may go out at once, its first event id once the row is stored. */
  open(): void {
    if (this.#holdsId) this.#send(null, 0);
    this.#stopWindow = windowOf(this.#resumability.windowMs, () => {
      this.#windowPassed = true;
      this.#cutIfResumable();
    });
    this.#write();
  }

  take(item: StreamItem): void {
    if (!isMessage(item) || !this.#storing) {
      this.#send(item, 0);
      return;
    }
    // Serialized first: a message that cannot be (too large) takes no event id.
    const data = JSON.stringify(item);
    this.#seq += 1;
    const seq = this.#seq;
    this.#unstored.push({ seq, data });
    this.#unstoredChars += data.length;
    if (isResponse(item)) this.#responseSeq = seq;
    this.#send(item, seq, data);
    this.#write();
  }

  /**
   * Sends an item to the live client: a message with its event id while the stream is stored
   * (`null` with 0: the priming event), anything else as it is. Until the stream's row is stored,
   * it waits, so that every id a client holds names a stream a `GET` can find.
   */
  #send(item: StreamItem | null, seq: number, data?: string): void {
    if (!this.#live) return;
    if (this.#held) {
      this.#held.push({ item, seq, data });
      return;
    }
    if (item === null) this.#out.push({ eventId: eventId(this.streamId, 0), message: null });
    else if (seq === 0 || !this.#storing) this.#out.push(item);
    else {
      this.#out.push({ eventId: eventId(this.streamId, seq), message: item as StreamMessage, data });
      this.#holdsId = true;
      this.#cutIfResumable();
    }
  }

  /** The row is stored, or will not be: what waited goes out, with ids only while the stream is stored. */
  #release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const { item, seq, data } of held) {
      if (item === null && !this.#storing) continue;
      this.#send(item, seq, data);
    }
    this.#endIfStored();
  }

  /**
   * The reply's body ends once the stored stream has ended too (or storing gave up), so that a
   * `GET` after the last event finds the stream ended; everything taken has gone out already.
   */
  #endIfStored(): void {
    if (!this.#ended || !this.#live || this.#held !== undefined) return;
    if (this.#storing && !this.#closed) return;
    this.#live = false;
    this.#out.end();
  }

  /** The stream is over: once what was taken is stored, the stored stream ends, then the reply. */
  end(): void {
    this.#ended = true;
    // Nothing comes after the response, not even a `retry` hint.
    this.#stopWindow();
    this.#write();
    this.#endIfStored();
  }

  /** The next write, once the one before is done: the stream's row, then its events in order, then its end. */
  #write(): void {
    if (this.#writing || !this.#storing) return;
    const { store, retentionMs, deadlines, leases } = this.#resumability;
    let work: Promise<void>;
    let done: () => void;
    if (!this.#opened) {
      work = store.open(this.streamId, this.#where.serverId as string, this.requestId, leases.leaseMs);
      done = () => {
        this.#opened = true;
        leases.hold(this.streamId);
        this.#release();
        this.#cutIfResumable();
      };
    } else if (this.#unstored.length > 0) {
      const batch = this.#unstored.splice(0, MAX_BATCH);
      work = store.append(this.streamId, batch);
      done = () => {
        for (const { data } of batch) this.#unstoredChars -= data.length;
        this.#storedSeq = (batch.at(-1) as StoredEvent).seq;
        this.#producer.drained?.();
      };
    } else if (this.#ended && !this.#closed) {
      work = store.end(this.streamId, retentionMs);
      done = () => {
        this.#closed = true;
        leases.release(this.streamId);
        this.#endIfStored();
      };
    } else return;
    this.#writing = true;
    deadlines.within(work).then(
      () => {
        this.#writing = false;
        done();
        this.#write();
      },
      (error: unknown) => {
        this.#writing = false;
        this.#giveUp(error);
      },
    );
  }

  /**
   * Once the window has passed, the stream ends with a `retry` hint, for the client to resume with
   * `GET`: only while it is stored, once a `GET` can find it, and once the client holds an id.
   */
  #cutIfResumable(): void {
    if (!this.#windowPassed || !this.#live || !this.#holdsId || !this.#opened || !this.#storing) return;
    if (this.#responseSeq > 0) return;
    this.#live = false;
    cut(this.#out);
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
    this.#storing = false;
    this.#unstored = [];
    this.#unstoredChars = 0;
    this.#resumability.leases.release(this.streamId);
    this.#release();
    this.#producer.drained?.();
    if (this.#responseSeq > 0 && this.#storedSeq >= this.#responseSeq) return;
    this.#resumability.store
      .end(this.streamId, 0)
      .catch((endError: unknown) => this.#report(endError, where));
  }
}
