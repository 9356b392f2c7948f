/**
 * What the task suites share: servers whose runs the test drives (a gated report that waits for
 * the test, a quick one, one whose app fails, one that returns an error result, one with a large
 * result), each with the task support the test gives it, and the official v1 client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type AppEvent,
  type AppRun,
  AppRunError,
  type AskAnswer,
  type HostApp,
  type McpServerOptions,
  type ResolveServer,
  type ServerStore,
  type TaskSupport,
} from '../../src/index.js';
import type { ErrorContext } from '../../src/protocol/report.js';
import { knexServerStore } from '../../src/store/index.js';
import type { CallToolResult } from '../../src/tool/call.js';
import { AsyncQueue } from './async-queue.js';
import { createMigrated, databases } from './databases.js';
import { type Host, hostVariants, loadPackage, startHost } from './hosts.js';

export const TASK_TENANT = 'tenant-tasks';

const app = (id: string, name: string): HostApp => ({ id, name, mode: 'workflow', inputForm: [] });
export const GATED_APP = app('gated', 'Gated Report');
export const QUICK_APP = app('quick', 'Quick Report');
export const CRASHING_APP = app('crashing', 'Crashing Report');
export const REFUSING_APP = app('refusing', 'Refusing Report');
export const BIG_APP = app('big', 'Big Report');
export const ASKING_APP = app('asking', 'Asking Report');
const SUPPORTS: TaskSupport[] = ['forbidden', 'optional', 'required'];
const APPS = [GATED_APP, QUICK_APP, CRASHING_APP, REFUSING_APP, BIG_APP, ASKING_APP];
type WorldKey = 'gated' | 'quick' | 'crashing' | 'refusing' | 'big' | 'asking';

/** MCP 2025-11-25's related-task metadata key, written out as the specification spells it. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A task's `tools/call` result as `tasks/result` gives it: the result, tied to its task. */
export const ofTask = (taskId: string, result: CallToolResult) => ({
  ...result,
  _meta: { [RELATED_TASK]: { taskId } },
});

/** What the asking report asks: a month, from two options. */
export const MONTH_QUESTION = {
  message: 'Which month?',
  fields: [{ select: { variable: 'month', label: 'Month', options: ['May', 'June'], required: true } }],
};

/** A run of the asking report once its question is settled: the test lets it finish. */
export interface AnsweredRun {
  run: AppRun;
  answer: AskAnswer;
  finish(): void;
}

/** One run of the gated report: the test sends it events and finishes it. */
export interface GatedRun {
  run: AppRun;
  progress(message: string): void;
  finish(text: string): void;
}

export interface TaskWorld {
  store: ServerStore;
  codes: Record<WorldKey, string>;
  serverIds: Record<WorldKey, string>;
  /** The task support each server is served with (by code); `optional` when absent. */
  support: Map<string, TaskSupport>;
  runs: AppRun[];
  reports: { error: unknown; context: ErrorContext }[];
  /** The next run of the gated report, once it has started. */
  nextGatedRun(): Promise<GatedRun>;
  /** The next run of the asking report, once its question is settled. */
  nextAnswer(): Promise<AnsweredRun>;
  /** What `run.canAsk` said to each run of the asking report. */
  canAsk: boolean[];
  /** How many gated runs saw their signal fire. */
  readonly aborted: number;
  options(overrides?: Partial<McpServerOptions>): McpServerOptions;
}

