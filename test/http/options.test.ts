/**
 * README, "Options": `mcpServer(options)` validates its options once, at factory time, with zod. An unknown
 * option or a wrong type throws a `ConfigurationError` naming the option; the caller's object is
 * never mutated; defaults apply to what is left out.
 */
import { readFile } from 'node:fs/promises';
import knexFactory from 'knex';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import {
  ConfigurationError,
  knexServerStore,
  type McpServerOptions,
  mcpServer,
  memoryServerStore,
} from '../../src/index.js';
import { createWorld, RESOLVER_FAILS_CODE, RESOLVER_FAILURE } from '../helpers/apps.js';
import { hostVariants, serveApp } from '../helpers/hosts.js';
import { expectRpcReply, pingOfSize, request, rpcError, rpcResult } from '../helpers/rpc.js';

const { version: PACKAGE_VERSION } = JSON.parse(
  await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
);

const required = (): McpServerOptions => ({
  resolveServer: async () => null,
  runApp: () => ({ answer: '' }),
});

/** The error `mcpServer` throws for these options, or `undefined` when it accepts them. */
function factoryError(options: unknown): unknown {
  try {
    mcpServer(options as McpServerOptions);
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectConfigurationError(options: unknown, message: string): void {
  const error = factoryError(options);
  expect(error).toBeInstanceOf(ConfigurationError);
  expect((error as Error).message).toBe(message);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

describe('mcpServer options', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('the two required options are enough', () => {
    expect(factoryError(required())).toBeUndefined();
  });

  describe('an unknown option is a ConfigurationError that names it', () => {
    it('one unknown option', () => {
      expectConfigurationError(
        { ...required(), maxBodySize: 1024 },
        'mcpServer: unknown option "maxBodySize"',
      );
    });

    it('several unknown options are all named', () => {
      expectConfigurationError(
        { ...required(), cors: true, sessionIdGenerator: () => 'x' },
        'mcpServer: unknown option "cors", "sessionIdGenerator"',
      );
    });

    it('an unknown key inside serverInfo is named with its path', () => {
      expectConfigurationError(
        { ...required(), serverInfo: { name: 'a', version: '1', title: 'A' } },
        'mcpServer: unknown option "serverInfo.title"',
      );
    });
  });

  describe('a wrong type is a ConfigurationError that names the option', () => {
    it.each([
      ['resolveServer', { runApp: required().runApp }, 'resolveServer must be a function'],
      ['resolveServer', { ...required(), resolveServer: 'store' }, 'resolveServer must be a function'],
      ['runApp', { resolveServer: required().resolveServer }, 'runApp must be a function'],
      ['toolName', { ...required(), toolName: 'my_tool' }, 'toolName must be a function'],
      ['onError', { ...required(), onError: console }, 'onError must be a function'],
    ])('%s: %j', (name, options, problem) => {
      expectConfigurationError(options, `mcpServer: invalid option "${name}": ${problem}`);
    });

    it.each([
      ['maxBodyBytes', { maxBodyBytes: '4mb' }],
      ['maxBodyBytes', { maxBodyBytes: 0 }],
      ['maxBodyBytes', { maxBodyBytes: 1.5 }],
      ['callTimeoutMs', { callTimeoutMs: -1 }],
      ['callTimeoutMs', { callTimeoutMs: '30s' }],
      ['callTimeoutMs', { callTimeoutMs: 2 ** 31 }], // longer than setTimeout can wait
      ['allowedOrigins', { allowedOrigins: 'https://app.example.com' }],
      ['allowedOrigins.1', { allowedOrigins: ['https://app.example.com', 42] }],
      ['allowedHosts', { allowedHosts: 'mcp.example.com' }],
      ['serverInfo', { serverInfo: 'acme' }],
      ['serverInfo.version', { serverInfo: { name: 'acme' } }],
      ['serverInfo.name', { serverInfo: { name: '', version: '1.0.0' } }],
    ])('%s: %j', (name, extra) => {
      const error = factoryError({ ...required(), ...extra });
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(new RegExp(`^mcpServer: invalid option "${name}": .+`));
    });

    it.each([
      ['localhost:5173', 0],
      ['http://localhost:5173/', 0],
      ['https://app.example.com/mcp', 0],
      ['app.example.com', 0],
      ['null', 0],
      ['', 0],
      ['https://user:secret@app.example.com', 0],
      ['http://localhost:5173/', 1],
    ])('an allowedOrigins entry that is not an origin: %j', (entry, at) => {
      const allowedOrigins = at === 0 ? [entry] : ['https://app.example.com', entry];
      expectConfigurationError(
        { ...required(), allowedOrigins },
        `mcpServer: invalid option "allowedOrigins.${at}": "${entry}" is not an origin: write scheme://host[:port] with no path (e.g. http://localhost:5173), or '*' for any origin`,
      );
    });

    it("allowedOrigins entries that are origins, or '*', are taken", () => {
      const allowedOrigins = [
        'http://localhost:5173',
        'HTTPS://App.Example.com:443',
        'http://[::1]:8080',
        'chrome-extension://abcdef',
        '*',
      ];
      expect(factoryError({ ...required(), allowedOrigins })).toBeUndefined();
      expect(parseMcpServerOptions({ ...required(), allowedOrigins }).allowedOrigins).toEqual([
        'http://localhost:5173',
        'https://app.example.com',
        'http://[::1]:8080',
        'chrome-extension://abcdef',
        '*',
      ]);
    });

    describe('resolveServer: store.resolver passed uncalled is refused, with how to call it', () => {
      const uncalled =
        'mcpServer: invalid option "resolveServer": this is store.resolver itself: call it with your loadApp, resolveServer: store.resolver(loadApp)';

      it('the memory store', () => {
        const store = memoryServerStore();
        expectConfigurationError({ ...required(), resolveServer: store.resolver }, uncalled);
      });

      it('the Knex store', async () => {
        const knex = knexFactory({
          client: 'better-sqlite3',
          connection: { filename: ':memory:' },
          useNullAsDefault: true,
        });
        try {
          const store = knexServerStore(knex);
          expectConfigurationError({ ...required(), resolveServer: store.resolver }, uncalled);
          // Called, it is what resolveServer wants.
          expect(
            factoryError({ ...required(), resolveServer: store.resolver(async () => null) }),
          ).toBeUndefined();
        } finally {
          await knex.destroy();
        }
      });

      it('a resolver of the host that takes one argument is taken', () => {
        const resolveServer = async (serverCode: string) => (serverCode === 'x' ? null : null);
        expect(factoryError({ ...required(), resolveServer })).toBeUndefined();
        const store = memoryServerStore();
        expect(
          factoryError({ ...required(), resolveServer: store.resolver(async () => null) }),
        ).toBeUndefined();
      });
    });

    it('options that are not an object at all', () => {
      const error = factoryError(undefined);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/^mcpServer: invalid option "options": /);
    });
  });

  it("the caller's options object is never mutated (it may be deeply frozen)", () => {
    const options = deepFreeze({
      ...required(),
      serverInfo: { name: 'acme', version: '1.0.0' },
      allowedOrigins: ['HTTPS://App.Example.com'],
      allowedHosts: ['MCP.example.com'],
      maxBodyBytes: 2048,
      callTimeoutMs: 0,
      onError: () => {},
    });
    const before = {
      ...options,
      allowedOrigins: [...options.allowedOrigins],
      allowedHosts: [...options.allowedHosts],
    };
    expect(factoryError(options)).toBeUndefined();
    expect(options).toEqual(before);

    const minimal = deepFreeze(required());
    expect(factoryError(minimal)).toBeUndefined();
    expect(Object.keys(minimal).sort()).toEqual(['resolveServer', 'runApp']);
  });

  it('defaults apply to what is left out', () => {
    const parsed = parseMcpServerOptions(required());
    expect({ ...parsed, onError: typeof parsed.onError }).toEqual({
      resolveServer: expect.any(Function),
      runApp: expect.any(Function),
      serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
      allowedOrigins: [],
      allowedHosts: [],
      maxBodyBytes: 4 * 1024 * 1024 + 64 * 1024,
      callTimeoutMs: 300_000,
      resolveTimeoutMs: 5000,
      streamRetentionMs: 300_000,
      streamWindowMs: 0,
      streamLeaseMs: 15_000,
      maxDataUrlBytes: 3 * 1024 * 1024,
      maxInlineResultBytes: 4 * 1024 * 1024,
      maxResultBytes: 16 * 1024 * 1024,
      heartbeatMs: 10_000,
      humanInputTimeoutMs: 600_000,
      maxTaskResultBytes: 10 * 1024 * 1024,
      maxTaskTtlMs: 24 * 60 * 60 * 1000,
      maxActiveTasks: 100,
      maxWaitingRuns: 10_000,
      taskLeaseMs: 30_000,
      onError: 'function',
    });
  });

  describe('on a running host', () => {
    const variant = hostVariants[0]!;

    it('the default maxBodyBytes is 4 MiB and 64 KiB', async () => {
      const world = await createWorld(memoryServerStore());
      const host = await serveApp(await appWith(world.options()), variant);
      try {
        const exact = pingOfSize(4 * 1024 * 1024 + 64 * 1024);
        expectRpcReply(await host.post(world.codes.textStats, exact), 200, rpcResult(1, {}));
        expectRpcReply(
          await host.post(world.codes.textStats, pingOfSize(4 * 1024 * 1024 + 64 * 1024 + 1)),
          413,
          rpcError(null, -32600, 'Payload Too Large: the body exceeds 4259840 bytes'),
        );
      } finally {
        await host.close();
      }
    });

    it('the default onError writes internal failures to console.error', async () => {
      const world = await createWorld(memoryServerStore());
      const { onError: _recording, ...options } = world.options();
      const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
      const host = await serveApp(await appWith(options), variant);
      try {
        const reply = await host.post(RESOLVER_FAILS_CODE, request(1, 'ping'));
        expectRpcReply(reply, 500, rpcError(1, -32603, 'Internal error'));
        expect(consoleError.mock.calls).toEqual([
          ['express-app-mcp: internal failure during resolve', RESOLVER_FAILURE],
        ]);
      } finally {
        await host.close();
      }
    });

    it('changing the options object after the factory ran changes nothing', async () => {
      const world = await createWorld(memoryServerStore());
      const options = world.options({ maxBodyBytes: 1000 });
      const host = await serveApp(await appWith(options), variant);
      try {
        options.maxBodyBytes = 10;
        expectRpcReply(await host.post(world.codes.textStats, pingOfSize(900)), 200, rpcResult(1, {}));
      } finally {
        await host.close();
      }
    });
  });
});

async function appWith(options: McpServerOptions) {
  const { default: express } = await import('express');
  const app = express();
  app.use(mcpServer(options));
  return app;
}
