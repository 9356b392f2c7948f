import type { Asker, AskingRun } from '../tool/ask.js';
import type { CallId } from '../tool/inflight.js';
import type { CallObservation, RunObserver } from '../tool/observer.js';
import type { WaitingQuestions } from './asking/elicitation.js';
import type { ParkedRuns, RoundsAsker } from './asking/input-required.js';
import type { RequestId } from './messages.js';
import type { Signer } from './signing.js';
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
  /** A task's call (or one that may become a task): its run asks through the task (docs/tasks.md). */
  tasked?: TaskAsking;
}

const keepWatching = (): void => {};
/**
 * `ToolCall.onClosed` where a disconnect is no cancellation. One shared function: a streamed call
 * keeps what this returns for as long as it runs.
 */
export const ignoreClose = (): (() => void) => keepWatching;

/** What the asker of a run may use of its core's asking. */
export interface AskingParts {
  waiting: WaitingQuestions;
  parked: ParkedRuns;
  signer: Signer;
}

/** The task side of a call's run: how it asks, in its era's way for a task. */
export interface TaskAsking {
  askerFor(run: AskingRun, call: ToolCall<unknown>, parts: AskingParts): Asker;
  /** A 2026-07-28 retry resumes the run `rounds` asks for: the task the retry may become is that run's. */
  adopt(rounds: RoundsAsker): void;
  /** The call's observation, to be told once the call is a task. */
  observe(observed: CallObservation): void;
}
