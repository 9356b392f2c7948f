/**
 * Toolsets through the console API (docs/toolsets.md) on the Knex store on every database: the
 * routes and their JSON, the field messages of a refused body, and what the MCP endpoint then
 * serves on the toolset's code.
 */
import { randomUUID } from 'node:crypto';
import type express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  CODE,
  expectError,
  expectForbidden,
  expectJson,
  expectMcpRefuses,
  nowSeconds,
  TENANT_A,
  UUID,
  useConsoleHost,
} from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';

/** The toolset routes, as one caller. */
function toolsetsAs(app: express.Express, token: string) {
  const as = (test: request.Test) => test.set('Authorization', `Bearer ${token}`);
  return {
    list: () => as(request(app).get('/console/api/toolsets')),
    create: (body: unknown) => as(request(app).post('/console/api/toolsets')).send(body as object),
    get: (id: string) => as(request(app).get(`/console/api/toolsets/${id}`)),
    update: (id: string, body: unknown) =>
      as(request(app).put(`/console/api/toolsets/${id}`)).send(body as object),
    refresh: (id: string) => as(request(app).post(`/console/api/toolsets/${id}/refresh`)),
    remove: (id: string) => as(request(app).delete(`/console/api/toolsets/${id}`)),
  };
}

/** One JSON-RPC request to a code's endpoint (protocol 2025-06-18). */
const rpc = (app: express.Express, code: string, method: string, params: Record<string, unknown> = {}) =>
  request(app)
    .post(`/mcp/server/${code}/mcp`)
    .set('Content-Type', 'application/json')
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', '2025-06-18')
    .send({ jsonrpc: '2.0', id: 7, method, params });

const toolNames = async (app: express.Express, code: string): Promise<string[]> => {
  const reply = await rpc(app, code, 'tools/list');
  expect(reply.status).toBe(200);
  return (reply.body.result.tools as { name: string }[]).map((tool) => tool.name);
};

