/**
 * What every bench server shares: it listens on 127.0.0.1 (port chosen by the OS), tells the
 * orchestrator its URL (or URLs: one per path it serves) over the IPC channel, and answers admin
 * messages on that channel only (never over HTTP): `memory` (after a forced GC when started with
 * --expose-gc), `cpu` (the CPU time the process used so far, in µs) and `stop`.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

/**
 * The package under measure: this checkout's build, or with BENCH_DIST=<folder> another build
 * (e.g. `node scripts/build.mjs --out-dir`).
 */
export const loadPackage = () =>
  import(
    process.env.BENCH_DIST
      ? pathToFileURL(join(resolve(process.env.BENCH_DIST), 'index.js')).href
      : new URL('../../dist/index.js', import.meta.url).href
  );

/** Publishes `app` in `store` for `tenantId`, with no description or parameters. */
export const publishBenchApp = (store, app, tenantId = 'bench') =>
  store.createServer({ tenantId, appId: app.id, name: app.name, description: '', parameters: {} });

export function serve(app, paths, { onStop, key } = {}) {
  const server = app.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    const urls = [paths].flat().map((path) => `http://127.0.0.1:${port}${path}`);
    send({ type: 'ready', url: urls[0], urls, ...(key ? { key } : {}) });
  });
  server.keepAliveTimeout = 60_000;

  process.on('message', async (message) => {
    if (message?.type === 'memory') {
      if (typeof globalThis.gc === 'function') {
        globalThis.gc();
        globalThis.gc();
      }
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      const spaces = Object.fromEntries(
        v8
          .getHeapSpaceStatistics()
          .map((space) => [
            space.space_name,
            { physical: space.physical_space_size, used: space.space_used_size },
          ]),
      );
      send({ type: 'memory', rss, heapUsed, heapTotal, external, spaces });
    } else if (message?.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    } else if (message?.type === 'stop') {
      server.closeAllConnections?.();
      server.close();
      await onStop?.();
      process.exit(0);
    }
  });
  // The orchestrator went away: do not linger.
  process.on('disconnect', () => process.exit(0));
}

function send(message) {
  if (process.send) process.send(message);
  else console.log(JSON.stringify(message));
}
