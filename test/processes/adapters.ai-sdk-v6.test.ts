/**
 * `express-app-mcp/ai-sdk` with AI SDK 6 (installed as `ai-v6`), the last major that supports
 * Node 20: its stream is `fullStream` and its reply `response.messages`, where AI SDK 7 has
 * `stream` and `responseMessages`. The path from the adapter's events to the MCP client is the one
 * the AI SDK 7 suite covers; here the adapter's `runApp` is called directly, on AI SDK 6's own
 * mock model.
 */
import { simulateReadableStream, stepCountIs, streamText, tool } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type * as AiSdk from '../../src/adapters/ai-sdk.js';
import type { AppEvent, AppRun, HostApp } from '../../src/index.js';
import { BUILD_TIMEOUT_MS, importAiSdkAdapter } from '../helpers/built.js';

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const finish = (reason: 'stop' | 'tool-calls'): StreamPart => ({
  type: 'finish',
  finishReason: { unified: reason, raw: undefined },
  usage: {
    inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 10, text: 10, reasoning: undefined },
  },
});
const text = (delta: string): StreamPart[] => [
  { type: 'text-start', id: 'text' },
  { type: 'text-delta', id: 'text', delta },
  { type: 'text-end', id: 'text' },
];

/** Asks to remove a file; once the prompt carries the tool's answer, says whether it ran. */
const model = () =>
  new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const answered = prompt.find((message) => message.role === 'tool');
      const chunks: StreamPart[] = !answered
        ? [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'remove', input: '{"path":"notes.txt"}' },
            finish('tool-calls'),
          ]
        : [
            ...text(JSON.stringify(answered).includes('execution-denied') ? 'Left alone.' : 'Removed.'),
            finish('stop'),
          ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });

const CAREFUL: HostApp = { id: 'careful', name: 'Careful', mode: 'agent-chat', inputForm: [] };
let fromAiSdk: typeof AiSdk.fromAiSdk;

beforeAll(async () => {
  ({ fromAiSdk } = await importAiSdkAdapter());
}, BUILD_TIMEOUT_MS);

async function runOnce(answer?: { action: 'accept'; values: Record<string, unknown> }) {
  const removed: string[] = [];
  const remove = tool({
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      removed.push(path);
      return `removed ${path}`;
    },
  });
  const mock = model();
  const runApp = fromAiSdk((run, { messages }) =>
    streamText({
      model: mock,
      // The adapter's messages are typed by the `ai` it was built against; AI SDK 6 reads them alike.
      messages: messages as Parameters<typeof streamText>[0]['messages'] & object,
      tools: { remove },
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
    }),
  );
  const run = {
    app: CAREFUL,
    inputs: {},
    query: 'Remove notes.txt',
    signal: new AbortController().signal,
    ...(answer && { canAsk: true, ask: async () => answer }),
  } as unknown as AppRun;
  const events: AppEvent[] = [];
  for await (const event of (await runApp(run)) as AsyncIterable<AppEvent>) events.push(event);
  return { events, removed };
}

const USAGE = { usage: { inputTokens: 6, outputTokens: 20, totalTokens: 26 } };

describe('fromAiSdk on AI SDK 6', () => {
  it('an approved tool call runs, and the answer, thoughts and usage come as with AI SDK 7', async () => {
    expect(await runOnce({ action: 'accept', values: { decision: 'approve' } })).toEqual({
      events: [
        { event: 'agent_thought', thought: 'calling the tool remove with {"path":"notes.txt"}' },
        { event: 'agent_thought', thought: '\nthe tool remove returned "removed notes.txt"' },
        { event: 'message', answer: 'Removed.' },
        { event: 'message_end', metadata: USAGE },
      ],
      removed: ['notes.txt'],
    });
  });

  it('without a person to ask, the tool call is not approved and the model goes on', async () => {
    expect(await runOnce()).toEqual({
      events: [
        { event: 'agent_thought', thought: 'calling the tool remove with {"path":"notes.txt"}' },
        { event: 'agent_thought', thought: '\nthe tool remove was not run: it was not approved' },
        { event: 'message', answer: 'Left alone.' },
        { event: 'message_end', metadata: USAGE },
      ],
      removed: [],
    });
  });
});
