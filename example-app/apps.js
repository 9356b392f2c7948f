/**
 * The example host's own apps (README, "The example app"): small, deterministic apps, one per mode,
 * two that take and return files, a slow one that shows a long run, one that calls a remote MCP
 * tool (run by remote-stats.js), and one that asks a person (expense-approval.js); the others need no network and no model. In a real backend these
 * would be your workflows, chatbots and agents; what matters here is their shape: a `HostApp`
 * description that `loadApp` returns, and a `runApp` that runs one of them once and returns a
 * result or streams events (README, "runApp, mode by mode"). This file needs nothing from the
 * package at run time: the types in the JSDoc comments come from it.
 */

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPENSE_APPROVAL_APP, expenseApproval } from './expense-approval.js';
import { imageFacts } from './image-facts.js';

/** The tenant every demo app belongs to. */
export const TENANT_ID = 'demo';

/** @type {import('express-app-mcp').HostApp[]} */
export const DEMO_APPS = [
  {
    id: 'text-stats',
    name: 'Text Stats',
    mode: 'workflow',
    description: 'Counts the words and characters of a text and finds its most frequent words.',
    inputForm: [
      {
        type: 'paragraph',
        variable: 'text',
        label: 'Text',
        description: 'The text to analyse',
        required: true,
        max_length: 10000,
      },
      {
        type: 'number',
        variable: 'top_n',
        label: 'Top N',
        description: 'How many of the most frequent words to return',
        required: false,
        default: 3,
      },
      {
        type: 'select',
        variable: 'language',
        label: 'Language',
        description: 'The language of the text; it decides the alphabetical order of tied words',
        required: false,
        options: ['en', 'fr', 'de'],
      },
    ],
    outputs: [
      { variable: 'word_count', type: 'number', description: 'How many words the text has' },
      {
        variable: 'char_count',
        type: 'number',
        description: 'How many characters (code points) the text has',
      },
      {
        variable: 'top_words',
        type: 'array',
        description: 'The most frequent words, most frequent first; ties in alphabetical order',
      },
    ],
  },
  {
    id: 'faq-bot',
    name: 'FAQ Bot',
    mode: 'chat',
    description: 'Answers questions about opening hours, prices and refunds.',
    // Follow-up questions ("and on weekends?") are answered from the previous question's topic.
    conversations: true,
    inputForm: [
      {
        type: 'select',
        variable: 'tone',
        label: 'Tone',
        description: 'plain, or friendly for a warmer answer',
        required: false,
        options: ['plain', 'friendly'],
      },
    ],
  },
  {
    id: 'support-desk',
    name: 'Support Desk',
    mode: 'advanced-chat',
    description: "Files a support request and confirms it, tagged with the customer's tier.",
    inputForm: [
      {
        type: 'select',
        variable: 'customer_tier',
        label: 'Customer tier',
        description: "The customer's plan: free or pro",
        required: true,
        options: ['free', 'pro'],
      },
    ],
  },
  {
    id: 'calc-agent',
    name: 'Calculator Agent',
    mode: 'agent-chat',
    description:
      'Evaluates an arithmetic expression with + - * /, parentheses and decimals, e.g. "(2 + 3) * 4.5".',
    inputForm: [],
  },
  {
    id: 'title-case',
    name: 'Title Case',
    mode: 'completion',
    description: 'Rewrites a text in Title Case.',
    inputForm: [
      {
        type: 'text-input',
        variable: 'text',
        label: 'Text',
        description: 'The text to rewrite',
        required: true,
        max_length: 200,
      },
    ],
  },
  {
    id: 'image-facts',
    name: 'Image Facts',
    mode: 'workflow',
    description:
      'Tells the format, size and dimensions of an image sent as a base64 data: URL (other URLs are described, not downloaded), and draws its identicon.',
    inputForm: [
      {
        type: 'file',
        variable: 'image',
        label: 'Image',
        description: 'The image to describe',
        required: true,
        allowed_file_types: ['image'],
        allowed_file_upload_methods: ['remote_url', 'local_file'],
      },
    ],
    outputs: [
      { variable: 'summary', type: 'string', description: 'The facts in one sentence' },
      { variable: 'details', type: 'object', description: 'The facts one by one' },
      { variable: 'identicon', type: 'file', description: 'A 48×48 PNG drawn from the image' },
    ],
  },
  {
    id: 'manual-finder',
    name: 'Manual Finder',
    mode: 'chat',
    description: 'Finds the PDF manual of a product and answers with a link to it.',
    inputForm: [],
  },
  {
    id: 'slow-report',
    name: 'Slow Report',
    mode: 'workflow',
    description:
      'Writes a short report on a topic in five stages, reporting each stage as it starts; it takes about 20 seconds (or the given seconds), to show a long run.',
    inputForm: [
      {
        type: 'text-input',
        variable: 'topic',
        label: 'Topic',
        description: 'What the report is about',
        required: true,
        max_length: 200,
      },
      {
        type: 'number',
        variable: 'seconds',
        label: 'Seconds',
        description: 'How long the report takes, from 0 to 600 seconds',
        required: false,
        default: 20,
      },
    ],
    outputs: [
      { variable: 'title', type: 'string', description: 'The title of the report' },
      { variable: 'sections', type: 'array', description: 'One line per stage of the report' },
    ],
  },
];

