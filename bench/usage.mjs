/**
 * The usage row of `npm run bench` (docs/usage.md): `tools/call` on ours with usage counted (the
 * default: a counter per server, tool, caller and hour in memory, written every 5 s) against the
 * same server with `usage: false`, loaded in turns in the same run; the ratio is the median of the
 * per-round ratios (target ≥ 0.95).
 */
import { load, measureInTurns, startServer } from './lib.mjs';

export async function measureUsage({ duration, rounds, connections, warmup }, log) {
  const servers = {
    on: await startServer('ours.mjs'),
    off: await startServer('ours.mjs', { env: { BENCH_USAGE: 'off' } }),
  };
  const measure = (key, seconds) =>
    load(servers[key].urls, { methods: ['tools/call'], connections, duration: seconds });
  try {
    const { figures, ratio } = await measureInTurns(
      ['on', 'off'],
      { duration, rounds, warmup },
      measure,
      (name) => servers[name].cpu(),
    );
    log('usage measured');
    return { on: figures.on, off: figures.off, ratio: ratio('on', 'off') };
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
