/**
 * Resumable streams (MCP 2025-03-26 Streamable HTTP, "Resumability and redelivery") with the Knex
 * store on every database: a streamed reply's events carry ids; a client that lost the stream
 * sends `GET` with `Last-Event-ID` and gets the rest, live until the response, with no gap and no
 * duplicate; a stream is bound to its server; 2025-11-25 primes the stream; `streamWindowMs` ends a
 * stream early with a `retry` hint, once the client holds an event id; a resumed stream has
 * heartbeats of its own and ends at the response; a stream the database could not store expires.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it, vi } from 'vitest';
import type { AppEvent, HostApp } from '../../src/index.js';
import { sleep } from '../helpers/common.js';
import { databases, describeEach } from '../helpers/databases.js';
import type { Host } from '../helpers/hosts.js';
import { expectRpcReply, rpcError } from '../helpers/rpc.js';
import { type SseEvent, said } from '../helpers/sse.js';
import {
  resumeReply,
  storedStreamsOn,
  TICKER,
  tickerCall,
  tickerResult,
  ticks,
} from '../helpers/stored-streams.js';

const TICKS = 6;
const OTHER: HostApp = { id: 'other', name: 'Other', mode: 'workflow', inputForm: [] };
/** Six progress events 80 ms apart, then the outputs. */
const tick = () => ticks(TICKS, 80);
/** A call without a progress token: its stream carries the response alone (and comment lines). */
const quietCall = (id: string) => tickerCall(id);
const call = (id: string) => tickerCall(id, `token-${id}`);

