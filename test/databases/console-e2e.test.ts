/**
 * The console's whole life cycle as an admin and an MCP client see it, on a real host listening on
 * 127.0.0.1: publish through the console, call the tool with the official MCP client, edit, rotate,
 * deactivate, reactivate, unpublish.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AppRun,
  type HostApp,
  knexServerStore,
  mcpConsole,
  mcpServer,
  type ServerRecord,
} from '../../src/index.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';

const TENANT = 'demo';
const TOKEN = 'admin-token';

const TEXT_STATS: HostApp = {
  id: 'text-stats',
  name: 'Text Stats',
  mode: 'workflow',
  description: 'Counts the words of a text',
  inputForm: [{ type: 'paragraph', variable: 'text', label: 'Text', required: true }],
  outputs: [{ variable: 'word_count', type: 'number' }],
};

interface ShownServer {
  id: string;
  server_code: string;
  status: string;
  url: string;
}

describeEach(databases)('publishing, rotating and unpublishing through the console on $name', (kind) => {
  let db: TestDatabase;
  let host: Host;
  let baseUrl: string;
  const runs: ServerRecord[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const fresh = await createMigrated(kind);
    db = fresh.db;
    const store = knexServerStore(fresh.knex);
    const loadApp = (appId: string, tenantId: string) =>
      tenantId === TENANT && appId === TEXT_STATS.id ? TEXT_STATS : null;

    const app = express();
    app.use(
      '/console/api',
      mcpConsole({
        store,
        loadApp,
        allowGetRefresh: true,
        authorize: (req) =>
          req.headers.authorization === `Bearer ${TOKEN}` ? { tenantId: TENANT, canEdit: true } : null,
      }),
    );
    app.use(
      mcpServer({
        resolveServer: store.resolver(loadApp),
        runApp: (run: AppRun) => {
          runs.push(run.server);
          return { outputs: { word_count: String(run.inputs.text).split(/\s+/).filter(Boolean).length } };
        },
      }),
    );
    host = await serveApp(app, hostVariants[0]!);
    baseUrl = host.url;
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await host?.close();
    await db?.destroy();
  });

  /** One console call as the admin; returns the status and the parsed body. */
  async function consoleCall(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${baseUrl}/console/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'console-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url, baseUrl)));
    return client;
  }

  const countWords = (client: Client) =>
    client.callTool({ name: 'Text_Stats', arguments: { text: 'one two three four' } });

  /** What the official client reports when the endpoint refuses the code. */
  async function expectRefused(url: string, message: string): Promise<void> {
    const client = new Client({ name: 'console-e2e', version: '1.0.0' });
    const failure = client.connect(new StreamableHTTPClientTransport(new URL(url, baseUrl)));
    await expect(failure).rejects.toMatchObject({ code: 404 });
    await expect(failure).rejects.toThrow(message);
    await client.close();
  }

  it('an admin publishes an app, a client calls it, and rotation, deactivation and deletion take effect at once', async () => {
    // Nothing published yet.
    expect(await consoleCall('GET', '/apps/text-stats/server')).toEqual({ status: 200, body: null });

    // Publish.
    const published = await consoleCall('POST', '/apps/text-stats/server', {
      description: 'Word statistics for any text',
      parameters: { text: 'The text whose words to count' },
    });
    expect(published.status).toBe(201);
    const first = published.body as ShownServer;
    expect(first.url).toBe(`/mcp/server/${first.server_code}/mcp`);

    // The official client lists and calls the tool at the published URL.
    const client = await connect(first.url);
    expect(client.getInstructions()).toBe('Word statistics for any text');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'Text_Stats',
      description: 'Word statistics for any text',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The text whose words to count' } },
        required: ['text'],
      },
    });
    expect(await countWords(client)).toEqual({
      content: [{ type: 'text', text: '{"word_count":4}' }],
      structuredContent: { word_count: 4 },
      isError: false,
    });
    expect(runs.at(-1)).toMatchObject({ id: first.id, tenantId: TENANT, appId: 'text-stats' });

    // An edit shows up in the next listing.
    const edited = await consoleCall('PUT', '/apps/text-stats/server', {
      id: first.id,
      parameters: { text: 'Any text' },
    });
    expect(edited.status).toBe(200);
    const relisted = await client.listTools();
    expect(relisted.tools[0]?.inputSchema.properties).toEqual({
      text: { type: 'string', description: 'Any text' },
    });

    // Rotate: the old URL is refused at once, even for a client that was connected; the new one works.
    const rotated = await consoleCall('POST', `/apps/${first.id}/server/refresh`);
    expect(rotated.status).toBe(200);
    const second = rotated.body as ShownServer;
    expect(second.id).toBe(first.id);
    expect(second.server_code).not.toBe(first.server_code);
    await expect(countWords(client)).rejects.toThrow('MCP server not found');
    await expectRefused(first.url, 'MCP server not found');
    const rotatedClient = await connect(second.url);
    expect((await countWords(rotatedClient)).structuredContent).toEqual({ word_count: 4 });

    // Rotate again the Dify way, with GET.
    const rotatedAgain = await consoleCall('GET', `/apps/${first.id}/server/refresh`);
    expect(rotatedAgain.status).toBe(200);
    const third = rotatedAgain.body as ShownServer;
    expect(third.server_code).not.toBe(second.server_code);
    await expectRefused(second.url, 'MCP server not found');
    const thirdClient = await connect(third.url);

    // Deactivate: the endpoint answers 404 "MCP server is not active"; reactivate: the same URL works again.
    const deactivated = await consoleCall('PUT', '/apps/text-stats/server', {
      id: first.id,
      parameters: { text: 'Any text' },
      status: 'inactive',
    });
    expect(deactivated).toMatchObject({ status: 200, body: { status: 'inactive', url: third.url } });
    await expect(countWords(thirdClient)).rejects.toThrow('MCP server is not active');
    await expectRefused(third.url, 'MCP server is not active');

    const reactivated = await consoleCall('PUT', '/apps/text-stats/server', {
      id: first.id,
      parameters: { text: 'Any text' },
      status: 'active',
    });
    expect(reactivated).toMatchObject({ status: 200, body: { status: 'active', url: third.url } });
    expect((await countWords(thirdClient)).structuredContent).toEqual({ word_count: 4 });

    // Unpublish: the endpoint no longer knows the code, and the app has no server.
    expect(await consoleCall('DELETE', '/apps/text-stats/server')).toEqual({ status: 204, body: undefined });
    await expect(countWords(thirdClient)).rejects.toThrow('MCP server not found');
    await expectRefused(third.url, 'MCP server not found');
    expect(await consoleCall('GET', '/apps/text-stats/server')).toEqual({ status: 200, body: null });
  });
});
