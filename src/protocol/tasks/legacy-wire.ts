import { McpError } from '../../errors/mcp-error.js';
import { isTerminal, type TaskCursor, type TaskRecord } from '../../store/tasks/types.js';
import type { CallToolResult } from '../../tool/call.js';
import { hasLegacyTasks } from '../../versions.js';
import type { EraContext } from '../context.js';
import type { RequestId } from '../messages.js';
import type { EndpointReply } from '../reply.js';
import type { EndpointRequest } from '../request.js';
import { openReplyStream, type ReplyStream } from '../stream/reply-stream.js';
import type { ServingTarget } from '../target.js';
import type { TaskOutcome } from './service.js';
import { RELATED_TASK } from './task-asker.js';
import {
  firstText,
  guardedReply,
  ownerOf,
  startTaskRun,
  taskErrorOf,
  taskIdOf,
  taskJson,
  taskNotFound,
  taskRun,
  taskSupportOf,
} from './task-call.js';

/** MCP 2025-11-25 `ServerCapabilities.tasks`: what the server does with tasks. */
export const LEGACY_TASKS_CAPABILITY = Object.freeze({
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
});

/** The task methods of the 2025 era, served from MCP 2025-11-25 on. */
export const LEGACY_TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);

/** How many tasks one `tasks/list` page holds. */
const PAGE_SIZE = 50;

/** A legacy request, as the task methods need it. */
export interface LegacyTaskRequest<HostRequest> {
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  protocolVersion: string;
  target: ServingTarget;
  request: EndpointRequest<HostRequest>;
}

/**
 * Whether `legacyTaskCall` would answer `undefined`: a call without `task` (or one from before
 * 2025-11-25, which ignores it) to a tool that may run without one. Told without building the
 * request it takes, which nearly every call would build for nothing.
 */
export function isPlainLegacyCall(
  params: Record<string, unknown>,
  protocolVersion: string,
  target: ServingTarget,
) {
  if (taskSupportOf(target, params) === 'required') return false;
  return !hasLegacyTasks(protocolVersion) || params.task === undefined || params.task === null;
}

/**
 * A `tools/call` that is a task's, or that a task rule refuses: `undefined` for a plain call.
 * MCP 2025-11-25 "Tasks": `task` on a tool whose `taskSupport` is `forbidden` SHOULD be -32601, a
 * call without it to a `required` tool MUST be; a revision without tasks can never call a
 * `required` tool. Before 2025-11-25 the `task` param is unknown, and ignored.
 */
