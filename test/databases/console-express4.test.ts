/**
 * The console on an Express 4 host. express is a peer dependency, so on such a host the package's
 * own `import … from 'express'` resolves to Express 4: its Router and its body parser (body-parser
 * 1.x, which fills `req.body` with `{}` when there is no body) are the ones under test here.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type HostApp,
  knexServerStore,
  mcpConsole,
  mcpServer,
  migrate,
  type ServerStore,
} from '../../src/index.js';
import { expectJson } from '../helpers/console-host.js';
import { databases, type TestDatabase } from '../helpers/databases.js';

vi.mock('express', async () => await vi.importActual('express4'));

const TENANT = 'tenant-4';
const HOST_ERROR = '<!DOCTYPE html><p>host error page</p>';

const apps = new Map<string, HostApp>();
const loadApp = async (appId: string, tenantId: string) =>
  tenantId === TENANT ? (apps.get(appId) ?? null) : null;
const newApp = (): HostApp => {
  const app: HostApp = {
    id: `app-${randomUUID()}`,
    name: 'Title Case',
    mode: 'completion',
    description: 'Capitalises words',
    inputForm: [{ type: 'text-input', variable: 'text', required: true }],
  };
  apps.set(app.id, app);
  return app;
};

function initialize(app: express.Express, serverCode: string) {
  return request(app)
    .post(`/mcp/server/${serverCode}/mcp`)
    .set('Content-Type', 'application/json')
    .send({
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {} },
    });
}

const sqlite = databases.find((kind) => kind.name === 'sqlite')!;

describe.each([
  { name: 'Express 4', globalJson: false },
  { name: 'Express 4 with a global express.json()', globalJson: true },
])('the console on $name', ({ globalJson }) => {
  let db: TestDatabase;
  let store: ServerStore;
  let host: express.Express;

  beforeAll(async () => {
    db = await sqlite.create();
    const knex = db.connect();
    await migrate(knex);
    store = knexServerStore(knex);
    host = express();
    if (globalJson) host.use(express.json());
    host.use(
      '/console/api',
      mcpConsole({
        store,
        loadApp,
        allowGetRefresh: true,
        authorize: (req) => {
          if (req.headers.authorization === 'Bearer editor') return { tenantId: TENANT, canEdit: true };
          if (req.headers.authorization === 'Bearer viewer') return { tenantId: TENANT, canEdit: false };
          return null;
        },
      }),
    );
    host.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp: () => ({ answer: 'ok' }) }));
    host.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).type('html').send(HOST_ERROR);
    });
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const path = (appId: string) => `/console/api/apps/${appId}/server`;

  it('runs on Express 4', () => {
    // `express.query` exists in Express 4 only: the package and the host really are on Express 4 here.
    expect(typeof (express as unknown as { query?: unknown }).query).toBe('function');
  });

  it('publishes, shows, edits, rotates with GET and POST, and unpublishes', async () => {
    const app = newApp();
    const created = await request(host)
      .post(path(app.id))
      .set('Authorization', 'Bearer editor')
      .send({ parameters: { text: 'Words to capitalise' } });
    expectJson(created, 201);
    expect(created.body).toMatchObject({
      name: 'Title Case',
      description: 'Capitalises words',
      status: 'active',
      parameters: { text: 'Words to capitalise' },
      url: `/mcp/server/${created.body.server_code}/mcp`,
    });

    const shown = await request(host).get(path(app.id)).set('Authorization', 'Bearer viewer');
    expectJson(shown, 200);
    expect(shown.body).toEqual(created.body);

    const edited = await request(host)
      .put(path(app.id))
      .set('Authorization', 'Bearer editor')
      .send({ id: created.body.id, description: 'Edited', parameters: {}, status: 'inactive' });
    expectJson(edited, 200);
    expect(edited.body).toMatchObject({ description: 'Edited', parameters: {}, status: 'inactive' });
    const inactive = await initialize(host, created.body.server_code);
    expect(inactive.status).toBe(404);
    expect(inactive.body.error.message).toBe('MCP server is not active');

    let code = created.body.server_code as string;
    for (const method of ['get', 'post'] as const) {
      const rotated = await request(host)
        [method](`/console/api/apps/${created.body.id}/server/refresh`)
        .set('Authorization', 'Bearer editor');
      expectJson(rotated, 200);
      expect(rotated.body.server_code).not.toBe(code);
      const old = await initialize(host, code);
      expect(old.status).toBe(404);
      expect(old.body.error.message).toBe('MCP server not found');
      code = rotated.body.server_code;
    }

    const deleted = await request(host).delete(path(app.id)).set('Authorization', 'Bearer editor');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await request(host).get(path(app.id)).set('Authorization', 'Bearer editor');
    expectJson(gone, 200);
    expect(gone.text).toBe('null');
  });

  it('a write without a body answers 400 naming the required field', async () => {
    const app = newApp();
    const reply = await request(host).post(path(app.id)).set('Authorization', 'Bearer editor');
    expectJson(reply, 400);
    expect(reply.body).toEqual({
      error: {
        code: 'invalid_request',
        message: 'Invalid request body: parameters is required',
        fields: { parameters: 'is required' },
      },
    });
  });

  it('bad fields answer 400 with field-level messages', async () => {
    const app = newApp();
    const reply = await request(host)
      .post(path(app.id))
      .set('Authorization', 'Bearer editor')
      .send({ description: 'd'.repeat(300), parameters: { text: 1 } });
    expectJson(reply, 400);
    expect(reply.body).toEqual({
      error: {
        code: 'invalid_request',
        message:
          'Invalid request body: description must be at most 255 characters; parameters.text must be a string',
        fields: { description: 'must be at most 255 characters', 'parameters.text': 'must be a string' },
      },
    });
  });

  it('a body that is not valid JSON answers 400, unless the host parses bodies itself', async () => {
    const app = newApp();
    const reply = await request(host)
      .post(path(app.id))
      .set('Authorization', 'Bearer editor')
      .set('Content-Type', 'application/json')
      .send('{"parameters":');
    if (globalJson) {
      // The host's express.json() reads the body before the console does: its failure is the host's to answer.
      expect(reply.status).toBe(500);
      expect(reply.text).toBe(HOST_ERROR);
      return;
    }
    expectJson(reply, 400);
    expect(reply.body).toEqual({
      error: { code: 'invalid_json', message: 'The request body is not valid JSON' },
    });
  });

  it('a read-only caller gets 403 and an anonymous one 401', async () => {
    const app = newApp();
    const forbidden = await request(host)
      .post(path(app.id))
      .set('Authorization', 'Bearer viewer')
      .send({ parameters: {} });
    expectJson(forbidden, 403);
    expect(forbidden.body).toEqual({
      error: { code: 'forbidden', message: 'You are not allowed to edit MCP servers' },
    });
    const anonymous = await request(host).delete(path(app.id));
    expectJson(anonymous, 401);
    expect(anonymous.body).toEqual({ error: { code: 'unauthorized', message: 'Authentication required' } });
  });

  it('another method answers 405 with Allow', async () => {
    const reply = await request(host).patch(path('any')).set('Authorization', 'Bearer editor');
    expectJson(reply, 405);
    expect(reply.headers.allow).toBe('GET, POST, PUT, DELETE');
    expect(reply.body).toEqual({
      error: { code: 'method_not_allowed', message: 'Method not allowed: PATCH' },
    });
  });
});
