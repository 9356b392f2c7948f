/**
 * The caller keys row of `npm run bench` (docs/keys.md): a `"key"` server's `tools/call`, each
 * request carrying its caller key, against a `"code"` server's, both on the Knex store over SQLite
 * with the caches on, loaded in turns like the main rows. The ratio is the median of the rounds'
 * key/code ratios; the target is 0.9 or more.
 */
import { HEADERS } from './fixture.mjs';
import { load, METHODS, measureInTurns, startServer } from './lib.mjs';

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
    const { figures, ratio } = await measureInTurns(
      ['key', 'code'],
      { duration, rounds, warmup },
      measure,
      (name) => servers[name].cpu(),
    );
    log('caller keys measured');
    return { key: figures.key, code: figures.code, ratio: ratio('key', 'code') };
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
