/**
 * The console API (README, "Console API"), on the Knex store on every database: editing, rotating
 * and unpublishing a server, and the console's routing.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  CODE,
  expectError,
  expectForbidden,
  expectJson,
  expectMcpRefuses,
  expectMcpServes,
  expectNotFound,
  expectUnauthenticated,
  HOST_404,
  TENANT_A,
  TENANT_B,
  useConsoleHost,
} from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';

describeEach(databases)('the console API: editing, rotating and unpublishing on $name', (kind) => {
  const c = useConsoleHost(kind, { allowGetRefresh: true });

  describe('PUT /apps/:appId/server (edit)', () => {
    it('editing replaces the parameters and description and answers 200 with the server', async () => {
      const { app, server } = await c.published();
      const reply = await c.editor.update(app.id, {
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
      const stored = await c.store.getServerById(server.id);
      expect(stored?.updatedAt.getTime()).toBeGreaterThan(stored!.createdAt.getTime());
      expect((await c.editor.get(app.id)).body).toEqual(reply.body);
    });

    it('a parameters key that is not an input variable answers 400; one the server has from a dropped variable is kept', async () => {
      const { app, server } = await c.published({ parameters: { text: 'The text', top_n: 'How many' } });
      // The app's form loses `top_n`; the console sends back what it read, which still has it.
      c.apps.add(TENANT_A, {
        id: app.id,
        inputForm: [{ type: 'paragraph', variable: 'text', label: 'Text' }],
      });
      const kept = await c.editor.update(app.id, {
        id: server.id,
        parameters: { text: 'Text', top_n: 'How many' },
      });
      expectJson(kept, 200);
      expect(kept.body.parameters).toEqual({ text: 'Text', top_n: 'How many' });
      expectError(
        await c.editor.update(app.id, { id: server.id, parameters: { text: 'Text', top_k: 'A typo' } }),
        400,
        'invalid_request',
        "Invalid request body: parameters.top_k is not an input variable of the app (the app's are text)",
        { 'parameters.top_k': 'is not an input variable of the app' },
      );
      expect((await c.store.getServerById(server.id))?.parameters).toEqual({
        text: 'Text',
        top_n: 'How many',
      });
    });

    it('a null or absent description keeps it; an empty one resets it to the app description', async () => {
      const { app, server } = await c.published();
      for (const body of [
        { id: server.id, parameters: {} },
        { id: server.id, description: null, parameters: {} },
      ]) {
        const reply = await c.editor.update(app.id, body);
        expectJson(reply, 200);
        expect(reply.body.description).toBe('Word statistics');
      }
      const reset = await c.editor.update(app.id, { id: server.id, description: '', parameters: {} });
      expectJson(reset, 200);
      expect(reset.body.description).toBe('Counts the words of a text');
    });

    it('deactivating makes the MCP endpoint answer 404 "MCP server is not active"; reactivating restores the same code', async () => {
      const { app, server } = await c.published();
      await expectMcpServes(c.host.app, server.server_code);

      const off = await c.editor.update(app.id, { id: server.id, parameters: {}, status: 'inactive' });
      expectJson(off, 200);
      expect(off.body).toMatchObject({ status: 'inactive', server_code: server.server_code });
      await expectMcpRefuses(c.host.app, server.server_code, 'MCP server is not active');

      const untouched = await c.editor.update(app.id, { id: server.id, parameters: {}, status: null });
      expect(untouched.body.status).toBe('inactive');

      const on = await c.editor.update(app.id, { id: server.id, parameters: {}, status: 'active' });
      expectJson(on, 200);
      expect(on.body).toMatchObject({ status: 'active', server_code: server.server_code, url: server.url });
      await expectMcpServes(c.host.app, server.server_code);
    });

    it('a status other than active or inactive answers 400 and changes nothing', async () => {
      const { app, server } = await c.published();
      for (const status of ['paused', '', 1]) {
        expectError(
          await c.editor.update(app.id, { id: server.id, parameters: {}, status }),
          400,
          'invalid_request',
          'Invalid request body: status must be active or inactive',
          { status: 'must be active or inactive' },
        );
      }
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('a missing id or parameters answer 400 naming both fields', async () => {
      const { app } = await c.published();
      expectError(
        await c.editor.update(app.id, { description: 'x' }),
        400,
        'invalid_request',
        'Invalid request body: id is required; parameters is required',
        { id: 'is required', parameters: 'is required' },
      );
    });

    it("another tenant's server answers 404 and is never edited", async () => {
      const { app, server } = await c.published();
      const ownApp = c.apps.add(TENANT_B);
      const hijacking = { id: server.id, description: 'Hijacked', parameters: {}, status: 'inactive' };
      expectNotFound(await c.otherTenant.update(ownApp.id, hijacking), 'MCP server not found');
      // The same app id registered in both tenants must not open the door either.
      c.apps.add(TENANT_B, { id: app.id });
      expectNotFound(await c.otherTenant.update(app.id, hijacking), 'MCP server not found');
      expect((await c.editor.get(app.id)).body).toEqual(server);
      await expectMcpServes(c.host.app, server.server_code);
    });

    it("another app's server of the same tenant answers 404 and is never edited", async () => {
      const first = await c.published();
      const second = await c.published();
      expectNotFound(
        await c.editor.update(second.app.id, {
          id: first.server.id,
          description: 'Wrong app',
          parameters: {},
        }),
        'MCP server not found',
      );
      expect((await c.editor.get(first.app.id)).body).toEqual(first.server);
    });

    it('an unknown server id answers 404', async () => {
      const { app } = await c.published();
      expectNotFound(
        await c.editor.update(app.id, { id: randomUUID(), parameters: {} }),
        'MCP server not found',
      );
    });

    it('an app the host no longer knows answers 404', async () => {
      const { app, server } = await c.published();
      c.apps.remove(TENANT_A, app.id);
      expectNotFound(await c.editor.update(app.id, { id: server.id, parameters: {} }), 'app not found');
    });

    it('a read-only caller gets 403 and nothing changes', async () => {
      const { app, server } = await c.published();
      expectForbidden(await c.viewer.update(app.id, { id: server.id, parameters: {}, status: 'inactive' }));
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app, server } = await c.published();
      expectUnauthenticated(await c.anonymous.update(app.id, { id: server.id, parameters: {} }));
    });
  });

  describe.each(['post', 'get'] as const)('%s /apps/:serverId/server/refresh (rotate)', (method) => {
    it('rotating answers 200 with a new code: the old code is refused at once, the new one works', async () => {
      const { server } = await c.published();
      await expectMcpServes(c.host.app, server.server_code);

      const reply = await c.editor.refresh(server.id, method);
      expectJson(reply, 200);
      expect(reply.body).toEqual({
        ...server,
        server_code: expect.stringMatching(CODE),
        url: `/mcp/server/${reply.body.server_code}/mcp`,
        updated_at: expect.any(Number),
      });
      expect(reply.body.server_code).not.toBe(server.server_code);
      await expectMcpRefuses(c.host.app, server.server_code, 'MCP server not found');
      await expectMcpServes(c.host.app, reply.body.server_code);
    });

    it("another tenant's server answers 404 and keeps its code", async () => {
      const { app, server } = await c.published();
      c.apps.add(TENANT_B, { id: app.id });
      expectNotFound(await c.otherTenant.refresh(server.id, method), 'MCP server not found');
      expect((await c.editor.get(app.id)).body).toEqual(server);
      await expectMcpServes(c.host.app, server.server_code);
    });

    it('an unknown server id answers 404', async () => {
      expectNotFound(await c.editor.refresh(randomUUID(), method), 'MCP server not found');
    });

    it('a server whose app the host no longer knows answers 404', async () => {
      const { app, server } = await c.published();
      c.apps.remove(TENANT_A, app.id);
      expectNotFound(await c.editor.refresh(server.id, method), 'app not found');
      expect((await c.store.getServerById(server.id))?.serverCode).toBe(server.server_code);
    });

    it('a read-only caller gets 403 and the code stays', async () => {
      const { app, server } = await c.published();
      expectForbidden(await c.viewer.refresh(server.id, method));
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { server } = await c.published();
      expectUnauthenticated(await c.anonymous.refresh(server.id, method));
    });
  });

  describe('DELETE /apps/:appId/server (unpublish)', () => {
    it('unpublishing answers 204; the app then has no server and its code is unknown', async () => {
      const { app, server } = await c.published();
      const reply = await c.editor.unpublish(app.id);
      expect(reply.status).toBe(204);
      expect(reply.headers['content-type']).toBeUndefined();
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.text).toBe('');
      expect((await c.editor.get(app.id)).text).toBe('null');
      await expectMcpRefuses(c.host.app, server.server_code, 'MCP server not found');
      // Published again, it gets a fresh code.
      const again = await c.editor.publish(app.id);
      expectJson(again, 201);
      expect(again.body.server_code).not.toBe(server.server_code);
    });

    it('an app without a server answers 404', async () => {
      const app = c.apps.add(TENANT_A);
      expectNotFound(await c.editor.unpublish(app.id), 'MCP server not found');
    });

    it('an app the host does not know answers 404', async () => {
      expectNotFound(await c.editor.unpublish(`app-${randomUUID()}`), 'app not found');
    });

    it('another tenant cannot unpublish a server, even with the same app id', async () => {
      const { app, server } = await c.published();
      expectNotFound(await c.otherTenant.unpublish(app.id), 'app not found');
      c.apps.add(TENANT_B, { id: app.id });
      expectNotFound(await c.otherTenant.unpublish(app.id), 'MCP server not found');
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('a read-only caller gets 403 and the server stays', async () => {
      const { app, server } = await c.published();
      expectForbidden(await c.viewer.unpublish(app.id));
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app } = await c.published();
      expectUnauthenticated(await c.anonymous.unpublish(app.id));
    });
  });

  describe('routing', () => {
    it('another method on a console path answers 405 with Allow', async () => {
      const { app, server } = await c.published();
      const patch = await request(c.host.app)
        .patch(`/console/api/apps/${app.id}/server`)
        .set('Authorization', 'Bearer editor-a')
        .send({ parameters: {} });
      expectError(patch, 405, 'method_not_allowed', 'Method not allowed: PATCH');
      expect(patch.headers.allow).toBe('GET, POST, PUT, DELETE');
      const put = await request(c.host.app)
        .put(`/console/api/apps/${server.id}/server/refresh`)
        .set('Authorization', 'Bearer editor-a');
      expectError(put, 405, 'method_not_allowed', 'Method not allowed: PUT');
      expect(put.headers.allow).toBe('GET, POST');
    });

    it('HEAD on the refresh path answers 405 and does not rotate the code', async () => {
      const { app, server } = await c.published();
      const reply = await request(c.host.app)
        .head(`/console/api/apps/${server.id}/server/refresh`)
        .set('Authorization', 'Bearer editor-a');
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe('GET, POST');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it("paths that are not the console's fall through to the host", async () => {
      const reply = await request(c.host.app)
        .get('/console/api/apps')
        .set('Authorization', 'Bearer editor-a');
      expect(reply.status).toBe(404);
      expect(reply.text).toBe(HOST_404);
    });
  });
});
