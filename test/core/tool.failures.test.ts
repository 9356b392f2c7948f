/**
 * How a `tools/call` run fails, times out and is stopped, and which result fields each protocol
 * version gets (docs/http-contract.md, "Version-gated shapes" and "Cancellation and disconnects").
 * The tool layer is called directly (no HTTP), with a real `runApp` per case.
 */
import { describe, expect, it } from 'vitest';
import { CallTimeout } from '../../src/errors/call-stopped.js';
import { AppRunError } from '../../src/errors/package-errors.js';
import type { AppEvent, AppMode, AppResult, AppRun } from '../../src/types/index.js';
import { appOf, call, failure, success, workflow } from '../helpers/tool-call.js';

describe('failures', () => {
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

describe('callTimeoutMs', () => {
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

describe("the run's signal", () => {
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

describe('result fields by protocol version', () => {
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