/** Publishes one server per app in `store`. */
export async function createTaskWorld(store: ServerStore): Promise<TaskWorld> {
  const codes = {} as TaskWorld['codes'];
  const serverIds = {} as TaskWorld['serverIds'];
  for (const [key, hostApp] of [
    ['gated', GATED_APP],
    ['quick', QUICK_APP],
    ['crashing', CRASHING_APP],
    ['refusing', REFUSING_APP],
    ['big', BIG_APP],
    ['asking', ASKING_APP],
  ] as const) {
    const server = await store.createServer({
      tenantId: TASK_TENANT,
      appId: hostApp.id,
      name: hostApp.name,
      description: `${hostApp.name} for tasks`,
      parameters: {},
    });
    codes[key] = server.serverCode;
    serverIds[key] = server.id;
  }
  const support = new Map<string, TaskSupport>();
  const storeResolver = store.resolver((appId, tenantId) =>
    tenantId === TASK_TENANT ? (APPS.find((each) => each.id === appId) ?? null) : null,
  );
  const resolveServer: ResolveServer = async (serverCode, req, options) => {
    const resolved = await storeResolver(serverCode, req, options);
    const taskSupport = support.get(serverCode);
    if (!resolved || !taskSupport) return resolved;
    // A revision of its own, as a stored change would make: the tool is built again.
    const updatedAt = new Date(resolved.server.updatedAt.getTime() + 1 + SUPPORTS.indexOf(taskSupport));
    return { ...resolved, server: { ...resolved.server, taskSupport, updatedAt } };
  };
  const runs: AppRun[] = [];
  const reports: TaskWorld['reports'] = [];
  const gated: GatedRun[] = [];
  const waiting: ((run: GatedRun) => void)[] = [];
  let aborted = 0;
  const answered = new AsyncQueue<AnsweredRun>();
  const canAsk: boolean[] = [];

  const runApp = (run: AppRun) => {
    runs.push(run);
    switch (run.app.id) {
      case GATED_APP.id: {
        const events = new AsyncQueue<AppEvent>();
        run.signal.addEventListener('abort', () => {
          aborted++;
          events.end();
        });
        const driven: GatedRun = {
          run,
          progress: (message) => events.push({ event: 'progress', progress: 1, total: 2, message }),
          finish: (text) => {
            events.push({ event: 'workflow_finished', outputs: { text } });
            events.end();
          },
        };
        const waiter = waiting.shift();
        if (waiter) waiter(driven);
        else gated.push(driven);
        return events;
      }
      case QUICK_APP.id:
        return { outputs: { text: 'quick report' } };
      case CRASHING_APP.id:
        throw new Error('the report engine crashed');
      case REFUSING_APP.id:
        throw new AppRunError('the report has no data for this month');
      case BIG_APP.id:
        return { outputs: { text: 'x'.repeat(4096) } };
      case ASKING_APP.id:
        canAsk.push(run.canAsk);
        return (async () => {
          const answer = await run.ask(MONTH_QUESTION);
          let finish!: () => void;
          const finished = new Promise<void>((resolve) => {
            finish = resolve;
          });
          answered.push({ run, answer, finish });
          await finished;
          const month = answer.action === 'accept' ? answer.values.month : answer.action;
          return { outputs: { text: `report for ${String(month)}` } };
        })();
      default:
        throw new Error(`no such app: ${run.app.id}`);
    }
  };

  return {
    store,
    codes,
    serverIds,
    support,
    runs,
    reports,
    nextGatedRun: () => {
      const ready = gated.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    nextAnswer: async () => (await answered.next()).value as AnsweredRun,
    canAsk,
    get aborted() {
      return aborted;
    },
    options: (overrides = {}) => ({
      resolveServer,
      runApp,
      store,
      heartbeatMs: 0,
      onError: (error, context) => {
        reports.push({ error, context });
      },
      ...overrides,
    }),
  };
}

/**
 * A task world on the Knex store on a fresh SQLite file, served by a host of the first variant
 * with the options `options` gives for it (called once the world exists); `close` ends both.
 */
export async function startTaskHost(
  options: (world: TaskWorld) => Partial<McpServerOptions> | Promise<Partial<McpServerOptions>> = () => ({}),
): Promise<{ world: TaskWorld; host: Host; close(): Promise<void> }> {
  const sqlite = databases.find((database) => database.name === 'sqlite')!;
  const { db, knex } = await createMigrated(sqlite);
  const world = await createTaskWorld(knexServerStore(knex));
  const host = await startHost(hostVariants[0]!, await loadPackage(5), world.options(await options(world)));
  return {
    world,
    host,
    close: async () => {
      await host.close();
      await db.destroy();
    },
  };
}

/** The official v1 client, connected to a server of `baseUrl` at 2025-11-25; `ask` declares elicitation and answers with it. */
export async function connectV1(
  url: string,
  ask?: (request: ElicitRequest) => ElicitResult,
): Promise<Client> {
  const capabilities = ask ? { elicitation: {} } : {};
  const client = new Client({ name: 'task-test-client', version: '1.0.0' }, { capabilities });
  if (ask) client.setRequestHandler(ElicitRequestSchema, async (request) => ask(request));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
