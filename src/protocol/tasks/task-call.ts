import { randomUUID } from 'node:crypto';
import { McpError, RPC_CODES } from '../../errors/mcp-error.js';
import type { TaskError, TaskOwner, TaskRecord } from '../../store/tasks/types.js';
import { type Asker, type AskingRun, InputRequired } from '../../tool/ask.js';
import type { CallToolResult } from '../../tool/call.js';
import { callScope, subjectOf } from '../../tool/inflight.js';
import type { AppProgress, CallObservation, RunObserver } from '../../tool/observer.js';
import type { TaskSupport } from '../../types/index.js';
import { elicitsOnStream, isModernVersion } from '../../versions.js';
import type { RoundsAsker, TaskLink } from '../asking/input-required.js';
import { DEFAULT_CLIENT_NAME } from '../client-name.js';
import type { EraContext } from '../context.js';
import type { RequestId } from '../messages.js';
import { type EndpointReply, jsonReply, resultResponse } from '../reply.js';
import { sessionMayAsk } from '../session-id.js';
import type { ServingTarget } from '../target.js';
import { type AskingParts, ignoreClose, type TaskAsking, type ToolCall } from '../tool-call.js';
import type { TaskOutcome, TaskRun, TaskService } from './service.js';
import { LegacyTaskQuestions, ModernTaskAsker } from './task-asker.js';

/**
 * The task support of the tool a `tools/call` names (docs/tasks.md); an unknown name is
 * `"optional"`, and the call then answers as an unknown tool.
 */
export const taskSupportOf = (target: ServingTarget, params: Record<string, unknown>): TaskSupport =>
  target.tools.find(params.name)?.taskSupport ?? 'optional';

/** Whose task it is: the server's, and the end user's the request is made for. */
export async function ownerOf(target: ServingTarget, clientName: string | undefined): Promise<TaskOwner> {
  const endUser = await target.endUser(clientName ?? DEFAULT_CLIENT_NAME);
  return { serverId: target.server.id, caller: endUser.id };
}

/**
 * Follows a task's run: the app's progress becomes the task's status message (written once the
 * task exists), an app that failed is told apart from one that returned an error result, and the
 * run's questions become the task's input requests (made on the run's first `ask`).
 */
export class TaskObserver implements RunObserver, TaskAsking {
  #taskId: string | undefined;
  #pending: string | undefined;
  /** The task side of the run's asking, once it asks. */
  #link: TaskLink | undefined;
  /** Whether the call is a task: from the start (2025-11-25), or once `toTask` says so. */
  #tasked: boolean;
  /** The call's observation, told when the task exists (its usage counts tasks). */
  #observed: CallObservation | undefined;
  failed = false;

  constructor(
    readonly service: TaskService,
    tasked: boolean,
  ) {
    this.#tasked = tasked;
  }

