/**
 * A host in a process of its own whose chat apps answer far more than one result may carry: 46
 * text deltas of 1 MiB of control characters each, from the AI SDK's mock model through
 * `fromAiSdk` (`ai-flood`) or as `message` events (`event-flood`), and a workflow whose outputs are
 * as large (`output-flood`); `echo` answers its query. `GET /reports` lists what `onError` received
 * and `GET /stops` how many flooding runs saw their signal abort. Without the package's bounds, one
 * such call ends the process.
 *
 * The flooding chat apps report one progress event first, so that a call with a progress token
 * gets an event stream. Prints one JSON line `{"port": N, "codes": {...}}` once it listens.
 */
import { simulateReadableStream, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import express from 'express';
import { fromAiSdk } from '../../src/adapters/ai-sdk.js';
import { type AppEvent, type AppRun, type HostApp, mcpServer, memoryServerStore } from '../../src/index.js';

const MIB = 1024 * 1024;
const DELTAS = 46;
/** 1 MiB of control characters: each is six bytes once in JSON (`\u0001`). */
const DELTA = '\u0001'.repeat(MIB);

const app = (id: string, mode: HostApp['mode'] = 'chat'): HostApp => ({ id, name: id, mode, inputForm: [] });
const APPS = [app('ai-flood'), app('event-flood'), app('output-flood', 'workflow'), app('echo')];

const store = memoryServerStore();
const codes: Record<string, string> = {};
for (const { id } of APPS) {
  const server = await store.createServer({
    tenantId: 't',
    appId: id,
    name: id,
    description: '',
    parameters: {},
  });
  codes[id] = server.serverCode;
}

let stops = 0;
const watchStop = (run: { signal: AbortSignal }) =>
  run.signal.addEventListener('abort', () => stops++, { once: true });

const model = new MockLanguageModelV4({
  doStream: async () => ({
    stream: simulateReadableStream({
      chunks: [
        { type: 'text-start', id: 'text' },
        ...Array.from({ length: DELTAS }, () => ({ type: 'text-delta' as const, id: 'text', delta: DELTA })),
        { type: 'text-end', id: 'text' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: DELTAS, text: DELTAS, reasoning: undefined },
          },
        },
      ],
    }),
  }),
});

const fromModel = fromAiSdk((run, { messages }) => {
  watchStop(run);
  return streamText({ model, messages, abortSignal: run.signal });
});

/** One progress event first: a call that asks for progress then gets an event stream. */
const PROGRESS: AppEvent = { event: 'progress', progress: 1, message: 'writing' };

async function* aiFlood(run: AppRun): AsyncIterable<AppEvent> {
  yield PROGRESS;
  yield* (await fromModel(run)) as AsyncIterable<AppEvent>;
}

async function* eventFlood(run: AppRun): AsyncIterable<AppEvent> {
  watchStop(run);
  yield PROGRESS;
  for (let i = 0; i < DELTAS; i++) yield { event: 'message', answer: DELTA };
}

type Runner = (run: AppRun) => AsyncIterable<AppEvent> | Promise<Record<string, unknown>>;
const runners: Record<string, Runner> = {
  'ai-flood': aiFlood,
  'event-flood': eventFlood,
  'output-flood': async () => ({ outputs: { text: DELTA.repeat(DELTAS) } }),
  echo: async (run) => ({ answer: `echo: ${run.query ?? ''}` }),
};

const reports: { message: string; phase: string }[] = [];
const host = express();
host.get('/reports', (_req, res) => {
  res.json(reports);
});
host.get('/stops', (_req, res) => {
  res.json({ stops });
});
host.use(
  mcpServer({
    resolveServer: store.resolver((appId) => APPS.find((known) => known.id === appId) ?? null),
    runApp: (run) => (runners[run.app.id] as Runner)(run) as ReturnType<typeof fromModel>,
    heartbeatMs: 0,
    onError: (error, context) => {
      reports.push({ message: error instanceof Error ? error.message : String(error), phase: context.phase });
    },
  }),
);
const server = host.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port: address.port, codes })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
