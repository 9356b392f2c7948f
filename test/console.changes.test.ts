/**
 * The console API (README, "Console API"), on the Knex store on every database: editing, rotating
 * and unpublishing a server, and the console's routing.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServerStore } from '../src/index.js';
import {
  type Apps,
  CODE,
  type consoleAs,
  type createHost,
  expectError,
  expectJson,
  expectMcpRefuses,
  expectMcpServes,
  HOST_404,
  openConsoleHost,
  TENANT_A,
  TENANT_B,
} from './helpers/console-host.js';
import { databases } from './helpers/databases.js';

describe.each(databases)('the console API: editing, rotating and unpublishing on $name', (kind) => {
  let opened: Awaited<ReturnType<typeof openConsoleHost>>;
  let apps: Apps;
  let host: ReturnType<typeof createHost>;
  let store: ServerStore;
  let editor: ReturnType<typeof consoleAs>;
  let viewer: ReturnType<typeof consoleAs>;
  let otherTenant: ReturnType<typeof consoleAs>;
  let anonymous: ReturnType<typeof consoleAs>;

  beforeAll(async () => {
    opened = await openConsoleHost(kind, { allowGetRefresh: true });
    ({ apps, host, store, editor, viewer, otherTenant, anonymous } = opened);
  });
  afterAll(async () => {
    await opened?.db.destroy();
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
