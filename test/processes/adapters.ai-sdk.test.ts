/**
 * `express-app-mcp/ai-sdk`, imported through the built package's exports map, on the AI SDK's own
 * mock language model (`ai/test`): no network, no keys. Each app is published on a real Express
 * host and called with the official MCP client; the unit seam at the end calls the adapter's
 * `runApp` directly, with a run that can ask a person, to pin down how a tool approval is asked.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isStepCount, simulateReadableStream, streamText, ToolLoopAgent, type ToolSet, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type * as AiSdk from '../../src/adapters/ai-sdk.js';
import type { HostApp, RunApp } from '../../src/index.js';
import { type DemoHost, startDemoHost } from '../helpers/apps.js';
import {
  type Answer,
  BUILD_TIMEOUT_MS,
  connectClient,
  importAiSdkAdapter,
  runAsking,
} from '../helpers/built.js';
import { SERVER_INFO } from '../helpers/demo-cases.js';
import { PNG_BASE64 } from '../helpers/sample-files.js';

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type ModelCall = MockLanguageModelV4['doStreamCalls'][number];

const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const finish = (reason: 'stop' | 'tool-calls' = 'stop'): StreamPart => ({
  type: 'finish',
  finishReason: { unified: reason, raw: undefined },
  usage: USAGE,
});
const text = (...deltas: string[]): StreamPart[] => [
  { type: 'text-start', id: 'text' },
  ...deltas.map((delta): StreamPart => ({ type: 'text-delta', id: 'text', delta })),
  { type: 'text-end', id: 'text' },
];
const toolCall = (toolName: string, input: unknown): StreamPart => ({
  type: 'tool-call',
  toolCallId: `call-${toolName}`,
  toolName,
  input: JSON.stringify(input),
});
const hasToolMessage = (call: ModelCall) => call.prompt.some((message) => message.role === 'tool');

/** A mock model that streams `first` on its first call and `then` once the prompt carries a tool's answer. */
function model(first: StreamPart[], then: StreamPart[] = []): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async (call) => ({
      stream: simulateReadableStream({ chunks: hasToolMessage(call) ? then : first }),
    }),
  });
}

