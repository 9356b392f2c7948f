/**
 * `mcpToolProviderConsole`: the admin Router for remote MCP servers, on every database, against real
 * remote servers on 127.0.0.1. Adding or re-pointing a provider connects and lists its tools first;
 * URLs and header values are only ever shown masked; tenants, 401 and 403 as in the server console;
 * a key that does not fit is a clear 500 and nothing reaches the remote server.
 */
import { randomBytes } from 'node:crypto';
import express, { type Request } from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type ConsoleAccess,
  EncryptionKeyError,
  knexToolProviderStore,
  type McpToolProviderConsoleOptions,
  mcpToolProviderConsole,
  migrate,
  type ToolProviderConsoleErrorContext,
  type ToolProviderStore,
} from '../../src/index.js';
import { expectError, expectNotFound, expectUnauthenticated } from '../helpers/console-host.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import {
  answerOrAccept,
  closedPort,
  type RemoteServer,
  replyResult,
  startRawServer,
  startSdkServer,
  structuredResult,
  type ToolEvents,
} from '../helpers/remote-servers.js';

const BASE = '/console/api/tool-providers';
const KEY = randomBytes(32);
const REMOTE_TOKEN = 'Bearer remote-token-7c1f';

const ACCESS: Record<string, ConsoleAccess> = {
  'editor-a': { tenantId: 'tenant-a', canEdit: true },
  'viewer-a': { tenantId: 'tenant-a', canEdit: false },
  'editor-b': { tenantId: 'tenant-b', canEdit: true },
};

const authorize = (req: Request): ConsoleAccess | null => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return (token && ACCESS[token]) || null;
};

const SDK_TOOL_NAMES = ['weather', 'inventory', 'stats', 'media', 'countdown', 'slow', 'broken'];

