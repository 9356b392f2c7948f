import type { Request } from 'express';
import type { z } from 'zod';
import { type CallObservation, createCallObserver, type OnCall, outcomeOf } from '../observe/on-call.js';
import { CallCancelled, type CallToolResult, errorResult, runToolCall } from '../tool/call.js';
import { RunStop } from '../tool/stop.js';
import type { AppTool, ToolNamer } from '../tool/tool.js';
import { createToolCache } from '../tool/tool.js';
import type { AppRun, RunApp } from '../types.js';
import type { ErrorReporter } from './context.js';
import { McpError } from './errors.js';
import { InflightCalls } from './inflight.js';
import { CallToolParamsSchema, CancelledParamsSchema, describeIssues, type RequestId } from './messages.js';
import { isPlainRecord } from './plain.js';
import { rememberJson } from './serialized.js';
import type { ServingTarget } from './server.js';
import { featuresOf, type VersionFeatures } from './versions.js';

export interface MethodOptions {
  runApp: RunApp;
  toolName?: ToolNamer;
  callTimeoutMs: number;
  report: ErrorReporter;
  onCall?: OnCall;
}

/** What a method needs to know about the request it serves; the version is explicit (SPEC §2.1). */
export interface MethodCall {
  id: RequestId;
  params: Record<string, unknown>;
  protocolVersion: string;
  target: ServingTarget;
  /** See `EndpointRequest.onClosed`. */
  onClosed: (listener: () => void) => () => void;
  request: Request;
  /** The client's name for its end user record (SPEC §4.5), when the request tells it. */
  clientName?: string;
}

/** Unnamed clients' runs are attributed to an end user with this name. */
export const DEFAULT_CLIENT_NAME = 'mcp-client';

/** `clientInfo.name@clientInfo.version` (SPEC §4.5), or undefined when the client did not say. */
export function clientNameOf(clientInfo: unknown): string | undefined {
  if (typeof clientInfo !== 'object' || clientInfo === null) return undefined;
  const { name, version } = clientInfo as { name?: unknown; version?: unknown };
  if (typeof name !== 'string' || name === '') return undefined;
  return typeof version === 'string' && version !== '' ? `${name}@${version}` : name;
}

