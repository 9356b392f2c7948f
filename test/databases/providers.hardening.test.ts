/**
 * The tool provider console against hostile servers and hostile editors (docs/security.md): a
 * server's reply and tool list are bounded as for `connectMcpServer` (`maxReplyBytes`, `maxTools`);
 * a `server_url` (or a redirect) whose address is not public is refused before any connection,
 * unless `allowPrivateNetworks` or `isAllowedUrl` permits it, and the editor is told only "could not
 * connect". Nothing of a refused server is stored. Every test here sends nothing beyond loopback: a
 * watch stops and records any other connection.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nonPublicKind } from '../../src/client/addresses.js';
import { NonPublicAddressError, publicFetch } from '../../src/client/public-fetch.js';
import {
  connectMcpServer,
  connectToolProvider,
  knexToolProviderStore,
  type McpToolProviderConsoleOptions,
  mcpToolProviderConsole,
  migrate,
  RemoteMcpError,
  type ToolProviderConsoleErrorContext,
  type ToolProviderStore,
} from '../../src/index.js';
import { itMaps } from '../helpers/common.js';
import { databases, type TestDatabase } from '../helpers/databases.js';
import { type FloodReport, type FloodShape, floodReply, MiB, peakRssGrowth } from '../helpers/flood.js';
import { resolveNames, watchConnections } from '../helpers/network-guard.js';
import {
  answerOrAccept,
  type RemoteServer,
  replyResult,
  startRawServer,
  startSdkServer,
} from '../helpers/remote-servers.js';

const BASE = '/console/api/tool-providers';
const EDITOR = { tenantId: 'tenant-a', canEdit: true };

let database: TestDatabase;
let knex: Knex;
let store: ToolProviderStore;
const reports: { error: unknown; context: ToolProviderConsoleErrorContext }[] = [];
let remote: RemoteServer | undefined;
let connections: ReturnType<typeof watchConnections>;

beforeAll(async () => {
  connections = watchConnections();
  database = await databases[0]!.create();
  knex = database.connect();
  await migrate(knex);
  store = knexToolProviderStore(knex, { encryptionKey: randomBytes(32) });
});
afterAll(async () => {
  connections.restore();
  await database?.destroy();
});
afterEach(async () => {
  await remote?.close();
  remote = undefined;
  reports.length = 0;
  expect(connections.attempts.splice(0)).toEqual([]);
});

/** The console over the test store, with `options` besides. */
function consoleApp(options: Partial<McpToolProviderConsoleOptions> = {}) {
  const app = express();
  app.use(
    BASE,
    mcpToolProviderConsole({
      store,
      authorize: () => EDITOR,
      onError: (error, context) => reports.push({ error, context }),
      ...options,
    }),
  );
  return app;
}

const addProvider = (app: express.Express, serverUrl: string) =>
  request(app)
    .post(BASE)
    .send({ name: `Provider ${randomBytes(3).toString('hex')}`, server_url: serverUrl, timeout_ms: 5000 });

const reportedMessages = () => reports.map(({ error }) => (error as Error).message);

const providerCount = async () => (await store.listProviders(EDITOR.tenantId)).length;

/** The console's `isAllowedUrl` for one test server: its origin, and nothing else. */
const onlyOrigin = (server: RemoteServer) => (url: URL) => url.origin === server.origin;

