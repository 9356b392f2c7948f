import type { ClientAnswer } from '../../tool/ask.js';
import { isJsonObject } from '../../util/plain-object.js';
import type { EraContext } from '../context.js';
import type { RequestId } from '../messages.js';
import { ACCEPTED, type EndpointReply } from '../reply.js';
import type { EndpointRequest } from '../request.js';

/** A client's JSON-RPC response to a request of ours (an answer to `elicitation/create`). */
export interface ClientResponse {
  id: RequestId;
  reply: ClientAnswer;
}

/**
 * A body that is a JSON-RPC response rather than a request or notification: `jsonrpc` "2.0", an id,
 * a `result` or an `error`, and no `method` (JSON-RPC 2.0 §5). `null` for anything else, which the
 * eras check as a message.
 */
export function clientResponseOf(payload: unknown): ClientResponse | null {
  if (!isJsonObject(payload) || payload.jsonrpc !== '2.0' || 'method' in payload) return null;
  const { id } = payload;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  if ('result' in payload) return { id: id as RequestId, reply: { result: payload.result } };
  if (isJsonObject(payload.error)) return { id: id as RequestId, reply: { error: payload.error } };
  return null;
}

/**
 * MCP Streamable HTTP: a POSTed response is accepted with 202 and no body. It goes to the question
 * that waits for it, in this process or, through the farm, on the instance that runs it; an answer
 * nobody waits for any more (the question timed out) is dropped.
 */
export async function acceptAnswer<HostRequest>(
  request: EndpointRequest<HostRequest>,
  answer: ClientResponse,
  ctx: EraContext<HostRequest>,
): Promise<EndpointReply> {
  const target = await ctx.resolveTarget(request, null, false);
  ctx.asking.answer(target, answer.id, answer.reply);
  return ACCEPTED;
}