describeEach(databases)('toolsets in the console API on $name', (kind) => {
  const c = useConsoleHost(kind);
  const editor = () => toolsetsAs(c.host.app, 'editor-a');

  /** A published app of tenant A, named `name`. */
  async function publishedApp(name: string) {
    const app = c.apps.add(TENANT_A, { name });
    expect((await c.editor.publish(app.id, { parameters: {} })).status).toBe(201);
    return app;
  }

  describe('creating and reading', () => {
    it('POST /toolsets answers 201 with the toolset, its apps and a fresh code', async () => {
      const stats = await publishedApp('Text Stats');
      const before = nowSeconds();
      const reply = await editor().create({
        name: 'Writing tools',
        description: 'Tools for writers',
        apps: [
          {
            app_id: stats.id,
            tool_name: 'count_words',
            description: 'Counts words',
            annotations: { readOnlyHint: true },
          },
        ],
      });
      expectJson(reply, 201);
      expect(reply.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Writing tools',
        description: 'Tools for writers',
        server_code: expect.stringMatching(CODE),
        status: 'active',
        auth_mode: 'code',
        all_published: false,
        apps: [
          {
            app_id: stats.id,
            tool_name: 'count_words',
            description: 'Counts words',
            parameters: null,
            annotations: { readOnlyHint: true },
            task_support: null,
          },
        ],
        url: `/mcp/server/${reply.body.server_code}/mcp`,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(reply.body.created_at).toBeGreaterThanOrEqual(before);
      const read = await editor().get(reply.body.id);
      expectJson(read, 200);
      expect(read.body).toEqual(reply.body);
      const listed = await editor().list();
      expectJson(listed, 200);
      expect(listed.body.data).toContainEqual(reply.body);
    });

    it('another tenant sees none of it: its list leaves it out, its reads and writes are 404', async () => {
      const created = await editor().create({ name: 'Mine', all_published: true });
      expect(created.status).toBe(201);
      const other = toolsetsAs(c.host.app, 'editor-b');
      const listed = await other.list();
      expectJson(listed, 200);
      expect(listed.body.data.map((toolset: { id: string }) => toolset.id)).not.toContain(created.body.id);
      for (const reply of [
        await other.get(created.body.id),
        await other.update(created.body.id, { name: 'Theirs' }),
        await other.refresh(created.body.id),
        await other.remove(created.body.id),
      ]) {
        expectError(reply, 404, 'not_found', 'toolset not found');
      }
      expect((await editor().get(created.body.id)).body.name).toBe('Mine');
      expectError(await editor().get(randomUUID()), 404, 'not_found', 'toolset not found');
    });

    it('a read-only caller reads but cannot create', async () => {
      const viewer = toolsetsAs(c.host.app, 'viewer-a');
      expectJson(await viewer.list(), 200);
      expectForbidden(await viewer.create({ name: 'Nope', all_published: true }));
    });

    it('a one-app server is no toolset: GET /toolsets/:id of its id is 404', async () => {
      const { server } = await c.published();
      expectError(await editor().get(server.id), 404, 'not_found', 'toolset not found');
    });
  });

  describe('refused bodies', () => {
    it('an unknown app, the same app twice and a tool name taken twice are each named', async () => {
      const stats = await publishedApp('Text Stats');
      const reply = await editor().create({
        name: 'Bad',
        apps: [
          { app_id: stats.id, tool_name: 'same' },
          { app_id: stats.id },
          { app_id: `app-${randomUUID()}`, tool_name: 'same' },
        ],
      });
      expectError(
        reply,
        400,
        'invalid_request',
        'Invalid request body: apps.1.app_id lists the same app as apps.0; apps.2.tool_name is already the tool name of apps.0',
        {
          'apps.1.app_id': 'lists the same app as apps.0',
          'apps.2.tool_name': 'is already the tool name of apps.0',
        },
      );
      const unknown = await editor().create({
        name: 'Bad',
        apps: [{ app_id: stats.id }, { app_id: 'app-nope' }],
      });
      expectError(
        unknown,
        400,
        'invalid_request',
        'Invalid request body: apps.1.app_id is not an app of this tenant',
        {
          'apps.1.app_id': 'is not an app of this tenant',
        },
      );
    });

    it('an invalid tool name, a missing name and a parameter the app does not have are 400 with field messages', async () => {
      const stats = await publishedApp('Text Stats');
      const rule = 'must be 1 to 128 of A-Z a-z 0-9 _ - . (the MCP tool name rule)';
      expectError(
        await editor().create({ apps: [{ app_id: stats.id, tool_name: 'has space' }] }),
        400,
        'invalid_request',
        `Invalid request body: name is required; apps.0.tool_name ${rule}`,
        { name: 'is required', 'apps.0.tool_name': rule },
      );
      expectError(
        await editor().create({ name: 'P', apps: [{ app_id: stats.id, parameters: { colour: 'x' } }] }),
        400,
        'invalid_request',
        'Invalid request body: apps.0.parameters.colour is not an input variable of the app',
        { 'apps.0.parameters.colour': 'is not an input variable of the app' },
      );
    });

    it('more than maxToolsetApps apps (default 100) is 400, and so is all_published with apps', async () => {
      const apps = Array.from({ length: 101 }, (_, index) => ({ app_id: `app-${index}` }));
      expectError(
        await editor().create({ name: 'Huge', apps }),
        400,
        'invalid_request',
        'Invalid request body: apps must list at most 100 apps',
        { apps: 'must list at most 100 apps' },
      );
      const stats = await publishedApp('Text Stats');
      const message = 'must be empty when all_published is true: the toolset then serves every published app';
      expectError(
        await editor().create({ name: 'Both', all_published: true, apps: [{ app_id: stats.id }] }),
        400,
        'invalid_request',
        `Invalid request body: apps ${message}`,
        { apps: message },
      );
    });
  });

  describe('what the endpoint serves', () => {
    it('tools/list lists one tool per member in member order, names made unique, serverInfo named after the toolset', async () => {
      const first = await publishedApp('Title Case');
      const second = await publishedApp('Title Case');
      const third = await publishedApp('Text Stats');
      const created = await editor().create({
        name: 'Writing tools',
        apps: [{ app_id: third.id, tool_name: 'Title_Case' }, { app_id: first.id }, { app_id: second.id }],
      });
      const code = created.body.server_code as string;
      expect(await toolNames(c.host.app, code)).toEqual(['Title_Case', 'Title_Case_2', 'Title_Case_3']);
      const init = await rpc(c.host.app, code, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      expect(init.body.result.serverInfo).toEqual({ name: 'Writing tools', version: expect.any(String) });
      const called = await rpc(c.host.app, code, 'tools/call', {
        name: 'Title_Case_3',
        arguments: { text: 'a b' },
      });
      expect(called.status).toBe(200);
      expect(called.body.result).toEqual({
        content: [{ type: 'text', text: '{"word_count":2}' }],
        structuredContent: { word_count: 2 },
        isError: false,
      });
      const unknown = await rpc(c.host.app, code, 'tools/call', { name: 'Text_Stats', arguments: {} });
      expect(unknown.body).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Unknown tool: Text_Stats' },
      });
    });

    it('PUT renames tools and replaces the apps; a deactivated app server leaves its tool out, the rest work', async () => {
      const a = await publishedApp('Alpha');
      const b = await publishedApp('Beta');
      const created = await editor().create({ name: 'Set', apps: [{ app_id: a.id }, { app_id: b.id }] });
      const code = created.body.server_code as string;
      expect(await toolNames(c.host.app, code)).toEqual(['Alpha', 'Beta']);
      const updated = await editor().update(created.body.id, {
        name: 'Renamed',
        apps: [{ app_id: b.id, tool_name: 'beta_tool' }, { app_id: a.id }],
      });
      expectJson(updated, 200);
      expect(updated.body).toMatchObject({ name: 'Renamed', server_code: code });
      expect(updated.body.apps.map((app: { app_id: string }) => app.app_id)).toEqual([b.id, a.id]);
      expect(await toolNames(c.host.app, code)).toEqual(['beta_tool', 'Alpha']);
      const server = (await c.editor.get(a.id)).body;
      expect(
        (await c.editor.update(a.id, { id: server.id, parameters: {}, status: 'inactive' })).status,
      ).toBe(200);
      expect(await toolNames(c.host.app, code)).toEqual(['beta_tool']);
      expect(
        (await rpc(c.host.app, code, 'tools/call', { name: 'beta_tool', arguments: { text: 'x' } })).body
          .result.isError,
      ).toBe(false);
    });

    it('refresh rotates the code: the old one is not found at once', async () => {
      const created = await editor().create({ name: 'Rotating', all_published: true });
      const rotated = await editor().refresh(created.body.id);
      expectJson(rotated, 200);
      expect(rotated.body.server_code).toMatch(CODE);
      expect(rotated.body.server_code).not.toBe(created.body.server_code);
      expect(rotated.body.url).toBe(`/mcp/server/${rotated.body.server_code}/mcp`);
      await expectMcpRefuses(c.host.app, created.body.server_code, 'MCP server not found');
      expect((await rpc(c.host.app, rotated.body.server_code, 'tools/list')).status).toBe(200);
    });

    it('DELETE answers 204; the code is not found, the toolset is gone from the list', async () => {
      const created = await editor().create({ name: 'Gone soon', all_published: true });
      const deleted = await editor().remove(created.body.id);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      await expectMcpRefuses(c.host.app, created.body.server_code, 'MCP server not found');
      expectError(await editor().get(created.body.id), 404, 'not_found', 'toolset not found');
    });

    it('an inactive toolset is "not active" on the endpoint', async () => {
      const created = await editor().create({ name: 'Off', all_published: true, status: 'inactive' });
      await expectMcpRefuses(c.host.app, created.body.server_code, 'MCP server is not active');
    });
  });

  describe('all_published', () => {
    it('follows what the tenant publishes and unpublishes, by app name', async () => {
      const created = await editor().create({ name: 'All demo apps', all_published: true });
      expect(created.body).toMatchObject({ all_published: true, apps: [] });
      const code = created.body.server_code as string;
      const before = await toolNames(c.host.app, code);
      const zed = await publishedApp('Zed Tool');
      const abc = await publishedApp('Aardvark Tool');
      const after = await toolNames(c.host.app, code);
      expect(after.filter((name) => !before.includes(name))).toEqual(['Aardvark_Tool', 'Zed_Tool']);
      expect(after).toEqual([...after].sort());
      expect((await c.editor.unpublish(zed.id)).status).toBe(204);
      expect(await toolNames(c.host.app, code)).not.toContain('Zed_Tool');
      expect(await toolNames(c.host.app, code)).toContain('Aardvark_Tool');
      expect((await c.editor.unpublish(abc.id)).status).toBe(204);
      expect(await toolNames(c.host.app, code)).toEqual(before);
    });
  });
});
