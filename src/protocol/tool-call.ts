import type { RequestId } from './messages.js';
import type { ReplyStream } from './stream/reply-stream.js';
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
  /** The call's reply when it may stream, which follows the run (see `ReplyStream`). */
  observer?: ReplyStream;
  /** The request's `Mcp-Session-Id` (legacy era), which says whether its client can be asked. */
  sessionId?: string;
}
