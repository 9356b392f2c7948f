/**
 * Codes hashed at rest (docs/keys.md, "Codes hashed at rest"): a database made before, with its
 * codes stored as they are, is converted in place by `express-app-mcp hash-codes`, twice without
 * harm; the old URLs keep working through a `hashCodes` store, no code is left in any row, and
 * the console shows a code only in the reply that makes one.
 */

import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.js';
import { parseDatabaseUrl } from '../../src/cli/database-url.js';
import { knexServerStore, mcpConsole, mcpServer, migrate } from '../../src/index.js';
import type { HostApp, ServerRecord } from '../../src/types/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';
import { dumpAllTables } from '../helpers/key-world.js';
import { request } from '../helpers/rpc.js';

const appOf = (id: string): HostApp => ({ id, name: `App ${id}`, mode: 'workflow', inputForm: [] });
const loadApp = (id: string) => appOf(id);

describeEach(databases)('hash-codes on a database made before it, on $name', (kind) => {
  let db: TestDatabase;
  let before: ServerRecord[];
  let host: Host;
  let app: express.Express;
  const command = () =>
    runCommand('hash-codes', {
      database: parseDatabaseUrl(db.url, process.cwd()),
      tablePrefix: '',
      all: false,
    });

  beforeAll(async () => {
    db = await kind.create();
    const knex = db.connect();
    await migrate(knex);
    // Published with the codes stored as they are, as every database before hashCodes.
    const plain = knexServerStore(knex);
    before = [];
    for (const id of ['one', 'two', 'three']) {
      before.push(
        await plain.createServer({ tenantId: 't', appId: id, name: id, description: '', parameters: {} }),
      );
    }
    await plain.close();
  });
  afterAll(async () => {
    await host?.close();
    await db?.destroy();
  });

  it('converts every code in place, and a second run finds nothing to do', async () => {
    expect(await dumpAllTables(db.connect())).toContain(before[0]!.serverCode);
    expect(await command()).toEqual([
      'Hashed 3 server codes: their URLs keep working; the console now shows each only as a hint.',
      'Create the store with knexServerStore(knex, { hashCodes: true }) so that new and rotated codes are hashed too.',
    ]);
    expect(await command()).toEqual(['No server code left to hash: every code is stored hashed.']);
    const dump = await dumpAllTables(db.connect());
    for (const server of before) {
      expect(dump).not.toContain(server.serverCode);
      expect(dump).toContain(`"code_hint":"${server.serverCode.slice(0, 4)}"`);
    }
  });

  it('the old URLs still resolve through a hashCodes store; new and rotated codes are stored hashed', async () => {
    const store = knexServerStore(db.connect(), { hashCodes: true });
    app = express();
    app.use(
      '/console/api',
      mcpConsole({ store, loadApp, authorize: () => ({ tenantId: 't', canEdit: true }) }),
    );
    app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp: () => ({ outputs: { ok: true } }) }));
    host = await serveApp(app, hostVariants[0]!);
    for (const server of before) {
      const reply = await host.post(
        server.serverCode,
        request(1, 'tools/call', { name: `App_${server.appId}`, arguments: {} }),
      );
      expect({ status: reply.status, result: (reply.json as { result?: unknown }).result }).toMatchObject({
        status: 200,
        result: { content: [{ type: 'text', text: '{"ok":true}' }], isError: false },
      });
    }
    // The console shows no code any more, only its hint.
    const shown = await supertest(app).get('/console/api/apps/one/server');
    expect(shown.body).toMatchObject({
      server_code: null,
      url: null,
      code_hint: before[0]!.serverCode.slice(0, 4),
    });
    // Publishing and rotating show the new code once.
    const published = await supertest(app).post('/console/api/apps/four/server').send({ parameters: {} });
    expect(published.status).toBe(201);
    const code = published.body.server_code as string;
    expect(published.body).toMatchObject({ url: `/mcp/server/${code}/mcp`, code_hint: code.slice(0, 4) });
    expect((await supertest(app).get('/console/api/apps/four/server')).body).toMatchObject({
      server_code: null,
      url: null,
    });
    const rotated = await supertest(app).post(`/console/api/apps/${before[1]!.id}/server/refresh`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.server_code as string;
    expect(fresh).toMatch(/^[A-Za-z0-9]{16}$/);
    expect((await host.post(before[1]!.serverCode, request(1, 'ping'))).status).toBe(404);
    expect((await host.post(fresh, request(1, 'ping'))).status).toBe(200);
    const dump = await dumpAllTables(db.connect());
    expect(dump).not.toContain(code);
    expect(dump).not.toContain(fresh);
    expect(await command()).toEqual(['No server code left to hash: every code is stored hashed.']);
    await store.close();
  });
});
