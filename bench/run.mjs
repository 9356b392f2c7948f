/**
 * `npm run bench`: ours against the floor (bare Express + express.json + res.json) and against the
 * official SDK's stateless recipe, for `tools/list` and `tools/call` at protocol 2025-06-18.
 *
 * Each server runs in its own process on 127.0.0.1. After a warm-up, the targets are loaded in
 * turns, one after another, for several rounds, with the order rotated every round, so that drift
 * (other work on the machine, CPU frequency) hits every target alike. The ratios are the median of
 * the per-round ratios, each from runs a few seconds apart. Then a fresh "ours" takes
 * 200,000 requests and its resident memory is compared before and after (each after a forced GC).
 *
 * Then the long-run rows (bench/streaming.mjs): a streamed call against our JSON call of the same
 * app, and BENCH_SOAK_ROUNDS (5) rounds of a soak of BENCH_SOAK_CALLS (1000) concurrent 5 s streamed
 * calls with heartbeats, on ours and on a floor of its own.
 *
 * Then the tasks row (bench/tasks.mjs): creating a task and reading it back on SQLite, against the
 * floor's tools/call; the usage row (bench/usage.mjs): tools/call with usage counted against
 * the same server with `usage: false`; the caller keys row (bench/keys.mjs): a "key" server's
 * tools/call against a "code" server's; and the toolset rows (bench/toolsets.mjs): a 100-app
 * toolset's tools/list against a floor serving the same bytes, and its tools/call against a
 * one-app server's.
 *
 * Settings (environment): BENCH_DURATION (s per run, 2), BENCH_ROUNDS (8), BENCH_CONNECTIONS (20),
 * BENCH_WARMUP (s per target and method, 1), BENCH_MEMORY_REQUESTS (200000),
 * BENCH_POSTGRES_URL (adds "ours" on PostgreSQL, with the cache on and off). While tuning: BENCH_ONLY=floor,ours and
 * BENCH_METHODS=tools/call narrow the run (BENCH_ONLY=streaming,soak runs only the long-run rows,
 * BENCH_ONLY=tasks the tasks row, BENCH_ONLY=usage the usage row, BENCH_ONLY=keys the caller keys
 * row, BENCH_ONLY=toolsets the toolset rows), BENCH_MEMORY_REQUESTS=0 skips the memory run. BENCH_BASELINE_DIST=<folder> adds "ours" from another
 * build (e.g. `node scripts/build.mjs --out-dir /tmp/before` on the commit before a change), loaded
 * in the same turns, so that a change is measured against the code before it on the same machine.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { FLOOR_CALL, FLOOR_LIST, HEADERS, TOOL_NAME } from './fixture.mjs';
import { keyReport, measureKeyCall } from './keys.mjs';
import { load, METHODS, median, startServer } from './lib.mjs';
import { longRunReport, measureStreamedCall, soakRounds } from './streaming.mjs';
import { measureTaskCall, taskReport } from './tasks.mjs';
import { measureToolsets, toolsetReport } from './toolsets.mjs';
import { measureUsage, usageReport } from './usage.mjs';

const settings = {
  duration: Number(process.env.BENCH_DURATION ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 8),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 20),
  warmup: Number(process.env.BENCH_WARMUP ?? 1),
  memoryRequests: Number(process.env.BENCH_MEMORY_REQUESTS ?? 200_000),
  soakCalls: Number(process.env.BENCH_SOAK_CALLS ?? 1000),
  soakRounds: Number(process.env.BENCH_SOAK_ROUNDS ?? 5),
};
const postgresUrl = process.env.BENCH_POSTGRES_URL;
const started = Date.now();
const log = (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${line}`);

// The cache-off rows spread their requests over this many codes, taken in turn, so that lookups in
// flight together are for different codes, as in a host with many servers: none shares another's.
// As many as the resolver's app cache keeps by default, and the tool cache per app object, so that
// what differs from the cache-on rows is the lookup.
const CODES_MISSED = '1000';
const TARGETS = [
  { key: 'floor', label: 'floor (Express + express.json)', file: 'floor.mjs' },
  { key: 'ours', label: 'ours (Knex/SQLite, cache on)', file: 'ours.mjs' },
  {
    key: 'ours_nocache',
    label: 'ours (Knex/SQLite, cache off)',
    file: 'ours.mjs',
    env: { BENCH_CACHE: 'off', BENCH_SERVERS: CODES_MISSED },
  },
  {
    key: 'ours_appquery',
    label: 'ours (loadApp an SQLite query, app cache on)',
    file: 'ours.mjs',
    env: { BENCH_LOAD_APP: 'query' },
  },
  {
    key: 'ours_appquery_nocache',
    label: 'ours (loadApp an SQLite query, app cache off)',
    file: 'ours.mjs',
    env: { BENCH_LOAD_APP: 'query', BENCH_APP_CACHE: 'off' },
  },
  ...(postgresUrl
    ? [
        {
          key: 'ours_postgres',
          label: 'ours (Knex/PostgreSQL, cache on)',
          file: 'ours.mjs',
          env: { BENCH_POSTGRES_URL: postgresUrl },
        },
        {
          // Every request looks its code up in PostgreSQL: what a lookup costs (target ≥ 0.7 × floor).
          key: 'ours_postgres_nocache',
          label: 'ours (Knex/PostgreSQL, cache off)',
          file: 'ours.mjs',
          env: { BENCH_POSTGRES_URL: postgresUrl, BENCH_CACHE: 'off', BENCH_SERVERS: CODES_MISSED },
        },
      ]
    : []),
  { key: 'sdk', label: 'official SDK 1.x (stateless JSON)', file: 'sdk.mjs' },
  ...(process.env.BENCH_BASELINE_DIST
    ? [
        {
          key: 'ours_baseline',
          label: 'ours, baseline build (Knex/SQLite, cache on)',
          file: 'ours.mjs',
          env: { BENCH_DIST: process.env.BENCH_BASELINE_DIST },
        },
      ]
    : []),
];
// BENCH_ONLY=floor,ours narrows the run while tuning; the ratios need floor, ours and sdk.
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (key) => !only || only.includes(key);
if (only) TARGETS.splice(0, TARGETS.length, ...TARGETS.filter((target) => only.includes(target.key)));
const METHOD_NAMES = process.env.BENCH_METHODS?.split(',') ?? Object.keys(METHODS);

const servers = new Map();
try {
  for (const target of TARGETS) servers.set(target.key, await startServer(target.file, { env: target.env }));
  log(`started ${TARGETS.length} servers`);
  await checkReplies();

  for (const method of METHOD_NAMES) {
    for (const target of TARGETS) {
      await load(servers.get(target.key).urls, {
        methods: [method],
        connections: settings.connections,
        duration: settings.warmup,
      });
    }
  }
  log('warmed up');

  const runs = {}; // runs[target][method] = one entry per round
  for (const target of TARGETS) runs[target.key] = Object.fromEntries(METHOD_NAMES.map((m) => [m, []]));
  for (let round = 0; round < settings.rounds; round++) {
    const methods = round % 2 === 0 ? METHOD_NAMES : [...METHOD_NAMES].reverse();
    const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]);
    for (const method of methods) {
      for (const target of order) {
        const server = servers.get(target.key);
        const cpuBefore = await server.cpu();
        const run = await load(server.urls, {
          methods: [method],
          connections: settings.connections,
          duration: settings.duration,
        });
        run.cpuPerRequest = ((await server.cpu()) - cpuBefore) / run.total;
        runs[target.key][method].push(run);
      }
    }
    log(`round ${round + 1}/${settings.rounds} done`);
  }
  for (const server of servers.values()) await server.stop();
  servers.clear();

  const memory = settings.memoryRequests > 0 && wanted('ours') ? await measureMemory() : null;
  if (memory) log('memory measured');
  const streaming = wanted('streaming') ? await measureStreamedCall(settings, log) : null;
  // With its floor: the same streams held by Express alone, to read our memory against.
  const soaked = wanted('soak')
    ? await soakRounds(
        { rounds: settings.soakRounds, calls: settings.soakCalls, heartbeatMs: 1000, runMs: 5000 },
        log,
      )
    : null;

  const tasks = wanted('tasks') ? await measureTaskCall(settings, log) : null;
  const usage = wanted('usage') ? await measureUsage(settings, log) : null;
  const keys = wanted('keys') ? await measureKeyCall(settings, log) : null;
  const toolsets = wanted('toolsets') ? await measureToolsets(settings, log) : null;

  const results = summarize(runs);
  const ratio = (method, base) => results.ours?.[method]?.[base] ?? Number.NaN;
  const ratios = {
    list_vs_floor: ratio('tools/list', 'vsFloor'),
    list_vs_sdk: ratio('tools/list', 'vsSdk'),
    call_vs_floor: ratio('tools/call', 'vsFloor'),
    call_vs_sdk: ratio('tools/call', 'vsSdk'),
    streamed_vs_json: streaming?.ratio ?? Number.NaN,
    task_pair_vs_floor: tasks?.ratio ?? Number.NaN,
    task_pair_in_memory_vs_floor: tasks?.memoryRatio ?? Number.NaN,
    call_usage_on_vs_off: usage?.ratio ?? Number.NaN,
    key_call_vs_code_call: keys?.ratio ?? Number.NaN,
    toolset_list_vs_floor: toolsets?.listRatio ?? Number.NaN,
    toolset_call_vs_one_app: toolsets?.callRatio ?? Number.NaN,
  };
  // Ours against another build of itself, loaded in the same turns.
  if (results.ours_baseline) {
    ratios.list_vs_baseline = ratio('tools/list', 'vsBaseline');
    ratios.call_vs_baseline = ratio('tools/call', 'vsBaseline');
  }
  // A cache miss on PostgreSQL, when measured: the cost of the lookup itself.
  if (results.ours_postgres_nocache) {
    ratios.pg_miss_list_vs_floor = results.ours_postgres_nocache['tools/list']?.vsFloor ?? Number.NaN;
    ratios.pg_miss_call_vs_floor = results.ours_postgres_nocache['tools/call']?.vsFloor ?? Number.NaN;
  }
  const machine = {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadavg: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(
    new URL('./results.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), seconds, machine, settings, results, memory, streaming, soak: soaked, tasks, usage, keys, toolsets, ratios }, null, 2)}\n`,
  );

  console.log(
    `\n${machine.cpus} × ${machine.cpu}, Node ${machine.node}; ${settings.connections} connections, ` +
      `${settings.rounds} rounds of ${settings.duration} s per target and method, in turns\n`,
  );
  console.log(table(results));
  if (memory)
    console.log(
      `\nmemory of ours (RSS after a forced GC): ${mib(memory.before.rss)} MiB before, ` +
        `${mib(memory.after.rss)} MiB after ${memory.requests.toLocaleString('en-US')} requests ` +
        `(growth ${mib(memory.after.rss - memory.before.rss)} MiB; heap used ${mib(memory.before.heapUsed)} → ${mib(memory.after.heapUsed)} MiB)`,
    );
  if (streaming || soaked) console.log(`\n${longRunReport(streaming, soaked)}`);
  if (tasks) console.log(`\n${taskReport(tasks)}`);
  if (usage) console.log(`\n${usageReport(usage)}`);
  if (keys) console.log(`\n${keyReport(keys)}`);
  if (toolsets) console.log(`\n${toolsetReport(toolsets)}`);
  console.log(`results written to bench/results.json (${seconds} s in all)\n`);
  console.log(
    `ratios: ${Object.entries(ratios)
      .map(([name, value]) => `${name}=${value.toFixed(2)}`)
      .join(' ')}`,
  );
} finally {
  for (const server of servers.values()) await server.stop();
}

/**
 * The comparison is only fair if everyone answers the same thing: ours must answer the floor's
 * bytes exactly, and the SDK the same tool and the same structured result.
 */
