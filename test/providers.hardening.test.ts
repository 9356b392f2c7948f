/**
 * The tool provider console against hostile servers (docs/security.md): a server's reply and tool
 * list are bounded as for `connectMcpServer` (`maxReplyBytes`, `maxTools`), and nothing of a
 * refused server is stored.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  knexToolProviderStore,
  type McpToolProviderConsoleOptions,
  mcpToolProviderConsole,
  migrate,
  RemoteMcpError,
  type ToolProviderConsoleErrorContext,
  type ToolProviderStore,
} from '../src/index.js';
import { databases, type TestDatabase } from './helpers/databases.js';
import { answerOrAccept, type RemoteServer, replyResult, startRawServer } from './helpers/remote-servers.js';

const BASE = '/console/api/tool-providers';
const EDITOR = { tenantId: 'tenant-a', canEdit: true };

let database: TestDatabase;
let knex: Knex;
let store: ToolProviderStore;
const reports: { error: unknown; context: ToolProviderConsoleErrorContext }[] = [];
let remote: RemoteServer | undefined;

beforeAll(async () => {
  database = await databases[0]!.create();
  knex = database.connect();
  await migrate(knex);
  store = knexToolProviderStore(knex, { encryptionKey: randomBytes(32) });
});
afterAll(async () => {
  await database?.destroy();
});
afterEach(async () => {
  await remote?.close();
  remote = undefined;
  reports.length = 0;
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

const providerCount = async () => (await store.listProviders(EDITOR.tenantId)).length;

describe('bounded replies', () => {
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

  it('a server listing 1,001 tools: 400, and nothing is stored', async () => {
    remote = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      replyResult(res, message.id, { tools: Array.from({ length: 1001 }, (_, i) => tool(`t${i}`)) });
    });
    const before = await providerCount();

    const reply = await addProvider(consoleApp(), remote.url);

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
    const app = consoleApp({ maxTools: 2 });
    // More than the handshake's reply, less than the listing's.
    const small = consoleApp({ maxReplyBytes: 300 });

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
