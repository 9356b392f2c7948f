/**
 * `express-app-mcp/langgraph`, imported through the built package's exports map, on graphs whose
 * model is `@langchain/core`'s fake chat model: no network, no keys. Each graph is published as a
 * workflow app on a real Express host and called with the official MCP client; the unit seam at the
 * end calls the adapter's `runApp` directly, with a run that can ask a person, to pin down how an
 * `interrupt()` is asked and resumed.
 */
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, END, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as LangGraph from '../../src/adapters/langgraph.js';
import type { AppEvent, AppRun, HostApp, RunApp } from '../../src/index.js';
import { type DemoHost, startDemoHost } from '../helpers/apps.js';
import {
  type Answer,
  BUILD_TIMEOUT_MS,
  connectClient,
  importLangGraphAdapter,
  runAsking,
} from '../helpers/built.js';

// --- the graphs -------------------------------------------------------------------------------------

const Tagline = Annotation.Root({
  topic: Annotation<string>(),
  ideas: Annotation<string>(),
  tagline: Annotation<string>(),
  words: Annotation<number>(),
});

/** brainstorm (the model) → compose → count. */
function taglineGraph(checkpointer?: MemorySaver) {
  const model = new FakeListChatModel({ responses: ['bold, simple, yours'] });
  return new StateGraph(Tagline)
    .addNode('brainstorm', async ({ topic }, config) => ({
      ideas: String((await model.invoke(`Three words for ${topic}`, config)).content),
    }))
    .addNode('compose', ({ topic, ideas }) => ({ tagline: `${topic}: ${ideas}` }))
    .addNode('count', ({ tagline }) => ({ words: tagline.split(/\s+/).length }))
    .addEdge(START, 'brainstorm')
    .addEdge('brainstorm', 'compose')
    .addEdge('compose', 'count')
    .addEdge('count', END)
    .compile(checkpointer ? { checkpointer } : {});
}

const Expense = Annotation.Root({
  amount: Annotation<number>(),
  employee: Annotation<string>(),
  over_limit: Annotation<boolean>(),
  decision: Annotation<string>(),
  comment: Annotation<string>(),
});

/** check → review, which asks a person (interrupt) for a decision and a comment. */
const expenseGraph = new StateGraph(Expense)
  .addNode('check', ({ amount }) => ({ over_limit: amount > 100 }))
  .addNode('review', ({ amount, employee }) => {
    const answer = interrupt({
      message: `Approve the expense of ${amount} EUR for ${employee}?`,
      fields: [
        {
          select: { variable: 'decision', label: 'Decision', options: ['approve', 'reject'], required: true },
        },
        { paragraph: { variable: 'comment', label: 'Comment', required: false } },
      ],
    }) as Answer;
    if (answer.action !== 'accept') return { decision: answer.action, comment: '' };
    return { decision: String(answer.values.decision), comment: String(answer.values.comment ?? '') };
  })
  .addEdge(START, 'check')
  .addEdge('check', 'review')
  .addEdge('review', END)
  .compile();

const Greeting = Annotation.Root({ greeting: Annotation<string>() });
/** One node that asks a question in words: `interrupt('What is your name?')`. */
const greetingGraph = new StateGraph(Greeting)
  .addNode('greet', () => {
    const answer = interrupt('What is your name?') as Answer;
    return { greeting: answer.action === 'accept' ? `Hello, ${answer.values.answer}!` : 'Hello!' };
  })
  .addEdge(START, 'greet')
  .addEdge('greet', END)
  .compile();

/** One node that asks with a message and no fields: `interrupt({ message: 'Continue?' })`. */
const continueGraph = new StateGraph(Greeting)
  .addNode('confirm', () => {
    const answer = interrupt({ message: 'Continue?' }) as Answer;
    return { greeting: answer.action === 'accept' ? `went on: ${answer.values.answer}` : answer.action };
  })
  .addEdge(START, 'confirm')
  .addEdge('confirm', END)
  .compile();

const STORY = 'x'.repeat(200);
/** What the slow graph's nodes did: the model's chunks `write` received, and whether `publish` ran. */
const slow = { chunks: 0, published: false };
let firstChunk: Promise<void>;
let onFirstChunk = () => {};

