/**
 * A client that does not read, on a stream that is stored for resumption (docs/http-contract.md,
 * "Long runs"): the app is held at its yield as on any stream, so the events stored stay as few as
 * those sent. Measured before: 100,000 stored event rows and 107 MiB for one response on SQLite.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { callWithoutReading, expectHeld, LoudRuns, rssMiB, startLoudHost } from '../helpers/backpressure.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import type { Host } from '../helpers/hosts.js';

describeEach(databases)('a client that does not read a stored stream, on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let store: KnexServerStore;
  let host: Host;
  let path: string;
  const loud = new LoudRuns();

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    await migrate(knex);
    store = knexServerStore(knex);
    ({ host, path } = await startLoudHost(loud, store, { store }));
  });
  afterAll(async () => {
    await host?.close();
    await store?.close();
    await db?.destroy();
  });

  const storedEvents = async () => {
    const [row] = await knex('mcp_stream_events').count({ n: '*' });
    return Number(row?.n);
  };

  it('the app is held at its yield, and no more events are stored than were taken', async () => {
    const before = rssMiB();
    const call = await callWithoutReading(host.url, path);
    try {
      const held = await expectHeld(loud, before);
      const stored = await storedEvents();
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThanOrEqual(held);
    } finally {
      loud.stop();
      call.close();
    }
  });
});
