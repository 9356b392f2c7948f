/**
 * The tasks row of `npm run bench` (docs/tasks.md): creating a task and reading it back —
 * `tools/call` with `task` (MCP 2025-11-25), then `tasks/get` of the task it created, on the same
 * connection — on the Knex store over SQLite, against the floor's `tools/call`. Loaded in turns,
 * like the main rows; the ratio is pairs per second over the floor's calls per second. The same
 * pairs with tasks in memory (no store) say what the protocol costs without the database
 * (bench/README.md, "Tasks").
 */
import { importTool } from '../scripts/tools.mjs';
import { ARGUMENTS, HEADERS, TOOL_NAME } from './fixture.mjs';
import { load, median, startServer } from './lib.mjs';

const autocannon = await importTool('autocannon');
const TASK_HEADERS = { ...HEADERS, 'mcp-protocol-version': '2025-11-25' };
const CREATE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: TOOL_NAME, arguments: ARGUMENTS, task: { ttl: 60_000 } },
});
const getTask = (taskId) =>
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } });

/** The pair on SQLite and in memory against the floor's `tools/call`, each with its ratio. */
export async function measureTaskCall({ duration, rounds, connections, warmup }, log) {
  const servers = {
    tasks: await startServer('ours.mjs', { env: { BENCH_TASKS: '1' } }),
    memory: await startServer('ours.mjs'),
    floor: await startServer('floor.mjs'),
  };
  const measure = (key, duration) =>
    key === 'floor'
      ? load(servers.floor.url, { methods: ['tools/call'], connections, duration })
      : loadPairs(servers[key].url, { connections, duration });
  try {
    for (const key of ['tasks', 'memory']) await checkPair(servers[key].url);
    for (const key of Object.keys(servers)) await measure(key, warmup);
    const runs = { tasks: [], memory: [], floor: [] };
    for (let round = 0; round < rounds; round++) {
      const order = ['tasks', 'memory', 'floor'];
      for (let turn = 0; turn < order.length; turn++) {
        const key = order[(turn + round) % order.length];
        const cpuBefore = await servers[key].cpu();
        const run = await measure(key, duration);
        run.cpuPerRequest = ((await servers[key].cpu()) - cpuBefore) / run.total;
        runs[key].push(run);
      }
    }
    log('tasks measured');
    const summary = (list, per) => ({
      rps: Math.round(median(list.map((run) => run.rps / per))),
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      cpuMicros: Math.round(median(list.map((run) => run.cpuPerRequest * per))),
      rounds: list.map((run) => Math.round(run.rps / per)),
    });
    // Two requests make one pair.
    const ratioOf = (key) =>
      Number(median(runs[key].map((run, round) => run.rps / 2 / runs.floor[round].rps)).toFixed(2));
    return {
      pairs: summary(runs.tasks, 2),
      memory: summary(runs.memory, 2),
      floor: summary(runs.floor, 1),
      ratio: ratioOf('tasks'),
      memoryRatio: ratioOf('memory'),
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

/** One pair by hand: the task is created, then read back, and its run completes. */
async function checkPair(url) {
  const post = async (body) => (await fetch(url, { method: 'POST', headers: TASK_HEADERS, body })).json();
  const created = await post(CREATE);
  const taskId = created?.result?.task?.taskId;
  if (typeof taskId !== 'string') throw new Error(`tools/call with task answered ${JSON.stringify(created)}`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const got = await post(getTask(taskId));
    if (got?.result?.status === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} did not complete`);
}

/** Pairs on every connection: each `tasks/get` reads the task its connection created just before. */
async function loadPairs(url, { connections, duration }) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: TASK_HEADERS,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        headers: TASK_HEADERS,
        body: CREATE,
        onResponse: (_status, body, context) => {
          context.taskId = JSON.parse(body).result?.task?.taskId;
        },
      },
      {
        method: 'POST',
        headers: TASK_HEADERS,
        setupRequest: (request, context) => ({ ...request, body: getTask(context.taskId) }),
        onResponse: (_status, body) => {
          if (!JSON.parse(body).result?.taskId) throw new Error(`tasks/get answered ${body}`);
        },
      },
    ],
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) throw new Error(`${url}: ${failed} failed requests of ${result.requests.total}`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

/** The row, for the report. */
export function taskReport(tasks) {
  return (
    `tasks: tools/call with task + tasks/get on Knex/SQLite: ${tasks.pairs.rps} pairs/s ` +
    `(p50 ${tasks.pairs.p50} ms, server CPU ${tasks.pairs.cpuMicros} µs/pair), floor tools/call ` +
    `${tasks.floor.rps} req/s (${tasks.floor.cpuMicros} µs/call): ${tasks.ratio.toFixed(2)} × the floor; ` +
    `the same pairs with tasks in memory: ${tasks.memory.rps} pairs/s ` +
    `(server CPU ${tasks.memory.cpuMicros} µs/pair): ${tasks.memoryRatio.toFixed(2)} × the floor`
  );
}
