import type { CallObservation, CallOutcome } from '../tool/observer.js';
import type { EndUser } from '../types/index.js';
import type { CallEvent, CallStart, EmitEvent } from './events.js';
import {
  type CallSpan,
  endCallSpan,
  loadOpenTelemetry,
  openTelemetryLoaded,
  startCallSpan,
} from './tracing.js';

/** The `onCall` option: called once per finished `tools/call`, after its result is known. */
export type OnCall = (event: CallEvent) => void | Promise<void>;

const UNOBSERVED: CallObservation = {
  attribute() {},
  finish() {},
};

/**
 * Observes `tools/call`s for `onCall`, the `metrics` sink (`events`) and OpenTelemetry. Without any of
 * them a call costs one shared no-op object; `onCall` failures go to `report`, never to the client.
 */
export function createCallObserver(
  onCall: OnCall | undefined,
  report: (error: unknown) => void,
  events?: EmitEvent,
) {
  const tracing = loadOpenTelemetry();

  function start(call: CallStart): CallObservation {
    const span = startCallSpan(call);
    if (!onCall && !span && !events) return UNOBSERVED;
    events?.({ type: 'call.started', ...call });
    const started = performance.now();
    let endUser: EndUser | undefined;
    let finished = false;
    return {
      attribute(user) {
        endUser = user;
      },
      ...(span && { run: (work) => span.run(work) }),
      finish(outcome) {
        if (finished) return;
        finished = true;
        const durationMs = performance.now() - started;
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
    start(call: CallStart): CallObservation | Promise<CallObservation> {
      return openTelemetryLoaded() ? start(call) : tracing.then(() => start(call));
    },
  };
}

function endSpan(span: CallSpan, outcome: CallOutcome, endUser: EndUser | undefined): void {
  endCallSpan(span, outcome, endUser ? { 'express_app_mcp.end_user.id': endUser.id } : {});
}

export type CallObserver = ReturnType<typeof createCallObserver>;