describe('bounded replies', () => {
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

  it.each(['json', 'sse', 'gzip'] as FloodShape[])(
    'a 300 MiB listing as %s: 400 at maxReplyBytes, the connection dropped, the memory not held',
    async (shape) => {
      const floods: Promise<FloodReport>[] = [];
      remote = await startRawServer((message, res) => {
        if (message?.method === 'tools/list') floods.push(floodReply(res, message.id, shape, 300 * MiB));
        else answerOrAccept(message, res);
      });
      const app = consoleApp({ isAllowedUrl: onlyOrigin(remote) });
      const before = await providerCount();

      const { result: reply, growth } = await peakRssGrowth(async () => addProvider(app, remote!.url));
      const [sent] = await Promise.all(floods);

      const part = shape === 'sse' ? 'an event' : 'a reply';
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: {
          error: {
            code: 'mcp_server_error',
            message: `MCP server ${remote.origin}/******: sent ${part} of more than ${10 * MiB} bytes during tools/list, more than the client reads (maxReplyBytes)`,
          },
        },
      });
      expect(await providerCount()).toBe(before);
      expect(sent?.clientLeft).toBe(true);
      expect(growth).toBeLessThan(150 * MiB);
    },
  );

  it('a server listing 1,001 tools: 400, and nothing is stored', async () => {
    remote = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      replyResult(res, message.id, { tools: Array.from({ length: 1001 }, (_, i) => tool(`t${i}`)) });
    });
    const before = await providerCount();

    const reply = await addProvider(consoleApp({ isAllowedUrl: onlyOrigin(remote) }), remote.url);

    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 400,
      body: {
        error: {
          code: 'mcp_server_error',
          message: `MCP server ${remote.origin}/******: answered tools/list with more than 1000 tools, more than the client reads (maxTools)`,
        },
      },
    });
    expect(await providerCount()).toBe(before);
  });

  it('maxReplyBytes and maxTools are the console’s options too', async () => {
    remote = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      const described = (name: string) => ({ ...tool(name), description: 'd'.repeat(200) });
      replyResult(res, message.id, { tools: [described('a'), described('b'), described('c')] });
    });
    const app = consoleApp({ allowPrivateNetworks: true, maxTools: 2 });
    // More than the handshake's reply, less than the listing's.
    const small = consoleApp({ allowPrivateNetworks: true, maxReplyBytes: 300 });

    const tooMany = await addProvider(app, remote.url);
    const tooLarge = await addProvider(small, remote.url);

    expect([tooMany.status, tooMany.body.error.message]).toEqual([
      400,
      `MCP server ${remote.origin}/******: answered tools/list with more than 2 tools, more than the client reads (maxTools)`,
    ]);
    expect([tooLarge.status, tooLarge.body.error.message]).toEqual([
      400,
      `MCP server ${remote.origin}/******: sent a reply of more than 300 bytes during tools/list, more than the client reads (maxReplyBytes)`,
    ]);
    expect(() => consoleApp({ maxTools: 0 })).toThrow(/invalid option "maxTools"/);
    expect(reports.filter(({ error }) => !(error instanceof RemoteMcpError))).toEqual([]);
  });
});

