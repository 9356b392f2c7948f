import type { CallObservation, CallOutcome } from '../tool/observer.js';
import type { Caller, EndUser } from '../types/index.js';
import type { CallEvent, CallStart, EmitEvent } from './events.js';
import {
  type CallSpan,
  endCallSpan,
  loadOpenTelemetry,
  openTelemetryLoaded,
  startCallSpan,
} from './tracing.js';
import { CountedCall, isErrorOutcome, type UsageCounter } from './usage.js';

/** The `onCall` option: called once per finished `tools/call`, after its result is known. */
export type OnCall = (event: CallEvent) => void | Promise<void>;

const UNOBSERVED: CallObservation = {
  attribute() {},
  tasked() {},
  asked() {},
  run: (work) => work(),
  finish() {},
};

/**
 * Observes `tools/call`s for `onCall`, the `metrics` sink (`events`), OpenTelemetry and the usage
 * counts (`usage`, docs/usage.md). Without any of them a call costs one shared no-op object, with
 * the usage counts alone one `CountedCall`; `onCall` failures go to `report`, never to the client.
 */
export function createCallObserver(
  onCall: OnCall | undefined,
  report: (error: unknown) => void,
  events?: EmitEvent,
  usage?: UsageCounter,
) {
  const tracing = loadOpenTelemetry();

  function start(call: CallStart, caller: Caller): CallObservation {
    const span = startCallSpan(call.tool, {
      'mcp.protocol.version': call.protocolVersion,
      'jsonrpc.request.id': String(call.requestId),
      'express_app_mcp.server.id': call.serverId,
      'express_app_mcp.app.id': call.appId,
    });
    if (!onCall && !span && !events) {
      return usage ? new CountedCall(usage, call.serverId, call.tool, caller) : UNOBSERVED;
    }
    events?.({ type: 'call.started', ...call });
    const started = performance.now();
    const startedAt = usage ? Date.now() : 0;
    let endUser: EndUser | undefined;
    let finished = false;
    let tasked = false;
    let asks = 0;
    return {
      attribute(user) {
        endUser = user;
      },
      tasked() {
        tasked = true;
      },
      asked() {
        asks++;
      },
      run: span ? (work) => span.run(work) : (work) => work(),
      finish(outcome) {
        if (finished) return;
        finished = true;
        const durationMs = performance.now() - started;
        usage?.count(
          call.serverId,
          call.tool,
          caller,
          startedAt,
          durationMs,
          isErrorOutcome(outcome),
          tasked,
          asks,
        );
        if (span) endSpan(span, outcome, endUser);
        if (!onCall && !events) return;
        const event: CallEvent = { ...call, ...(endUser ? { endUser } : {}), durationMs, outcome };
        events?.({ type: 'call.finished', ...event });
        if (onCall) tell(event);
      },
    };
  }

  function tell(event: CallEvent): void {
    try {
      const returned = onCall!(event);
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  }

  return {
    /**
     * Starts observing a call. The first calls may come before the OpenTelemetry API has loaded
     * (a dynamic import, started with the router): they wait for it, so that no call goes untraced.
     */
    start(call: CallStart, caller: Caller): CallObservation | Promise<CallObservation> {
      return openTelemetryLoaded() ? start(call, caller) : tracing.then(() => start(call, caller));
    },
  };
}

function endSpan(span: CallSpan, outcome: CallOutcome, endUser: EndUser | undefined): void {
  endCallSpan(span, outcome, endUser ? { 'express_app_mcp.end_user.id': endUser.id } : {});
}

export type CallObserver = ReturnType<typeof createCallObserver>;
