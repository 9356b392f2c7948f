import { McpError, toMcpError } from '../errors/mcp-error.js';
import { DEFAULT_HEADER_VERSION } from '../versions.js';
import type { EraContext } from './context.js';
import { hasEnvelopeClaim } from './era.js';
import { acceptNotification, classifyLegacy, dispatchLegacy, type LegacyCall } from './legacy.js';
import { parseMessage } from './parse.js';
import {
  ACCEPTED,
  batchReply,
  type EndpointReply,
  errorResponse,
  type OutgoingResponse,
  resultResponse,
} from './reply.js';
import type { EndpointRequest } from './request.js';

/** One HTTP request must not start an unbounded number of runs; the protocol sets no size, so we do. */
export const MAX_BATCH_LENGTH = 100;

/**
 * A JSON-RPC batch, which only MCP 2025-03-26 has (header absent or equal to it). Each element is
 * checked on its own, the server is resolved once for all, each message counts against the rate
 * limit, and the reply holds one response per request; only notifications answer 202.
 */
export async function handleBatch<HostRequest>(
  request: EndpointRequest<HostRequest>,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  const batch = request.payload as unknown[]; // the router sends only arrays here
  checkBatch(request, batch);
  const slots: (OutgoingResponse | LegacyCall)[] = batch.map((element) => {
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
      return errorResponse(toMcpError(error));
    }
  });
  const calls = slots.filter((slot): slot is LegacyCall => 'kind' in slot);
  const target = calls.length > 0 ? await ctx.resolveTarget(request, null, false) : null;
  // Each message counts against the rate limit, as it would alone; those past the allowance do
  // not run, and their requests answer -32000 in the batch reply (429 when none may go on).
  const allowed = target ? await ctx.allowance(target, calls.length, null) : 0;
  const admitted = new Set(calls.slice(0, allowed));

  const responses = await Promise.all(
    slots.map(async (slot): Promise<OutgoingResponse | null> => {
      if (!('kind' in slot)) return slot;
      if (!target) return null;
      if (!admitted.has(slot)) {
        if (slot.kind === 'notification') return null;
        return errorResponse(new McpError('tooManyRequests', 'Too many requests', undefined, slot.id));
      }
      if (slot.kind === 'notification') {
        acceptNotification(slot, target, ctx);
        return null;
      }
      try {
        if (slot.method === 'tools/call') await ctx.checkQuota(target, slot.id);
        const result = await ctx.guarded(() => dispatchLegacy(slot, target, request, ctx), slot.id, target);
        return resultResponse(slot.id, result);
      } catch (error) {
        return errorResponse(toMcpError(error, slot.id));
      }
    }),
  );
  const answered = responses.filter((response): response is OutgoingResponse => response !== null);
  return answered.length === 0 ? ACCEPTED : batchReply(answered);
}

function checkBatch(request: EndpointRequest<unknown>, batch: unknown[]): void {
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
}
