import { McpError } from '../../errors/mcp-error.js';
import type { StreamRead } from '../../store/stream-events.js';
import { DelayQueue } from '../../util/delay-queue.js';
import type { EraContext } from '../context.js';
import type { EndpointReply } from '../reply.js';
import type { EndpointRequest } from '../request.js';
import { EventStream } from './event-stream.js';
import { EVENT_STREAM_HEADERS, isResponse, KEEP_ALIVE, type StreamMessage } from './events.js';
import { cut, eventId, parseEventId, type Resumability, type ResumedBeat, windowOf } from './resumability.js';

/** A follower reads its stream at least this often, in case an announcement was lost. */
const FOLLOW_POLL_MS = 1000;

/**
 * Where resumed streams wait for their next comment line, `heartbeatMs` after their last event:
 * one queue per router, as live calls have theirs (`ReplyStream.heartbeats`); none for 0.
 */
export function resumedHeartbeats(heartbeatMs: number): DelayQueue<ResumedBeat> | undefined {
  if (heartbeatMs === 0) return undefined;
  const queue = new DelayQueue<ResumedBeat>(heartbeatMs, (beat) => {
    beat.out.push(KEEP_ALIVE);
    if (beat.entry) queue.refresh(beat.entry);
  });
  return queue;
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

  const out = new EventStream({ readerGone: stop });
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
      const message = event.message as StreamMessage;
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
  return { kind: 'stream', status: 200, headers: EVENT_STREAM_HEADERS, stream: out };
}
