/**
 * A `tools/call` run through the tool layer directly (no HTTP), with a real `runApp` per case: the
 * call as `tools/call` makes it once the arguments passed, and what came out of it.
 */
import type { Request } from 'express';
import { type CallToolResult, DEFAULT_MAX_INLINE_RESULT_BYTES } from '../../src/tool/call.js';
import { createToolRuns } from '../../src/tool/runs.js';
import { createToolCache } from '../../src/tool/tool.js';
import type { AppEvent, AppMode, AppRun, DeclaredOutput, HostApp, RunApp } from '../../src/types/index.js';
import { featuresOf } from '../../src/versions.js';
import { serverRecordFor } from './apps.js';

export const appOf = (mode: AppMode, outputs?: DeclaredOutput[]): HostApp => ({
  id: `${mode}-app`,
  name: `A ${mode} app`,
  mode,
  inputForm: [],
  ...(outputs ? { outputs } : {}),
});

export async function* stream(...events: unknown[]): AsyncIterable<AppEvent> {
  for (const event of events) yield event as AppEvent;
}

export interface Called {
  result: CallToolResult;
  /** What the error hook received. */
  reports: unknown[];
  /** The phase of each report: `run` (the app failed) or `outputs` (they broke the declared schema). */
  phases: unknown[];
  /** The runs `runApp` received. */
  runs: AppRun[];
}

/** Calls the app's tool once, as `tools/call` does after the arguments passed. */
export async function call(
  app: HostApp,
  runApp: RunApp,
  {
    version = '2025-11-25',
    callTimeoutMs = 0,
    signal = new AbortController().signal,
    maxResultBytes,
  }: { version?: string; callTimeoutMs?: number; signal?: AbortSignal; maxResultBytes?: number } = {},
): Promise<Called> {
  const reports: unknown[] = [];
  const phases: unknown[] = [];
  const runs: AppRun[] = [];
  const server = serverRecordFor(app);
  const tool = createToolCache()(app, server);
  const toolRuns = createToolRuns({
    runApp: (run) => {
      runs.push(run);
      return runApp(run);
    },
    callTimeoutMs,
    maxInlineResultBytes: DEFAULT_MAX_INLINE_RESULT_BYTES,
    ...(maxResultBytes === undefined ? {} : { maxResultBytes }),
    report: (error, phase) => {
      reports.push(error);
      phases.push(phase);
    },
  });
  // A run that never asks ends with its tool result.
  const result = (await toolRuns.start({
    id: 1,
    tool,
    features: featuresOf(version),
    app,
    server,
    endUser: { id: 'end-user-1', name: 'tests@1.0.0' },
    caller: { kind: 'code' },
    inputs: {},
    ...(app.mode === 'workflow' ? {} : { query: app.mode === 'completion' ? '' : 'question' }),
    protocolVersion: version,
    request: {} as Request,
    // The caller's signal stops the run, as the client closing the response does.
    onClosed: (listener) => {
      if (signal.aborted) listener();
      else signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  })) as CallToolResult;
  return { result, reports, phases, runs };
}

export const success = (text: string, structuredContent: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent,
  isError: false,
});
export const failure = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

export const workflow = appOf('workflow');
