/**
 * The caller keys row of `npm run bench` (docs/keys.md): a `"key"` server's `tools/call`, each
 * request carrying its caller key, against a `"code"` server's, both on the Knex store over SQLite
 * with the caches on, loaded in turns like the main rows. The ratio is the median of the rounds'
 * key/code ratios; the target is 0.9 or more.
 */
import { HEADERS } from './fixture.mjs';
import { load, METHODS, median, startServer } from './lib.mjs';

export async function measureKeyCall({ duration, rounds, connections, warmup }, log) {
  const servers = {
    key: await startServer('ours.mjs', { env: { BENCH_KEYS: '1' } }),
    code: await startServer('ours.mjs'),
  };
  const measure = (name, seconds) =>
    load(servers[name].url, {
      methods: ['tools/call'],
      connections,
      duration: seconds,
      key: servers[name].key,
    });
  try {
    if (!servers.key.key) throw new Error('the "key" bench server made no caller key');
    // A request without its key is refused: the row measures what it says.
    const refused = await fetch(servers.key.url, {
      method: 'POST',
      headers: HEADERS,
      body: METHODS['tools/call'],
    });
    if (refused.status !== 401) throw new Error(`the "key" server answered ${refused.status} without a key`);
    for (const name of Object.keys(servers)) await measure(name, warmup);
    const runs = { key: [], code: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['key', 'code'] : ['code', 'key'];
      for (const name of order) {
        const cpuBefore = await servers[name].cpu();
        const run = await measure(name, duration);
        run.cpuPerRequest = ((await servers[name].cpu()) - cpuBefore) / run.total;
        runs[name].push(run);
      }
    }
    log('caller keys measured');
    const summary = (list) => ({
      rps: Math.round(median(list.map((run) => run.rps))),
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      cpuMicros: Math.round(median(list.map((run) => run.cpuPerRequest))),
    });
    return {
      key: summary(runs.key),
      code: summary(runs.code),
      ratio: Number(median(runs.key.map((run, round) => run.rps / runs.code[round].rps)).toFixed(2)),
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

/** The row, for the report. */
export function keyReport(keys) {
  return (
    `caller keys: a "key" server's tools/call ${keys.key.rps} req/s (p50 ${keys.key.p50} ms, server CPU ` +
    `${keys.key.cpuMicros} µs/req) against a "code" server's ${keys.code.rps} req/s (${keys.code.cpuMicros} µs/req): ` +
    `${keys.ratio.toFixed(2)} × (target ≥ 0.9)`
  );
}
