/**
 * A client that does not read slows its run, not the server (docs/http-contract.md, "Long runs"):
 * while the connection does not drain, the package takes no more of the app's events, so one reply
 * holds little however much the app says. Measured before: 213 MiB buffered for one response.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/index.js';
import {
  callWithoutReading,
  expectHeld,
  LoudRuns,
  MAX_TAKEN,
  rssMiB,
  startLoudHost,
  whenSettled,
} from '../helpers/backpressure.js';
import type { Host } from '../helpers/hosts.js';

describe('a client that does not read', () => {
  let host: Host | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  async function start(loud: LoudRuns) {
    let path: string;
    ({ host, path } = await startLoudHost(loud, memoryServerStore()));
    return path;
  }

  it.each([['2025-06-18'], ['2026-07-28']])(
    '%s: the app is held at its yield while the reply is not read, and goes on once it is',
    async (version) => {
      const loud = new LoudRuns();
      const path = await start(loud);
      const before = rssMiB();
      const call = await callWithoutReading(host!.url, path, version);
      try {
        const held = await expectHeld(loud, before);
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
