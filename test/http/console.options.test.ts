/**
 * The console's options, a host that parses JSON itself, and internal failures (README, "Options").
 */
import express from 'express';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type ConsoleAccess,
  type McpConsoleOptions,
  mcpConsole,
  memoryServerStore,
  type ServerStore,
} from '../../src/index.js';
import {
  Apps,
  authorize,
  consoleAs,
  createHost,
  expectError,
  expectInternalError,
  expectJson,
  TENANT_A,
} from '../helpers/console-host.js';

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
  /** Functions that fail as a host's may: by throwing, or by rejecting. */
  const throwing = (error: Error) => () => {
    throw error;
  };
  const rejecting = (error: Error) => async () => Promise.reject(error);

  const apps = new Apps();
  const base = (): McpConsoleOptions => ({ store: memoryServerStore(), loadApp: apps.load, authorize });

  it('an unknown option is a configuration error naming it', () => {
    expect(() => mcpConsole({ ...base(), mountPath: '/x' } as McpConsoleOptions)).toThrow(
      new ConfigurationError('invalid_options', 'mcpConsole: unknown option "mountPath"'),
    );
  });

  it('a missing or ill-typed option is a configuration error naming it', () => {
    const { store: _store, ...withoutStore } = base();
    expect(() => mcpConsole(withoutStore as McpConsoleOptions)).toThrow(
      new ConfigurationError(
        'invalid_options',
        'mcpConsole: invalid option "store": must be a server store such as knexServerStore(knex)',
      ),
    );
    expect(() => mcpConsole({ ...base(), authorize: 'admin' } as unknown as McpConsoleOptions)).toThrow(
      new ConfigurationError('invalid_options', 'mcpConsole: invalid option "authorize": must be a function'),
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
      authorize: throwing(failure),
    });
    expectInternalError(await consoleAs(app, 'editor-a').get('any'));
    expect(reports).toEqual([{ error: failure, context: { operation: 'authorize' } }]);
  });

  it('an authorize answer without a tenant is refused with 500, never treated as access', async () => {
    const { app, reports } = createHost(memoryServerStore(), apps, {
      authorize: () => ({ canEdit: true }) as unknown as ConsoleAccess,
    });
    expectInternalError(await consoleAs(app, 'editor-a').get('any'));
    expect(reports).toHaveLength(1);
    expect(String(reports[0]?.error)).toContain(
      'authorize must return { tenantId: string, canEdit: boolean, actor?: string } or null',
    );
  });

  it('a failing store answers 500 with no detail; the cause goes to onError with what was being done', async () => {
    const failure = new Error('connection reset while reading mcp_servers');
    const store: ServerStore = {
      ...memoryServerStore(),
      getServerByApp: rejecting(failure),
    };
    const { app, reports } = createHost(store, apps);
    const hostApp = apps.add(TENANT_A);
    const reply = await consoleAs(app, 'viewer-a').get(hostApp.id);
    expectInternalError(reply);
    expect(reply.text).not.toContain('connection reset');
    expect(reports).toEqual([
      { error: failure, context: { operation: 'get', tenantId: TENANT_A, appId: hostApp.id } },
    ]);
  });

  it('a failing loadApp answers 500 with no detail', async () => {
    const failure = new Error('apps table is locked');
    const { app, reports } = createHost(memoryServerStore(), apps, {
      loadApp: throwing(failure),
    });
    expectInternalError(await consoleAs(app, 'editor-a').unpublish('any'));
    expect(reports).toEqual([
      { error: failure, context: { operation: 'unpublish', tenantId: TENANT_A, appId: 'any' } },
    ]);
  });
});