/** write (a model that streams one character every 50 ms) → publish. */
function slowGraph() {
  const model = new FakeListChatModel({ responses: [STORY], sleep: 50 });
  return new StateGraph(Greeting)
    .addNode('write', async (_state, config) => {
      let text = '';
      for await (const chunk of await model.stream('Write a story', config)) {
        slow.chunks++;
        onFirstChunk();
        text += String(chunk.content);
      }
      return { greeting: text };
    })
    .addNode('publish', () => {
      slow.published = true;
      return {};
    })
    .addEdge(START, 'write')
    .addEdge('write', 'publish')
    .addEdge('publish', END)
    .compile();
}

const brokenGraph = new StateGraph(Greeting)
  .addNode('fail', () => {
    throw new Error('the database password is wrong');
  })
  .addEdge(START, 'fail')
  .addEdge('fail', END)
  .compile();

// --- the apps -------------------------------------------------------------------------------------

const TOPIC = [{ type: 'text-input' as const, variable: 'topic', required: true }];
const TAGLINE: HostApp = {
  id: 'tagline',
  name: 'Tagline',
  mode: 'workflow',
  inputForm: TOPIC,
  outputs: [
    { variable: 'tagline', type: 'string' },
    { variable: 'words', type: 'number' },
  ],
};
const WHOLE_STATE: HostApp = { id: 'whole-state', name: 'Whole_State', mode: 'workflow', inputForm: TOPIC };
const MAPPED: HostApp = {
  id: 'mapped',
  name: 'Mapped',
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'subject', required: true }],
};
const KEPT: HostApp = { ...TAGLINE, id: 'kept', name: 'Kept' };
const EXPENSE: HostApp = {
  id: 'expense',
  name: 'Expense_Approval',
  mode: 'workflow',
  inputForm: [
    { type: 'number', variable: 'amount', required: true },
    { type: 'text-input', variable: 'employee', required: true },
  ],
  outputs: [
    { variable: 'decision', type: 'string' },
    { variable: 'comment', type: 'string' },
  ],
};
const SLOW: HostApp = { id: 'slow', name: 'Slow', mode: 'workflow', inputForm: [] };
const BROKEN: HostApp = { id: 'broken', name: 'Broken', mode: 'workflow', inputForm: [] };
const CHATTY: HostApp = { id: 'chatty', name: 'Chatty', mode: 'chat', inputForm: [] };
const CONTINUE: HostApp = { id: 'continue', name: 'Continue', mode: 'workflow', inputForm: [] };
const WORDY: HostApp = { id: 'wordy', name: 'Wordy', mode: 'workflow', inputForm: TOPIC };
const LISTY: HostApp = { id: 'listy', name: 'Listy', mode: 'workflow', inputForm: TOPIC };

let fromLangGraph: typeof LangGraph.fromLangGraph;
let host: DemoHost;
const runners: Record<string, RunApp> = {};
const keptSaver = new MemorySaver();
/** Resolves when the slow app's run has ended, the adapter's stream included. */
let slowEnded: Promise<void>;

beforeAll(async () => {
  ({ fromLangGraph } = await importLangGraphAdapter());
  firstChunk = new Promise((resolve) => {
    onFirstChunk = resolve;
  });
  const slowRunner = fromLangGraph(slowGraph());
  let ended = () => {};
  slowEnded = new Promise((resolve) => {
    ended = resolve;
  });
  Object.assign(runners, {
    [TAGLINE.id]: fromLangGraph(taglineGraph()),
    [WHOLE_STATE.id]: fromLangGraph(taglineGraph()),
    // Typed end to end: `input` returns the graph's input, `outputs` reads its state.
    [MAPPED.id]: fromLangGraph(taglineGraph(), {
      input: (run) => ({ topic: String(run.inputs.subject).toUpperCase() }),
      outputs: (state) => ({ line: state.tagline, length: state.tagline.length }),
    }),
    [KEPT.id]: fromLangGraph(taglineGraph(keptSaver)),
    [EXPENSE.id]: fromLangGraph(expenseGraph),
    [SLOW.id]: async function* (run: AppRun) {
      try {
        yield* (await slowRunner(run)) as AsyncIterable<AppEvent>;
      } finally {
        ended();
      }
    },
    [BROKEN.id]: fromLangGraph(brokenGraph),
    [CHATTY.id]: fromLangGraph(greetingGraph),
    [CONTINUE.id]: fromLangGraph(continueGraph),
    // Outputs hooks that return no object: a mistake the run reports, not an empty result.
    [WORDY.id]: fromLangGraph(taglineGraph(), {
      outputs: ((state: { tagline: string }) => state.tagline) as never,
    }),
    [LISTY.id]: fromLangGraph(taglineGraph(), {
      outputs: ((state: { tagline: string }) => [state.tagline]) as never,
    }),
  });
  host = await startDemoHost({
    apps: [TAGLINE, WHOLE_STATE, MAPPED, KEPT, EXPENSE, SLOW, BROKEN, CHATTY, CONTINUE, WORDY, LISTY],
    runApp: (run) => runners[run.app.id]!(run),
  });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await host?.close();
});

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Calls an app's tool with the official MCP client, asking for progress; returns the result and the notes. */
async function call(app: HostApp, args: Record<string, unknown>) {
  const client: Client = await connectClient(host.endpointOf(app));
  try {
    const progress: Progress[] = [];
    const result = await client.callTool({ name: app.name, arguments: args }, undefined, {
      onprogress: (note) => progress.push(note),
    });
    return { result, progress };
  } finally {
    await client.close();
  }
}

