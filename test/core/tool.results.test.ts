/**
 * What a `tools/call` result looks like for each mode, whether the app streams events or returns a
 * plain result, and how declared outputs are checked (README, "runApp, mode by mode"). The tool
 * layer is called directly (no HTTP), with a real `runApp` per case.
 */
import { describe, expect, it } from 'vitest';
import { createToolCache } from '../../src/tool/tool.js';
import type { AppEvent, AppMode, AppResult } from '../../src/types/index.js';
import { featuresOf } from '../../src/versions.js';
import { serverRecordFor } from '../helpers/apps.js';
import { appOf, call, failure, stream, success, workflow } from '../helpers/tool-call.js';

describe('workflow results', () => {
  it('a plain {outputs}: the text is compact JSON, structuredContent the outputs', async () => {
    const outputs = { word_count: 3, top_words: ['a', 'b'], nested: { ok: true, note: 'x y' } };
    const { result, reports } = await call(workflow, () => ({ outputs }));
    expect(result).toEqual(
      success('{"word_count":3,"top_words":["a","b"],"nested":{"ok":true,"note":"x y"}}', outputs),
    );
    expect(reports).toEqual([]);
  });

  it('a stream ending in workflow_finished gives the same result', async () => {
    const { result } = await call(workflow, () =>
      stream(
        { event: 'progress', progress: 1, total: 2 },
        { event: 'progress', progress: 2, total: 2 },
        { event: 'workflow_finished', outputs: { total: 42 } },
      ),
    );
    expect(result).toEqual(success('{"total":42}', { total: 42 }));
  });

  it('an async runApp returning a promise of the stream works too', async () => {
    const { result } = await call(workflow, async () =>
      stream({ event: 'workflow_finished', outputs: { a: 1 } }),
    );
    expect(result).toEqual(success('{"a":1}', { a: 1 }));
  });

  it.each([
    ['null outputs', { outputs: null }],
    ['missing outputs', {}],
    ['outputs that are an array', { outputs: [1, 2] }],
  ])('%s become {}', async (_, plain) => {
    const { result } = await call(workflow, () => plain as AppResult);
    expect(result).toEqual(success('{}', {}));
  });

  it('a stream without workflow_finished gives {}', async () => {
    const { result } = await call(workflow, () => stream({ event: 'progress', progress: 1 }));
    expect(result).toEqual(success('{}', {}));
  });

  it('workflow_finished with null outputs gives {}', async () => {
    const { result } = await call(workflow, () => stream({ event: 'workflow_finished', outputs: null }));
    expect(result).toEqual(success('{}', {}));
  });

  it('the last workflow_finished wins', async () => {
    const { result } = await call(workflow, () =>
      stream(
        { event: 'workflow_finished', outputs: { a: 1 } },
        { event: 'workflow_finished', outputs: { b: 2 } },
      ),
    );
    expect(result).toEqual(success('{"b":2}', { b: 2 }));
  });
});

