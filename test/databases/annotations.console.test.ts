/**
 * Tool annotations through the console: set in POST and PUT bodies, validated (booleans only, an
 * unknown hint refused by name), shown as `annotations` in the server JSON, and listed on the tool
 * by the MCP endpoint of the same host, on SQLite and PostgreSQL.
 */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { HostApp } from '../../src/index.js';
import { expectJson, TENANT_A, useConsoleHost } from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';

const HINT_NAMES = 'readOnlyHint, destructiveHint, idempotentHint, openWorldHint';

const TITLE_CASE: Partial<HostApp> = {
  name: 'Title Case',
  mode: 'completion',
  description: 'Capitalises words',
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true }],
};

describeEach(databases)('annotations through the console on $name', (kind) => {
  const opened = useConsoleHost(kind);

  const newApp = () => opened.apps.add(TENANT_A, TITLE_CASE);
  const publish = (appId: string, body: object) => opened.editor.publish(appId, body);
  const update = (appId: string, body: object) => opened.editor.update(appId, body);
  const show = (appId: string) => opened.editor.get(appId);
  /** The tool's `annotations` as a 2025-06-18 client lists them; `undefined` when the tool has none. */
  const listedHints = async (serverCode: string) => {
    const reply = await request(opened.host.app)
      .post(`/mcp/server/${serverCode}/mcp`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(reply.status).toBe(200);
    return reply.body.result.tools[0].annotations;
  };

  it('publishing with hints answers 201 with them, and the tool lists them', async () => {
    const app = newApp();
    const reply = await publish(app.id, {
      parameters: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
    expectJson(reply, 201);
    expect(reply.body).toEqual({
      id: expect.any(String),
      name: 'Title Case',
      server_code: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
      description: 'Capitalises words',
      status: 'active',
      auth_mode: 'code',
      task_support: 'optional',
      parameters: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
      created_at: expect.any(Number),
      updated_at: reply.body.created_at,
      url: `/mcp/server/${reply.body.server_code}/mcp`,
    });
    const shown = await show(app.id);
    expect(shown.body).toEqual(reply.body);
    expect(await listedHints(reply.body.server_code)).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it('publishing without hints, with null or with {} shows annotations {} and a tool without them', async () => {
    for (const body of [
      { parameters: {} },
      { parameters: {}, annotations: null },
      { parameters: {}, annotations: {} },
    ]) {
      const reply = await publish(newApp().id, body);
      expectJson(reply, 201);
      expect(reply.body.annotations).toEqual({});
      expect(await listedHints(reply.body.server_code)).toBeUndefined();
    }
  });

  it('editing replaces the hints; absent or null keeps them; {} removes them', async () => {
    const app = newApp();
    const created = await publish(app.id, { parameters: {}, annotations: { readOnlyHint: true } });
    const id = created.body.id;
    const code = created.body.server_code;

    const replaced = await update(app.id, {
      id,
      parameters: {},
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    });
    expectJson(replaced, 200);
    expect(replaced.body).toEqual({
      ...created.body,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      updated_at: expect.any(Number),
    });
    expect(await listedHints(code)).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });

    for (const body of [
      { id, parameters: {} },
      { id, parameters: {}, annotations: null },
    ]) {
      const kept = await update(app.id, body);
      expectJson(kept, 200);
      expect(kept.body.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
    }

    const cleared = await update(app.id, { id, parameters: {}, annotations: {} });
    expectJson(cleared, 200);
    expect(cleared.body.annotations).toEqual({});
    expect(await listedHints(code)).toBeUndefined();
  });

  describe.each(['post', 'put'] as const)('%s refuses bad hints with a 400 naming the field', (method) => {
    /** Sends `annotations` with a valid rest of the body, to an app with a server for PUT. */
    async function send(annotations: unknown) {
      const app = newApp();
      if (method === 'post') return { app, reply: await publish(app.id, { parameters: {}, annotations }) };
      const created = await publish(app.id, { parameters: {}, annotations: { readOnlyHint: true } });
      return { app, reply: await update(app.id, { id: created.body.id, parameters: {}, annotations }) };
    }

    /** A refused body changed nothing: no server for POST, the old hints for PUT. */
    async function expectUnchanged(appId: string) {
      const shown = await show(appId);
      if (method === 'post') expect(shown.text).toBe('null');
      else expect(shown.body.annotations).toEqual({ readOnlyHint: true });
    }

    it.each([
      ['a string', { readOnlyHint: 'true' }, 'readOnlyHint'],
      ['a number', { destructiveHint: 0 }, 'destructiveHint'],
      ['null', { idempotentHint: null }, 'idempotentHint'],
    ])('a hint that is %s', async (_label, annotations, hint) => {
      const { app, reply } = await send(annotations);
      expectJson(reply, 400);
      expect(reply.body).toEqual({
        error: {
          code: 'invalid_request',
          message: `Invalid request body: annotations.${hint} must be true or false`,
          fields: { [`annotations.${hint}`]: 'must be true or false' },
        },
      });
      await expectUnchanged(app.id);
    });

    it('an unknown hint, named with the known ones', async () => {
      const { app, reply } = await send({ readOnlyHint: true, readonlyHint: false, title: 'Words' });
      expectJson(reply, 400);
      const problem = `is not a known hint; the hints are ${HINT_NAMES}`;
      expect(reply.body).toEqual({
        error: {
          code: 'invalid_request',
          message: `Invalid request body: annotations.readonlyHint ${problem}; annotations.title ${problem}`,
          fields: { 'annotations.readonlyHint': problem, 'annotations.title': problem },
        },
      });
      await expectUnchanged(app.id);
    });

    it('a wrong hint and an unknown one are both named at once', async () => {
      const { app, reply } = await send({ readOnlyHint: 'yes', readOnly: true });
      expectJson(reply, 400);
      expect(reply.body.error.fields).toEqual({
        'annotations.readOnlyHint': 'must be true or false',
        'annotations.readOnly': `is not a known hint; the hints are ${HINT_NAMES}`,
      });
      await expectUnchanged(app.id);
    });

    it('a hint named like an Object.prototype member', async () => {
      const { app, reply } = await send(JSON.parse('{"__proto__":{"readOnlyHint":true}}'));
      expectJson(reply, 400);
      expect(reply.body.error.fields).toEqual({
        'annotations.__proto__': `is not a known hint; the hints are ${HINT_NAMES}`,
      });
      await expectUnchanged(app.id);
    });

    it.each([
      ['true', true],
      ['a string', 'readOnly'],
      ['an array', [{ readOnlyHint: true }]],
    ])('annotations that are %s', async (_label, annotations) => {
      const { app, reply } = await send(annotations);
      expectJson(reply, 400);
      expect(reply.body).toEqual({
        error: {
          code: 'invalid_request',
          message: 'Invalid request body: annotations must be an object of hints (true or false)',
          fields: { annotations: 'must be an object of hints (true or false)' },
        },
      });
      await expectUnchanged(app.id);
    });
  });
});
