import { type CallObservation, outcomeOf } from '../observe/on-call.js';
import type { AppRun, HostApp, RunApp, ServerRecord } from '../types.js';
import { CallCancelled, type CallToolResult, runToolCall } from './call.js';
import type { ToolFeatures } from './features.js';
import { type CallId, callScope, InflightCalls } from './inflight.js';
import type { RunObserver } from './observer.js';
import { RunStop } from './stop.js';
import type { AppTool } from './tool.js';

export interface ToolRunsOptions<HostRequest> {
  runApp: RunApp<HostRequest>;
  /** 0 = no limit. */
  callTimeoutMs: number;
  /** Most bytes of inline files one result may carry; more is an error result. */
  maxInlineResultBytes: number;
  /**
   * Receives failures whose cause must not reach the client: the app failing, or its outputs
   * breaking its declared schema.
   */
  report: (error: unknown, phase: 'run' | 'outputs', server: ServerRecord, app: HostApp) => void;
}

/**
 * One `tools/call` whose arguments passed, ready to run: what the app's run gets, less the signal
 * (made when it starts), and what the call needs around it.
 */
export interface ToolRun<HostRequest> extends Omit<AppRun<HostRequest>, 'signal'> {
  /** The JSON-RPC id, by which `notifications/cancelled` names the call. */
  id: CallId;
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
  const inflight = new InflightCalls();
  return {
    async start(call: ToolRun<HostRequest>): Promise<CallToolResult> {
      const { app, server } = call;
      const stop = new RunStop();
      const unwatch = call.onClosed(() => stop.stop());
      const unregister = inflight.add(callScope(server.id, call.auth?.subject), call.id, stop);
      const run: AppRun<HostRequest> = {
        app,
        server,
        endUser: call.endUser,
        inputs: call.inputs,
        ...(call.query === undefined ? {} : { query: call.query }),
        ...(call.conversationId === undefined ? {} : { conversationId: call.conversationId }),
        // A getter: the AbortSignal is made only if the app reads it (RunStop), so `run` is never
        // spread from here on.
        get signal() {
          return stop.signal;
        },
        protocolVersion: call.protocolVersion,
        request: call.request,
        ...(call.auth ? { auth: call.auth } : {}),
      };
      const { observed } = call;
      let appFailed = false;
      try {
        const result = await runToolCall(call.tool, run, stop, call.features, {
          runApp: observed ? (appRun) => observed.run(() => options.runApp(appRun)) : options.runApp,
          callTimeoutMs: options.callTimeoutMs,
          maxInlineResultBytes: options.maxInlineResultBytes,
          report: (error, phase = 'run') => {
            if (phase === 'run') appFailed = true;
            options.report(error, phase, server, app);
          },
          observer: call.observer,
        });
        observed?.finish(outcomeOf(result, stop, appFailed));
        return result;
      } finally {
        unwatch();
        unregister();
      }
    },

    /** Stops every matching run of the same scope (`callScope`) in this process; `false` when none runs here. */
    cancel(scope: string, id: CallId): boolean {
      return inflight.cancel(scope, id, new CallCancelled());
    },
  };
}