export function legacyTaskCall<HostRequest>(
  call: LegacyTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> | undefined {
  const support = taskSupportOf(call.target, call.params);
  const tasks = hasLegacyTasks(call.protocolVersion);
  const task = tasks ? taskParamsOf(call.params, call.id) : undefined;
  if (task === undefined) {
    if (support !== 'required') return undefined;
    const name = typeof call.params.name === 'string' ? call.params.name : 'this tool';
    throw new McpError(
      'methodNotFound',
      `Method not found: ${name} runs only as a task; call it with "task" (MCP 2025-11-25 tasks)`,
      undefined,
      call.id,
    );
  }
  if (support === 'forbidden') {
    throw new McpError(
      'methodNotFound',
      'Method not found: this tool does not run as a task; call it without "task"',
      undefined,
      call.id,
    );
  }
  return guardedReply(ctx, () => createTask(call, task, ctx), call.id, call.target);
}

/** `params.task` (`TaskMetadata`): `undefined` when absent; its `ttl` a non-negative integer. */
function taskParamsOf(params: Record<string, unknown>, id: RequestId): { ttl?: number } | undefined {
  const { task } = params;
  if (task === undefined || task === null) return undefined;
  const ttl = (task as { ttl?: unknown }).ttl;
  if (typeof task !== 'object' || Array.isArray(task) || !(ttl === undefined || isTtl(ttl))) {
    throw new McpError(
      'invalidParams',
      'Invalid params for tools/call: task must be an object whose ttl is a non-negative integer',
      undefined,
      id,
    );
  }
  return ttl === undefined ? {} : { ttl: ttl as number };
}

const isTtl = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Stores the task, starts its run and answers at once with `CreateTaskResult`, while the run goes
 * on (MCP 2025-11-25: the receiver returns the task before the work is done).
 */
async function createTask<HostRequest>(
  call: LegacyTaskRequest<HostRequest>,
  task: { ttl?: number },
  ctx: EraContext<HostRequest>,
): Promise<Record<string, unknown>> {
  ctx.methods.checkCall(call);
  const owner = await ownerOf(call.target, undefined);
  const record = await ctx.tasks.create(owner, ctx.tasks.ttlFor(task.ttl), call.id, call.target.within);
  const started = startTaskRun(ctx, {
    id: call.id,
    params: call.params,
    protocolVersion: call.protocolVersion,
    target: call.target,
    request: call.request.request,
    ...(call.request.headers.sessionId === undefined ? {} : { sessionId: call.request.headers.sessionId }),
  });
  started.observer.bind(record.id);
  ctx.tasks.follow(record, taskRun(ctx, started, call, legacyOutcome));
  return { task: legacyTask(record) };
}

/** MCP 2025-11-25: a tool result with `isError` ends the task `failed`; `tasks/result` still gives it. */
function legacyOutcome(result: CallToolResult): TaskOutcome {
  const stored = result as unknown as Record<string, unknown>;
  if (result.isError) return { status: 'failed', result: stored, statusMessage: firstText(result) };
  return { status: 'completed', result: stored };
}

/** A task as MCP 2025-11-25 `Task` gives it. */
function legacyTask(task: TaskRecord): Record<string, unknown> {
  return taskJson(task, { ttl: 'ttl', pollInterval: 'pollInterval' });
}

/**
 * `tasks/get`, `tasks/list`, `tasks/cancel` and `tasks/result` (MCP 2025-11-25). `tasks/result`
 * waits for the task's end, on an event stream with heartbeats when the client takes one, and
 * answers what `tools/call` would have, tied to its task in `_meta`.
 */
export function serveLegacyTaskMethod<HostRequest>(
  call: LegacyTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  const { id, target, request } = call;
  if (!hasLegacyTasks(call.protocolVersion)) {
    throw new McpError('methodNotFound', `Method not found: ${call.method}`, undefined, id);
  }
  if (call.method === 'tasks/result') {
    // A client that may be asked gets the task's questions on this request's stream.
    const mayAsk = request.headers.sessionId !== undefined;
    const live = openReplyStream(request, id, {}, call.protocolVersion, target, ctx.replies, mayAsk);
    const work = ctx.attempt(() => taskResult(call, ctx, live));
    if (live) return Promise.resolve(live.reply(work, ctx));
    return guardedReply(ctx, () => work, id, target);
  }
  return guardedReply(ctx, () => answerTaskMethod(call, ctx), id, target);
}

async function answerTaskMethod<HostRequest>(
  call: LegacyTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<Record<string, unknown>> {
  const { id, params } = call;
  const owner = await ownerOf(call.target, undefined);
  switch (call.method) {
    case 'tasks/get': {
      const task = await ctx.tasks.get(taskIdOf(params, id), owner, call.target.within);
      if (!task) throw taskNotFound(id);
      return legacyTask(task);
    }
    case 'tasks/list': {
      const page = await ctx.tasks.list(owner, PAGE_SIZE, cursorOf(params.cursor, id), call.target.within);
      const result: Record<string, unknown> = { tasks: page.tasks.map(legacyTask) };
      if (page.next) result.nextCursor = encodeCursor(page.next);
      return result;
    }
    default: {
      const outcome = await ctx.tasks.cancel(taskIdOf(params, id), owner, call.target.within);
      if (!outcome) throw taskNotFound(id);
      // MCP 2025-11-25: cancelling a task that has ended is -32602.
      if (!outcome.cancelled) {
        throw new McpError(
          'invalidParams',
          `Cannot cancel task: it is already ${outcome.task.status}`,
          undefined,
          id,
        );
      }
      return legacyTask(outcome.task);
    }
  }
}

/**
 * Waits for the task's end. While it waits for a person, its questions are sent on this
 * request's stream, each once, tied to the task (MCP 2025-11-25 "Tasks": input required); the
 * client POSTs the answers, and the run goes on.
 */
async function taskResult<HostRequest>(
  call: LegacyTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
  live?: ReplyStream,
): Promise<Record<string, unknown>> {
  const { id } = call;
  const taskId = taskIdOf(call.params, id);
  const owner = await ownerOf(call.target, undefined);
  let gone = false;
  const unwatch = call.request.onClosed(() => {
    gone = true;
  });
  let task: TaskRecord | null | undefined;
  try {
    task = await ctx.tasks.waitForEnd(taskId, owner, () => gone, live && followOn(live));
  } finally {
    unwatch();
  }
  if (task === null) throw taskNotFound(id);
  // The client left: whatever is answered now is read by nobody.
  if (task === undefined || !isTerminal(task.status))
    throw new McpError('internal', 'Internal error', undefined, id);
  const related = { [RELATED_TASK]: { taskId: task.id } };
  if (task.result) {
    const meta = (task.result._meta as Record<string, unknown> | undefined) ?? {};
    return { ...task.result, _meta: { ...meta, ...related } };
  }
  if (task.error) throw taskErrorOf(task.error, id);
  // Cancelled before it had a result: nothing to give but the cancellation.
  throw new McpError('taskFailed', 'Task was cancelled', undefined, id);
}

/**
 * What `tasks/result` says on its stream while it waits: the requests the task waits on, each once,
 * and `notifications/tasks/status` when the status changes (MCP 2025-11-25: a receiver may send
 * it; the terminal one is the result itself). A task that never asks stays `working` until it
 * ends, so its reply stays what it was.
 */
function followOn(live: ReplyStream): (task: TaskRecord) => void {
  const sent = new Set<string>();
  let status: string | undefined;
  return (task) => {
    if (status !== undefined && status !== task.status) {
      live.say({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: legacyTask(task) });
    }
    status = task.status;
    if (task.status !== 'input_required' || !task.inputRequests) return;
    for (const [id, request] of Object.entries(task.inputRequests)) {
      if (sent.has(id)) continue;
      sent.add(id);
      const { method, params } = request as { method: string; params: Record<string, unknown> };
      live.say({ jsonrpc: '2.0', id, method, params });
    }
  };
}

/** A `tasks/list` cursor: where the last page ended, opaque to the client. */
function encodeCursor(cursor: TaskCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/** MCP 2025-11-25 pagination: a cursor we did not make is -32602. */
function cursorOf(value: unknown, id: RequestId): TaskCursor | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    if (typeof value !== 'string') throw new Error('not a string');
    const [createdAt, taskId] = JSON.parse(Buffer.from(value, 'base64url').toString()) as unknown[];
    if (typeof createdAt !== 'number' || typeof taskId !== 'string') throw new Error('not ours');
    return { createdAt, id: taskId };
  } catch {
    throw new McpError('invalidParams', 'Invalid params: the cursor is not valid', undefined, id);
  }
}
