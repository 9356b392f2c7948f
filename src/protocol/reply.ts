import { errorBody, type McpError } from '../errors/mcp-error.js';
import type { JsonRpcResponse, RequestId } from './messages.js';
import type { EventStream } from './stream/event-stream.js';

/**
 * A result whose JSON text never changes (a tool's `tools/list` result for one protocol version),
 * serialized once: the reply splices the text in instead of serializing the same object again.
 * `value` must not change afterwards; it is frozen by whoever makes it.
 */
export class SerializedResult {
  constructor(
    readonly value: Readonly<Record<string, unknown>>,
    readonly json: string = JSON.stringify(value),
  ) {}

  /**
   * The same result between other fields, still serialized: `before`'s fields come first, then the
   * result's own, then `after`'s, as `{ ...before, ...value, ...after }` would order them. The
   * fields must not repeat a key of the result.
   */
  between(before: Record<string, unknown>, after: Record<string, unknown>): SerializedResult {
    const inner = this.json.slice(1, -1);
    const parts = [JSON.stringify(before).slice(1, -1), inner, JSON.stringify(after).slice(1, -1)];
    return new SerializedResult(
      { ...before, ...this.value, ...after },
      `{${parts.filter((part) => part !== '').join(',')}}`,
    );
  }
}

/** One JSON-RPC response, with its text when it could be made without serializing the result again. */
export interface OutgoingResponse {
  message: JsonRpcResponse;
  json?: string;
}

/** Where a reply that is known later goes: the HTTP layer's writer of one response. */
export interface ReplySink {
  reply(reply: NowReply): void;
}

/** A reply known later: hands it to `sink` once it is known, at once if it is already. */
export interface LaterReply {
  deliver(sink: ReplySink): void;
}

/**
 * What the core answers, for the HTTP layer to write:
 * - `accepted`: 202 with no body (notifications only);
 * - `json`: one JSON-RPC response, or an array of them for a batch, as `application/json`;
 *   `json` is its exact text when the core has it already;
 * - `stream`: an event stream's head, and its text to write as it comes (`EventStream`), the
 *   response last;
 * - `later`: one of the others, once it is known (a `tools/call` that may stream: JSON if its
 *   result comes first, a stream otherwise). Handed over as an object rather than awaited, so that
 *   nothing on the way holds a pending async function until then (`heartbeatMs` at most).
 */
export type EndpointReply =
  | { kind: 'accepted' }
  | {
      kind: 'json';
      status: number;
      body: JsonRpcResponse | JsonRpcResponse[];
      json?: string;
      /**
       * Headers besides `Content-Type` and `Content-Length`: a refusal's `WWW-Authenticate`, or
       * `Retry-After` when the client should try again later.
       */
      headers?: Readonly<Record<string, string>>;
    }
  | { kind: 'stream'; status: number; headers: Readonly<Record<string, string>>; stream: EventStream }
  | { kind: 'later'; reply: LaterReply };

/** A reply that is known now: what a `later` reply turns into. */
export type NowReply = Exclude<EndpointReply, { kind: 'later' }>;

export const ACCEPTED: EndpointReply = Object.freeze({ kind: 'accepted' });

/** The response for a request's result, spliced from the result's text when it is a `SerializedResult`. */
export function resultResponse(id: RequestId | null, result: unknown): OutgoingResponse {
  if (result instanceof SerializedResult) {
    return {
      message: { jsonrpc: '2.0', id, result: result.value },
      // The same text JSON.stringify would give, without serializing the result again.
      json: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.json}}`,
    };
  }
  return { message: { jsonrpc: '2.0', id, result } };
}

export function errorResponse(error: McpError, id: RequestId | null = error.id): OutgoingResponse {
  return { message: errorBody(error, id) };
}

/** One response as a `json` reply. */
export function jsonReply(status: number, response: OutgoingResponse): NowReply {
  return response.json === undefined
    ? { kind: 'json', status, body: response.message }
    : { kind: 'json', status, body: response.message, json: response.json };
}

/** Several responses (a batch) as one `json` reply; the text is joined from the texts at hand. */
export function batchReply(responses: OutgoingResponse[]): NowReply {
  const body = responses.map((response) => response.message);
  if (!responses.some((response) => response.json !== undefined)) return { kind: 'json', status: 200, body };
  const json = `[${responses.map((response) => response.json ?? JSON.stringify(response.message)).join(',')}]`;
  return { kind: 'json', status: 200, body, json };
}

/** An error as the whole reply, with its own status. */
export function errorReply(error: McpError): NowReply {
  const reply: NowReply = { kind: 'json', status: error.status, body: errorBody(error) };
  return error.headers === undefined ? reply : { ...reply, headers: error.headers };
}
