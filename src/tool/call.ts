import { AppRunError } from '../errors.js';
import type { VersionFeatures } from '../protocol/versions.js';
import type { AppRun, RunApp } from '../types.js';
import { fromEvents, fromPlainResult, isAsyncIterable, type Produced } from './collect.js';
import type { AppTool } from './tool.js';

export interface CallToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** Why a run was stopped from outside; the reason decides the text the client reads. */
export class CallTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the app did not finish within ${ms} ms`);
  }
}
export class CallCancelled extends Error {
  constructor() {
    super('the call was cancelled');
  }
}

export interface CallOptions {
  runApp: RunApp;
  /** 0 = no limit. */
  callTimeoutMs: number;
  /**
   * Receives failures whose cause must not reach the client: `run` for the app failing, `outputs`
   * for outputs that break the app's declared output schema.
   */
  report: (error: unknown, phase?: 'run' | 'outputs') => void;
}

/** An error result never carries `structuredContent` (SPEC §4.4). */
export const errorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/**
 * Runs the app once and shapes its result (SPEC §4.4). `run.signal` is the caller's; this adds the
 * timeout and stops waiting as soon as the signal fires, whether or not the app honours it.
 */
export async function runToolCall(
  tool: AppTool,
  run: Omit<AppRun, 'signal'> & { signal: AbortSignal },
  features: VersionFeatures,
  options: CallOptions,
): Promise<CallToolResult> {
  const timeout = new AbortController();
  const timer =
    options.callTimeoutMs > 0
      ? setTimeout(() => timeout.abort(new CallTimeout(options.callTimeoutMs)), options.callTimeoutMs)
      : undefined;
  const signal = timer ? AbortSignal.any([run.signal, timeout.signal]) : run.signal;
  try {
    const produced = await untilAborted(() => produce({ ...run, signal }), signal);
    return shape(produced, tool, features, options);
  } catch (error) {
    // Once stopped from outside, whatever the app throws is an echo of that stop.
    if (signal.aborted && !(error instanceof AppRunError)) {
      const reason = signal.reason;
      return errorResult(reason instanceof CallTimeout ? reason.message : new CallCancelled().message);
    }
    if (error instanceof AppRunError) return errorResult(error.message);
    options.report(error, 'run');
    return errorResult('the app failed to run');
  } finally {
    clearTimeout(timer);
  }

  async function produce(appRun: AppRun): Promise<Produced> {
    const result = await options.runApp(appRun);
    if (isAsyncIterable(result)) return fromEvents(appRun.app.mode, result, appRun.signal);
    return fromPlainResult(appRun.app.mode, result);
  }
}

function shape(
  produced: Produced,
  tool: AppTool,
  features: VersionFeatures,
  options: CallOptions,
): CallToolResult {
  if (produced.kind === 'error') return errorResult(produced.message);
  const structured = produced.kind === 'outputs' ? produced.outputs : { answer: produced.answer };
  if (produced.kind === 'outputs' && tool.checkOutputs) {
    const problems = tool.checkOutputs(produced.outputs);
    if (problems.length > 0) {
      const message = `the app returned outputs that do not match its declared output schema: ${problems.join('; ')}`;
      options.report(new Error(message), 'outputs');
      return errorResult(message);
    }
  }
  const text = produced.kind === 'outputs' ? JSON.stringify(produced.outputs) : produced.answer;
  const result: CallToolResult = { content: [{ type: 'text', text }], isError: false };
  if (features.structured) result.structuredContent = structured;
  return result;
}

/**
 * Settles with the work, or rejects with the signal's reason as soon as it fires. Work whose
 * signal has already fired (a call cancelled before it ran) is not started at all.
 */
function untilAborted<T>(start: () => Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const work = start();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
