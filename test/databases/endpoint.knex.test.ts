/**
 * The core of the endpoint suite once more with the production resolver: `knexServerStore` on a
 * real database (an SQLite file; PostgreSQL too when TEST_POSTGRES_URL is set). A few rows of each
 * kind, the methods, a batch, a real store failure, and a rotation seen by the endpoint at once.
 */
import { readFile } from 'node:fs/promises';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { knexServerStore } from '../../src/store/index.js';
import {
  createWorld,
  DESCRIPTIONS,
  FAQ_BOT,
  TEXT_STATS,
  TEXT_STATS_TOOL,
  UNKNOWN_CODE,
  type World,
} from '../helpers/apps.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import {
  expectAccepted,
  expectRpcError,
  expectRpcReply,
  expectRpcResult,
  invalidParams,
  notification,
  request,
  rpcResult,
} from '../helpers/rpc.js';

const variant = hostVariants[0]!;
const { version: PACKAGE_VERSION } = JSON.parse(
  await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
);
const SUPPORTED = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const OUTPUTS = { word_count: 2, top_words: ['hello', 'world'] };

describeEach(databases)('the endpoint with the Knex store on $name', (kind) => {
  let db: TestDatabase;
  let knex: Knex;
  let world: World;
  let host: Host;

  beforeAll(async () => {
    ({ db, knex } = await createMigrated(kind));
    const pkg = await loadPackage(variant.major);
    world = await createWorld(knexServerStore(knex));
    host = await startHost(variant, pkg, world.options());
  });
  afterAll(async () => {
    await host?.close();
    await db?.destroy();
  });
  beforeEach(() => {
    world.reports.length = 0;
  });

  /** Initializes a server at 2025-06-18 as `clientInfo`; expects the whole reply; the server's end users after it. */
  const initializeAs = async (server: 'textStats' | 'faqBot', clientInfo: Record<string, string>) => {
    const reply = await host.post(
      world.codes[server],
      request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }),
    );
    expectRpcResult(reply, 1, {
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
      // A server without a description has no instructions.
      ...(DESCRIPTIONS[server] && { instructions: DESCRIPTIONS[server] }),
    });
    return knex('mcp_end_users').where({ server_id: world.servers[server].id }).select('name', 'type');
  };

  it('initialize answers and creates the end user, named after the client, in the database', async () => {
    expect(await initializeAs('textStats', { name: 'claude-ai', version: '0.1.0' })).toEqual([
      { name: 'claude-ai@0.1.0', type: 'mcp' },
    ]);
  });

  it('a client name with NUL characters, which PostgreSQL text cannot hold, is stored without them', async () => {
    expect(await initializeAs('faqBot', { name: 'evil\u0000client', version: '1\u0000' })).toEqual([
      { name: 'evilclient@1', type: 'mcp' },
    ]);
    expect(world.reports).toEqual([]);
  });

  it('tools/list and tools/call serve the app; the run gets the stored end user', async () => {
    const headers = { 'mcp-protocol-version': '2025-11-25' };
    const listed = await host.post(world.codes.textStats, request('l', 'tools/list'), headers);
    expectRpcResult(listed, 'l', { tools: [TEXT_STATS_TOOL.withIcons] });

    const called = await host.post(
      world.codes.textStats,
      request('c', 'tools/call', { name: 'Text_Stats', arguments: { text: 'hello world', top_n: '2' } }),
      headers,
    );
    expectRpcResult(called, 'c', {
      content: [{ type: 'text', text: JSON.stringify(OUTPUTS) }],
      structuredContent: OUTPUTS,
      isError: false,
    });
    const [row] = await knex('mcp_end_users')
      .where({ server_id: world.servers.textStats.id })
      .select('id', 'name');
    expect(world.runs.at(-1)?.endUser).toEqual({ id: row.id, name: 'claude-ai@0.1.0' });
  });

  it('ping and notifications', async () => {
    expectRpcResult(await host.post(world.codes.textStats, request(0, 'ping')), 0, {});
    expectAccepted(await host.post(world.codes.textStats, notification('notifications/initialized')));
  });

  it.each([
    ['an unknown code', () => UNKNOWN_CODE, 404, -32600, 'MCP server not found'],
    ['an inactive server', () => world.codes.inactive, 404, -32600, 'MCP server is not active'],
    ['a server whose app is gone', () => world.codes.appGone, 404, -32600, 'app not found'],
    ['an unavailable app', () => world.codes.unavailable, 503, -32603, 'app is unavailable'],
  ])('%s answers %i', async (_label, code, status, rpcCode, message) => {
    expectRpcError(await host.post(code(), request('s', 'tools/list')), status, 's', rpcCode, message);
  });

  it('an unknown method, an unknown tool and bad params answer 200 with their errors', async () => {
    const code = world.codes.textStats;
    expectRpcError(
      await host.post(code, request(1, 'resources/list')),
      200,
      1,
      -32601,
      'Method not found: resources/list',
    );
    expectRpcError(
      await host.post(code, request(2, 'tools/call', { name: 'Other' })),
      200,
      2,
      -32602,
      'Unknown tool: Other',
    );
    expectRpcReply(
      await host.post(code, request(3, 'tools/call', {})),
      200,
      invalidParams(3, 'tools/call', 'name', 'name must be a string'),
    );
  });

  it('transport and envelope rows answer before the database is asked', async () => {
    const queries: string[] = [];
    const listener = (query: { sql: string }) => queries.push(query.sql);
    knex.on('query', listener);
    try {
      expectRpcError(
        await host.post(world.codes.textStats, request(1, 'tools/list'), { 'mcp-protocol-version': 'bogus' }),
        400,
        1,
        -32600,
        'Unsupported MCP-Protocol-Version: bogus',
        { supported: SUPPORTED },
      );
      expectRpcError(
        await host.post(world.codes.textStats, '{oops'),
        400,
        null,
        -32700,
        'Parse error: the body is not valid JSON',
      );
      expectRpcError(
        await host.post(world.codes.textStats, { jsonrpc: '2.0', method: 'tools/list' }),
        400,
        null,
        -32600,
        'Invalid request: request id is required',
      );
    } finally {
      knex.removeListener('query', listener);
    }
    expect(queries).toEqual([]);
  });

  it('a batch is served from one lookup', async () => {
    const reply = await host.post(world.codes.textStats, [request(1, 'ping'), request(2, 'ping')]);
    expectRpcReply(reply, 200, [rpcResult(1, {}), rpcResult(2, {})]);
  });

  it('a rotated code is unknown at once, and the new code serves', async () => {
    const server = await world.store.getServerByApp('tenant-demo', FAQ_BOT.id);
    const oldCode = server!.serverCode;
    expectRpcResult(await host.post(oldCode, request(1, 'ping')), 1, {});
    const rotated = await world.store.rotateCode(server!.id);
    expectRpcError(await host.post(oldCode, request(2, 'ping')), 404, 2, -32600, 'MCP server not found');
    expectRpcResult(await host.post(rotated!.serverCode, request(3, 'ping')), 3, {});
  });

  it('a database that fails answers 500 "Internal error" and reports the cause', async () => {
    const broken = db.connect();
    const brokenWorldStore = knexServerStore(broken, { cacheTtlMs: 0 });
    await broken.destroy(); // every query of this store now fails
    const pkg = await loadPackage(variant.major);
    const failing = await startHost(
      variant,
      pkg,
      world.options({ resolveServer: brokenWorldStore.resolver(() => TEXT_STATS) }),
    );
    try {
      const reply = await failing.post(world.codes.textStats, request('f', 'tools/list'));
      expectRpcError(reply, 500, 'f', -32603, 'Internal error');
      expect(world.reports).toEqual([{ error: expect.any(Error), context: { phase: 'resolve' } }]);
      expect(reply.text).not.toContain(world.codes.textStats);
    } finally {
      await failing.close();
    }
  });
});
