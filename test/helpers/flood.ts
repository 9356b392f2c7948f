/**
 * A hostile remote server's replies: bodies far larger than a client should read, made on the fly
 * as fast as the client takes them (nothing is held in memory here) and stopped as soon as the
 * client goes, and a sampler of the process's resident memory while a client reads them.
 */
import { once } from 'node:events';
import type http from 'node:http';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';

export const MiB = 1024 * 1024;

/** How a flood is sent: a JSON body, one SSE event, or a JSON body compressed with gzip. */
export type FloodShape = 'json' | 'sse' | 'gzip';

/** What a flood sent before it ended. */
export interface FloodReport {
  /** Bytes of the body made (before compression). */
  made: number;
  /** Whether the client went away before the end of the body. */
  clientLeft: boolean;
}

const FILLER = Buffer.alloc(64 * 1024, 'a');

/**
 * Answers request `id` with a `tools/list` result whose one tool has a description of `bytes`
 * bytes, shaped as `shape`; resolves with what was sent once the body ends or the client leaves.
 */
export async function floodReply(
  res: http.ServerResponse,
  id: unknown,
  shape: FloodShape,
  bytes: number,
): Promise<FloodReport> {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"big","inputSchema":{"type":"object"},"description":"`;
  const tail = '"}]}}';
  let clientLeft = false;
  const closed = once(res, 'close').then(() => {
    clientLeft = !res.writableFinished;
  });
  let out: Writable = res;
  if (shape === 'gzip') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const gzip = zlib.createGzip();
    gzip.pipe(res);
    res.once('close', () => gzip.destroy());
    out = gzip;
  } else if (shape === 'sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
  }
  let made = 0;
  const write = async (chunk: Buffer | string): Promise<boolean> => {
    if (res.destroyed || out.destroyed) return false;
    made += Buffer.byteLength(chunk);
    if (!out.write(chunk)) {
      // The client reads no faster than this: wait for it, or for it to leave.
      await Promise.race([once(out, 'drain'), closed]).catch(() => {});
    }
    return !res.destroyed && !out.destroyed;
  };
  let going = await write(shape === 'sse' ? `event: message\ndata: ${head}` : head);
  for (let sent = 0; going && sent < bytes; sent += FILLER.length) going = await write(FILLER);
  if (going) {
    await write(shape === 'sse' ? `${tail}\n\n` : tail);
    out.end();
  }
  await closed;
  return { made, clientLeft };
}

/** Samples the resident set size every 5 ms while `work` runs: its peak above the size before. */
export async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}
