/**
 * SPEC §4.4: what a `tools/call` result looks like for each mode, whether the app streams events or
 * returns a plain result, and how failures, timeouts and declared outputs are reported. The tool
 * layer is called directly (no HTTP), with a real `runApp` per case.
 */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { AppRunError } from '../src/errors.js';
import { featuresOf } from '../src/protocol/versions.js';
import { CallTimeout, type CallToolResult, runToolCall } from '../src/tool/call.js';
import { RunStop } from '../src/tool/stop.js';
import { createToolCache } from '../src/tool/tool.js';
import type { AppEvent, AppMode, AppResult, AppRun, DeclaredOutput, HostApp, RunApp } from '../src/types.js';
import { serverRecordFor } from './helpers/sample-apps.js';

const appOf = (mode: AppMode, outputs?: DeclaredOutput[]): HostApp => ({
  id: `${mode}-app`,
  name: `A ${mode} app`,
  mode,
  inputForm: [],
  ...(outputs ? { outputs } : {}),
});

async function* stream(...events: unknown[]): AsyncIterable<AppEvent> {
  for (const event of events) yield event as AppEvent;
}

interface Called {
  result: CallToolResult;
  /** What the error hook received. */
  reports: unknown[];
  /** The phase of each report: `run` (the app failed) or `outputs` (they broke the declared schema). */
  phases: unknown[];
  /** The runs `runApp` received. */
  runs: AppRun[];
}

/** Calls the app's tool once, as `tools/call` does after the arguments passed. */
async function call(
  app: HostApp,
  runApp: RunApp,
  { version = '2025-11-25', callTimeoutMs = 0, signal = new AbortController().signal } = {},
): Promise<Called> {
  const reports: unknown[] = [];
  const phases: unknown[] = [];
  const runs: AppRun[] = [];
  const server = serverRecordFor(app);
  const tool = createToolCache()(app, server);
  // The caller's signal stops the run, as the client closing the response or a cancel does.
  const stop = new RunStop();
  if (signal.aborted) stop.stop(signal.reason);
  else signal.addEventListener('abort', () => stop.stop(signal.reason), { once: true });
  const result = await runToolCall(
    tool,
    {
      app,
      server,
      endUser: { id: 'end-user-1', name: 'tests@1.0.0' },
      inputs: {},
      ...(app.mode === 'workflow' ? {} : { query: app.mode === 'completion' ? '' : 'question' }),
      get signal() {
        return stop.signal;
      },
      protocolVersion: version,
      request: {} as Request,
    },
    stop,
    featuresOf(version),
    {
      runApp: (run) => {
        runs.push(run);
        return runApp(run);
      },
      callTimeoutMs,
      report: (error, phase) => {
        reports.push(error);
        phases.push(phase);
      },
    },
  );
  return { result, reports, phases, runs };
}

const success = (text: string, structuredContent: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent,
  isError: false,
});
const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

const workflow = appOf('workflow');

