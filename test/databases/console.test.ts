/**
 * The console API (README, "Console API"), on the Knex store on every database: reading an app's
 * server and publishing one. Editing, rotating and unpublishing are in `console.changes.test.ts`.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  CODE,
  consoleAs,
  expectError,
  expectForbidden,
  expectJson,
  expectMcpServes,
  expectNotFound,
  expectUnauthenticated,
  nowSeconds,
  TENANT_A,
  TENANT_B,
  UUID,
  useConsoleHost,
} from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';

describeEach(databases)('the console API: reading and publishing on $name', (kind) => {
  const c = useConsoleHost(kind);

  describe('GET /apps/:appId/server', () => {
    it('an app without a server answers 200 with null', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await c.editor.get(app.id);
      expectJson(reply, 200);
      expect(reply.text).toBe('null');
    });

    it('an app with a server answers 200 with the server', async () => {
      const { app, server } = await c.published();
      const reply = await c.editor.get(app.id);
      expectJson(reply, 200);
      expect(reply.body).toEqual(server);
    });

    it('a read-only caller can read', async () => {
      const { app, server } = await c.published();
      const reply = await c.viewer.get(app.id);
      expectJson(reply, 200);
      expect(reply.body).toEqual(server);
    });

    it('an app the host does not know answers 404', async () => {
      expectNotFound(await c.editor.get(`app-${randomUUID()}`), 'app not found');
    });

    it('an app of another tenant answers 404', async () => {
      const { app } = await c.published();
      expectNotFound(await c.otherTenant.get(app.id), 'app not found');
    });

    it('the same app id in another tenant shows that tenant its own server, or none', async () => {
      const { app } = await c.published();
      c.apps.add(TENANT_B, { id: app.id });
      const reply = await c.otherTenant.get(app.id);
      expectJson(reply, 200);
      expect(reply.text).toBe('null');
    });

    it('a caller who is not signed in gets 401', async () => {
      const { app } = await c.published();
      expectUnauthenticated(await c.anonymous.get(app.id));
      expectUnauthenticated(await consoleAs(c.host.app, 'forged').get(app.id));
    });
  });

  describe('POST /apps/:appId/server (publish)', () => {
    it('publishing answers 201 with a new active server named after the app', async () => {
      const app = c.apps.add(TENANT_A, { name: 'Customer Support Bot!' });
      const before = nowSeconds();
      const reply = await c.editor.publish(app.id, {
        description: 'Answers customers',
        parameters: { text: 'The customer question' },
      });
      const after = nowSeconds();
      expectJson(reply, 201);
      const server = reply.body;
      expect(Object.keys(server).sort()).toEqual(
        [
          'annotations',
          'auth_mode',
          'created_at',
          'description',
          'id',
          'name',
          'parameters',
          'server_code',
          'status',
          'task_support',
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
        auth_mode: 'code',
        task_support: 'optional',
        parameters: { text: 'The customer question' },
        annotations: {},
        created_at: expect.any(Number),
        updated_at: server.created_at,
        url: `/mcp/server/${server.server_code}/mcp`,
      });
      expect(Number.isInteger(server.created_at)).toBe(true);
      expect(server.created_at).toBeGreaterThanOrEqual(before);
      expect(server.created_at).toBeLessThanOrEqual(after);

      const stored = await c.store.getServerByApp(TENANT_A, app.id);
      expect(stored).toMatchObject({
        id: server.id,
        tenantId: TENANT_A,
        appId: app.id,
        serverCode: server.server_code,
      });
      await expectMcpServes(c.host.app, server.server_code);
    });

    it('without a description (absent, null or empty) the server takes the app description', async () => {
      for (const body of [
        { parameters: {} },
        { description: null, parameters: {} },
        { description: '', parameters: {} },
      ]) {
        const app = c.apps.add(TENANT_A, { description: 'From the app' });
        const reply = await c.editor.publish(app.id, body);
        expectJson(reply, 201);
        expect(reply.body.description).toBe('From the app');
      }
      const bare = c.apps.add(TENANT_A, { description: undefined });
      const reply = await c.editor.publish(bare.id, { parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.description).toBe('');
    });

    it('a description of 255 characters is accepted, counted in characters rather than UTF-16 units', async () => {
      const app = c.apps.add(TENANT_A);
      const description = '🙂'.repeat(255);
      const reply = await c.editor.publish(app.id, { description, parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.description).toBe(description);
    });

    it('publishing an app that already has a server answers 409 and keeps the first', async () => {
      const { app, server } = await c.published();
      const reply = await c.editor.publish(app.id, { description: 'Second', parameters: {} });
      expectError(reply, 409, 'server_exists', 'This app already has an MCP server');
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('two publishes of one app at once create one server: one 201, one 409', async () => {
      const app = c.apps.add(TENANT_A);
      const replies = await Promise.all([c.editor.publish(app.id), c.editor.publish(app.id)]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
      const created = replies.find((reply) => reply.status === 201)!;
      expect((await c.editor.get(app.id)).body).toEqual(created.body);
    });

    it('the same app id may be published once per tenant', async () => {
      const { app, server } = await c.published();
      c.apps.add(TENANT_B, { id: app.id });
      const reply = await c.otherTenant.publish(app.id, { parameters: {} });
      expectJson(reply, 201);
      expect(reply.body.id).not.toBe(server.id);
      expect(reply.body.server_code).not.toBe(server.server_code);
      expect((await c.editor.get(app.id)).body).toEqual(server);
    });

    it('an app the host does not know answers 404 and publishes nothing', async () => {
      const appId = `app-${randomUUID()}`;
      expectNotFound(await c.editor.publish(appId), 'app not found');
      expect(await c.store.getServerByApp(TENANT_A, appId)).toBeNull();
    });

    it('an app of another tenant answers 404 and publishes nothing', async () => {
      const app = c.apps.add(TENANT_A);
      expectNotFound(await c.otherTenant.publish(app.id), 'app not found');
      expect(await c.store.getServerByApp(TENANT_B, app.id)).toBeNull();
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a read-only caller gets 403 and nothing is published', async () => {
      const app = c.apps.add(TENANT_A);
      expectForbidden(await c.viewer.publish(app.id));
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a read-only caller gets 403 for an unknown app too, so refusals do not reveal which apps exist', async () => {
      expectForbidden(await c.viewer.publish(`app-${randomUUID()}`, { nonsense: true }));
    });

    it('a caller who is not signed in gets 401, before the body is even looked at', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await c.anonymous
        .publish(app.id)
        .set('Content-Type', 'application/json')
        .send('{not json');
      expectUnauthenticated(reply);
    });

    it('parameters keys that are not input variables of the app answer 400 naming each, and nothing is stored', async () => {
      const app = c.apps.add(TENANT_A);
      expectError(
        await c.editor.publish(app.id, {
          parameters: { text: 'ok', txet: 'a typo', query: 'not in the form' },
        }),
        400,
        'invalid_request',
        "Invalid request body: parameters.txet is not an input variable of the app; parameters.query is not an input variable of the app (the app's are text, top_n)",
        {
          'parameters.txet': 'is not an input variable of the app',
          'parameters.query': 'is not an input variable of the app',
        },
      );
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('parameters keys name variables of either form shape, exposed to clients or not', async () => {
      const app = c.apps.add(TENANT_A, {
        inputForm: [
          { paragraph: { variable: 'text', label: 'Text' } },
          { type: 'external_data_tool', variable: 'lookup' },
        ],
      });
      const reply = await c.editor.publish(app.id, {
        parameters: { text: 'The text', lookup: 'Filled by the host' },
      });
      expectJson(reply, 201);
      expect(reply.body.parameters).toEqual({ text: 'The text', lookup: 'Filled by the host' });
    });

    it('an app without inputs takes no parameters keys', async () => {
      const app = c.apps.add(TENANT_A, { inputForm: [] });
      expectError(
        await c.editor.publish(app.id, { parameters: { text: 'x' } }),
        400,
        'invalid_request',
        'Invalid request body: parameters.text is not an input variable of the app (the app has none)',
        { 'parameters.text': 'is not an input variable of the app' },
      );
    });

    it('missing parameters answer 400 naming the field', async () => {
      const app = c.apps.add(TENANT_A);
      expectError(
        await c.editor.publish(app.id, { description: 'x' }),
        400,
        'invalid_request',
        'Invalid request body: parameters is required',
        { parameters: 'is required' },
      );
    });

    it('a publish without a body answers 400 naming the required field', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await request(c.host.app)
        .post(`/console/api/apps/${app.id}/server`)
        .set('Authorization', 'Bearer editor-a');
      expectError(reply, 400, 'invalid_request', 'Invalid request body: parameters is required', {
        parameters: 'is required',
      });
    });

    it('parameters that are not an object of strings answer 400 naming each bad field', async () => {
      const app = c.apps.add(TENANT_A);
      for (const parameters of [['text'], 'text', null, 3]) {
        expectError(
          await c.editor.publish(app.id, { parameters }),
          400,
          'invalid_request',
          'Invalid request body: parameters must be an object of strings',
          { parameters: 'must be an object of strings' },
        );
      }
      expectError(
        await c.editor.publish(app.id, { parameters: { text: 'ok', top_n: 3, flag: null } }),
        400,
        'invalid_request',
        'Invalid request body: parameters.top_n must be a string; parameters.flag must be a string',
        { 'parameters.top_n': 'must be a string', 'parameters.flag': 'must be a string' },
      );
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a description over 255 characters or not a string answers 400, with every problem at once', async () => {
      const app = c.apps.add(TENANT_A);
      expectError(
        await c.editor.publish(app.id, { description: 'x'.repeat(256) }),
        400,
        'invalid_request',
        'Invalid request body: description must be at most 255 characters; parameters is required',
        { description: 'must be at most 255 characters', parameters: 'is required' },
      );
      expectError(
        await c.editor.publish(app.id, { description: 42, parameters: {} }),
        400,
        'invalid_request',
        'Invalid request body: description must be a string',
        { description: 'must be a string' },
      );
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a JSON body that is not an object answers 400', async () => {
      const app = c.apps.add(TENANT_A);
      expectError(
        await c.editor.publish(app.id, ['parameters']),
        400,
        'invalid_request',
        'Invalid request body: the request body must be a JSON object',
      );
    });

    it('a body that is not valid JSON answers 400 without quoting it', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await c.editor
        .publish(app.id)
        .set('Content-Type', 'application/json')
        .send('{"parameters": secret');
      expectError(reply, 400, 'invalid_json', 'The request body is not valid JSON');
    });

    it('a body that is not JSON answers 415', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await c.editor.publish(app.id).set('Content-Type', 'text/plain').send('parameters=1');
      expectError(reply, 415, 'unsupported_media_type', 'Content-Type must be application/json');
      expect(await c.store.getServerByApp(TENANT_A, app.id)).toBeNull();
    });

    it('a body over 100 kB answers 413', async () => {
      const app = c.apps.add(TENANT_A);
      const reply = await c.editor.publish(app.id, { parameters: { text: 'x'.repeat(200_000) } });
      expectError(reply, 413, 'payload_too_large', 'The request body is too large');
    });
  });
});