const outputsResult = (outputs: Record<string, unknown>) => ({
  content: [{ type: 'text', text: JSON.stringify(outputs) }],
  structuredContent: outputs,
  isError: false,
});
const failed = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
const TAGLINE_NODES = [
  { progress: 1, message: 'brainstorm' },
  { progress: 2, message: 'compose' },
  { progress: 3, message: 'count' },
];

describe('fromLangGraph, through the official MCP client', () => {
  it('reports each node as progress, and answers with the declared keys of the final state', async () => {
    expect(await call(TAGLINE, { topic: 'tea' })).toEqual({
      result: outputsResult({ tagline: 'tea: bold, simple, yours', words: 4 }),
      progress: TAGLINE_NODES,
    });
  });

  it('an app that declares no outputs answers with the whole final state', async () => {
    expect((await call(WHOLE_STATE, { topic: 'tea' })).result).toEqual(
      outputsResult({
        topic: 'tea',
        ideas: 'bold, simple, yours',
        tagline: 'tea: bold, simple, yours',
        words: 4,
      }),
    );
  });

  it('input and outputs map the run to the graph and its state to the outputs', async () => {
    expect((await call(MAPPED, { subject: 'tea' })).result).toEqual(
      outputsResult({ line: 'TEA: bold, simple, yours', length: 24 }),
    );
  });

  it("a graph with a checkpointer of its own keeps each run's thread in it", async () => {
    expect((await call(KEPT, { topic: 'tea' })).result).toEqual(
      outputsResult({ tagline: 'tea: bold, simple, yours', words: 4 }),
    );
    const threads = new Set<unknown>();
    for await (const checkpoint of keptSaver.list({})) threads.add(checkpoint.config.configurable?.thread_id);
    expect(threads.size).toBe(1);
  });

  it('an interrupt ends the run with an error result when the client cannot ask a person', async () => {
    expect(await call(EXPENSE, { amount: 420, employee: 'Ana' })).toEqual({
      result: failed(
        "the app needs a person's answer to go on, and this client cannot ask for one (it does not support elicitation)",
      ),
      progress: [{ progress: 1, message: 'check' }],
    });
  });

  it("an interrupt is asked through the client's elicitation, and the graph resumes with the answer", async () => {
    const client = await connectClient(host.endpointOf(EXPENSE), { elicitation: {} });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { decision: 'reject', comment: 'not in the budget' } };
    });
    try {
      const result = await client.callTool({
        name: EXPENSE.name,
        arguments: { amount: 420, employee: 'Ana' },
      });
      expect(result).toEqual(outputsResult({ decision: 'reject', comment: 'not in the budget' }));
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: 'Approve the expense of 420 EUR for Ana?',
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', enum: ['approve', 'reject'] },
          comment: { type: 'string' },
        },
        required: ['decision'],
      },
    });
  });

  it('an interrupt with a message and no fields is asked with one text field, "answer", and the graph resumes', async () => {
    const client = await connectClient(host.endpointOf(CONTINUE), { elicitation: {} });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { answer: 'yes, go on' } };
    });
    const reports = host.reports.length;
    try {
      const result = await client.callTool({ name: CONTINUE.name, arguments: {} });
      expect(result).toEqual(outputsResult({ greeting: 'went on: yes, go on' }));
    } finally {
      await client.close();
    }
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Continue?',
        requestedSchema: {
          type: 'object',
          properties: { answer: { type: 'string', title: 'Answer' } },
          required: ['answer'],
        },
      },
    ]);
    expect(host.reports.slice(reports)).toEqual([]);
  });

  it('an outputs hook that returns a string or an array is "the app failed to run", the reason to onError', async () => {
    const reports = host.reports.length;
    expect((await call(WORDY, { topic: 'tea' })).result).toEqual(failed('the app failed to run'));
    expect((await call(LISTY, { topic: 'tea' })).result).toEqual(failed('the app failed to run'));
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fromLangGraph: the outputs hook must return a plain object of outputs, and it returned a string',
      'fromLangGraph: the outputs hook must return a plain object of outputs, and it returned an array',
    ]);
  });

  it('a cancelled call stops the graph: the model stops streaming and the next node never runs', async () => {
    const client = await connectClient(host.endpointOf(SLOW));
    try {
      const controller = new AbortController();
      const calling = client.callTool({ name: SLOW.name, arguments: {} }, undefined, {
        signal: controller.signal,
      });
      await firstChunk;
      controller.abort();
      await expect(calling).rejects.toThrow();
      await slowEnded;
      expect(slow.published).toBe(false);
      expect(slow.chunks).toBeGreaterThan(0);
      expect(slow.chunks).toBeLessThan(STORY.length);
    } finally {
      await client.close();
    }
  });

  it('a node that throws is "the app failed to run"; the cause goes to onError only', async () => {
    const reports = host.reports.length;
    expect((await call(BROKEN, {})).result).toEqual(failed('the app failed to run'));
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'the database password is wrong',
    ]);
  });

  it('a chat app is refused with a reason for onError', async () => {
    const reports = host.reports.length;
    expect((await call(CHATTY, { query: 'hi' })).result).toEqual(failed('the app failed to run'));
    expect(host.reports.slice(reports).map((error) => (error as Error).message)).toEqual([
      'fromLangGraph runs workflow apps, and "Chatty" is a chat app',
    ]);
  });
});