describe('workflow results (SPEC §4.4)', () => {
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

describe('declared workflow outputs (SPEC §4.4)', () => {
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
    expect(tool.describe(featuresOf('2025-11-25'), '2025-11-25').outputSchema).toEqual({
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
    expect(tool.describe(featuresOf('2025-06-18'), '2025-06-18').outputSchema).toEqual({ type: 'object' });
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
    expect(result.content[0]?.text).toMatch(
      /^the app returned outputs that do not match .*: word_count is missing; /,
    );
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

describe.each<AppMode>(['chat', 'advanced-chat', 'completion'])('%s results (SPEC §4.4)', (mode) => {
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
    expect(tool.describe(featuresOf('2025-06-18'), '2025-06-18').outputSchema).toEqual({
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

describe('agent-chat answer assembly (SPEC §4.4)', () => {
  const agent = appOf('agent-chat');
  const answerOf = async (...events: unknown[]) => (await call(agent, () => stream(...events))).result;

  it('message answers are concatenated', async () => {
    expect(
      await answerOf(
        { event: 'agent_thought', thought: 'thinking' },
        { event: 'message', answer: '4' },
        { event: 'message', answer: '2' },
      ),
    ).toEqual(success('42', { answer: '42' }));
  });

  it('a message_replace replaces the answer so far, later messages append', async () => {
    expect(
      await answerOf(
        { event: 'message', answer: 'draft ' },
        { event: 'message', answer: 'answer' },
        { event: 'message_replace', answer: 'Final' },
        { event: 'message', answer: ' answer' },
      ),
    ).toEqual(success('Final answer', { answer: 'Final answer' }));
  });

  it('without message events, agent_message answers are concatenated', async () => {
    expect(
      await answerOf(
        { event: 'agent_thought', thought: 'ignored' },
        { event: 'agent_message', answer: 'From ' },
        { event: 'agent_message', answer: 'the agent' },
      ),
    ).toEqual(success('From the agent', { answer: 'From the agent' }));
  });

  it('message events win over agent_message events', async () => {
    expect(
      await answerOf(
        { event: 'agent_message', answer: 'agent says' },
        { event: 'message', answer: 'message says' },
      ),
    ).toEqual(success('message says', { answer: 'message says' }));
  });

  it('without any message, the agent_thought thoughts are concatenated', async () => {
    expect(
      await answerOf(
        { event: 'agent_thought', thought: 'First, ' },
        { event: 'agent_thought', thought: 'then.' },
      ),
    ).toEqual(success('First, then.', { answer: 'First, then.' }));
  });

  it('an empty stream answers ""', async () => {
    expect(await answerOf()).toEqual(success('', { answer: '' }));
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

describe('any mode may stream or return a plain result (SPEC §4.4)', () => {
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

describe('failures (SPEC §4.4)', () => {
  it.each<AppMode>(['workflow', 'chat', 'agent-chat'])(
    'a thrown AppRunError is an error result with its message (%s)',
    async (mode) => {
      const { result, reports } = await call(appOf(mode), () => {
        throw new AppRunError('the quota for this month is used up');
      });
      expect(result).toEqual(failure('the quota for this month is used up'));
      expect(reports).toEqual([]);
    },
  );

  it('an AppRunError thrown in the middle of a stream is an error result with its message', async () => {
    const { result } = await call(appOf('chat'), async function* () {
      yield { event: 'message', answer: 'partial' } as AppEvent;
      throw new AppRunError('upstream model refused');
    });
    expect(result).toEqual(failure('upstream model refused'));
  });

  it('any other throw says only "the app failed to run", and its cause goes to the hook', async () => {
    const cause = new Error('ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    const { result, reports, phases } = await call(workflow, async () => {
      throw cause;
    });
    expect(result).toEqual(failure('the app failed to run'));
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(reports).toEqual([cause]);
    expect(phases).toEqual(['run']);
  });

  it('a synchronous throw is handled the same way', async () => {
    const cause = new TypeError('cannot read properties of undefined');
    const { result, reports } = await call(appOf('completion'), () => {
      throw cause;
    });
    expect(result).toEqual(failure('the app failed to run'));
    expect(reports).toEqual([cause]);
  });

  it('a stream that fails midway is handled the same way', async () => {
    const cause = new RangeError('stream broke');
    const { result, reports } = await call(appOf('agent-chat'), async function* () {
      yield { event: 'message', answer: 'partial' } as AppEvent;
      throw cause;
    });
    expect(result).toEqual(failure('the app failed to run'));
    expect(reports).toEqual([cause]);
  });

  it('outputs that cannot be written as JSON are a failure reported to the hook', async () => {
    const outputs: Record<string, unknown> = { big: 10n };
    const { result, reports } = await call(workflow, () => ({ outputs }));
    expect(result).toEqual(failure('the app failed to run'));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeInstanceOf(TypeError);
  });
});

describe('callTimeoutMs (SPEC §4.4)', () => {
  /** A run that only ends when its signal fires; records the signal's state. */
  const waitsForSignal = (seen: { aborted?: boolean; reason?: unknown }) => (run: AppRun) =>
    new Promise<AppResult>((_, reject) => {
      run.signal.addEventListener('abort', () => {
        seen.aborted = run.signal.aborted;
        seen.reason = run.signal.reason;
        reject(new Error('aborted by the signal'));
      });
    });

  it('a run that outlives it is aborted through its signal, and the result says so', async () => {
    const seen: { aborted?: boolean; reason?: unknown } = {};
    const { result, reports } = await call(appOf('chat'), waitsForSignal(seen), { callTimeoutMs: 5 });
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    expect(seen.aborted).toBe(true);
    expect(reports).toEqual([]);
  });

  it('a run that ignores its signal still ends with the timeout result', async () => {
    let signal: AbortSignal | undefined;
    const { result } = await call(
      workflow,
      (run) => {
        signal = run.signal;
        return new Promise<AppResult>(() => {});
      },
      { callTimeoutMs: 5 },
    );
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    expect(signal?.aborted).toBe(true);
  });

  it('a stream that outlives it is stopped the same way', async () => {
    let signal: AbortSignal | undefined;
    const { result } = await call(
      appOf('agent-chat'),
      (run) => {
        signal = run.signal;
        return (async function* () {
          yield { event: 'agent_thought', thought: 'thinking' } as AppEvent;
          await new Promise((resolve) => run.signal.addEventListener('abort', resolve));
          yield { event: 'message', answer: 'too late' } as AppEvent;
        })();
      },
      { callTimeoutMs: 5 },
    );
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    expect(signal?.aborted).toBe(true);
  });

  it('a run that finishes in time is not aborted', async () => {
    let signal: AbortSignal | undefined;
    const { result } = await call(
      appOf('completion'),
      (run) => {
        signal = run.signal;
        return { answer: 'in time' };
      },
      { callTimeoutMs: 60_000 },
    );
    expect(result).toEqual(success('in time', { answer: 'in time' }));
    expect(signal?.aborted).toBe(false);
  });

  it("a caller's abort (cancellation) ends the run with a cancellation result", async () => {
    const caller = new AbortController();
    const seen: { aborted?: boolean } = {};
    const pending = call(appOf('chat'), waitsForSignal(seen), { signal: caller.signal });
    await Promise.resolve();
    caller.abort();
    expect((await pending).result).toEqual(failure('the call was cancelled'));
    expect(seen.aborted).toBe(true);
  });

  it('a call whose signal already fired does not run the app at all', async () => {
    const caller = new AbortController();
    caller.abort();
    const { result, runs } = await call(appOf('chat'), () => ({ answer: 'ran' }), { signal: caller.signal });
    expect(result).toEqual(failure('the call was cancelled'));
    expect(runs).toEqual([]);
  });
});

describe("the run's signal (SPEC §5)", () => {
  /** Counts the AbortControllers made while `work` runs. */
  async function controllersMadeBy(work: () => Promise<unknown>): Promise<number> {
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made += 1;
      }
    };
    try {
      await work();
    } finally {
      globalThis.AbortController = Original;
    }
    return made;
  }

  it('is made only when the app reads it', async () => {
    const signal = new AbortController().signal;
    const unread = await controllersMadeBy(() => call(workflow, () => ({ outputs: {} }), { signal }));
    const read = await controllersMadeBy(() =>
      call(workflow, (run) => ({ outputs: { aborted: run.signal.aborted } }), { signal }),
    );
    expect({ unread, read }).toEqual({ unread: 0, read: 1 });
  });

  it('read after the run was stopped, it is already aborted with the reason', async () => {
    const { result, runs } = await call(workflow, () => new Promise<AppResult>(() => {}), {
      callTimeoutMs: 5,
    });
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    const signal = runs[0]?.signal as AbortSignal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(CallTimeout);
    expect((signal.reason as CallTimeout).ms).toBe(5);
  });

  it('an app that spreads its run still gets a signal that aborts', async () => {
    const seen: { aborted?: boolean } = {};
    const { result } = await call(
      appOf('chat'),
      (run) => {
        const { signal } = { ...run };
        return new Promise<AppResult>((_, reject) => {
          signal.addEventListener('abort', () => {
            seen.aborted = signal.aborted;
            reject(new Error('aborted by the signal'));
          });
        });
      },
      { callTimeoutMs: 5 },
    );
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    expect(seen.aborted).toBe(true);
  });

  it('only the first stop counts: a cancel after the timeout leaves the timeout as the reason', async () => {
    const caller = new AbortController();
    const { result, runs } = await call(
      appOf('chat'),
      (run) =>
        new Promise<AppResult>((_, reject) => {
          run.signal.addEventListener('abort', () => {
            caller.abort();
            reject(new Error('aborted by the signal'));
          });
        }),
      { callTimeoutMs: 5, signal: caller.signal },
    );
    expect(result).toEqual(failure('the app did not finish within 5 ms'));
    expect(runs[0]?.signal.reason).toBeInstanceOf(CallTimeout);
  });
});

describe('result fields by protocol version (SPEC §2.1, §4.4)', () => {
  it.each(['2024-11-05', '2025-03-26'])('%s: exactly content and isError', async (version) => {
    const { result } = await call(workflow, () => ({ outputs: { a: 1 } }), { version });
    expect(result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], isError: false });
    expect(Object.keys(result)).toEqual(['content', 'isError']);
  });

  it.each(['2025-06-18', '2025-11-25', '2026-07-28'])('%s: plus structuredContent', async (version) => {
    const { result } = await call(appOf('chat'), () => ({ answer: 'hi' }), { version });
    expect(result).toEqual(success('hi', { answer: 'hi' }));
  });

  it('isError is false on success and true on failure, at every version', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
      expect((await call(workflow, () => ({ outputs: {} }), { version })).result.isError).toBe(false);
      const failed = await call(
        workflow,
        () => {
          throw new AppRunError('no');
        },
        { version },
      );
      expect(failed.result).toEqual(failure('no'));
    }
  });

  it('the run is told its protocol version', async () => {
    const { runs } = await call(workflow, () => ({ outputs: {} }), { version: '2025-06-18' });
    expect(runs.map((run) => run.protocolVersion)).toEqual(['2025-06-18']);
  });
});
