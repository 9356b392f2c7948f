/**
 * Apps that ask a person mid-run (`run.ask`), on a real Express host, and what each run saw: the
 * answer `ask` resolved with, or the error it rejected with.
 */
import express from 'express';
import { afterAll, beforeAll } from 'vitest';
import type { AppRun, AskField, HostApp, McpServerOptions, ServerStore } from '../../src/index.js';
import { mcpServer, memoryServerStore } from '../../src/index.js';
import { publishApp } from './apps.js';
import { type Host, serveApp } from './hosts.js';

const TENANT = 'tenant-asking';

/** The approval the tests ask for: a decision among labelled options and an optional comment. */
export const APPROVAL_FIELDS: AskField[] = [
  {
    select: {
      variable: 'decision',
      label: 'Decision',
      options: [
        { value: 'approve', label: 'Approve' },
        { value: 'reject', label: 'Reject' },
      ],
      required: true,
    },
  },
  { paragraph: { variable: 'comment', label: 'Comment', max_length: 200, required: false } },
];

/** Asks once (`timeoutMs` from the `timeout_ms` input when given), then answers what it got. */
export const APPROVAL_APP: HostApp = {
  id: 'approval',
  name: 'Approval',
  mode: 'workflow',
  description: 'Asks a person to approve',
  inputForm: [{ type: 'number', variable: 'timeout_ms', required: false }],
};

/** Asks twice in a row (the name, then the colour), then answers both. */
export const TWO_STEP_APP: HostApp = {
  id: 'two-step',
  name: 'Two Step',
  mode: 'workflow',
  inputForm: [],
};

export const ASKING_APPS = [APPROVAL_APP, TWO_STEP_APP];

export const APPROVAL_MESSAGE = 'Approve the expense of 420 EUR for Ana?';

/** What one run saw: its answers, or the error `ask` rejected with (`name: message`). */
export type Seen = {
  answers: unknown[];
  error?: string;
  canAsk: boolean;
  /** The `x-test-round` header of `run.request` once the first answer is in: the request being served then. */
  requestAfterAnswer?: unknown;
};

export interface AskingWorld {
  store: ServerStore;
  codes: Record<string, string>;
  /** What each run saw, in the order the runs started. */
  seen: Seen[];
  runApp(run: AppRun): Promise<{ outputs: Record<string, unknown> }>;
  options(extra?: Partial<McpServerOptions>): McpServerOptions;
}

export async function createAskingWorld(
  store: ServerStore,
  apps: HostApp[] = ASKING_APPS,
): Promise<AskingWorld> {
  const codes: Record<string, string> = {};
  for (const app of apps) {
    const server = await publishApp(store, app, { tenantId: TENANT, description: app.description ?? '' });
    codes[app.id] = server.serverCode;
  }
  const seen: Seen[] = [];
  async function runApp(run: AppRun): Promise<{ outputs: Record<string, unknown> }> {
    const record: Seen = { answers: [], canAsk: run.canAsk };
    seen.push(record);
    try {
      if (run.app.id === TWO_STEP_APP.id) {
        const name = await run.ask({
          key: 'name',
          message: 'What is your name?',
          fields: [{ 'text-input': { variable: 'name', label: 'Name', required: true } }],
        });
        record.answers.push(name);
        const colour = await run.ask({
          key: 'colour',
          message: 'Which colour?',
          fields: [{ 'text-input': { variable: 'colour', required: true } }],
        });
        record.answers.push(colour);
        return { outputs: { name, colour } };
      }
      const timeoutMs = run.inputs.timeout_ms as number | undefined;
      const answer = await run.ask({
        key: 'approval',
        message: APPROVAL_MESSAGE,
        fields: APPROVAL_FIELDS,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      record.answers.push(answer);
      const request = run.request as { headers?: Record<string, unknown> } | undefined;
      record.requestAfterAnswer = request?.headers?.['x-test-round'] ?? null;
      return { outputs: { answer } };
    } catch (error) {
      record.error = `${(error as Error).name}: ${(error as Error).message}`;
      throw error;
    }
  }
  const loadApp = (appId: string) => apps.find((app) => app.id === appId) ?? null;
  return {
    store,
    codes,
    seen,
    runApp,
    options: (extra = {}) => ({
      resolveServer: store.resolver(loadApp),
      runApp,
      onError: () => {},
      ...extra,
    }),
  };
}

/** Express 5, the router mounted at the root, on a real port. */
export function startAskingHost(world: AskingWorld, extra?: Partial<McpServerOptions>): Promise<Host> {
  const app = express();
  app.use(mcpServer(world.options(extra)));
  return serveApp(app, { name: 'Express 5', major: 5, globalJson: false });
}

/** The requested schema of the approval, as MCP 2025-11-25 words it. */
export const APPROVAL_SCHEMA = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      oneOf: [
        { const: 'approve', title: 'Approve' },
        { const: 'reject', title: 'Reject' },
      ],
      title: 'Decision',
    },
    comment: { type: 'string', maxLength: 200, title: 'Comment' },
  },
  required: ['decision'],
};

/** The content of the isError result a call gets when its app asks and its client cannot be asked. */
export const CANNOT_ASK_CONTENT = [
  {
    type: 'text',
    text: "the app needs a person's answer, and this client cannot ask one (it did not declare the elicitation capability)",
  },
];

/**
 * The asking world in a memory store and its host, heartbeats off, for the whole file: started
 * before its tests, closed after them. Read `world` and `host` from the tests.
 */
export function askingSuite(): { world: AskingWorld; host: Host } {
  const suite = {} as { world: AskingWorld; host: Host };
  beforeAll(async () => {
    suite.world = await createAskingWorld(memoryServerStore());
    suite.host = await startAskingHost(suite.world, { heartbeatMs: 0 });
  });
  afterAll(async () => {
    await suite.host?.close();
  });
  return suite;
}

/** Waits until `check` holds, polling; for what happens on the server after a reply. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (check()) return;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`never happened: ${what}`);
}
