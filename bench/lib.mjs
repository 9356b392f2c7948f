/** Helpers shared by `run.mjs` and `profile.mjs`: server processes and autocannon runs. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { importTool } from '../scripts/tools.mjs';
import { CALL_REQUEST, HEADERS, LIST_REQUEST } from './fixture.mjs';

// The load generator is installed on first use (scripts/tools.mjs), not by npm ci.
const autocannon = await importTool('autocannon');

export const METHODS = {
  'tools/list': JSON.stringify(LIST_REQUEST),
  'tools/call': JSON.stringify(CALL_REQUEST),
};

/**
 * Starts one bench server in its own process and resolves once it listens. `memory()` asks it for
 * its memory use (after a forced GC), `cpu()` for the CPU time it used so far (µs), `stop()` ends
 * it and waits for the exit.
 */
export function startServer(file, { env = {}, execArgv = [] } = {}) {
  const child = fork(fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), [], {
    env: { ...process.env, ...env },
    execArgv: ['--expose-gc', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message?.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      const onExit = (code) => {
        child.off('message', onMessage);
        reject(new Error(`bench server ${file} exited with code ${code} before answering "${type}"`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return next('ready').then(({ url, urls = [url], key }) => ({
    url,
    urls,
    // A caller key the server made for the load (BENCH_KEYS=1), sent as its bearer.
    key,
    pid: child.pid,
    async memory() {
      const reply = next('memory');
      child.send({ type: 'memory' });
      return reply;
    },
    async cpu() {
      const reply = next('cpu');
      child.send({ type: 'cpu' });
      return (await reply).micros;
    },
    async stop() {
      if (child.exitCode === null) child.send({ type: 'stop' });
      await exited;
    },
  }));
}

/**
 * One autocannon run against `url`. `requests` cycles through the given methods (or through the
 * given request bodies) on every connection; a run with any error, timeout or non-2xx reply is
 * refused rather than reported. Given several URLs (of one server), the requests take their paths
 * from them in turn, across all connections, so that requests in flight together differ.
 */
export async function load(
  urls,
  { methods, bodies = methods.map((m) => METHODS[m]), connections, duration, amount, key },
) {
  const headers = key ? { ...HEADERS, authorization: `Bearer ${key}` } : HEADERS;
  const [url, ...others] = [urls].flat();
  const paths = others.length > 0 ? [url, ...others].map((each) => new URL(each).pathname) : null;
  let turn = 0;
  const nextPath = (request) => ({ ...request, path: paths[turn++ % paths.length] });
  const result = await autocannon({
    url,
    method: 'POST',
    headers,
    connections,
    ...(amount ? { amount } : { duration }),
    requests: bodies.map((body) => ({
      method: 'POST',
      headers,
      body,
      ...(paths ? { setupRequest: nextPath } : {}),
    })),
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) {
    throw new Error(
      `${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx replies in ${result.requests.total} requests`,
    );
  }
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Targets measured in turns, like the main rows: a warm-up each, then `rounds` rounds, each
 * starting one target later, with the server CPU each request cost (`cpuOf(name)` reads the CPU
 * of the target's server). Gives each target's median figures, and `ratio(key, base)`: the median
 * of the rounds' throughput ratios of two targets.
 */
export async function measureInTurns(names, { duration, rounds, warmup }, measure, cpuOf) {
  for (const name of names) await measure(name, warmup);
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(turn + round) % names.length];
      const cpuBefore = await cpuOf(name);
      const run = await measure(name, duration);
      run.cpuPerRequest = ((await cpuOf(name)) - cpuBefore) / run.total;
      runs[name].push(run);
    }
  }
  const summary = (list) => ({
    rps: Math.round(median(list.map((run) => run.rps))),
    p50: median(list.map((run) => run.p50)),
    p99: median(list.map((run) => run.p99)),
    cpuMicros: Math.round(median(list.map((run) => run.cpuPerRequest))),
  });
  const ratio = (key, base) =>
    Number(median(runs[key].map((run, round) => run.rps / runs[base][round].rps)).toFixed(2));
  return { figures: Object.fromEntries(names.map((name) => [name, summary(runs[name])])), ratio };
}