async function checkReplies() {
  const post = async (url, method) => {
    const response = await fetch(url, { method: 'POST', headers: HEADERS, body: METHODS[method] });
    const text = await response.text();
    if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) {
      throw new Error(`${url} answered ${method} with ${response.status}: ${text}`);
    }
    return text;
  };
  if (!servers.has('floor')) return;
  for (const method of METHOD_NAMES) {
    const floor = await post(servers.get('floor').url, method);
    for (const target of TARGETS) {
      if (target.key === 'floor') continue;
      const text = await post(servers.get(target.key).url, method);
      if (target.key !== 'sdk') {
        if (text !== floor)
          throw new Error(`${target.label} answers ${method} unlike the floor:\n${text}\n${floor}`);
        continue;
      }
      const { result } = JSON.parse(text);
      const same =
        method === 'tools/list'
          ? result.tools.length === 1 &&
            result.tools[0].name === TOOL_NAME &&
            isDeepStrictEqual(
              result.tools[0].inputSchema.properties,
              FLOOR_LIST.tools[0].inputSchema.properties,
            )
          : isDeepStrictEqual(result.structuredContent, FLOOR_CALL.structuredContent) &&
            isDeepStrictEqual(result.content, FLOOR_CALL.content);
      if (!same) throw new Error(`${target.label} answers ${method} with another tool or result:\n${text}`);
    }
  }
  log('replies checked: ours answers byte for byte like the floor, the SDK the same tool');
}

