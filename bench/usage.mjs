/**
 * The usage row of `npm run bench` (docs/usage.md): `tools/call` on ours with usage counted (the
 * default: a counter per server, tool, caller and hour in memory, written every 5 s) against the
 * same server with `usage: false`, loaded in turns in the same run; the ratio is the median of the
 * per-round ratios (target ≥ 0.95).
 */
import { load, median, startServer } from './lib.mjs';

export async function measureUsage({ duration, rounds, connections, warmup }, log) {
  const servers = {
    on: await startServer('ours.mjs'),
    off: await startServer('ours.mjs', { env: { BENCH_USAGE: 'off' } }),
  };
  const measure = (key, seconds) =>
    load(servers[key].urls, { methods: ['tools/call'], connections, duration: seconds });
  try {
    for (const key of Object.keys(servers)) await measure(key, warmup);
    const runs = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const key of order) {
        const cpuBefore = await servers[key].cpu();
        const run = await measure(key, duration);
        run.cpuPerRequest = ((await servers[key].cpu()) - cpuBefore) / run.total;
        runs[key].push(run);
      }
    }
    log('usage measured');
    const summary = (list) => ({
      rps: Math.round(median(list.map((run) => run.rps))),
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      cpuMicros: Math.round(median(list.map((run) => run.cpuPerRequest))),
    });
    return {
      on: summary(runs.on),
      off: summary(runs.off),
      ratio: Number(median(runs.on.map((run, round) => run.rps / runs.off[round].rps)).toFixed(2)),
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

/** The row, for the report. */
export function usageReport(usage) {
  return (
    `usage: tools/call with usage counted ${usage.on.rps} req/s (p50 ${usage.on.p50} ms, server CPU ` +
    `${usage.on.cpuMicros} µs/req), with usage: false ${usage.off.rps} req/s (${usage.off.cpuMicros} µs/req): ` +
    `${usage.ratio.toFixed(2)} × (target ≥ 0.95)`
  );
}
