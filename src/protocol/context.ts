import type { OnCall } from '../observe/on-call.js';
import type { ToolNamer } from '../tool/tool.js';
import type { RunApp } from '../types.js';
import { resolveWithAccess } from './access.js';
import { McpError } from './errors.js';
import type { RequestId } from './messages.js';
import type { ErrorReporter } from './report.js';
import type { EndpointRequest } from './request.js';
import { checkServing, type ServingTarget } from './target.js';
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
  /** Silence after which a `tools/call` reply that may stream sends a heartbeat; 0 or absent: none. */
  heartbeatMs?: number;
  report: ErrorReporter;
  /** The host's `onCall` hook: one event per finished `tools/call`. */
  onCall?: OnCall;
}

/** What every era's `handle(request, ctx)` is given: the shared services, made once per core. */
export interface EraContext<HostRequest> {
  serverInfo: ServerInfo;
  methods: ToolMethods<HostRequest>;
  report: ErrorReporter;
  /** See `CoreOptions.heartbeatMs`; 0: no heartbeats. */
  heartbeatMs: number;
  /**
   * Looks the URL's server code up, lets the caller of an `"oauth"` server in (401 / 403 otherwise),
   * and checks that it may serve (404 / 503 otherwise). A failing lookup is reported and answers an
   * opaque internal error.
   */
  resolveTarget(request: EndpointRequest<HostRequest>, id: RequestId | null): Promise<ServingTarget>;
  /** Runs a method, turning anything unexpected into an opaque internal error reported with its cause. */
  guarded<T>(work: () => T | Promise<T>, id: RequestId | null, target?: ServingTarget): Promise<T>;
}

export function createEraContext<HostRequest>(options: CoreOptions<HostRequest>): EraContext<HostRequest> {
  const { report } = options;
  return {
    serverInfo: options.serverInfo,
    methods: createToolMethods(options),
    report,
    heartbeatMs: options.heartbeatMs ?? 0,

    async resolveTarget(request, id) {
      const { resolved, auth } = await resolveWithAccess(request, id, report);
      return checkServing(resolved, id, auth);
    },

    async guarded(work, id, target) {
      try {
        return await work();
      } catch (error) {
        if (error instanceof McpError) throw error;
        report(error, { phase: 'dispatch', serverId: target?.server.id, appId: target?.app.id });
        throw new McpError('internal', 'Internal error', undefined, id);
      }
    },
  };
}
