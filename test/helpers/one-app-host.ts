/**
 * A host that publishes a few apps of a test's own making over a memory store, on a real port
 * (Express 5, the router mounted at the root), and records every run and every `onError` report.
 */
import type { AppResult, AppRun, HostApp, McpServerOptions } from '../../src/index.js';
import * as pkg from '../../src/index.js';
import type { ErrorContext } from '../../src/protocol/context.js';
import { type Host, hostVariants, startHost } from './hosts.js';

export interface AppsHost {
  host: Host;
  /** The server code of each app, by app id. */
  codes: Record<string, string>;
  runs: AppRun[];
  reports: { error: unknown; context: ErrorContext }[];
  close(): Promise<void>;
}

/** Every run answers with its own inputs: a workflow's outputs, or a JSON answer. */
const echo = (run: AppRun): AppResult =>
  run.app.mode === 'workflow'
    ? { outputs: { inputs: run.inputs } }
    : { answer: JSON.stringify({ query: run.query, inputs: run.inputs }) };

export async function startAppsHost(
  apps: HostApp[],
  overrides: Partial<McpServerOptions> = {},
): Promise<AppsHost> {
  const store = pkg.memoryServerStore();
  const codes: Record<string, string> = {};
  for (const app of apps) {
    const server = await store.createServer({
      tenantId: 't',
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
    });
    codes[app.id] = server.serverCode;
  }
  const runs: AppRun[] = [];
  const reports: AppsHost['reports'] = [];
  const options: McpServerOptions = {
    resolveServer: store.resolver(async (appId) => apps.find((app) => app.id === appId) ?? null),
    runApp: (run) => {
      runs.push(run);
      return echo(run);
    },
    onError: (error, context) => {
      reports.push({ error, context });
    },
    ...overrides,
  };
  const host = await startHost(hostVariants[0] as (typeof hostVariants)[0], pkg, options);
  return { host, codes, runs, reports, close: () => host.close() };
}