/** The tool methods both eras share: listing, calling and cancelling a server's one tool. */
export function createToolMethods(options: MethodOptions) {
  const toolFor = createToolCache(options.toolName);
  const inflight = new InflightCalls();
  /** The `tools/list` result of each descriptor, made and serialized once (descriptors are cached per tool and version). */
  const listResults = new WeakMap<object, { tools: readonly unknown[] }>();
  const observer = createCallObserver(options.onCall, (error) => options.report(error, { phase: 'onCall' }));

  function parseParams<S extends z.ZodType>(schema: S, call: MethodCall, method: string): z.infer<S> {
    const parsed = schema.safeParse(call.params);
    if (parsed.success) return parsed.data;
    const { text, issues } = describeIssues(parsed.error);
    throw new McpError('invalidParams', `Invalid params for ${method}: ${text}`, { issues }, call.id);
  }

  /** Checks the arguments, then runs the app once; `observed` learns the end user and the outcome. */
  async function runCall(
    call: MethodCall,
    tool: AppTool,
    args: Record<string, unknown>,
    features: VersionFeatures,
    observed: CallObservation,
  ): Promise<CallToolResult> {
    const { server, app } = call.target;
    const checked = tool.checkArguments(args);
    if (!checked.ok) {
      observed.finish('invalid_arguments');
      return invalidArguments(tool.name, checked.problems, features, call.id);
    }
    const endUser = await call.target.endUser(call.clientName ?? DEFAULT_CLIENT_NAME);
    observed.attribute(endUser);

    // One stopper stops the run, whoever stops it first: the client closing the response, a
    // `notifications/cancelled`, or the timeout (in runToolCall), each with its own reason.
    // (AbortSignal.any and a controller per cause cost more than the rest of a call.)
    const stop = new RunStop();
    const unwatch = call.onClosed(() => stop.stop());
    const unregister = inflight.add(server.id, call.id, stop);
    const run: AppRun = {
      app,
      server,
      endUser,
      ...checked.value,
      // A getter: the AbortSignal is made only if the app reads it (RunStop), so `run` is
      // never spread from here on.
      get signal() {
        return stop.signal;
      },
      protocolVersion: call.protocolVersion,
      request: call.request,
    };
    let appFailed = false;
    try {
      const result = await runToolCall(tool, run, stop, features, {
        runApp: (appRun) => observed.run(() => options.runApp(appRun)),
        callTimeoutMs: options.callTimeoutMs,
        report: (error, phase = 'run') => {
          if (phase === 'run') appFailed = true;
          options.report(error, { phase, serverId: server.id, appId: app.id });
        },
      });
      observed.finish(outcomeOf(result, stop, appFailed));
      return result;
    } finally {
      unwatch();
      unregister();
    }
  }

  return {
    toolOf(target: ServingTarget): AppTool {
      return toolFor(target.app, target.server);
    },

    listTools(call: Pick<MethodCall, 'target' | 'protocolVersion'>): { tools: readonly unknown[] } {
      const descriptor = toolFor(call.target.app, call.target.server).describe(
        featuresOf(call.protocolVersion),
      );
      let result = listResults.get(descriptor);
      if (!result) {
        result = rememberJson(Object.freeze({ tools: Object.freeze([descriptor]) }));
        listResults.set(descriptor, result);
      }
      return result;
    },

    async callTool(call: MethodCall): Promise<CallToolResult> {
      const params = isCallToolParams(call.params)
        ? call.params
        : parseParams(CallToolParamsSchema, call, 'tools/call');
      const { server, app } = call.target;
      const tool = toolFor(app, server);
      if (params.name !== tool.name) {
        throw new McpError('unknownTool', `Unknown tool: ${params.name}`, undefined, call.id);
      }
      const features = featuresOf(call.protocolVersion);
      const observing = observer.start({
        serverId: server.id,
        tenantId: server.tenantId,
        appId: app.id,
        tool: tool.name,
        protocolVersion: call.protocolVersion,
        requestId: call.id,
      });
      const observed = observing instanceof Promise ? await observing : observing;
      try {
        return await runCall(call, tool, params.arguments ?? {}, features, observed);
      } catch (error) {
        // An invalid-params error here is the pre-2025-11-25 form of invalid arguments.
        observed.finish(
          error instanceof McpError && error.kind === 'invalidParams' ? 'invalid_arguments' : 'failed',
        );
        throw error;
      }
    },

    /** `notifications/cancelled`: aborts the matching call of the same server in this process. */
    cancel(target: ServingTarget, params: Record<string, unknown> | undefined): void {
      const parsed = CancelledParamsSchema.safeParse(params ?? {});
      if (parsed.success) inflight.cancel(target.server.id, parsed.data.requestId, new CallCancelled());
    },
  };
}

export type ToolMethods = ReturnType<typeof createToolMethods>;

/**
 * The params every well-behaved client sends, recognised without zod: exactly what
 * `CallToolParamsSchema` accepts; anything else goes through the schema, which words the problem.
 */
function isCallToolParams(params: Record<string, unknown>): params is z.infer<typeof CallToolParamsSchema> {
  const args = params.arguments;
  return typeof params.name === 'string' && (args === undefined || args === null || isPlainRecord(args));
}

/**
 * Arguments that fail the form: from 2025-11-25 a tool result the model can read and correct
 * (SEP-1303); before, a JSON-RPC invalid-params error (SPEC §2.1).
 */
function invalidArguments(
  toolName: string,
  problems: string[],
  features: VersionFeatures,
  id: RequestId,
): CallToolResult {
  const text = `Invalid arguments for tool ${toolName}: ${problems.join('; ')}`;
  if (features.toolErrorsAsResults) return errorResult(text);
  throw new McpError('invalidParams', text, { problems }, id);
}
