import { McpError } from '../../errors/mcp-error.js';
import { InputRequired } from '../../tool/ask.js';
import {
  FIRST_MODERN_VERSION,
  isLegacyVersion,
  isModernVersion,
  SUPPORTED_VERSIONS,
} from '../../versions.js';
import { clientNameOf } from '../client-name.js';
import type { EraContext } from '../context.js';
import { hasEnvelopeClaim, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO } from '../era.js';
import type { RequestId } from '../messages.js';
import { parseMessage } from '../parse.js';
import { ACCEPTED, type EndpointReply, jsonReply, resultResponse, type SerializedResult } from '../reply.js';
import type { EndpointRequest } from '../request.js';
import { openReplyStream, type ReplyStream } from '../stream/reply-stream.js';
import type { ServingTarget } from '../target.js';
import { EnvelopeSchema, NotificationEnvelopeSchema, parseEnvelope } from './envelope.js';
import { crossCheck, headerMismatch, readModernHeaders, requireHeaders } from './headers.js';
import {
  declaresTasks,
  MODERN_TASK_METHODS,
  modernTaskCall,
  serveModernTaskMethod,
  TASKS_EXTENSION,
  tasksExtensionRequired,
} from './tasks.js';

/**
 * How long a client may reuse a `tools/list` or `server/discover` answer (MCP 2026-07-28
 * caching, SEP-2549). Console edits (description, parameters, rotation) reach clients within it.
 */
export const LIST_TTL_MS = 60_000;
/** Both answers depend on the secret code in the URL, so shared caches must not keep them. */
const CACHE_SCOPE = 'private';

/** The methods the modern era serves; every other one is 404 / -32601. */
const MODERN_METHODS = new Set(['server/discover', 'tools/list', 'tools/call', ...MODERN_TASK_METHODS]);
/** 2025 methods that 2026-07-28 removed: named as such in the 404, so a client knows why. */
const REMOVED_METHODS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** Every modern result starts with this (MCP 2026-07-28: servers say the result is complete). */
const COMPLETE = Object.freeze({ resultType: 'complete' });

/**
 * One stateless 2026-07-28 request. The checks run in the order of the reference implementation's
 * validation ladder, all before the server code is looked up: envelope (400 / -32602), headers
 * that disagree with the body (400 / -32020), the version (400 / -32022), headers that are
 * missing (400 / -32020), the method (404 / -32601). Every result says `resultType: "complete"`
 * and names the server in `_meta`.
 */
export async function handleModern<HostRequest>(
  request: EndpointRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  const message = parseMessage(request.payload);
  const { method } = message;
  const id = message.id ?? null;
  const params = message.params ?? {};
  const headers = readModernHeaders(request.headers);

  if (id === null) {
    if (!method.startsWith('notifications/')) {
      throw new McpError('invalidRequest', 'Invalid request: request id is required');
    }
    const version = hasEnvelopeClaim(message)
      ? parseEnvelope(NotificationEnvelopeSchema, params, null)[META_PROTOCOL_VERSION]
      : (headers.protocolVersion ?? FIRST_MODERN_VERSION); // no claim: the header chose this era
    crossCheck(headers, version, method, null);
    checkVersion(version, null);
    // A cancellation counts as a request does: each may reach every instance of a farm.
    const target = await ctx.resolveTarget(request, null, method === 'notifications/cancelled');
    if (method === 'notifications/cancelled') ctx.methods.cancel(target, params);
    return ACCEPTED;
  }

  if (method === 'initialize' && !hasEnvelopeClaim(message)) {
    // A 2025 handshake that carries a 2026 header: the header and the body name different eras.
    throw headerMismatch(
      `initialize is the legacy handshake and cannot be sent with MCP-Protocol-Version ${headers.protocolVersion}`,
      { header: 'MCP-Protocol-Version', received: headers.protocolVersion ?? null, expected: null },
      id,
    );
  }
  const envelope = parseEnvelope(EnvelopeSchema, params, id);
  const version = envelope[META_PROTOCOL_VERSION];
  crossCheck(headers, version, method, id);
  checkVersion(version, id);
  requireHeaders(headers, version, method, params, id);
  if (!MODERN_METHODS.has(method)) {
    const why = REMOVED_METHODS.has(method) ? ` (removed in protocol ${FIRST_MODERN_VERSION})` : '';
    throw new McpError('modernMethodNotFound', `Method not found: ${method}${why}`, undefined, id);
  }
  // SEP-2663: the task methods are refused to a client without the extension, before any lookup.
  const taskMethod = MODERN_TASK_METHODS.has(method);
  if (taskMethod && !declaresTasks(envelope)) throw tasksExtensionRequired(method, id);

  const target = await ctx.resolveTarget(request, id);
  // A retry that carries a run's requestState goes on with a call already counted.
  if (method === 'tools/call' && params.requestState === undefined) {
    const quota = ctx.checkQuota(target, id);
    if (quota) await quota;
  }
  let clientName: string | undefined;
  if (taskMethod || method === 'tools/call') {
    clientName = clientNameOf(envelope[META_CLIENT_INFO]);
    const tasks = { id, method, params, version, envelope, clientName, target, request };
    const tasked = taskMethod ? serveModernTaskMethod(tasks, ctx) : modernTaskCall(tasks, ctx);
    if (tasked) return tasked;
  }
  // The same streaming rules as the 2025 era, the progress token in `params._meta` too (MCP 2026-07-28).
  const live =
    method === 'tools/call' ? openReplyStream(request, id, params, version, target, ctx.replies) : undefined;
  const served = { id, method, params, version, clientName, target, request, live };
  if (live)
    return live.reply(
      ctx.attempt(() => dispatch(served, ctx)),
      ctx,
    );
  return jsonReply(200, resultResponse(id, await ctx.guarded(() => dispatch(served, ctx), id, target)));
}

