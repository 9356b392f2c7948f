import { McpError, RPC_CODES } from '../../errors/mcp-error.js';
import type { TaskRecord } from '../../store/tasks/types.js';
import { InputRequired } from '../../tool/ask.js';
import type { CallToolResult } from '../../tool/call.js';
import { DelayQueue } from '../../util/delay-queue.js';
import { isJsonObject, isPlainRecord } from '../../util/plain-object.js';
import type { EraContext } from '../context.js';
import { META_CLIENT_CAPABILITIES, META_SERVER_INFO } from '../era.js';
import type { RequestId } from '../messages.js';
import type { EndpointReply } from '../reply.js';
import type { EndpointRequest } from '../request.js';
import type { ServingTarget } from '../target.js';
import type { TaskOutcome } from '../tasks/service.js';
import {
  firstText,
  guardedReply,
  ownerOf,
  startTaskRun,
  taskIdOf,
  taskJson,
  taskNotFound,
  taskRun,
  taskSupportOf,
} from '../tasks/task-call.js';
import type { Envelope } from './envelope.js';

/** The tasks extension of MCP 2026-07-28 (SEP-2663), by its id under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The task methods of the 2026-07-28 era; `tasks/result` and `tasks/list` are gone from it. */
export const MODERN_TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/**
 * How long a `tools/call` of an `optional` tool runs before it becomes a task: a run that ends
 * sooner answers as a plain call (the server decides, SEP-2663), so quick calls cost no task.
 */
export const TASK_GRACE_MS = 100;

const COMPLETE = 'complete';

/** A 2026-07-28 request, as the task methods need it. */
export interface ModernTaskRequest<HostRequest> {
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  version: string;
  envelope: Envelope;
  clientName: string | undefined;
  target: ServingTarget;
  request: EndpointRequest<HostRequest>;
}

/** Whether the request's client declared the tasks extension (per request, in `_meta`: the era keeps no session). */
export function declaresTasks(envelope: Envelope): boolean {
  const extensions = envelope[META_CLIENT_CAPABILITIES].extensions;
  return isPlainRecord(extensions) && isPlainRecord(extensions[TASKS_EXTENSION]);
}

/** 400 / -32021: the request needs the tasks extension, and its client did not declare it. */
export function tasksExtensionRequired(what: string, id: RequestId): McpError {
  return new McpError(
    'missingClientCapability',
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    id,
  );
}

/**
 * A `tools/call` the tasks extension decides about; `undefined` for a plain call. A `required`
 * tool refuses a client without the extension (-32021); with it, a tool that is not `forbidden`
 * runs for `TASK_GRACE_MS`, and becomes a task if it has not ended by then (`required`: whenever
 * it has not asked by then). A question within that window is an `input_required` result, and
 * the retry that answers it starts the window again.
 * The 2025 `task` param is not part of this era, and is ignored.
 */
