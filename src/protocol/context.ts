import { McpError } from '../errors/mcp-error.js';
import { RetryLater } from '../errors/retry-later.js';
import { StoreTimeout } from '../errors/unavailable.js';
import type { EmitEvent } from '../observe/events.js';
import type { OnCall } from '../observe/on-call.js';
import type { UsageCounter } from '../observe/usage.js';
import type { Farm } from '../store/farm/farm.js';
import type { RateCheck } from '../store/farm/rate-limit.js';
import { memoryTaskStore } from '../store/tasks/memory-store.js';
import type { TaskStore } from '../store/tasks/types.js';
import { DEFAULT_HUMAN_INPUT_TIMEOUT_MS } from '../tool/ask.js';
import { callScope, subjectOf } from '../tool/inflight.js';
import type { ToolNamer } from '../tool/tool.js';
import type { CanUseTool, ResolvedServer, RunApp } from '../types/index.js';
import { Deadlines } from '../util/deadlines.js';
import { lookupFailure, resolveWithAccess } from './access.js';
import { type Asking, createAsking } from './asking/asking.js';
import type { RequestId } from './messages.js';
import type { QuotaCheck } from './quota.js';
import type { ErrorContext, ErrorReporter } from './report.js';
import type { EndpointRequest } from './request.js';
import { requestBudget } from './request-budget.js';
import { ResolveDeadline } from './resolve-deadline.js';
import { Signer } from './signing.js';
import { type ReplyStreams, replyStreams } from './stream/reply-stream.js';
import type { Resumability } from './stream/resumability.js';
import { appIdOf, checkServing, type ServingTarget } from './target.js';
import { TaskService } from './tasks/service.js';
import { visibleTools } from './tool-access.js';
import { createToolLists } from './tool-list.js';
import { createToolMethods, type ToolMethods } from './tool-methods.js';

export interface ServerInfo {
  name: string;
  version: string;
}

/** What the protocol core is made with. */
export interface CoreOptions<HostRequest> {
  runApp: RunApp<HostRequest>;
  serverInfo: ServerInfo;
  toolName?: ToolNamer;
  callTimeoutMs: number;
  /** Largest decoded size of a `data:` URL a file argument may carry (README, "Files in and out"). */
  maxDataUrlBytes: number;
  /** Most bytes of inline files one `tools/call` result may carry (README, "Files in and out"). */
  maxInlineResultBytes: number;
  /** Most bytes one `tools/call` result may take once serialized (docs/http-contract.md, "The tool"); default 16 MiB. */
  maxResultBytes?: number;
  /** Silence after which a `tools/call` reply that may stream sends a heartbeat; 0 or absent: none. */
  heartbeatMs?: number;
  report: ErrorReporter;
  /** The longest `resolve` may take; `0`: no limit. */
  resolveTimeoutMs: number;
  /** Counts each request to a serving server against its rate limit; none when absent. */
  rateCheck?: RateCheck;
  /** The farm the store belongs to: cancellations then reach every instance. */
  farm?: Farm;
  /** Where streamed replies are kept for `GET` with `Last-Event-ID`; none: streams are not resumable. */
  resumability?: Resumability;
  /** The host's `onCall` hook: one event per finished `tools/call`. */
  onCall?: OnCall;
  /** Tells the `metrics` sink what happens (observe/events.ts); a no-op without one. */
  emit?: EmitEvent;
  /** The key the session ids and request states are signed with; absent: one per server, from its code. */
  signingSecret?: string;
  /** How long `run.ask` waits for a person by default, in ms. Default 600000. */
  humanInputTimeoutMs?: number;
  /** `maxWaitingRuns`: runs of this instance that may wait for a person at once; absent: no limit. */
  maxWaitingRuns?: number;
  /** Where tasks live and how long they are kept (docs/tasks.md); absent: in this process, with the defaults. */
  tasks?: TaskOptions;
  /** Counts every call per server, tool, caller and hour (docs/usage.md); absent: not counted. */
  usage?: UsageCounter;
  /** Checks each `tools/call` against its caller's daily quota (docs/usage.md); absent: no quotas. */
  quota?: QuotaCheck;
  /** Which tools a caller may use (docs/toolsets.md); absent: every tool of the server. */
  canUseTool?: CanUseTool;
}

