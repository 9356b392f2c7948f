import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../messages.js';

/**
 * A sign of life in a stream that carries no message: an SSE comment line, which clients skip and
 * proxies count as traffic (a heartbeat of a call without a progress token).
 */
export const KEEP_ALIVE: unique symbol = Symbol('keep-alive');

/** A JSON-RPC message a stream carries: the server's notifications and requests, and the response last. */
export type StreamMessage = JsonRpcResponse | JsonRpcNotification | JsonRpcRequest;

/** A message with its SSE event id, for resumption; `null`: the priming event, an id and no data. */
export interface IdentifiedEvent {
  readonly eventId: string;
  readonly message: StreamMessage | null;
  /** The message's JSON text, when it was made already (to be stored). */
  readonly data?: string;
}

/** The SSE `retry` field: how soon the client should reconnect, in ms. */
export interface RetryHint {
  readonly retryMs: number;
}

/** What a stream sends, one event each: a JSON-RPC message (with its id when resumable), a sign of life, a retry hint. */
export type StreamItem = StreamMessage | typeof KEEP_ALIVE | IdentifiedEvent | RetryHint;

/** A JSON-RPC message, as opposed to a sign of life or an event made already. */
export const isMessage = (item: StreamItem): item is StreamMessage =>
  item !== KEEP_ALIVE && !('eventId' in item) && !('retryMs' in item);

/** Whether a message is the response, a stream's last. */
export const isResponse = (message: StreamMessage): boolean => !('method' in message);

/**
 * The head of every event stream reply (MCP Streamable HTTP). No `Content-Length`: the body's end
 * is the stream's end. nginx buffers a proxied reply unless it says not to (README, "Long runs").
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
});

/** An SSE comment line: clients skip it (HTML "Server-sent events", §9.2.6); proxies see traffic. */
const COMMENT = ': keep-alive\n\n';

/** One SSE event's text. JSON.stringify writes no line breaks, so each message is one `data:` line. */
export function formatEvent(item: StreamItem): string {
  if (item === KEEP_ALIVE) return COMMENT;
  if ('eventId' in item) {
    const data = item.message === null ? '' : (item.data ?? JSON.stringify(item.message));
    return `id: ${item.eventId}\ndata: ${data}\n\n`;
  }
  if ('retryMs' in item) return `retry: ${item.retryMs}\n\n`;
  return `data: ${JSON.stringify(item)}\n\n`;
}
