/**
 * A server's `task_support` through the console: set in POST and PUT bodies, validated, shown in
 * the server JSON, kept in the store, and reflected in the tool each era lists (2025-11-25:
 * `execution.taskSupport`; older revisions and 2026-07-28: the description of a tool that runs
 * only as a task), on SQLite and PostgreSQL.
 */
import request from 'supertest';
import { expect, it } from 'vitest';
import type { HostApp } from '../../src/index.js';
import { expectError, expectJson, TENANT_A, useConsoleHost } from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';
import { envelope } from '../helpers/modern.js';

const REPORT: Partial<HostApp> = {
  name: 'Monthly Report',
  mode: 'workflow',
  description: 'Builds the report',
  inputForm: [],
};

describeEach(databases)('task support through the console on $name', (kind) => {
  const opened = useConsoleHost(kind);

  /** The tool as a client of `version` lists it. */
  const toolAt = async (serverCode: string, version: string) => {
    const modern = version === '2026-07-28';
    const reply = await request(opened.host.app)
      .post(`/mcp/server/${serverCode}/mcp`)
      .set('Accept', 'application/json, text/event-stream')
      .set(
        modern
          ? { 'MCP-Protocol-Version': version, 'Mcp-Method': 'tools/list' }
          : { 'MCP-Protocol-Version': version },
      )
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        ...(modern ? { params: { _meta: envelope() } } : {}),
      });
    expect(reply.status).toBe(200);
    return reply.body.result.tools[0] as { description: string; execution?: unknown };
  };

  it('a server is optional by default; required and forbidden are set on publish and edit, and each era sees them', async () => {
    const app = opened.apps.add(TENANT_A, REPORT);
    const published = await opened.editor.publish(app.id, { parameters: {} });
    expectJson(published, 201);
    expect(published.body.task_support).toBe('optional');
    expect(await toolAt(published.body.server_code, '2025-11-25')).toMatchObject({
      description: 'Builds the report',
      execution: { taskSupport: 'optional' },
    });

    const required = await opened.editor.update(app.id, {
      id: published.body.id,
      parameters: {},
      task_support: 'required',
    });
    expectJson(required, 200);
    expect(required.body.task_support).toBe('required');
    expect((await opened.editor.get(app.id)).body.task_support).toBe('required');
    expect((await opened.store.getServerById(published.body.id))?.taskSupport).toBe('required');
    expect(await toolAt(published.body.server_code, '2025-11-25')).toMatchObject({
      description: 'Builds the report',
      execution: { taskSupport: 'required' },
    });
    const older = await toolAt(published.body.server_code, '2025-06-18');
    expect(older.description).toBe(
      'Builds the report\n\nThis tool runs only as a task (MCP tasks, protocol 2025-11-25 or later); this client cannot call it.',
    );
    expect(older).not.toHaveProperty('execution');
    const modern = await toolAt(published.body.server_code, '2026-07-28');
    expect(modern.description).toBe(
      'Builds the report\n\nThis tool runs only as a task: call it with the io.modelcontextprotocol/tasks extension declared.',
    );
    expect(modern).not.toHaveProperty('execution');

    // An edit without the field keeps it.
    const kept = await opened.editor.update(app.id, { id: published.body.id, parameters: {} });
    expect(kept.body.task_support).toBe('required');
    const forbidden = await opened.editor.update(app.id, {
      id: published.body.id,
      parameters: {},
      task_support: 'forbidden',
    });
    expect(forbidden.body.task_support).toBe('forbidden');
    expect((await toolAt(published.body.server_code, '2025-11-25')).execution).toEqual({
      taskSupport: 'forbidden',
    });
  });

  it('publishing with a task support answers it; anything else is a 400 naming the field', async () => {
    const app = opened.apps.add(TENANT_A, REPORT);
    const reply = await opened.editor.publish(app.id, { parameters: {}, task_support: 'sometimes' });
    expectError(
      reply,
      400,
      'invalid_request',
      'Invalid request body: task_support must be forbidden, optional or required',
      {
        task_support: 'must be forbidden, optional or required',
      },
    );
    const published = await opened.editor.publish(app.id, { parameters: {}, task_support: 'forbidden' });
    expectJson(published, 201);
    expect(published.body.task_support).toBe('forbidden');
  });
});
