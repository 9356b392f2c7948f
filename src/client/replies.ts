import { RemoteMcpError } from './errors.js';
import type { Exchange } from './exchange.js';

const JSON_TYPE = 'application/json';
const STREAM_TYPE = 'text/event-stream';

/** The media type a response says its body is, lower-cased, without parameters. */
export const contentTypeOf = (response: Response): string | undefined =>
  response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();

/**
 * The reply to a Streamable HTTP request, read to its end. MCP 2025-03-26 transports ("Sending
 * Messages to the Server"): a request is answered with one JSON response, or with an SSE stream that
 * carries it and then closes. A reply that ends without it fails the request at once (see
 * `Exchange.replyEnded`): an `invalid-reply` for a JSON body, `closed` for a stream, and for a
 * connection lost while reading. Any other response is returned as it is.
 */
export function watchReply(response: Response, exchange: Exchange): Response {
  const type = contentTypeOf(response);
  if (response.status !== 200 || !response.body || (type !== JSON_TYPE && type !== STREAM_TYPE)) {
    return response;
  }
  const { server, method } = exchange.label;
  const incomplete =
    type === JSON_TYPE
      ? new RemoteMcpError(server, 'invalid-reply', `answered ${method} with JSON that is not its response`)
      : new RemoteMcpError(server, 'closed', `ended the event stream of ${method} without its response`);
  const lost = new RemoteMcpError(server, 'closed', `closed the connection during ${method}`);
  const reader = response.body.getReader();
  let open = true;
  const end = (error: RemoteMcpError | undefined) => {
    if (open) exchange.replyEnded(error);
    open = false;
  };
  exchange.replyStarted();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (!chunk.done) return controller.enqueue(chunk.value);
        controller.close();
        end(incomplete);
      } catch (error) {
        controller.error(error);
        end(lost);
      }
    },
    // The client stopped reading (it closed, or gave the request up): its choice, not a failure.
    cancel: (reason) => {
      end(undefined);
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/**
 * The event stream of the 2024-11-05 HTTP+SSE transport, which carries the responses to every
 * request: once it has been open, a failure to open it again (the client reconnects when it ends)
 * fails the requests still waiting at once, since nothing else can bring their responses.
 */
export function eventStreamWatch(server: string) {
  const waiting = new Set<Exchange>();
  let opened = false;
  const failAll = (error: (method: string) => RemoteMcpError) => {
    for (const exchange of waiting) exchange.fail(error(exchange.label.method));
    waiting.clear();
  };
  return {
    /** A request was sent: its response comes over the stream. */
    waiting(exchange: Exchange): void {
      for (const earlier of waiting) if (!earlier.pending) waiting.delete(earlier);
      waiting.add(exchange);
    },
    /** The answer to a GET that opens the stream; `undefined` when nothing answered. */
    opening(response: Response | undefined): void {
      if (!opened) {
        opened = response?.ok === true;
        return;
      }
      if (response?.ok) return;
      failAll(
        (method) =>
          new RemoteMcpError(
            server,
            'closed',
            `closed the event stream during ${method}, and it could not be opened again`,
          ),
      );
    },
    /** The stream broke in a way that no reconnection mends (an event past `maxReplyBytes`). */
    fail(error: RemoteMcpError): void {
      failAll(() => error);
    },
  };
}
