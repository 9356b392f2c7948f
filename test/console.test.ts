import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import request, { type Response as Reply, type Test } from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type ConsoleAccess,
  type ConsoleErrorContext,
  type HostApp,
  knexServerStore,
  type McpConsoleOptions,
  mcpConsole,
  mcpServer,
  memoryServerStore,
  migrate,
  type ServerStore,
} from '../src/index.js';
import { databases, type TestDatabase } from './helpers/databases.js';

const TENANT_A = 'tenant-a';
const TENANT_B = 'tenant-b';
const CODE = /^[A-Za-z0-9]{16}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOST_404 = '<!DOCTYPE html><p>host 404 page</p>';
const HOST_500 = '<!DOCTYPE html><p>host error page</p>';

/** The console's callers, by bearer token. */
const ACCESS: Record<string, ConsoleAccess> = {
  'editor-a': { tenantId: TENANT_A, canEdit: true },
  'viewer-a': { tenantId: TENANT_A, canEdit: false },
  'editor-b': { tenantId: TENANT_B, canEdit: true },
};

const authorize = (req: Request): ConsoleAccess | null => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return (token && ACCESS[token]) || null;
};

/** The host's apps, per tenant; each test registers its own so tests never share rows. */
class Apps {
  readonly #apps = new Map<string, HostApp>();

  add(tenantId: string, overrides: Partial<HostApp> = {}): HostApp {
    const app: HostApp = {
      id: `app-${randomUUID()}`,
      name: 'Text Stats',
      mode: 'workflow',
      description: 'Counts the words of a text',
      inputForm: [
        { type: 'paragraph', variable: 'text', label: 'Text', required: true },
        { type: 'number', variable: 'top_n', label: 'Top N' },
      ],
      ...overrides,
    };
    this.#apps.set(`${tenantId}/${app.id}`, app);
    return app;
  }

  remove(tenantId: string, appId: string): void {
    this.#apps.delete(`${tenantId}/${appId}`);
  }

  load = async (appId: string, tenantId: string): Promise<HostApp | null> =>
    this.#apps.get(`${tenantId}/${appId}`) ?? null;
}

/**
 * A host as a user writes it: the console under `/console/api`, the MCP endpoint at the root, then
 * an HTML 404 page and an HTML error handler that console replies must never fall through to.
 */
function createHost(store: ServerStore, apps: Apps, overrides: Partial<McpConsoleOptions> = {}) {
  const reports: { error: unknown; context: ConsoleErrorContext }[] = [];
  const app = express();
  app.use(
    '/console/api',
    mcpConsole({
      store,
      loadApp: apps.load,
      authorize,
      onError: (error, context) => reports.push({ error, context }),
      ...overrides,
    }),
  );
  app.use(
    mcpServer({
      resolveServer: store.resolver(apps.load),
      runApp: () => ({ outputs: { word_count: 2 } }),
      onError: () => {},
    }),
  );
  app.use((_req: Request, res: Response) => {
    res.status(404).type('html').send(HOST_404);
  });
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).type('html').send(HOST_500);
  });
  return { app, reports };
}

/** The console, as one caller (`token` undefined: not signed in). */
function consoleAs(app: express.Express, token?: string) {
  const as = (test: Test) => (token ? test.set('Authorization', `Bearer ${token}`) : test);
  const path = (appId: string) => `/console/api/apps/${encodeURIComponent(appId)}/server`;
  return {
    get: (appId: string) => as(request(app).get(path(appId))),
    publish: (appId: string, body: unknown = { parameters: {} }) =>
      as(request(app).post(path(appId))).send(body as object),
    update: (appId: string, body: unknown) => as(request(app).put(path(appId))).send(body as object),
    refresh: (serverId: string, method: 'get' | 'post' = 'post') =>
      as(request(app)[method](`/console/api/apps/${encodeURIComponent(serverId)}/server/refresh`)),
    unpublish: (appId: string) => as(request(app).delete(path(appId))),
  };
}