interface ModernCall<HostRequest> {
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  version: string;
  /** `tools/call`: the client's name for its end user record, read once from the envelope. */
  clientName: string | undefined;
  target: ServingTarget;
  request: EndpointRequest<HostRequest>;
  /** The call's reply when it may stream, which follows the run. */
  live: ReplyStream | undefined;
}

/** Not `async`: a list answers at once, and a call's promise is handed on rather than awaited. */
function dispatch<HostRequest>(
  call: ModernCall<HostRequest>,
  ctx: EraContext<HostRequest>,
): Record<string, unknown> | SerializedResult | Promise<Record<string, unknown>> {
  const { target } = call;
  const meta = { [META_SERVER_INFO]: ctx.serverInfoOf(target) };
  switch (call.method) {
    case 'server/discover': {
      const discovered: Record<string, unknown> = {
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      };
      if (target.server.description) discovered.instructions = target.server.description;
      return { ...COMPLETE, ...discovered, ttlMs: LIST_TTL_MS, cacheScope: CACHE_SCOPE, _meta: meta };
    }
    case 'tools/list':
      // Member order (a toolset's), the same on every request (2026-07-28 SHOULD).
      return ctx.methods
        .listTools(target, call.version)
        .between(COMPLETE, { ttlMs: LIST_TTL_MS, cacheScope: CACHE_SCOPE, _meta: meta });
    default: {
      const calling = ctx.methods.callTool({
        id: call.id,
        params: call.params,
        protocolVersion: call.version,
        target,
        // MCP 2026-07-28: the client closing the response stream is the cancellation of this call.
        onClosed: call.request.onClosed,
        request: call.request.request,
        clientName: call.clientName,
        observer: call.live,
      });
      // A run that waits for answers ends this reply with them asked (MCP 2026-07-28, SEP-2322);
      // a result's own `_meta` (the run's usage) goes beside the server's.
      return calling.then((outcome) =>
        outcome instanceof InputRequired
          ? { ...outcome.result, _meta: meta }
          : {
              ...COMPLETE,
              ...outcome,
              _meta: outcome._meta ? { ...outcome._meta, ...meta } : meta,
            },
      );
    }
  }
}

/** MCP 2026-07-28: an unknown or unsupported version is refused with every version we speak. */
function checkVersion(version: string, id: RequestId | null): void {
  if (isModernVersion(version)) return;
  const hint = isLegacyVersion(version)
    ? ` (${version} is spoken through the initialize handshake, without a per-request _meta envelope)`
    : '';
  throw new McpError(
    'modernUnsupportedVersion',
    `Unsupported protocol version: ${version}${hint}`,
    { supported: SUPPORTED_VERSIONS, requested: version },
    id,
  );
}
