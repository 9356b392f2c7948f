import { CallCancelled, CallTimeout } from '../errors/call-stopped.js';
import { isAppRunError, isHumanInputUnavailable, TooManyWaitingRuns } from '../errors/package-errors.js';
import type { AppRun, AskAnswer, AskOptions, EndUser, RunApp } from '../types/index.js';
import { type Delayed, DelayQueue } from '../util/delay-queue.js';
import { appRunOf, type RunHandle } from './app-run.js';
import { DEFAULT_HUMAN_INPUT_TIMEOUT_MS, HumanInput, type InputRequired, type Round } from './ask.js';
import { type CallToolResult, errorResult, resultOf } from './call.js';
import { fromEvents, fromPlainResult, isAsyncIterable, type Produced } from './collect.js';
import type { ToolFeatures } from './features.js';
import { type CallId, callScope, InflightCalls } from './inflight.js';
import { type AppProgress, type CallObservation, outcomeOf, type RunObserver } from './observer.js';
import { RunStop } from './stop.js';
import type { AppTool } from './tool.js';
import type { ToolRun, ToolRunsOptions } from './tool-run.js';

export type { ToolRun, ToolRunsOptions } from './tool-run.js';

/**
 * Runs a server's tool and keeps the runs in progress, so that a cancellation can stop the matching
 * ones. One stopper stops a run, whoever stops it first: the client closing the response, a
 * `notifications/cancelled`, or the timeout, each with its own reason (`AbortSignal.any` and a
 * controller per cause cost more than the rest of a call).
 */
export function createToolRuns<HostRequest>(options: ToolRunsOptions<HostRequest>) {
  const { callTimeoutMs } = options;
  const shared: SharedRuns<HostRequest> = {
    options,
    inflight: new InflightCalls(options.announcer),
    timeouts:
      callTimeoutMs > 0
        ? new DelayQueue<RunStop>(callTimeoutMs, (run) => run.stop(new CallTimeout(callTimeoutMs)))
        : undefined,
    waitingRuns: 0,
  };
  const { inflight } = shared;
  return {
    /** Runs the app once and shapes its result (README, "runApp, mode by mode"); never rejects for the app's sake. */
    start(call: ToolRun<HostRequest>): Promise<CallToolResult | InputRequired> {
      return new Promise((resolve, reject) => {
        new ToolCallRun(call, shared, resolve, reject);
      });
    },

    /** Stops every matching run of the same scope (`callScope`) in this process; `false` when none runs here. */
    cancel(scope: string, id: CallId): boolean {
      return inflight.cancel(scope, id, new CallCancelled());
    },
  };
}

/** What every run of one `createToolRuns` shares. */
interface SharedRuns<HostRequest> {
  options: ToolRunsOptions<HostRequest>;
  inflight: InflightCalls;
  /** Where runs wait for `callTimeoutMs`; none when it is 0. */
  timeouts: DelayQueue<RunStop> | undefined;
  /** How many runs wait for a person now, against `maxWaitingRuns`. */
  waitingRuns: number;
}

/**
 * One run of a `tools/call`, from the app's start to the shaped result, as a single object:
 * a call waits as long as its app, and everything it holds meanwhile is held by each open call
 * (README, "Long runs"), so there is no chain of pending async functions and no closure per step.
 * The first of the app's result and a stop settles the call; whatever comes after is ignored, whether
 * or not the app honours its signal. A run whose client has already gone never starts the app.
 */
