/**
 * A client that does not read slows its run, not the server (docs/http-contract.md, "Long runs"):
 * while the connection does not drain, the package takes no more of the app's events, so one reply
 * holds little however much the app says. Measured before: 213 MiB buffered for one response.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/index.js';
import {
  callWithoutReading,
  LOUD_APP,
  LOUD_EVENTS,
  LoudRuns,
  rssMiB,
  whenSettled,
} from '../helpers/backpressure.js';
import { type Host, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';

/**
 * Events a paused reply may have taken: what the connection's buffers and the kernel's socket
 * buffers hold on loopback (a few MiB), with room to spare; 200 MiB is 3,200.
 */
const MAX_TAKEN = 320;
/** Resident memory one paused reply may add, generously: the app's whole output is 200 MiB. */
const MAX_GROWTH_MIB = 64;

describe('a client that does not read', () => {
  let host: Host | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  async function start(loud: LoudRuns) {
    const store = memoryServerStore();
    const server = await store.createServer({
      tenantId: 't',
      appId: LOUD_APP.id,
      name: LOUD_APP.name,
      description: '',
      parameters: {},
    });
    const pkg = await loadPackage(5);
    host = await startHost(hostVariants[0]!, pkg, {
      resolveServer: store.resolver((appId) => (appId === LOUD_APP.id ? LOUD_APP : null)),
      runApp: () => loud.run(),
      onError: (error) => {
        throw error;
      },
    });
    return host.path(server.serverCode);
  }

  it.each([['2025-06-18'], ['2026-07-28']])(
    '%s: the app is held at its yield while the reply is not read, and goes on once it is',
    async (version) => {
      const loud = new LoudRuns();
      const path = await start(loud);
      const before = rssMiB();
      const call = await callWithoutReading(host!.url, path, version);
      try {
        const held = await whenSettled(() => loud.taken, LOUD_EVENTS);
        const growth = rssMiB() - before;
        expect(held).toBeGreaterThan(0);
        expect(held).toBeLessThan(MAX_TAKEN);
        expect(growth).toBeLessThan(MAX_GROWTH_MIB);
        // Reading again lets the run go on: it was paused, not stuck.
        call.read();
        const afterReading = await whenSettled(() => loud.taken, held + MAX_TAKEN);
        expect(afterReading).toBeGreaterThanOrEqual(held + MAX_TAKEN);
        expect(call.bytesRead).toBeGreaterThan(held * 64 * 1024);
      } finally {
        loud.stop();
        call.close();
      }
    },
  );
});