describeEach(databases)("mcpToolProviderConsole on '$name'", (kind) => {
  let database: TestDatabase;
  let knex: Knex;
  let store: ToolProviderStore;
  let app: express.Express;
  let remote: RemoteServer & { events: ToolEvents };
  /** A hand-written server whose tool list grows by one tool at every tools/list. */
  let growing: RemoteServer;
  let listings = 0;
  const reports: { error: unknown; context: ToolProviderConsoleErrorContext }[] = [];

  beforeAll(async () => {
    database = await kind.create();
    knex = database.connect();
    await migrate(knex);
    store = knexToolProviderStore(knex, { encryptionKey: KEY });
    app = express();
    app.use(
      BASE,
      mcpToolProviderConsole({
        store,
        authorize,
        onError: (error, context) => reports.push({ error, context }),
        // The remote servers of these tests listen on loopback.
        allowPrivateNetworks: true,
      }),
    );
    remote = await startSdkServer('/mcp');
    growing = await startRawServer((message, res) => {
      if (message?.method === 'tools/list') {
        listings++;
        const tools = Array.from({ length: listings }, (_, index) => ({
          name: `tool_${index + 1}`,
          inputSchema: { type: 'object' },
        }));
        return replyResult(res, message.id, { tools });
      }
      answerOrAccept(message, res);
    });
  });
  afterAll(async () => {
    await Promise.all([remote?.close(), growing?.close()]);
    await database?.destroy();
  });

  const as = (token?: string) => {
    const auth = (test: request.Test) => (token ? test.set('Authorization', `Bearer ${token}`) : test);
    return {
      list: () => auth(request(app).get(BASE)),
      get: (id: string) => auth(request(app).get(`${BASE}/${id}`)),
      create: (body: unknown) => auth(request(app).post(BASE)).send(body as object),
      update: (id: string, body: unknown) => auth(request(app).put(`${BASE}/${id}`)).send(body as object),
      remove: (id: string) => auth(request(app).delete(`${BASE}/${id}`)),
      refresh: (id: string) => auth(request(app).post(`${BASE}/${id}/tools/refresh`)),
      call: (id: string, tool: string, body: unknown) =>
        auth(request(app).post(`${BASE}/${id}/tools/${encodeURIComponent(tool)}/call`)).send(body as object),
    };
  };
  const editor = as('editor-a');

  const addRemote = async (name = `Remote ${randomBytes(3).toString('hex')}`) => {
    const reply = await editor.create({
      name,
      server_url: remote.url,
      headers: { Authorization: REMOTE_TOKEN },
    });
    expect(reply.status).toBe(201);
    return reply.body as { id: string; name: string };
  };

  it('adds a provider after connecting and listing its tools; URL and headers come back masked', async () => {
    const before = remote.requests.length;

    const reply = await editor.create({
      name: 'Weather tools',
      server_url: `${remote.url}?key=abc`,
      headers: { Authorization: REMOTE_TOKEN },
      timeout_ms: 5000,
    });

    expect(reply.status).toBe(201);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.body).toEqual({
      id: expect.any(String),
      name: 'Weather tools',
      server_url: `${remote.origin}/******`,
      headers: { Authorization: '******' },
      timeout_ms: 5000,
      call_timeout_ms: 300_000,
      tools: expect.any(Array),
      tools_updated_at: expect.any(Number),
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect(reply.body.tools.map((tool: { name: string }) => tool.name)).toEqual(SDK_TOOL_NAMES);
    expect(reply.body.tools[0]).toMatchObject({
      name: 'weather',
      title: 'Weather',
      outputSchema: expect.any(Object),
    });
    const sent = remote.requests.slice(before);
    // Providers connect with protocol 'auto': this 2025 server refuses server/discover, then the
    // handshake and the tool list follow, and the session ends.
    expect(sent.map((r) => [r.method, (r.body as { method?: string } | undefined)?.method])).toEqual([
      ['POST', 'server/discover'],
      ['POST', 'initialize'],
      ['POST', 'notifications/initialized'],
      ['POST', 'tools/list'],
      ['DELETE', undefined],
    ]);
    expect(sent.every((r) => r.headers.authorization === REMOTE_TOKEN)).toBe(true);
    // Stored encrypted: neither the URL nor the header value in the raw row.
    const row = JSON.stringify(await knex('mcp_tool_providers').where({ id: reply.body.id }).first());
    for (const secret of [remote.url, '127.0.0.1', 'key=abc', 'remote-token-7c1f'])
      expect(row).not.toContain(secret);
    expect((await store.getProvider('tenant-a', reply.body.id))?.serverUrl).toBe(`${remote.url}?key=abc`);
  });

  it('a server nobody answers at: 400 "could not connect", the reason to onError, and nothing is stored', async () => {
    const port = await closedPort();
    const before = (await editor.list()).body.length;
    const reported = reports.length;

    const reply = await editor.create({
      name: 'Down',
      server_url: `http://127.0.0.1:${port}/secret-path/mcp`,
    });

    expectError(
      reply,
      400,
      'mcp_server_error',
      `MCP server http://127.0.0.1:${port}/******: could not connect`,
    );
    expect((await editor.list()).body).toHaveLength(before);
    expect(
      reports.slice(reported).map(({ error, context }) => [(error as Error).message, context.operation]),
    ).toEqual([
      [`MCP server http://127.0.0.1:${port}/secret-path/mcp: could not be reached (ECONNREFUSED)`, 'create'],
    ]);
  });

  it('a server that answers with an HTML error page: 400 that says so', async () => {
    const broken = await startRawServer((_message, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html><body>Internal Server Error</body></html>');
    });
    try {
      const reply = await editor.create({ name: 'Broken', server_url: broken.url, timeout_ms: 2000 });
      expectError(
        reply,
        400,
        'mcp_server_error',
        `MCP server ${broken.origin}/******: answered HTTP 500 with an HTML page`,
      );
    } finally {
      await broken.close();
    }
  });

  it('bad bodies: 400 naming every bad field', async () => {
    const reply = await editor.create({
      name: ' ',
      server_url: 'ftp://files.example.com',
      headers: { 'Bad Name': 'x' },
      timeout_ms: 0,
    });

    expectError(
      reply,
      400,
      'invalid_request',
      'Invalid request body: name must not be empty; server_url must be an http or https URL; headers.Bad Name must be a valid HTTP header name; timeout_ms must be more than 0',
      {
        name: 'must not be empty',
        server_url: 'must be an http or https URL',
        'headers.Bad Name': 'must be a valid HTTP header name',
        timeout_ms: 'must be more than 0',
      },
    );
  });

  it('a URL whose credentials are not valid percent-encoding: 400 naming the field, quoting nothing', async () => {
    const before = reports.length;
    const url = `${remote.origin.replace('http://', 'http://ada:s3cr%E0%A4%A@')}/mcp`;
    const added = await addRemote();

    const created = await editor.create({ name: 'Bad credentials', server_url: url });
    const edited = await editor.update(added.id, { server_url: url, headers: {} });

    for (const reply of [created, edited]) {
      expectError(
        reply,
        400,
        'invalid_request',
        'Invalid request body: server_url must have its user name and password in valid percent-encoding',
        { server_url: 'must have its user name and password in valid percent-encoding' },
      );
    }
    expect(reports.length).toBe(before);
  });

  it('a second provider of the same name: 409, without connecting', async () => {
    const first = await addRemote();
    const before = remote.requests.length;

    const reply = await editor.create({ name: first.name, server_url: remote.url });

    expectError(reply, 409, 'provider_exists', 'A tool provider with this name already exists');
    expect(remote.requests.length).toBe(before);
  });

  it('lists and gets the tenant’s providers; another tenant sees none of them', async () => {
    const added = await addRemote();

    const listed = await editor.list();
    expect(listed.status).toBe(200);
    expect(listed.body.map((provider: { id: string }) => provider.id)).toContain(added.id);
    expect((await editor.get(added.id)).body).toEqual(added);
    expect((await as('editor-b').list()).body).toEqual([]);
    expectNotFound(await as('editor-b').get(added.id), 'Tool provider not found');
    expectNotFound(await as('editor-b').remove(added.id), 'Tool provider not found');
    expectNotFound(await as('editor-b').call(added.id, 'weather', {}), 'Tool provider not found');
  });

  it('401 without access, 403 for a reader who writes; reading is allowed', async () => {
    const added = await addRemote();
    const viewer = as('viewer-a');

    expectUnauthenticated(await as().list());
    expectUnauthenticated(await as('nobody').get(added.id));
    expect((await viewer.get(added.id)).status).toBe(200);
    const forbidden = ['You are not allowed to edit tool providers'] as const;
    expectError(await viewer.create({ name: 'x', server_url: remote.url }), 403, 'forbidden', ...forbidden);
    expectError(await viewer.update(added.id, { name: 'x' }), 403, 'forbidden', ...forbidden);
    expectError(await viewer.remove(added.id), 403, 'forbidden', ...forbidden);
    expectError(await viewer.refresh(added.id), 403, 'forbidden', ...forbidden);
    expectError(await viewer.call(added.id, 'weather', {}), 403, 'forbidden', ...forbidden);
  });

  it('edits: a rename or new timeouts do not connect; masked values sent back keep the stored ones', async () => {
    const added = await addRemote();
    const before = remote.requests.length;

    const reply = await editor.update(added.id, {
      name: `${added.name} (renamed)`,
      server_url: `${remote.origin}/******`,
      headers: { Authorization: '******' },
      call_timeout_ms: 60_000,
    });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      name: `${added.name} (renamed)`,
      server_url: `${remote.origin}/******`,
      headers: { Authorization: '******' },
      call_timeout_ms: 60_000,
    });
    // The stored URL sent back as it is: no change either.
    expect((await editor.update(added.id, { server_url: remote.url })).status).toBe(200);
    expect(remote.requests.length).toBe(before);
    const stored = await store.getProvider('tenant-a', added.id);
    expect({ url: stored?.serverUrl, headers: stored?.headers }).toEqual({
      url: remote.url,
      headers: { Authorization: REMOTE_TOKEN },
    });
  });

  it('edits: new credentials are tried first and stored only when they work', async () => {
    const added = await addRemote();
    const before = remote.requests.length;

    const reply = await editor.update(added.id, {
      headers: { Authorization: 'Bearer rotated', 'X-Extra': '1' },
    });

    expect(reply.status).toBe(200);
    expect(reply.body.headers).toEqual({ Authorization: '******', 'X-Extra': '******' });
    // server/discover, initialize, notifications/initialized, tools/list and DELETE.
    expect(remote.requests.slice(before).map((r) => r.headers.authorization)).toEqual(
      Array(5).fill('Bearer rotated'),
    );
    expect((await store.getProvider('tenant-a', added.id))?.headers).toEqual({
      Authorization: 'Bearer rotated',
      'X-Extra': '1',
    });
  });

  it('edits: a URL on another origin never gets the stored headers; they are given again, in full', async () => {
    const added = await addRemote();
    const other = await startRawServer((message, res) => {
      answerOrAccept(message, res);
    });
    try {
      const moved = `${other.origin}/mcp`;

      const absent = await editor.update(added.id, { server_url: moved });
      const masked = await editor.update(added.id, {
        server_url: moved,
        headers: { Authorization: '******', 'X-Team': 'blue' },
      });

      expectError(
        absent,
        400,
        'invalid_request',
        'Invalid request body: headers must be given again, in full, for a server_url on another origin ({} for none)',
        { headers: 'must be given again, in full, for a server_url on another origin ({} for none)' },
      );
      expectError(
        masked,
        400,
        'invalid_request',
        'Invalid request body: headers.Authorization must be given again: stored values are not sent to another origin',
        { 'headers.Authorization': 'must be given again: stored values are not sent to another origin' },
      );
      expect(other.requests).toEqual([]);
      expect(await store.getProvider('tenant-a', added.id)).toMatchObject({
        serverUrl: remote.url,
        headers: { Authorization: REMOTE_TOKEN },
      });

      const given = await editor.update(added.id, {
        server_url: moved,
        headers: { Authorization: 'Bearer for-the-other-host' },
      });

      expect(given.status).toBe(200);
      expect(given.body).toMatchObject({
        server_url: `${other.origin}/******`,
        headers: { Authorization: '******' },
      });
      expect(other.requests.map((r) => r.headers.authorization)).not.toContain(REMOTE_TOKEN);
      expect(new Set(other.requests.map((r) => r.headers.authorization))).toEqual(
        new Set(['Bearer for-the-other-host']),
      );
    } finally {
      await other.close();
    }
  });

  it('edits: a new path on the same origin keeps the stored headers, masked ones included', async () => {
    const added = await addRemote();
    const before = remote.requests.length;

    const reply = await editor.update(added.id, { server_url: `${remote.url}?tenant=a` });

    expect(reply.status).toBe(200);
    expect(remote.requests.slice(before).map((r) => r.headers.authorization)).toEqual(
      Array(5).fill(REMOTE_TOKEN),
    );
    expect(await store.getProvider('tenant-a', added.id)).toMatchObject({
      serverUrl: `${remote.url}?tenant=a`,
      headers: { Authorization: REMOTE_TOKEN },
    });
  });

  it('edits: a new URL that does not work is a 400 and the provider keeps the old one', async () => {
    const added = await addRemote();
    const port = await closedPort();

    const reply = await editor.update(added.id, {
      server_url: `http://127.0.0.1:${port}/mcp`,
      headers: { Authorization: 'Bearer for-the-new-host' },
    });

    expectError(
      reply,
      400,
      'mcp_server_error',
      `MCP server http://127.0.0.1:${port}/******: could not connect`,
    );
    expect((await store.getProvider('tenant-a', added.id))?.serverUrl).toBe(remote.url);
  });

  it('refreshes the cached tool list from the server', async () => {
    listings = 0;
    const created = await editor.create({
      name: `Growing ${randomBytes(3).toString('hex')}`,
      server_url: growing.url,
    });
    expect(created.body.tools).toEqual([{ name: 'tool_1', inputSchema: { type: 'object' } }]);

    const reply = await editor.refresh(created.body.id);

    expect(reply.status).toBe(200);
    expect(reply.body.tools).toEqual([
      { name: 'tool_1', inputSchema: { type: 'object' } },
      { name: 'tool_2', inputSchema: { type: 'object' } },
    ]);
    expect((await store.getProvider('tenant-a', created.body.id))?.tools).toHaveLength(2);
  });

  it('tries a tool: the reply is the callTool result', async () => {
    const added = await addRemote();

    const reply = await editor.call(added.id, 'weather', { arguments: { city: 'Oslo' } });

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(structuredResult({ temperature: -3, conditions: 'clear' }));
  });

  it("a tool's own failure is a 200 result with isError", async () => {
    const added = await addRemote();

    const reply = await editor.call(added.id, 'broken', {});

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ isError: true, text: 'the database is down' });
  });

  it('deletes: 204, then 404', async () => {
    const added = await addRemote();

    const reply = await editor.remove(added.id);

    expect({ status: reply.status, text: reply.text }).toEqual({ status: 204, text: '' });
    expectNotFound(await editor.get(added.id), 'Tool provider not found');
  });

  it('unknown methods: 405 with Allow', async () => {
    const reply = await request(app).patch(BASE).set('Authorization', 'Bearer editor-a');

    expect(reply.headers.allow).toBe('GET, POST');
    expectError(reply, 405, 'method_not_allowed', 'Method not allowed: PATCH');
  });

  it('a key that does not fit: a clear 500, the cause to onError, and nothing reaches the server', async () => {
    const added = await addRemote();
    const wrongKey = express();
    wrongKey.use(
      BASE,
      mcpToolProviderConsole({
        store: knexToolProviderStore(knex, { encryptionKey: randomBytes(32) }),
        authorize,
        onError: (error, context) => reports.push({ error, context }),
      }),
    );
    const before = remote.requests.length;
    reports.length = 0;

    const listed = await request(wrongKey).get(BASE).set('Authorization', 'Bearer editor-a');
    const called = await request(wrongKey)
      .post(`${BASE}/${added.id}/tools/weather/call`)
      .set('Authorization', 'Bearer editor-a')
      .send({ arguments: { city: 'Oslo' } });

    const message =
      'The stored tool providers cannot be decrypted: the encryptionKey does not fit (they were encrypted with another key)';
    expectError(listed, 500, 'encryption_key_mismatch', message);
    expectError(called, 500, 'encryption_key_mismatch', message);
    expect(remote.requests.length).toBe(before);
    expect(reports.map(({ error, context }) => [error instanceof EncryptionKeyError, context])).toEqual([
      [true, { operation: 'list', tenantId: 'tenant-a' }],
      [true, { operation: 'call', tenantId: 'tenant-a', providerId: added.id }],
    ]);
  });
});

describe('mcpToolProviderConsole options', () => {
  const store = knexToolProviderStore(Object.assign(() => {}, { schema: {} }) as unknown as Knex, {
    encryptionKey: KEY,
  });

  it('a missing or wrong option is a configuration error naming it', () => {
    expect(() => mcpToolProviderConsole({ authorize } as unknown as McpToolProviderConsoleOptions)).toThrow(
      new ConfigurationError(
        'invalid_options',
        'mcpToolProviderConsole: invalid option "store": must be a tool provider store such as knexToolProviderStore(knex, { encryptionKey })',
      ),
    );
    expect(() =>
      mcpToolProviderConsole({ store, authorize, extra: 1 } as unknown as McpToolProviderConsoleOptions),
    ).toThrow('unknown option "extra"');
    expect(() => mcpToolProviderConsole({ store, authorize })).not.toThrow();
  });
});
