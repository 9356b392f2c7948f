/**
 * What a host's code can rely on when something goes wrong: each error of the package has a
 * stable `code`; an unknown option gets a "did you mean"; a store (of servers or of tool providers)
 * used before `migrate()` says so, on SQLite and PostgreSQL, instead of surfacing the driver's
 * "no such table".
 */
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import {
  AppRunError,
  ConfigurationError,
  connectMcpServer,
  type ErrorContext,
  jwtVerifier,
  knexServerStore,
  knexToolProviderStore,
  type McpServerOptions,
  MigrationRequiredError,
  mcpConsole,
  mcpServer,
  mcpToolProviderConsole,
  memoryServerStore,
  migrate,
  rollback,
  ServerExistsError,
} from '../../src/index.js';
import { createWorld } from '../helpers/apps.js';
import { databaseFor, databases, describeEach } from '../helpers/databases.js';
import { type HostVariant, hostVariants, serveApp, worldHostFor } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const required = (): McpServerOptions => ({
  resolveServer: async () => null,
  runApp: () => ({ answer: '' }),
});

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('stable error codes', () => {
  it('each error class of the package has its code', () => {
    expect(new AppRunError('no').code).toBe('app_run_error');
    expect(new ServerExistsError('t', 'a').code).toBe('server_exists');
    const cause = new Error('no such table: mcp_servers');
    const missing = new MigrationRequiredError('mcp_servers', { cause });
    expect({
      name: missing.name,
      code: missing.code,
      table: missing.table,
      cause: missing.cause,
      message: missing.message,
    }).toEqual({
      name: 'MigrationRequiredError',
      code: 'migration_required',
      table: 'mcp_servers',
      cause,
      message:
        'express-app-mcp: the table mcp_servers does not exist: run migrate(knex) first, with the same tablePrefix as the store',
    });
  });

  describe('an error with the AppRunError code from another copy of the package', () => {
    const variant = hostVariants[0] as HostVariant;
    const suite = worldHostFor(variant, createWorld, {
      // What the CommonJS build's AppRunError looks like to the ES module build: another class.
      runApp: () => {
        throw Object.assign(new Error('the other build says no'), { code: 'app_run_error' });
      },
    });

    it('is read by the client as an AppRunError', async () => {
      const reply = await suite.host.post(
        suite.world.codes.faqBot,
        request(1, 'tools/call', { name: 'FAQ_Bot', arguments: { query: 'hi' } }),
        { 'mcp-protocol-version': '2025-06-18' },
      );
      expectRpcReply(
        reply,
        200,
        rpcResult(1, { content: [{ type: 'text', text: 'the other build says no' }], isError: true }),
      );
      expect(suite.world.reports).toEqual([]);
    });
  });
});

describe('"did you mean" for unknown options', () => {
  it.each([
    ['a missing letter', { allowedHost: [] }, 'unknown option "allowedHost" (did you mean "allowedHosts"?)'],
    ['a part of the name', { timeout: 1000 }, 'unknown option "timeout" (did you mean "callTimeoutMs"?)'],
    ['another case', { onerror: () => {} }, 'unknown option "onerror" (did you mean "onError"?)'],
    ['nothing close', { cors: true }, 'unknown option "cors"'],
  ])('mcpServer, %s', (_label, extra, message) => {
    const error = thrown(() => mcpServer({ ...required(), ...extra } as McpServerOptions));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(`mcpServer: ${message}`);
  });

  it('a nested option is named with its path, the hint with its own name', () => {
    const error = thrown(() =>
      mcpServer({ ...required(), serverInfo: { name: 'a', version: '1', verison: '2' } } as McpServerOptions),
    );
    expect((error as Error).message).toBe(
      'mcpServer: unknown option "serverInfo.verison" (did you mean "version"?)',
    );
  });

  it('mcpConsole, knexServerStore and the resolver hint too', () => {
    const store = memoryServerStore();
    const loadApp = () => null;
    expect(
      (thrown(() => mcpConsole({ store, loadApp, authorise: () => null } as never)) as Error).message,
    ).toBe(
      'mcpConsole: invalid option "authorize": must be a function; unknown option "authorise" (did you mean "authorize"?)',
    );
    const knex = Object.assign(() => {}, { schema: {} }) as unknown as Knex;
    expect((thrown(() => knexServerStore(knex, { cacheTTL: 5 } as never)) as Error).message).toBe(
      'knexServerStore: unknown option "cacheTTL" (did you mean "cacheTtlMs"?)',
    );
    expect((thrown(() => store.resolver(loadApp, { cacheTtlMs: 0 } as never)) as Error).message).toBe(
      'store.resolver: unknown option "cacheTtlMs" (did you mean "appCacheTtlMs"?)',
    );
  });
});

/** Every attempt rejects with a `MigrationRequiredError` naming its table, the driver's error as its cause. */
async function expectMigrationRequired(attempts: Promise<unknown>[], tables: string[]): Promise<void> {
  const errors = await Promise.all(
    attempts.map((attempt) =>
      attempt.then(
        () => null,
        (error) => error,
      ),
    ),
  );
  expect(errors.map((error) => [error?.name, error?.code, error?.table])).toEqual(
    tables.map((table) => ['MigrationRequiredError', 'migration_required', table]),
  );
  expect(
    errors.every((error) => error instanceof MigrationRequiredError && error.cause instanceof Error),
  ).toBe(true);
}

