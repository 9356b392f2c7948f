import { DelayQueue } from '../delay-queue.js';
import type { StreamRead } from '../store/stream-events.js';
import type { EraContext } from './context.js';
import { McpError } from './errors.js';
import type { JsonRpcNotification, JsonRpcResponse } from './messages.js';
import { PushQueue } from './push-queue.js';
import { type EndpointReply, KEEP_ALIVE, type StreamItem } from './reply.js';
import type { ErrorReporter } from './report.js';
import type { EndpointRequest } from './request.js';
import type { Resumability, ResumedBeat } from './resumability.js';

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

/** Calls `onEnd` once `windowMs` has passed (never when 0); returns what stops that. */
function windowOf(windowMs: number, onEnd: () => void): () => void {
  if (windowMs === 0) return () => {};
  const timer = setTimeout(onEnd, windowMs);
  return () => clearTimeout(timer);
}

/** Ends a stream early with a `retry` hint, for the client to resume it with `GET`. */
function cut(out: PushQueue<StreamItem>): void {
  out.push({ retryMs: RETRY_MS });
  out.end();
}

/**
 * Where resumed streams wait for their next comment line, `heartbeatMs` after their last event:
 * one queue per router, as live calls have theirs (`LiveCall.heartbeats`); none for 0.
 */
export function resumedHeartbeats(heartbeatMs: number): DelayQueue<ResumedBeat> | undefined {
  if (heartbeatMs === 0) return undefined;
  const queue = new DelayQueue<ResumedBeat>(heartbeatMs, (beat) => {
    beat.out.push(KEEP_ALIVE);
    if (beat.entry) queue.refresh(beat.entry);
  });
  return queue;
}

/** Whether a stored message is the response, the stream's last. */
const isResponse = (message: Message): boolean => !('method' in message);

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
  // A client can resume only from an event id it holds: before 2025-11-25 there is no priming
  // event, and a window that passes before the first id waits for it.
  let holdsId = protocolVersion >= '2025-11-25';
  if (holdsId) out.push({ eventId: eventId(streamId, 0), message: null });
  let windowPassed = false;
  const stopWindow = windowOf(resumability.windowMs, () => {
    windowPassed = true;
    if (holdsId) cut(out);
  });
  void (async () => {
    let seq = 0;
    let storing = true;
    let responded = false;
    // The live client still gets every message, to the end: the window no longer cuts a stream
    // that could not be resumed. Unless the response is stored, the stored stream ends at once and
    // expires, so that a resumption answers 404 instead of waiting for a response never stored.
    const giveUp = (error: unknown): void => {
      report(error, { phase: 'dispatch', serverId });
      stopWindow();
      if (!storing) return;
      storing = false;
      if (responded) return;
      store.end(streamId, 0).catch((endError: unknown) => report(endError, { phase: 'dispatch', serverId }));
    };
    try {
      for await (const item of messages) {
        if (!isMessage(item) || !storing) {
          out.push(item);
          continue;
        }
        seq += 1;
        try {
          await store.append(streamId, seq, item);
        } catch (error) {
          giveUp(error);
          out.push(item);
          continue;
        }
        out.push({ eventId: eventId(streamId, seq), message: item });
        if (isResponse(item)) {
          // Nothing comes after the response, not even a `retry` hint.
          responded = true;
          stopWindow();
        } else if (!holdsId) {
          holdsId = true;
          if (windowPassed) cut(out);
        }
      }
      if (storing) await store.end(streamId, resumability.retentionMs);
    } catch (error) {
      giveUp(error);
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
  const { store, heartbeats } = resumability;
  const first = parsed && (await store.read(parsed.streamId, target.server.id, parsed.seq));
  if (!parsed || !first)
    throw new McpError('streamNotFound', 'Stream not found: no such stream of this server');
  const { streamId } = parsed;
  let last = parsed.seq;
  let done = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;

  const out = new PushQueue<StreamItem>({ readerGone: stop });
  const stopWindow = windowOf(resumability.windowMs, () => {
    stop();
    cut(out);
  });
  const unwatch = store.watch(streamId, () => follow());
  const poller = setInterval(() => follow(), FOLLOW_POLL_MS);
  poller.unref();
  // Silences get comment lines, as on the stream resumed (README, "Long runs"); progress
  // notifications, heartbeats included, are stored events and come with the rest.
  const beat: ResumedBeat = { out, entry: undefined };
  beat.entry = heartbeats?.add(beat);

  function stop(): void {
    if (done) return;
    done = true;
    unwatch();
    clearInterval(poller);
    if (beat.entry) heartbeats?.remove(beat.entry);
    stopWindow();
  }
  function finish(): void {
    stop();
    out.end();
  }
  function deliver(read: StreamRead | null): void {
    for (const event of read?.events ?? []) {
      if (event.seq <= last) continue;
      last = event.seq;
      const message = event.message as Message;
      out.push({ eventId: eventId(streamId, event.seq), message });
      // Nothing comes after the response, not even a comment line.
      if (isResponse(message)) {
        finish();
        return;
      }
      if (beat.entry) heartbeats?.refresh(beat.entry);
    }
    if (read === null || read.ended) finish();
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
        finish();
      } finally {
        reading = undefined;
      }
    })();
  }

  deliver(first);
  // Nothing to send yet: a comment line sends the response's head, so that the client and the
  // proxies on the way know the stream is open.
  if (!done && first.events.length === 0) out.push(KEEP_ALIVE);
  follow(); // an event stored between the first read and the watch
  return { kind: 'stream', status: 200, messages: out };
}
