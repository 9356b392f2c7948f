/**
 * The console's usage and audit log on every database (docs/usage.md): every write kind of the
 * server and tool provider consoles leaves one audit row, with its actor and what changed, newest
 * first, the tenant's only, paged with a cursor; no row holds a code or a header value; a write
 * whose audit row cannot be written is not made; `GET /servers/:id/usage` answers the counts of
 * a server of the tenant only.
 */
import { randomBytes } from 'node:crypto';
import express, { type Request } from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ConsoleAccess,
  knexServerStore,
  knexToolProviderStore,
  mcpConsole,
  mcpToolProviderConsole,
  migrate,
} from '../../src/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { Apps, expectError, expectJson, TENANT_A, TENANT_B, UUID } from '../helpers/console-host.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type RemoteServer, startSdkServer, type ToolEvents } from '../helpers/remote-servers.js';

const REMOTE_TOKEN = 'Bearer remote-secret-5d2a9e';
const NEW_TOKEN = 'Bearer remote-secret-8f31c0';

const ACCESS: Record<string, ConsoleAccess> = {
  'editor-a': { tenantId: TENANT_A, canEdit: true, actor: 'ana@example.com' },
  'viewer-a': { tenantId: TENANT_A, canEdit: false },
  'editor-b': { tenantId: TENANT_B, canEdit: true },
};
const authorize = (req: Request): ConsoleAccess | null => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return (token && ACCESS[token]) || null;
};