export function modernTaskCall<HostRequest>(
  call: ModernTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> | undefined {
  const support = taskSupportOf(call.target, call.params);
  if (!declaresTasks(call.envelope)) {
    if (support === 'required') throw tasksExtensionRequired('this tool runs only as a task, and', call.id);
    return undefined;
  }
  if (support === 'forbidden') return undefined;
  // A retry whose run waits on another instance of a farm is served from there as a plain round:
  // the task it might become would not hold the run (docs/tasks.md, "A task that asks").
  if (call.params.requestState !== undefined && !ctx.asking.waitsHere(toolCallOf(call))) return undefined;
  return guardedReply(ctx, () => serverDirected(call, support === 'required', ctx), call.id, call.target);
}

/** The request as `tools/call` reads it, for the question of where its run waits. */
const toolCallOf = <HostRequest>(call: ModernTaskRequest<HostRequest>) => ({
  id: call.id,
  params: call.params,
  protocolVersion: call.version,
  target: call.target,
  onClosed: call.request.onClosed,
  request: call.request.request,
});

async function serverDirected<HostRequest>(
  call: ModernTaskRequest<HostRequest>,
  required: boolean,
  ctx: EraContext<HostRequest>,
): Promise<Record<string, unknown>> {
  ctx.methods.checkCall(call);
  const meta = { [META_SERVER_INFO]: ctx.serverInfoOf(call.target) };
  let tasked = false;
  const started = startTaskRun(ctx, {
    id: call.id,
    params: call.params,
    protocolVersion: call.version,
    target: call.target,
    request: call.request.request,
    clientName: call.clientName,
    // MCP 2026-07-28: closing the stream cancels a call, not a task (only tasks/cancel does).
    onClosed: (listener) =>
      call.request.onClosed(() => {
        if (!tasked) listener();
      }),
  });
  // What the run asks within the grace window is asked before any task (SEP-2663: input rounds
  // come first); a `required` tool's quick result still makes a task.
  const early = await withinGrace(started.result);
  if (early?.value instanceof InputRequired) return { ...early.value.result, _meta: meta };
  if (early && !required) return { resultType: COMPLETE, ...early.value, _meta: meta };
  tasked = true;
  started.observer.toTask();
  let record: TaskRecord;
  try {
    const owner = await ownerOf(call.target, call.clientName);
    // After the grace window the run has begun: the task row has a deadline of its own.
    record = await ctx.tasks.create(owner, ctx.tasks.ttlFor(undefined), call.id);
  } catch (error) {
    started.stop();
    throw error;
  }
  started.observer.bind(record.id);
  ctx.tasks.follow(record, taskRun(ctx, started, call, modernOutcome));
  return { resultType: 'task', ...modernTask(record), _meta: meta };
}

/**
 * The grace windows of every call: one queue and one timer (util/delay-queue.ts) rather than a
 * timer made and cleared per `tools/call`, most of which end well within it.
 */
const graceWindows = new DelayQueue<() => void>(TASK_GRACE_MS, (elapsed) => elapsed());

/** `work`'s value if it settles within `TASK_GRACE_MS`, `undefined` otherwise; its failure as it is. */
function withinGrace<T>(work: Promise<T>): Promise<{ value: T } | undefined> {
  return new Promise((resolve, reject) => {
    const window = graceWindows.add(() => resolve(undefined));
    work.then(
      (value) => {
        graceWindows.remove(window);
        resolve({ value });
      },
      (error: unknown) => {
        graceWindows.remove(window);
        reject(error);
      },
    );
  });
}

/**
 * SEP-2663: a tool result, `isError` or not, completes the task; only a failure that is no tool
 * result (the app crashed) fails it, with a JSON-RPC error.
 */
function modernOutcome(result: CallToolResult, appFailed: boolean): TaskOutcome {
  if (!appFailed) return { status: 'completed', result: result as unknown as Record<string, unknown> };
  const message = firstText(result) ?? 'the app failed to run';
  return { status: 'failed', error: { code: RPC_CODES.INTERNAL_ERROR, message }, statusMessage: message };
}

/** A task as SEP-2663's `Task` gives it: `ttlMs` and `pollIntervalMs`, never `ttl` or `pollInterval`. */
function modernTask(task: TaskRecord): Record<string, unknown> {
  return taskJson(task, { ttl: 'ttlMs', pollInterval: 'pollIntervalMs' });
}

/**
 * `tasks/get` (the task, with its result, error or input requests inlined), `tasks/update` and
 * `tasks/cancel` (empty acks; a cancel of an ended task too). The client declared the extension,
 * and `Mcp-Name` named the task, before this runs.
 */
export function serveModernTaskMethod<HostRequest>(
  call: ModernTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  return guardedReply(ctx, () => answerTaskMethod(call, ctx), call.id, call.target);
}

async function answerTaskMethod<HostRequest>(
  call: ModernTaskRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<Record<string, unknown>> {
  const { id } = call;
  const taskId = taskIdOf(call.params, id);
  const owner = await ownerOf(call.target, call.clientName);
  const meta = { [META_SERVER_INFO]: ctx.serverInfoOf(call.target) };
  if (call.method === 'tasks/cancel') {
    if (!(await ctx.tasks.cancel(taskId, owner, call.target.within))) throw taskNotFound(id);
    return { resultType: COMPLETE, _meta: meta };
  }
  const task = await ctx.tasks.get(taskId, owner, call.target.within);
  if (!task) throw taskNotFound(id);
  // Answers reach the run before the ack, so that a tasks/get right after sees them taken;
  // answers for keys the task does not wait on are ignored (SEP-2663).
  if (call.method === 'tasks/update') {
    await ctx.tasks.inputs.answer(task, inputResponsesOf(call.params, id));
    return { resultType: COMPLETE, _meta: meta };
  }
  return { resultType: COMPLETE, ...detailed(task), _meta: meta };
}

/** `tasks/update`'s `inputResponses`: an object of answers by key, or -32602. */
function inputResponsesOf(params: Record<string, unknown>, id: RequestId): Record<string, unknown> {
  const responses = params.inputResponses;
  if (responses === undefined || responses === null) return {};
  if (isJsonObject(responses)) return responses;
  throw new McpError('invalidParams', 'Invalid params: inputResponses must be an object', undefined, id);
}

/** SEP-2663 `DetailedTask`: what the task ended with, or what it waits on. */
function detailed(task: TaskRecord): Record<string, unknown> {
  const json = modernTask(task);
  if (task.status === 'completed' && task.result) json.result = { resultType: COMPLETE, ...task.result };
  if (task.status === 'failed') {
    json.error = task.error ?? {
      code: RPC_CODES.INTERNAL_ERROR,
      message: task.statusMessage ?? 'the task failed',
    };
  }
  if (task.status === 'input_required' && task.inputRequests) json.inputRequests = task.inputRequests;
  return json;
}
