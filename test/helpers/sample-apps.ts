/**
 * One sample app of each mode (SPEC §1 `AppMode`), modelled on the example app's demo apps
 * (SPEC §8), with a deterministic `runApp` for all of them and a real host that publishes them:
 * an Express 5 app listening on 127.0.0.1 with `mcpServer()` over a memory store.
 *
 * - `workflow`: Text Stats, declares its outputs and streams `progress` then `workflow_finished`;
 * - `chat`: FAQ Bot, returns a plain `{answer}`;
 * - `advanced-chat`: Support Desk, streams `message` events;
 * - `agent-chat`: Calculator Agent, streams `agent_thought` then `message` (or an `error` event);
 * - `completion`: Title Case, returns a plain `{answer}`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AppRunError } from '../../src/errors.js';
import {
  type AppEvent,
  type AppMode,
  type AppResult,
  type AppRun,
  type ErrorContext,
  type HostApp,
  type McpServerOptions,
  mcpServer,
  type RunApp,
  type ServerRecord,
} from '../../src/index.js';
import { memoryServerStore } from '../../src/store/memory.js';
import type { ServerStore } from '../../src/store/types.js';

export const SAMPLE_TENANT = 'tenant-samples';

export const textStats: HostApp = {
  id: 'text-stats',
  name: 'Text Stats',
  mode: 'workflow',
  description: 'Word statistics for a text',
  inputForm: [
    { type: 'paragraph', variable: 'text', label: 'Text', required: true, max_length: 10000 },
    { type: 'number', variable: 'top_n', label: 'How many top words', default: 3 },
    { type: 'select', variable: 'language', label: 'Language', options: ['en', 'fr', 'de'] },
  ],
  outputs: [
    { variable: 'word_count', type: 'number', description: 'Number of words' },
    { variable: 'char_count', type: 'number', description: 'Number of characters' },
    { variable: 'top_words', type: 'array', description: 'The most frequent words' },
  ],
};

export const faqBot: HostApp = {
  id: 'faq-bot',
  name: 'FAQ Bot',
  mode: 'chat',
  description: 'Answers questions about opening hours, prices and refunds',
  inputForm: [{ type: 'select', variable: 'tone', label: 'Tone', options: ['plain', 'friendly'] }],
};

export const supportDesk: HostApp = {
  id: 'support-desk',
  name: 'Support Desk',
  mode: 'advanced-chat',
  inputForm: [
    {
      type: 'select',
      variable: 'customer_tier',
      label: 'Customer tier',
      options: ['free', 'pro'],
      required: true,
    },
  ],
};

export const calcAgent: HostApp = {
  id: 'calc-agent',
  name: 'Calculator Agent',
  mode: 'agent-chat',
  description: 'Evaluates an arithmetic expression',
  inputForm: [],
};

export const titleCase: HostApp = {
  id: 'title-case',
  name: 'Title Case',
  mode: 'completion',
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true, max_length: 200 }],
};

export const sampleApps: readonly HostApp[] = [textStats, faqBot, supportDesk, calcAgent, titleCase];

/** The sample app of a mode. */
export const sampleAppOf = (mode: AppMode): HostApp => sampleApps.find((app) => app.mode === mode)!;

/** Text Stats' statistics: words are runs of letters, digits and apostrophes, lower-cased. */
export function textStatistics(text: string, topN: number) {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []) as string[];
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  return {
    word_count: words.length,
    char_count: [...text].length,
    top_words: top.slice(0, topN).map(([word]) => word),
  };
}

const FAQ: Record<string, string> = {
  hours: 'We are open 9:00-17:00, Monday to Friday.',
  price: 'The basic plan costs 10 EUR a month.',
  refund: 'Refunds are possible within 30 days.',
};

/** FAQ Bot's answer to a question. */
export function faqAnswer(query: string, tone: unknown): string {
  const topic = Object.keys(FAQ).find((keyword) => query.toLowerCase().includes(keyword));
  const answer = topic ? FAQ[topic]! : "I don't know that yet.";
  return tone === 'friendly' ? `Happy to help! ${answer}` : answer;
}