describeEach(databases)('resumable streams on $name', (kind) => {
  const stored = storedStreamsOn(kind, [TICKER, OTHER], () => tick());
  const { start } = stored;

  const post = (host: Host, id: string, version = '2025-06-18') => stored.post(host, call(id), version);

  it('a stream dropped after two events is resumed with GET and Last-Event-ID: the rest, live, no gap, no duplicate', async () => {
    const host = await start();
    const stream = await post(host, 'drop');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const first = [(await stream.next())!, (await stream.next())!];
    expect(said(first)).toEqual([1, 2]);
    for (const event of first) expect(event.id).toMatch(/^[A-Za-z0-9_-]{22}\.[12]$/);
    stream.drop();

    const resumed = await stored.resume(host, first[1]!.id!);
    expect(resumed.status).toBe(200);
    const rest = await resumed.rest();
    expect(said(rest)).toEqual([3, 4, 5, 6, 'result']);
    const ids = rest.map((event) => event.id);
    expect(ids).toEqual([3, 4, 5, 6, 7].map((seq) => first[0]!.id!.replace(/\.1$/, `.${seq}`)));
    expect(JSON.parse(rest.at(-1)!.data!)).toEqual(tickerResult('drop', 6));
  });

  it('after the response, the stream can still be read back from any event, for streamRetentionMs', async () => {
    const host = await start();
    const whole = await (await post(host, 'whole')).rest();
    const again = await (await stored.resume(host, whole[0]!.id!)).rest();
    expect(again).toEqual(whole.slice(1));
  });

  it('past streamRetentionMs after its response, a stream is gone: 404', async () => {
    const host = await start({ streamRetentionMs: 300 });
    const whole = await (await post(host, 'kept')).rest();
    const kept = await (await stored.resume(host, whole[2]!.id!)).rest();
    expect(kept).toEqual(whole.slice(3));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const reply = await stored.resumeReply(host, whole[2]!.id!);
    expectRpcReply(reply, 404, rpcError(null, -32600, 'Stream not found: no such stream of this server'));
  });

  it('a Last-Event-ID sent to another server’s URL, or unknown, is 404; a GET without one stays 405', async () => {
    const host = await start();
    const whole = await (await post(host, 'bound')).rest();
    for (const [code, id] of [
      [stored.servers[1]!.serverCode, whole[0]!.id!],
      [stored.code, 'AAAAAAAAAAAAAAAAAAAAAA.1'],
      [stored.code, 'not an event id'],
    ] as const) {
      const reply = await resumeReply(host, code, id);
      expectRpcReply(reply, 404, rpcError(null, -32600, 'Stream not found: no such stream of this server'));
    }
    const plain = await host.send({ method: 'GET', path: host.path(stored.code) });
    expectRpcReply(plain, 405, rpcError(null, -32600, 'Method not allowed: GET; use POST'));
  });

  it('2025-11-25 primes the stream: its first event has an id and empty data', async () => {
    const host = await start();
    const events = await (await post(host, 'primed', '2025-11-25')).rest();
    expect(events[0]).toEqual({ id: expect.stringMatching(/\.0$/), data: '' });
    expect(said(events)).toEqual([1, 2, 3, 4, 5, 6, 'result']);
    // Resuming from the priming event gives everything.
    const all = await (await stored.resume(host, events[0]!.id!)).rest();
    expect(all).toEqual(events.slice(1));
  });

  it('with streamWindowMs a stream ends early with a retry hint, and GET goes on where it stopped', async () => {
    const host = await start({ streamWindowMs: 200 });
    const cut = await (await post(host, 'window')).rest();
    expect(cut.at(-1)).toEqual({ retry: 500 });
    const delivered = cut.filter((event) => event.id);
    expect(said(delivered).length).toBeLessThan(TICKS);
    const events = [...delivered];
    while (said(events).at(-1) !== 'result') {
      const next = await (await stored.resume(host, events.at(-1)!.id!)).rest();
      events.push(...next.filter((event) => event.id));
    }
    expect(said(events)).toEqual([1, 2, 3, 4, 5, 6, 'result']);
  });

  it('before 2025-11-25, streamWindowMs waits for an event id: a call without a progress token is not cut before its response', async () => {
    const host = await start({
      streamWindowMs: 150,
      heartbeatMs: 50,
      runApp: async () => {
        await sleep(500);
        return { outputs: { ticks: 0 } };
      },
    });
    const events = await (await stored.post(host, quietCall('quiet'), '2025-06-18', true)).rest();
    const last = events.at(-1)!;
    expect(JSON.parse(last.data!)).toEqual(tickerResult('quiet', 0));
    expect(last.id).toMatch(/^[A-Za-z0-9_-]{22}\.1$/);
    const before = events.slice(0, -1);
    expect(before.length).toBeGreaterThan(0);
    expect(before).toEqual(before.map(() => ({ comment: 'keep-alive' })));
  });

  it('a resumed stream that streamWindowMs ends stops reading the stored stream', async () => {
    const host = await start({ streamWindowMs: 250, runApp: () => ticks(12, 100) });
    const stream = await post(host, 'window-resumed');
    const first = (await stream.next())!;
    stream.drop();
    const read = vi.spyOn(stored.store.streams!, 'read');
    try {
      const resumed = await (await stored.resume(host, first.id!)).rest();
      expect(resumed.at(-1)).toEqual({ retry: 500 });
      const readsWhenEnded = read.mock.calls.length;
      // Events go on being stored meanwhile, and a follower would also poll every second.
      await sleep(1300);
      expect(read.mock.calls.length).toBe(readsWhenEnded);
    } finally {
      read.mockRestore();
    }
  });

  /** Makes storing event `seq` of any stream fail with "disk full", once `when` has settled. */
  const failAppend = (seq: number, when: Promise<void> = Promise.resolve()) => {
    const streams = stored.store.streams!;
    const append = streams.append.bind(streams);
    return vi
      .spyOn(streams, 'append')
      .mockImplementation((streamId, events) =>
        events.some((event) => event.seq === seq)
          ? when.then(() => Promise.reject(new Error('disk full')))
          : append(streamId, events),
      );
  };

  it('an event the database could not store ends the stored stream: its follower ends, a later GET is 404', async () => {
    const errors: unknown[] = [];
    const host = await start({
      runApp: () => ticks(8, 100),
      onError: (error) => {
        errors.push(error);
      },
    });
    // The fifth event fails once the follower has had the fourth.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const failing = failAppend(5, released);
    try {
      const stream = await post(host, 'unstored');
      const first = [(await stream.next())!, (await stream.next())!];
      stream.drop();
      const follower = await stored.resume(host, first[1]!.id!);
      expect(follower.status).toBe(200);
      expect(said([(await follower.next())!, (await follower.next())!])).toEqual([3, 4]);
      release();
      // The follower's stream ends, with no response.
      expect(await follower.rest()).toEqual([]);
      expect(errors).toEqual([new Error('disk full')]);
      await vi.waitFor(async () => {
        const reply = await host.send({
          method: 'GET',
          path: host.path(stored.code),
          headers: { 'last-event-id': first[1]!.id! },
        });
        expectRpcReply(reply, 404, rpcError(null, -32600, 'Stream not found: no such stream of this server'));
      });
    } finally {
      failing.mockRestore();
    }
  });

  it('a stream whose event could not be stored is no longer cut by streamWindowMs: the live client gets everything', async () => {
    const errors: unknown[] = [];
    const host = await start({
      streamWindowMs: 300,
      runApp: () => ticks(6, 100),
      onError: (error) => {
        errors.push(error);
      },
    });
    const failing = failAppend(2);
    try {
      const events = await (await post(host, 'unstored-window', '2025-11-25')).rest();
      expect(said(events)).toEqual([1, 2, 3, 4, 5, 6, 'result']);
      expect(events.some((event) => event.retry !== undefined)).toBe(false);
      // Events go out as they come and are stored behind: the second had its id when its storing
      // failed, and the rest went out without ids.
      expect(events.map((event) => event.id?.replace(/^.*\./, '.'))).toEqual([
        '.0',
        '.1',
        '.2',
        ...Array(5).fill(undefined),
      ]);
      expect(JSON.parse(events.at(-1)!.data!)).toEqual(tickerResult('unstored-window', 6));
      expect(errors).toEqual([new Error('disk full')]);
    } finally {
      failing.mockRestore();
    }
  });

  /** A 2025-11-25 call without a progress token, dropped after its priming event; its id. */
  const primedThenDropped = async (host: Host, id: string) => {
    const stream = await stored.post(host, quietCall(id), '2025-11-25');
    const primed = (await stream.next())!;
    expect(primed).toEqual({ id: expect.stringMatching(/\.0$/), data: '' });
    stream.drop();
    return primed.id!;
  };
  const resumeWithComments = (host: Host, lastEventId: string) => stored.resume(host, lastEventId, true);
  /** The response, alone at the end of the events, with the next id of the stream. */
  const expectResponseLast = (events: SseEvent[], primedId: string, id: string) => {
    const last = events.at(-1)!;
    expect(Object.keys(last).sort()).toEqual(['data', 'id']);
    expect(last.id).toBe(primedId.replace(/\.0$/, '.1'));
    expect(JSON.parse(last.data!)).toEqual(tickerResult(id, 0));
  };

  it('a resumed stream with nothing to send yet sends its head at once, without waiting for a heartbeat', async () => {
    let finished = false;
    const host = await start({
      heartbeatMs: 0,
      runApp: () =>
        (async function* (): AsyncIterable<AppEvent> {
          yield { event: 'progress', progress: 1, total: 1 };
          await sleep(1000);
          finished = true;
          yield { event: 'workflow_finished', outputs: { ticks: 0 } };
        })(),
    });
    const stream = await post(host, 'head');
    const progress = (await stream.next())!;
    expect(said([progress])).toEqual([1]);
    stream.drop();
    const resumed = await resumeWithComments(host, progress.id!);
    expect(finished).toBe(false);
    expect(resumed.status).toBe(200);
    expect(resumed.headers['content-type']).toBe('text/event-stream');
    const events = await resumed.rest();
    expect(finished).toBe(true);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ comment: 'keep-alive' });
    expect(events[1]!.id).toBe(progress.id!.replace(/\.1$/, '.2'));
    expect(JSON.parse(events[1]!.data!)).toEqual(tickerResult('head', 0));
  });

  it('a resumed stream sends a comment line after every heartbeatMs of silence, and nothing after the response', async () => {
    const host = await start({
      heartbeatMs: 100,
      runApp: async () => {
        await sleep(800);
        return { outputs: { ticks: 0 } };
      },
    });
    // The stream is marked ended well after its response is stored: a follower that waited for
    // that mark would send heartbeats after the response meanwhile.
    const streams = stored.store.streams!;
    const end = streams.end.bind(streams);
    const slowEnd = vi.spyOn(streams, 'end').mockImplementation(async (streamId, retentionMs) => {
      await sleep(500);
      return end(streamId, retentionMs);
    });
    try {
      const primedId = await primedThenDropped(host, 'beats');
      const events = await (await resumeWithComments(host, primedId)).rest();
      const before = events.slice(0, -1);
      expect(before.length).toBeGreaterThanOrEqual(3);
      expect(before).toEqual(before.map(() => ({ comment: 'keep-alive' })));
      expectResponseLast(events, primedId, 'beats');
    } finally {
      slowEnd.mockRestore();
    }
  });

  it('the official client, cut off by streamWindowMs, resumes by itself and gets every progress event and the result', async () => {
    const host = await start({ streamWindowMs: 150 });
    const client = new Client({ name: 'resumer', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${host.url}${host.path(stored.code)}`), {
      reconnectionOptions: {
        initialReconnectionDelay: 10,
        maxReconnectionDelay: 100,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 20,
      },
    });
    await client.connect(transport);
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: 'Ticker', arguments: {} }, undefined, {
        onprogress: (note) => progress.push(note.progress),
      });
      expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"ticks":6}' }],
        structuredContent: { ticks: 6 },
        isError: false,
      });
    } finally {
      await client.close();
    }
  });
});
