import type { ServerResponse } from 'node:http';
import type { EventStream, StreamOutput } from '../protocol/stream/event-stream.js';

/** A response that a buffering middleware such as `compression()` wraps: `flush()` sends what it holds. */
type BufferedResponse = ServerResponse & { flush?: () => void };

/** Told once how a stream reply's writing ended: its body ended, or its producer failed. */
export interface StreamWatcher {
  ended(): void;
  failed(error: unknown): void;
}

/**
 * Writes an event stream reply: its head, then the text the core hands over, each piece on the
 * wire as soon as it comes (docs/http-contract.md, "Long runs"); the stream decides what and when.
 * When the client goes away the stream is told, which tells its producer; whether that cancels the
 * run is the protocol's decision. `watcher` learns how it ended: one object for every stream
 * rather than a promise for each, held as long as its run.
 */
export function writeEventStream(
  res: BufferedResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  stream: EventStream,
  watcher: StreamWatcher,
): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const writer = new ResponseOutput(res, stream, watcher);
  stream.pipe(writer);
  writer.watch();
}

/** One response an event stream is written to. */
class ResponseOutput implements StreamOutput {
  readonly #res: BufferedResponse;
  readonly #stream: EventStream;
  readonly #watcher: StreamWatcher;
  /** Tells the stream that its client went away; set while the body is being written. */
  #gone: (() => void) | undefined;

  constructor(res: BufferedResponse, stream: EventStream, watcher: StreamWatcher) {
    this.#res = res;
    this.#stream = stream;
    this.#watcher = watcher;
  }

  watch(): void {
    if (this.#res.writableEnded) return;
    const stream = this.#stream;
    const gone = () => stream.close();
    // `on` rather than `once`: `once` wraps the listener in two more objects, held as long as the stream.
    if (this.#res.destroyed) gone();
    else {
      this.#gone = gone;
      this.#res.on('close', gone);
    }
  }

  write(text: string): boolean {
    const res = this.#res;
    if (res.writableEnded) return true;
    const flowing = res.write(text);
    // A compressing middleware would otherwise hold the events until it has enough to compress.
    res.flush?.();
    if (!flowing) res.once('drain', () => this.#stream.drained());
    return flowing;
  }

  end(text: string): void {
    this.#close(text);
    this.#watcher.ended();
  }

  fail(text: string, error: unknown): void {
    this.#close(text);
    this.#watcher.failed(error);
  }

  #close(text: string): void {
    if (this.#gone) this.#res.off('close', this.#gone);
    this.#gone = undefined;
    this.#res.end(text);
  }
}