/** A forecast tool, as deterministic as the mock model. */
const forecast = tool({
  description: 'The weather forecast of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});

/** A model for the tool that needs approval: its answer tells whether the tool ran. */
const careful = () =>
  new MockLanguageModelV4({
    doStream: async (call) => {
      const prompt = JSON.stringify(call.prompt);
      const chunks = !hasToolMessage(call)
        ? [toolCall('remove', { path: 'notes.txt' }), finish('tool-calls')]
        : [
            ...text(prompt.includes('execution-denied') ? 'I left notes.txt alone.' : 'notes.txt is gone.'),
            finish(),
          ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });

const app = (name: string, mode: HostApp['mode']): HostApp => ({ id: name, name, mode, inputForm: [] });
const ASSISTANT = app('Assistant', 'chat');
const WEATHER_AGENT = app('Weather_Agent', 'agent-chat');
const SILENT_AGENT = app('Silent_Agent', 'agent-chat');
const PAINTER = app('Painter', 'advanced-chat');
const ENDLESS = app('Endless', 'chat');
const BROKEN = app('Broken', 'chat');
const CAREFUL = app('Careful', 'agent-chat');
const MISPLACED = app('Misplaced', 'workflow');
const FORGETFUL = app('Forgetful', 'agent-chat');

const answered = (answer: string, usage: Record<string, number>) => ({
  content: [{ type: 'text', text: answer }],
  structuredContent: { answer },
  isError: false,
  _meta: { usage },
});
const failed = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
const ONE_CALL = { inputTokens: 3, outputTokens: 10, totalTokens: 13 };
const TWO_CALLS = { inputTokens: 6, outputTokens: 20, totalTokens: 26 };

let fromAiSdk: typeof AiSdk.fromAiSdk;
let host: DemoHost;
const models: Record<string, MockLanguageModelV4> = {};
/** Resolves when the endless model has started streaming. */
let endlessStarted: Promise<void>;
/** The files the tool that needs approval removed. */
const removed: string[] = [];
const removeTool = tool({
  description: 'Removes a file',
  inputSchema: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => {
    removed.push(path);
    return `removed ${path}`;
  },
});
const runners: Record<string, RunApp> = {};

beforeAll(async () => {
  ({ fromAiSdk } = await importAiSdkAdapter());
  models.assistant = model([...text('Hello, ', 'world!'), finish()]);
  models.agent = model(
    [
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'The person asks about Paris; ' },
      { type: 'reasoning-delta', id: 'r', delta: 'I will look up its forecast.' },
      { type: 'reasoning-end', id: 'r' },
      toolCall('forecast', { city: 'Paris' }),
      finish('tool-calls'),
    ],
    [...text('It is sunny in Paris.'), finish()],
  );
  models.silent = model([toolCall('forecast', { city: 'Oslo' }), finish('tool-calls')], [finish()]);
  models.painter = model([
    ...text('Here is your picture.'),
    { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG_BASE64 } },
    finish(),
  ]);
  let started = () => {};
  endlessStarted = new Promise((resolve) => {
    started = resolve;
  });
  models.endless = new MockLanguageModelV4({
    doStream: async () => {
      started();
      // One delta, then nothing more, ever: only an abort ends this call.
      const stream = new ReadableStream<StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'text-start', id: 'text' });
          controller.enqueue({ type: 'text-delta', id: 'text', delta: 'Once upon' });
        },
      });
      return { stream };
    },
  });
  models.broken = new MockLanguageModelV4({
    doStream: async () => {
      throw new Error('the provider refused the key sk-live-secret');
    },
  });
  models.careful = careful();
  models.forgetful = careful();

  const agent = new ToolLoopAgent({ model: models.agent, tools: { forecast } });
  const stream = (
    name: string,
    options: { tools?: ToolSet; maxRetries?: number; onError?: () => void } = {},
  ) =>
    fromAiSdk((run, { messages }) =>
      streamText({
        model: models[name]!,
        messages,
        abortSignal: run.signal,
        stopWhen: isStepCount(5),
        ...options,
      }),
    );
  Object.assign(runners, {
    [ASSISTANT.id]: stream('assistant'),
    [WEATHER_AGENT.id]: fromAiSdk((run, { messages }) => agent.stream({ messages, abortSignal: run.signal })),
    [SILENT_AGENT.id]: stream('silent', { tools: { forecast } }),
    [PAINTER.id]: stream('painter'),
    [ENDLESS.id]: stream('endless'),
    // The AI SDK logs a stream's error unless told otherwise; the package reports it to onError.
    [BROKEN.id]: stream('broken', { maxRetries: 0, onError: () => {} }),
    [CAREFUL.id]: stream('careful', { tools: { remove: removeTool } }),
    [MISPLACED.id]: stream('assistant'),
    // Starts over from its own prompt each time, so the model asks for the same approval again.
    [FORGETFUL.id]: fromAiSdk((run) =>
      streamText({
        model: models.forgetful!,
        prompt: run.query ?? '',
        tools: { remove: removeTool },
        abortSignal: run.signal,
      }),
    ),
  });
  // A host with several apps picks the adapter per app.
  host = await startDemoHost({
    apps: [ASSISTANT, WEATHER_AGENT, SILENT_AGENT, PAINTER, ENDLESS, BROKEN, CAREFUL, MISPLACED, FORGETFUL],
    runApp: (run) => runners[run.app.id]!(run),
  });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await host?.close();
});

/** Calls an app's tool with the official MCP client, on a connection of its own. */
async function call(app: HostApp, args: Record<string, unknown>): Promise<unknown> {
  const client: Client = await connectClient(host.endpointOf(app));
  try {
    return await client.callTool({ name: app.name, arguments: args });
  } finally {
    await client.close();
  }
}

