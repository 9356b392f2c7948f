/**
 * What every demo app of the example must show as a tool and answer when called, for the suites that
 * drive the example app through real clients.
 */
import { PACKAGE_VERSION } from '../../src/versions.js';
import {
  answeredInConversation,
  CONVERSATION_ID_INPUT,
  CONVERSATION_OUTPUT_SCHEMA,
  HOW_TO_CONTINUE,
} from './conversations.js';
import { FILE_DEMO_CASES } from './example-file-cases.js';
import { FRAMEWORK_DEMO_CASES } from './framework-cases.js';
import { failure } from './tool-call.js';
import { ANSWER_SCHEMA, chatToolEntry, objectSchema, QUERY, toolEntry } from './tool-entries.js';

export const SERVER_INFO = { name: 'express-app-mcp', version: PACKAGE_VERSION };

export interface Call {
  arguments: Record<string, unknown>;
  result: { content: Record<string, unknown>[]; structuredContent?: unknown; isError: boolean };
}

export interface DemoCase {
  appId: string;
  name: string;
  mode: string;
  tool: Record<string, unknown> & { name: string; description: string };
  /** The server's description, which `initialize` shows; the tool's own when absent. */
  instructions?: string;
  valid: Call[];
  invalid: Call[];
}

/** A tool as every revision but 2025-11-25 lists it, and the package's own client keeps it: without `execution`. */
export function withoutExecution(tool: Record<string, unknown>): Record<string, unknown> {
  const { execution: _, ...rest } = tool;
  return rest;
}

export const answer = (text: string): Call['result'] => ({
  content: [{ type: 'text', text }],
  structuredContent: { answer: text },
  isError: false,
});
/** A FAQ Bot answer: each call without a conversation_id starts a new conversation. */
export const conversationAnswer = (text: string): Call['result'] => answeredInConversation(text);
export { failure };

export const TEXT_STATS_OUTPUTS = { word_count: 5, char_count: 19, top_words: ['the', 'and', 'cat'] };

/** The Slow Report's stages, as its progress messages and its sections name them. */
export const SLOW_REPORT_STAGES = ['gathering sources', 'reading', 'outlining', 'drafting', 'proofreading'];

