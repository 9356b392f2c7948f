/**
 * The example app's demo apps, one rule at a time (README, "The example app"); the two file apps
 * have their own file (`example-files.test.ts`). The end-to-end test drives them through real MCP
 * clients; this file pins down every edge of their behaviour without HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  CalculationError,
  calculate,
  DEMO_APPS,
  FAQ,
  FAQ_MAX_CONVERSATIONS,
  faqAnswer,
  faqChat,
  loadApp,
  runApp,
  supportDeskAnswer,
  TENANT_ID,
  textStats,
  titleCase,
  words,
} from '../../example-app/apps.js';
import type { AppEvent, AppResult, AppRun, HostApp } from '../../src/index.js';
import { itMaps } from '../helpers/common.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOURS = FAQ[0]!.answer;
const PRICE = FAQ[1]!.answer;
const REFUND = FAQ[2]!.answer;

function app(id: string): HostApp {
  const found = DEMO_APPS.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no demo app ${id}`);
  return found;
}

/** Runs a demo app as the package would, and returns the plain result or every streamed event. */
async function run(
  id: string,
  inputs: Record<string, unknown>,
  query?: string,
  conversationId?: string,
): Promise<{ result?: AppResult; events?: AppEvent[] }> {
  const appRun = {
    app: app(id),
    inputs,
    query,
    ...(conversationId !== undefined && { conversationId }),
    signal: new AbortController().signal,
    endUser: { id: 'end-user', name: 'test' },
    protocolVersion: '2025-11-25',
  } as unknown as AppRun;
  const produced = await runApp(appRun);
  if (typeof produced === 'object' && produced !== null && Symbol.asyncIterator in produced) {
    const events: AppEvent[] = [];
    for await (const event of produced as AsyncIterable<AppEvent>) events.push(event);
    return { events };
  }
  return { result: produced as AppResult };
}

describe('the demo apps', () => {
  it('are the five apps of the README, one per mode, the two file apps, the Slow Report, the one that calls a remote tool and the one that asks a person, in the demo tenant', () => {
    expect(DEMO_APPS.map(({ id, name, mode }) => ({ id, name, mode }))).toEqual([
      { id: 'text-stats', name: 'Text Stats', mode: 'workflow' },
      { id: 'faq-bot', name: 'FAQ Bot', mode: 'chat' },
      { id: 'support-desk', name: 'Support Desk', mode: 'advanced-chat' },
      { id: 'calc-agent', name: 'Calculator Agent', mode: 'agent-chat' },
      { id: 'title-case', name: 'Title Case', mode: 'completion' },
      { id: 'image-facts', name: 'Image Facts', mode: 'workflow' },
      { id: 'manual-finder', name: 'Manual Finder', mode: 'chat' },
      { id: 'slow-report', name: 'Slow Report', mode: 'workflow' },
      { id: 'remote-stats', name: 'Remote Text Stats', mode: 'workflow' },
      { id: 'expense-approval', name: 'Expense Approval', mode: 'workflow' },
    ]);
    expect(TENANT_ID).toBe('demo');
  });

  it('loadApp finds a demo app in the demo tenant only', () => {
    expect(loadApp('faq-bot', 'demo')).toBe(app('faq-bot'));
    expect(loadApp('faq-bot', 'another-tenant')).toBeNull();
    expect(loadApp('no-such-app', 'demo')).toBeNull();
  });

  it('have the input forms of the spec', () => {
    const select = (variable: string, required: boolean, options: string[]) =>
      expect.objectContaining({ type: 'select', variable, required, options });
    expect(app('text-stats').inputForm).toEqual([
      expect.objectContaining({ type: 'paragraph', variable: 'text', required: true, max_length: 10000 }),
      expect.objectContaining({ type: 'number', variable: 'top_n', required: false, default: 3 }),
      select('language', false, ['en', 'fr', 'de']),
    ]);
    expect(app('text-stats').outputs?.map(({ variable, type }) => ({ variable, type }))).toEqual([
      { variable: 'word_count', type: 'number' },
      { variable: 'char_count', type: 'number' },
      { variable: 'top_words', type: 'array' },
    ]);
    expect(app('faq-bot').inputForm).toEqual([select('tone', false, ['plain', 'friendly'])]);
    expect(app('support-desk').inputForm).toEqual([select('customer_tier', true, ['free', 'pro'])]);
    expect(app('calc-agent').inputForm).toEqual([]);
    expect(app('title-case').inputForm).toEqual([
      expect.objectContaining({ type: 'text-input', variable: 'text', required: true, max_length: 200 }),
    ]);
  });
});

