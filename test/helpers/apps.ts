/**
 * The apps every suite uses, one definition per id:
 * - the example's own demo apps, one per mode, with the example's `runApp`, and a real host that
 *   publishes them (`startDemoHost`), for the suites that follow a mode end to end;
 * - a world of servers for the protocol suites: one published server per situation of
 *   docs/http-contract.md (active, inactive, app gone, app unavailable, a failing resolver, a
 *   failing store), a `runApp` that records every run, and an `onError` hook that records every report;
 * - the apps of the files suites (README, "Files in and out"): a workflow with file inputs, one that
 *   declares file outputs and a chat app, whose results each test sets (`createFileWorld`).
 */
import { DEMO_APPS, TENANT_ID as DEMO_TENANT, runApp as runDemoApp } from '../../example-app/apps.js';
import type {
  AppResult,
  AppRun,
  EndUser,
  HostApp,
  McpServerOptions,
  ResolveServer,
  RunApp,
  ServerRecord,
} from '../../src/index.js';
import * as pkg from '../../src/index.js';
import type { ErrorContext } from '../../src/protocol/report.js';
import type { NewServer, ServerStore } from '../../src/store/types.js';
import { type Host, hostVariants, startHost } from './hosts.js';

// --- the example's demo apps -----------------------------------------------------------------------

const demoApp = (id: string): HostApp => {
  const app = DEMO_APPS.find((candidate) => candidate.id === id);
  if (!app) throw new Error(`the example has no demo app ${id}`);
  return app;
};

export const textStats = demoApp('text-stats');
export const faqBot = demoApp('faq-bot');
export const supportDesk = demoApp('support-desk');
export const calcAgent = demoApp('calc-agent');
export const titleCase = demoApp('title-case');
export const demoApps: readonly HostApp[] = DEMO_APPS;

/** Publishes `app` in `store` for tenant `t`, with no description or parameters; `fields` replace any. */
export const publishApp = (store: ServerStore, app: HostApp, fields: Partial<NewServer> = {}) =>
  store.createServer({
    tenantId: 't',
    appId: app.id,
    name: app.name,
    description: '',
    parameters: {},
    ...fields,
  });

