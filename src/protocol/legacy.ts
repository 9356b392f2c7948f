import { McpError } from '../errors/mcp-error.js';
import {
  DEFAULT_HEADER_VERSION,
  elicitsOnStream,
  hasLegacyTasks,
  isLegacyVersion,
  negotiateLegacyVersion,
  SUPPORTED_VERSIONS,
} from '../versions.js';
import { clientNameOf, DEFAULT_CLIENT_NAME } from './client-name.js';
import type { EraContext, ServerInfo } from './context.js';
import { describeIssues, InitializeParamsSchema, type Message, type RequestId } from './messages.js';
import { parseMessage } from './parse.js';
import { ACCEPTED, type EndpointReply, jsonReply, resultResponse } from './reply.js';
import type { EndpointRequest } from './request.js';
import { declaresFormElicitation, issueSessionId } from './session-id.js';
import { openReplyStream, type ReplyStream } from './stream/reply-stream.js';
import type { ServingTarget } from './target.js';
import {
  isPlainLegacyCall,
  LEGACY_TASK_METHODS,
  LEGACY_TASKS_CAPABILITY,
  type LegacyTaskRequest,
  legacyTaskCall,
  serveLegacyTaskMethod,
} from './tasks/legacy-wire.js';
import { ignoreClose } from './tool-call.js';

/** A legacy-era message once its envelope, id and version are known good. */
export type LegacyCall =
  | { kind: 'notification'; method: string; params?: Record<string, unknown> }
  | {
      kind: 'request';
      id: RequestId;
      method: string;
      params: Record<string, unknown>;
      protocolVersion: string;
    };

/**
 * One message of the 2025 era (the initialize handshake; MCP 2024-11-05 to 2025-11-25): checked,
 * then the server resolved, then served. Notifications answer 202.
 */
export async function handleLegacy<HostRequest>(
  request: EndpointRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  const call = classifyLegacy(parseMessage(request.payload), request.headers.protocolVersion);
  const id = call.kind === 'request' ? call.id : null;
  // A cancellation counts as a request does: each may reach every instance of a farm.
  const counted = call.kind === 'request' || call.method === 'notifications/cancelled';
  const target = await ctx.resolveTarget(request, id, counted);
  if (call.kind === 'notification') {
    acceptNotification(call, target, ctx);
    return ACCEPTED;
  }
  if (call.method === 'tools/call') {
    const quota = ctx.checkQuota(target, id);
    if (quota) await quota;
  }
  if (call.method === 'tools/call' || LEGACY_TASK_METHODS.has(call.method)) {
    const tasked = serveTasks(call, target, request, ctx);
    if (tasked) return tasked;
  }
  const live =
    call.method === 'tools/call'
      ? openReplyStream(
          request,
          call.id,
          call.params,
          call.protocolVersion,
          target,
          ctx.replies,
          mayAsk(call, request),
        )
      : undefined;
  if (live)
    return live.reply(
      ctx.attempt(() => dispatchLegacy(call, target, request, ctx, live)),
      ctx,
    );
  const work = ctx.guarded(() => dispatchLegacy(call, target, request, ctx), id, target);
  const result = await work;
  const reply = jsonReply(200, resultResponse(id, result));
  if (call.method !== 'initialize' || reply.kind !== 'json') return reply;
  const { protocolVersion } = result as { protocolVersion: string };
  // The session id carries what the client declared, for its calls to read (docs/http-contract.md, "Sessions").
  if (!elicitsOnStream(protocolVersion) || !declaresFormElicitation(call.params.capabilities)) return reply;
  return { ...reply, headers: { 'Mcp-Session-Id': issueSessionId(ctx.asking.signer, target.server) } };
}

/** A call whose client may be asked needs a reply that can stream, even without heartbeats. */
const mayAsk = (call: { protocolVersion: string }, request: EndpointRequest<unknown>): boolean =>
  request.headers.sessionId !== undefined && elicitsOnStream(call.protocolVersion);

/** A task's `tools/call` or a task method (docs/tasks.md); `undefined` for a plain call. */
function serveTasks<HostRequest>(
  call: Extract<LegacyCall, { kind: 'request' }>,
  target: ServingTarget,
  request: EndpointRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> | undefined {
  const isCall = call.method === 'tools/call';
  if (isCall && isPlainLegacyCall(call.params, call.protocolVersion, target)) return undefined;
  const tasked: LegacyTaskRequest<HostRequest> = { ...call, target, request };
  return isCall ? legacyTaskCall(tasked, ctx) : serveLegacyTaskMethod(tasked, ctx);
}

const isNotificationMethod = (method: string) => method.startsWith('notifications/');

/**
 * A request needs an id; outside `initialize` its version comes from the `MCP-Protocol-Version`
 * header alone (absent = 2025-03-26), and notifications are taken whatever the header says.
 * `initialize` settles its version from its params when it runs.
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
 * Serves one legacy request for an active server. Not `async`: a list or a ping answers at once,
 * and a call's promise is handed on as it is rather than wrapped in another one.
 */
export function dispatchLegacy<HostRequest>(
  call: Extract<LegacyCall, { kind: 'request' }>,
  target: ServingTarget,
  request: EndpointRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
  observer?: ReplyStream,
): unknown {
  const { id, params } = call;
  switch (call.method) {
    case 'initialize':
      return initialize(id, params, target, ctx.serverInfoOf(target));
    case 'ping':
      return {};
    case 'tools/list':
      return ctx.methods.listTools(target, call.protocolVersion);
    case 'tools/call':
      return ctx.methods.callTool({
        id,
        params,
        protocolVersion: call.protocolVersion,
        target,
        // The 2025 transports: a disconnect is not a cancellation; only 2026-07-28 makes it one.
        onClosed: ignoreClose,
        request: request.request,
        observer,
        sessionId: request.headers.sessionId,
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
  // The end user is created on the first initialize, named after the client.
  await target.endUser(clientNameOf(parsed.data.clientInfo) ?? DEFAULT_CLIENT_NAME);
  const capabilities: Record<string, unknown> = { tools: { listChanged: false } };
  if (hasLegacyTasks(protocolVersion)) capabilities.tasks = LEGACY_TASKS_CAPABILITY;
  const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo };
  if (target.server.description) result.instructions = target.server.description;
  return result;
}

/** Notifications are accepted; `notifications/cancelled` aborts the matching call (MCP "Cancellation"). */
export function acceptNotification<HostRequest>(
  call: Extract<LegacyCall, { kind: 'notification' }>,
  target: ServingTarget,
  ctx: EraContext<HostRequest>,
): void {
  if (call.method === 'notifications/cancelled') ctx.methods.cancel(target, call.params);
}