export const DEMO_CASES: DemoCase[] = [
  {
    appId: 'text-stats',
    name: 'Text Stats',
    mode: 'workflow',
    tool: toolEntry(
      'Text Stats',
      'Counts the words and characters of a text and finds its most frequent words.',
      objectSchema(
        {
          text: { type: 'string', maxLength: 10000, description: 'The text to analyse' },
          top_n: {
            type: 'number',
            description: 'How many of the most frequent words to return',
            default: 3,
          },
          language: {
            type: 'string',
            enum: ['en', 'fr', 'de'],
            description: 'The language of the text; it decides the alphabetical order of tied words',
          },
        },
        ['text'],
      ),
      objectSchema(
        {
          word_count: { type: 'number', description: 'How many words the text has' },
          char_count: { type: 'number', description: 'How many characters (code points) the text has' },
          top_words: {
            type: 'array',
            description: 'The most frequent words, most frequent first; ties in alphabetical order',
          },
        },
        ['word_count', 'char_count', 'top_words'],
      ),
    ),
    valid: [
      {
        arguments: { text: 'the cat and the hat' },
        result: {
          content: [{ type: 'text', text: JSON.stringify(TEXT_STATS_OUTPUTS) }],
          structuredContent: TEXT_STATS_OUTPUTS,
          isError: false,
        },
      },
      {
        arguments: { text: "Don't panic. DON'T! Zoë’s café 👋", top_n: '2', language: 'fr' },
        result: {
          content: [
            {
              type: 'text',
              text: JSON.stringify({ word_count: 5, char_count: 32, top_words: ["don't", 'café'] }),
            },
          ],
          structuredContent: { word_count: 5, char_count: 32, top_words: ["don't", 'café'] },
          isError: false,
        },
      },
    ],
    invalid: [
      {
        arguments: { top_n: 'many', language: 'es' },
        result: failure(
          'Invalid arguments for tool Text_Stats: text is required; top_n must be a number; language must be one of en, fr, de',
        ),
      },
      {
        arguments: { text: 'the cat', top_n: -1 },
        result: failure('top_n must be a whole number, 0 or more'),
      },
    ],
  },
  {
    appId: 'faq-bot',
    name: 'FAQ Bot',
    mode: 'chat',
    tool: toolEntry(
      'FAQ Bot',
      `Answers questions about opening hours, prices and refunds.\n\n${HOW_TO_CONTINUE}`,
      objectSchema(
        {
          query: QUERY,
          conversation_id: CONVERSATION_ID_INPUT,
          tone: {
            type: 'string',
            enum: ['plain', 'friendly'],
            description: 'plain, or friendly for a warmer answer',
          },
        },
        ['query'],
      ),
      CONVERSATION_OUTPUT_SCHEMA,
    ),
    instructions: 'Answers questions about opening hours, prices and refunds.',
    valid: [
      {
        arguments: { query: 'What are your opening hours?', tone: 'friendly' },
        result: conversationAnswer('Happy to help! We are open Monday to Friday, 9:00 to 17:00.'),
      },
      {
        arguments: { query: 'Can I get a refund?' },
        result: conversationAnswer('You can ask for a full refund within 30 days of your purchase.'),
      },
      { arguments: { query: 'Where is your office?' }, result: conversationAnswer("I don't know that yet.") },
    ],
    invalid: [
      {
        arguments: { tone: 'grumpy' },
        result: failure(
          'Invalid arguments for tool FAQ_Bot: query is required; tone must be one of plain, friendly',
        ),
      },
    ],
  },
  {
    appId: 'support-desk',
    name: 'Support Desk',
    mode: 'advanced-chat',
    tool: toolEntry(
      'Support Desk',
      "Files a support request and confirms it, tagged with the customer's tier.",
      objectSchema(
        {
          query: QUERY,
          customer_tier: {
            type: 'string',
            enum: ['free', 'pro'],
            description: "The customer's plan: free or pro",
          },
        },
        ['query', 'customer_tier'],
      ),
      ANSWER_SCHEMA,
      {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    ),
    valid: [
      {
        arguments: { query: 'My printer is on fire', customer_tier: 'pro' },
        result: answer('[pro] We received: My printer is on fire'),
      },
    ],
    invalid: [
      {
        arguments: { query: 'Help', customer_tier: 'gold' },
        result: failure('Invalid arguments for tool Support_Desk: customer_tier must be one of free, pro'),
      },
      {
        arguments: {},
        result: failure(
          'Invalid arguments for tool Support_Desk: query is required; customer_tier is required',
        ),
      },
    ],
  },
  {
    appId: 'calc-agent',
    name: 'Calculator Agent',
    mode: 'agent-chat',
    tool: chatToolEntry(
      'Calculator Agent',
      'Evaluates an arithmetic expression with + - * /, parentheses and decimals, e.g. "(2 + 3) * 4.5".',
    ),
    valid: [
      { arguments: { query: '(2 + 3) * 4.5' }, result: answer('22.5') },
      { arguments: { query: '2 + 3 * -4' }, result: answer('-10') },
      { arguments: { query: '0.1 + 0.2' }, result: answer('0.30000000000000004') },
    ],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Calculator_Agent: query is required') },
      { arguments: { query: '1 / (2 - 2)' }, result: failure('division by zero') },
      { arguments: { query: 'two plus two' }, result: failure('invalid expression') },
    ],
  },
  {
    appId: 'title-case',
    name: 'Title Case',
    mode: 'completion',
    tool: toolEntry(
      'Title Case',
      'Rewrites a text in Title Case.',
      objectSchema({ text: { type: 'string', maxLength: 200, description: 'The text to rewrite' } }, [
        'text',
      ]),
      ANSWER_SCHEMA,
    ),
    valid: [{ arguments: { text: 'the QUICK brown fox' }, result: answer('The Quick Brown Fox') }],
    invalid: [
      {
        arguments: { text: 'x'.repeat(201) },
        result: failure('Invalid arguments for tool Title_Case: text must be at most 200 characters'),
      },
    ],
  },
  // The two file apps: a file in, a generated image out; a chat answer with a file link.
  ...FILE_DEMO_CASES,
  {
    appId: 'slow-report',
    name: 'Slow Report',
    mode: 'workflow',
    tool: toolEntry(
      'Slow Report',
      'Writes a short report on a topic in five stages, reporting each stage as it starts; it takes about 20 seconds (or the given seconds), to show a long run.',
      objectSchema(
        {
          topic: { type: 'string', maxLength: 200, description: 'What the report is about' },
          seconds: {
            type: 'number',
            description: 'How long the report takes, from 0 to 600 seconds',
            default: 20,
          },
        },
        ['topic'],
      ),
      objectSchema(
        {
          title: { type: 'string', description: 'The title of the report' },
          sections: { type: 'array', description: 'One line per stage of the report' },
        },
        ['title', 'sections'],
      ),
    ),
    valid: [{ arguments: { topic: 'tides', seconds: 0.5 }, result: slowReportResult('tides') }],
    invalid: [
      {
        arguments: { seconds: 1 },
        result: failure('Invalid arguments for tool Slow_Report: topic is required'),
      },
      {
        arguments: { topic: 'tides', seconds: 601 },
        result: failure('seconds must be a number from 0 to 600'),
      },
    ],
  },
];

