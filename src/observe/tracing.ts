import type { Context, Span, Tracer } from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../versions.js';
import type { CallStart } from './events.js';

/**
 * OpenTelemetry, when the host has `@opentelemetry/api` installed (an optional peer dependency):
 * loaded once, on first use, and never a failure when it is absent. Spans go to whatever tracer
 * provider the host registered; with none, a call makes no span.
 */
type OpenTelemetryApi = typeof import('@opentelemetry/api');

let api: OpenTelemetryApi | null | undefined;
let loading: Promise<void> | undefined;

/**
 * The specifier in a variable: a bundler that packs a host's server then leaves this optional import
 * to run time instead of failing the build when the host does not have the package.
 */
const OPENTELEMETRY_API = '@opentelemetry/api';

/** Starts loading the API; resolves once it is known whether the host has it. */
export function loadOpenTelemetry(): Promise<void> {
  loading ??= (import(OPENTELEMETRY_API) as Promise<OpenTelemetryApi>).then(
    (loaded) => {
      // An ES module import of the CommonJS package wraps it in `default` on some loaders.
      api = 'trace' in loaded ? loaded : (loaded as { default: OpenTelemetryApi }).default;
    },
    () => {
      api = null;
    },
  );
  return loading;
}

/** Whether `loadOpenTelemetry()` has settled. */
export const openTelemetryLoaded = (): boolean => api !== undefined;

/** One `tools/call` span, and the context in which the app runs so that the host's own spans nest in it. */
export interface CallSpan {
  span: Span;
  context: Context;
  /** Runs `work` with this span active. */
  run<T>(work: () => T): T;
}

let tracer: Tracer | undefined;
const TRACER_NAME = 'express-app-mcp';

/**
 * Starts the span of a `tools/call`, named and attributed after the OpenTelemetry semantic
 * conventions for MCP (`{mcp.method.name} {gen_ai.tool.name}`, kind server); `null` without the API
 * or a tracer provider, having made nothing for the call.
 */
export function startCallSpan(call: CallStart): CallSpan | null {
  if (!api) return null;
  const otel = api;
  // The API alone, as many dependencies bring it, with no tracer provider registered: every span
  // would be a no-op, so none is made. Checked on each call: a host may register one at any time.
  const provider = otel.trace.getTracerProvider();
  if (
    provider instanceof otel.ProxyTracerProvider &&
    provider.getDelegateTracer(TRACER_NAME, PACKAGE_VERSION) === undefined
  ) {
    return null;
  }
  tracer ??= otel.trace.getTracer(TRACER_NAME, PACKAGE_VERSION);
  const span = tracer.startSpan(`tools/call ${call.tool}`, {
    kind: otel.SpanKind.SERVER,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.tool,
      'mcp.protocol.version': call.protocolVersion,
      'jsonrpc.request.id': String(call.requestId),
      'express_app_mcp.server.id': call.serverId,
      'express_app_mcp.app.id': call.appId,
    },
  });
  // No tracer provider registered, or this call sampled out: nothing to record or to parent.
  if (!span.isRecording()) {
    span.end();
    return null;
  }
  const context = otel.trace.setSpan(otel.context.active(), span);
  return { span, context, run: (work) => otel.context.with(context, work) };
}

/** Ends a call's span with its outcome: an error status for anything but a successful call. */
export function endCallSpan(call: CallSpan, outcome: string, attributes: Record<string, string>): void {
  call.span.setAttributes(attributes);
  if (outcome !== 'ok') {
    call.span.setAttribute('error.type', outcome);
    call.span.setStatus({ code: api!.SpanStatusCode.ERROR, message: outcome });
  }
  call.span.end();
}