describe('fromLangGraph options', () => {
  it("are typed by the graph: input returns the graph's input, outputs reads its state", () => {
    const typed: RunApp = fromLangGraph(taglineGraph(), {
      input: (run) => ({ topic: String(run.inputs.topic) }),
      outputs: (state) => ({ words: state.words }),
    });
    // @ts-expect-error: the state has no `title`
    fromLangGraph(taglineGraph(), { outputs: (state) => ({ title: state.title }) });
    // @ts-expect-error: `topic` is a string
    fromLangGraph(taglineGraph(), { input: () => ({ topic: 42 }) });
    expect(typeof typed).toBe('function');
  });

  it('refuses an unknown option, an option that is not a function, and what is no graph, by name', () => {
    const refusal = (message: string) => ({ name: 'ConfigurationError', code: 'invalid_options', message });
    expect(thrownBy(() => fromLangGraph(taglineGraph(), { output: () => ({}) } as never))).toEqual(
      refusal('fromLangGraph: unknown option "output" (did you mean "outputs"?)'),
    );
    expect(thrownBy(() => fromLangGraph(taglineGraph(), { input: { topic: 'tea' } } as never))).toEqual(
      refusal('fromLangGraph: invalid option "input": must be a function (run) => the graph\'s input'),
    );
    expect(thrownBy(() => fromLangGraph({} as never))).toEqual(
      refusal('fromLangGraph: its first argument must be a compiled graph, new StateGraph(...).compile()'),
    );
  });
});

/** What a factory threw, as a user's code can read it. */
function thrownBy(factory: () => unknown) {
  try {
    factory();
  } catch (error) {
    const { name, code, message } = error as Error & { code?: string };
    return { name, code, message };
  }
  return 'nothing thrown';
}

// --- unit seam: the adapter's runApp called directly, with a run that can ask a person ----------------
// The end-to-end path (the client answering through elicitation) comes with run.ask in the package.

