/**
 * `auth_mode` through the console, on every database: set when publishing, changed by an edit,
 * shown in the server JSON, refused when it is neither `code` nor `oauth`, and obeyed at once by
 * the MCP endpoint that shares the store.
 */
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type HostApp, knexServerStore, mcpConsole, mcpServer, migrate } from '../../src/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';

const APP: HostApp = {
  id: 'notes',
  name: 'Notes',
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'text' }],
};
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describeEach(databases)('auth_mode in the console on $name', (database) => {
  let db: TestDatabase;
  let app: express.Express;
  beforeAll(async () => {
    db = await database.create();
    const knex = db.connect();
    await migrate(knex);
    const store = knexServerStore(knex);
    const loadApp = (appId: string) => (appId === APP.id ? APP : null);
    app = express();
    app.use(
      '/console/api',
      mcpConsole({ store, loadApp, authorize: () => ({ tenantId: 'acme', canEdit: true }) }),
    );
    app.use(
      mcpServer({
        resolveServer: store.resolver(loadApp),
        runApp: () => ({ outputs: {} }),
        auth: {
          verifyToken: (token) => (token === 'good' ? { subject: 'alice', scopes: [] } : null),
          authorizationServers: ['https://idp.example.com'],
        },
      }),
    );
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const path = '/console/api/apps/notes/server';
  const mcp = (code: string, token?: string) => {
    const call = request(app).post(`/mcp/server/${code}/mcp`).set('Accept', 'application/json').send(LIST);
    return token ? call.set('Authorization', `Bearer ${token}`) : call;
  };

  it('publishes in "oauth" mode, edits the mode, keeps it when the edit leaves it out, and the endpoint follows', async () => {
    const published = await request(app).post(path).send({ parameters: {}, auth_mode: 'oauth' });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ auth_mode: 'oauth', status: 'active' });
    const code = published.body.server_code as string;
    expect((await mcp(code)).status).toBe(401);
    expect((await mcp(code, 'good')).status).toBe(200);

    const kept = await request(app)
      .put(path)
      .send({ id: published.body.id, parameters: { text: 'x' } });
    expect(kept.status).toBe(200);
    expect(kept.body.auth_mode).toBe('oauth');

    const opened = await request(app)
      .put(path)
      .send({ id: published.body.id, parameters: {}, auth_mode: 'code' });
    expect(opened.body.auth_mode).toBe('code');
    expect((await mcp(code)).status).toBe(200);
    expect((await request(app).get(path)).body.auth_mode).toBe('code');

    expect((await request(app).delete(path)).status).toBe(204);
    const plain = await request(app).post(path).send({ parameters: {} });
    expect(plain.body.auth_mode).toBe('code');
    expect((await request(app).delete(path)).status).toBe(204);
  });

  it('refuses a mode that is neither code, oauth nor key, naming the field', async () => {
    const reply = await request(app).post(path).send({ parameters: {}, auth_mode: 'password' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: {
        code: 'invalid_request',
        message: 'Invalid request body: auth_mode must be code, oauth or key',
        fields: { auth_mode: 'must be code, oauth or key' },
      },
    });
  });
});
