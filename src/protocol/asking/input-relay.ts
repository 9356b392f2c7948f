import type { Farm } from '../../store/farm/farm.js';
import { newStreamId, type StreamEventStore } from '../../store/stream-events.js';
import { type ClientAnswer, InputRequired, type Round } from '../../tool/ask.js';
import { callScope, subjectOf } from '../../tool/inflight.js';
import type { AppProgress, RunObserver } from '../../tool/observer.js';
import { isJsonObject, parseJsonObject } from '../../util/plain-object.js';
import type { RequestId } from '../messages.js';
import type { ErrorReporter } from '../report.js';
import { ignoreClose, type ToolCall } from '../tool-call.js';
import type { WaitingQuestions } from './elicitation.js';
import {
  invalidRequestState,
  NO_WAITING_RUN,
  type ParkedRuns,
  type RoundsAsker,
  type StateOfRun,
} from './input-required.js';

/** How long a retry waits for the instance that runs its run to take it, before it names no run. */
const TAKE_WITHIN_MS = 3000;
/** A retry's follower reads its stream at least this often, in case an announcement was lost. */
const FOLLOW_POLL_MS = 1000;
/** How long a stored answer is kept for the instance that takes it. */
const STORED_ANSWER_MS = 60_000;
/** The lease of a relay's stream: no instance renews it, and only the relay that opened it reads it. */
const RELAY_LEASE_MS = 3_600_000;
/** An answer this long or longer goes through a stored stream rather than in the notification. */
const INLINE_BYTES = 7000;

/** The first event of a relayed retry's stream: the retry itself. */
type RetryEvent = { id: RequestId; inputResponses: Record<string, unknown> };

/** The events of a stream that carries a retry from the instance it reached to the one that runs it. */
type RoundEvent =
  | RetryEvent // 1: the retry
  | { taken: true } // 2: the run's instance took it
  | { progress: AppProgress }
  | { result: unknown }
  | { input: Record<string, unknown> };

/**
 * Input for runs that wait on another instance of a farm (docs/asking-a-person.md, "Several
 * instances"): an answer POSTed to this instance is announced through PostgreSQL to the one whose
 * question waits for it (in the notification, or stored when it is long); a 2026-07-28 retry is
 * stored as the first event of a stream, announced, and served from that stream's events, which
 * the run's instance writes as the run goes on: taken, progress, then its next pause or its result.
 */
export class InputRelay {
  constructor(
    readonly farm: Farm,
    readonly streams: StreamEventStore,
    readonly waiting: WaitingQuestions,
    readonly parked: ParkedRuns,
    readonly report: ErrorReporter,
  ) {
    farm.onInput((payload) => this.#heard(payload));
  }

  /** An answer to a question that waits on no run of this instance. */
  answer(serverId: string, id: RequestId, reply: ClientAnswer): void {
    const inline = JSON.stringify({ k: 'answer', s: serverId, q: id, a: reply });
    const sending =
      Buffer.byteLength(inline) < INLINE_BYTES
        ? this.farm.publishInput(inline)
        : this.#stored(serverId, reply).then(async (st) => {
            await this.streams.end(st, STORED_ANSWER_MS);
            await this.farm.publishInput(JSON.stringify({ k: 'answer', s: serverId, q: id, st }));
          });
    sending.catch((error: unknown) => this.report(error, { phase: 'dispatch', serverId }));
  }

  async #stored(serverId: string, message: unknown, requestId: RequestId = 0): Promise<string> {
    const streamId = newStreamId();
    // No instance renews a relay's stream: its lease only has to outlast the round it carries.
    await this.streams.open(streamId, serverId, requestId, RELAY_LEASE_MS);
    await this.streams.append(streamId, [{ seq: 1, data: JSON.stringify(message) }]);
    return streamId;
  }

  /** A retry whose run does not wait here: served from what the run's instance writes, if one takes it. */
  async remote(call: ToolCall<unknown>, state: StateOfRun): Promise<unknown> {
    const serverId = call.target.server.id;
    const given = call.params.inputResponses;
    const first: RetryEvent = { id: call.id, inputResponses: isJsonObject(given) ? given : {} };
    const streamId = await this.#stored(serverId, first, call.id);
    await this.farm.publishInput(
      JSON.stringify({ k: 'resume', s: serverId, r: state.runId, n: state.round, st: streamId }),
    );
    return new RoundFollower(this, call, streamId).promise;
  }

  #heard(payload: string): void {
    // Anything else is not ours: another program on the same channel.
    const message = parseJsonObject(payload);
    if (message === null || typeof message.s !== 'string') return;
    const serverId = message.s;
    const failed = (error: unknown) => this.report(error, { phase: 'dispatch', serverId });
    if (message.k === 'answer' && (typeof message.q === 'string' || typeof message.q === 'number')) {
      const id = message.q;
      if (isJsonObject(message.a)) this.waiting.answer(serverId, id, message.a as ClientAnswer);
      else if (typeof message.st === 'string')
        this.streams.read(message.st, serverId, 0).then((read) => {
          const stored = read?.events[0]?.message;
          if (isJsonObject(stored)) this.waiting.answer(serverId, id, stored as ClientAnswer);
        }, failed);
    } else if (message.k === 'resume' && typeof message.r === 'string' && typeof message.st === 'string') {
      const asker = this.parked.get(message.r);
      if (asker === undefined || asker.round !== message.n || asker.call.server.id !== serverId) return;
      new RemoteRound(this, message.st, serverId).take(asker).catch(failed);
    }
  }
}

