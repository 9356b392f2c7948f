/**
 * How many runs may wait for a person at once on one instance (`maxWaitingRuns`,
 * docs/asking-a-person.md, "Limits"): past it `run.ask` rejects at once with `TooManyWaitingRuns`,
 * the call answers an `isError` result that says so, and the run that waits goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyWaitingRuns } from '../../src/index.js';
import { memoryServerStore } from '../../src/store/index.js';
import { type AskingWorld, createAskingWorld, startAskingHost } from '../helpers/asking.js';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcResult } from '../helpers/rpc.js';

const ELICITATION: Record<string, unknown> = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
const TOO_MANY =
  "the app needs a person's answer, and 1 runs already wait for one on this instance (the maxWaitingRuns limit): try again later";

describe('maxWaitingRuns, in the 2026-07-28 era', () => {
  let world: AskingWorld;
  let host: Host;
  beforeAll(async () => {
    world = await createAskingWorld(memoryServerStore());
    host = await startAskingHost(world, { heartbeatMs: 0, maxWaitingRuns: 1 });
  });
  afterAll(() => host?.close());

  const call = (id: number, extra: Record<string, unknown> = {}) =>
    host.post(
      world.codes.approval as string,
      request(id, 'tools/call', { name: 'Approval', arguments: {}, _meta: envelope(ELICITATION), ...extra }),
      standardHeaders('tools/call', 'Approval'),
    );
  const parked = (id: number) =>
    rpcResult(id, {
      resultType: 'input_required',
      inputRequests: { approval: expect.objectContaining({ method: 'elicitation/create' }) },
      requestState: expect.any(String),
      _meta: SERVER_INFO,
    });

  it('the run past the limit is told at once; the one that waits is untouched, and its end frees the place', async () => {
    const first = await call(1);
    expectRpcReply(first, 200, parked(1));
    const refused = await call(2);
    expectRpcReply(
      refused,
      200,
      rpcResult(2, {
        resultType: 'complete',
        content: [{ type: 'text', text: TOO_MANY }],
        isError: true,
        _meta: SERVER_INFO,
      }),
    );
    expect(world.seen[1]?.error).toBe(`TooManyWaitingRuns: ${TOO_MANY}`);
    expect(new TooManyWaitingRuns(1)).toMatchObject({
      name: 'TooManyWaitingRuns',
      limit: 1,
      message: TOO_MANY,
    });

    // The run that waits still takes its answer.
    const answer = { action: 'accept', content: { decision: 'approve' } };
    const requestState = (first.json as { result: { requestState: string } }).result.requestState;
    const answered = await call(3, { inputResponses: { approval: answer }, requestState });
    expectRpcReply(
      answered,
      200,
      rpcResult(3, {
        resultType: 'complete',
        content: [
          {
            type: 'text',
            text: JSON.stringify({ answer: { action: 'accept', values: { decision: 'approve' } } }),
          },
        ],
        isError: false,
        structuredContent: { answer: { action: 'accept', values: { decision: 'approve' } } },
        _meta: SERVER_INFO,
      }),
    );
    // Nothing waits now: a new run may ask.
    expectRpcReply(await call(4), 200, parked(4));
  });
});
