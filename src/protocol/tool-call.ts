import type { CallId } from '../tool/inflight.js';
import type { RunObserver } from '../tool/observer.js';
import type { RequestId } from './messages.js';
import type { ServingTarget } from './target.js';

/** What `tools/call` needs to know about the request it serves; the version is explicit, never global. */
export interface ToolCall<HostRequest> {
  id: RequestId;
  params: Record<string, unknown>;
  protocolVersion: string;
  target: ServingTarget;
  /** See `EndpointRequest.onClosed`; where a disconnect is no cancellation, one that never calls back. */
  onClosed: (listener: () => void) => () => void;
  request: HostRequest;
  /** The client's name for its end user record, when the request tells it. */
  clientName?: string;
  /** Follows the run: the call's reply when it may stream (see `ReplyStream`), or its task. */
  observer?: RunObserver;
  /** See `ToolRun.runKey`: a task's run is stopped by its own key, never by the request's id. */
  runKey?: CallId;
  /** See `ToolRun.untimed`. */
  untimed?: boolean;
  /** The request's `Mcp-Session-Id` (legacy era), which says whether its client can be asked. */
  sessionId?: string;
}
