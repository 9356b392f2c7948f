/**
 * `notifications/cancelled` matching (README "Cancellation"): a cancel names a request by its id
 * only, and the 2025 transports carry no session here, so it stops every call of the same server
 * in this process that has that id. Two calls in flight with one id (two clients of one code
 * whose ids collide) are both stopped, whichever of them started first or finished first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../src/index.js';
import { createWorld, type World } from '../helpers/apps.js';
import { type Host, hostVariants, startHost } from '../helpers/hosts.js';
import { expectAccepted, expectRpcReply, request, rpcResult } from '../helpers/rpc.js';

const CANCELLED = { content: [{ type: 'text', text: 'the call was cancelled' }], isError: true };
const finished = (text: string) => ({ content: [{ type: 'text', text }], isError: false });

let world: World;
let host: Host;
beforeAll(async () => {
  world = await createWorld(pkg.memoryServerStore());
  host = await startHost(hostVariants[0] as (typeof hostVariants)[0], pkg, world.options());
});
afterAll(() => host.close());

const call = (id: string | number) =>
  host.post(world.codes.slow, request(id, 'tools/call', { name: 'Slow', arguments: {} }));
const cancel = (requestId: string | number) =>
  host.post(world.codes.slow, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });

describe('two calls in flight with the same id', () => {
  it('one cancel stops both', async () => {
    const first = call(7);
    const firstRun = await world.nextSlowRun();
    const second = call(7);
    const secondRun = await world.nextSlowRun();
    expectAccepted(await cancel(7));
    expect([firstRun.run.signal.aborted, secondRun.run.signal.aborted]).toEqual([true, true]);
    expectRpcReply(await first, 200, rpcResult(7, CANCELLED));
    expectRpcReply(await second, 200, rpcResult(7, CANCELLED));
  });

  it('the earlier stays cancellable after the later finished', async () => {
    const first = call('same');
    const firstRun = await world.nextSlowRun();
    const second = call('same');
    (await world.nextSlowRun()).release('second done');
    expectRpcReply(await second, 200, rpcResult('same', finished('second done')));

    expectAccepted(await cancel('same'));
    expect(firstRun.run.signal.aborted).toBe(true);
    expectRpcReply(await first, 200, rpcResult('same', CANCELLED));
  });

  it('the later stays cancellable after the earlier finished', async () => {
    const first = call(8);
    const firstRun = await world.nextSlowRun();
    const second = call(8);
    const secondRun = await world.nextSlowRun();
    firstRun.release('first done');
    expectRpcReply(await first, 200, rpcResult(8, finished('first done')));

    expectAccepted(await cancel(8));
    expect(secondRun.run.signal.aborted).toBe(true);
    expectRpcReply(await second, 200, rpcResult(8, CANCELLED));
  });
});