/** The Slow Report's outputs for a topic: a title, and each stage done. */
export function slowReportOutputs(topic: string) {
  return { title: `A report on ${topic}`, sections: SLOW_REPORT_STAGES.map((stage) => `${stage}: done`) };
}

/** What the Slow Report answers for a topic. */
export function slowReportResult(topic: string): Call['result'] {
  const outputs = slowReportOutputs(topic);
  return {
    content: [{ type: 'text', text: JSON.stringify(outputs) }],
    structuredContent: outputs,
    isError: false,
  };
}

// Remote Text Stats calls the Text Stats tool of the example's own server, through a stored tool
// provider: Text Stats' text input and outputs, and its results.
const TEXT_STATS_CASE = DEMO_CASES[0]!;
const TEXT_STATS_SCHEMA = TEXT_STATS_CASE.tool.inputSchema as { properties: { text: unknown } };
DEMO_CASES.push({
  appId: 'remote-stats',
  name: 'Remote Text Stats',
  mode: 'workflow',
  tool: toolEntry(
    'Remote Text Stats',
    'Counts the words and characters of a text by calling the Text Stats tool of a remote MCP server.',
    objectSchema({ text: TEXT_STATS_SCHEMA.properties.text }, ['text']),
    TEXT_STATS_CASE.tool.outputSchema,
    { readOnlyHint: true, openWorldHint: true },
  ),
  valid: [TEXT_STATS_CASE.valid[0]!],
  invalid: [
    { arguments: {}, result: failure('Invalid arguments for tool Remote_Text_Stats: text is required') },
  ],
});

// Expense Approval asks a person; a client without the elicitation capability (as these calls
// are made) gets the error result that says so (docs/asking-a-person.md).
DEMO_CASES.push({
  appId: 'expense-approval',
  name: 'Expense Approval',
  mode: 'workflow',
  tool: toolEntry(
    'Expense Approval',
    'Asks a person to approve or reject an expense, with a comment, and answers with the decision. The client must be able to ask its user (MCP elicitation).',
    objectSchema(
      {
        employee: { type: 'string', maxLength: 100, description: 'Employee' },
        amount: { type: 'number', description: 'Amount' },
        currency: { type: 'string', maxLength: 3, description: 'Currency', default: 'EUR' },
        reason: { type: 'string', maxLength: 500, description: 'Reason' },
      },
      ['employee', 'amount'],
    ),
    objectSchema(
      {
        status: {
          type: 'string',
          description: 'approved, rejected, declined (the person would not decide) or unanswered',
        },
        comment: { type: 'string', description: "The approver's comment, if any" },
      },
      ['status', 'comment'],
    ),
    { readOnlyHint: true, openWorldHint: false },
  ),
  valid: [
    {
      arguments: { employee: 'Ana', amount: 420 },
      result: failure(
        "the app needs a person's answer, and this client cannot ask one (it did not declare the elicitation capability)",
      ),
    },
  ],
  invalid: [
    {
      arguments: { employee: 'Ana' },
      result: failure('Invalid arguments for tool Expense_Approval: amount is required'),
    },
  ],
});

// The two apps built with the AI SDK and LangGraph, published through the package's adapters.
DEMO_CASES.push(...FRAMEWORK_DEMO_CASES);
