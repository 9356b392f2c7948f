/**
 * What the example app's two framework apps show and answer through a real MCP client, in the shape
 * of the end-to-end test's demo cases: Weather Agent (an AI SDK agent on the SDK's mock model) and
 * Tagline Writer (a LangGraph graph on a fake chat model). Both are deterministic, as their models are.
 */

import { chatToolEntry, objectSchema, toolEntry } from './tool-entries.js';

const failure = (text: string) => ({ content: [{ type: 'text', text }], isError: true });

/** The mock model counts 3 input and 10 output tokens per call; the agent calls it twice. */
const TWO_MODEL_CALLS = { usage: { inputTokens: 6, outputTokens: 20, totalTokens: 26 } };
const agentAnswer = (answer: string) => ({
  content: [{ type: 'text', text: answer }],
  structuredContent: { answer },
  isError: false,
  _meta: TWO_MODEL_CALLS,
});

export const TAGLINE_OUTPUTS = { tagline: 'Tea: bold, simple, yours', words: 4 };
/** The nodes of Tagline Writer's graph, in the order they run and are reported. */
export const TAGLINE_NODES = ['brainstorm', 'compose', 'count'];

export const FRAMEWORK_DEMO_CASES = [
  {
    appId: 'weather-agent',
    name: 'Weather Agent',
    mode: 'agent-chat',
    tool: chatToolEntry(
      'Weather Agent',
      "Tells the weather forecast of a city (Paris, Oslo or Lima) by calling its forecast tool. An AI SDK agent on the SDK's mock model.",
    ),
    valid: [
      { arguments: { query: 'What is the weather in Paris?' }, result: agentAnswer('Paris: sunny, 21 °C.') },
      { arguments: { query: 'And in Rome?' }, result: agentAnswer('I have no forecast for Rome.') },
    ],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Weather_Agent: query is required') },
    ],
  },
  {
    appId: 'tagline-writer',
    name: 'Tagline Writer',
    mode: 'workflow',
    tool: toolEntry(
      'Tagline Writer',
      'Writes a tagline for a topic in three steps (brainstorm, compose, count), reporting each as it ends. A LangGraph graph on a fake chat model.',
      objectSchema({ topic: { type: 'string', maxLength: 100, description: 'What the tagline is for' } }, [
        'topic',
      ]),
      objectSchema(
        {
          tagline: { type: 'string', description: 'The tagline' },
          words: { type: 'number', description: 'How many words the tagline has' },
        },
        ['tagline', 'words'],
      ),
    ),
    valid: [
      {
        arguments: { topic: 'Tea' },
        result: {
          content: [{ type: 'text', text: JSON.stringify(TAGLINE_OUTPUTS) }],
          structuredContent: TAGLINE_OUTPUTS,
          isError: false,
        },
      },
    ],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Tagline_Writer: topic is required') },
      {
        arguments: { topic: 'x'.repeat(101) },
        result: failure('Invalid arguments for tool Tagline_Writer: topic must be at most 100 characters'),
      },
    ],
  },
];
