/**
 * Runs that ask a person in the 2026-07-28 era, on the wire: the call answers `input_required`
 * with a signed `requestState`, the retry with `inputResponses` resumes the run, and a state that
 * is not good is an error, never a resumption (docs/http-contract.md, "Asking a person").
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_MESSAGE, APPROVAL_SCHEMA, askingSuite, CANNOT_ASK_CONTENT } from '../helpers/asking.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const suite = askingSuite();

const ELICITATION: Record<string, unknown> = { [CLIENT_CAPABILITIES]: { elicitation: {} } };

/** A 2026-07-28 `tools/call` of `tool` on `app`'s server; `extra` joins the params. */
function call(
  id: number,
  app: string,
  tool: string,
  extra: Record<string, unknown> = {},
  meta = ELICITATION,
) {
  return suite.host.post(
    suite.world.codes[app] as string,
    request(id, 'tools/call', { name: tool, arguments: {}, _meta: envelope(meta), ...extra }),
    { ...standardHeaders('tools/call', tool), 'x-test-round': String(id) },
  );
}

const approvalRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: APPROVAL_MESSAGE, requestedSchema: APPROVAL_SCHEMA },
};

const complete = (id: number, answer: unknown) =>
  rpcResult(id, {
    resultType: 'complete',
    content: [{ type: 'text', text: JSON.stringify({ answer }) }],
    isError: false,
    structuredContent: { answer },
    _meta: SERVER_INFO,
  });

const stateOf = (reply: { json: unknown }) =>
  (reply.json as { result: { requestState: string } }).result.requestState;

describe('a run that asks, in the 2026-07-28 era', () => {
  it('the call answers input_required with the form and a signed requestState', async () => {
    const reply = await call(1, 'approval', 'Approval');
    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        resultType: 'input_required',
        inputRequests: { approval: approvalRequest },
        requestState: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/),
        _meta: SERVER_INFO,
      }),
    );
  });

  it('the retry with the answer and the state gets the result, and run.request is the retry now', async () => {
    const first = await call(1, 'approval', 'Approval');
    const run = suite.world.seen.length - 1;
    const answer = { action: 'accept', content: { decision: 'approve', comment: 'fine' } };
    const reply = await call(2, 'approval', 'Approval', {
      inputResponses: { approval: answer },
      requestState: stateOf(first),
    });
    expectRpcReply(
      reply,
      200,
      complete(2, { action: 'accept', values: { decision: 'approve', comment: 'fine' } }),
    );
    expect(suite.world.seen[run]?.requestAfterAnswer).toBe('2');
  });

  it('each round has a fresh state, and a run that asks twice takes three requests', async () => {
    const first = await call(1, 'two-step', 'Two_Step');
    const named = await call(2, 'two-step', 'Two_Step', {
      inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: stateOf(first),
    });
    expectRpcReply(
      named,
      200,
      rpcResult(2, {
        resultType: 'input_required',
        inputRequests: {
          colour: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Which colour?',
              requestedSchema: {
                type: 'object',
                properties: { colour: { type: 'string' } },
                required: ['colour'],
              },
            },
          },
        },
        requestState: expect.any(String),
        _meta: SERVER_INFO,
      }),
    );
    expect(stateOf(named)).not.toBe(stateOf(first));
    const done = await call(3, 'two-step', 'Two_Step', {
      inputResponses: { colour: { action: 'accept', content: { colour: 'blue' } } },
      requestState: stateOf(named),
    });
    const outputs = {
      name: { action: 'accept', values: { name: 'Alice' } },
      colour: { action: 'accept', values: { colour: 'blue' } },
    };
    expect((done.json as { result: unknown }).result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: JSON.stringify(outputs) }],
      isError: false,
      structuredContent: outputs,
      _meta: SERVER_INFO,
    });
  });

  it('a retry without the answer it needs is asked again, with a new state', async () => {
    const first = await call(1, 'approval', 'Approval');
    const again = await call(2, 'approval', 'Approval', {
      inputResponses: { something_else: { action: 'accept', content: {} } },
      requestState: stateOf(first),
    });
    expectRpcReply(
      again,
      200,
      rpcResult(2, {
        resultType: 'input_required',
        inputRequests: { approval: approvalRequest },
        requestState: expect.any(String),
        _meta: SERVER_INFO,
      }),
    );
    expect(stateOf(again)).not.toBe(stateOf(first));
  });

  it('a first call that carries the answer already is answered at once; unknown keys are ignored', async () => {
    const reply = await call(1, 'approval', 'Approval', {
      inputResponses: {
        approval: { action: 'accept', content: { decision: 'reject' } },
        unknown_extra_key: { action: 'accept', content: { foo: 'bar' } },
      },
    });
    expectRpcReply(reply, 200, complete(1, { action: 'accept', values: { decision: 'reject' } }));
  });

  it('a tampered requestState is -32602, and the run still waits for a good one', async () => {
    const first = await call(1, 'approval', 'Approval');
    const answer = { approval: { action: 'accept', content: { decision: 'approve' } } };
    const tampered = await call(2, 'approval', 'Approval', {
      inputResponses: answer,
      requestState: `${stateOf(first)}-TAMPERED`,
    });
    expectRpcReply(
      tampered,
      200,
      rpcError(2, -32602, 'Invalid params for tools/call: requestState is not one this server issued'),
    );
    const good = await call(3, 'approval', 'Approval', {
      inputResponses: answer,
      requestState: stateOf(first),
    });
    expectRpcReply(good, 200, complete(3, { action: 'accept', values: { decision: 'approve' } }));
  });

  it('a state used already is -32602', async () => {
    const first = await call(1, 'approval', 'Approval');
    const answer = { approval: { action: 'decline' } };
    await call(2, 'approval', 'Approval', { inputResponses: answer, requestState: stateOf(first) });
    const reused = await call(3, 'approval', 'Approval', {
      inputResponses: answer,
      requestState: stateOf(first),
    });
    expectRpcReply(
      reused,
      200,
      rpcError(
        3,
        -32602,
        'Invalid params for tools/call: requestState names no run waiting for input (it ended, timed out, or its instance stopped)',
      ),
    );
  });

  it("another server's state is -32602: states are signed per server", async () => {
    const first = await call(1, 'two-step', 'Two_Step');
    const reply = await call(2, 'approval', 'Approval', {
      inputResponses: {},
      requestState: stateOf(first),
    });
    expectRpcReply(
      reply,
      200,
      rpcError(2, -32602, 'Invalid params for tools/call: requestState is not one this server issued'),
    );
  });

  it('a client that did not declare elicitation gets an isError result at once', async () => {
    const reply = await call(1, 'approval', 'Approval', {}, { [CLIENT_CAPABILITIES]: {} });
    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        resultType: 'complete',
        content: CANNOT_ASK_CONTENT,
        isError: true,
        _meta: SERVER_INFO,
      }),
    );
  });
});