/** JSON as the model saw it (the prompt's own objects carry `undefined` fields). */
const asSent = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('fromAiSdk, through the official MCP client', () => {
  it('streams the text deltas of streamText into the answer, with the tokens used in _meta.usage', async () => {
    expect(await call(ASSISTANT, { query: 'Say hello' })).toEqual(answered('Hello, world!', ONE_CALL));
    // The model was asked the question, as the only message.
    expect(asSent(models.assistant!.doStreamCalls.map((modelCall) => modelCall.prompt))).toEqual([
      [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
    ]);
  });

  it('a 2026-07-28 client gets the usage beside the server info in _meta', async () => {
    const client = new ModernClient(
      { name: 'adapter-tests', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernTransport(host.endpointOf(ASSISTANT)));
    try {
      expect(await client.callTool({ name: ASSISTANT.name, arguments: { query: 'Say hello' } })).toEqual({
        ...answered('Hello, world!', ONE_CALL),
        _meta: { usage: ONE_CALL, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    } finally {
      await client.close();
    }
  });

  it("runs an agent's stream: the tool it calls runs, and its answer follows the tool's result", async () => {
    expect(await call(WEATHER_AGENT, { query: 'Weather in Paris?' })).toEqual(
      answered('It is sunny in Paris.', TWO_CALLS),
    );
    const [, second] = models.agent!.doStreamCalls;
    expect(asSent(second!.prompt).at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-forecast',
          toolName: 'forecast',
          output: { type: 'json', value: { city: 'Paris', sky: 'sunny' } },
        },
      ],
    });
  });

  it('answers with the thoughts (reasoning, tool calls and results) when the agent says nothing else', async () => {
    expect(await call(SILENT_AGENT, { query: 'Weather in Oslo?' })).toEqual(
      answered(
        'calling the tool forecast with {"city":"Oslo"}\nthe tool forecast returned {"city":"Oslo","sky":"sunny"}',
        TWO_CALLS,
      ),
    );
  });

  it('sends a file the model generated as an image block after the answer', async () => {
    const result = (await call(PAINTER, { query: 'Paint a dot' })) as Record<string, unknown>;
    const bytes = Buffer.from(PNG_BASE64, 'base64').length;
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'Here is your picture.' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      ],
      structuredContent: {
        answer: 'Here is your picture.',
        files: [{ data: PNG_BASE64, name: 'file', mime_type: 'image/png', size: bytes }],
      },
      isError: false,
      _meta: { usage: ONE_CALL },
    });
  });

  it("a cancelled call aborts the model call's signal", async () => {
    // The client stays connected until the cancellation has reached the server.
    const client = await connectClient(host.endpointOf(ENDLESS));
    try {
      const controller = new AbortController();
      const calling = client.callTool(
        { name: ENDLESS.name, arguments: { query: 'Tell me a story' } },
        undefined,
        {
          signal: controller.signal,
        },
      );
      await endlessStarted;
      controller.abort();
      await expect(calling).rejects.toThrow();
      const [modelCall] = models.endless!.doStreamCalls;
      const signal = modelCall!.abortSignal!;
      // notifications/cancelled reaches the run, whose signal the model call was given.
      if (!signal.aborted)
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      expect(signal.aborted).toBe(true);
      expect(models.endless!.doStreamCalls).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('a model that fails is "the app failed to run"; the cause goes to onError only', async () => {
    const reports = host.reports.length;
    expect(await call(BROKEN, { query: 'Hi' })).toEqual(failed('the app failed to run'));
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'the provider refused the key sk-live-secret',
    ]);
  });

  it('a tool that needs approval is not run when the client cannot ask a person; the model hears why', async () => {
    expect(await call(CAREFUL, { query: 'Remove notes.txt' })).toEqual(
      answered('I left notes.txt alone.', TWO_CALLS),
    );
    expect(removed).toEqual([]);
    const [, second] = models.careful!.doStreamCalls;
    expect(asSent(second!.prompt).at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-remove',
          toolName: 'remove',
          output: { type: 'execution-denied', reason: 'no person could be asked to approve it' },
        },
      ],
    });
  });

  it("a tool that needs approval is asked through the client's elicitation, and runs once approved", async () => {
    removed.length = 0;
    models.careful = careful();
    const client = await connectClient(host.endpointOf(CAREFUL), { elicitation: {} });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    try {
      const result = await client.callTool({ name: CAREFUL.name, arguments: { query: 'Remove notes.txt' } });
      expect(result).toEqual(answered('notes.txt is gone.', TWO_CALLS));
    } finally {
      await client.close();
    }
    expect(removed).toEqual(['notes.txt']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: 'Approve the call of the tool remove with {"path":"notes.txt"}?',
      requestedSchema: {
        type: 'object',
        properties: { decision: { type: 'string', enum: ['approve', 'reject'] } },
        required: ['decision'],
      },
    });
  });

  it('is typed as a runApp, and its function as taking the run and the messages', () => {
    const typed: RunApp = fromAiSdk((run, { messages }) =>
      streamText({ model: models.assistant!, messages, abortSignal: run.signal }),
    );
    // @ts-expect-error: the function returns what streamText returns, not its text
    fromAiSdk(async (_run, { messages }) => streamText({ model: models.assistant!, messages }).text);
    expect(typeof typed).toBe('function');
  });

  it('a function that ignores the messages meets the same approval again: ten rounds end the run', async () => {
    const reports = host.reports.length;
    expect(await call(FORGETFUL, { query: 'Remove notes.txt' })).toEqual(failed('the app failed to run'));
    expect(models.forgetful!.doStreamCalls).toHaveLength(10);
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fromAiSdk: the model asked for tool approvals 10 times in one run; does the function pass turn.messages to the model?',
    ]);
  });

  it('refuses what is not a function when it is created', () => {
    let thrown: unknown;
    try {
      fromAiSdk({} as never);
    } catch (error) {
      thrown = error;
    }
    const { name, code, message } = thrown as Error & { code?: string };
    expect({ name, code, message }).toEqual({
      name: 'ConfigurationError',
      code: 'invalid_options',
      message: 'fromAiSdk: its argument must be a function (run, { messages }) => streamText({ ... })',
    });
  });

  it('a workflow app is refused with a reason for onError', async () => {
    const reports = host.reports.length;
    expect(await call(MISPLACED, {})).toEqual(failed('the app failed to run'));
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fromAiSdk runs chat and completion apps, and "Misplaced" is a workflow',
    ]);
  });
});

