import { type Delayed, DelayQueue } from '../delay-queue.js';
import type { AppProgress, RunObserver } from '../tool/observer.js';
import { errorBody, type McpError } from './errors.js';
import type { RequestId } from './messages.js';
import { ProgressNotes, progressTokenOf } from './progress.js';
import { PushQueue, type QueueProducer } from './push-queue.js';
import {
  type EndpointReply,
  errorReply,
  jsonReply,
  KEEP_ALIVE,
  type LaterReply,
  type NowReply,
  type ReplySink,
  resultResponse,
  type StreamItem,
} from './reply.js';
import type { EndpointRequest } from './request.js';
import type { ServingTarget } from './target.js';

/** Turns a failure of the call into what its client may see (`EraContext.opaque`). */
export interface CallFailures {
  opaque(error: unknown, id: RequestId | null, target?: ServingTarget): McpError;
}

/**
 * - `open`: nothing said yet; the reply is JSON if the result comes first, a stream otherwise;
 * - `json`: the call was cancelled before anything was said: it answers JSON, as before;
 * - `streaming`: the reply is a stream, its response still to come;
 * - `over`: the response is out, or nobody reads the stream any more.
 */
type Phase = 'open' | 'json' | 'streaming' | 'over';

/**
 * The reply of one `tools/call` that may stream (docs/http-contract.md, "Long runs"). It starts
 * as JSON and stays JSON when the run finishes before there is anything else to say, at the cost of
 * one timer. It becomes an event stream when, before the result, the app reports progress for the
 * request's progress token, or `heartbeatMs` passes: then the progress notifications and heartbeats
 * go out as they come, and the JSON-RPC response last; nothing after it. A
 * `notifications/cancelled` ends a stream without a response (MCP "Cancellation": no response to a
 * cancelled request).
 */
export class LiveCall implements RunObserver, QueueProducer, LaterReply {
  #phase: Phase = 'open';
  readonly #heartbeats: DelayQueue<LiveCall> | undefined;
  /** This call's place among the heartbeats: moved on whenever something is sent. */
  readonly #beat: Delayed<LiveCall> | undefined;
  #stream: PushQueue<StreamItem> | undefined;
  /** Where the reply goes once it is known (`deliver`); until then, the reply if it is known first. */
  #sink: ReplySink | undefined;
  #known: NowReply | undefined;
  /** How a failure of the call's work is told; kept rather than wrapped around the work, for as long as the run. */
  #failures: CallFailures | undefined;
  #target: ServingTarget | undefined;

  constructor(
    readonly id: RequestId,
    readonly notes: ProgressNotes | undefined,
    heartbeats: DelayQueue<LiveCall> | undefined,
  ) {
    this.#heartbeats = heartbeats;
    this.#beat = heartbeats?.add(this);
  }

  /** Where the calls of one core wait for their next heartbeat, `heartbeatMs` apart; none for 0. */
  static heartbeats(heartbeatMs: number): DelayQueue<LiveCall> | undefined {
    return heartbeatMs > 0 ? new DelayQueue(heartbeatMs, LiveCall.#onSilence) : undefined;
  }

  #stopBeating(): void {
    if (this.#beat) this.#heartbeats?.remove(this.#beat);
  }

  /**
   * The reply, known later: JSON when `work` settles first (a failure is its error reply, as for
   * any request), else the stream, which then ends with the response or the error of `work`.
   * Failures of `work` are told as `failures` says, for `target`.
   */
  reply(work: Promise<unknown>, failures: CallFailures, target: ServingTarget): EndpointReply {
    this.#failures = failures;
    this.#target = target;
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

  // Fields rather than methods: they are the callbacks of the work's promise.
  readonly #onResult = (result: unknown): void => {
    const response = resultResponse(this.id, result);
    if (this.#settle()) this.#answer(jsonReply(200, response));
    else this.#last(response.message);
  };

  readonly #onFailure = (error: unknown): void => {
    // `#failures` is set by `reply`, which is what attaches this callback.
    const failure = (this.#failures as CallFailures).opaque(error, this.id, this.#target);
    if (this.#settle()) this.#answer(errorReply(failure));
    else this.#last(errorBody(failure, this.id));
  };

  progress(report: AppProgress): void {
    if (this.notes === undefined || !this.#saying) return;
    const notification = this.notes.fromApp(report);
    if (notification !== null) this.#say(notification);
  }

  cancelled(): void {
    this.#stopBeating();
    if (this.#phase === 'open') this.#phase = 'json';
    else if (this.#phase === 'streaming') {
      this.#phase = 'over';
      this.#stream?.end();
    }
  }

  get #saying(): boolean {
    return this.#phase === 'open' || this.#phase === 'streaming';
  }

  static #onSilence(call: LiveCall): void {
    if (!call.#saying) return;
    call.#say(call.notes?.heartbeat() ?? KEEP_ALIVE);
  }

  #say(item: StreamItem): void {
    if (this.#beat) this.#heartbeats?.refresh(this.#beat);
    if (this.#phase === 'streaming') {
      this.#stream?.push(item);
      return;
    }
    this.#phase = 'streaming';
    const stream = new PushQueue<StreamItem>(this);
    this.#stream = stream;
    stream.push(item);
    this.#answer({ kind: 'stream', status: 200, messages: stream });
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
  #last(message: StreamItem): void {
    if (this.#phase !== 'streaming') return;
    this.#phase = 'over';
    this.#stream?.push(message);
    this.#stream?.end();
  }

  /** The client went away: nothing more to send (whether that stops the run is the era's call). */
  readerGone(): void {
    this.#stopBeating();
    this.#phase = 'over';
  }
}

/**
 * The live reply of a `tools/call`, when it may stream: the client accepts an event stream, and the
 * run may have something to say before its result (progress for a token, or heartbeats).
 * `undefined` otherwise: the reply is JSON, at no extra cost.
 */
export function openLiveCall(
  request: EndpointRequest<unknown>,
  id: RequestId,
  params: Record<string, unknown>,
  protocolVersion: string,
  heartbeats: DelayQueue<LiveCall> | undefined,
): LiveCall | undefined {
  if (request.acceptsEventStream !== true) return undefined;
  const token = progressTokenOf(params);
  if (token === undefined && heartbeats === undefined) return undefined;
  const notes = token === undefined ? undefined : new ProgressNotes(token, protocolVersion);
  return new LiveCall(id, notes, heartbeats);
}
