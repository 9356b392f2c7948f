import type { AppRun, EndUser, HostApp, RunApp, ServerRecord } from '../types/index.js';
import type { AskChannel } from './ask.js';
import type { ToolFeatures } from './features.js';
import type { CallAnnouncer, CallId } from './inflight.js';
import type { CallObservation, RunObserver } from './observer.js';
import type { AppTool } from './tool.js';

export interface ToolRunsOptions<HostRequest> {
  runApp: RunApp<HostRequest>;
  /** 0 = no limit. */
  callTimeoutMs: number;
  /** Most bytes of inline files one result may carry; more is an error result. */
  maxInlineResultBytes: number;
  /** Most bytes one result may take once serialized; more is an error result. Default: 16 MiB. */
  maxResultBytes?: number;
  /**
   * Receives failures whose cause must not reach the client: `run` for the app failing, `outputs`
   * for outputs that break the app's declared output schema.
   */
  report: (error: unknown, phase: 'run' | 'outputs', server: ServerRecord, app: HostApp) => void;
  /** How long `run.ask` waits for a person by default, in ms. Default 600000. */
  humanInputTimeoutMs?: number;
  /** How many runs may wait for a person at once (`maxWaitingRuns`); absent: no limit. */
  maxWaitingRuns?: number;
  /** Tells the other instances of a farm which calls run here; none without a farm. */
  announcer?: CallAnnouncer | undefined;
  /** How runs reach a person, by the call they run for; none: no run can ask. */
  asking?: AskChannel<unknown>;
}

/**
 * One `tools/call` whose arguments passed, ready to run: what the app's run gets, less the signal
 * (made when it starts), and what the call needs around it.
 */
export interface ToolRun<HostRequest>
  extends Omit<AppRun<HostRequest>, 'signal' | 'endUser' | 'canAsk' | 'ask'> {
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
  /** The protocol's own record of the call, which `asking` makes the run's asker from. */
  asks?: unknown;
}
