import type { z } from 'zod';
import { McpError } from '../errors/mcp-error.js';
import type { EmitEvent } from '../observe/events.js';
import { createCallObserver, type OnCall } from '../observe/on-call.js';
import type { UsageCounter } from '../observe/usage.js';
import type { Farm } from '../store/farm/farm.js';
import type { RunInputs } from '../tool/arguments.js';
import type { AskChannel, InputRequired } from '../tool/ask.js';
import { type CallToolResult, errorResult } from '../tool/call.js';
import type { ToolFeatures } from '../tool/features.js';
import { type CallId, callScope, subjectOf } from '../tool/inflight.js';
import type { CallObservation } from '../tool/observer.js';
import { createToolRuns, type ToolRun } from '../tool/runs.js';
import type { EndUser, RunApp } from '../types/index.js';
import { isPlainJsonObject } from '../util/plain-object.js';
import { featuresOf, isModernVersion } from '../versions.js';
import type { Asking } from './asking/asking.js';
import { DEFAULT_CLIENT_NAME } from './client-name.js';
import { CallToolParamsSchema, CancelledParamsSchema, describeIssues, type RequestId } from './messages.js';
import type { SerializedResult } from './reply.js';
import type { ErrorReporter } from './report.js';
import { appIdOf, type ServingTarget } from './target.js';
import type { ToolCall } from './tool-call.js';
import type { ServedTool } from './tool-list.js';

export type { ToolCall } from './tool-call.js';

export interface ToolMethodOptions<HostRequest> {
  runApp: RunApp<HostRequest>;
  callTimeoutMs: number;
  maxInlineResultBytes: number;
  /** Most bytes one `tools/call` result may take once serialized; default 16 MiB. */
  maxResultBytes?: number;
  report: ErrorReporter;
  /** The store's farm: cancellations then reach the instance that runs the call. */
  farm?: Farm;
  onCall?: OnCall;
  /** Tells the `metrics` sink when calls start and end. */
  emit?: EmitEvent;
  /** Counts every call per server, tool, caller and hour (docs/usage.md); none: not counted. */
  usage?: UsageCounter;
  /** How runs reach a person (`run.ask`), and how long they wait by default. */
  asking: Asking;
  humanInputTimeoutMs: number;
  /** `maxWaitingRuns`; absent: no limit. */
  maxWaitingRuns?: number;
}

/**
 * The tool methods both eras share, in JSON-RPC terms: listing, calling and cancelling the tools
 * of a server (one, or a toolset's), each looked up in the target's list (`ToolList`). The tool
 * itself (its shape, its checks, its runs) lives in `tool/`.
 */
