import type { CallObservation, CallOutcome } from '../tool/observer.js';
import type { EndUser } from '../types.js';
import {
  type CallSpan,
  endCallSpan,
  loadOpenTelemetry,
  openTelemetryLoaded,
  startCallSpan,
} from './tracing.js';

/** One finished `tools/call`, for audit logs and metrics. It never carries the server code. */
export interface CallEvent {
  serverId: string;
  tenantId: string;
  appId: string;
  /** The tool's name, as clients call it. */
  tool: string;
  /**
   * Who the run is attributed to (one end user per server). Absent when nothing ran:
   * arguments refused before the run need no end user, and a failure may come before it is known.
   */
  endUser?: EndUser;
  /** The MCP protocol version of the request. */
  protocolVersion: string;
  /** The JSON-RPC id of the request. */
  requestId: string | number;
  /** From the start of the call to its result, in milliseconds. */
  durationMs: number;
  outcome: CallOutcome;
}

/** The `onCall` option: called once per finished `tools/call`, after its result is known. */
export type OnCall = (event: CallEvent) => void | Promise<void>;

/** What the observer needs to know about a call when it starts. */
export interface CallStart {
  serverId: string;
  tenantId: string;
  appId: string;
  tool: string;
  protocolVersion: string;
  requestId: string | number;
}

const UNOBSERVED: CallObservation = {
  attribute() {},
  run: (work) => work(),
  finish() {},
};

/**
 * Observes `tools/call`s for `onCall` and OpenTelemetry. Without `onCall` and without the API a call
 * costs one shared no-op object; `onCall` failures go to `report`, never to the client.
 */
export function createCallObserver(onCall: OnCall | undefined, report: (error: unknown) => void) {
  const tracing = loadOpenTelemetry();

  function start(call: CallStart): CallObservation {
    const span = startCallSpan(call.tool, {
      'mcp.protocol.version': call.protocolVersion,
      'jsonrpc.request.id': String(call.requestId),
      'express_app_mcp.server.id': call.serverId,
      'express_app_mcp.app.id': call.appId,
    });
    if (!onCall && !span) return UNOBSERVED;
    const started = performance.now();
    let endUser: EndUser | undefined;
    let finished = false;
    return {
      attribute(user) {
        endUser = user;
      },
      run: span ? (work) => span.run(work) : (work) => work(),
      finish(outcome) {
        if (finished) return;
        finished = true;
        const durationMs = performance.now() - started;
        if (span) endSpan(span, outcome, endUser);
        if (onCall) emit({ ...call, ...(endUser ? { endUser } : {}), durationMs, outcome });
      },
    };
  }

  function emit(event: CallEvent): void {
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
