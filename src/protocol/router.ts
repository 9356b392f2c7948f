import { McpError, toMcpError } from '../errors/mcp-error.js';
import { acceptAnswer, clientResponseOf } from './asking/answers.js';
import { handleBatch } from './batch.js';
import { attempt, type CoreOptions, createEraContext } from './context.js';
import { isModernRequest } from './era.js';
import { handleLegacy } from './legacy.js';
import { handleModern } from './modern/handle.js';
import { type EndpointReply, errorReply } from './reply.js';
import type { EndpointRequest } from './request.js';
import { resumeStream } from './stream/resume.js';

export type ProtocolCore<HostRequest> = (request: EndpointRequest<HostRequest>) => Promise<EndpointReply>;

/**
 * The framework-free protocol core: a parsed body, a few headers and a way to resolve the server
 * in; a reply out (see `docs/http-contract.md`). It only picks the era (a batch, a 2026-07-28
 * request, or a message of the initialize handshake) and answers every failure as a JSON-RPC
 * error; each era checks cheapest first and resolves the server at most once.
 */
export function createProtocolCore<HostRequest>(
  options: CoreOptions<HostRequest>,
): ProtocolCore<HostRequest> {
  const ctx = createEraContext(options);
  const answerFailure = (error: unknown): EndpointReply => {
    if (!(error instanceof McpError)) options.report(error, { phase: 'dispatch' });
    return errorReply(toMcpError(error));
  };
  const route = (request: EndpointRequest<HostRequest>): Promise<EndpointReply> => {
    const { resumability } = ctx.replies;
    if (request.lastEventId !== undefined && resumability) {
      return resumeStream(request, request.lastEventId, ctx, resumability);
    }
    if (Array.isArray(request.payload)) return handleBatch(request, ctx);
    if (isModernRequest(request.payload, request.headers.protocolVersion)) return handleModern(request, ctx);
    const answer = clientResponseOf(request.payload);
    if (answer) return acceptAnswer(request, answer, ctx);
    return handleLegacy(request, ctx);
  };
  // A callback on the era's promise rather than an async function: a `tools/call` that may stream
  // settles when it is known whether it does (`ReplyStream`), and a pending async function would keep
  // its frame until then.
  return (request) => attempt(() => route(request)).then(undefined, answerFailure);
}
