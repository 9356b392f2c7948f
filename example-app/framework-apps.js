/**
 * Two apps built with the frameworks most host apps are built with, published through the
 * package's adapters (docs/adapters.md): Weather Agent, an AI SDK agent (`express-app-mcp/ai-sdk`),
 * and Tagline Writer, a LangGraph graph (`express-app-mcp/langgraph`). Both run on their
 * framework's own test models, so the example needs no network and no key: swap the mock model
 * for a real one (`openai('gpt-5')`, `new ChatAnthropic(...)`) and nothing else changes.
 */
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { simulateReadableStream, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { fromAiSdk } from 'express-app-mcp/ai-sdk';
import { fromLangGraph } from 'express-app-mcp/langgraph';
import { z } from 'zod';

/** @type {import('express-app-mcp').HostApp} */
export const WEATHER_AGENT_APP = {
  id: 'weather-agent',
  name: 'Weather Agent',
  mode: 'agent-chat',
  description:
    "Tells the weather forecast of a city (Paris, Oslo or Lima) by calling its forecast tool. An AI SDK agent on the SDK's mock model.",
  inputForm: [],
};

/** @type {import('express-app-mcp').HostApp} */
export const TAGLINE_APP = {
  id: 'tagline-writer',
  name: 'Tagline Writer',
  mode: 'workflow',
  description:
    'Writes a tagline for a topic in three steps (brainstorm, compose, count), reporting each as it ends. A LangGraph graph on a fake chat model.',
  inputForm: [
    {
      type: 'text-input',
      variable: 'topic',
      label: 'Topic',
      description: 'What the tagline is for',
      required: true,
      max_length: 100,
    },
  ],
  outputs: [
    { variable: 'tagline', type: 'string', description: 'The tagline' },
    { variable: 'words', type: 'number', description: 'How many words the tagline has' },
  ],
};

export const FRAMEWORK_APPS = [WEATHER_AGENT_APP, TAGLINE_APP];

/** Both read and compute; neither reaches beyond this host. */
export const FRAMEWORK_ANNOTATIONS = {
  [WEATHER_AGENT_APP.id]: { readOnlyHint: true, openWorldHint: false },
  [TAGLINE_APP.id]: { readOnlyHint: true, openWorldHint: false },
};

// --- Weather Agent (AI SDK) -----------------------------------------------------------------------

export const FORECASTS = { paris: 'sunny, 21 °C', oslo: 'snow, -3 °C', lima: 'cloudy, 18 °C' };

const forecast = tool({
  description: 'The weather forecast of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: FORECASTS[city.toLowerCase()] ?? null }),
});

/**
 * Runs the agent once. A new agent (and mock model) per run: the mock model records every call it
 * gets, which a long-running host should not keep.
 */
const runWeatherAgent = fromAiSdk((run, { messages }) =>
  new ToolLoopAgent({ model: weatherModel(), tools: { forecast } }).stream({
    messages,
    abortSignal: run.signal,
  }),
);

/**
 * A scripted stand-in for a language model: asked about a city, it reasons, calls `forecast` with
 * the question's last word, then answers from the tool's result.
 */
function weatherModel() {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => ({ stream: simulateReadableStream({ chunks: nextStep(prompt) }) }),
  });
}

const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const finish = (reason) => ({
  type: 'finish',
  finishReason: { unified: reason, raw: undefined },
  usage: USAGE,
});
const say = (text) => [
  { type: 'text-start', id: 'answer' },
  { type: 'text-delta', id: 'answer', delta: text },
  { type: 'text-end', id: 'answer' },
];

function nextStep(prompt) {
  const toolMessage = prompt.find((message) => message.role === 'tool');
  if (toolMessage) {
    const { city, forecast: weather } = toolMessage.content[0].output.value;
    return [...say(weather ? `${city}: ${weather}.` : `I have no forecast for ${city}.`), finish('stop')];
  }
  const question = prompt.findLast((message) => message.role === 'user')?.content[0]?.text ?? '';
  const city = /(\p{L}+)\P{L}*$/u.exec(question)?.[1];
  if (!city) return [...say('Which city?'), finish('stop')];
  return [
    { type: 'reasoning-start', id: 'thinking' },
    {
      type: 'reasoning-delta',
      id: 'thinking',
      delta: `The question is about ${city}; I will look up its forecast.`,
    },
    { type: 'reasoning-end', id: 'thinking' },
    { type: 'tool-call', toolCallId: 'forecast-1', toolName: 'forecast', input: JSON.stringify({ city }) },
    finish('tool-calls'),
  ];
}

// --- Tagline Writer (LangGraph) -------------------------------------------------------------------

const Tagline = Annotation.Root({
  topic: Annotation(),
  ideas: Annotation(),
  tagline: Annotation(),
  words: Annotation(),
});

/** The fake chat model always has the same three words in mind. */
const ideasModel = new FakeListChatModel({ responses: ['bold, simple, yours'] });

/** brainstorm (the model) → compose → count; each node is a progress notification as it ends. */
const taglineGraph = new StateGraph(Tagline)
  .addNode('brainstorm', async ({ topic }, config) => ({
    ideas: String((await ideasModel.invoke(`Three words for ${topic}`, config)).content),
  }))
  .addNode('compose', ({ topic, ideas }) => ({ tagline: `${topic}: ${ideas}` }))
  .addNode('count', ({ tagline }) => ({ words: tagline.split(/\s+/).length }))
  .addEdge(START, 'brainstorm')
  .addEdge('brainstorm', 'compose')
  .addEdge('compose', 'count')
  .addEdge('count', END)
  .compile();

/** The outputs are the state's declared keys, `tagline` and `words`. */
const runTagline = fromLangGraph(taglineGraph);

/** Runs one of the two apps; `undefined` for any other app. */
export function runFrameworkApp(run) {
  if (run.app.id === WEATHER_AGENT_APP.id) return runWeatherAgent(run);
  if (run.app.id === TAGLINE_APP.id) return runTagline(run);
  return undefined;
}