  askerFor(run: AskingRun, call: ToolCall<unknown>, parts: AskingParts): Asker {
    const { server } = call.target;
    const { inputs } = this.service;
    let asker: Asker & TaskLink;
    if (isModernVersion(call.protocolVersion)) {
      const rounds = { id: call.id, params: call.params, server, subject: subjectOf(call.target.caller) };
      asker = new ModernTaskAsker(run, rounds, parts, inputs);
    } else {
      // The client declared elicitation at `initialize` (its signed session id says so).
      const canAsk =
        elicitsOnStream(call.protocolVersion) && sessionMayAsk(parts.signer, server, call.sessionId);
      asker = new LegacyTaskQuestions(canAsk, run, inputs, server.id, parts);
    }
    this.#link = asker;
    if (this.#tasked) asker.toTask();
    if (this.#taskId !== undefined) asker.bind(this.#taskId);
    return asker;
  }

  observe(observed: CallObservation): void {
    this.#observed = observed;
    if (this.#taskId !== undefined) observed.tasked();
  }

  adopt(rounds: RoundsAsker): void {
    if (rounds.link) this.#link = rounds.link;
  }

  /** The call is a task from now on (2026-07-28: decided by the server, after its grace window). */
  toTask(): void {
    this.#tasked = true;
    this.#link?.toTask();
  }

  progress(report: AppProgress): void {
    const message = progressMessage(report);
    if (message === undefined) return;
    if (this.#taskId === undefined) this.#pending = message;
    else this.service.note(this.#taskId, message);
  }

  /** A task's run is stopped only by `tasks/cancel`, never by `notifications/cancelled`. */
  cancelled(): void {}

  appFailed(): void {
    this.failed = true;
  }

  /** The task now exists: progress goes to it. */
  bind(taskId: string): void {
    this.#taskId = taskId;
    if (this.#pending !== undefined) this.service.note(taskId, this.#pending);
    this.#pending = undefined;
    this.#link?.bind(taskId);
    this.#observed?.tasked();
  }
}

function progressMessage(report: AppProgress): string | undefined {
  if (typeof report.message === 'string' && report.message !== '') return report.message;
  if (typeof report.progress !== 'number') return undefined;
  return typeof report.total === 'number' ? `${report.progress}/${report.total}` : `${report.progress}`;
}

/** What a task's run needs of the `tools/call` that starts it. */
export interface TaskCall<HostRequest> {
  id: RequestId;
  params: Record<string, unknown>;
  protocolVersion: string;
  target: ServingTarget;
  request: HostRequest;
  clientName?: string;
  /** See `ToolCall.onClosed`; absent: the client going away never stops the run. */
  onClosed?: (listener: () => void) => () => void;
  /** The request's `Mcp-Session-Id` (2025-11-25), which says whether its client can be asked. */
  sessionId?: string;
}

/**
 * A task's run, started: the raw outcome to come (2026-07-28: an `input_required` result while
 * the call is not a task yet), the observer, and the run as a task follows it.
 */
export interface StartedTaskRun {
  result: Promise<CallToolResult | InputRequired>;
  observer: TaskObserver;
  stop(): void;
}

/**
 * Starts the run of a task's `tools/call`: under a key of its own, so that the client's
 * `notifications/cancelled` for the request never reaches it, and without `callTimeoutMs`
 * (a task outlives any request; `tasks/cancel` stops it).
 */
export function startTaskRun<HostRequest>(
  ctx: EraContext<HostRequest>,
  call: TaskCall<HostRequest>,
): StartedTaskRun {
  const observer = new TaskObserver(ctx.tasks, !isModernVersion(call.protocolVersion));
  const runKey = `task-run:${randomUUID()}`;
  const result = ctx.methods.callTool({
    id: call.id,
    params: call.params,
    protocolVersion: call.protocolVersion,
    target: call.target,
    onClosed: call.onClosed ?? ignoreClose,
    request: call.request,
    ...(call.clientName === undefined ? {} : { clientName: call.clientName }),
    ...(call.sessionId === undefined ? {} : { sessionId: call.sessionId }),
    observer,
    tasked: observer,
    runKey,
    untimed: true,
  });
  const scope = callScope(call.target.server.id, subjectOf(call.target.caller));
  return {
    result,
    observer,
    stop: () => void ctx.methods.stop(scope, runKey),
  };
}

/** A task request's result as its 200 reply; a failure as `ctx.guarded` answers it. */
export function guardedReply<HostRequest>(
  ctx: EraContext<HostRequest>,
  work: () => Promise<Record<string, unknown>>,
  id: RequestId,
  target: ServingTarget,
): Promise<EndpointReply> {
  return ctx.guarded(work, id, target).then((result) => jsonReply(200, resultResponse(id, result)));
}

/** The run as a task follows it, its outcome in the era's terms (`outcome`). */
export function taskRun<HostRequest>(
  ctx: EraContext<HostRequest>,
  started: StartedTaskRun,
  call: Pick<TaskCall<HostRequest>, 'id' | 'target'>,
  outcome: (result: CallToolResult, appFailed: boolean) => TaskOutcome,
): TaskRun {
  const done = started.result.then(
    (result) =>
      result instanceof InputRequired
        ? failedWith(new McpError('internal', 'Internal error: the run asked in a way its task cannot carry'))
        : outcome(result, started.observer.failed),
    (error: unknown) => failedWith(ctx.opaque(error, call.id, call.target)),
  );
  return { done, stop: started.stop };
}

/** A task that ends with a JSON-RPC error rather than a result. */
export function failedWith(error: McpError): TaskOutcome {
  const stored: TaskError = { code: error.code, message: error.message };
  if (error.data !== undefined) stored.data = error.data;
  return { status: 'failed', error: stored, statusMessage: error.message };
}

/** The first text of a result, as a status message. */
export function firstText(result: CallToolResult): string | null {
  const block = result.content.find((item) => item.type === 'text') as { text?: unknown } | undefined;
  return typeof block?.text === 'string' ? block.text : null;
}

/** A stored task error as the error a request answers with. */
export function taskErrorOf(error: TaskError, id: RequestId): McpError {
  const kind = error.code === RPC_CODES.INVALID_PARAMS ? 'invalidParams' : 'taskFailed';
  return new McpError(kind, error.message, error.data, id);
}

/** An unknown, expired or someone else's task: the same answer for each (MCP 2025-11-25 "Tasks", Error Handling). */
export const taskNotFound = (id: RequestId): McpError =>
  new McpError('invalidParams', 'Failed to retrieve task: Task not found', undefined, id);

/** `params.taskId`, or -32602. */
export function taskIdOf(params: Record<string, unknown>, id: RequestId): string {
  const { taskId } = params;
  if (typeof taskId !== 'string' || taskId === '') {
    throw new McpError('invalidParams', 'Invalid params: taskId must be a non-empty string', undefined, id);
  }
  return taskId;
}

/** Task times on the wire (MCP 2025-11-25 `Task`: ISO 8601). */
const isoTime = (ms: number): string => new Date(ms).toISOString();

/**
 * A task as each era's `Task` gives it: the same fields, with the ttl and the poll interval under
 * that era's names (MCP 2025-11-25 `ttl`, `pollInterval`; SEP-2663 `ttlMs`, `pollIntervalMs`).
 */
export function taskJson(
  task: TaskRecord,
  names: { ttl: 'ttl' | 'ttlMs'; pollInterval: 'pollInterval' | 'pollIntervalMs' },
): Record<string, unknown> {
  const json: Record<string, unknown> = { taskId: task.id, status: task.status };
  if (task.statusMessage !== null) json.statusMessage = task.statusMessage;
  json.createdAt = isoTime(task.createdAt);
  json.lastUpdatedAt = isoTime(task.updatedAt);
  json[names.ttl] = task.ttlMs;
  json[names.pollInterval] = task.pollIntervalMs;
  return json;
}
