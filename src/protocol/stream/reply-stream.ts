import { errorBody, type McpError } from '../../errors/mcp-error.js';
import type { AppProgress, RunObserver } from '../../tool/observer.js';
import { type Delayed, DelayQueue } from '../../util/delay-queue.js';
import { primesStreams, resumesStreams } from '../../versions.js';
import type { RequestId } from '../messages.js';
import {
  errorReply,
  jsonReply,
  type LaterReply,
  type NowReply,
  type ReplySink,
  resultResponse,
} from '../reply.js';
import type { ErrorReporter } from '../report.js';
import type { EndpointRequest } from '../request.js';
import { appIdOf, type ServingTarget } from '../target.js';
import { EventStream, type StreamProducer } from './event-stream.js';
import { EVENT_STREAM_HEADERS, KEEP_ALIVE, type StreamItem, type StreamMessage } from './events.js';
import { ProgressNotes, progressTokenOf } from './progress.js';
import { Recording } from './recording.js';
import type { Resumability } from './resumability.js';

/** Turns a failure of the call into what its client may see (`EraContext.opaque`). */
export interface CallFailures {
  opaque(error: unknown, id: RequestId | null, target?: ServingTarget): McpError;
}

/** What the reply streams of one core share, made once (`replyStreams`). */
export interface ReplyStreams {
  /** Where streamed calls wait for their next heartbeat, `heartbeatMs` apart; none for 0. */
  heartbeats: DelayQueue<ReplyStream> | undefined;
  /** Where streamed replies are kept for `GET` with `Last-Event-ID`; none: they are not resumable. */
  resumability: Resumability | undefined;
  report: ErrorReporter;
}

export function replyStreams(
  heartbeatMs: number,
  resumability: Resumability | undefined,
  report: ErrorReporter,
): ReplyStreams {
  return { heartbeats: ReplyStream.heartbeats(heartbeatMs), resumability, report };
}

/**
 * - `open`: nothing said yet; the reply is JSON if the result comes first, a stream otherwise;
 * - `json`: the call was cancelled before anything was said: it answers JSON, as before;
 * - `streaming`: the reply is a stream, its response still to come;
 * - `over`: the response is out, or nobody reads the stream any more.
 */
type Phase = 'open' | 'json' | 'streaming' | 'over';

/**
 * The reply of one `tools/call` that may stream (docs/http-contract.md, "Long runs"), from its
 * first byte to its last, in both eras. It starts as JSON and stays JSON when the run finishes
 * before there is anything else to say, at the cost of one timer. It becomes an event stream when,
 * before the result, something is said (`say`): the app reports progress for the request's
 * progress token, or `heartbeatMs` passes. Then what is said goes out as it comes, stored first
 * when the stream is resumable (`Recording`), and the JSON-RPC response last; nothing after it. A
 * `notifications/cancelled` ends a stream without a response (MCP "Cancellation": no response to a
 * cancelled request). The HTTP layer gets the reply (`deliver`), and for a stream only writes the
 * text it is handed (`EventStream`).
 */
export class ReplyStream implements RunObserver, StreamProducer, LaterReply {
  #phase: Phase = 'open';
  readonly #streams: ReplyStreams;
  /** This call's place among the heartbeats: moved on whenever something is sent. */
  readonly #beat: Delayed<ReplyStream> | undefined;
  #out: EventStream | undefined;
  /** Stores the stream for resumption, when it is resumable. */
  #recording: Recording | undefined;
  /** Where the reply goes once it is known (`deliver`); until then, the reply if it is known first. */
  #sink: ReplySink | undefined;
  #known: NowReply | undefined;
  /** How a failure of the call's work is told; kept rather than wrapped around the work, for as long as the run. */
  #failures: CallFailures | undefined;
  /** Lets the run take the app's next event, while it waits for the stream to take more (`ready`). */
  #resume: (() => void) | undefined;
  #waiting: Promise<void> | undefined;

