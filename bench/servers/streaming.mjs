/**
 * Ours, for the long-run rows: `mcpServer` on a bare Express 5 app serving one app from a memory
 * store (the store is not what these rows measure). BENCH_STREAM_APP chooses the app:
 * - `progress` (default): the Echo workflow, streaming five progress events at once before its
 *   outputs; a call with a progress token gets them as a stream, a call without one gets JSON;
 * - `wait`: a workflow that says nothing for BENCH_WAIT_MS (5000) and then answers.
 * BENCH_HEARTBEAT_MS sets `heartbeatMs` (default: the package's).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { ECHO_APP, PROGRESS_EVENTS } from '../fixture.mjs';
import { loadPackage, publishBenchApp, serve } from './harness.mjs';

const { mcpServer, memoryServerStore } = await loadPackage();

const waitMs = Number(process.env.BENCH_WAIT_MS ?? 5000);
const WAIT_APP = Object.freeze({ id: 'wait', name: 'Wait', mode: 'workflow', inputForm: [] });
const app = process.env.BENCH_STREAM_APP === 'wait' ? WAIT_APP : ECHO_APP;

async function* echoWithProgress(text) {
  for (let stage = 1; stage <= PROGRESS_EVENTS; stage++) {
    yield { event: 'progress', progress: stage, total: PROGRESS_EVENTS };
  }
  yield { event: 'workflow_finished', outputs: { text } };
}

/**
 * How the `wait` app waits, by BENCH_WAIT_KIND: `sleep` (default) with `run.signal`, as the README
 * asks apps to honour cancellation; `listener`, a bare timer cleared by a listener on `run.signal`;
 * `timer`, a bare timer that ignores cancellation. What the soak's memory owes to the app's own wait.
 */
const waits = {
  sleep: (run) => sleep(waitMs, undefined, { signal: run.signal }),
  listener: (run) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, waitMs);
      run.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(run.signal.reason);
        },
        { once: true },
      );
    }),
  timer: () => new Promise((resolve) => setTimeout(resolve, waitMs)),
};
const wait = waits[process.env.BENCH_WAIT_KIND ?? 'sleep'];
if (!wait) throw new Error(`BENCH_WAIT_KIND must be one of ${Object.keys(waits).join(', ')}`);

const store = memoryServerStore();
const server = await publishBenchApp(store, app);
const express5 = express();
express5.use(
  mcpServer({
    resolveServer: store.resolver(async (appId) => (appId === app.id ? app : null)),
    // `run.signal` is read only where it is used: reading it makes the run's AbortSignal.
    runApp: async (run) => {
      if (app === ECHO_APP) return echoWithProgress(run.inputs.text);
      await wait(run);
      return { outputs: { waited: waitMs } };
    },
    ...(process.env.BENCH_HEARTBEAT_MS ? { heartbeatMs: Number(process.env.BENCH_HEARTBEAT_MS) } : {}),
  }),
);

serve(express5, `/mcp/server/${server.serverCode}/mcp`);
