import type { ServerResponse } from 'node:http';
import { KEEP_ALIVE, type StreamItem } from '../protocol/reply.js';

/** A response that a buffering middleware such as `compression()` wraps: `flush()` sends what it holds. */
type BufferedResponse = ServerResponse & { flush?: () => void };

/** An SSE comment line: clients skip it (HTML "Server-sent events", §9.2.6); proxies see traffic. */
const COMMENT = ': keep-alive\n\n';

/**
 * Writes a stream reply as server-sent events (the Streamable HTTP transport of MCP 2025-03-26 and
 * later): one `data:` event per message, each on the wire as soon as it comes, the response last.
 * No `Content-Length`: the body's end is the stream's end. When the client goes away the stream
 * is given up, which tells its producer; whether that cancels the run is the protocol's decision.
 */
export async function writeEventStream(
  res: BufferedResponse,
  status: number,
  items: AsyncIterable<StreamItem>,
): Promise<void> {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  // nginx buffers a proxied reply unless it says not to (README, "Long runs").
  res.setHeader('X-Accel-Buffering', 'no');
  const iterator = items[Symbol.asyncIterator]();
  const giveUp = () => {
    iterator.return?.();
  };
  if (res.destroyed) giveUp();
  else res.once('close', giveUp);
  // Events produced together (an app that reports several stages at once) leave in one write,
  // at the end of the tick that produced them.
  let pending = '';
  const send = () => {
    if (pending === '' || res.writableEnded) return;
    res.write(pending);
    pending = '';
    // A compressing middleware would otherwise hold the events until it has enough to compress.
    res.flush?.();
  };
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const item = next.value;
      if (pending === '') process.nextTick(send);
      pending += format(item);
    }
  } finally {
    res.off('close', giveUp);
    res.end(pending);
    pending = '';
  }
}

/** One SSE event. JSON.stringify writes no line breaks, so each message is one `data:` line. */
function format(item: StreamItem): string {
  if (item === KEEP_ALIVE) return COMMENT;
  if ('eventId' in item) {
    return `id: ${item.eventId}\ndata: ${item.message === null ? '' : JSON.stringify(item.message)}\n\n`;
  }
  if ('retryMs' in item) return `retry: ${item.retryMs}\n\n`;
  return `data: ${JSON.stringify(item)}\n\n`;
}
