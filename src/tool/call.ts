import { isAppRunError } from '../errors.js';
import type { AppRun, RunApp } from '../types.js';
import { inlineBytes } from './app-file.js';
import { fromEvents, fromPlainResult, isAsyncIterable, type Produced } from './collect.js';
import { type ContentBlock, fileBlock } from './content-blocks.js';
import { attachConversation } from './conversation.js';
import type { ToolFeatures } from './features.js';
import type { RunObserver } from './observer.js';
import { answerParts, outputParts } from './result-files.js';
import type { RunStop } from './stop.js';
import type { AppTool } from './tool.js';

export interface CallToolResult {
  content: ContentBlock[];
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

export interface CallOptions<HostRequest = unknown> {
  runApp: RunApp<HostRequest>;
  /** 0 = no limit. */
  callTimeoutMs: number;
  /**
   * Receives failures whose cause must not reach the client: `run` for the app failing, `outputs`
   * for outputs that break the app's declared output schema.
   */
  report: (error: unknown, phase?: 'run' | 'outputs') => void;
  /** Most bytes of inline files one result may carry (README, "Files in and out"); more is an error result. Default: 4 MiB. */
  maxInlineResultBytes?: number;
  /** Told of the app's progress as it streams its events, for a reply that streams. */
  observer?: RunObserver;
}

export const DEFAULT_MAX_INLINE_RESULT_BYTES = 4 * 1024 * 1024;

/** An error result never carries `structuredContent`: there is no result to describe. */
export const errorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/**
 * Runs the app once and shapes its result (README, "runApp, mode by mode"). `stop` stops the run,
 * and `run.signal` must be a getter that reads `stop.signal`, so that the app's `AbortSignal` is
 * made only if the app reads it (see `RunStop`); for that reason `run` is handed to the app as it
 * is, never spread. This adds the timeout to `stop` and stops waiting as soon as the run stops,
 * whether or not the app honours its signal.
 */
export async function runToolCall<HostRequest>(
  tool: AppTool,
  run: AppRun<HostRequest>,
  stop: RunStop,
  features: ToolFeatures,
  options: CallOptions<HostRequest>,
): Promise<CallToolResult> {
  const timeoutMs = options.callTimeoutMs;
  const timer =
    timeoutMs > 0 ? setTimeout(() => stop.stop(new CallTimeout(timeoutMs)), timeoutMs) : undefined;
  try {
    const produced = await untilStopped(produce, stop);
    const result = shape(produced, tool, features, options);
    // An app that names no conversation continues the one the client asked for.
    if (tool.conversations && produced.kind === 'answer' && !result.isError)
      attachConversation(result, produced.conversationId ?? run.conversationId);
    return result;
  } catch (error) {
    // Only a cancellation makes the result pointless; a timeout still has one to tell.
    if (stop.reason instanceof CallCancelled) options.observer?.cancelled();
    // Once stopped from outside, whatever the app throws is an echo of that stop.
    if (stop.stopped && !isAppRunError(error)) {
      const reason = stop.reason;
      return errorResult(reason instanceof CallTimeout ? reason.message : new CallCancelled().message);
    }
    if (isAppRunError(error)) return errorResult(error.message);
    options.report(error, 'run');
    return errorResult('the app failed to run');
  } finally {
    clearTimeout(timer);
  }

  // A callback on the app's promise rather than an async function: it waits as long as the run,
  // and a pending async function keeps its whole frame for that time.
  function produce(): Promise<Produced> {
    let running: ReturnType<RunApp<HostRequest>>;
    try {
      running = options.runApp(run);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(running).then((result) => {
      if (isAsyncIterable(result)) return fromEvents(run.app.mode, result, stop, options.observer);
      return fromPlainResult(run.app.mode, result);
    });
  }
}

function shape(
  produced: Produced,
  tool: AppTool,
  features: ToolFeatures,
  options: Pick<CallOptions, 'report' | 'maxInlineResultBytes'>,
): CallToolResult {
  if (produced.kind === 'error') return errorResult(produced.message);
  if (produced.kind === 'outputs' && tool.checkOutputs) {
    const problems = tool.checkOutputs(produced.outputs);
    if (problems.length > 0) {
      const message = `the app returned outputs that do not match its declared output schema: ${problems.join('; ')}`;
      options.report(new Error(message), 'outputs');
      return errorResult(message);
    }
  }
  const parts =
    produced.kind === 'outputs'
      ? outputParts(produced.outputs, tool.fileOutputs)
      : answerParts(produced.answer, produced.files);
  if ('problem' in parts) {
    const message = `the app returned a file that cannot be sent: ${parts.problem}`;
    options.report(new Error(message), 'outputs');
    return errorResult(message);
  }
  const content: ContentBlock[] = [{ type: 'text', text: parts.text }];
  if (parts.files.length > 0) {
    const bytes = parts.files.reduce((sum, file) => sum + inlineBytes(file), 0);
    const limit = options.maxInlineResultBytes ?? DEFAULT_MAX_INLINE_RESULT_BYTES;
    if (bytes > limit) {
      const message = `the app returned ${bytes} bytes of inline files, more than the ${limit} bytes one result may carry`;
      options.report(new Error(message), 'outputs');
      return errorResult(message);
    }
    for (const file of parts.files) content.push(fileBlock(file, features));
  }
  const result: CallToolResult = { content, isError: false };
  if (features.structured) result.structuredContent = parts.structured;
  return result;
}

/**
 * Settles with the work, or rejects with the stop's reason as soon as the run stops. Work whose run
 * has already stopped (a call cancelled before it ran) is not started at all.
 */
function untilStopped<T>(start: () => Promise<T>, stop: RunStop): Promise<T> {
  if (stop.stopped) return Promise.reject(stop.reason);
  const work = start();
  // Settled by hand rather than through `then(...).finally(...)`: that chain would hold two more
  // promises for as long as the run.
  return new Promise<T>((resolve, reject) => {
    const unlisten = stop.onStop(() => reject(stop.reason));
    work.then(
      (value) => {
        resolve(value);
        unlisten();
      },
      (error: unknown) => {
        reject(error);
        unlisten();
      },
    );
  });
}