/** Every console reply is JSON that no cache keeps (it carries server codes). */
function expectJson(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.headers['cache-control']).toBe('no-store');
}

function expectError(
  reply: Reply,
  status: number,
  code: string,
  message: string,
  fields?: Record<string, string>,
): void {
  expectJson(reply, status);
  expect(reply.body).toEqual({ error: fields ? { code, message, fields } : { code, message } });
}

/** The MCP endpoint's answer to an `initialize` on a code. */
function initialize(app: express.Express, serverCode: string) {
  return request(app)
    .post(`/mcp/server/${serverCode}/mcp`)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'console-test', version: '1' },
      },
    });
}

async function expectMcpServes(app: express.Express, serverCode: string): Promise<void> {
  const reply = await initialize(app, serverCode);
  expect(reply.status).toBe(200);
  expect(reply.body.result.protocolVersion).toBe('2025-06-18');
}

async function expectMcpRefuses(app: express.Express, serverCode: string, message: string): Promise<void> {
  const reply = await initialize(app, serverCode);
  expect(reply.status).toBe(404);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message } });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe.each(databases)('the console API on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let store: ServerStore;
  let apps: Apps;
  let host: ReturnType<typeof createHost>;
  let editor: ReturnType<typeof consoleAs>;
  let viewer: ReturnType<typeof consoleAs>;
  let otherTenant: ReturnType<typeof consoleAs>;
  let anonymous: ReturnType<typeof consoleAs>;

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    await migrate(knex);
    store = knexServerStore(knex);
    apps = new Apps();
    host = createHost(store, apps);
    editor = consoleAs(host.app, 'editor-a');
    viewer = consoleAs(host.app, 'viewer-a');
    otherTenant = consoleAs(host.app, 'editor-b');
    anonymous = consoleAs(host.app);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  beforeEach(() => {
    host.reports.length = 0;
  });

  /** Publishes a new app of tenant A through the console and returns the app and the server JSON. */
  async function published(
    body: object = { description: 'Word statistics', parameters: { text: 'The text' } },
  ) {
    const app = apps.add(TENANT_A);
    const reply = await editor.publish(app.id, body);
    expect(reply.status).toBe(201);
    return { app, server: reply.body };
  }

  describe('GET /apps/:appId/server', () => {
    it('an app without a server answers 200 with null', async () => {
      const app = apps.add(TENANT_A);
      const reply = await editor.get(app.id);
      expectJson(reply, 200);
      expect(reply.text).toBe('null');
    });

    it('an app with a server answers 200 with the server', async () => {
      const { app, server } = await published();
      const reply = await editor.get(app.id);
      expectJson(reply, 200);
      expect(reply.body).toEqual(server);
    });

    it('a read-only caller can read', async () => {
      const { app, server } = await published();
      const reply = await viewer.get(app.id);
      expectJson(reply, 200);
      expect(reply.body).toEqual(server);
    });

    it('an app the host does not know answers 404', async () => {
      expectError(await editor.get(`app-${randomUUID()}`), 404, 'not_found', 'app not found');
    });

    it('an app of another tenant answers 404', async () => {
      const { app } = await published();
      expectError(await otherTenant.get(app.id), 404, 'not_found', 'app not found');
    });

    it('the same app id in another tenant shows that tenant its own server, or none', async () => {
      const { app } = await published();
      apps.add(TENANT_B, { id: app.id });
      const reply = await otherTenant.get(app.id);
      expectJson(reply, 200);
      expect(reply.text).toBe('null');
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app } = await published();
      expectError(await anonymous.get(app.id), 401, 'unauthorized', 'Authentication required');
      expectError(
        await consoleAs(host.app, 'forged').get(app.id),
        401,
        'unauthorized',
        'Authentication required',
      );
    });
  });

  describe('POST /apps/:appId/server (publish)', () => {
    it('publishing answers 201 with a new active server named after the app', async () => {
      const app = apps.add(TENANT_A, { name: 'Customer Support Bot!' });
      const before = nowSeconds();
      const reply = await editor.publish(app.id, {
        description: 'Answers customers',
        parameters: { text: 'The customer question' },
      });
      const after = nowSeconds();
      expectJson(reply, 201);
      const server = reply.body;
      expect(Object.keys(server).sort()).toEqual(
        [
          'annotations',
          'created_at',
          'description',
          'id',
          'name',
          'parameters',
          'server_code',
          'status',
          'updated_at',
          'url',
        ].sort(),
      );
      expect(server).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Customer Support Bot!',
        server_code: expect.stringMatching(CODE),
        description: 'Answers customers',
        status: 'active',
        parameters: { text: 'The customer question' },
        annotations: {},
        created_at: expect.any(Number),
        updated_at: server.created_at,
        url: `/mcp/server/${server.server_code}/mcp`,
      });
      expect(Number.isInteger(server.created_at)).toBe(true);
      expect(server.created_at).toBeGreaterThanOrEqual(before);
      expect(server.created_at).toBeLessThanOrEqual(after);

      const stored = await store.getServerByApp(TENANT_A, app.id);
      expect(stored).toMatchObject({
        id: server.id,
        tenantId: TENANT_A,
        appId: app.id,
        serverCode: server.server_code,
      });
      await expectMcpServes(host.app, server.server_code);
    });

    it('without a description (absent, null or empty) the server takes the app description', async () => {
      for (const body of [
        { parameters: {} },
        { description: null, parameters: {} },
        { description: '', parameters: {} },
      ]) {
        const app = apps.add(TENANT_A, { description: 'From the app' });
        const reply = await editor.publish(app.id, body);
        expectJson(reply, 201);
        expect(reply.body.description).toBe('From the app');
      }
      const bare = apps.add(TENANT_A, { description: undefined });
      const reply = await editor.publish(bare.id, { parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.description).toBe('');
    });

    it('a description of 255 characters is accepted, counted in characters rather than UTF-16 units', async () => {
      const app = apps.add(TENANT_A);
      const description = '🙂'.repeat(255);
      const reply = await editor.publish(app.id, { description, parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.description).toBe(description);
    });

    it('publishing an app that already has a server answers 409 and keeps the first', async () => {
      const { app, server } = await published();
      const reply = await editor.publish(app.id, { description: 'Second', parameters: {} });
      expectError(reply, 409, 'server_exists', 'This app already has an MCP server');
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('two publishes of one app at once create one server: one 201, one 409', async () => {
      const app = apps.add(TENANT_A);
      const replies = await Promise.all([editor.publish(app.id), editor.publish(app.id)]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
      const created = replies.find((reply) => reply.status === 201)!;
      expect((await editor.get(app.id)).body).toEqual(created.body);
    });

    it('the same app id may be published once per tenant', async () => {
      const { app, server } = await published();
      apps.add(TENANT_B, { id: app.id });
      const reply = await otherTenant.publish(app.id, { parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.id).not.toBe(server.id);
      expect(reply.body.server_code).not.toBe(server.server_code);
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('an app the host does not know answers 404 and publishes nothing', async () => {
      const appId = `app-${randomUUID()}`;
      expectError(await editor.publish(appId), 404, 'not_found', 'app not found');
      expect(await store.getServerByApp(TENANT_A, appId)).toBeNull();
    });

    it('an app of another tenant answers 404 and publishes nothing', async () => {
      const app = apps.add(TENANT_A);
      expectError(await otherTenant.publish(app.id), 404, 'not_found', 'app not found');
      expect(await store.getServerByApp(TENANT_B, app.id)).toBeNull();
      expect(await store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a read-only caller gets 403 and nothing is published', async () => {
      const app = apps.add(TENANT_A);
      expectError(await viewer.publish(app.id), 403, 'forbidden', 'You are not allowed to edit MCP servers');
      expect(await store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a read-only caller gets 403 for an unknown app too, so refusals do not reveal which apps exist', async () => {
      expectError(
        await viewer.publish(`app-${randomUUID()}`, { nonsense: true }),
        403,
        'forbidden',
        'You are not allowed to edit MCP servers',
      );
    });

    it('a caller who is not signed in gets 401, before the body is even looked at', async () => {
      const app = apps.add(TENANT_A);
      const reply = await anonymous.publish(app.id).set('Content-Type', 'application/json').send('{not json');
      expectError(reply, 401, 'unauthorized', 'Authentication required');
    });

    it('missing parameters answer 400 naming the field', async () => {
      const app = apps.add(TENANT_A);
      expectError(
        await editor.publish(app.id, { description: 'x' }),
        400,
        'invalid_request',
        'Invalid request body: parameters is required',
        { parameters: 'is required' },
      );
    });

    it('a publish without a body answers 400 naming the required field', async () => {
      const app = apps.add(TENANT_A);
      const reply = await request(host.app)
        .post(`/console/api/apps/${app.id}/server`)
        .set('Authorization', 'Bearer editor-a');
      expectError(reply, 400, 'invalid_request', 'Invalid request body: parameters is required', {
        parameters: 'is required',
      });
    });

    it('parameters that are not an object of strings answer 400 naming each bad field', async () => {
      const app = apps.add(TENANT_A);
      for (const parameters of [['text'], 'text', null, 3]) {
        expectError(
          await editor.publish(app.id, { parameters }),
          400,
          'invalid_request',
          'Invalid request body: parameters must be an object of strings',
          { parameters: 'must be an object of strings' },
        );
      }
      expectError(
        await editor.publish(app.id, { parameters: { text: 'ok', top_n: 3, flag: null } }),
        400,
        'invalid_request',
        'Invalid request body: parameters.top_n must be a string; parameters.flag must be a string',
        { 'parameters.top_n': 'must be a string', 'parameters.flag': 'must be a string' },
      );
      expect(await store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a description over 255 characters or not a string answers 400, with every problem at once', async () => {
      const app = apps.add(TENANT_A);
      expectError(
        await editor.publish(app.id, { description: 'x'.repeat(256) }),
        400,
        'invalid_request',
        'Invalid request body: description must be at most 255 characters; parameters is required',
        { description: 'must be at most 255 characters', parameters: 'is required' },
      );
      expectError(
        await editor.publish(app.id, { description: 42, parameters: {} }),
        400,
        'invalid_request',
        'Invalid request body: description must be a string',
        { description: 'must be a string' },
      );
      expect(await store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a JSON body that is not an object answers 400', async () => {
      const app = apps.add(TENANT_A);
      expectError(
        await editor.publish(app.id, ['parameters']),
        400,
        'invalid_request',
        'Invalid request body: the request body must be a JSON object',
      );
    });

    it('a body that is not valid JSON answers 400 without quoting it', async () => {
      const app = apps.add(TENANT_A);
      const reply = await editor
        .publish(app.id)
        .set('Content-Type', 'application/json')
        .send('{"parameters": secret');
      expectError(reply, 400, 'invalid_json', 'The request body is not valid JSON');
    });

    it('a body that is not JSON answers 415', async () => {
      const app = apps.add(TENANT_A);
      const reply = await editor.publish(app.id).set('Content-Type', 'text/plain').send('parameters=1');
      expectError(reply, 415, 'unsupported_media_type', 'Content-Type must be application/json');
      expect(await store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a body over 100 kB answers 413', async () => {
      const app = apps.add(TENANT_A);
      const reply = await editor.publish(app.id, { parameters: { text: 'x'.repeat(200_000) } });
      expectError(reply, 413, 'payload_too_large', 'The request body is too large');
    });
  });

  describe('PUT /apps/:appId/server (edit)', () => {
    it('editing replaces the parameters and description and answers 200 with the server', async () => {
      const { app, server } = await published();
      const reply = await editor.update(app.id, {
        id: server.id,
        description: 'New description',
        parameters: { text: 'What to count', top_n: 'How many words' },
      });
      expectJson(reply, 200);
      expect(reply.body).toEqual({
        ...server,
        description: 'New description',
        parameters: { text: 'What to count', top_n: 'How many words' },
        updated_at: expect.any(Number),
      });
      expect(reply.body.updated_at).toBeGreaterThanOrEqual(server.updated_at);
      // `updated_at` is shown in seconds; underneath it moved strictly forward.
      const stored = await store.getServerById(server.id);
      expect(stored?.updatedAt.getTime()).toBeGreaterThan(stored!.createdAt.getTime());
      expect((await editor.get(app.id)).body).toEqual(reply.body);
    });

    it('a null or absent description keeps it; an empty one resets it to the app description', async () => {
      const { app, server } = await published();
      for (const body of [
        { id: server.id, parameters: {} },
        { id: server.id, description: null, parameters: {} },
      ]) {
        const reply = await editor.update(app.id, body);
        expectJson(reply, 200);
        expect(reply.body.description).toBe('Word statistics');
      }
      const reset = await editor.update(app.id, { id: server.id, description: '', parameters: {} });
      expectJson(reset, 200);
      expect(reset.body.description).toBe('Counts the words of a text');
    });

    it('deactivating makes the MCP endpoint answer 404 "MCP server is not active"; reactivating restores the same code', async () => {
      const { app, server } = await published();
      await expectMcpServes(host.app, server.server_code);

      const off = await editor.update(app.id, { id: server.id, parameters: {}, status: 'inactive' });
      expectJson(off, 200);
      expect(off.body).toMatchObject({ status: 'inactive', server_code: server.server_code });
      await expectMcpRefuses(host.app, server.server_code, 'MCP server is not active');

      const untouched = await editor.update(app.id, { id: server.id, parameters: {}, status: null });
      expect(untouched.body.status).toBe('inactive');

      const on = await editor.update(app.id, { id: server.id, parameters: {}, status: 'active' });
      expectJson(on, 200);
      expect(on.body).toMatchObject({ status: 'active', server_code: server.server_code, url: server.url });
      await expectMcpServes(host.app, server.server_code);
    });

    it('a status other than active or inactive answers 400 and changes nothing', async () => {
      const { app, server } = await published();
      for (const status of ['paused', '', 1]) {
        expectError(
          await editor.update(app.id, { id: server.id, parameters: {}, status }),
          400,
          'invalid_request',
          'Invalid request body: status must be active or inactive',
          { status: 'must be active or inactive' },
        );
      }
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('a missing id or parameters answer 400 naming both fields', async () => {
      const { app } = await published();
      expectError(
        await editor.update(app.id, { description: 'x' }),
        400,
        'invalid_request',
        'Invalid request body: id is required; parameters is required',
        { id: 'is required', parameters: 'is required' },
      );
    });

    it("another tenant's server answers 404 and is never edited", async () => {
      const { app, server } = await published();
      const ownApp = apps.add(TENANT_B);
      expectError(
        await otherTenant.update(ownApp.id, {
          id: server.id,
          description: 'Hijacked',
          parameters: {},
          status: 'inactive',
        }),
        404,
        'not_found',
        'MCP server not found',
      );
      // The same app id registered in both tenants must not open the door either.
      apps.add(TENANT_B, { id: app.id });
      expectError(
        await otherTenant.update(app.id, {
          id: server.id,
          description: 'Hijacked',
          parameters: {},
          status: 'inactive',
        }),
        404,
        'not_found',
        'MCP server not found',
      );
      expect((await editor.get(app.id)).body).toEqual(server);
      await expectMcpServes(host.app, server.server_code);
    });

    it("another app's server of the same tenant answers 404 and is never edited", async () => {
      const first = await published();
      const second = await published();
      expectError(
        await editor.update(second.app.id, { id: first.server.id, description: 'Wrong app', parameters: {} }),
        404,
        'not_found',
        'MCP server not found',
      );
      expect((await editor.get(first.app.id)).body).toEqual(first.server);
    });

    it('an unknown server id answers 404', async () => {
      const { app } = await published();
      expectError(
        await editor.update(app.id, { id: randomUUID(), parameters: {} }),
        404,
        'not_found',
        'MCP server not found',
      );
    });

    it('an app the host no longer knows answers 404', async () => {
      const { app, server } = await published();
      apps.remove(TENANT_A, app.id);
      expectError(
        await editor.update(app.id, { id: server.id, parameters: {} }),
        404,
        'not_found',
        'app not found',
      );
    });

    it('a read-only caller gets 403 and nothing changes', async () => {
      const { app, server } = await published();
      expectError(
        await viewer.update(app.id, { id: server.id, parameters: {}, status: 'inactive' }),
        403,
        'forbidden',
        'You are not allowed to edit MCP servers',
      );
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app, server } = await published();
      expectError(
        await anonymous.update(app.id, { id: server.id, parameters: {} }),
        401,
        'unauthorized',
        'Authentication required',
      );
    });
  });

  describe.each(['post', 'get'] as const)('%s /apps/:serverId/server/refresh (rotate)', (method) => {
    it('rotating answers 200 with a new code: the old code is refused at once, the new one works', async () => {
      const { server } = await published();
      await expectMcpServes(host.app, server.server_code);

      const reply = await editor.refresh(server.id, method);
      expectJson(reply, 200);
      expect(reply.body).toEqual({
        ...server,
        server_code: expect.stringMatching(CODE),
        url: `/mcp/server/${reply.body.server_code}/mcp`,
        updated_at: expect.any(Number),
      });
      expect(reply.body.server_code).not.toBe(server.server_code);
      await expectMcpRefuses(host.app, server.server_code, 'MCP server not found');
      await expectMcpServes(host.app, reply.body.server_code);
    });

    it("another tenant's server answers 404 and keeps its code", async () => {
      const { app, server } = await published();
      apps.add(TENANT_B, { id: app.id });
      expectError(await otherTenant.refresh(server.id, method), 404, 'not_found', 'MCP server not found');
      expect((await editor.get(app.id)).body).toEqual(server);
      await expectMcpServes(host.app, server.server_code);
    });

    it('an unknown server id answers 404', async () => {
      expectError(await editor.refresh(randomUUID(), method), 404, 'not_found', 'MCP server not found');
    });

    it('a server whose app the host no longer knows answers 404', async () => {
      const { app, server } = await published();
      apps.remove(TENANT_A, app.id);
      expectError(await editor.refresh(server.id, method), 404, 'not_found', 'app not found');
      expect((await store.getServerById(server.id))?.serverCode).toBe(server.server_code);
    });

    it('a read-only caller gets 403 and the code stays', async () => {
      const { app, server } = await published();
      expectError(
        await viewer.refresh(server.id, method),
        403,
        'forbidden',
        'You are not allowed to edit MCP servers',
      );
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { server } = await published();
      expectError(await anonymous.refresh(server.id, method), 401, 'unauthorized', 'Authentication required');
    });
  });

  describe('DELETE /apps/:appId/server (unpublish)', () => {
    it('unpublishing answers 204; the app then has no server and its code is unknown', async () => {
      const { app, server } = await published();
      const reply = await editor.unpublish(app.id);
      expect(reply.status).toBe(204);
      expect(reply.headers['content-type']).toBeUndefined();
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.text).toBe('');
      expect((await editor.get(app.id)).text).toBe('null');
      await expectMcpRefuses(host.app, server.server_code, 'MCP server not found');
      // Published again, it gets a fresh code.
      const again = await editor.publish(app.id);
      expectJson(again, 201);
      expect(again.body.server_code).not.toBe(server.server_code);
    });

    it('an app without a server answers 404', async () => {
      const app = apps.add(TENANT_A);
      expectError(await editor.unpublish(app.id), 404, 'not_found', 'MCP server not found');
    });

    it('an app the host does not know answers 404', async () => {
      expectError(await editor.unpublish(`app-${randomUUID()}`), 404, 'not_found', 'app not found');
    });

    it('another tenant cannot unpublish a server, even with the same app id', async () => {
      const { app, server } = await published();
      expectError(await otherTenant.unpublish(app.id), 404, 'not_found', 'app not found');
      apps.add(TENANT_B, { id: app.id });
      expectError(await otherTenant.unpublish(app.id), 404, 'not_found', 'MCP server not found');
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('a read-only caller gets 403 and the server stays', async () => {
      const { app, server } = await published();
      expectError(
        await viewer.unpublish(app.id),
        403,
        'forbidden',
        'You are not allowed to edit MCP servers',
      );
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app } = await published();
      expectError(await anonymous.unpublish(app.id), 401, 'unauthorized', 'Authentication required');
    });
  });

  describe('routing', () => {
    it('another method on a console path answers 405 with Allow', async () => {
      const { app, server } = await published();
      const patch = await request(host.app)
        .patch(`/console/api/apps/${app.id}/server`)
        .set('Authorization', 'Bearer editor-a')
        .send({ parameters: {} });
      expectError(patch, 405, 'method_not_allowed', 'Method not allowed: PATCH');
      expect(patch.headers.allow).toBe('GET, POST, PUT, DELETE');
      const put = await request(host.app)
        .put(`/console/api/apps/${server.id}/server/refresh`)
        .set('Authorization', 'Bearer editor-a');
      expectError(put, 405, 'method_not_allowed', 'Method not allowed: PUT');
      expect(put.headers.allow).toBe('GET, POST');
    });

    it('HEAD on the refresh path answers 405 and does not rotate the code', async () => {
      const { app, server } = await published();
      const reply = await request(host.app)
        .head(`/console/api/apps/${server.id}/server/refresh`)
        .set('Authorization', 'Bearer editor-a');
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe('GET, POST');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect((await editor.get(app.id)).body).toEqual(server);
    });

    it("paths that are not the console's fall through to the host", async () => {
      const reply = await request(host.app).get('/console/api/apps').set('Authorization', 'Bearer editor-a');
      expect(reply.status).toBe(404);
      expect(reply.text).toBe(HOST_404);
    });
  });
});

describe('the console with a host that parses JSON itself', () => {
  it('takes the body the host already parsed', async () => {
    const store = memoryServerStore();
    const apps = new Apps();
    const app = express();
    app.use(express.json());
    app.use('/console/api', mcpConsole({ store, loadApp: apps.load, authorize }));
    const host = consoleAs(app, 'editor-a');
    const hostApp = apps.add(TENANT_A);

    const created = await host.publish(hostApp.id, {
      description: 'Parsed by the host',
      parameters: { text: 'T' },
    });
    expectJson(created, 201);
    expect(created.body).toMatchObject({ description: 'Parsed by the host', parameters: { text: 'T' } });
    const updated = await host.update(hostApp.id, {
      id: created.body.id,
      parameters: {},
      status: 'inactive',
    });
    expectJson(updated, 200);
    expect(updated.body).toMatchObject({ parameters: {}, status: 'inactive' });
    expectError(
      await host.update(hostApp.id, { id: created.body.id, parameters: [] }),
      400,
      'invalid_request',
      'Invalid request body: parameters must be an object of strings',
      { parameters: 'must be an object of strings' },
    );
  });
});

describe('console options and failures', () => {
  const apps = new Apps();
  const base = (): McpConsoleOptions => ({ store: memoryServerStore(), loadApp: apps.load, authorize });

  it('an unknown option is a configuration error naming it', () => {
    expect(() => mcpConsole({ ...base(), mountPath: '/x' } as McpConsoleOptions)).toThrow(
      new ConfigurationError('mcpConsole: unknown option "mountPath"'),
    );
  });

  it('a missing or ill-typed option is a configuration error naming it', () => {
    const { store: _store, ...withoutStore } = base();
    expect(() => mcpConsole(withoutStore as McpConsoleOptions)).toThrow(
      new ConfigurationError(
        'mcpConsole: invalid option "store": must be a server store such as knexServerStore(knex)',
      ),
    );
    expect(() => mcpConsole({ ...base(), authorize: 'admin' } as unknown as McpConsoleOptions)).toThrow(
      new ConfigurationError('mcpConsole: invalid option "authorize": must be a function'),
    );
    expect(() => mcpConsole(undefined as unknown as McpConsoleOptions)).toThrow(ConfigurationError);
  });

  it("the caller's options object is not changed", () => {
    const options = Object.freeze(base());
    expect(() => mcpConsole(options)).not.toThrow();
    expect(Object.keys(options).sort()).toEqual(['authorize', 'loadApp', 'store']);
  });

  it('mcpPath sets the url shown for a server, for hosts that mount the endpoint under a prefix', async () => {
    const store = memoryServerStore();
    const { app } = createHost(store, apps, { mcpPath: (code) => `/ai/mcp/server/${code}/mcp` });
    const hostApp = apps.add(TENANT_A);
    const reply = await consoleAs(app, 'editor-a').publish(hostApp.id);
    expectJson(reply, 201);
    expect(reply.body.url).toBe(`/ai/mcp/server/${reply.body.server_code}/mcp`);
  });

  it('an authorize that throws answers 500 with no detail; the cause goes to onError', async () => {
    const failure = new Error('session store is down');
    const { app, reports } = createHost(memoryServerStore(), apps, {
      authorize: () => {
        throw failure;
      },
    });
    expectError(await consoleAs(app, 'editor-a').get('any'), 500, 'internal', 'Internal error');
    expect(reports).toEqual([{ error: failure, context: { operation: 'authorize' } }]);
  });

  it('an authorize answer without a tenant is refused with 500, never treated as access', async () => {
    const { app, reports } = createHost(memoryServerStore(), apps, {
      authorize: () => ({ canEdit: true }) as unknown as ConsoleAccess,
    });
    expectError(await consoleAs(app, 'editor-a').get('any'), 500, 'internal', 'Internal error');
    expect(reports).toHaveLength(1);
    expect(String(reports[0]?.error)).toContain(
      'authorize must return { tenantId: string, canEdit: boolean } or null',
    );
  });

  it('a failing store answers 500 with no detail; the cause goes to onError with what was being done', async () => {
    const failure = new Error('connection reset while reading mcp_servers');
    const store: ServerStore = {
      ...memoryServerStore(),
      getServerByApp: async () => {
        throw failure;
      },
    };
    const { app, reports } = createHost(store, apps);
    const hostApp = apps.add(TENANT_A);
    const reply = await consoleAs(app, 'viewer-a').get(hostApp.id);
    expectError(reply, 500, 'internal', 'Internal error');
    expect(reply.text).not.toContain('connection reset');
    expect(reports).toEqual([
      { error: failure, context: { operation: 'get', tenantId: TENANT_A, appId: hostApp.id } },
    ]);
  });

  it('a failing loadApp answers 500 with no detail', async () => {
    const failure = new Error('apps table is locked');
    const { app, reports } = createHost(memoryServerStore(), apps, {
      loadApp: () => {
        throw failure;
      },
    });
    expectError(await consoleAs(app, 'editor-a').unpublish('any'), 500, 'internal', 'Internal error');
    expect(reports).toEqual([
      { error: failure, context: { operation: 'unpublish', tenantId: TENANT_A, appId: 'any' } },
    ]);
  });
});
