import { CallCancelled, CallTimeout } from '../errors/call-stopped.js';
import { isAppRunError } from '../errors/package-errors.js';
import type { AppRun, EndUser, HostApp, RunApp, ServerRecord } from '../types.js';
import { type Delayed, DelayQueue } from '../util/delay-queue.js';
import { type CallToolResult, errorResult, resultOf } from './call.js';
import { fromEvents, fromPlainResult, isAsyncIterable, type Produced } from './collect.js';
import type { ToolFeatures } from './features.js';
import { type CallAnnouncer, type CallId, callScope, InflightCalls } from './inflight.js';
import { type CallObservation, outcomeOf, type RunObserver } from './observer.js';
import { RunStop } from './stop.js';
import type { AppTool } from './tool.js';

export interface ToolRunsOptions<HostRequest> {
  runApp: RunApp<HostRequest>;
  /** 0 = no limit. */
  callTimeoutMs: number;
  /** Most bytes of inline files one result may carry; more is an error result. */
  maxInlineResultBytes: number;
  /**
   * Receives failures whose cause must not reach the client: `run` for the app failing, `outputs`
   * for outputs that break the app's declared output schema.
   */
  report: (error: unknown, phase: 'run' | 'outputs', server: ServerRecord, app: HostApp) => void;
  /** Tells the other instances of a farm which calls run here; none without a farm. */
  announcer?: CallAnnouncer | undefined;
}

/**
 * One `tools/call` whose arguments passed, ready to run: what the app's run gets, less the signal
 * (made when it starts), and what the call needs around it.
 */
export interface ToolRun<HostRequest> extends Omit<AppRun<HostRequest>, 'signal' | 'endUser'> {
  /** Who the run is for; the app starts once it is known, and a lookup that fails fails the call. */
  endUser: EndUser | Promise<EndUser>;
  /** The JSON-RPC id, by which `notifications/cancelled` names the call. */
  id: CallId;
  /**
   * The key the run is stopped by instead of `id`, when the client's `notifications/cancelled`
   * must not reach it (a task's run, which only `tasks/cancel` stops).
   */
  runKey?: CallId;
  /** Not bounded by `callTimeoutMs` (a task's run, which outlives any request). */
  untimed?: boolean;
  tool: AppTool;
  features: ToolFeatures;
  /**
   * Calls `listener` when the client goes away before the reply is written; returns a function
   * that stops watching. Where a disconnect is no cancellation, a function that never calls it.
   */
  onClosed: (listener: () => void) => () => void;
  /** Follows the run for a reply that streams; absent when the reply can only be JSON. */
  observer?: RunObserver;
  /** Learns the outcome of the run (`onCall`, tracing), and runs the app inside the call's span. */
  observed?: CallObservation;
}

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
  };
  const { inflight } = shared;
  return {
    /** Runs the app once and shapes its result (README, "runApp, mode by mode"); never rejects for the app's sake. */
    start(call: ToolRun<HostRequest>): Promise<CallToolResult> {
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
}

/** Where the app's run keeps its stopper, out of sight of `Object.keys`, spreads and JSON. */
const RUN_STOP = Symbol('runStop');

/**
 * `run.signal`, one getter for every run: an own, enumerable accessor, so that an app that spreads
 * its run still gets the signal, made only when something reads it (`RunStop`).
 */
const SIGNAL: PropertyDescriptor = {
  get(this: { [RUN_STOP]: RunStop }) {
    return this[RUN_STOP].signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * One run of a `tools/call`, from the app's start to the shaped result, as a single object:
 * a call waits as long as its app, and everything it holds meanwhile is held by each open call
 * (README, "Long runs"), so there is no chain of pending async functions and no closure per step.
 * The first of the app's result and a stop settles the call; whatever comes after is ignored, whether
 * or not the app honours its signal. A run whose client has already gone never starts the app.
 */
class ToolCallRun<HostRequest> extends RunStop {
  readonly #tool: AppTool;
  readonly #features: ToolFeatures;
  readonly #observer: RunObserver | undefined;
  readonly #observed: CallObservation | undefined;
  readonly #shared: SharedRuns<HostRequest>;
  #run: AppRun<HostRequest> | undefined = undefined;
  #inflightKey = '';
  #unwatch: (() => void) | undefined = undefined;
  #resolve: ((result: CallToolResult) => void) | undefined;
  /** Only for a failure before the run, the end user's lookup: the app's own failures are results. */
  #reject: ((error: unknown) => void) | undefined;
  /** This run's place among the call timeouts. */
  #deadline: Delayed<RunStop> | undefined = undefined;
  #appFailed = false;

  constructor(
    call: ToolRun<HostRequest>,
    shared: SharedRuns<HostRequest>,
    resolve: (result: CallToolResult) => void,
    reject: (error: unknown) => void,
  ) {
    super();
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
      if (this.#resolve === undefined) return;
      if (!isAsyncIterable(result)) {
        this.#produced(fromPlainResult(run.app.mode, result));
        return;
      }
      fromEvents(run.app.mode, result, this, this.#observer).then(
        (produced) => this.#produced(produced),
        fail,
      );
    }, fail);
  }

  #produced(produced: Produced): void {
    if (this.#resolve === undefined) return;
    let result: CallToolResult;
    try {
      result = resultOf(produced, this.#tool, this.#features, this.#run?.conversationId, {
        report: (error, phase) => this.#report(error, phase),
        maxInlineResultBytes: this.#shared.options.maxInlineResultBytes,
      });
    } catch (error) {
      this.#failed(error);
      return;
    }
    this.#settle(result);
  }

  #failed(error: unknown): void {
    if (this.#resolve === undefined) return;
    if (isAppRunError(error)) {
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
    if (this.#resolve === undefined) return;
    const reason = this.reason;
    // Only a cancellation makes the result pointless; a timeout still has one to tell.
    if (reason instanceof CallCancelled) this.#observer?.cancelled();
    this.#settle(errorResult(reason instanceof CallTimeout ? reason.message : new CallCancelled().message));
  }

  #report(error: unknown, phase: 'run' | 'outputs'): void {
    const run = this.#run as AppRun<HostRequest>;
    this.#shared.options.report(error, phase, run.server, run.app);
  }

  #settle(result: CallToolResult): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#resolve = undefined;
    if (this.#deadline) this.#shared.timeouts?.remove(this.#deadline);
    this.#unwatch?.();
    this.#shared.inflight.remove(this.#inflightKey, this);
    this.#observed?.finish(outcomeOf(result, this, this.#appFailed));
    resolve(result);
  }
}

/**
 * The run the app gets. Optional fields are set only when present, and `run.signal` reads the
 * stopper through the shared getter, so that every run has the same few shapes.
 */
function appRunOf<HostRequest>(
  call: ToolRun<HostRequest>,
  endUser: EndUser,
  stop: RunStop,
): AppRun<HostRequest> {
  const run = {
    app: call.app,
    server: call.server,
    endUser,
    inputs: call.inputs,
  } as AppRun<HostRequest> & {
    [RUN_STOP]: RunStop;
  };
  if (call.query !== undefined) run.query = call.query;
  if (call.conversationId !== undefined) run.conversationId = call.conversationId;
  Object.defineProperty(run, 'signal', SIGNAL);
  run.protocolVersion = call.protocolVersion;
  run.request = call.request;
  if (call.auth) run.auth = call.auth;
  Object.defineProperty(run, RUN_STOP, { value: stop });
  return run;
}