/** This instance runs the run a retry on another instance resumes: what the run does goes into the retry's stream. */
class RemoteRound implements RunObserver {
  #seq = 1;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    readonly relay: InputRelay,
    readonly streamId: string,
    readonly serverId: string,
  ) {}

  async take(asker: RoundsAsker): Promise<void> {
    const read = await this.relay.streams.read(this.streamId, this.serverId, 0);
    const retry = read?.events[0]?.message as RetryEvent | undefined;
    // Another instance may have taken it first (an announcement heard twice), or the run moved on meanwhile.
    if (!retry || read?.events.length !== 1 || this.relay.parked.get(asker.runId) !== asker) return;
    this.#write({ taken: true });
    // The retry's client is on another instance: its disconnect reaches the run as a farm cancel.
    const round: Round = { id: retry.id, onClosed: ignoreClose, observer: this };
    asker.resume(round, retry.inputResponses).then((outcome) => {
      this.#write(outcome instanceof InputRequired ? { input: outcome.result } : { result: outcome });
      this.#writing = this.#writing.then(() => this.relay.streams.end(this.streamId, 60_000));
    });
  }

  progress(report: AppProgress): void {
    this.#write({ progress: report });
  }

  cancelled(): void {}

  /** Events are stored one after another, in the order the run produced them. */
  #write(event: RoundEvent): void {
    this.#seq += 1;
    const seq = this.#seq;
    this.#writing = this.#writing
      .then(() => this.relay.streams.append(this.streamId, [{ seq, data: JSON.stringify(event) }]))
      .catch((error: unknown) => this.relay.report(error, { phase: 'dispatch', serverId: this.serverId }));
  }
}

/** The instance a retry reached: reads what the run's instance writes, and settles the retry's reply with it. */
class RoundFollower {
  readonly promise: Promise<unknown>;
  #resolve!: (outcome: unknown) => void;
  #reject!: (error: unknown) => void;
  #last = 1;
  #taken = false;
  #done = false;
  #reading = false;
  #again = false;
  readonly #unwatch: () => void;
  readonly #poller: NodeJS.Timeout;
  readonly #giveUp: NodeJS.Timeout;
  readonly #unwatchClose: () => void;

  constructor(
    readonly relay: InputRelay,
    readonly call: ToolCall<unknown>,
    readonly streamId: string,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#unwatch = relay.streams.watch(streamId, () => this.#follow());
    this.#poller = setInterval(() => this.#follow(), FOLLOW_POLL_MS);
    this.#giveUp = setTimeout(() => {
      if (this.#taken) return;
      this.#finish();
      relay.streams
        .end(streamId, 0)
        .catch((error: unknown) =>
          relay.report(error, { phase: 'dispatch', serverId: call.target.server.id }),
        );
      this.#reject(invalidRequestState(NO_WAITING_RUN, call.id));
    }, TAKE_WITHIN_MS);
    // MCP 2026-07-28: closing this reply cancels the run, wherever it runs.
    this.#unwatchClose = call.onClosed(() => {
      this.#finish();
      const scope = callScope(call.target.server.id, subjectOf(call.target.caller));
      relay.farm
        .publishCancel(scope, call.id)
        .catch((error: unknown) => relay.report(error, { phase: 'dispatch' }));
    });
    this.#follow();
  }

  #finish(): void {
    this.#done = true;
    this.#unwatch();
    this.#unwatchClose();
    clearInterval(this.#poller);
    clearTimeout(this.#giveUp);
  }

  #follow(): void {
    if (this.#done) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    this.#read().then(
      () => {
        this.#reading = false;
        if (this.#again && !this.#done) {
          this.#again = false;
          this.#follow();
        }
      },
      (error: unknown) => {
        this.#reading = false;
        this.#finish();
        this.#reject(error);
      },
    );
  }

  async #read(): Promise<void> {
    const read = await this.relay.streams.read(this.streamId, this.call.target.server.id, this.#last);
    for (const { seq, message } of read?.events ?? []) {
      if (this.#done) return;
      this.#last = seq;
      const event = message as RoundEvent;
      if ('taken' in event) this.#taken = true;
      else if ('progress' in event) this.call.observer?.progress(event.progress);
      else if ('result' in event || 'input' in event) {
        this.#finish();
        this.#resolve('input' in event ? new InputRequired(event.input) : event.result);
      }
    }
  }
}
