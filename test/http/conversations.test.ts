/**
 * Conversations for chat apps (`HostApp.conversations`): the tool takes an optional
 * `conversation_id` after `query`, the run gets `run.conversationId`, the result names the
 * conversation in `structuredContent` and in a text block, and the description tells the model to
 * pass it back. Without the flag nothing changes. Ends with the official clients continuing a
 * conversation across two calls.
 */
import { randomUUID } from 'node:crypto';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppEvent, AppResult, AppRun, HostApp } from '../../src/index.js';
import { publishApp } from '../helpers/apps.js';
import {
  answeredInConversation,
  CONVERSATION_ID_INPUT,
  CONVERSATION_OUTPUT_SCHEMA,
  HOW_TO_CONTINUE,
} from '../helpers/conversations.js';
import { type Host, type HostVariant, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const TENANT = 'tenant-chat';
const QUERY = { type: 'string', description: 'User Input/Question content' };
const ANSWER_OUTPUT = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

/** A chat app that remembers the previous question of each conversation, as a host app would. */
const ECHO_CHAT: HostApp = {
  id: 'echo-chat',
  name: 'Echo Chat',
  mode: 'chat',
  description: 'Repeats what you asked before',
  conversations: true,
  inputForm: [
    { type: 'select', variable: 'tone', label: 'Tone', options: ['plain', 'loud'] },
    // The implicit argument wins over a form variable of the same name.
    { type: 'text-input', variable: 'conversation_id', label: 'Shadowed' },
  ],
};
/** Streams Dify-style `message` events that name the conversation as `conversation_id`. */
const STREAMING_CHAT: HostApp = {
  id: 'streaming-chat',
  name: 'Streaming Chat',
  mode: 'advanced-chat',
  conversations: true,
  inputForm: [],
};
/** Never names a conversation itself. */
const SILENT_AGENT: HostApp = {
  id: 'silent-agent',
  name: 'Silent Agent',
  mode: 'agent-chat',
  conversations: true,
  inputForm: [],
};
/** Returns a conversation id, but does not keep conversations: nothing may change. */
const PLAIN_CHAT: HostApp = {
  id: 'plain-chat',
  name: 'Plain Chat',
  mode: 'chat',
  description: 'No conversations',
  inputForm: [],
};
/** The flag means nothing outside the chat modes. */
const FLAGGED_WORKFLOW: HostApp = {
  id: 'flagged-workflow',
  name: 'Flagged Workflow',
  mode: 'workflow',
  description: 'A workflow',
  conversations: true,
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text' }],
};
const FLAGGED_COMPLETION: HostApp = {
  id: 'flagged-completion',
  name: 'Flagged Completion',
  mode: 'completion',
  description: 'A completion',
  conversations: true,
  inputForm: [],
};

const APPS = [ECHO_CHAT, STREAMING_CHAT, SILENT_AGENT, PLAIN_CHAT, FLAGGED_WORKFLOW, FLAGGED_COMPLETION];

describe('conversations', () => {
  const variant = hostVariants[0] as HostVariant;
  let host: Host;
  const codes: Record<string, string> = {};
  const runs: AppRun[] = [];
  /** The echo chat's memory: the previous question of each conversation. */
  const previous = new Map<string, string>();

  function runApp(run: AppRun): AppResult | AsyncIterable<AppEvent> {
    runs.push(run);
    switch (run.app.id) {
      case ECHO_CHAT.id: {
        const known = run.conversationId !== undefined && previous.has(run.conversationId);
        const conversationId = known ? (run.conversationId as string) : randomUUID();
        const before = previous.get(conversationId);
        previous.set(conversationId, run.query ?? '');
        const answer =
          before === undefined ? `First question: ${run.query}` : `Before that you asked: ${before}`;
        return { answer: run.inputs.tone === 'loud' ? answer.toUpperCase() : answer, conversationId };
      }
      case STREAMING_CHAT.id:
        return (async function* () {
          yield { event: 'message', answer: 'Hello', conversation_id: 'conv-stream' } as AppEvent;
          yield { event: 'message', answer: ' there' } as AppEvent;
        })();
      case PLAIN_CHAT.id:
        return { answer: 'plain', conversationId: 'ignored' };
      case FLAGGED_WORKFLOW.id:
        return { outputs: { ok: true } };
      default:
        return { answer: `silent: ${run.query ?? ''}` };
    }
  }

  beforeAll(async () => {
    const pkg = await loadPackage(variant.major);
    const store = pkg.memoryServerStore();
    for (const app of APPS) {
      const server = await publishApp(store, app, { tenantId: TENANT, description: app.description ?? '' });
      codes[app.id] = server.serverCode;
    }
    const loadApp = (appId: string) => APPS.find((app) => app.id === appId) ?? null;
    host = await startHost(variant, pkg, { resolveServer: store.resolver(loadApp), runApp });
  });
  afterAll(async () => {
    await host?.close();
  });
  beforeEach(() => {
    runs.length = 0;
  });

  const list = (app: HostApp, version = '2025-11-25') =>
    host.post(codes[app.id] as string, request(1, 'tools/list'), { 'mcp-protocol-version': version });
  const call = (app: HostApp, args: Record<string, unknown>, version = '2025-11-25') =>
    host.post(
      codes[app.id] as string,
      request(2, 'tools/call', { name: app.name.replace(/ /g, '_'), arguments: args }),
      { 'mcp-protocol-version': version },
    );
  const conversationOf = (reply: { json: unknown }) =>
    (reply.json as { result: { structuredContent: { conversation_id: string } } }).result.structuredContent
      .conversation_id;

  describe('the tool', () => {
    it('takes an optional conversation_id right after query, says how to continue, and returns it', async () => {
      const reply = await list(ECHO_CHAT);
      expectRpcReply(
        reply,
        200,
        rpcResult(1, {
          tools: [
            {
              name: 'Echo_Chat',
              title: 'Echo Chat',
              description: `Repeats what you asked before\n\n${HOW_TO_CONTINUE}`,
              inputSchema: {
                type: 'object',
                properties: {
                  query: QUERY,
                  conversation_id: CONVERSATION_ID_INPUT,
                  tone: { type: 'string', enum: ['plain', 'loud'], description: 'Tone' },
                },
                required: ['query'],
              },
              outputSchema: CONVERSATION_OUTPUT_SCHEMA,
              execution: { taskSupport: 'optional' },
            },
          ],
        }),
      );
      const [tool] = (reply.json as { result: { tools: { inputSchema: { properties: object } }[] } }).result
        .tools;
      expect(Object.keys(tool!.inputSchema.properties)).toEqual(['query', 'conversation_id', 'tone']);
    });

    it('is the same for 2024-11-05 clients, without an output schema', async () => {
      expectRpcReply(
        await list(SILENT_AGENT, '2024-11-05'),
        200,
        rpcResult(1, {
          tools: [
            {
              name: 'Silent_Agent',
              description: HOW_TO_CONTINUE,
              inputSchema: {
                type: 'object',
                properties: { query: QUERY, conversation_id: CONVERSATION_ID_INPUT },
                required: ['query'],
              },
            },
          ],
        }),
      );
    });

    it('without the flag, a chat tool is exactly as before', async () => {
      expectRpcReply(
        await list(PLAIN_CHAT),
        200,
        rpcResult(1, {
          tools: [
            {
              name: 'Plain_Chat',
              title: 'Plain Chat',
              description: 'No conversations',
              inputSchema: { type: 'object', properties: { query: QUERY }, required: ['query'] },
              outputSchema: ANSWER_OUTPUT,
              execution: { taskSupport: 'optional' },
            },
          ],
        }),
      );
    });

    it('a workflow or a completion with the flag has no conversation', async () => {
      expectRpcReply(
        await list(FLAGGED_WORKFLOW),
        200,
        rpcResult(1, {
          tools: [
            {
              name: 'Flagged_Workflow',
              title: 'Flagged Workflow',
              description: 'A workflow',
              inputSchema: {
                type: 'object',
                properties: { text: { type: 'string', description: 'Text' } },
                required: [],
              },
              outputSchema: { type: 'object' },
              execution: { taskSupport: 'optional' },
            },
          ],
        }),
      );
      expectRpcReply(
        await list(FLAGGED_COMPLETION),
        200,
        rpcResult(1, {
          tools: [
            {
              name: 'Flagged_Completion',
              title: 'Flagged Completion',
              description: 'A completion',
              inputSchema: { type: 'object', properties: {}, required: [] },
              outputSchema: ANSWER_OUTPUT,
              execution: { taskSupport: 'optional' },
            },
          ],
        }),
      );
      const reply = await call(FLAGGED_WORKFLOW, { text: 'x', conversation_id: 'c-1' });
      expectRpcReply(
        reply,
        200,
        rpcResult(2, {
          content: [{ type: 'text', text: '{"ok":true}' }],
          structuredContent: { ok: true },
          isError: false,
        }),
      );
      expect(Object.hasOwn(runs[0]!, 'conversationId')).toBe(false);
      expect(runs[0]?.inputs).toEqual({ text: 'x' });
    });
  });

  describe('a call', () => {
    it('without conversation_id starts a conversation: the run has none, the result names the new one', async () => {
      const reply = await call(ECHO_CHAT, { query: 'What time is it?', tone: 'plain' });
      const conversationId = conversationOf(reply);
      expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
      expectRpcReply(
        reply,
        200,
        rpcResult(2, answeredInConversation('First question: What time is it?', conversationId)),
      );
      expect(runs).toHaveLength(1);
      expect(Object.hasOwn(runs[0]!, 'conversationId')).toBe(false);
      expect(runs[0]).toMatchObject({ query: 'What time is it?', inputs: { tone: 'plain' } });
    });

    it('with the conversation_id it got back continues that conversation', async () => {
      const first = await call(ECHO_CHAT, { query: 'Is it raining?' });
      const conversationId = conversationOf(first);
      const second = await call(ECHO_CHAT, {
        query: 'And tomorrow?',
        conversation_id: conversationId,
        tone: 'loud',
      });

      expectRpcReply(
        second,
        200,
        rpcResult(2, answeredInConversation('BEFORE THAT YOU ASKED: IS IT RAINING?', conversationId)),
      );
      expect(runs[1]?.conversationId).toBe(conversationId);
      // The argument is the run's conversationId, never one of the app's inputs.
      expect(runs[1]?.inputs).toEqual({ tone: 'loud' });
      expect(runs[1]?.query).toBe('And tomorrow?');
    });

    it('an empty conversation_id starts a new conversation, like an absent one', async () => {
      const reply = await call(ECHO_CHAT, { query: 'Hello', conversation_id: '' });
      expectRpcReply(
        reply,
        200,
        rpcResult(2, answeredInConversation('First question: Hello', conversationOf(reply))),
      );
      expect(Object.hasOwn(runs[0]!, 'conversationId')).toBe(false);
      expect(runs[0]?.inputs).toEqual({});
    });

    it('a conversation_id that is not a string is an argument problem, and nothing runs', async () => {
      const text = 'Invalid arguments for tool Echo_Chat: conversation_id must be a string';
      expectRpcReply(
        await call(ECHO_CHAT, { query: 'Hello', conversation_id: 42 }),
        200,
        rpcResult(2, { content: [{ type: 'text', text }], isError: true }),
      );
      expectRpcReply(
        await call(ECHO_CHAT, { query: 'Hello', conversation_id: 42 }, '2025-06-18'),
        200,
        rpcError(2, -32602, text, { problems: ['conversation_id must be a string'] }),
      );
      expect(runs).toEqual([]);
    });

    it('a streamed answer takes the conversation its events name (Dify spells it conversation_id)', async () => {
      expectRpcReply(
        await call(STREAMING_CHAT, { query: 'Hi' }),
        200,
        rpcResult(2, answeredInConversation('Hello there', 'conv-stream')),
      );
    });

    it('an app that names no conversation continues the one the client passed', async () => {
      expectRpcReply(
        await call(SILENT_AGENT, { query: 'go on', conversation_id: 'conv-7' }),
        200,
        rpcResult(2, answeredInConversation('silent: go on', 'conv-7')),
      );
      expect(runs[0]?.conversationId).toBe('conv-7');
    });

    it('with no conversation on either side, the result is a plain answer', async () => {
      expectRpcReply(
        await call(SILENT_AGENT, { query: 'hi' }),
        200,
        rpcResult(2, {
          content: [{ type: 'text', text: 'silent: hi' }],
          structuredContent: { answer: 'silent: hi' },
          isError: false,
        }),
      );
    });

    it.each(['2024-11-05', '2025-03-26'])(
      'at %s, which has no structured content, the id is in the text',
      async (version) => {
        const reply = await call(STREAMING_CHAT, { query: 'Hi' }, version);
        expectRpcReply(
          reply,
          200,
          rpcResult(2, answeredInConversation('Hello there', 'conv-stream', { structured: false })),
        );
      },
    );

    it('without the flag, conversation_id is an unknown argument and a returned id is ignored', async () => {
      expectRpcReply(
        await call(PLAIN_CHAT, { query: 'Hi', conversation_id: 'c-1' }),
        200,
        rpcResult(2, {
          content: [{ type: 'text', text: 'plain' }],
          structuredContent: { answer: 'plain' },
          isError: false,
        }),
      );
      expect(Object.hasOwn(runs[0]!, 'conversationId')).toBe(false);
      expect(runs[0]?.inputs).toEqual({});
    });
  });

  describe('the official clients continue a conversation across two calls', () => {
    it('@modelcontextprotocol/sdk over Streamable HTTP, checking results against the output schema', async () => {
      const client = new Client({ name: 'conversation-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(host.path(codes[ECHO_CHAT.id]!), host.url)),
      );
      try {
        const [tool] = (await client.listTools()).tools;
        expect(tool?.inputSchema.properties).toHaveProperty('conversation_id');
        expect(tool?.outputSchema).toEqual(CONVERSATION_OUTPUT_SCHEMA);

        const first = await client.callTool({
          name: 'Echo_Chat',
          arguments: { query: 'Who won the match?' },
        });
        const { conversation_id: conversationId } = first.structuredContent as { conversation_id: string };
        expect(first).toEqual(answeredInConversation('First question: Who won the match?', conversationId));

        const second = await client.callTool({
          name: 'Echo_Chat',
          arguments: { query: 'By how much?', conversation_id: conversationId },
        });
        expect(second).toEqual(
          answeredInConversation('Before that you asked: Who won the match?', conversationId),
        );
        expect(runs.map((run) => run.conversationId)).toEqual([undefined, conversationId]);
        expect(runs.map((run) => run.protocolVersion)).toEqual(['2025-11-25', '2025-11-25']);
      } finally {
        await client.close();
      }
    });

    it('@modelcontextprotocol/client at 2026-07-28', async () => {
      const client = new V2Client(
        { name: 'conversation-test', version: '2.0.0' },
        {
          versionNegotiation: { mode: { pin: '2026-07-28' } },
        },
      );
      await client.connect(new V2Transport(new URL(host.path(codes[ECHO_CHAT.id]!), host.url)));
      try {
        const first = await client.callTool({ name: 'Echo_Chat', arguments: { query: 'Where is it?' } });
        const { conversation_id: conversationId } = first.structuredContent as { conversation_id: string };
        const second = await client.callTool({
          name: 'Echo_Chat',
          arguments: { query: 'And when?', conversation_id: conversationId },
        });
        expect(second.structuredContent).toEqual({
          answer: 'Before that you asked: Where is it?',
          conversation_id: conversationId,
        });
        expect(second.content).toEqual([
          { type: 'text', text: 'Before that you asked: Where is it?' },
          { type: 'text', text: `conversation_id: ${conversationId}` },
        ]);
        expect(runs.map((run) => run.protocolVersion)).toEqual(['2026-07-28', '2026-07-28']);
      } finally {
        await client.close();
      }
    });
  });
});