describeEach(databases)("the audit log and usage routes on '$name'", (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let store: KnexServerStore;
  let remote: RemoteServer & { events: ToolEvents };
  const apps = new Apps();
  const app = express();
  const reports: unknown[] = [];

  beforeAll(async () => {
    db = await kind.create();
    knex = db.connect();
    await migrate(knex);
    store = knexServerStore(knex);
    const providers = knexToolProviderStore(knex, { encryptionKey: randomBytes(32) });
    app.use(
      '/console/api/tool-providers',
      mcpToolProviderConsole({
        store: providers,
        authorize,
        allowPrivateNetworks: true,
        onError: (error) => reports.push(error),
      }),
    );
    app.use(
      '/console/api',
      mcpConsole({ store, loadApp: apps.load, authorize, onError: (error) => reports.push(error) }),
    );
    remote = await startSdkServer('/mcp');
  });

  afterAll(async () => {
    await remote?.close();
    await store?.close();
    await db?.destroy();
  });

  const as = (token: string) => {
    const auth = (test: request.Test) => test.set('Authorization', `Bearer ${token}`);
    const server = (appId: string) => `/console/api/apps/${appId}/server`;
    const providers = '/console/api/tool-providers';
    return {
      publish: (appId: string, body: object = { parameters: {} }) =>
        auth(request(app).post(server(appId))).send(body),
      update: (appId: string, body: object) => auth(request(app).put(server(appId))).send(body),
      rotate: (serverId: string) => auth(request(app).post(`/console/api/apps/${serverId}/server/refresh`)),
      unpublish: (appId: string) => auth(request(app).delete(server(appId))),
      addProvider: (body: object) => auth(request(app).post(providers)).send(body),
      editProvider: (id: string, body: object) => auth(request(app).put(`${providers}/${id}`)).send(body),
      refreshProvider: (id: string) => auth(request(app).post(`${providers}/${id}/tools/refresh`)),
      removeProvider: (id: string) => auth(request(app).delete(`${providers}/${id}`)),
      audit: (query = '') => auth(request(app).get(`/console/api/audit${query}`)),
      usage: (serverId: string, query = '') =>
        auth(request(app).get(`/console/api/servers/${serverId}/usage${query}`)),
    };
  };
  const editor = as('editor-a');
  const codes: string[] = [];

  it('records every server and tool provider write, newest first, with its actor and what changed', async () => {
    const stats = apps.add(TENANT_A);
    const published = await editor.publish(stats.id, {
      description: 'Word statistics',
      parameters: { text: 'The text' },
    });
    expect(published.status).toBe(201);
    const serverId = published.body.id as string;
    codes.push(published.body.server_code);
    expect(
      (await editor.update(stats.id, { id: serverId, parameters: { text: 'The text' }, status: 'inactive' }))
        .status,
    ).toBe(200);
    const rotated = await editor.rotate(serverId);
    expect(rotated.status).toBe(200);
    codes.push(rotated.body.server_code);
    expect((await editor.unpublish(stats.id)).status).toBe(204);

    const added = await editor.addProvider({
      name: 'Weather',
      server_url: `${remote.url}?api_key=url-secret-1`,
      headers: { Authorization: REMOTE_TOKEN },
    });
    expect(added.status).toBe(201);
    const providerId = added.body.id as string;
    expect(
      (
        await editor.editProvider(providerId, {
          name: 'Weather tools',
          headers: { Authorization: NEW_TOKEN },
        })
      ).status,
    ).toBe(200);
    expect((await editor.refreshProvider(providerId)).status).toBe(200);
    expect((await editor.removeProvider(providerId)).status).toBe(204);

    const reply = await editor.audit();
    expectJson(reply, 200);
    const entry = (action: string, targetId: string, details: object) => ({
      id: expect.stringMatching(UUID),
      at: expect.any(Number),
      tenant_id: TENANT_A,
      actor: 'ana@example.com',
      action,
      target_id: targetId,
      details,
    });
    const tools = expect.any(Number);
    expect(reply.body).toEqual({
      data: [
        entry('provider.delete', providerId, { name: 'Weather tools' }),
        entry('provider.refresh', providerId, { name: 'Weather tools', tools }),
        entry('provider.update', providerId, {
          name: 'Weather tools',
          renamed_from: 'Weather',
          header_names: ['Authorization'],
          tools,
        }),
        entry('provider.create', providerId, { name: 'Weather', header_names: ['Authorization'], tools }),
        entry('server.unpublish', serverId, { app_id: stats.id, name: 'Text Stats' }),
        entry('server.rotate', serverId, { app_id: stats.id }),
        entry('server.update', serverId, { app_id: stats.id, changed: { status: 'inactive' } }),
        entry('server.publish', serverId, {
          app_id: stats.id,
          name: 'Text Stats',
          description: 'Word statistics',
          parameters: { text: 'The text' },
          annotations: {},
          auth_mode: 'code',
          task_support: 'optional',
        }),
      ],
      next_cursor: null,
    });
    expect(reports).toEqual([]);
  });

  it('no stored audit row holds a server code, a header value or a URL secret', async () => {
    const rows = await knex('mcp_audit_log').select('*');
    expect(rows.length).toBeGreaterThanOrEqual(8);
    const secrets = [...codes, REMOTE_TOKEN, NEW_TOKEN, 'remote-secret', 'url-secret-1', remote.url];
    expect(codes).toHaveLength(2);
    for (const row of rows) {
      const text = JSON.stringify(row);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });

  it("is the tenant's only, and pages newest first with a cursor", async () => {
    const other = apps.add(TENANT_B);
    expect((await as('editor-b').publish(other.id)).status).toBe(201);
    const theirs = await as('editor-b').audit();
    expect(theirs.body.data.map((row: { action: string; actor: null }) => [row.action, row.actor])).toEqual([
      ['server.publish', null],
    ]);
    const all = (await editor.audit()).body.data.map((row: { id: string }) => row.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await as('viewer-a').audit(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expectJson(page, 200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((row: { id: string }) => row.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expectError(
      await editor.audit('?cursor=nonsense'),
      400,
      'invalid_request',
      'Invalid request: cursor is not one this console gave',
      { cursor: 'is not one this console gave' },
    );
    expectError(
      await editor.audit('?limit=0'),
      400,
      'invalid_request',
      'Invalid request body: limit must be an integer from 1 to 200',
      {
        limit: 'must be an integer from 1 to 200',
      },
    );
  });

  it('a write whose audit row cannot be written is not made, and a refused write leaves no row', async () => {
    const notes = apps.add(TENANT_A, { name: 'Notes' });
    const before = (await editor.audit()).body.data.length;
    expect((await editor.publish(notes.id)).status).toBe(201);
    expect((await editor.publish(notes.id)).status).toBe(409);
    expect((await editor.audit()).body.data.length).toBe(before + 1);

    const later = apps.add(TENANT_A, { name: 'Later' });
    await knex.schema.renameTable('mcp_audit_log', 'mcp_audit_log_away');
    try {
      expect((await editor.publish(later.id)).status).toBe(500);
    } finally {
      await knex.schema.renameTable('mcp_audit_log_away', 'mcp_audit_log');
    }
    expect(await store.getServerByApp(TENANT_A, later.id)).toBeNull();
    reports.length = 0;
  });

  it("GET /servers/:id/usage answers a tenant server's counts, grouped; another tenant's is 404", async () => {
    const app2 = apps.add(TENANT_A, { name: 'Counted' });
    const server = (await editor.publish(app2.id)).body as { id: string };
    const hour = Math.floor(Date.now() / 3_600_000) * 3600;
    await store.usage!.addUsage([
      {
        serverId: server.id,
        hour,
        tool: 'Counted',
        caller: { kind: 'key', id: 'k1', name: 'ci' },
        calls: 5,
        errors: 1,
        durationMs: 50,
        tasks: 1,
        asks: 0,
      },
      {
        serverId: server.id,
        hour,
        tool: 'Counted',
        caller: { kind: 'code', id: '', name: null },
        calls: 2,
        errors: 0,
        durationMs: 8,
        tasks: 0,
        asks: 2,
      },
      {
        serverId: server.id,
        hour: hour - 3600,
        tool: 'Counted',
        caller: { kind: 'oauth', id: 'alice', name: null },
        calls: 1,
        errors: 1,
        durationMs: 3,
        tasks: 0,
        asks: 0,
      },
    ]);
    const byHour = await editor.usage(server.id);
    expectJson(byHour, 200);
    expect(byHour.body).toEqual({
      data: [
        { hour: hour - 3600, calls: 1, errors: 1, duration_ms: 3, tasks: 0, asks: 0 },
        { hour, calls: 7, errors: 1, duration_ms: 58, tasks: 1, asks: 2 },
      ],
    });
    const byCaller = await editor.usage(server.id, `?group_by=caller&from=${hour - 7200}&to=${hour + 3600}`);
    expect(byCaller.body).toEqual({
      data: [
        {
          caller: { kind: 'key', id: 'k1', name: 'ci' },
          calls: 5,
          errors: 1,
          duration_ms: 50,
          tasks: 1,
          asks: 0,
        },
        { caller: { kind: 'code' }, calls: 2, errors: 0, duration_ms: 8, tasks: 0, asks: 2 },
        { caller: { kind: 'oauth', id: 'alice' }, calls: 1, errors: 1, duration_ms: 3, tasks: 0, asks: 0 },
      ],
    });
    const byTool = await editor.usage(server.id, `?group_by=tool&from=${hour}&to=${hour + 3600}`);
    expect(byTool.body).toEqual({
      data: [{ tool: 'Counted', calls: 7, errors: 1, duration_ms: 58, tasks: 1, asks: 2 }],
    });
    expectError(await as('editor-b').usage(server.id), 404, 'not_found', 'MCP server not found');
    expectError(
      await editor.usage(server.id, '?group_by=day'),
      400,
      'invalid_request',
      'Invalid request body: group_by must be hour, tool or caller',
      {
        group_by: 'must be hour, tool or caller',
      },
    );
  });
});