/** The task options of `mcpServer`, and the store tasks live in. */
export interface TaskOptions {
  store: TaskStore;
  leaseMs: number;
  maxResultBytes: number;
  maxTtlMs: number;
  /** `maxActiveTasks`; absent or 0: no limit. */
  maxActive?: number;
}

export const DEFAULT_TASK_OPTIONS = {
  leaseMs: 30_000,
  maxResultBytes: 10 * 1024 * 1024,
  maxTtlMs: 24 * 60 * 60 * 1000,
  /** `maxActiveTasks`: running tasks one caller may hold on one server. */
  maxActive: 100,
} as const;

/** What every era's `handle(request, ctx)` is given: the shared services, made once per core. */
export interface EraContext<HostRequest> {
  serverInfo: ServerInfo;
  /** What `initialize` and `server/discover` say of the target: a toolset by its own name (docs/toolsets.md). */
  serverInfoOf(target: ServingTarget): ServerInfo;
  methods: ToolMethods<HostRequest>;
  /** How runs reach a person: questions on a call's stream, answers POSTed, 2026-07-28 rounds. */
  asking: Asking;
  report: ErrorReporter;
  /** Tells the `metrics` sink what happens: waits for a person, task statuses (observe/events.ts). */
  emit: EmitEvent;
  /** What the replies of `tools/call` that may stream share: heartbeats, resumability. */
  replies: ReplyStreams;
  /** The endpoint's tasks (docs/tasks.md). */
  tasks: TaskService;
  /**
   * Looks the URL's server code up, lets the caller of an `"oauth"` server in (401 / 403 otherwise),
   * and checks that it may serve (404 / 503 otherwise), then counts the request against the
   * server's rate limit (429 over it) unless it carries notifications only. A failing lookup is
   * reported and answers an opaque internal error, or 503 when the database is out of reach or too slow.
   */
  resolveTarget(
    request: EndpointRequest<HostRequest>,
    id: RequestId | null,
    countsToRateLimit?: boolean,
  ): Promise<ServingTarget>;
  /**
   * Counts `points` messages against the server's rate limit: how many of them may go on (all of
   * them without a limit, or while the limiter fails); 429 when none may.
   */
  allowance(target: ServingTarget, points: number, id: RequestId | null): Promise<number>;
  /**
   * Takes a `tools/call` from its caller's daily quota: 429 with `Retry-After` once the UTC day's
   * calls are spent. `undefined` at once for a caller without a quota.
   */
  checkQuota(target: ServingTarget, id: RequestId | null): Promise<void> | undefined;
  /** Runs a method, turning anything unexpected into an opaque internal error reported with its cause. */
  guarded<T>(work: () => T | Promise<T>, id: RequestId | null, target?: ServingTarget): Promise<T>;
  /** Runs a method as `guarded` does, leaving its failures as they are, for a caller that maps them with `opaque`. */
  attempt<T>(work: () => T | Promise<T>): Promise<T>;
  /** What a method's failure answers: an `McpError` as it is, anything else an internal error reported with its cause. */
  opaque(error: unknown, id: RequestId | null, target?: ServingTarget): McpError;
}

