import type { ServerResponse } from 'node:http';
import { PushQueue, type PushReader } from '../protocol/push-queue.js';
import { KEEP_ALIVE, type StreamItem } from '../protocol/reply.js';

/** A response that a buffering middleware such as `compression()` wraps: `flush()` sends what it holds. */
type BufferedResponse = ServerResponse & { flush?: () => void };

/** An SSE comment line: clients skip it (HTML "Server-sent events", §9.2.6); proxies see traffic. */
const COMMENT = ': keep-alive\n\n';

/** Told once how a stream reply's writing ended: its body ended, or reading the stream failed. */
export interface StreamWatcher {
  ended(): void;
  failed(error: unknown): void;
}

/**
 * Writes a stream reply as server-sent events (the Streamable HTTP transport of MCP 2025-03-26 and
 * later): one `data:` event per message, each on the wire as soon as it comes, the response last.
 * No `Content-Length`: the body's end is the stream's end. When the client goes away the stream
 * is given up, which tells its producer; whether that cancels the run is the protocol's decision.
 * `watcher` learns how it ended: one object for every stream rather than a promise for each, held
 * as long as its run.
 */
export function writeEventStream(
  res: BufferedResponse,
  status: number,
  items: AsyncIterable<StreamItem>,
  watcher: StreamWatcher,
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  // nginx buffers a proxied reply unless it says not to (README, "Long runs").
  res.setHeader('X-Accel-Buffering', 'no');
  const writer = new EventStreamWriter(res, watcher);
  if (items instanceof PushQueue) writer.readQueue(items);
  else writer.readIterator(items[Symbol.asyncIterator]());
}

/**
 * One stream being written, as an object whose methods the stream calls rather than an async loop:
 * a stream stays open as long as its run, and a pending async function keeps its whole frame for
 * that time (README, "Long runs"). A `PushQueue`, what the core's streams are, hands its items
 * over as they are pushed; any other async iterable is read one `next()` at a time.
 */
class EventStreamWriter implements PushReader<StreamItem> {
  readonly #res: BufferedResponse;
  readonly #watcher: StreamWatcher;
  /** Events produced together (an app that reports several stages at once) leave in one write. */
  #pending = '';
  /** Stops reading when the client goes away, which tells the stream's producer. */
  #giveUp: (() => void) | undefined;

  constructor(res: BufferedResponse, watcher: StreamWatcher) {
    this.#res = res;
    this.#watcher = watcher;
  }

  readQueue(queue: PushQueue<StreamItem>): void {
    this.#watch(() => {
      queue.return();
    });
    queue.read(this);
  }

  readIterator(iterator: AsyncIterator<StreamItem>): void {
    this.#watch(() => {
      iterator.return?.();
    });
    const onNext = (next: IteratorResult<StreamItem>): void => {
      if (next.done) {
        this.end();
        return;
      }
      this.item(next.value);
      read();
    };
    const onError = (error: unknown): void => {
      this.#finish();
      this.#watcher.failed(error);
    };
    const read = (): void => {
      try {
        iterator.next().then(onNext, onError);
      } catch (error) {
        onError(error);
      }
    };
    read();
  }

  item(item: StreamItem): void {
    if (this.#pending === '') process.nextTick(EventStreamWriter.#send, this);
    this.#pending += format(item);
  }

  end(): void {
    this.#finish();
    this.#watcher.ended();
  }

  #watch(giveUp: () => void): void {
    this.#giveUp = giveUp;
    // `on` rather than `once`: `once` wraps the listener in two more objects, held as long as the stream.
    if (this.#res.destroyed) giveUp();
    else this.#res.on('close', giveUp);
  }

  /** What the tick produced, in one write, at the end of the tick. */
  static #send(writer: EventStreamWriter): void {
    const res = writer.#res;
    if (writer.#pending === '' || res.writableEnded) return;
    res.write(writer.#pending);
    writer.#pending = '';
    // A compressing middleware would otherwise hold the events until it has enough to compress.
    res.flush?.();
  }

  #finish(): void {
    if (this.#giveUp) this.#res.off('close', this.#giveUp);
    this.#res.end(this.#pending);
    this.#pending = '';
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
