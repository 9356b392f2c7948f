/**
 * Runs that ask a person, as the v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28
 * sees them: its `elicitation/create` handler answers the `input_required` result's request, the
 * client retries with the answer, and the call returns the run's result.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVAL_MESSAGE, APPROVAL_SCHEMA, askingSuite, CANNOT_ASK_CONTENT } from '../helpers/asking.js';

const suite = askingSuite();
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

type Answer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

async function connect(app: string, handler?: (params: Record<string, unknown>) => Answer) {
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: 'asking-test-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      ...(handler ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (handler) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return handler(request.params as Record<string, unknown>);
    });
  }
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(suite.host.path(suite.world.codes[app] as string), suite.host.url),
    ),
  );
  return { client, asked };
}

describe('the v2 client pinned to 2026-07-28', () => {
  it('answers through its elicitation handler, and the call returns the result', async () => {
    const { client, asked } = await connect('approval', () => ({
      action: 'accept',
      content: { decision: 'approve', comment: 'go' },
    }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    const answer = { action: 'accept', values: { decision: 'approve', comment: 'go' } };
    // The client keeps `resultType` to itself.
    expect(result).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ answer }) }],
      structuredContent: { answer },
      isError: false,
      _meta: expect.any(Object),
    });
    expect(asked).toEqual([{ mode: 'form', message: APPROVAL_MESSAGE, requestedSchema: APPROVAL_SCHEMA }]);
  });

  it('two questions in a row take two rounds, both through the handler', async () => {
    const { client, asked } = await connect(
      'two-step',
      (params): Answer =>
        params.message === 'What is your name?'
          ? { action: 'accept', content: { name: 'Ana' } }
          : { action: 'accept', content: { colour: 'green' } },
    );
    const result = await client.callTool({ name: 'Two_Step', arguments: {} });
    expect(result.structuredContent).toEqual({
      name: { action: 'accept', values: { name: 'Ana' } },
      colour: { action: 'accept', values: { colour: 'green' } },
    });
    expect(asked.map((params) => params.message)).toEqual(['What is your name?', 'Which colour?']);
  });

  it('a decline reaches the app', async () => {
    const { client } = await connect('approval', () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result.structuredContent).toEqual({ answer: { action: 'decline' } });
  });

  it('an answer that does not fit is asked again once, then the ask resolves cancel', async () => {
    const { client, asked } = await connect('approval', () => ({
      action: 'accept',
      content: { decision: 7 },
    }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result.structuredContent).toEqual({ answer: { action: 'cancel', reason: 'invalid_answer' } });
    expect(asked).toHaveLength(2);
  });

  it('without the capability, the call returns the isError result that says why', async () => {
    const { client } = await connect('approval');
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    // The client keeps `resultType` to itself.
    expect(result).toEqual({
      content: CANNOT_ASK_CONTENT,
      isError: true,
      _meta: expect.any(Object),
    });
  });
});
