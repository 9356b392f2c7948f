/**
 * How a resumed stream ends (docs/http-contract.md, "Resumable streams"), with the Knex store on
 * every database: a stream whose run no longer lives (its lease lapsed: its instance stopped; or
 * `callTimeoutMs` and a lease have passed without its response) ends at once with an error
 * response to its request, saying the run was lost; `GET` past the last event of a stream that
 * ended answers 404, like an unknown id; every `GET` counts against `rateLimit`.
 * Measured before: a resumed stream of a killed instance stayed open with keep-alives for as long
 * as it was watched; `GET` past the end answered 200 with nothing; `GET` ignored `rateLimit`.
 */
import { expect, it } from 'vitest';
import type { AppEvent } from '../../src/index.js';
import { newStreamId } from '../../src/store/stream-events.js';
import { sleep } from '../helpers/common.js';
import { databases, describeEach } from '../helpers/databases.js';
import type { Host } from '../helpers/hosts.js';
import { expectRpcReply, rpcError } from '../helpers/rpc.js';
import { said } from '../helpers/sse.js';
import { storedStreamsOn, TICKER, tickerCall, tickerResult, ticks } from '../helpers/stored-streams.js';

const RUN_LOST = 'Run lost: the call stopped before it answered; call the tool again';
const NOT_FOUND = 'Stream not found: no such stream of this server';

describeEach(databases)('how a resumed stream ends, on $name', (kind) => {
  const stored = storedStreamsOn(kind, [TICKER], () => ticks(2));
  const { start, resume, resumeReply: get } = stored;
  const call = (host: Host, id: string) => stored.post(host, tickerCall(id, id));

  /**
   * A stream as an instance left it when it stopped: opened `startedMsAgo`, its lease running out
   * `leaseLeftMs` from now, one progress event stored, no response.
   */
  async function leftBehind(requestId: string, startedMsAgo: number, leaseLeftMs: number): Promise<string> {
    const streamId = newStreamId();
    const now = Date.now();
    await stored.knex('mcp_streams').insert({
      id: streamId,
      server_id: stored.servers[0]!.id,
      created_at: now - startedMsAgo,
      ended_at: null,
      expires_at: now + leaseLeftMs,
      request_id: JSON.stringify(requestId),
    });
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    };
    await stored
      .knex('mcp_stream_events')
      .insert({ stream_id: streamId, seq: 1, data: JSON.stringify(progress) });
    return streamId;
  }
  const lost = (id: string) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: RUN_LOST } });

  it('a stream whose lease has lapsed (its instance stopped) sends what was stored, then ends with an error saying the run was lost', async () => {
    const host = await start();
    const streamId = await leftBehind('lapsed', 2000, -1000);
    const resumed = await resume(host, `${streamId}.0`);
    expect(resumed.status).toBe(200);
    const events = await resumed.rest();
    expect(events).toEqual([
      { id: `${streamId}.1`, data: expect.any(String) },
      { data: JSON.stringify(lost('lapsed')) },
    ]);
    // Past its last stored event, the same: the run is lost, not unknown.
    const again = await (await resume(host, `${streamId}.1`)).rest();
    expect(again).toEqual([{ data: JSON.stringify(lost('lapsed')) }]);
  });

  it('a stream past callTimeoutMs and a lease without its response is lost too, although its lease is held', async () => {
    const host = await start({ callTimeoutMs: 1000, streamLeaseMs: 1000 });
    const streamId = await leftBehind('outlived', 5000, 60_000);
    const events = await (await resume(host, `${streamId}.1`)).rest();
    expect(events).toEqual([{ data: JSON.stringify(lost('outlived')) }]);
  });

  it('a stream whose run lives and holds its lease is followed until its response', async () => {
    const host = await start({ callTimeoutMs: 60_000 });
    const streamId = await leftBehind('alive', 100, 60_000);
    const follower = await resume(host, `${streamId}.1`);
    const response = { jsonrpc: '2.0', id: 'alive', result: { content: [], isError: false } };
    await stored
      .knex('mcp_stream_events')
      .insert({ stream_id: streamId, seq: 2, data: JSON.stringify(response) });
    await stored.store.streams!.end(streamId, 60_000);
    expect(await follower.rest()).toEqual([{ id: `${streamId}.2`, data: JSON.stringify(response) }]);
  });

  it('a run that outlasts several leases is not lost: its instance renews them while it runs', async () => {
    const host = await start({
      streamLeaseMs: 300,
      runApp: () =>
        (async function* (): AsyncIterable<AppEvent> {
          yield { event: 'progress', progress: 1, total: 2 };
          await sleep(1200);
          yield { event: 'workflow_finished', outputs: { ticks: 2 } };
        })(),
    });
    const stream = await call(host, 'renewed');
    const first = (await stream.next())!;
    expect(said([first])).toEqual([1]);
    stream.drop();
    const rest = await (await resume(host, first.id!)).rest();
    expect(rest.map((event) => JSON.parse(event.data!))).toEqual([tickerResult('renewed', 2)]);
  });

  it('GET past the last event of a stream that ended answers 404, like an unknown id', async () => {
    const host = await start();
    const events = await (await call(host, 'ended')).rest();
    expect(said(events)).toEqual([1, 2, 'result']);
    expectRpcReply(await get(host, events.at(-1)!.id!), 404, rpcError(null, -32600, NOT_FOUND));
    const [, seq] = events.at(-1)!.id!.split('.');
    const beyond = events.at(-1)!.id!.replace(/\.\d+$/, `.${Number(seq) + 5}`);
    expectRpcReply(await get(host, beyond), 404, rpcError(null, -32600, NOT_FOUND));
    // Before the end, the rest as ever.
    expect(said(await (await resume(host, events[0]!.id!)).rest())).toEqual([2, 'result']);
  });

  it('every GET that resumes a stream counts against rateLimit', async () => {
    const host = await start({ rateLimit: { requests: 3, windowMs: 60_000 } });
    const events = await (await call(host, 'limited')).rest();
    expect(said(events)).toEqual([1, 2, 'result']);
    expect((await get(host, events[0]!.id!)).status).toBe(200);
    expect((await get(host, events[0]!.id!)).status).toBe(200);
    const over = await get(host, events[0]!.id!);
    expectRpcReply(over, 429, rpcError(null, -32000, 'Too many requests'));
    expect(over.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });
});