describe('Text Stats', () => {
  /** The words `words` reads in `text`, written here as one space-separated string. */
  const expectWords = (text: string, expected: string) => expect(words(text)).toEqual(expected.split(' '));

  it('counts "the cat and the hat": five words, nineteen characters, "the" first', () => {
    expect(textStats('the cat and the hat')).toEqual({
      word_count: 5,
      char_count: 19,
      top_words: ['the', 'and', 'cat'],
    });
  });

  it('lower-cases words, so "The" and "THE" are the same word', () => {
    expect(textStats('The THE the cat')).toEqual({
      word_count: 4,
      char_count: 15,
      top_words: ['the', 'cat'],
    });
  });

  it('keeps apostrophes inside words, straight and typographic', () => {
    expectWords("Don't stop: don't! It’s O'Brien's", "don't stop don't it’s o'brien's");
  });

  it('splits on punctuation, hyphens and spaces, and keeps digits', () => {
    expectWords('end.Start,middle;well-known 42nd\tline\n2024', 'end start middle well known 42nd line 2024');
  });

  it('reads letters of every script, with their accents, as word characters', () => {
    expectWords(
      'Zoë’s café — naïve STRASSE Straße Ελλάδα 東京 cafe\u0301',
      'zoë’s café naïve strasse straße ελλάδα 東京 cafe\u0301',
    );
  });

  it('counts characters as code points: an emoji is one character, an accent mark is one more', () => {
    expect(textStats('héllo 👋').char_count).toBe(7);
    expect(textStats('👍🏽').char_count).toBe(2);
    expect(textStats('cafe\u0301').char_count).toBe(5);
  });

  it('orders the top words by count, then alphabetically', () => {
    expect(textStats('b a c b a c d', 3).top_words).toEqual(['a', 'b', 'c']);
    expect(textStats('zebra zebra apple', 3).top_words).toEqual(['zebra', 'apple']);
    expect(textStats('d c b a', 4).top_words).toEqual(['a', 'b', 'c', 'd']);
  });

  it('breaks ties alphabetically for the chosen language', () => {
    // German collation puts "äpfel" with the a's; code-point order would put it after "zug".
    expect(textStats('zug äpfel', 2, 'de').top_words).toEqual(['äpfel', 'zug']);
    expect(textStats('zug äpfel', 2, 'fr').top_words).toEqual(['äpfel', 'zug']);
  });

  it('returns every word when top_n is larger than the vocabulary, and none for 0', () => {
    expect(textStats('one two two', 10).top_words).toEqual(['two', 'one']);
    expect(textStats('one two two', 0).top_words).toEqual([]);
  });

  it('returns 3 top words by default', () => {
    expect(textStats('a b c d e').top_words).toEqual(['a', 'b', 'c']);
  });

  it('counts zero words in a text without letters or digits', () => {
    expect(textStats('!!! ... —')).toEqual({ word_count: 0, char_count: 9, top_words: [] });
  });

  it('refuses a top_n that is negative or not whole', () => {
    expect(() => textStats('a b', -1)).toThrow('top_n must be a whole number, 0 or more');
    expect(() => textStats('a b', 2.5)).toThrow('top_n must be a whole number, 0 or more');
  });

  it('streams one progress event per stage, then its outputs', async () => {
    const { events } = await run('text-stats', { text: 'the cat and the hat', top_n: 2 });
    expect(events).toEqual([
      { event: 'progress', progress: 1, total: 3, message: 'splitting the text into words' },
      { event: 'progress', progress: 2, total: 3, message: 'counting characters' },
      { event: 'progress', progress: 3, total: 3, message: 'ranking the words' },
      { event: 'workflow_finished', outputs: { word_count: 5, char_count: 19, top_words: ['the', 'and'] } },
    ]);
  });

  it('ends the run with an error event for a top_n the form cannot rule out', async () => {
    const { events } = await run('text-stats', { text: 'a b', top_n: -2 });
    expect(events).toEqual([{ event: 'error', message: 'top_n must be a whole number, 0 or more' }]);
  });
});