describe('addresses that are not public', () => {
  /** A loopback server that must never be reached by the refused providers. */
  let target: RemoteServer;
  let port: number;
  beforeAll(async () => {
    target = await startRawServer((message, res) => answerOrAccept(message, res));
    port = Number(new URL(target.origin).port);
  });
  afterAll(async () => {
    await target?.close();
  });

  const refusal = (url: string, address: string, kind: string) =>
    `MCP server ${url}: was refused before connecting: ${address} is a ${kind} address (allowPrivateNetworks, isAllowedUrl)`;

  it.each([
    ['a loopback IP', () => `http://127.0.0.1:${port}/mcp`, '127.0.0.1', 'loopback'],
    ['another loopback IP', () => `http://127.8.9.10:${port}/mcp`, '127.8.9.10', 'loopback'],
    ['IPv6 loopback', () => `http://[::1]:${port}/mcp`, '::1', 'loopback'],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${port}/mcp`, '::ffff:7f00:1', 'loopback'],
    ['10/8', () => 'http://10.1.2.3/mcp', '10.1.2.3', 'private'],
    ['192.168/16', () => 'https://192.168.1.1:8443/mcp', '192.168.1.1', 'private'],
    [
      '169.254/16, where cloud metadata answers',
      () => 'http://169.254.169.254/mcp',
      '169.254.169.254',
      'link-local',
    ],
    ['0.0.0.0', () => `http://0.0.0.0:${port}/mcp`, '0.0.0.0', 'special-purpose'],
    ['IPv6 unique local', () => 'http://[fd00::1]/mcp', 'fd00::1', 'private'],
  ])(
    '%s: 400 "could not connect", the reason to onError, nothing sent',
    async (_case, url, address, kind) => {
      const before = target.requests.length;
      const serverUrl = url();

      const reply = await addProvider(consoleApp(), serverUrl);

      const { protocol, host, pathname } = new URL(serverUrl);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: {
          error: {
            code: 'mcp_server_error',
            message: `MCP server ${protocol}//${host}/******: could not connect`,
          },
        },
      });
      expect(reports.map(({ error, context }) => [(error as Error).message, context.operation])).toEqual([
        [refusal(`${protocol}//${host}${pathname}`, address, kind), 'create'],
      ]);
      expect(target.requests.length).toBe(before);
    },
  );

  it('localhost, resolved: refused', async () => {
    const reply = await addProvider(consoleApp(), `http://localhost:${port}/mcp`);

    expect(reply.body.error.message).toBe(`MCP server http://localhost:${port}/******: could not connect`);
    expect(reportedMessages()[0]).toMatch(
      new RegExp(
        `^MCP server http://localhost:${port}/mcp: was refused before connecting: (127\\.0\\.0\\.1|::1) is a loopback address`,
      ),
    );
    expect(target.requests).toEqual([]);
  });

  it('a name that resolves to 127.x: refused after the lookup, before connecting', async () => {
    const names = resolveNames({ 'tools.example.test': ['127.3.4.5'] });
    try {
      const reply = await addProvider(consoleApp(), `http://tools.example.test:${port}/mcp`);

      expect(reply.body.error.message).toBe(
        `MCP server http://tools.example.test:${port}/******: could not connect`,
      );
      expect(reportedMessages()[0]).toBe(
        refusal(`http://tools.example.test:${port}/mcp`, '127.3.4.5', 'loopback'),
      );
    } finally {
      names.restore();
    }
    expect(target.requests).toEqual([]);
  });

  it('a name that resolves to a public and a private address: refused', async () => {
    const names = resolveNames({ 'split.example.test': ['93.184.216.34', '10.9.8.7'] });
    try {
      const reply = await addProvider(consoleApp(), 'http://split.example.test/mcp');

      expect(reply.status).toBe(400);
      expect(reportedMessages()[0]).toBe(refusal('http://split.example.test/mcp', '10.9.8.7', 'private'));
    } finally {
      names.restore();
    }
  });

  it('allowPrivateNetworks: true, or isAllowedUrl, lets a loopback server through', async () => {
    remote = await startSdkServer('/mcp');

    const open = await addProvider(consoleApp({ allowPrivateNetworks: true }), remote.url);
    const permitted = await addProvider(consoleApp({ isAllowedUrl: onlyOrigin(remote) }), remote.url);
    const otherPort = await addProvider(
      consoleApp({ isAllowedUrl: (url) => url.hostname === '127.0.0.1' && url.port === '1' }),
      remote.url,
    );

    expect([open.status, permitted.status, otherPort.status]).toEqual([201, 201, 400]);
    expect(permitted.body.tools.map((tool: { name: string }) => tool.name)).toContain('weather');
    expect(otherPort.body.error.message).toBe(`MCP server ${remote.origin}/******: could not connect`);
  });

  it('a redirect to a URL the hook does not permit: refused at the redirect', async () => {
    remote = await startRawServer((message, res, req) => {
      if (req.url === '/mcp') {
        res.writeHead(307, { location: '/internal/mcp' });
        return res.end();
      }
      answerOrAccept(message, res);
    });
    const app = consoleApp({
      isAllowedUrl: (url) => url.origin === remote!.origin && url.pathname === '/mcp',
    });

    const reply = await addProvider(app, remote.url);

    expect(reply.body.error.message).toBe(`MCP server ${remote.origin}/******: could not connect`);
    expect(reports.map(({ error }) => (error as Error).message)).toContain(
      refusal(remote.url, '127.0.0.1', 'loopback'),
    );
    expect(remote.requests.map((seen) => seen.path)).not.toContain('/internal/mcp');
  });

  it('a redirect to another origin (another loopback port) is not followed at all', async () => {
    remote = await startRawServer((_message, res) => {
      res.writeHead(307, { location: `${target.origin}/mcp` });
      res.end();
    });
    const app = consoleApp({ isAllowedUrl: onlyOrigin(remote) });

    const reply = await addProvider(app, remote.url);

    expect(reply.body.error.message).toBe(
      `MCP server ${remote.origin}/******: answered HTTP 307, a redirect the client does not follow`,
    );
    expect(target.requests).toEqual([]);
  });

  it('a redirect followed by the fetch itself is checked at every hop', async () => {
    remote = await startRawServer((_message, res) => {
      res.writeHead(302, { location: `${target.origin}/mcp` });
      res.end();
    });
    const fetch = publicFetch(onlyOrigin(remote));

    const error = await fetch(remote.url).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toEqual(new NonPublicAddressError('127.0.0.1', 'loopback'));
    expect(remote.requests.map((seen) => seen.method)).toEqual(['GET']);
    expect(target.requests).toEqual([]);
  });

  it('every connection is checked again: a stored provider whose URL is now refused cannot be refreshed or called', async () => {
    remote = await startSdkServer('/mcp');
    const created = await addProvider(consoleApp({ allowPrivateNetworks: true }), remote.url);
    const strict = consoleApp();
    const before = remote.requests.length;

    const refreshed = await request(strict).post(`${BASE}/${created.body.id}/tools/refresh`);
    const called = await request(strict)
      .post(`${BASE}/${created.body.id}/tools/weather/call`)
      .send({ arguments: { city: 'Oslo' } });

    for (const reply of [refreshed, called]) {
      expect({ status: reply.status, message: reply.body.error.message }).toEqual({
        status: 400,
        message: `MCP server ${remote.origin}/******: could not connect`,
      });
    }
    expect(reports.map(({ context }) => context.operation)).toEqual(['refresh', 'call']);
    expect(remote.requests.length).toBe(before);
  });

  it('a hook that throws permits nothing', async () => {
    const reply = await addProvider(
      consoleApp({
        isAllowedUrl: () => {
          throw new Error('the hook failed');
        },
      }),
      `http://127.0.0.1:${port}/mcp`,
    );

    expect(reply.status).toBe(400);
    expect(target.requests).toEqual([]);
  });

  it('connectToolProvider keeps to public addresses too; connectMcpServer, for URLs of your own, unless told', async () => {
    remote = await startSdkServer('/mcp');
    const provider = { serverUrl: remote.url, headers: {}, timeoutMs: 5000, callTimeoutMs: 5000 };

    const refused = await connectToolProvider(provider).catch((error: unknown) => error);
    const strict = await connectMcpServer(remote.url, { allowPrivateNetworks: false }).catch(
      (error) => error,
    );
    const permitted = await connectToolProvider(provider, { isAllowedUrl: onlyOrigin(remote) });
    const own = await connectMcpServer(remote.url);
    const tools = [await permitted.listTools(), await own.listTools()].map((list) => list.length);
    await Promise.all([permitted.close(), own.close()]);

    for (const error of [refused, strict]) {
      expect(error).toBeInstanceOf(RemoteMcpError);
      expect({ kind: error.kind, message: error.message }).toEqual({
        kind: 'unreachable',
        message: refusal(remote.url, '127.0.0.1', 'loopback'),
      });
    }
    expect(tools).toEqual([7, 7]);
  });

  it('the options are checked at creation', () => {
    expect(() => consoleApp({ allowPrivateNetworks: 'yes' as unknown as boolean })).toThrow(
      /invalid option "allowPrivateNetworks"/,
    );
    expect(() => consoleApp({ isAllowedUrl: 'http://127.0.0.1' as unknown as () => boolean })).toThrow(
      /invalid option "isAllowedUrl"/,
    );
  });
});

describe('what counts as public', () => {
  itMaps('%s: %s', nonPublicKind, [
    ['8.8.8.8', undefined],
    ['2606:4700::1111', undefined],
    ['64:ff9b::808:808', undefined],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', undefined],
    ['100.64.0.1', 'private'],
    ['fe80::1', 'link-local'],
    ['::', 'special-purpose'],
    ['::127.0.0.1', 'special-purpose'],
    ['224.0.0.1', 'special-purpose'],
    ['255.255.255.255', 'special-purpose'],
    ['not an address', 'special-purpose'],
  ]);
});