/** Title Case's answer. */
export const toTitleCase = (text: string): string =>
  text.replace(/\p{L}[\p{L}']*/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase());

/** Calculator Agent's arithmetic: `a <op> b` with `+ - * /`; anything else is not understood. */
function calculate(expression: string): AppEvent {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*([-+*/])\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expression);
  if (!match) return { event: 'error', message: 'invalid expression' };
  const [, left, operator, right] = match;
  const a = Number(left);
  const b = Number(right);
  if (operator === '/' && b === 0) return { event: 'error', message: 'division by zero' };
  const value = operator === '+' ? a + b : operator === '-' ? a - b : operator === '*' ? a * b : a / b;
  return { event: 'message', answer: String(value) };
}

async function* textStatsEvents(run: AppRun): AsyncIterable<AppEvent> {
  yield { event: 'progress', progress: 1, total: 2, message: 'counting words' };
  const outputs = textStatistics(String(run.inputs.text), Number(run.inputs.top_n));
  yield { event: 'progress', progress: 2, total: 2, message: 'ranking words' };
  yield { event: 'workflow_finished', outputs };
}

async function* supportDeskEvents(run: AppRun): AsyncIterable<AppEvent> {
  yield { event: 'message', answer: `[${String(run.inputs.customer_tier)}] ` };
  yield { event: 'message', answer: `We received: ${run.query}` };
}

async function* calcAgentEvents(run: AppRun): AsyncIterable<AppEvent> {
  yield { event: 'agent_thought', thought: `Evaluating ${run.query}` };
  yield calculate(run.query ?? '');
}

/** Runs any sample app (SPEC §5): some stream events, some return a plain result. */
export const runSampleApp: RunApp = (run): AppResult | AsyncIterable<AppEvent> => {
  switch (run.app.id) {
    case textStats.id:
      return textStatsEvents(run);
    case faqBot.id:
      return { answer: faqAnswer(run.query ?? '', run.inputs.tone) };
    case supportDesk.id:
      return supportDeskEvents(run);
    case calcAgent.id:
      return calcAgentEvents(run);
    case titleCase.id:
      return { answer: toTitleCase(String(run.inputs.text)) };
    default:
      throw new AppRunError(`no sample app ${run.app.id}`);
  }
};

/** A server record for an app, as a store would hold it; `overrides` replace any field. */
export function serverRecordFor(app: HostApp, overrides: Partial<ServerRecord> = {}): ServerRecord {
  const at = new Date('2025-01-01T00:00:00Z');
  return {
    id: `server-${app.id}`,
    tenantId: SAMPLE_TENANT,
    appId: app.id,
    name: app.name,
    description: '',
    serverCode: 'SampleCode000000',
    status: 'active',
    parameters: {},
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

export interface SampleHost {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly store: ServerStore;
  /** The server published for each sample app, by app id. */
  readonly servers: Readonly<Record<string, ServerRecord>>;
  /** The full MCP endpoint URL of an app's server. */
  endpointOf(app: HostApp): URL;
  /** Every run `runApp` received, in order. */
  readonly runs: AppRun[];
  /** Every report the error hook received, in order. */
  readonly reports: unknown[];
  /** The context of each report, in the same order. */
  readonly reportContexts: ErrorContext[];
  close(): Promise<void>;
}

export interface SampleHostOptions {
  /** The apps to publish. Default: every sample app. */
  apps?: readonly HostApp[];
  /** Runs the apps. Default: `runSampleApp`. */
  runApp?: RunApp;
  /** More `mcpServer` options (`toolName`, `callTimeoutMs`, …). */
  options?: Omit<Partial<McpServerOptions>, 'resolveServer' | 'runApp' | 'onError'>;
  /** The store the servers are published in. Default: a new memory store. */
  store?: ServerStore;
}

/**
 * Starts a real host on 127.0.0.1 that publishes the apps, one server each, as a user's backend
 * would: `express()` + `mcpServer({ resolveServer: store.resolver(loadApp), runApp })`.
 */
export async function startSampleHost(config: SampleHostOptions = {}): Promise<SampleHost> {
  const apps = config.apps ?? sampleApps;
  const store = config.store ?? memoryServerStore();
  const runApp = config.runApp ?? runSampleApp;
  const servers: Record<string, ServerRecord> = {};
  for (const app of apps) {
    servers[app.id] = await store.createServer({
      tenantId: SAMPLE_TENANT,
      appId: app.id,
      name: app.name,
      description: app.description ?? '',
      parameters: {},
    });
  }
  const runs: AppRun[] = [];
  const reports: unknown[] = [];
  const reportContexts: ErrorContext[] = [];
  const host = express();
  host.use(
    mcpServer({
      ...config.options,
      resolveServer: store.resolver((appId, tenantId) =>
        tenantId === SAMPLE_TENANT ? (apps.find((app) => app.id === appId) ?? null) : null,
      ),
      runApp: (run) => {
        runs.push(run);
        return runApp(run);
      },
      onError: (error, context) => {
        reports.push(error);
        reportContexts.push(context);
      },
    }),
  );
  const server = http.createServer(host);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    store,
    servers,
    runs,
    reports,
    reportContexts,
    endpointOf: (app) => {
      const record = servers[app.id];
      if (!record) throw new Error(`${app.id} is not published on this host`);
      return new URL(`/mcp/server/${record.serverCode}/mcp`, url);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