  constructor(
    readonly id: RequestId,
    readonly notes: ProgressNotes | undefined,
    readonly target: ServingTarget,
    /** Whether the stream, if there is one, is kept for resumption (and primes its client, `true`). */
    readonly resumable: false | { primes: boolean },
    streams: ReplyStreams,
  ) {
    this.#streams = streams;
    this.#beat = streams.heartbeats?.add(this);
  }

  static heartbeats(heartbeatMs: number): DelayQueue<ReplyStream> | undefined {
    return heartbeatMs > 0 ? new DelayQueue(heartbeatMs, ReplyStream.#onSilence) : undefined;
  }

  #stopBeating(): void {
    if (this.#beat) this.#streams.heartbeats?.remove(this.#beat);
  }

  /**
   * The reply, known later: JSON when `work` settles first (a failure is its error reply, as for
   * any request), else the stream, which then ends with the response or the error of `work`.
   * Failures of `work` are told as `failures` says.
   */
  reply(work: Promise<unknown>, failures: CallFailures): { kind: 'later'; reply: LaterReply } {
    this.#failures = failures;
    work.then(this.#onResult, this.#onFailure);
    return { kind: 'later', reply: this };
  }

  deliver(sink: ReplySink): void {
    this.#sink = sink;
    this.#handOver();
  }

  #answer(reply: NowReply): void {
    this.#known = reply;
    this.#handOver();
  }

  /** The reply to its sink, once both are there, whichever came first. */
  #handOver(): void {
    const sink = this.#sink;
    const known = this.#known;
    if (sink === undefined || known === undefined) return;
    this.#sink = undefined;
    this.#known = undefined;
    sink.reply(known);
  }

  // Fields rather than methods: they are the callbacks of the work's promise, which nothing else
  // handles: whatever fails in them (writing a reply that cannot be serialized) is this call's failure,
  // never the process's (docs/http-contract.md, "The tool").
  readonly #onResult = (result: unknown): void => {
    const response = resultResponse(this.id, result);
    if (this.#settle()) this.#answerSafely(jsonReply(200, response));
    else this.#last(response.message);
  };

  readonly #onFailure = (error: unknown): void => {
    // `#failures` is set by `reply`, which is what attaches this callback.
    const failure = (this.#failures as CallFailures).opaque(error, this.id, this.target);
    if (this.#settle()) this.#answerSafely(errorReply(failure));
    else this.#last(errorBody(failure, this.id));
  };

  /**
   * The JSON reply to the sink. Writing it is the sink's, and so is answering its own failure (the
   * HTTP layer writes an internal error); one that still throws is reported here.
   */
  #answerSafely(reply: NowReply): void {
    try {
      this.#answer(reply);
    } catch (error) {
      const where = {
        phase: 'dispatch',
        serverId: this.target.server.id,
        appId: appIdOf(this.target),
      } as const;
      this.#streams.report(error, where);
    }
  }

  progress(report: AppProgress): void {
    if (this.notes === undefined || !this.#saying) return;
    const notification = this.notes.fromApp(report);
    if (notification !== null) this.say(notification);
  }

  /**
   * While the stream is full (its client does not read, or its events wait to be stored), the run
   * waits before it takes the app's next event: one reply holds little however much the app says.
   */
  ready(): Promise<void> | undefined {
    if (!this.#full) return undefined;
    this.#waiting ??= new Promise<void>((resolve) => {
      this.#resume = resolve;
    });
    return this.#waiting;
  }