const EXPENSE_QUESTION = {
  message: 'Approve the expense of 420 EUR for Ana?',
  fields: [
    { select: { variable: 'decision', label: 'Decision', options: ['approve', 'reject'], required: true } },
    { paragraph: { variable: 'comment', label: 'Comment', required: false } },
  ],
};

describe('fromLangGraph asking a person at an interrupt (unit seam: a run with ask)', () => {
  it("asks the interrupt's question and resumes the graph with the answer", async () => {
    const answer = { action: 'accept', values: { decision: 'approve', comment: 'within budget' } } as const;
    const { events, asked } = await runAsking(
      runners[EXPENSE.id]!,
      EXPENSE,
      { inputs: { amount: 420, employee: 'Ana' } },
      answer,
    );
    expect(asked).toEqual([EXPENSE_QUESTION]);
    expect(events).toEqual([
      { event: 'progress', progress: 1, message: 'check' },
      { event: 'progress', progress: 2, message: 'review' },
      { event: 'workflow_finished', outputs: { decision: 'approve', comment: 'within budget' } },
    ]);
  });

  it('a person who declines is an answer too: the graph goes on with it', async () => {
    const { events } = await runAsking(
      runners[EXPENSE.id]!,
      EXPENSE,
      { inputs: { amount: 420, employee: 'Ana' } },
      {
        action: 'decline',
      },
    );
    expect(events.at(-1)).toEqual({
      event: 'workflow_finished',
      outputs: { decision: 'decline', comment: '' },
    });
  });

  it('a question in words is answered in one text field, "answer"', async () => {
    const app: HostApp = { id: 'greeter', name: 'Greeter', mode: 'workflow', inputForm: [] };
    const { events, asked } = await runAsking(
      fromLangGraph(greetingGraph),
      app,
      { inputs: {} },
      {
        action: 'accept',
        values: { answer: 'Ana' },
      },
    );
    expect(asked).toEqual([
      {
        message: 'What is your name?',
        fields: [{ paragraph: { variable: 'answer', label: 'Answer', required: true } }],
      },
    ]);
    expect(events).toEqual([
      { event: 'progress', progress: 1, message: 'greet' },
      { event: 'workflow_finished', outputs: { greeting: 'Hello, Ana!' } },
    ]);
  });

  it('two interrupts at once are asked one after the other, and each node gets its own answer', async () => {
    const Pair = Annotation.Root({ first: Annotation<string>(), second: Annotation<string>() });
    const ask = (question: string) => {
      const answer = interrupt(question) as Answer;
      return answer.action === 'accept' ? String(answer.values.answer) : answer.action;
    };
    const pairGraph = new StateGraph(Pair)
      .addNode('ask_first', () => ({ first: ask('First name?') }))
      .addNode('ask_second', () => ({ second: ask('Last name?') }))
      .addEdge(START, 'ask_first')
      .addEdge(START, 'ask_second')
      .addEdge('ask_first', END)
      .addEdge('ask_second', END)
      .compile();
    const app: HostApp = { id: 'pair', name: 'Pair', mode: 'workflow', inputForm: [] };
    const asked: string[] = [];
    const run = {
      app,
      inputs: {},
      signal: new AbortController().signal,
      canAsk: true,
      ask: async ({ message }: { message: string }) => {
        asked.push(message);
        return { action: 'accept', values: { answer: message === 'First name?' ? 'Ana' : 'Lima' } };
      },
    } as unknown as AppRun;
    const events: AppEvent[] = [];
    for await (const event of (await fromLangGraph(pairGraph)(run)) as AsyncIterable<AppEvent>)
      events.push(event);
    expect(asked.sort()).toEqual(['First name?', 'Last name?']);
    expect(events.at(-1)).toEqual({ event: 'workflow_finished', outputs: { first: 'Ana', second: 'Lima' } });
    expect(
      events
        .slice(0, -1)
        .map((event) => (event as { message?: string }).message)
        .sort(),
    ).toEqual(['ask_first', 'ask_second']);
  });

  it("the graph the adapter was given keeps no checkpointer: the adapter's own is on a copy", () => {
    expect((expenseGraph as { checkpointer?: unknown }).checkpointer).toBeUndefined();
  });
});
