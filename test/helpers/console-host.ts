/**
 * A host for the console suites, as a user writes it: the console under `/console/api`, the MCP
 * endpoint at the root, then an HTML 404 page and an HTML error handler that console replies must
 * never fall through to; the console's callers by bearer token; and the whole-reply assertions.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import request, { type Response as Reply, type Test } from 'supertest';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  type ConsoleAccess,
  type ConsoleErrorContext,
  type HostApp,
  knexServerStore,
  type McpConsoleOptions,
  mcpConsole,
  mcpServer,
  migrate,
  type ServerStore,
} from '../../src/index.js';
import type { DatabaseKind, TestDatabase } from './databases.js';

export const TENANT_A = 'tenant-a';
export const TENANT_B = 'tenant-b';
export const CODE = /^[A-Za-z0-9]{16}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const HOST_404 = '<!DOCTYPE html><p>host 404 page</p>';
export const HOST_500 = '<!DOCTYPE html><p>host error page</p>';

/** The console's callers, by bearer token. */
export const ACCESS: Record<string, ConsoleAccess> = {
  'editor-a': { tenantId: TENANT_A, canEdit: true },
  'viewer-a': { tenantId: TENANT_A, canEdit: false },
  'editor-b': { tenantId: TENANT_B, canEdit: true },
};

export const authorize = (req: Request): ConsoleAccess | null => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return (token && ACCESS[token]) || null;
};

/** The host's apps, per tenant; each test registers its own so tests never share rows. */
export class Apps {
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

  /** A tenant's apps in the order they were added: the console's `listApps`. */
  list = async (tenantId: string): Promise<HostApp[]> =>
    [...this.#apps.entries()].filter(([key]) => key.startsWith(`${tenantId}/`)).map(([, app]) => app);
}

/**
 * A host as a user writes it: the console under `/console/api`, the MCP endpoint at the root, then
 * an HTML 404 page and an HTML error handler that console replies must never fall through to.
 */
export function createHost(store: ServerStore, apps: Apps, overrides: Partial<McpConsoleOptions> = {}) {
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
export function consoleAs(app: express.Express, token?: string) {
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
export function expectJson(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.headers['cache-control']).toBe('no-store');
}

export function expectError(
  reply: Reply,
  status: number,
  code: string,
  message: string,
  fields?: Record<string, string>,
): void {
  expectJson(reply, status);
  expect(reply.body).toEqual({ error: fields ? { code, message, fields } : { code, message } });
}

/** The console's answer about something (an app, an MCP server) that is not there for this caller. */
export const expectNotFound = (reply: Reply, message: string): void =>
  expectError(reply, 404, 'not_found', message);

/** The console's refusal of a change asked by a read-only caller. */
export const expectForbidden = (reply: Reply): void =>
  expectError(reply, 403, 'forbidden', 'You are not allowed to edit MCP servers');

/** The console's answer when something failed inside it: 500, and no detail of the cause. */
export const expectInternalError = (reply: Reply): void =>
  expectError(reply, 500, 'internal', 'Internal error');

/** The console's refusal of a caller who is not signed in. */
export const expectUnauthenticated = (reply: Reply): void =>
  expectError(reply, 401, 'unauthorized', 'Authentication required');

/** The MCP endpoint's answer to an `initialize` on a code. */
export function initialize(app: express.Express, serverCode: string) {
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

export async function expectMcpServes(app: express.Express, serverCode: string): Promise<void> {
  const reply = await initialize(app, serverCode);
  expect(reply.status).toBe(200);
  expect(reply.body.result.protocolVersion).toBe('2025-06-18');
}

export async function expectMcpRefuses(
  app: express.Express,
  serverCode: string,
  message: string,
): Promise<void> {
  const reply = await initialize(app, serverCode);
  expect(reply.status).toBe(404);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message } });
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A console host over the Knex store on a fresh database, with one console per kind of caller. */
export async function openConsoleHost(kind: DatabaseKind, overrides: Partial<McpConsoleOptions> = {}) {
  const db: TestDatabase = await kind.create();
  const knex = db.connect();
  await migrate(knex);
  const store = knexServerStore(knex);
  const apps = new Apps();
  const host = createHost(store, apps, overrides);
  return {
    db,
    store,
    apps,
    host,
    editor: consoleAs(host.app, 'editor-a'),
    viewer: consoleAs(host.app, 'viewer-a'),
    otherTenant: consoleAs(host.app, 'editor-b'),
    anonymous: consoleAs(host.app),
  };
}

export type ConsoleSuite = Awaited<ReturnType<typeof openConsoleHost>> & {
  /** Publishes a new app of tenant A through the console; returns the app and the server JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the server JSON as the console answered it, read freely by the tests
  published(body?: object): Promise<{ app: HostApp; server: any }>;
};

/**
 * The set-up every console suite shares, inside its `describeEach(databases)`: a console host on a
 * fresh database before the tests, its reports cleared before each, the database dropped after.
 * The returned object is filled in before the first test runs.
 */
export function useConsoleHost(kind: DatabaseKind, overrides: Partial<McpConsoleOptions> = {}): ConsoleSuite {
  const suite = {} as ConsoleSuite;
  beforeAll(async () => {
    Object.assign(suite, await openConsoleHost(kind, overrides));
  });
  afterAll(async () => {
    await suite.db?.destroy();
  });
  beforeEach(() => {
    suite.host.reports.length = 0;
  });
  suite.published = async (body = { description: 'Word statistics', parameters: { text: 'The text' } }) => {
    const app = suite.apps.add(TENANT_A);
    const reply = await suite.editor.publish(app.id, body);
    expect(reply.status).toBe(201);
    return { app, server: reply.body };
  };
  return suite;
}
