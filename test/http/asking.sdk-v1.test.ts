/**
 * Runs that ask a person, as the official v1 client (`@modelcontextprotocol/sdk`) sees them in the
 * 2025-11-25 era: `elicitation/create` arrives on the call's stream, the client's handler answers,
 * and the app's `run.ask` resolves with what the person said.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APPROVAL_MESSAGE,
  APPROVAL_SCHEMA,
  askingSuite,
  CANNOT_ASK_CONTENT,
  eventually,
} from '../helpers/asking.js';

const suite = askingSuite();
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

type Handler = (params: Record<string, unknown>) => Promise<ElicitResult>;

async function connect(handler?: Handler): Promise<{ client: Client; asked: Record<string, unknown>[] }> {
  const asked: Record<string, unknown>[] = [];
  const client = new Client(
    { name: 'asking-test', version: '1.0.0' },
    handler ? { capabilities: { elicitation: {} } } : {},
  );
  if (handler) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return handler(request.params);
    });
  }
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(suite.host.path(suite.world.codes.approval as string), suite.host.url),
    ),
  );
  return { client, asked };
}

const outputsOf = (answer: unknown) => ({
  content: [{ type: 'text', text: JSON.stringify({ answer }) }],
  structuredContent: { answer },
  isError: false,
});

describe('the official v1 client with an elicitation handler', () => {
  it('gets the form, and an accepted answer reaches the app', async () => {
    const { client, asked } = await connect(async () => ({
      action: 'accept',
      content: { decision: 'approve', comment: 'ok' },
    }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    const answer = { action: 'accept', values: { decision: 'approve', comment: 'ok' } };
    expect(result).toEqual(outputsOf(answer));
    expect(asked).toEqual([{ mode: 'form', message: APPROVAL_MESSAGE, requestedSchema: APPROVAL_SCHEMA }]);
  });

  it('a decline reaches the app as a decline', async () => {
    const { client } = await connect(async () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result).toEqual(outputsOf({ action: 'decline' }));
  });

  it('a cancel reaches the app as a cancel', async () => {
    const { client } = await connect(async () => ({ action: 'cancel' }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result).toEqual(outputsOf({ action: 'cancel' }));
  });

  it('an answer that does not fit is asked again once, then the ask resolves cancel', async () => {
    const { client, asked } = await connect(async () => ({
      action: 'accept',
      content: { decision: 'maybe' },
    }));
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result).toEqual(outputsOf({ action: 'cancel', reason: 'invalid_answer' }));
    expect(asked).toHaveLength(2);
    expect(asked[1]).toEqual(asked[0]);
  });

  it('an answer that fits the second time is taken', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { comment: 'no decision' } },
      { action: 'accept', content: { decision: 'reject' } },
    ];
    const { client, asked } = await connect(async () => answers.shift() as ElicitResult);
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result).toEqual(outputsOf({ action: 'accept', values: { decision: 'reject' } }));
    expect(asked).toHaveLength(2);
  });

  it('a person who does not answer in time: the ask resolves cancel with reason timeout', async () => {
    const { client, asked } = await connect(() => new Promise<ElicitResult>(() => {}));
    const result = await client.callTool({ name: 'Approval', arguments: { timeout_ms: 300 } });
    expect(result).toEqual(outputsOf({ action: 'cancel', reason: 'timeout' }));
    expect(asked).toHaveLength(1);
  });

  it('cancelling the call rejects the pending ask', async () => {
    const { client, asked } = await connect(() => new Promise<ElicitResult>(() => {}));
    const before = suite.world.seen.length;
    const abort = new AbortController();
    const calling = client.callTool({ name: 'Approval', arguments: {} }, undefined, { signal: abort.signal });
    await eventually(() => asked.length === 1, 'the form reached the client');
    abort.abort('changed my mind');
    await expect(calling).rejects.toThrow();
    await eventually(() => suite.world.seen[before]?.error !== undefined, 'the ask rejected');
    expect(suite.world.seen[before]).toEqual({
      answers: [],
      error: 'Error: the call was cancelled',
      canAsk: true,
    });
  });
});

describe('a client without the elicitation capability', () => {
  it('gets an isError result that says why, at once, and the app saw canAsk false', async () => {
    const { client } = await connect();
    const before = suite.world.seen.length;
    const result = await client.callTool({ name: 'Approval', arguments: {} });
    expect(result).toEqual({
      content: CANNOT_ASK_CONTENT,
      isError: true,
    });
    expect(suite.world.seen[before]).toEqual({
      answers: [],
      error: `HumanInputUnavailable: ${(result.content as { text: string }[])[0]?.text}`,
      canAsk: false,
    });
  });
});