  get #full(): boolean {
    if (this.#phase !== 'streaming') return false;
    return !(this.#out as EventStream).writable || (this.#recording?.backlogged ?? false);
  }

  /** The stream takes more (`StreamProducer`), or there is no stream to wait for any more. */
  drained(): void {
    if (this.#resume === undefined || this.#full) return;
    const resume = this.#resume;
    this.#resume = undefined;
    this.#waiting = undefined;
    resume();
  }

  cancelled(): void {
    this.#stopBeating();
    if (this.#phase === 'open') this.#phase = 'json';
    else if (this.#phase === 'streaming') {
      this.#phase = 'over';
      this.#end();
    }
    this.drained();
  }

  get #saying(): boolean {
    return this.#phase === 'open' || this.#phase === 'streaming';
  }

  static #onSilence(call: ReplyStream): void {
    if (!call.#saying) return;
    // A stream its client does not read has nothing to prove to proxies: it is not silent.
    if (call.#full) {
      if (call.#beat) call.#streams.heartbeats?.refresh(call.#beat);
      return;
    }
    call.say(call.notes?.heartbeat() ?? KEEP_ALIVE);
  }

  /**
   * Sends `item` on the call's stream before its response, making the reply a stream if it is
   * not one yet: progress, a heartbeat, or any message the server has for the client meanwhile.
   * Nothing once the response is out or nobody reads the stream.
   */
  say(item: StreamMessage | typeof KEEP_ALIVE): void {
    if (!this.#saying) return;
    if (this.#beat) this.#streams.heartbeats?.refresh(this.#beat);
    if (this.#phase !== 'streaming') this.#open();
    this.#send(item);
  }

  /** The reply becomes an event stream, handed over at once; a resumable one is stored behind it. */
  #open(): void {
    this.#phase = 'streaming';
    const out = new EventStream(this);
    this.#out = out;
    const reply: NowReply = { kind: 'stream', status: 200, headers: EVENT_STREAM_HEADERS, stream: out };
    const { resumability, report } = this.#streams;
    if (this.resumable === false || resumability === undefined) {
      this.#answer(reply);
      return;
    }
    const where = {
      phase: 'dispatch',
      serverId: this.target.server.id,
      appId: appIdOf(this.target),
    } as const;
    const recording = new Recording(out, resumability, this.resumable.primes, report, where, this, this.id);
    this.#recording = recording;
    recording.open();
    this.#answer(reply);
  }

  #send(item: StreamItem): void {
    if (this.#recording) this.#recording.take(item);
    else this.#out?.push(item);
  }

  #end(): void {
    if (this.#recording) this.#recording.end();
    else this.#out?.end();
  }

  /** The result is in; `true` when it is still to be answered as JSON. */
  #settle(): boolean {
    this.#stopBeating();
    const phase = this.#phase;
    if (phase === 'streaming') return false;
    this.#phase = 'over';
    return phase !== 'over';
  }

  /** The response as the stream's last event, unless nobody reads the stream any more. */
  #last(message: StreamMessage): void {
    if (this.#phase !== 'streaming') return;
    this.#phase = 'over';
    try {
      this.#send(message);
    } catch (error) {
      // The response could not be serialized: the stream ends with an internal error, its cause reported.
      const failure = (this.#failures as CallFailures).opaque(error, this.id, this.target);
      this.#send(errorBody(failure, this.id));
    }
    this.#end();
    this.drained();
  }

  /**
   * The client went away: nothing more to send (whether that stops the run is the era's call).
   * A stored stream goes on being stored, for the client to resume.
   */
  readerGone(): void {
    if (!this.#recording?.storing) {
      this.#stopBeating();
      this.#phase = 'over';
    }
    this.drained();
  }
}

/**
 * The live reply of a `tools/call`, when it may stream: the client accepts an event stream, and the
 * run may have something to say before its result (progress for a token, or heartbeats).
 * `undefined` otherwise: the reply is JSON, at no extra cost.
 */
export function openReplyStream(
  request: EndpointRequest<unknown>,
  id: RequestId,
  params: Record<string, unknown>,
  protocolVersion: string,
  target: ServingTarget,
  streams: ReplyStreams,
  /** Whether the run may ask its client's person, which needs the stream (MCP 2025-06-18 "Elicitation"). */
  mayAsk = false,
): ReplyStream | undefined {
  if (request.acceptsEventStream !== true) return undefined;
  const token = progressTokenOf(params);
  if (token === undefined && streams.heartbeats === undefined && !mayAsk) return undefined;
  const notes = token === undefined ? undefined : new ProgressNotes(token, protocolVersion);
  const resumes = streams.resumability !== undefined && resumesStreams(protocolVersion);
  return new ReplyStream(id, notes, target, resumes && { primes: primesStreams(protocolVersion) }, streams);
}