/** A server record for an app, as a store would hold it; `overrides` replace any field. */
export function serverRecordFor(app: HostApp, overrides: Partial<ServerRecord> = {}): ServerRecord {
  const at = new Date('2025-01-01T00:00:00Z');
  return {
    id: `server-${app.id}`,
    tenantId: DEMO_TENANT,
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

export interface DemoHost {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The host itself, to send any request to. */
  readonly host: Host;
  readonly store: ServerStore;
  /** The server published for each app, by app id. */
  readonly servers: Readonly<Record<string, ServerRecord>>;
  /** The server code of each app, by app id. */
  readonly codes: Readonly<Record<string, string>>;
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

export interface DemoHostOptions {
  /** The apps to publish. Default: every demo app. */
  apps?: readonly HostApp[];
  /** Runs the apps. Default: the example's `runApp`. */
  runApp?: RunApp;
  /** More `mcpServer` options (`toolName`, `callTimeoutMs`, …). */
  options?: Omit<Partial<McpServerOptions>, 'resolveServer' | 'runApp' | 'onError'>;
  /** The store the servers are published in. Default: a new memory store. */
  store?: ServerStore;
}

/**
 * Starts a real Express 5 host on 127.0.0.1 that publishes the apps, one server each, as a user's
 * backend would: `mcpServer({ resolveServer: store.resolver(loadApp), runApp })`.
 */
export async function startDemoHost(config: DemoHostOptions = {}): Promise<DemoHost> {
  const apps = config.apps ?? demoApps;
  const store = config.store ?? pkg.memoryServerStore();
  const runApp = config.runApp ?? runDemoApp;
  const servers: Record<string, ServerRecord> = {};
  for (const app of apps) {
    servers[app.id] = await store.createServer({
      tenantId: DEMO_TENANT,
      appId: app.id,
      name: app.name,
      description: app.description ?? '',
      parameters: {},
    });
  }
  const runs: AppRun[] = [];
  const reports: unknown[] = [];
  const reportContexts: ErrorContext[] = [];
  const host = await startHost(hostVariants[0]!, pkg, {
    ...config.options,
    resolveServer: store.resolver((appId, tenantId) =>
      tenantId === DEMO_TENANT ? (apps.find((app) => app.id === appId) ?? null) : null,
    ),
    runApp: (run) => {
      runs.push(run);
      return runApp(run);
    },
    onError: (error, context) => {
      reports.push(error);
      reportContexts.push(context);
    },
  });
  return {
    url: host.url,
    host,
    store,
    servers,
    codes: Object.fromEntries(Object.entries(servers).map(([appId, server]) => [appId, server.serverCode])),
    runs,
    reports,
    reportContexts,
    endpointOf: (app) => {
      const record = servers[app.id];
      if (!record) throw new Error(`${app.id} is not published on this host`);
      return new URL(host.path(record.serverCode), host.url);
    },
    close: () => host.close(),
  };
}

/** Every run answers with its own inputs: a workflow's outputs, or a JSON answer. */
const echoInputs = (run: AppRun): AppResult =>
  run.app.mode === 'workflow'
    ? { outputs: { inputs: run.inputs } }
    : { answer: JSON.stringify({ query: run.query, inputs: run.inputs }) };

/** A workflow app with one required text variable, for a world that publishes several alike. */
export const textWorkflow = (id: string, name: string): HostApp => ({
  id,
  name,
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'text', required: true }],
});

/** A completion app with one required text variable: with `startEchoHost`, a tool that echoes its text. */
export const ECHO_APP: HostApp = {
  id: 'echo',
  name: 'Echo',
  mode: 'completion',
  inputForm: [{ type: 'text-input', variable: 'text', required: true }],
};

/** A host that publishes a test's own apps, each run answering with its own inputs. */
export const startEchoHost = (
  apps: readonly HostApp[],
  options: DemoHostOptions['options'] = {},
): Promise<DemoHost> => startDemoHost({ apps, runApp: echoInputs, options });

// --- the world of the protocol suites --------------------------------------------------------------

export const TENANT = 'tenant-demo';

/** A workflow that declares its outputs and has an https icon. */
export const TEXT_STATS: HostApp = {
  id: 'text-stats-with-icon',
  name: 'Text Stats',
  mode: 'workflow',
  description: 'Counts the words of a text',
  inputForm: [
    { type: 'paragraph', variable: 'text', label: 'Text', required: true, max_length: 1000 },
    { type: 'number', variable: 'top_n', label: 'How many top words', default: 3 },
  ],
  outputs: [
    { variable: 'word_count', type: 'number', description: 'Number of words' },
    { variable: 'top_words', type: 'array' },
  ],
  icon: 'https://example.com/text-stats.png',
};

/** A chat app with an icon that is not https (so never shown as `icons`). */
export const FAQ_BOT: HostApp = {
  id: 'faq-bot-with-http-icon',
  name: 'FAQ Bot!',
  mode: 'chat',
  description: 'Answers questions',
  inputForm: [{ type: 'select', variable: 'tone', label: 'Tone', options: ['plain', 'friendly'] }],
  icon: 'http://example.com/faq.png',
};

/** A completion app whose runs wait for the test to release them, or for their signal. */
export const SLOW_APP: HostApp = {
  id: 'slow',
  name: 'Slow',
  mode: 'completion',
  inputForm: [],
};

export const UNAVAILABLE_APP: HostApp = {
  id: 'unavailable',
  name: 'Under Maintenance',
  mode: 'workflow',
  inputForm: [],
  available: false,
};

/** Served by the server whose store fails (see `storeFails`). */
const STORE_FAILS_APP: HostApp = { id: 'store-fails', name: 'Store Fails', mode: 'chat', inputForm: [] };

const APPS = [TEXT_STATS, FAQ_BOT, SLOW_APP, UNAVAILABLE_APP, STORE_FAILS_APP];

/** Server descriptions, shown as `instructions` and tool descriptions. */
export const DESCRIPTIONS = {
  textStats: 'Word statistics for any text',
  faqBot: '',
} as const;

/** Codes no store knows that make the resolver fail; well-formed so only the failure explains the reply. */
export const RESOLVER_FAILS_CODE = 'ResolverFails000';
export const RESOLVER_FAILURE = new Error(`database is down while looking up ${RESOLVER_FAILS_CODE}`);
export const STORE_FAILURE = new Error('end_users insert failed: connection reset');

/** The Text Stats server's tool as each protocol revision lists it. */
export const TEXT_STATS_TOOL = (() => {
  const basic = {
    name: 'Text_Stats',
    description: DESCRIPTIONS.textStats,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', maxLength: 1000, description: 'The text to analyse' },
        top_n: { type: 'number', description: 'How many top words', default: 3 },
      },
      required: ['text'],
    },
  };
  const structured = {
    ...basic,
    title: 'Text Stats',
    outputSchema: {
      type: 'object',
      properties: {
        word_count: { type: 'number', description: 'Number of words' },
        top_words: { type: 'array' },
      },
      required: ['word_count', 'top_words'],
    },
  };
  // MCP 2025-11-25 brought icons and `execution.taskSupport` together.
  const withIcons = {
    ...structured,
    icons: [{ src: TEXT_STATS.icon }],
    execution: { taskSupport: 'optional' },
  };
  return { basic, structured, withIcons };
})();