// --- unit seam: the adapter's runApp called directly, with a run that can ask a person ----------------
// The end-to-end path (the client answering through elicitation) comes with run.ask in the package.

/** Runs Careful once with a run whose person answers `answer`; returns the events and the questions asked. */
function runCareful(answer: Answer) {
  models.careful = careful();
  return runAsking(runners[CAREFUL.id]!, CAREFUL, { query: 'Remove notes.txt' }, answer);
}

const APPROVAL_QUESTION = {
  message: 'Approve the call of the tool remove with {"path":"notes.txt"}?',
  fields: [
    { select: { variable: 'decision', label: 'Decision', options: ['approve', 'reject'], required: true } },
  ],
};

describe('fromAiSdk asking a person to approve a tool call (unit seam: a run with ask)', () => {
  it('approved: asks approve or reject, runs the tool, and the model answers after its result', async () => {
    removed.length = 0;
    const { events, asked } = await runCareful({ action: 'accept', values: { decision: 'approve' } });
    expect(asked).toEqual([APPROVAL_QUESTION]);
    expect(removed).toEqual(['notes.txt']);
    expect(events).toEqual([
      { event: 'agent_thought', thought: 'calling the tool remove with {"path":"notes.txt"}' },
      { event: 'agent_thought', thought: '\nthe tool remove returned "removed notes.txt"' },
      { event: 'message', answer: 'notes.txt is gone.' },
      { event: 'message_end', metadata: { usage: TWO_CALLS } },
    ]);
  });

  it.each([
    ['rejected', { action: 'accept', values: { decision: 'reject' } }, 'the person rejected it'],
    ['declined', { action: 'decline' }, 'the person declined to answer'],
    ['not answered', { action: 'cancel' }, 'the person did not answer'],
  ] as const)('%s: the tool does not run, and the model hears why', async (_case, answer, reason) => {
    removed.length = 0;
    const { events, asked } = await runCareful(answer as Answer);
    expect(asked).toEqual([APPROVAL_QUESTION]);
    expect(removed).toEqual([]);
    expect(events).toEqual([
      { event: 'agent_thought', thought: 'calling the tool remove with {"path":"notes.txt"}' },
      { event: 'agent_thought', thought: '\nthe tool remove was not run: it was not approved' },
      { event: 'message', answer: 'I left notes.txt alone.' },
      { event: 'message_end', metadata: { usage: TWO_CALLS } },
    ]);
    const denied = asSent(models.careful!.doStreamCalls[1]!.prompt).at(-1).content[0].output;
    expect(denied).toEqual({ type: 'execution-denied', reason });
  });
});

describe('fromAiSdk adding up the tokens used (unit seam: parts as streamText gives them)', () => {
  /** Runs the adapter over one model call's parts, as `streamText(...).stream` gives them. */
  async function usageOf(parts: unknown[]) {
    const runner = fromAiSdk(() => ({
      stream: (async function* () {
        yield* parts;
      })(),
    }));
    const { events } = await runAsking(runner, ASSISTANT, { query: 'count' }, { action: 'decline' });
    return events;
  }
  const finished = (totalUsage: Record<string, unknown>) => ({ type: 'finish', totalUsage });

  it('sums that would pass the largest exact integer stop there: never Infinity (JSON would say null)', async () => {
    const huge = { inputTokens: 1e308, outputTokens: 1e308, totalTokens: 1e308 };
    expect(await usageOf([{ type: 'text-delta', text: 'hi' }, finished(huge), finished(huge)])).toEqual([
      { event: 'message', answer: 'hi' },
      {
        event: 'message_end',
        metadata: {
          usage: {
            inputTokens: Number.MAX_SAFE_INTEGER,
            outputTokens: Number.MAX_SAFE_INTEGER,
            totalTokens: Number.MAX_SAFE_INTEGER,
          },
        },
      },
    ]);
  });

  it('negative, infinite and non-numeric counts are left out of the sums', async () => {
    const events = await usageOf([
      finished({ inputTokens: -5, outputTokens: 4, totalTokens: Number.POSITIVE_INFINITY }),
      finished({ inputTokens: 3, outputTokens: '7', totalTokens: Number.NaN, reasoningTokens: -1 }),
    ]);
    expect(events).toEqual([
      { event: 'message_end', metadata: { usage: { inputTokens: 3, outputTokens: 4 } } },
    ]);
  });
});
