/**
 * The consoles in a database outage (docs/http-contract.md, "Console API"): every query of the
 * store has the deadline `resolveTimeoutMs`, and an outage answers 503 with `Retry-After` and the
 * console's JSON error, never a 500 and never a hang, whether the database refuses connections or
 * the network drops every packet. Measured before: the console hung past 20 s.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { knexToolProviderStore, mcpToolProviderConsole } from '../../src/index.js';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { Apps, authorize, consoleAs, createHost, expectError, TENANT_A } from '../helpers/console-host.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type CutDatabase, cutDatabase, OUTAGES } from '../helpers/outage.js';

const postgres = databases.filter((kind) => kind.name === 'postgres');
const DEADLINE_MS = 300;
const UNAVAILABLE = 'The database is temporarily unavailable: try again later';

describeEach(postgres)('the consoles in a database outage, on $name', (kind) => {
  let db: TestDatabase;
  let direct: Knex;
  let cut: CutDatabase;
  let store: KnexServerStore;
  const apps = new Apps();

  beforeAll(async () => {
    db = await kind.create();
    direct = db.connect();
    await migrate(direct);
    cut = await cutDatabase(direct);
    store = knexServerStore(cut.knex);
  });
  afterEach(() => cut.proxy.restore());
  afterAll(async () => {
    await store?.close();
    await cut?.close();
    await db?.destroy();
  });

  const expectUnavailable = (reply: request.Response) => {
    expectError(reply, 503, 'temporarily_unavailable', UNAVAILABLE);
    expect(reply.headers['retry-after']).toBe('5');
  };

  describe.each(OUTAGES)('when the database %s', (_label, how) => {
    it('reading, publishing and rotating answer 503 with Retry-After; the cause goes to onError', async () => {
      const { app, reports } = createHost(store, apps, { resolveTimeoutMs: DEADLINE_MS });
      const editor = consoleAs(app, 'editor-a');
      const published = apps.add(TENANT_A);
      const server = (await editor.publish(published.id)).body;
      expect(server.id).toEqual(expect.any(String));
      const fresh = apps.add(TENANT_A);
      cut.proxy.cut(how);
      expectUnavailable(await editor.get(published.id));
      expectUnavailable(await editor.publish(fresh.id));
      expectUnavailable(await editor.refresh(server.id));
      expect(reports.map((report) => report.context.operation)).toEqual(['get', 'publish', 'refresh']);
      cut.proxy.restore();
      // Back: the console answers again.
      for (;;) {
        const reply = await editor.get(published.id);
        if (reply.status === 200) {
          expect(reply.body).toMatchObject({ id: server.id });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    it('the tool provider console answers the same 503', async () => {
      const providers = knexToolProviderStore(cut.knex, { encryptionKey: randomBytes(32) });
      const reports: unknown[] = [];
      const express = (await import('express')).default;
      const app = express();
      app.use(
        '/providers',
        mcpToolProviderConsole({
          store: providers,
          authorize,
          resolveTimeoutMs: DEADLINE_MS,
          onError: (error) => {
            reports.push(error);
          },
        }),
      );
      cut.proxy.cut(how);
      const reply = await request(app).get('/providers').set('Authorization', 'Bearer viewer-a');
      expectUnavailable(reply);
      expect(reports).toHaveLength(1);
    });
  });
});