/** A code that looks like one but belongs to nobody. */
export const UNKNOWN_CODE = 'Unknown000000000';

/** One slow run in progress: what it received, and how to let it finish. */
export interface SlowRun {
  run: AppRun;
  /** Lets the run finish with this answer; returns whether its signal had fired by then. */
  release(answer: string): boolean;
}

export interface World {
  store: ServerStore;
  codes: {
    textStats: string;
    faqBot: string;
    slow: string;
    inactive: string;
    appGone: string;
    unavailable: string;
    /** An active server whose store fails when its end user is needed. */
    storeFails: string;
  };
  servers: { textStats: ServerRecord; faqBot: ServerRecord; slow: ServerRecord; storeFails: ServerRecord };
  /** Every run `runApp` received, in order. */
  runs: AppRun[];
  /** Every report the `onError` hook received, in order. */
  reports: { error: unknown; context: ErrorContext }[];
  /** Waits for the next run of the slow app. */
  nextSlowRun(): Promise<SlowRun>;
  /** `mcpServer` options for this world; `overrides` replace any of them. */
  options(overrides?: Partial<McpServerOptions>): McpServerOptions;
}

/** The world's apps, for a resolver: those of its tenant, by id. */
export const loadWorldApp = (appId: string, tenantId: string) =>
  tenantId === TENANT ? (APPS.find((app) => app.id === appId) ?? null) : null;

/** Publishes one server per situation in `store` and returns the world around them. */
export async function createWorld(store: ServerStore): Promise<World> {
  const publish = (appId: string, name: string, description: string, parameters = {}) =>
    store.createServer({ tenantId: TENANT, appId, name, description, parameters });

  const textStats = await publish(TEXT_STATS.id, TEXT_STATS.name, DESCRIPTIONS.textStats, {
    text: 'The text to analyse',
  });
  const faqBot = await publish(FAQ_BOT.id, FAQ_BOT.name, DESCRIPTIONS.faqBot);
  const slow = await publish(SLOW_APP.id, SLOW_APP.name, 'Takes its time');
  const inactive = await publish('inactive-app', 'Retired', 'No longer served');
  await store.deactivateServer(inactive.id);
  const appGone = await publish('deleted-app', 'Deleted', 'Its app was deleted');
  const unavailable = await publish(UNAVAILABLE_APP.id, UNAVAILABLE_APP.name, 'Down for now');
  const storeFails = await publish(STORE_FAILS_APP.id, STORE_FAILS_APP.name, 'Its end user cannot be stored');

  const storeResolver = store.resolver(loadWorldApp);
  const resolveServer: ResolveServer = async (serverCode, req) => {
    if (serverCode === RESOLVER_FAILS_CODE) throw RESOLVER_FAILURE;
    const resolved = await storeResolver(serverCode, req);
    if (resolved && serverCode === storeFails.serverCode) {
      return {
        ...resolved,
        endUser: async (_name: string): Promise<EndUser> => {
          throw STORE_FAILURE;
        },
      };
    }
    return resolved;
  };

  const runs: AppRun[] = [];
  const reports: World['reports'] = [];
  const slowRuns: SlowRun[] = [];
  const slowWaiters: ((run: SlowRun) => void)[] = [];

  const runApp = (run: AppRun): Promise<AppResult> | AppResult => {
    runs.push(run);
    switch (run.app.id) {
      case TEXT_STATS.id: {
        const words = String(run.inputs.text).split(/\s+/).filter(Boolean);
        return { outputs: { word_count: words.length, top_words: words.slice(0, Number(run.inputs.top_n)) } };
      }
      case FAQ_BOT.id:
        return { answer: `You asked: ${run.query}` };
      case SLOW_APP.id:
        return new Promise<AppResult>((resolve) => {
          const slowRun: SlowRun = {
            run,
            release: (answer) => {
              resolve({ answer });
              return run.signal.aborted;
            },
          };
          // Like a real app: stop as soon as the signal says so.
          run.signal.addEventListener('abort', () => resolve({ answer: 'stopped' }), { once: true });
          const waiter = slowWaiters.shift();
          if (waiter) waiter(slowRun);
          else slowRuns.push(slowRun);
        });
      default:
        throw new Error(`no such app in this world: ${run.app.id}`);
    }
  };

  return {
    store,
    codes: {
      textStats: textStats.serverCode,
      faqBot: faqBot.serverCode,
      slow: slow.serverCode,
      inactive: inactive.serverCode,
      appGone: appGone.serverCode,
      unavailable: unavailable.serverCode,
      storeFails: storeFails.serverCode,
    },
    servers: { textStats, faqBot, slow, storeFails },
    runs,
    reports,
    nextSlowRun: () => {
      const ready = slowRuns.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => slowWaiters.push(resolve));
    },
    options: (overrides = {}) => ({
      resolveServer,
      runApp,
      onError: (error, context) => {
        reports.push({ error, context });
      },
      ...overrides,
    }),
  };
}

