import type { CallOutcome } from '../tool/observer.js';
import type { EndUser } from '../types/index.js';

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

/** What the observer needs to know about a call when it starts. */
export interface CallStart {
  serverId: string;
  tenantId: string;
  appId: string;
  tool: string;
  protocolVersion: string;
  requestId: string | number;
}

/** A `tools/call` for a known tool began; its arguments are checked next. */
export interface CallStartedEvent extends CallStart {
  type: 'call.started';
}

/** A `tools/call` ended: the event `onCall` receives. Each `call.started` has exactly one. */
export interface CallFinishedEvent extends CallEvent {
  type: 'call.finished';
}

/** The endpoint began writing an event stream: a `tools/call` reply that streams, or a resumed one. */
export interface StreamOpenedEvent {
  type: 'stream.opened';
}

/** An event stream ended, or its client went away. Each `stream.opened` has exactly one. */
export interface StreamClosedEvent {
  type: 'stream.closed';
}

/** A run asked a person (`run.ask`) and waits for the answer. */
export interface InputWaitingEvent {
  type: 'input.waiting';
  serverId: string;
}

/**
 * A run stopped waiting for a person: answered, declined, cancelled, timed out, or its call ended.
 * Each `input.waiting` has exactly one.
 */
export interface InputSettledEvent {
  type: 'input.settled';
  serverId: string;
}

/** The statuses of a task (MCP 2025-11-25, "Tasks"). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * A task changed status: `from: null` when it is created, `to: null` when it is removed (purged
 * after its TTL). In a farm each instance tells the changes it makes, wherever the task began.
 */
export interface TaskStatusEvent {
  type: 'task.status';
  serverId: string;
  taskId: string;
  from: TaskStatus | null;
  to: TaskStatus | null;
}

/** What the endpoint tells the `metrics` option as calls, streams, waits and tasks go. Never a server code. */
export type McpEvent =
  | CallStartedEvent
  | CallFinishedEvent
  | StreamOpenedEvent
  | StreamClosedEvent
  | InputWaitingEvent
  | InputSettledEvent
  | TaskStatusEvent;

/**
 * The `metrics` option of `mcpServer`: `mcpMetrics()` from `express-app-mcp/metrics` is one; any
 * object with `onEvent` is another (to feed other metrics systems). `onEvent` is called
 * synchronously where the thing happens: it must be quick, and what it throws goes to `onError`.
 */
export interface McpEventSink {
  onEvent(event: McpEvent): void;
}

/** Tells an event to the sink. */
export type EmitEvent = (event: McpEvent) => void;

/**
 * The one `EmitEvent` of a router: what the sink throws is reported, never thrown at the caller.
 * `undefined` without a sink, so that events which cost something to build are skipped.
 */
export function eventEmitter(
  sink: McpEventSink | undefined,
  report: (error: unknown) => void,
): EmitEvent | undefined {
  if (!sink) return undefined;
  return (event) => {
    try {
      sink.onEvent(event);
    } catch (error) {
      report(error);
    }
  };
}