describe('FAQ Bot', () => {
  it('answers by keyword: hours, price, refund', () => {
    expect(faqAnswer('What are your opening hours?')).toBe(HOURS);
    expect(faqAnswer('What is the price?')).toBe(PRICE);
    expect(faqAnswer('Can I get a REFUND?')).toBe(REFUND);
  });

  it('matches a keyword at the start of a word: "prices" and "refunds" count, "showers" does not', () => {
    expect(faqAnswer('Your prices, please')).toBe(PRICE);
    expect(faqAnswer('Are refunds possible?')).toBe(REFUND);
    expect(faqAnswer('Do you have showers?')).toBe("I don't know that yet.");
  });

  it('gives every matching answer, in the order of the FAQ', () => {
    expect(faqAnswer('refund policy and hours?')).toBe(`${HOURS} ${REFUND}`);
  });

  it('does not know anything else', () => {
    expect(faqAnswer('Where is your office?')).toBe("I don't know that yet.");
    expect(faqAnswer('Where is your office?', 'plain')).toBe("I don't know that yet.");
  });

  it('prefixes "Happy to help! " in the friendly tone', () => {
    expect(faqAnswer('hours', 'friendly')).toBe(`Happy to help! ${HOURS}`);
    expect(faqAnswer('Where is your office?', 'friendly')).toBe("Happy to help! I don't know that yet.");
  });

  it('runs as a chat app: the question is the query, the tone an input, each run a new conversation', async () => {
    const friendly = await run('faq-bot', { tone: 'friendly' }, 'What are your hours?');
    expect(friendly).toEqual({
      result: { answer: `Happy to help! ${HOURS}`, conversationId: expect.stringMatching(UUID) },
    });
    const plain = await run('faq-bot', {}, 'price?');
    expect(plain).toEqual({ result: { answer: PRICE, conversationId: expect.stringMatching(UUID) } });
    expect(conversationOf(plain)).not.toBe(conversationOf(friendly));
  });
});

/** The conversation a run's plain result names. */
const conversationOf = (ran: { result?: AppResult }) =>
  (ran.result as { conversationId?: string } | undefined)?.conversationId;

describe('FAQ Bot conversations', () => {
  it('keeps conversations: the tool takes and returns a conversation_id', () => {
    expect(app('faq-bot').conversations).toBe(true);
  });

  it('answers a follow-up without a topic from the previous question of the same conversation', async () => {
    const first = await run('faq-bot', {}, 'What are your opening hours?');
    expect(first.result).toEqual({ answer: HOURS, conversationId: expect.stringMatching(UUID) });
    const followUp = await run('faq-bot', {}, 'and on weekends?', conversationOf(first));
    expect(followUp).toEqual({ result: { answer: HOURS, conversationId: conversationOf(first) } });
    // A question with a topic of its own changes the conversation's topic.
    const price = await run('faq-bot', { tone: 'friendly' }, 'and your prices?', conversationOf(first));
    expect(price.result).toEqual({
      answer: `Happy to help! ${PRICE}`,
      conversationId: conversationOf(first),
    });
    const again = await run('faq-bot', {}, 'for a year?', conversationOf(first));
    expect(again.result).toEqual({ answer: PRICE, conversationId: conversationOf(first) });
  });

  it('a follow-up in a new conversation has nothing to go on', async () => {
    expect((await run('faq-bot', {}, 'and on weekends?')).result).toEqual({
      answer: "I don't know that yet.",
      conversationId: expect.stringMatching(UUID),
    });
  });

  it('conversations do not mix', async () => {
    const hours = await run('faq-bot', {}, 'hours?');
    const refund = await run('faq-bot', {}, 'refund?');
    expect((await run('faq-bot', {}, 'and then?', conversationOf(hours))).result).toMatchObject({
      answer: HOURS,
    });
    expect((await run('faq-bot', {}, 'and then?', conversationOf(refund))).result).toMatchObject({
      answer: REFUND,
    });
  });

  it('an id it never issued starts a new conversation with a new id', async () => {
    const ran = await run('faq-bot', {}, 'and on weekends?', 'made-up-id');
    expect(ran.result).toEqual({
      answer: "I don't know that yet.",
      conversationId: expect.stringMatching(UUID),
    });
    expect(conversationOf(ran)).not.toBe('made-up-id');
  });

  it(`remembers at most ${FAQ_MAX_CONVERSATIONS} conversations, forgetting the least recently used`, () => {
    const oldest = faqChat('hours?', undefined, undefined).conversationId;
    const used = faqChat('price?', undefined, undefined).conversationId;
    for (let i = 0; i < FAQ_MAX_CONVERSATIONS - 2; i++) faqChat('refund?', undefined, undefined);
    // Using a conversation makes it the most recent; one more new conversation pushes out the oldest.
    expect(faqChat('and?', undefined, used)).toEqual({ answer: PRICE, conversationId: used });
    faqChat('hello', undefined, undefined);
    const forgotten = faqChat('and?', undefined, oldest);
    expect(forgotten.conversationId).not.toBe(oldest);
    expect(forgotten.answer).toBe("I don't know that yet.");
    expect(faqChat('and?', undefined, used)).toEqual({ answer: PRICE, conversationId: used });
  });
});