export function createToolMethods<HostRequest>(options: ToolMethodOptions<HostRequest>) {
  const { farm } = options;
  const runs = createToolRuns<HostRequest>({
    runApp: options.runApp,
    callTimeoutMs: options.callTimeoutMs,
    maxInlineResultBytes: options.maxInlineResultBytes,
    ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
    report: (error, phase, server, app) =>
      options.report(error, { phase, serverId: server.id, appId: app.id }),
    humanInputTimeoutMs: options.humanInputTimeoutMs,
    ...(options.maxWaitingRuns === undefined ? {} : { maxWaitingRuns: options.maxWaitingRuns }),
    asking: options.asking as AskChannel<unknown>,
    // The other instances learn which calls run here, so that they pass on only cancellations of those.
    announcer: farm && {
      delayMs: farm.announceDelayMs,
      announce: (scope, id, running) => {
        farm
          .announceCall(scope, id, running)
          .catch((error: unknown) => options.report(error, { phase: 'dispatch' }));
      },
    },
  });
  // A cancellation sent to any instance of the farm stops the run wherever it runs.
  options.farm?.onCancel((scope, requestId) => runs.cancel(scope, requestId));
  const observer = createCallObserver(
    options.onCall,
    (error) => options.report(error, { phase: 'onCall' }),
    options.emit,
    options.usage,
  );

  /**
   * Checks the arguments and starts the run. The end user is looked up while the run is made, and
   * the run starts once it is known; a lookup that fails fails the call.
   */
  function run({ call, served, args, features }: CheckedCall<HostRequest>, observed: CallObservation) {
    call.tasked?.observe(observed);
    const { tool } = served;
    let inputs: RunInputs;
    let endUser: Promise<EndUser>;
    try {
      const checked = tool.checkArguments(args);
      if (!checked.ok) {
        observed.finish('invalid_arguments');
        return Promise.resolve(invalidArguments(tool.name, checked.problems, features, call.id));
      }
      inputs = checked.value;
      endUser = call.target.endUser(call.clientName ?? DEFAULT_CLIENT_NAME);
    } catch (error) {
      // An invalid-params error here is the pre-2025-11-25 form of invalid arguments.
      const invalid = error instanceof McpError && error.kind === 'invalidParams';
      observed.finish(invalid ? 'invalid_arguments' : 'failed');
      return Promise.reject(error);
    }
    // Built field by field rather than spread together: this runs on every call.
    const { target } = call;
    const toolRun: ToolRun<HostRequest> = {
      id: call.id,
      tool,
      app: served.app,
      server: target.server,
      endUser,
      inputs: inputs.inputs,
      features,
      protocolVersion: call.protocolVersion,
      request: call.request,
      onClosed: call.onClosed,
      observer: call.observer,
      observed,
      asks: call,
      caller: target.caller,
    };
    if (inputs.query !== undefined) toolRun.query = inputs.query;
    if (inputs.conversationId !== undefined) toolRun.conversationId = inputs.conversationId;
    if (call.runKey !== undefined) toolRun.runKey = call.runKey;
    if (call.untimed) toolRun.untimed = true;
    if (target.auth) toolRun.auth = target.auth;
    return runs.start(toolRun);
  }

  /** The call's params and its tool, or the error that refuses the call before anything runs. */
  function checkCall(call: Pick<ToolCall<HostRequest>, 'id' | 'params' | 'target'>) {
    const params = isCallToolParams(call.params) ? call.params : parseCallParams(call);
    const served = call.target.tools.find(params.name);
    // A tool the caller may not use is not in its list: it is as unknown as a name never served.
    if (!served) throw new McpError('unknownTool', `Unknown tool: ${params.name}`, undefined, call.id);
    return { params, served };
  }

  return {
    checkCall,

    /** Stops the run registered under `key` in that scope (`callScope`), if it runs in this process. */
    stop(scope: string, key: CallId): boolean {
      return runs.cancel(scope, key);
    },

    listTools(target: ServingTarget, protocolVersion: string): SerializedResult {
      return target.tools.listResult(featuresOf(protocolVersion));
    },

    /**
     * Checks the call and hands it to its run. Not `async`: the run's promise is what the caller
     * gets, rather than another one that waits for it as long as the app runs.
     */
    callTool(call: ToolCall<HostRequest>): Promise<CallToolResult | InputRequired> {
      let observing: CallObservation | Promise<CallObservation>;
      let checked: CheckedCall<HostRequest>;
      try {
        const { params, served } = checkCall(call);
        const { server } = call.target;
        // MCP 2026-07-28: a retry that carries the state of a run waiting for answers resumes it.
        if (call.params.requestState !== undefined && isModernVersion(call.protocolVersion))
          return options.asking.resume(call) as Promise<CallToolResult | InputRequired>;
        checked = { call, served, args: params.arguments ?? {}, features: featuresOf(call.protocolVersion) };
        observing = observer.start(
          {
            serverId: server.id,
            tenantId: server.tenantId,
            appId: served.app.id,
            tool: served.name,
            protocolVersion: call.protocolVersion,
            requestId: call.id,
          },
          call.target.caller,
        );
      } catch (error) {
        return Promise.reject(error);
      }
      if (observing instanceof Promise) return observing.then((observed) => run(checked, observed));
      return run(checked, observing);
    },

    /**
     * `notifications/cancelled`: aborts every matching call of the same server (of the same
     * signed-in user on an `"oauth"` server) in this process, or, when none runs here, tells the
     * other instances of the farm if one of them runs it (see `Farm.publishCancel`).
     */
    cancel(target: ServingTarget, params: Record<string, unknown> | undefined): void {
      const parsed = CancelledParamsSchema.safeParse(params ?? {});
      if (!parsed.success) return;
      const { server } = target;
      const scope = callScope(server.id, subjectOf(target.caller));
      if (runs.cancel(scope, parsed.data.requestId) || !options.farm) return;
      options.farm
        .publishCancel(scope, parsed.data.requestId)
        .catch((error: unknown) =>
          options.report(error, { phase: 'dispatch', serverId: server.id, appId: appIdOf(target) }),
        );
    },
  };
}

/** A `tools/call` whose params passed and whose tool is known; its arguments still to check. */
interface CheckedCall<HostRequest = unknown> {
  call: ToolCall<HostRequest>;
  served: ServedTool;
  args: Record<string, unknown>;
  features: ToolFeatures;
}

export type ToolMethods<HostRequest> = ReturnType<typeof createToolMethods<HostRequest>>;

type CallToolParams = z.infer<typeof CallToolParamsSchema>;

/**
 * The params every well-behaved client sends, recognised without zod: exactly what
 * `CallToolParamsSchema` accepts; anything else goes through the schema, which words the problem.
 */
function isCallToolParams(params: Record<string, unknown>): params is CallToolParams {
  const args = params.arguments;
  return typeof params.name === 'string' && (args === undefined || args === null || isPlainJsonObject(args));
}

function parseCallParams(call: { id: RequestId; params: Record<string, unknown> }): CallToolParams {
  const parsed = CallToolParamsSchema.safeParse(call.params);
  if (parsed.success) return parsed.data;
  const { text, issues } = describeIssues(parsed.error);
  throw new McpError('invalidParams', `Invalid params for tools/call: ${text}`, { issues }, call.id);
}

/**
 * Arguments that fail the form: from 2025-11-25 a tool result the model can read and correct
 * (SEP-1303); before, a JSON-RPC invalid-params error (see `docs/http-contract.md`).
 */
function invalidArguments(
  toolName: string,
  problems: string[],
  features: ToolFeatures,
  id: RequestId,
): CallToolResult {
  const text = `Invalid arguments for tool ${toolName}: ${problems.join('; ')}`;
  if (features.toolErrorsAsResults) return errorResult(text);
  throw new McpError('invalidParams', text, { problems }, id);
}