export function createEraContext<HostRequest>(options: CoreOptions<HostRequest>): EraContext<HostRequest> {
  const { report, resolveTimeoutMs } = options;
  const deadline = new ResolveDeadline(resolveTimeoutMs);
  // The end user and the task rows are database work on the request path: they share the lookup's deadline.
  const miss = () => new StoreTimeout('a database step of the request', resolveTimeoutMs);
  const steps = new Deadlines(resolveTimeoutMs, miss);
  const { farm, resumability } = options;
  const farmed = farm && resumability && { farm, streams: resumability.store, report };
  const emit = options.emit ?? (() => {});
  const asking = createAsking(new Signer(options.signingSecret), farmed, options.emit);
  const humanInputTimeoutMs = options.humanInputTimeoutMs ?? DEFAULT_HUMAN_INPUT_TIMEOUT_MS;
  const taskOptions = options.tasks ?? { store: memoryTaskStore(), ...DEFAULT_TASK_OPTIONS };
  const lists = createToolLists(options.toolName, { maxDataUrlBytes: options.maxDataUrlBytes });
  const listTools = (resolved: ResolvedServer) =>
    lists.listOf(resolved.server, resolved.app, resolved.members);
  const { canUseTool } = options;
  return {
    serverInfo: options.serverInfo,
    serverInfoOf(target) {
      return target.server.kind === 'toolset'
        ? { ...options.serverInfo, name: target.server.name }
        : options.serverInfo;
    },
    methods: createToolMethods({ ...options, asking, humanInputTimeoutMs }),
    asking,
    report,
    emit,
    replies: replyStreams(options.heartbeatMs ?? 0, options.resumability, report),
    tasks: new TaskService({
      ...taskOptions,
      ...(options.farm ? { farm: options.farm } : {}),
      report: (error, serverId) => report(error, { phase: 'dispatch', serverId }),
      onStatus: emit,
      deadlineMs: resolveTimeoutMs,
    }),

    async resolveTarget(request, id, countsToRateLimit = true) {
      const startedAt = performance.now();
      const { resolved, auth, key } = await resolveWithAccess(request, id, report, deadline);
      const target = checkServing(resolved, id, listTools, auth, key);
      if (canUseTool) target.tools = await visibleTools(target, canUseTool, id, report);
      const within = requestBudget(startedAt, resolveTimeoutMs, steps, miss);
      const { endUser } = target;
      target.endUser = (name) => within(endUser(name));
      target.within = within;
      if (options.rateCheck && countsToRateLimit) await checkRate(options.rateCheck, target, 1, id, report);
      return target;
    },

    checkQuota: (target, id) => options.quota?.(target, id),

    allowance: async (target, points, id) =>
      options.rateCheck ? checkRate(options.rateCheck, target, points, id, report) : points,

    // A callback on the method's promise rather than an async function, which would keep its
    // whole frame for as long as the method runs.
    guarded(work, id, target) {
      // Only the ids are kept for the report: the handler lives as long as the method.
      const where = whereOf(target);
      return attempt(work).then(undefined, (error: unknown) => {
        throw opaque(error, id, where, report);
      });
    },

    attempt,

    opaque: (error, id, target) => opaque(error, id, whereOf(target), report),
  };
}

/** Runs `work`: its promise as it is, a synchronous throw as a rejection. */
export function attempt<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

const whereOf = (target: ServingTarget | undefined): ErrorContext => ({
  phase: 'dispatch',
  serverId: target?.server.id,
  appId: appIdOf(target),
});

/**
 * What a method's failure answers: an `McpError` as it is; anything else is reported with its
 * cause and answers an internal error, or 503 with `Retry-After` when the database is out of reach
 * or too slow (creating an end user, docs/http-contract.md, row 19a).
 */
function opaque(error: unknown, id: RequestId | null, where: ErrorContext, report: ErrorReporter): McpError {
  if (error instanceof McpError) return error;
  report(error, where);
  return lookupFailure(error, id);
}

/**
 * Counts `points` messages; how many may go on. None: 429 with the wait in `Retry-After`. A limiter
 * that fails lets them through (reported): rate limits protect the service, and must not become its
 * outage.
 */
async function checkRate(
  rateCheck: RateCheck,
  target: ServingTarget,
  points: number,
  id: RequestId | null,
  report: ErrorReporter,
): Promise<number> {
  let verdict: Awaited<ReturnType<RateCheck>>;
  try {
    // A caller key has its own allowance (docs/keys.md); every other caller shares the server's.
    const rateKey =
      target.caller.kind === 'key' ? callScope(target.server.id, subjectOf(target.caller)) : target.server.id;
    verdict = await rateCheck(rateKey, points);
  } catch (error) {
    report(error, { phase: 'dispatch', serverId: target.server.id, appId: appIdOf(target) });
    return points;
  }
  if (verdict.allowed === 0) throw new RetryLater('tooManyRequests', 'Too many requests', verdict.waitMs, id);
  return verdict.allowed;
}