describe('Support Desk', () => {
  it('confirms the request, tagged with the tier', () => {
    expect(supportDeskAnswer('My printer is on fire', 'pro')).toBe(
      '[pro] We received: My printer is on fire',
    );
    expect(supportDeskAnswer('Hello', 'free')).toBe('[free] We received: Hello');
  });

  it('streams its answer as message events', async () => {
    const { events } = await run('support-desk', { customer_tier: 'free' }, 'Reset my password');
    expect(events).toEqual([
      { event: 'message', answer: '[free]' },
      { event: 'message', answer: ' We received: Reset my password' },
    ]);
  });
});

describe('Calculator Agent', () => {
  itMaps('%s = %s', calculate, [
    ['2 + 3 * 4', '14'],
    ['(2 + 3) * 4', '20'],
    ['10 - 4 - 3', '3'],
    ['8 / 4 / 2', '1'],
    ['2 * 3 / 4', '1.5'],
    ['2 * (3 + (4 - 1)) / 3', '4'],
    ['1.5 + 2.25', '3.75'],
    ['.5 * 4', '2'],
    ['10 / 4', '2.5'],
    ['1 / 3', '0.3333333333333333'],
    ['0.1 + 0.2', '0.30000000000000004'],
    ['-3 + 5', '2'],
    ['-(2 + 3)', '-5'],
    ['2 * -3', '-6'],
    ['- - 4', '4'],
    ['+7', '7'],
    ['0 * -1', '0'],
    ['  42  ', '42'],
    ['1000000 * 1000000 * 1000000 * 1000', '1e+21'],
    ['−6 ÷ 3 × 2', '-4'],
  ]);

  it.each(['1 / 0', '1 / (2 - 2)', '0 / 0', '5 / -0'])('%s is a division by zero', (expression) => {
    expect(() => calculate(expression)).toThrow(CalculationError);
    expect(() => calculate(expression)).toThrow('division by zero');
  });

  it.each([
    '',
    '   ',
    '2 +',
    '(1 + 2',
    '1 + 2)',
    '()',
    'two plus two',
    '2 ^ 3',
    '1e3',
    '3 4',
    '1..2',
    '2(3)',
    '4 * * 2',
    '3 % 2',
  ])('"%s" is an invalid expression', (expression) => {
    expect(() => calculate(expression)).toThrow(CalculationError);
    expect(() => calculate(expression)).toThrow('invalid expression');
  });

  it('streams a thought, then the answer as a message', async () => {
    const { events } = await run('calc-agent', {}, '(2 + 3) * 4.5');
    expect(events).toEqual([
      { event: 'agent_thought', thought: 'I will evaluate the expression (2 + 3) * 4.5.' },
      { event: 'agent_thought', thought: '(2 + 3) * 4.5 = 22.5' },
      { event: 'message', answer: '22.5' },
    ]);
  });

  it('streams an error event for a division by zero and for garbage', async () => {
    expect((await run('calc-agent', {}, '1/0')).events?.at(-1)).toEqual({
      event: 'error',
      message: 'division by zero',
    });
    expect((await run('calc-agent', {}, 'what is love')).events?.at(-1)).toEqual({
      event: 'error',
      message: 'invalid expression',
    });
  });
});

describe('Title Case', () => {
  itMaps('%j becomes %j', titleCase, [
    ['hello wORLD', 'Hello World'],
    ['the QUICK brown fox', 'The Quick Brown Fox'],
    ['  two   spaces ', '  Two   Spaces '],
    ["don't STOP", "Don't Stop"],
    ['(hello) "world"', '(Hello) "World"'],
    ['jean-luc PICARD', 'Jean-luc Picard'],
    ['21ST century', '21st Century'],
    ['élan ÉCOLE ñandú', 'Élan École Ñandú'],
    ['x', 'X'],
    ['', ''],
  ]);

  it('runs as a completion: the text is an input, the answer the rewritten text', async () => {
    expect(await run('title-case', { text: 'a tale OF two cities' }, '')).toEqual({
      result: { answer: 'A Tale Of Two Cities' },
    });
  });
});
