/**
 * Runs that ask a person in the 2025 era, on the wire: the signed `Mcp-Session-Id` of `initialize`,
 * the `elicitation/create` request on the call's stream (2025-06-18 and 2025-11-25 shapes), and
 * the client's answer POSTed back with 202 (docs/http-contract.md, "Asking a person").
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_MESSAGE, APPROVAL_SCHEMA, askingSuite, CANNOT_ASK_CONTENT } from '../helpers/asking.js';
import { expectAccepted, expectRpcReply, request, rpcResult } from '../helpers/rpc.js';
import { dataOf, event, expectStreamHeaders, postLive } from '../helpers/streaming.js';

const suite = askingSuite();

const code = () => suite.world.codes.approval as string;

async function initialize(version: string, capabilities: Record<string, unknown>) {
  return suite.host.post(
    code(),
    request(0, 'initialize', {
      protocolVersion: version,
      capabilities,
      clientInfo: { name: 'raw', version: '1' },
    }),
  );
}

describe('initialize', () => {
  it('issues a signed Mcp-Session-Id to a client that declares elicitation', async () => {
    const reply = await initialize('2025-11-25', { elicitation: {} });
    expect(reply.status).toBe(200);
    expect(reply.headers['mcp-session-id']).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect((reply.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
  });

  it('issues none to a client without elicitation, one that declares only url mode, or one on 2025-03-26', async () => {
    for (const [version, capabilities] of [
      ['2025-11-25', {}],
      ['2025-11-25', { elicitation: { url: {} } }],
      ['2025-03-26', { elicitation: {} }],
    ] as const) {
      const reply = await initialize(version, capabilities);
      expect({ status: reply.status, session: reply.headers['mcp-session-id'] }).toEqual({
        status: 200,
        session: undefined,
      });
    }
  });
});

describe.each([
  ['2025-11-25', { mode: 'form', message: APPROVAL_MESSAGE, requestedSchema: APPROVAL_SCHEMA }],
  [
    '2025-06-18',
    {
      message: APPROVAL_MESSAGE,
      requestedSchema: {
        ...APPROVAL_SCHEMA,
        properties: {
          ...APPROVAL_SCHEMA.properties,
          decision: {
            type: 'string',
            enum: ['approve', 'reject'],
            enumNames: ['Approve', 'Reject'],
            title: 'Decision',
          },
        },
      },
    },
  ],
])('a call in %s', (version, params) => {
  it('streams elicitation/create; the POSTed answer is 202 and the stream ends with the result', async () => {
    const session = (await initialize(version, { elicitation: {} })).headers['mcp-session-id'] as string;
    const headers = { 'mcp-protocol-version': version, 'mcp-session-id': session };
    const live = await postLive(
      suite.host.url,
      suite.host.path(code()),
      request(5, 'tools/call', { name: 'Approval', arguments: {} }),
      headers,
    );
    expectStreamHeaders(live);
    const asked = dataOf(await live.next());
    expect(asked).toEqual({
      jsonrpc: '2.0',
      id: expect.stringMatching(/^elicitation-[A-Za-z0-9_-]{22}$/),
      method: 'elicitation/create',
      params,
    });
    const answer = await suite.host.post(
      code(),
      { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { decision: 'approve' } } },
      headers,
    );
    expectAccepted(answer);
    const values = { action: 'accept', values: { decision: 'approve' } };
    expect(await live.rest()).toEqual([
      event(
        rpcResult(5, {
          content: [{ type: 'text', text: JSON.stringify({ answer: values }) }],
          isError: false,
          structuredContent: { answer: values },
        }),
      ),
    ]);
  });
});

describe('a call that cannot ask', () => {
  it('without a session id: the isError result, as JSON', async () => {
    const reply = await suite.host.post(
      code(),
      request(6, 'tools/call', { name: 'Approval', arguments: {} }),
      {
        'mcp-protocol-version': '2025-11-25',
      },
    );
    expectRpcReply(
      reply,
      200,
      rpcResult(6, {
        content: CANNOT_ASK_CONTENT,
        isError: true,
      }),
    );
  });

  it('with a session id another server signed: the same', async () => {
    const other = await suite.host.post(
      suite.world.codes['two-step'] as string,
      request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} } }),
    );
    const reply = await suite.host.post(
      code(),
      request(7, 'tools/call', { name: 'Approval', arguments: {} }),
      {
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': other.headers['mcp-session-id'] as string,
      },
    );
    expect((reply.json as { result: { isError: boolean } }).result.isError).toBe(true);
  });
});