// --- the apps of the files suites ------------------------------------------------------------------

export const FILE_TENANT = 'tenant-files';

/** A workflow that takes a receipt image and up to two attachments, and echoes nothing useful. */
export const RECEIPT_READER: HostApp = {
  id: 'receipt-reader',
  name: 'Receipt Reader',
  mode: 'workflow',
  inputForm: [
    {
      type: 'file',
      variable: 'receipt',
      label: 'Receipt photo',
      required: true,
      allowed_file_types: ['image'],
      allowed_file_upload_methods: ['local_file', 'remote_url'],
    },
    {
      type: 'file-list',
      variable: 'attachments',
      label: 'Attachments',
      max_length: 2,
      allowed_file_types: ['document', 'custom'],
      allowed_file_extensions: ['.ZIP'],
    },
    { type: 'file', variable: 'scan', label: 'Scan', allowed_file_upload_methods: ['local_file'] },
    { type: 'text-input', variable: 'note', label: 'Note', max_length: 10 },
  ],
};

/** A workflow that declares a text, an image and a list of documents as its outputs. */
export const REPORT_MAKER: HostApp = {
  id: 'report-maker',
  name: 'Report Maker',
  mode: 'workflow',
  inputForm: [],
  outputs: [
    { variable: 'summary', type: 'string' },
    { variable: 'image', type: 'file', description: 'A chart' },
    { variable: 'documents', type: 'array[file]' },
  ],
};

/** A chat app whose answers may come with files (`message_file` events or `files`). */
export const FILE_CHAT: HostApp = { id: 'file-chat', name: 'File Chat', mode: 'chat', inputForm: [] };

const FILE_APPS = [RECEIPT_READER, REPORT_MAKER, FILE_CHAT];

export interface FileWorld {
  codes: { receiptReader: string; reportMaker: string; fileChat: string };
  /** Every run, in order. */
  runs: AppRun[];
  /** Every report the `onError` hook received, in order. */
  reports: { error: unknown; context: ErrorContext }[];
  /** What the apps return; each test sets it. */
  respond: RunApp;
  /** `mcpServer` options for this world; `overrides` replace any of them. */
  options(overrides?: Partial<McpServerOptions>): McpServerOptions;
}

/** Publishes the file apps in `store`; what they return is up to each test (`world.respond`). */
export async function createFileWorld(store: ServerStore): Promise<FileWorld> {
  const publish = (app: HostApp) =>
    store.createServer({
      tenantId: FILE_TENANT,
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
    });
  const [receiptReader, reportMaker, fileChat] = await Promise.all(FILE_APPS.map(publish));
  const resolveServer = store.resolver((appId, tenantId) =>
    tenantId === FILE_TENANT ? (FILE_APPS.find((app) => app.id === appId) ?? null) : null,
  );
  const world: FileWorld = {
    codes: {
      receiptReader: receiptReader!.serverCode,
      reportMaker: reportMaker!.serverCode,
      fileChat: fileChat!.serverCode,
    },
    runs: [],
    reports: [],
    respond: () => ({ outputs: {} }),
    options: (overrides = {}) => ({
      resolveServer,
      runApp: (run) => {
        world.runs.push(run);
        return world.respond(run);
      },
      onError: (error, context) => {
        world.reports.push({ error, context });
      },
      ...overrides,
    }),
  };
  return world;
}
