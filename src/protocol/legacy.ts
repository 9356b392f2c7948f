import type { EndpointRequest } from './context.js';
import type { ServerInfo } from './endpoint.js';
import { McpError } from './errors.js';
import { describeIssues, InitializeParamsSchema, type Message, type RequestId } from './messages.js';
import { clientNameOf, DEFAULT_CLIENT_NAME, type ToolMethods } from './methods.js';
import type { ServingTarget } from './server.js';
import {
  DEFAULT_HEADER_VERSION,
  isLegacyVersion,
  negotiateLegacyVersion,
  SUPPORTED_VERSIONS,
} from './versions.js';

/** A legacy-era message once its envelope, id and version are known good (SPEC §2 rows 8-11). */
export type LegacyCall =
  | { kind: 'notification'; method: string; params?: Record<string, unknown> }
  | {
      kind: 'request';
      id: RequestId;
      method: string;
      params: Record<string, unknown>;
      protocolVersion: string;
    };

const isNotificationMethod = (method: string) => method.startsWith('notifications/');

/**
 * Rows 10 and 11: a request needs an id; outside `initialize` its version comes from the
 * `MCP-Protocol-Version` header alone (absent = 2025-03-26), and notifications are taken whatever
 * the header says. `initialize` settles its version from its params when it runs.
 */
export function classifyLegacy(message: Message, headerVersion: string | undefined): LegacyCall {
  const id = message.id ?? null;
  if (id === null) {
    if (isNotificationMethod(message.method)) {
      return { kind: 'notification', method: message.method, params: message.params };
    }
    throw new McpError('invalidRequest', 'Invalid request: request id is required');
  }
  const params = message.params ?? {};
  if (message.method === 'initialize') {
    return { kind: 'request', id, method: message.method, params, protocolVersion: DEFAULT_HEADER_VERSION };
  }
  const version =
    headerVersion === undefined || headerVersion === '' ? DEFAULT_HEADER_VERSION : headerVersion;
  if (!isLegacyVersion(version)) {
    // MCP 2025-06-18 transports: an invalid or unsupported MCP-Protocol-Version MUST be 400.
    throw new McpError(
      'unsupportedProtocolVersion',
      `Unsupported MCP-Protocol-Version: ${version}`,
      { supported: SUPPORTED_VERSIONS },
      id,
    );
  }
  return { kind: 'request', id, method: message.method, params, protocolVersion: version };
}

/**
 * Serves one legacy request for an active server (SPEC §2.3). Not `async`: a list or a ping answers
 * at once, and a call's promise is handed on as it is rather than wrapped in another one.
 */
export function dispatchLegacy(
  call: Extract<LegacyCall, { kind: 'request' }>,
  target: ServingTarget,
  request: EndpointRequest,
  methods: ToolMethods,
  serverInfo: ServerInfo,
): unknown {
  const { id, params } = call;
  switch (call.method) {
    case 'initialize':
      return initialize(id, params, target, serverInfo);
    case 'ping':
      return {};
    case 'tools/list':
      return methods.listTools({ target, protocolVersion: call.protocolVersion });
    case 'tools/call':
      return methods.callTool({
        id,
        params,
        protocolVersion: call.protocolVersion,
        target,
        // SPEC §5 and the 2025 transports: a disconnect is not a cancellation; only 2026-07-28 makes it one.
        onClosed: ignoreClose,
        request: request.request,
      });
    default:
      throw new McpError('methodNotFound', `Method not found: ${call.method}`, undefined, id);
  }
}

async function initialize(
  id: RequestId,
  params: Record<string, unknown>,
  target: ServingTarget,
  serverInfo: ServerInfo,
): Promise<Record<string, unknown>> {
  const parsed = InitializeParamsSchema.safeParse(params);
  if (!parsed.success) {
    const { text, issues } = describeIssues(parsed.error);
    throw new McpError('invalidParams', `Invalid params for initialize: ${text}`, { issues }, id);
  }
  const protocolVersion = negotiateLegacyVersion(parsed.data.protocolVersion);
  // SPEC §4.5: the end user is created on the first initialize, named after the client.
  await target.endUser(clientNameOf(parsed.data.clientInfo) ?? DEFAULT_CLIENT_NAME);
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo,
  };
  if (target.server.description) result.instructions = target.server.description;
  return result;
}

/** Row 16: notifications are accepted; `notifications/cancelled` aborts the matching call. */
export function acceptNotification(
  call: Extract<LegacyCall, { kind: 'notification' }>,
  target: ServingTarget,
  methods: ToolMethods,
): void {
  if (call.method === 'notifications/cancelled') methods.cancel(target, call.params);
}

const ignoreClose = (): (() => void) => () => {};
