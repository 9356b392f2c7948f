/**
 * One instance of the farm the three-instance suite starts, each in a process of its own: a host
 * with `mcpServer()` on `knexServerStore` over PostgreSQL (its `store` passed on, so streams resume anywhere), set up as the README's "Running several
 * instances" says, and a `GET /runs` route that tells the suite what its runs went through.
 *
 * Environment: `DATABASE_URL`, `DATABASE_SCHEMA`, `RATE_LIMIT_REQUESTS`, `RESOLVE_TIMEOUT_MS`,
 * `STREAM_LEASE_MS` (optional) and `TASK_LEASE_MS` (optional).
 * Prints one JSON line `{"port": N}` once it listens on 127.0.0.1; SIGTERM stops it.
 */
import express from 'express';
import knexFactory from 'knex';
import { type AppEvent, type AppRun, type HostApp, knexServerStore, mcpServer } from '../../src/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const knex = knexFactory({
  client: 'pg',
  connection: env('DATABASE_URL'),
  searchPath: [env('DATABASE_SCHEMA')],
  pool: { min: 0, max: 5 },
  acquireConnectionTimeout: 2000,
});
const store = knexServerStore(knex);

/** Every app takes a `tag` that names its run in `/runs`. */
const loadApp = (appId: string): HostApp => ({
  id: appId,
  name: appId,
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'tag', required: true }],
});

const runs: { tag: string; event: 'started' | 'aborted' | 'finished' }[] = [];

/** Six progress events 100 ms apart, then the outputs: a streamed reply to drop and resume. */
async function* tick(tag: string): AsyncIterable<AppEvent> {
  for (let i = 1; i <= 6; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    yield { event: 'progress', progress: i, total: 6 };
  }
  yield { event: 'workflow_finished', outputs: { tag, ticks: 6 } };
}

/** One progress event, then nothing until the run is stopped: a stream whose instance may be killed. */
async function* hang(signal: AbortSignal): AsyncIterable<AppEvent> {
  yield { event: 'progress', progress: 1 };
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  yield { event: 'workflow_finished', outputs: {} };
}

/**
 * `wait` runs until cancelled, `ticker` and `hang` stream, `ask` asks a person once it is past the
 * grace window of a task; every other app answers at once.
 */
async function runApp(run: AppRun) {
  const tag = String(run.inputs.tag);
  runs.push({ tag, event: 'started' });
  if (run.app.id === 'ask') {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answer = await run.ask({
      key: 'go',
      message: 'Go on?',
      fields: [{ type: 'checkbox', variable: 'go', label: 'Go', required: true }],
    });
    return { outputs: { tag, answer } };
  }
  if (run.app.id === 'ticker') return tick(tag);
  if (run.app.id === 'hang') return hang(run.signal);
  if (run.app.id === 'wait') {
    await new Promise<void>((resolve) =>
      run.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    runs.push({ tag, event: 'aborted' });
    return { outputs: { tag, aborted: true } };
  }
  runs.push({ tag, event: 'finished' });
  return { outputs: { tag, pid: process.pid } };
}

const app = express();
app.use(
  mcpServer({
    resolveServer: store.resolver(loadApp),
    store,
    runApp,
    rateLimit: { requests: Number(env('RATE_LIMIT_REQUESTS')), windowMs: 60_000 },
    resolveTimeoutMs: Number(env('RESOLVE_TIMEOUT_MS')),
    streamLeaseMs: Number(process.env.STREAM_LEASE_MS ?? 15_000),
    taskLeaseMs: Number(process.env.TASK_LEASE_MS ?? 30_000),
    // The suite cuts the database off on purpose; what it sees is in the replies.
    onError: () => {},
  }),
);
app.get('/runs', (_req, res) => {
  res.json(runs);
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(JSON.stringify({ port: address.port }));
});

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(async () => {
    await store.close();
    await knex.destroy();
    process.exit(0);
  });
});
