import type { OnCall } from '../observe/on-call.js';
import type { ToolNamer } from '../tool/tool.js';
import type { RunApp } from '../types.js';
import type { EndpointReply, EndpointRequest, ErrorReporter } from './context.js';
import { hasEnvelopeClaim, isModernRequest } from './era.js';
import { errorBody, McpError, toMcpError } from './errors.js';
import { acceptNotification, classifyLegacy, dispatchLegacy, type LegacyCall } from './legacy.js';
import { describeIssues, type Message, MessageSchema, type RequestId, type Response } from './messages.js';
import { createToolMethods } from './methods.js';
import { handleModern } from './modern.js';
import { isPlainRecord } from './plain.js';
import { jsonOf } from './serialized.js';
import { checkServing, type ServingTarget } from './server.js';
import { DEFAULT_HEADER_VERSION } from './versions.js';

export interface ServerInfo {
  name: string;
  version: string;
}

export interface EndpointOptions {
  runApp: RunApp;
  serverInfo: ServerInfo;
  toolName?: ToolNamer;
  callTimeoutMs: number;
  report: ErrorReporter;
  onCall?: OnCall;
}

/** One HTTP request must not start an unbounded number of runs; SPEC §2.2 sets no size, so we do. */
export const MAX_BATCH_LENGTH = 100;

export type Endpoint = (request: EndpointRequest) => Promise<EndpointReply>;

/**
 * The framework-free protocol core: a parsed body and a few headers in, a status and a JSON-RPC
 * body out (SPEC §2 and §3). Checks run cheapest first; the server is resolved only once the
 * request is known to be well formed, and at most once per HTTP request.
 */
export function createEndpoint(options: EndpointOptions): Endpoint {
  const methods = createToolMethods(options);

  async function resolveTarget(request: EndpointRequest, id: RequestId | null): Promise<ServingTarget> {
    let resolved: Awaited<ReturnType<EndpointRequest['resolve']>>;
    try {
      resolved = await request.resolve();
    } catch (error) {
      options.report(error, { phase: 'resolve' });
      throw new McpError('internal', 'Internal error', undefined, id);
    }
    return checkServing(resolved, id);
  }

  /** Runs a method, turning anything unexpected into an opaque internal error reported with its cause. */
  async function guarded<T>(
    work: () => T | Promise<T>,
    id: RequestId | null,
    phase: 'dispatch',
    target?: ServingTarget,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof McpError) throw error;
      options.report(error, { phase, serverId: target?.server.id, appId: target?.app.id });
      throw new McpError('internal', 'Internal error', undefined, id);
    }
  }

  async function handleSingle(request: EndpointRequest): Promise<EndpointReply> {
    const message = parseMessage(request.payload);
    const call = classifyLegacy(message, request.headers.protocolVersion);
    const id = call.kind === 'request' ? call.id : null;
    const target = await resolveTarget(request, id);
    if (call.kind === 'notification') {
      acceptNotification(call, target, methods);
      return { status: 202 };
    }
    const result = await guarded(
      () => dispatchLegacy(call, target, request, methods, options.serverInfo),
      id,
      'dispatch',
      target,
    );
    const resultJson = jsonOf(result);
    return {
      status: 200,
      body: { jsonrpc: '2.0', id, result },
      // The same text JSON.stringify(body) gives, without serializing the result again.
      json: resultJson && `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`,
    };
  }

  /**
   * SPEC §2.2: only protocol 2025-03-26 has batches. Each element is checked on its own, the
   * server is resolved once for all, and the reply holds one response per request.
   */
  async function handleBatch(request: EndpointRequest, batch: unknown[]): Promise<EndpointReply> {
    const headerVersion = request.headers.protocolVersion || DEFAULT_HEADER_VERSION;
    if (headerVersion !== DEFAULT_HEADER_VERSION) {
      throw new McpError(
        'invalidRequest',
        `Invalid request: batching is not supported in protocol version ${headerVersion}`,
      );
    }
    if (batch.length === 0) throw new McpError('invalidRequest', 'Invalid request: an empty batch');
    if (batch.length > MAX_BATCH_LENGTH) {
      throw new McpError(
        'invalidRequest',
        `Invalid request: a batch holds at most ${MAX_BATCH_LENGTH} messages`,
      );
    }
    if (batch.some(hasEnvelopeClaim)) {
      // MCP 2026-07-28 has no batches: an element with a per-request envelope cannot be in one.
      throw new McpError(
        'invalidRequest',
        'Invalid request: a batch cannot carry 2026-07-28 requests (a per-request _meta envelope)',
      );
    }

    const slots: (Response | LegacyCall | null)[] = batch.map((element) => {
      try {
        const call = classifyLegacy(parseMessage(element), DEFAULT_HEADER_VERSION);
        if (call.kind === 'request' && call.method === 'initialize') {
          throw new McpError(
            'invalidRequest',
            'Invalid request: initialize cannot be part of a batch',
            undefined,
            call.id,
          );
        }
        return call;
      } catch (error) {
        return errorBody(toMcpError(error));
      }
    });
    const calls = slots.filter((slot): slot is LegacyCall => slot !== null && !('jsonrpc' in slot));
    const target = calls.length > 0 ? await resolveTarget(request, null) : null;

    const responses = await Promise.all(
      slots.map(async (slot): Promise<Response | null> => {
        if (slot === null || 'jsonrpc' in slot) return slot;
        if (!target) return null;
        if (slot.kind === 'notification') {
          acceptNotification(slot, target, methods);
          return null;
        }
        try {
          const result = await guarded(
            () => dispatchLegacy(slot, target, request, methods, options.serverInfo),
            slot.id,
            'dispatch',
            target,
          );
          return { jsonrpc: '2.0', id: slot.id, result };
        } catch (error) {
          return errorBody(toMcpError(error, slot.id));
        }
      }),
    );
    const body = responses.filter((response): response is Response => response !== null);
    return body.length === 0 ? { status: 202 } : { status: 200, body };
  }

  return async (request) => {
    try {
      if (Array.isArray(request.payload)) return await handleBatch(request, request.payload);
      if (isModernRequest(request.payload, request.headers.protocolVersion)) {
        return await handleModern(request, { ...options, methods, resolveTarget, guarded });
      }
      return await handleSingle(request);
    } catch (error) {
      const rpcError = toMcpError(error);
      if (!(error instanceof McpError)) options.report(error, { phase: 'dispatch' });
      return { status: rpcError.status, body: errorBody(rpcError) };
    }
  };
}

/** SPEC §2 row 8: a JSON-RPC message, or an invalid request that echoes the id when it is readable. */
export function parseMessage(payload: unknown): Message {
  if (isWellFormedMessage(payload)) return payload;
  const parsed = MessageSchema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const { text, issues } = describeIssues(parsed.error);
  throw new McpError('invalidRequest', `Invalid request: ${text}`, { issues }, readableId(payload));
}

/**
 * The envelope every well-behaved client sends, recognised without zod on the hot path: it accepts
 * nothing `MessageSchema` refuses (an object with `jsonrpc: "2.0"`, a string `method`, an id that
 * is a string, a safe integer or null, and `params` a plain record when present). Anything else goes
 * through the schema, which words the problem. The message is used as it is, not copied.
 */
function isWellFormedMessage(payload: unknown): payload is Message {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const { jsonrpc, method, id, params } = payload as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (!(id === undefined || id === null || typeof id === 'string' || Number.isSafeInteger(id))) return false;
  return params === undefined || isPlainRecord(params);
}

function readableId(payload: unknown): RequestId | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const id = (payload as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
