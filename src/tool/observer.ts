import { CallTimeout } from '../errors/call-stopped.js';
import type { EndUser } from '../types/index.js';

/** What an app reports of its progress (a `progress` event), as the app gave it. */
export interface AppProgress {
  progress: unknown;
  total?: unknown;
  message?: unknown;
}

/**
 * Follows one run while it goes, for a reply that can tell the client about it before the result
 * (a streamed reply: docs/http-contract.md, "Long runs"). Both are called synchronously, so they
 * must not throw.
 */
export interface RunObserver {
  /** The app emitted a `progress` event. */
  progress(report: AppProgress): void;
  /** A `notifications/cancelled` stopped the run: its result is for nobody. */
  cancelled(): void;
  /**
   * `undefined` when the reply takes more now; else a promise that settles once it does (its
   * client has read what was sent, has gone, or the reply is over). The run takes the app's next
   * event only then, so that a client that does not read slows its run, not the server
   * (docs/http-contract.md, "Long runs").
   */
  ready?(): Promise<void> | undefined;
  /**
   * The app threw something other than an `AppRunError`: its result is the opaque error result, and
   * a task ends `failed` rather than `completed` (MCP 2026-07-28 tasks extension).
   */
  appFailed?(): void;
}

/**
 * How a `tools/call` ended:
 * - `ok`: the app answered;
 * - `app_error`: the app reported a failure the client reads (`AppRunError`, an `error` event, or
 *   outputs that break its declared output schema);
 * - `invalid_arguments`: the arguments failed the app's input form; the app did not run;
 * - `timeout`: `callTimeoutMs` passed; `cancelled`: the client cancelled or went away;
 * - `failed`: the app threw something else, or the package failed; the cause went to `onError`.
 */
export type CallOutcome = 'ok' | 'app_error' | 'invalid_arguments' | 'timeout' | 'cancelled' | 'failed';

/**
 * One call being observed, for the host's `onCall` hook and tracing (`observe/` implements it);
 * `finish` counts once, later calls are ignored.
 */
export interface CallObservation {
  attribute(endUser: EndUser): void;
  /** The call became a task (docs/tasks.md). */
  tasked(): void;
  /** The run asked a person (`run.ask`, docs/asking-a-person.md). */
  asked(): void;
  /** Runs the app inside the call's span, so the host's own spans nest in it. */
  run<T>(work: () => T): T;
  finish(outcome: CallOutcome): void;
}

/**
 * The outcome of a call that produced a result: `stop` is the run's stopper (its reason tells a
 * timeout from a cancellation), `appFailed` whether the app threw something other than `AppRunError`.
 */
export function outcomeOf(
  result: { isError: boolean },
  stop: { stopped: boolean; reason: unknown },
  appFailed: boolean,
): CallOutcome {
  if (!result.isError) return 'ok';
  if (stop.stopped) return stop.reason instanceof CallTimeout ? 'timeout' : 'cancelled';
  return appFailed ? 'failed' : 'app_error';
}
