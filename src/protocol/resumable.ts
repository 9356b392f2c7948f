import type { StreamRead } from '../store/stream-events.js';
import type { EraContext } from './context.js';
import { McpError } from './errors.js';
import type { JsonRpcNotification, JsonRpcResponse } from './messages.js';
import { PushQueue } from './push-queue.js';
import { type EndpointReply, KEEP_ALIVE, type StreamItem } from './reply.js';
import type { ErrorReporter } from './report.js';
import type { EndpointRequest } from './request.js';
import type { Resumability } from './resumability.js';

/** The `retry` hint of a stream ended by `streamWindowMs`: resume at once, or nearly. */
const RETRY_MS = 500;
/** A follower reads its stream at least this often, in case an announcement was lost. */
const FOLLOW_POLL_MS = 1000;

type Message = JsonRpcResponse | JsonRpcNotification;

/** A JSON-RPC message, as opposed to a sign of life or an event made already. */
const isMessage = (item: StreamItem): item is Message =>
  item !== KEEP_ALIVE && !('eventId' in item) && !('retryMs' in item);

/** SSE event ids are `<stream id>.<sequence>`; the stream id is what makes them unguessable. */
const eventId = (streamId: string, seq: number): string => `${streamId}.${seq}`;

function parseEventId(text: string): { streamId: string; seq: number } | null {
  const match = /^([A-Za-z0-9_-]{16,64})\.(0|[1-9][0-9]{0,8})$/.exec(text.trim());
  return match ? { streamId: match[1] as string, seq: Number(match[2]) } : null;
}

/** Ends `out` after `windowMs` with a `retry` hint (none when 0); returns what stops that. */
function windowOf(out: PushQueue<StreamItem>, windowMs: number): () => void {
  if (windowMs === 0) return () => {};
  const timer = setTimeout(() => {
    out.push({ retryMs: RETRY_MS });
    out.end();
  }, windowMs);
  return () => clearTimeout(timer);
}

/**
 * A streamed reply made resumable (MCP 2025-03-26 Streamable HTTP, "Resumability and
 * redelivery"): every message gets an event id and is stored before it is sent, and keeps being
 * stored after the client has gone, until the response, so that a `GET` with `Last-Event-ID` on
 * any instance can send the rest. From 2025-11-25 the first event primes the client with an id and
 * no data (SSE polling).
 */
export async function recordStream(
  messages: AsyncIterable<StreamItem>,
  serverId: string,
  protocolVersion: string,
  resumability: Resumability,
  report: ErrorReporter,
): Promise<AsyncIterable<StreamItem>> {
  const { store } = resumability;
  const streamId = await store.open(serverId);
  // The client going away stops only what is sent to it: the run's events are still stored.
  const out = new PushQueue<StreamItem>();
  if (protocolVersion >= '2025-11-25') out.push({ eventId: eventId(streamId, 0), message: null });
  const stopWindow = windowOf(out, resumability.windowMs);
  void (async () => {
    let seq = 0;
    let storing = true;
    try {
      for await (const item of messages) {
        if (!isMessage(item) || !storing) {
          out.push(item);
          continue;
        }
        seq += 1;
        try {
          await store.append(streamId, seq, item);
          out.push({ eventId: eventId(streamId, seq), message: item });
        } catch (error) {
          // The live client still gets every message; only resumption is lost.
          report(error, { phase: 'dispatch', serverId });
          storing = false;
          out.push(item);
        }
      }
      if (storing) await store.end(streamId, resumability.retentionMs);
    } catch (error) {
      report(error, { phase: 'dispatch', serverId });
    } finally {
      stopWindow();
      out.end();
    }
  })();
  return out;
}

/**
 * `GET` with `Last-Event-ID`: the events of that stream after that id, then the rest as they come,
 * until the response, on whichever instance the stream runs. A stream of another server, an
 * unknown or expired one, is 404.
 */
export async function resumeStream<HostRequest>(
  request: EndpointRequest<HostRequest>,
  lastEventId: string,
  ctx: EraContext<HostRequest>,
  resumability: Resumability,
): Promise<EndpointReply> {
  const target = await ctx.resolveTarget(request, null, false);
  const parsed = parseEventId(lastEventId);
  const { store } = resumability;
  const first = parsed && (await store.read(parsed.streamId, target.server.id, parsed.seq));
  if (!parsed || !first)
    throw new McpError('streamNotFound', 'Stream not found: no such stream of this server');
  const { streamId } = parsed;
  let last = parsed.seq;
  let done = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;

  const out = new PushQueue<StreamItem>({ readerGone: stop });
  const stopWindow = windowOf(out, resumability.windowMs);
  const unwatch = store.watch(streamId, () => follow());
  const poller = setInterval(() => follow(), FOLLOW_POLL_MS);
  poller.unref();

  function stop(): void {
    done = true;
    unwatch();
    clearInterval(poller);
    stopWindow();
  }
  function deliver(read: StreamRead | null): void {
    for (const event of read?.events ?? []) {
      if (event.seq <= last) continue;
      last = event.seq;
      out.push({ eventId: eventId(streamId, event.seq), message: event.message as Message });
    }
    if (read === null || read.ended) {
      stop();
      out.end();
    }
  }
  /** Reads what came after `last`, one read at a time; an announcement during a read reads again. */
  function follow(): void {
    if (done) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          deliver(await store.read(streamId, target.server.id, last));
        } while (readAgain && !done);
      } catch (error) {
        ctx.report(error, { phase: 'dispatch', serverId: target.server.id });
        stop();
        out.end();
      } finally {
        reading = undefined;
      }
    })();
  }

  deliver(first);
  follow(); // an event stored between the first read and the watch
  return { kind: 'stream', status: 200, messages: out };
}
