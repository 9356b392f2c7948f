/**
 * A run that asks a person, on one of two instances on one PostgreSQL, each a host with its own
 * store: the person's answer lands on the other instance and still reaches the run, in both eras
 * (docs/asking-a-person.md, "Several instances").
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServer } from '../../src/index.js';
import { knexServerStore } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { APPROVAL_APP, type AskingWorld, createAskingWorld, TWO_STEP_APP } from '../helpers/asking.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, serveApp } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const APPS = [APPROVAL_APP, TWO_STEP_APP];

describeEach(databases.filter((kind) => kind.name === 'postgres'))('two instances on one $name', (kind) => {
  let db: TestDatabase;
  let world: AskingWorld;
  const stores: KnexServerStore[] = [];
  const hosts: Host[] = [];

  beforeAll(async () => {
    ({ db } = await createMigrated(kind));
    for (let i = 0; i < 2; i += 1) stores.push(knexServerStore(db.connect()));
    world = await createAskingWorld(stores[0] as KnexServerStore, APPS);
    const loadApp = (appId: string) => APPS.find((app) => app.id === appId) ?? null;
    for (const store of stores) {
      const app = express();
      app.use(
        mcpServer({
          resolveServer: store.resolver(loadApp),
          store,
          runApp: world.runApp,
          heartbeatMs: 0,
          onError: () => {},
        }),
      );
      hosts.push(await serveApp(app, { name: 'Express 5', major: 5, globalJson: false }));
    }
    // Each instance listens from its first lookup on.
    for (const host of hosts) await host.post(world.codes.approval as string, request(1, 'ping'));
    await new Promise((done) => setTimeout(done, 300));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await Promise.all(stores.map((store) => store.close()));
    await db?.destroy();
  });

  const [first, second] = [() => hosts[0] as Host, () => hosts[1] as Host];

  describe('2025-11-25: the official v1 client, its answer POSTed to the other instance', () => {
    it('reaches the run, and the call returns its result', async () => {
      expect(await approveThroughTheSecond([])).toBe(1);
    });

    it('an answer too long for a notification is stored, and still reaches the run (to be asked again)', async () => {
      const asked = await approveThroughTheSecond([{ decision: 'approve', comment: 'x'.repeat(9000) }]);
      expect(asked).toBe(2);
    });
  });

  /**
   * The v1 client calls Approval on the first instance and POSTs its answers to the second: `given`
   * first, then an approval from afar. Returns how many times it was asked.
   */
  async function approveThroughTheSecond(given: Record<string, string>[]): Promise<number> {
    const code = world.codes.approval as string;
    const posted: string[] = [];
    // Requests go to the first instance; the client's answers (JSON-RPC responses) to the second.
    const routed: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      const isAnswer = body !== undefined && !('method' in body);
      const base = isAnswer ? second() : first();
      posted.push(isAnswer ? 'answer to the second' : `${body?.method ?? init?.method} to the first`);
      return fetch(new URL(new URL(String(input)).pathname, base.url), init);
    };
    const client = new Client(
      { name: 'farm-asking', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const answers = [...given, { decision: 'approve', comment: 'from afar' }];
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'accept', content: answers.shift() };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(first().path(code), first().url), { fetch: routed }),
    );
    try {
      const result = await client.callTool({ name: 'Approval', arguments: {} });
      expect(result.structuredContent).toEqual({
        answer: { action: 'accept', values: { decision: 'approve', comment: 'from afar' } },
      });
      expect(posted).toContain('answer to the second');
      expect(posted).toContain('tools/call to the first');
    } finally {
      await client.close();
    }
    return asked;
  }

  describe('2026-07-28: the retry reaches the other instance', () => {
    const call = (on: Host, id: number, app: string, tool: string, extra: Record<string, unknown> = {}) =>
      on.post(
        world.codes[app] as string,
        request(id, 'tools/call', {
          name: tool,
          arguments: {},
          _meta: envelope({ [CLIENT_CAPABILITIES]: { elicitation: {} } }),
          ...extra,
        }),
        standardHeaders('tools/call', tool),
      );
    const stateOf = (reply: { json: unknown }) =>
      (reply.json as { result: { requestState: string } }).result.requestState;

    it('and is served from what the run writes on the first: the result', async () => {
      const asked = await call(first(), 1, 'approval', 'Approval');
      expect((asked.json as { result: { resultType: string } }).result.resultType).toBe('input_required');
      const reply = await call(second(), 2, 'approval', 'Approval', {
        inputResponses: { approval: { action: 'accept', content: { decision: 'reject' } } },
        requestState: stateOf(asked),
      });
      const answer = { action: 'accept', values: { decision: 'reject' } };
      expectRpcReply(
        reply,
        200,
        rpcResult(2, {
          resultType: 'complete',
          content: [{ type: 'text', text: JSON.stringify({ answer }) }],
          isError: false,
          structuredContent: { answer },
          _meta: SERVER_INFO,
        }),
      );
    });

    it('and the next question, with a fresh state that the second instance serves again', async () => {
      const asked = await call(first(), 1, 'two-step', 'Two_Step');
      const named = await call(second(), 2, 'two-step', 'Two_Step', {
        inputResponses: { name: { action: 'accept', content: { name: 'Ana' } } },
        requestState: stateOf(asked),
      });
      expect((named.json as { result: Record<string, unknown> }).result).toEqual({
        resultType: 'input_required',
        inputRequests: { colour: expect.objectContaining({ method: 'elicitation/create' }) },
        requestState: expect.any(String),
        _meta: SERVER_INFO,
      });
      const done = await call(second(), 3, 'two-step', 'Two_Step', {
        inputResponses: { colour: { action: 'accept', content: { colour: 'red' } } },
        requestState: stateOf(named),
      });
      expect((done.json as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
        name: { action: 'accept', values: { name: 'Ana' } },
        colour: { action: 'accept', values: { colour: 'red' } },
      });
    });

    it('a tampered state is -32602 on the other instance too', async () => {
      const asked = await call(first(), 1, 'approval', 'Approval');
      const reply = await call(second(), 2, 'approval', 'Approval', {
        inputResponses: {},
        requestState: `${stateOf(asked)}x`,
      });
      expectRpcReply(
        reply,
        200,
        rpcError(2, -32602, 'Invalid params for tools/call: requestState is not one this server issued'),
      );
    });

    it('a good state whose run no longer waits is -32602: no instance takes it', async () => {
      const asked = await call(first(), 1, 'approval', 'Approval');
      await call(first(), 2, 'approval', 'Approval', {
        inputResponses: { approval: { action: 'decline' } },
        requestState: stateOf(asked),
      });
      const reply = await call(second(), 3, 'approval', 'Approval', {
        inputResponses: { approval: { action: 'decline' } },
        requestState: stateOf(asked),
      });
      expectRpcReply(
        reply,
        200,
        rpcError(
          3,
          -32602,
          'Invalid params for tools/call: requestState names no run waiting for input (it ended, timed out, or its instance stopped)',
        ),
      );
    });
  });
});
