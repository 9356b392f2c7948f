/**
 * Rotating a code changes state, so by default only `POST …/server/refresh` does it: a `GET` that
 * rotates can be triggered by any page the admin visits (an image, a link) when `authorize` reads a
 * cookie, a CSRF hole (README "Security"). `allowGetRefresh: true` brings Dify's GET back for hosts
 * whose console authenticates with a header.
 */
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type HostApp,
  type McpConsoleOptions,
  mcpConsole,
  memoryServerStore,
} from '../../src/index.js';

const APP: HostApp = { id: 'app-1', name: 'App', mode: 'workflow', inputForm: [] };

async function consoleHost(overrides: Partial<McpConsoleOptions> = {}) {
  const store = memoryServerStore();
  const server = await store.createServer({
    tenantId: 't',
    appId: APP.id,
    name: 'App',
    description: '',
    parameters: {},
  });
  const app = express();
  app.use(
    '/console/api',
    mcpConsole({
      store,
      loadApp: async (appId) => (appId === APP.id ? APP : null),
      // A cookie-based session, the case this default protects.
      authorize: (req) => (req.headers.cookie === 'session=admin' ? { tenantId: 't', canEdit: true } : null),
      ...overrides,
    }),
  );
  const refresh = (method: 'get' | 'post' | 'head') =>
    request(app)[method](`/console/api/apps/${server.id}/server/refresh`).set('Cookie', 'session=admin');
  const currentCode = async () => (await store.getServerById(server.id))?.serverCode;
  return { refresh, currentCode, originalCode: server.serverCode };
}

describe('console: rotating a code with GET', () => {
  it('is refused by default: 405, Allow: POST, and the code stays', async () => {
    const host = await consoleHost();
    const reply = await host.refresh('get');
    expect({
      status: reply.status,
      allow: reply.headers.allow,
      cacheControl: reply.headers['cache-control'],
      body: reply.body,
    }).toEqual({
      status: 405,
      allow: 'POST',
      cacheControl: 'no-store',
      body: {
        error: {
          code: 'method_not_allowed',
          message:
            "Method not allowed: GET; rotating a code takes POST; to allow GET, as Dify's UI sends it, create mcpConsole with allowGetRefresh: true",
        },
      },
    });
    expect(await host.currentCode()).toBe(host.originalCode);
    const head = await host.refresh('head');
    expect({ status: head.status, allow: head.headers.allow }).toEqual({ status: 405, allow: 'POST' });
  });

  it('POST still rotates by default', async () => {
    const host = await consoleHost();
    const reply = await host.refresh('post');
    expect(reply.status).toBe(200);
    expect(reply.body.server_code).not.toBe(host.originalCode);
    expect(await host.currentCode()).toBe(reply.body.server_code);
  });

  it('rotates with allowGetRefresh: true, as in Dify', async () => {
    const host = await consoleHost({ allowGetRefresh: true });
    const reply = await host.refresh('get');
    expect(reply.status).toBe(200);
    expect(reply.body.server_code).not.toBe(host.originalCode);
    expect(await host.currentCode()).toBe(reply.body.server_code);
    const head = await host.refresh('head');
    expect({ status: head.status, allow: head.headers.allow }).toEqual({ status: 405, allow: 'GET, POST' });
  });

  it('allowGetRefresh must be a boolean', () => {
    const options = {
      store: memoryServerStore(),
      loadApp: async () => null,
      authorize: () => null,
      allowGetRefresh: 'yes',
    } as unknown as McpConsoleOptions;
    expect(() => mcpConsole(options)).toThrow(ConfigurationError);
    expect(() => mcpConsole(options)).toThrow('mcpConsole: invalid option "allowGetRefresh"');
  });
});
