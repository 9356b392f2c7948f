import { contentTypeOf } from './replies.js';

const LF = 0x0a;
const CR = 0x0d;

/**
 * The response with a body that stops at `limit` bytes, counted as the client reads them (after
 * `Content-Encoding` is undone): the whole body of a JSON reply, each event of an event stream.
 * Past it, the body is cancelled (the connection is dropped, nothing more is read or kept),
 * `exceeded` is told which of the two it was, and reading fails.
 */
export function boundedReply(
  response: Response,
  limit: number,
  exceeded: (what: 'reply' | 'event') => Error,
): Response {
  if (!response.body) return response;
  const what = contentTypeOf(response) === 'text/event-stream' ? 'event' : 'reply';
  const count = what === 'event' ? eventBytes() : totalBytes();
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        return controller.error(error);
      }
      if (chunk.done) return controller.close();
      if (count(chunk.value) <= limit) return controller.enqueue(chunk.value);
      controller.error(exceeded(what));
      await reader.cancel().catch(() => {});
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/** The bytes read so far. */
function totalBytes(): (chunk: Uint8Array) => number {
  let total = 0;
  return (chunk) => (total += chunk.byteLength);
}

/**
 * The bytes of the event being read: those since the last blank line, which ends an event (WHATWG
 * HTML, "Server-sent events": lines end in CRLF, LF or CR, so a blank line is LF LF, CR CR or LF CR,
 * CRLF CRLF included). An event's lines are all kept until it ends, however they are split.
 */
function eventBytes(): (chunk: Uint8Array) => number {
  let pending = 0;
  let previous = 0;
  return (chunk) => {
    let end = -1;
    for (let i = chunk.byteLength - 1; i >= 0 && end < 0; i--) {
      const byte = chunk[i] as number;
      if (byte !== LF && byte !== CR) continue;
      const before = i > 0 ? (chunk[i - 1] as number) : previous;
      if (before === LF || (before === CR && byte === CR)) end = i;
    }
    previous = chunk[chunk.byteLength - 1] ?? previous;
    pending = end < 0 ? pending + chunk.byteLength : chunk.byteLength - end - 1;
    return pending;
  };
}