describe('declared workflow outputs', () => {
  const declared = appOf('workflow', [
    { variable: 'word_count', type: 'number', description: 'Number of words' },
    { variable: 'summary', type: 'string' },
    { variable: 'ok', type: 'boolean' },
    { variable: 'meta', type: 'object' },
    { variable: 'top_words', type: 'array' },
  ]);
  const good = { word_count: 2, summary: 'two words', ok: true, meta: { lang: 'en' }, top_words: ['a'] };

  it('the outputSchema lists the declared outputs, all required', () => {
    const tool = createToolCache()(declared, serverRecordFor(declared));
    expect(tool.describe(featuresOf('2025-11-25')).outputSchema).toEqual({
      type: 'object',
      properties: {
        word_count: { type: 'number', description: 'Number of words' },
        summary: { type: 'string' },
        ok: { type: 'boolean' },
        meta: { type: 'object' },
        top_words: { type: 'array' },
      },
      required: ['word_count', 'summary', 'ok', 'meta', 'top_words'],
    });
  });

  it('without declared outputs the outputSchema is a plain object', () => {
    const tool = createToolCache()(workflow, serverRecordFor(workflow));
    expect(tool.describe(featuresOf('2025-06-18')).outputSchema).toEqual({ type: 'object' });
  });

  it('outputs that match are returned as they are, extra outputs included', async () => {
    const outputs = { ...good, extra: 'kept' };
    const { result, reports } = await call(declared, () => ({ outputs }));
    expect(result).toEqual(success(JSON.stringify(outputs), outputs));
    expect(reports).toEqual([]);
  });

  it('outputs that do not match are an error result naming every problem, reported to the hook', async () => {
    const { result, reports, phases } = await call(declared, () => ({
      outputs: { word_count: '2', ok: 'yes', meta: [1], top_words: { a: 1 } },
    }));
    const text =
      'the app returned outputs that do not match its declared output schema: ' +
      'word_count must be a number; summary is missing; ok must be a boolean; meta must be an object; ' +
      'top_words must be an array';
    expect(result).toEqual(failure(text));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeInstanceOf(Error);
    expect((reports[0] as Error).message).toBe(text);
    expect(phases).toEqual(['outputs']);
  });

  it('null outputs of an app that declares outputs do not match', async () => {
    const { result, reports } = await call(declared, () => ({ outputs: null }));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^the app returned outputs that do not match .*: word_count is missing; /,
        ),
      },
    ]);
    expect(reports).toHaveLength(1);
  });

  it('streamed outputs are checked the same way', async () => {
    const { result } = await call(declared, () =>
      stream({ event: 'workflow_finished', outputs: { ...good, summary: null } }),
    );
    expect(result).toEqual(
      failure(
        'the app returned outputs that do not match its declared output schema: summary must be a string',
      ),
    );
  });

  it('outputs are checked before 2025-06-18 too, where the client sees only the text', async () => {
    const { result } = await call(declared, () => ({ outputs: {} }), { version: '2024-11-05' });
    expect(result.isError).toBe(true);
    expect(Object.keys(result)).toEqual(['content', 'isError']);
  });
});

describe.each<AppMode>(['chat', 'advanced-chat', 'completion'])('%s results', (mode) => {
  const app = appOf(mode);

  it('a plain {answer}: the text is the answer, structuredContent {answer}', async () => {
    const { result } = await call(app, () => ({ answer: 'Hello there' }));
    expect(result).toEqual(success('Hello there', { answer: 'Hello there' }));
  });

  it('a stream of message events is concatenated', async () => {
    const { result } = await call(app, () =>
      stream({ event: 'message', answer: 'Hel' }, { event: 'message', answer: 'lo' }),
    );
    expect(result).toEqual(success('Hello', { answer: 'Hello' }));
  });

  it('the outputSchema requires a string answer', () => {
    const tool = createToolCache()(app, serverRecordFor(app));
    expect(tool.describe(featuresOf('2025-06-18')).outputSchema).toEqual({
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
    });
  });

  it('an answer that is not a string becomes ""', async () => {
    const { result } = await call(app, () => ({ answer: 42 }) as unknown as AppResult);
    expect(result).toEqual(success('', { answer: '' }));
  });
});