describe("every factory's errors start with its name", () => {
  const knex = Object.assign(() => {}, { schema: {} }) as unknown as Knex;
  const store = memoryServerStore();

  it.each<[string, () => unknown]>([
    ['mcpServer', () => mcpServer({ ...required(), maxBodyBytes: 0 })],
    ['mcpConsole', () => mcpConsole({ store } as never)],
    ['mcpToolProviderConsole', () => mcpToolProviderConsole({} as never)],
    ['knexServerStore', () => knexServerStore({} as never)],
    ['knexToolProviderStore', () => knexToolProviderStore(knex, {} as never)],
    ['store.resolver', () => store.resolver('not a function' as never)],
    ['jwtVerifier', () => jwtVerifier({ issuer: 'ftp://issuer.example' })],
    ['migrate', () => migrate(knex, { tablePrefix: 1 } as never)],
    ['rollback', () => rollback(knex, { all: 'yes' } as never)],
    ['connectMcpServer', () => connectMcpServer('mailto:someone@example.com')],
  ])('%s', async (factory, call) => {
    let error: unknown;
    try {
      await call();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message.startsWith(`${factory}: `), (error as Error).message).toBe(true);
  });
});

describeEach(databases)('a store used before migrate() on $name', (kind) => {
  const fresh = databaseFor(kind);

  it('every store method says to run migrate() first, naming the missing table', async () => {
    const store = knexServerStore(fresh.knex);
    const server = {
      id: 'x',
      tenantId: 't',
      appId: 'a',
      name: 'A',
      description: '',
      serverCode: 'AAAAAAAAAAAAAAAA',
      status: 'active' as const,
      parameters: {},
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const attempts = [
      store.createServer({ tenantId: 't', appId: 'a', name: 'A', description: '', parameters: {} }),
      store.getServerByApp('t', 'a'),
      store.getServerById('x'),
      store.getServerByCode('AAAAAAAAAAAAAAAA'),
      store.updateServer('x', { name: 'B' }),
      store.rotateCode('x'),
      store.deactivateServer('x'),
      store.deleteServer('x'),
      store.getOrCreateEndUser(server, 'client'),
    ];
    await expectMigrationRequired(
      attempts,
      // deleteServer deletes the servers first, the end user's row last.
      attempts.map((_, index) => (index === 8 ? 'mcp_end_users' : 'mcp_servers')),
    );
  });

  it('every tool provider store method says so too, naming its table', async () => {
    const providers = knexToolProviderStore(fresh.knex, { encryptionKey: 'ab'.repeat(32) });
    const attempts = [
      providers.createProvider({ tenantId: 't', name: 'p', serverUrl: 'https://tools.example.com/mcp' }),
      providers.listProviders('t'),
      providers.getProvider('t', 'x'),
      providers.getProviderByName('t', 'p'),
      providers.updateProvider('t', 'x', { name: 'q' }),
      providers.deleteProvider('t', 'x'),
    ];
    await expectMigrationRequired(
      attempts,
      attempts.map(() => 'mcp_tool_providers'),
    );
  });

  it('the endpoint answers a plain internal error and hands the clear one to onError', async () => {
    const reports: { error: unknown; context: ErrorContext }[] = [];
    const store = knexServerStore(fresh.knex);
    const express = (await import('express')).default;
    const app = express();
    app.use(
      mcpServer({
        resolveServer: store.resolver(() => null),
        runApp: () => ({ answer: '' }),
        onError: (error, context) => {
          reports.push({ error, context });
        },
      }),
    );
    const host = await serveApp(app, hostVariants[0] as HostVariant);
    try {
      const reply = await host.post('AAAAAAAAAAAAAAAA', request(1, 'ping'));
      expectRpcReply(reply, 500, rpcError(1, -32603, 'Internal error'));
      expect(reports.map(({ error, context }) => [(error as Error).message, context])).toEqual([
        [
          'express-app-mcp: the table mcp_servers does not exist: run migrate(knex) first, with the same tablePrefix as the store',
          { phase: 'resolve' },
        ],
      ]);
    } finally {
      await host.close();
    }
  });

  it("a missing table of the host's own, met in loadApp, is passed on untouched", async () => {
    await migrate(fresh.knex);
    const store = knexServerStore(fresh.knex);
    const server = await store.createServer({
      tenantId: 't',
      appId: 'a',
      name: 'A',
      description: '',
      parameters: {},
    });
    const resolve = store.resolver(async () => fresh.knex('apps').where({ id: 'a' }).first(), {
      appCacheTtlMs: 0,
    });
    const error = await resolve(server.serverCode, {} as never).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).not.toBeInstanceOf(MigrationRequiredError);
    expect(String((error as Error).message)).toMatch(/apps/);
  });

  it('a store with another tablePrefix than migrate() names the table it looked for', async () => {
    const store = knexServerStore(fresh.knex, { tablePrefix: 'other_' });
    await expect(store.getServerByApp('t', 'a')).rejects.toMatchObject({
      code: 'migration_required',
      table: 'other_mcp_servers',
    });
  });
});