async function measureMemory() {
  const server = await startServer('ours.mjs');
  try {
    const both = METHOD_NAMES;
    await load(server.url, { methods: both, connections: settings.connections, amount: 10_000 });
    const before = await server.memory();
    const run = await load(server.url, {
      methods: both,
      connections: settings.connections,
      amount: settings.memoryRequests,
    });
    const after = await server.memory();
    return { requests: run.total, before, after, growthMiB: Number(mib(after.rss - before.rss)) };
  } finally {
    await server.stop();
  }
}

function summarize(runs) {
  const results = {};
  for (const target of TARGETS) {
    results[target.key] = { label: target.label };
    for (const method of METHOD_NAMES) {
      const list = runs[target.key][method];
      const perRound = (base) =>
        runs[base]
          ? Number(median(list.map((run, round) => run.rps / runs[base][method][round].rps)).toFixed(2))
          : Number.NaN;
      results[target.key][method] = {
        rps: Math.round(median(list.map((run) => run.rps))),
        p50: median(list.map((run) => run.p50)),
        p99: median(list.map((run) => run.p99)),
        cpuMicrosPerRequest: Math.round(median(list.map((run) => run.cpuPerRequest))),
        rounds: list.map((run) => Math.round(run.rps)),
        vsFloor: perRound('floor'),
        vsSdk: perRound('sdk'),
        ...(runs.ours_baseline ? { vsBaseline: perRound('ours_baseline') } : {}),
      };
    }
  }
  return results;
}

function table(results) {
  const rows = [
    '| server | method | req/s (median) | p50 ms | p99 ms | server CPU µs/req | vs floor | vs SDK |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const method of METHOD_NAMES) {
    for (const target of TARGETS) {
      const r = results[target.key][method];
      rows.push(
        `| ${target.label} | ${method} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpuMicrosPerRequest} | ${r.vsFloor.toFixed(2)} | ${r.vsSdk.toFixed(2)} |`,
      );
    }
  }
  return rows.join('\n');
}

function mib(bytes) {
  return (bytes / 1024 / 1024).toFixed(1);
}