describe('agent-chat answer assembly', () => {
  const agent = appOf('agent-chat');
  const answerOf = async (...events: unknown[]) => (await call(agent, () => stream(...events))).result;
  /** The result of a run that answered `text`. */
  const answered = (text: string) => success(text, { answer: text });
  const thought = (text: string) => ({ event: 'agent_thought', thought: text });
  const message = (text: string) => ({ event: 'message', answer: text });
  const agentMessage = (text: string) => ({ event: 'agent_message', answer: text });
  const replace = (text: string) => ({ event: 'message_replace', answer: text });

  it('message answers are concatenated', async () => {
    expect(await answerOf(thought('thinking'), message('4'), message('2'))).toEqual(answered('42'));
  });

  it('a message_replace replaces the answer so far, later messages append', async () => {
    expect(
      await answerOf(message('draft '), message('answer'), replace('Final'), message(' answer')),
    ).toEqual(answered('Final answer'));
  });

  it('without message events, agent_message answers are concatenated', async () => {
    expect(await answerOf(thought('ignored'), agentMessage('From '), agentMessage('the agent'))).toEqual(
      answered('From the agent'),
    );
  });

  it('message events win over agent_message events', async () => {
    expect(await answerOf(agentMessage('agent says'), message('message says'))).toEqual(
      answered('message says'),
    );
  });

  it('without any message, the agent_thought thoughts are concatenated', async () => {
    expect(await answerOf(thought('First, '), thought('then.'))).toEqual(answered('First, then.'));
  });

  it('an empty stream answers ""', async () => {
    expect(await answerOf()).toEqual(answered(''));
  });

  it('an error event ends the run as an error result with its message and no structuredContent', async () => {
    let after = false;
    const { result } = await call(agent, async function* () {
      yield { event: 'message', answer: 'partial' } as AppEvent;
      yield { event: 'error', message: 'division by zero' } as AppEvent;
      after = true;
      yield { event: 'message', answer: 'never read' } as AppEvent;
    });
    expect(result).toEqual(failure('division by zero'));
    expect(after).toBe(false);
  });

  it('an error event without a message still says something', async () => {
    expect(await answerOf({ event: 'error' })).toEqual(failure('the app reported an error'));
  });

  it('unknown events are ignored', async () => {
    expect(
      await answerOf(
        { event: 'tts_message', audio: 'AAAA' },
        { event: 'message_file', url: 'x' },
        null,
        'not an event',
        { event: 'message', answer: 'kept' },
        { event: 'message_end', metadata: {} },
      ),
    ).toEqual(success('kept', { answer: 'kept' }));
  });

  it('a plain {answer} return is accepted too', async () => {
    const { result } = await call(agent, () => ({ answer: '7' }));
    expect(result).toEqual(success('7', { answer: '7' }));
  });
});

describe('any mode may stream or return a plain result', () => {
  it.each<AppMode>(['chat', 'advanced-chat', 'completion'])(
    'a %s app may stream agent events',
    async (mode) => {
      const { result } = await call(appOf(mode), () =>
        stream({ event: 'agent_message', answer: 'streamed' }),
      );
      expect(result).toEqual(success('streamed', { answer: 'streamed' }));
    },
  );

  it('an error event ends a workflow stream too', async () => {
    const { result } = await call(workflow, () =>
      stream({ event: 'error', message: 'node 3 failed' }, { event: 'workflow_finished', outputs: { a: 1 } }),
    );
    expect(result).toEqual(failure('node 3 failed'));
  });
});

describe("the usage a run reports (message_end's metadata.usage)", () => {
  const usage = { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 };

  it("becomes the result's _meta.usage, in a chat answer and in a workflow's outputs", async () => {
    const chat = await call(appOf('chat'), () =>
      stream({ event: 'message', answer: 'Hi' }, { event: 'message_end', metadata: { usage, other: 1 } }),
    );
    expect(chat.result).toEqual({ ...success('Hi', { answer: 'Hi' }), _meta: { usage } });
    const outputs = await call(workflow, () =>
      stream(
        { event: 'workflow_finished', outputs: { a: 1 } },
        { event: 'message_end', metadata: { usage } },
      ),
    );
    expect(outputs.result).toEqual({ ...success('{"a":1}', { a: 1 }), _meta: { usage } });
  });

  it('the last message_end that names a usage wins; a usage that is no object is none', async () => {
    const { result } = await call(appOf('chat'), () =>
      stream(
        { event: 'message_end', metadata: { usage: { total_tokens: 1 } } },
        { event: 'message', answer: 'Hi' },
        { event: 'message_end', metadata: { usage } },
        { event: 'message_end', metadata: { usage: 42 } },
        { event: 'message_end' },
      ),
    );
    expect(result).toEqual({ ...success('Hi', { answer: 'Hi' }), _meta: { usage } });
    expect(
      (await call(appOf('chat'), () => stream({ event: 'message_end', metadata: { usage: [1] } }))).result,
    ).toEqual(success('', { answer: '' }));
  });

  it('an error result carries no usage', async () => {
    const { result } = await call(appOf('chat'), () =>
      stream({ event: 'message_end', metadata: { usage } }, { event: 'error', message: 'it broke' }),
    );
    expect(result).toEqual(failure('it broke'));
  });
});