/**
 * The hints each demo app's server is published with (MCP tool annotations): a client may run a
 * read-only tool without asking, and should ask before one that changes something. None of the
 * demo apps reaches beyond this host but Remote Text Stats, which calls a remote MCP server.
 * @type {Record<string, import('express-app-mcp').ToolAnnotations>}
 */
export const DEMO_ANNOTATIONS = {
  'text-stats': { readOnlyHint: true, openWorldHint: false },
  'faq-bot': { readOnlyHint: true, openWorldHint: false },
  // Files a support request: it adds one, destroys nothing, and a second call files a second one.
  'support-desk': {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  'calc-agent': { readOnlyHint: true, openWorldHint: false },
  'title-case': { readOnlyHint: true, openWorldHint: false },
  // Describes the image it is sent; a URL that is not a data: URL is described, never downloaded.
  'image-facts': { readOnlyHint: true, openWorldHint: false },
  // The link is made from the product's name here; nothing is looked up elsewhere.
  'manual-finder': { readOnlyHint: true, openWorldHint: false },
  // Writes its report and returns it; it keeps nothing.
  'slow-report': { readOnlyHint: true, openWorldHint: false },
  // Sends the text to a remote MCP server's tool and reads its answer.
  'remote-stats': { readOnlyHint: true, openWorldHint: true },
  // Asks a person and answers with the decision; it records nothing itself.
  'expense-approval': { readOnlyHint: true, openWorldHint: false },
};

// The last app calls the Text Stats tool of a remote MCP server, a tool provider the host stored (in
// this example, the example's own Text Stats server): same text input, same outputs. remote-stats.js
// runs it.
DEMO_APPS.push({
  id: 'remote-stats',
  name: 'Remote Text Stats',
  mode: 'workflow',
  description:
    'Counts the words and characters of a text by calling the Text Stats tool of a remote MCP server.',
  inputForm: DEMO_APPS[0].inputForm.filter((input) => input.variable === 'text'),
  outputs: DEMO_APPS[0].outputs,
});

// A workflow that stops to ask a person, then goes on with the answer (expense-approval.js).
DEMO_APPS.push(EXPENSE_APPROVAL_APP);

const appsById = new Map(DEMO_APPS.map((app) => [app.id, app]));

/**
 * The host's `loadApp(appId, tenantId)`: the app, or `null` when this tenant has no such app.
 * @type {import('express-app-mcp').LoadApp}
 */
export function loadApp(appId, tenantId) {
  if (tenantId !== TENANT_ID) return null;
  return appsById.get(appId) ?? null;
}

/**
 * The host's `runApp`: runs one app once. The package has already checked the arguments against
 * the app's input form, filled in defaults and split `query` from `inputs` (docs/http-contract.md).
 * @type {import('express-app-mcp').RunApp}
 */
export function runApp(run) {
  switch (run.app.id) {
    case 'text-stats':
      return textStatsEvents(run.inputs, run.signal);
    case 'faq-bot':
      return faqChat(run.query ?? '', run.inputs.tone, run.conversationId);
    case 'support-desk':
      return supportDeskEvents(run.query ?? '', run.inputs.customer_tier);
    case 'calc-agent':
      return calculatorEvents(run.query ?? '', run.signal);
    case 'title-case':
      return { answer: titleCase(String(run.inputs.text ?? '')) };
    case 'image-facts':
      return { outputs: imageFacts(run.inputs.image) };
    case 'manual-finder':
      return manualFinderEvents(run.query ?? '');
    case 'slow-report':
      return slowReportEvents(run.inputs, run.signal);
    case 'expense-approval':
      return expenseApproval(run);
    default:
      // loadApp only ever returns the apps above; Remote Text Stats is run by host.js (remote-stats.js).
      throw new Error(`the example host has no app "${run.app.id}"`);
  }
}

// --- Text Stats (workflow) ----------------------------------------------------------------------

/** A word is a run of letters (with their combining marks), digits and apostrophes (' and ’). */
const WORD = /[\p{L}\p{M}\p{N}'’]+/gu;

/** The words of a text, lower-cased, in order. */
export function words(text) {
  return (text.match(WORD) ?? []).map((word) => word.toLowerCase());
}

/**
 * `{word_count, char_count, top_words}` of a text. `char_count` counts code points, so an emoji is
 * one character. `top_words` holds the `topN` most frequent words, most frequent first; words
 * with the same count are in alphabetical order for `language` (en when absent).
 */
export function textStats(text, topN = 3, language = 'en') {
  if (!isValidTopN(topN)) throw new RangeError(TOP_N_PROBLEM);
  const all = words(text);
  const counts = new Map();
  for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
  const collator = new Intl.Collator(language);
  const ranked = [...counts].sort(([a, countA], [b, countB]) => countB - countA || collator.compare(a, b));
  return {
    word_count: all.length,
    char_count: [...text].length,
    top_words: ranked.slice(0, topN).map(([word]) => word),
  };
}

const isValidTopN = (topN) => Number.isInteger(topN) && topN >= 0;
const TOP_N_PROBLEM = 'top_n must be a whole number, 0 or more';

/**
 * Streams one `progress` event per stage, then the outputs (README, "The example app"). A `top_n` the input form
 * cannot rule out (-1, 2.5) ends the run with an `error` event, whose text the client reads.
 */
async function* textStatsEvents(inputs, signal) {
  const text = String(inputs.text);
  const topN = inputs.top_n ?? 3;
  if (!isValidTopN(topN)) {
    yield { event: 'error', message: TOP_N_PROBLEM };
    return;
  }
  const stages = ['splitting the text into words', 'counting characters', 'ranking the words'];
  for (const [index, message] of stages.entries()) {
    signal.throwIfAborted();
    yield { event: 'progress', progress: index + 1, total: stages.length, message };
  }
  const outputs = textStats(text, topN, inputs.language ?? 'en');
  yield { event: 'workflow_finished', outputs };
}

// --- FAQ Bot (chat) -----------------------------------------------------------------------------

/** The built-in FAQ, in the order its answers are given. */
export const FAQ = [
  { keyword: 'hours', answer: 'We are open Monday to Friday, 9:00 to 17:00.' },
  { keyword: 'price', answer: 'The Free plan costs nothing; the Pro plan costs 20 EUR a month.' },
  { keyword: 'refund', answer: 'You can ask for a full refund within 30 days of your purchase.' },
];

export const FAQ_UNKNOWN = "I don't know that yet.";
export const FRIENDLY_PREFIX = 'Happy to help! ';

/**
 * The topics of a question: the keyword of every FAQ entry that begins one of its words ("price",
 * "prices", "Refunds?"), in FAQ order.
 */
export function faqTopics(question) {
  const asked = words(question);
  return FAQ.filter(({ keyword }) => asked.some((word) => word.startsWith(keyword))).map(
    ({ keyword }) => keyword,
  );
}

/** The question's own topics, or for a question without any (a follow-up), the previous ones. */
function topicsOrPrevious(question, previousTopics) {
  const asked = faqTopics(question);
  return asked.length > 0 ? asked : previousTopics;
}

/** The answers of the FAQ entries of `topics`, in FAQ order, or "I don't know that yet.". */
function answerOn(topics, tone) {
  const matches = FAQ.filter(({ keyword }) => topics.includes(keyword));
  const answer = matches.length > 0 ? matches.map((entry) => entry.answer).join(' ') : FAQ_UNKNOWN;
  return tone === 'friendly' ? `${FRIENDLY_PREFIX}${answer}` : answer;
}

/**
 * Answers from the FAQ: the entries of the question's topics, in FAQ order; a question without a
 * topic is answered on `previousTopics` (a follow-up such as "and on weekends?"), and otherwise
 * "I don't know that yet.".
 */
export function faqAnswer(question, tone = 'plain', previousTopics = []) {
  return answerOn(topicsOrPrevious(question, previousTopics), tone);
}

/** How many conversations the FAQ Bot remembers; the least recently used are forgotten first. */
export const FAQ_MAX_CONVERSATIONS = 1000;

/** The topics each conversation talked about last, by conversation id; in memory, as a demo may. */
const faqConversations = new Map();

/**
 * One turn of a conversation with the FAQ Bot. An id the bot does not know (never issued, or
 * forgotten since, or from before a restart) starts a new conversation with a new id, so ids are
 * always the bot's own.
 */
export function faqChat(question, tone, conversationId) {
  const known = conversationId !== undefined && faqConversations.has(conversationId);
  const id = known ? conversationId : randomUUID();
  const topics = topicsOrPrevious(question, faqConversations.get(id) ?? []);
  // Delete, then set: the Map's order is then the order of use, oldest first.
  faqConversations.delete(id);
  faqConversations.set(id, topics);
  if (faqConversations.size > FAQ_MAX_CONVERSATIONS) {
    faqConversations.delete(faqConversations.keys().next().value);
  }
  return { answer: answerOn(topics, tone), conversationId: id };
}

// --- Support Desk (advanced-chat) ---------------------------------------------------------------

export function supportDeskAnswer(query, tier) {
  return `[${tier}] We received: ${query}`;
}

/** Streams the answer in two `message` events, as a chat app streams tokens. */
async function* supportDeskEvents(query, tier) {
  const answer = supportDeskAnswer(query, tier);
  const split = answer.indexOf(']') + 1;
  yield { event: 'message', answer: answer.slice(0, split) };
  yield { event: 'message', answer: answer.slice(split) };
}

// --- Calculator Agent (agent-chat) --------------------------------------------------------------

/** Thrown by `evaluate` with the exact text the client reads. */
export class CalculationError extends Error {
  name = 'CalculationError';
}

/**
 * The value of an arithmetic expression: numbers with optional decimals (`2`, `2.5`, `.5`),
 * `+ - * /` with the usual precedence and left associativity, unary minus and plus, parentheses,
 * spaces anywhere between tokens. The signs − × ÷ are read as - * /.
 * Throws `CalculationError('division by zero')` or `CalculationError('invalid expression')`.
 */
export function evaluate(expression) {
  const tokens = tokenize(expression);
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];

  // expression := term (('+' | '-') term)*
  function parseExpression() {
    let value = parseTerm();
    while (peek() === '+' || peek() === '-') {
      const operator = take();
      const right = parseTerm();
      value = operator === '+' ? value + right : value - right;
    }
    return value;
  }
  // term := factor (('*' | '/') factor)*
  function parseTerm() {
    let value = parseFactor();
    while (peek() === '*' || peek() === '/') {
      const operator = take();
      const right = parseFactor();
      if (operator === '/' && right === 0) throw new CalculationError('division by zero');
      value = operator === '*' ? value * right : value / right;
    }
    return value;
  }
  // factor := ('-' | '+') factor | number | '(' expression ')'
  function parseFactor() {
    const token = take();
    if (token === '-') return -parseFactor();
    if (token === '+') return parseFactor();
    if (typeof token === 'number') return token;
    if (token === '(') {
      const value = parseExpression();
      if (take() !== ')') throw invalid();
      return value;
    }
    throw invalid();
  }

  const value = parseExpression();
  if (position !== tokens.length) throw invalid();
  // -0 would print as "0" anyway; normalise it so the value itself is the one shown.
  return Object.is(value, -0) ? 0 : value;
}

const invalid = () => new CalculationError('invalid expression');

const TOKEN = /\s*(?:(\d+(?:\.\d*)?|\.\d+)|([-+*/()−×÷]))/y;
const ALIASES = { '−': '-', '×': '*', '÷': '/' };

function tokenize(expression) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    if (/^\s*$/.test(expression.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(expression);
    if (!match) throw invalid();
    if (match[1] !== undefined) tokens.push(Number(match[1]));
    else tokens.push(ALIASES[match[2]] ?? match[2]);
  }
  return tokens;
}

/** The answer as the agent gives it: the value, formatted as a JavaScript number. */
export function calculate(expression) {
  return String(evaluate(expression));
}

/** Streams what an agent would: a thought, then the answer, or an `error` event. */
async function* calculatorEvents(query, signal) {
  const expression = query.trim();
  yield { event: 'agent_thought', thought: `I will evaluate the expression ${expression}.` };
  signal.throwIfAborted();
  let answer;
  try {
    answer = calculate(expression);
  } catch (error) {
    if (!(error instanceof CalculationError)) throw error;
    yield { event: 'error', message: error.message };
    return;
  }
  yield { event: 'agent_thought', thought: `${expression} = ${answer}` };
  yield { event: 'message', answer };
}

// --- Title Case (completion) --------------------------------------------------------------------

/**
 * Each word (a run of non-space characters) with its first letter upper-cased and the rest
 * lower-cased; spaces are kept as they are. A word that starts with a digit keeps it
 * ("21st" stays "21st"), and leading punctuation is skipped ("(hello" → "(Hello").
 */
export function titleCase(text) {
  return text.replace(/\S+/gu, (word) => {
    const lower = word.toLowerCase();
    const first = lower.search(/[\p{L}\p{N}]/u);
    if (first === -1 || !/\p{L}/u.test(String.fromCodePoint(lower.codePointAt(first)))) return lower;
    const letter = String.fromCodePoint(lower.codePointAt(first));
    return lower.slice(0, first) + letter.toUpperCase() + lower.slice(first + letter.length);
  });
}

// --- Manual Finder (chat, with a file link) -------------------------------------------------------

export const MANUALS_BASE_URL = 'https://manuals.example.com/';

/** The manual of a product, as the file the answer links to: `https://manuals.example.com/<slug>.pdf`. */
export function manualOf(product) {
  const slug = product
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  if (slug === '') return null;
  return { url: `${MANUALS_BASE_URL}${slug}.pdf`, name: `${slug}.pdf`, mimeType: 'application/pdf' };
}

/** Streams the answer, then the manual as a `message_file` event (README, "Files in and out"). */
async function* manualFinderEvents(query) {
  const manual = manualOf(query);
  if (!manual) {
    yield { event: 'error', message: 'name a product, e.g. "Coffee Maker 3000"' };
    return;
  }
  yield { event: 'message', answer: `Here is the manual for ${query.trim()}: ${manual.name}` };
  yield { event: 'message_file', file: manual };
}

// --- Slow Report (workflow) ---------------------------------------------------------------------

/** The stages of the Slow Report, in order; each takes a fifth of its time. */
export const SLOW_REPORT_STAGES = ['gathering sources', 'reading', 'outlining', 'drafting', 'proofreading'];
const SECONDS_PROBLEM = 'seconds must be a number from 0 to 600';

/** The Slow Report's outputs for a topic. */
export function slowReport(topic) {
  return {
    title: `A report on ${topic}`,
    sections: SLOW_REPORT_STAGES.map((stage) => `${stage}: done`),
  };
}

/**
 * A run as long as real apps' runs: a `progress` event as each stage starts ("stage 2 of 5:
 * reading"), then the outputs. It stops as soon as its signal aborts (the client cancelled, or the
 * call timed out). With a progress token the client sees every stage as it starts; in between, the
 * package's heartbeats keep the connection alive (README, "Long runs").
 */
async function* slowReportEvents(inputs, signal) {
  const seconds = inputs.seconds ?? 20;
  if (!(seconds >= 0 && seconds <= 600)) {
    yield { event: 'error', message: SECONDS_PROBLEM };
    return;
  }
  const stageMs = (seconds * 1000) / SLOW_REPORT_STAGES.length;
  for (const [index, stage] of SLOW_REPORT_STAGES.entries()) {
    yield {
      event: 'progress',
      progress: index,
      total: SLOW_REPORT_STAGES.length,
      message: `stage ${index + 1} of ${SLOW_REPORT_STAGES.length}: ${stage}`,
    };
    await sleep(stageMs, undefined, { signal });
  }
  yield { event: 'workflow_finished', outputs: slowReport(String(inputs.topic)) };
}