class ToolCallRun<HostRequest> extends RunStop implements RunHandle, RunObserver {
  /** The protocol's record of the call, for the asker made on first use; dropped then, as it holds the request. */
  #asks: unknown;
  readonly #tool: AppTool;
  readonly #features: ToolFeatures;
  /** Follows the run for the reply of the request open now (the call's, or a later round's). */
  #observer: RunObserver | undefined;
  readonly #observed: CallObservation | undefined;
  readonly #shared: SharedRuns<HostRequest>;
  #run: AppRun<HostRequest> | undefined = undefined;
  #inflightKey = '';
  #unwatch: (() => void) | undefined = undefined;
  /** Settles the reply of the request open now; none while the run waits for a later round. */
  #resolve: ((outcome: CallToolResult | InputRequired) => void) | undefined;
  /** Whether the run has its outcome: the result is known, or it was stopped. */
  #done = false;
  /** Asking a person, made when the app first reads `run.canAsk` or `run.ask`. */
  #human: HumanInput | undefined = undefined;
  #ask: ((options: AskOptions) => Promise<AskAnswer>) | undefined = undefined;
  /** Only for a failure before the run, the end user's lookup: the app's own failures are results. */
  #reject: ((error: unknown) => void) | undefined;
  /** This run's place among the call timeouts; `null` while it waits for a person; never one for an untimed run. */
  #deadline: Delayed<RunStop> | null | undefined = undefined;
  #appFailed = false;

  constructor(
    call: ToolRun<HostRequest>,
    shared: SharedRuns<HostRequest>,
    resolve: (outcome: CallToolResult | InputRequired) => void,
    reject: (error: unknown) => void,
  ) {
    super();
    this.#asks = call.asks;
    this.#tool = call.tool;
    this.#features = call.features;
    this.#observer = call.observer;
    this.#observed = call.observed;
    this.#shared = shared;
    this.#resolve = resolve;
    this.#reject = reject;
    const { endUser } = call;
    if (!(endUser instanceof Promise)) {
      this.#begin(call, endUser);
      return;
    }
    endUser.then(
      (known) => this.#begin(call, known),
      (error: unknown) => {
        this.#resolve = undefined;
        this.#done = true;
        this.#observed?.finish('failed');
        this.#reject?.(error);
      },
    );
  }

