/**
 * The package's framework adapters as a user imports them: through the `exports` map of the built
 * package (`express-app-mcp/ai-sdk`, `express-app-mcp/langgraph`), which needs `dist/`. Each test
 * file that imports them builds it first, once, as `npm start` does; the build replaces each file
 * atomically, so a build running at the same time elsewhere is harmless.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as AiSdk from '../../src/adapters/ai-sdk.js';
import type * as LangGraph from '../../src/adapters/langgraph.js';
import type { AppEvent, AppRun, HostApp, RunApp } from '../../src/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD_TIMEOUT_MS = 180_000;

let built: Promise<unknown> | undefined;

/** Builds `dist/` from the current sources, once per test file. */
export function buildPackage(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT });
  return built;
}

/** Imports a specifier the way the built package resolves it; a variable, so the types come from `src/`. */
async function importBuilt<T>(specifier: string): Promise<T> {
  await buildPackage();
  return (await import(specifier)) as T;
}

export const importAiSdkAdapter = () => importBuilt<typeof AiSdk>('express-app-mcp/ai-sdk');
export const importLangGraphAdapter = () => importBuilt<typeof LangGraph>('express-app-mcp/langgraph');

/** The official MCP client, connected over Streamable HTTP. */
export async function connectClient(url: URL, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'adapter-tests', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** What a person answers `run.ask`: the values of an accepted form, or a refusal. */
export type Answer =
  | { action: 'accept'; values: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * Runs an adapter's app once, directly, with a run (of `app`, with `fields`) whose person answers
 * `answer`: the events the app yields and the questions it asked.
 */
export async function runAsking(
  runner: RunApp,
  app: HostApp,
  fields: Partial<Pick<AppRun, 'inputs' | 'query'>>,
  answer: Answer,
) {
  const asked: unknown[] = [];
  const run = {
    app,
    inputs: {},
    ...fields,
    signal: new AbortController().signal,
    canAsk: true,
    ask: async (question: unknown) => {
      asked.push(question);
      return answer;
    },
  } as unknown as AppRun;
  const events: AppEvent[] = [];
  for await (const event of (await runner(run)) as AsyncIterable<AppEvent>) events.push(event);
  return { events, asked };
}