  #begin(call: ToolRun<HostRequest>, endUser: EndUser): void {
    this.#reject = undefined;
    this.#observed?.attribute(endUser);
    this.#run = appRunOf(call, endUser, this);
    this.#inflightKey = this.#shared.inflight.add(
      callScope(call.server.id, call.auth?.subject),
      call.runKey ?? call.id,
      this,
    );
    // May stop the run at once, when the client has already gone.
    this.#unwatch = call.onClosed(() => this.stop());
    if (this.stopped) return;
    if (!call.untimed) this.#deadline = this.#shared.timeouts?.add(this);
    this.#start(this.#run);
  }

  #start(run: AppRun<HostRequest>): void {
    const { runApp } = this.#shared.options;
    const observed = this.#observed;
    let running: ReturnType<RunApp<HostRequest>>;
    try {
      running = observed ? observed.run(() => runApp(run)) : runApp(run);
    } catch (error) {
      this.#failed(error);
      return;
    }
    const fail = (error: unknown) => this.#failed(error);
    Promise.resolve(running).then((result) => {
      if (this.#done) return;
      if (!isAsyncIterable(result)) {
        this.#produced(fromPlainResult(run.app.mode, result));
        return;
      }
      fromEvents(run.app.mode, result, this, this, this.#shared.options.maxResultBytes).then(
        (produced) => this.#produced(produced),
        fail,
      );
    }, fail);
  }

  /** `RunObserver`: the app's progress goes to the reply of the request open now. */
  progress(report: AppProgress): void {
    this.#observer?.progress(report);
  }

  cancelled(): void {
    this.#observer?.cancelled();
  }

  /** `RunObserver`: the app's next event waits while the reply of the request open now cannot take it. */
  ready(): Promise<void> | undefined {
    return this.#observer?.ready?.();
  }

  #produced(produced: Produced): void {
    if (this.#done) return;
    let result: CallToolResult;
    try {
      result = resultOf(produced, this.#tool, this.#features, this.#run?.conversationId, {
        report: (error, phase) => this.#report(error, phase),
        maxInlineResultBytes: this.#shared.options.maxInlineResultBytes,
        maxResultBytes: this.#shared.options.maxResultBytes,
      });
    } catch (error) {
      this.#failed(error);
      return;
    }
    this.#settle(result);
    // An answer cut as it grew: the app may still be producing it, and its signal tells it to stop.
    if (produced.kind === 'tooLarge') this.stop();
  }

  #failed(error: unknown): void {
    if (this.#done) return;
    if (isAppRunError(error) || isHumanInputUnavailable(error)) {
      this.#settle(errorResult(error.message));
      return;
    }
    this.#appFailed = true;
    this.#observer?.appFailed?.();
    this.#report(error, 'run');
    this.#settle(errorResult('the app failed to run'));
  }

  /** A stop from outside settles the call at once: whatever the app does after it is an echo of the stop. */
  protected override onStopped(): void {
    if (this.#done) return;
    const reason = this.reason;
    this.#human?.stop(reason);
    // Only a cancellation makes the result pointless; a timeout still has one to tell.
    if (reason instanceof CallCancelled) this.#observer?.cancelled();
    this.#settle(errorResult(reason instanceof CallTimeout ? reason.message : new CallCancelled().message));
  }

  #report(error: unknown, phase: 'run' | 'outputs'): void {
    const run = this.#run as AppRun<HostRequest>;
    this.#shared.options.report(error, phase, run.server, run.app);
  }

  #settle(result: CallToolResult): void {
    if (this.#done) return;
    this.#done = true;
    const resolve = this.#resolve;
    this.#resolve = undefined;
    if (this.#deadline) this.#shared.timeouts?.remove(this.#deadline);
    this.#unwatch?.();
    this.#shared.inflight.remove(this.#inflightKey, this);
    this.#human?.end();
    this.#observed?.finish(outcomeOf(result, this, this.#appFailed));
    // A run whose client went away while it waited for answers has nobody to tell.
    resolve?.(result);
  }

  get canAsk(): boolean {
    return this.#humanInput().canAsk;
  }

  get ask(): (options: AskOptions) => Promise<AskAnswer> {
    this.#ask ??= (options) => this.#humanInput().ask(options);
    return this.#ask;
  }

  #humanInput(): HumanInput {
    if (this.#human) return this.#human;
    const { asking, humanInputTimeoutMs } = this.#shared.options;
    const asks = this.#asks;
    this.#asks = undefined;
    this.#human = new HumanInput(
      this,
      (run) => (asking ? asking.askerFor(asks, run) : undefined),
      humanInputTimeoutMs ?? DEFAULT_HUMAN_INPUT_TIMEOUT_MS,
    );
    return this.#human;
  }

  /** While a person is asked, the call's own timeout waits; past `maxWaitingRuns`, no run starts waiting. */
  waiting(waiting: boolean): void {
    const shared = this.#shared;
    const limit = shared.options.maxWaitingRuns;
    if (waiting && limit !== undefined && shared.waitingRuns >= limit) throw new TooManyWaitingRuns(limit);
    shared.waitingRuns += waiting ? 1 : -1;
    const { timeouts } = shared;
    if (!timeouts || this.#done) return;
    if (waiting && this.#deadline) {
      timeouts.remove(this.#deadline);
      this.#deadline = null;
    } else if (!waiting && this.#deadline === null) this.#deadline = timeouts.add(this);
  }

  get replying(): boolean {
    return this.#resolve !== undefined;
  }

  pause(pause: InputRequired): boolean {
    const resolve = this.#resolve;
    if (resolve === undefined || this.#done) return false;
    this.#resolve = undefined;
    this.#observer = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
    // The request is answered: a run that waits holds none (docs/asking-a-person.md, "Cost").
    (this.#run as { request?: unknown }).request = undefined;
    resolve(pause);
    return true;
  }

  resume(round: Round): Promise<CallToolResult | InputRequired> {
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#observer = round.observer;
      if (round.request !== undefined) (this.#run as { request?: unknown }).request = round.request;
      const { inflight } = this.#shared;
      const run = this.#run as AppRun<HostRequest>;
      inflight.remove(this.#inflightKey, this);
      this.#inflightKey = inflight.add(
        callScope(run.server.id, run.auth?.subject),
        round.runKey ?? round.id,
        this,
      );
      this.#unwatch = round.onClosed(() => this.stop());
    });
  }
}
