/**
 * The newcomer's path, end to end: the example app started the way the README says (`npm start`
 * with `PORT` and `DATABASE_URL`), then driven by three independent real clients: the official MCP
 * SDK client, the MCP Inspector CLI, and `mcp-remote` spawned as Claude Desktop spawns it. Runs on
 * SQLite always, and on PostgreSQL when `TEST_POSTGRES_URL` is set (a fresh schema).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/common.js';
import { answeredInConversation } from '../helpers/conversations.js';
import {
  answer,
  conversationAnswer,
  DEMO_CASES,
  failure,
  SERVER_INFO,
  SLOW_REPORT_STAGES,
  slowReportResult,
  TEXT_STATS_OUTPUTS,
  withoutExecution,
} from '../helpers/demo-cases.js';
import { TAGLINE_NODES, TAGLINE_OUTPUTS } from '../helpers/framework-cases.js';
import { describeEach } from '../helpers/postgres.js';
import { inspectorCommands, PINNED_INSPECTOR, runPrintedInspector } from '../helpers/printed-commands.js';
import {
  CONSOLE_TOKEN,
  type ConsoleServerJson,
  databaseKinds,
  type ExampleDatabase,
  inspector,
  type Launched,
  launch,
  mcpRemote,
  parseStartup,
  portIsFree,
  READY,
  ROOT,
  START_TIMEOUT_MS,
  type Started,
  sdkClient,
  stopAll,
  waitFor,
} from '../helpers/processes.js';
import { SERVER_CAPABILITIES } from '../helpers/rpc.js';
import { READ_ONLY } from '../helpers/tool-entries.js';

afterAll(stopAll);

// --- the tests -------------------------------------------------------------------------------------

describeEach(databaseKinds)('the example app on $name, started with npm start', (kind) => {
  let database: ExampleDatabase;
  let home: string;
  let port: number;
  let app: Launched;
  let started: Started;
  const base = () => `http://localhost:${port}`;
  const urlOf = (name: string) => {
    const url = started.urls.get(name);
    if (!url) throw new Error(`no URL printed for ${name}`);
    return url;
  };

  beforeAll(async () => {
    database = await kind.create();
    home = await mkdtemp(join(tmpdir(), 'example-app-e2e-home-'));
    port = await freePort();
    app = launch('npm', ['start'], {
      PORT: String(port),
      DATABASE_URL: database.url,
      CONSOLE_TOKEN,
    });
    await waitFor(app, READY);
    started = parseStartup(app.output());
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await stopAll();
    await database?.destroy();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('prints every app with its mode and MCP URL, and how to connect a client', () => {
    const output = app.output();
    expect(output).toContain(`express-app-mcp example app listening on ${base()}`);
    expect(Object.fromEntries(started.modes)).toEqual(
      Object.fromEntries(DEMO_CASES.map(({ name, mode }) => [name, mode])),
    );
    for (const { name } of DEMO_CASES) {
      expect(urlOf(name)).toMatch(new RegExp(`^${base()}/mcp/server/[A-Za-z0-9]{16}/mcp$`));
    }
    expect(new Set(started.urls.values()).size).toBe(DEMO_CASES.length);
    const first = urlOf('Text Stats');
    expect(inspectorCommands(output)).toEqual([
      `npx -y ${PINNED_INSPECTOR} --cli ${first} --transport http --method tools/list`,
    ]);
    expect(output).toContain(`claude mcp add --transport http text-stats ${first}\n`);
    expect(output).toContain(`"command": "npx", "args": ["-y", "mcp-remote", "${first}"]`);
    expect(output).toContain(`Authorization: Bearer $CONSOLE_TOKEN`);
    expect(output).not.toContain(CONSOLE_TOKEN);
  });

  it("starts without a warning: its stderr holds the build's one line and nothing of the packages it uses", () => {
    // oidc-provider, behind the OAuth demo's sign-in, warns on Node.js 20 when it is loaded: it is
    // loaded by the first sign-in, not at start (example-app/dev-authorization-server.js).
    // The build says it built dist/, or that dist/ was up to date (scripts/build.mjs).
    expect(app.stderr().split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^(built dist\/|dist\/ is up to date) \(ES module, CommonJS and declarations\)$/),
    ]);
  });

  it('seeded one server per demo app in the database it was given', async () => {
    // And the "oauth" demo server, Who Am I (test/example-app.oauth.test.ts).
    expect(await database.countServers()).toBe(DEMO_CASES.length + 1);
  });

  it('GET /apps lists the demo apps by id, name and mode, without their server codes', async () => {
    const response = await fetch(`${base()}/apps`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(
      DEMO_CASES.map(({ appId, name, mode }) => ({ id: appId, name, mode })),
    );
  });

  describe.each(DEMO_CASES)('$name through the official MCP SDK client', (demo) => {
    let client: Client;
    beforeAll(async () => {
      client = await sdkClient(urlOf(demo.name));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('initializes with the server info and the description as instructions', () => {
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
      expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
      expect(client.getInstructions()).toBe(demo.instructions ?? demo.tool.description);
    });

    it('lists exactly one tool: the app', async () => {
      expect(await client.listTools()).toEqual({ tools: [demo.tool] });
    });

    it('answers valid arguments with the exact deterministic result', async () => {
      for (const call of demo.valid) {
        expect(await client.callTool({ name: demo.tool.name, arguments: call.arguments })).toEqual(
          call.result,
        );
      }
    });

    it('answers invalid arguments with an error result that says what is wrong', async () => {
      for (const call of demo.invalid) {
        expect(await client.callTool({ name: demo.tool.name, arguments: call.arguments })).toEqual(
          call.result,
        );
      }
    });
  });

  it('the Slow Report streams a progress notification per stage to the SDK client, then its result', async () => {
    const client = await sdkClient(urlOf('Slow Report'));
    try {
      const notes: unknown[] = [];
      const result = await client.callTool(
        { name: 'Slow_Report', arguments: { topic: 'tides', seconds: 1 } },
        undefined,
        {
          onprogress: (note) => notes.push(note),
        },
      );

      expect(result).toEqual(slowReportResult('tides'));
      expect(notes).toEqual(
        SLOW_REPORT_STAGES.map((stage, index) => ({
          progress: index,
          total: 5,
          message: `stage ${index + 1} of 5: ${stage}`,
        })),
      );
    } finally {
      await client.close();
    }
  });

  it('the Tagline Writer, a LangGraph graph, streams a progress notification per node, then its outputs', async () => {
    const client = await sdkClient(urlOf('Tagline Writer'));
    try {
      const notes: unknown[] = [];
      const result = await client.callTool(
        { name: 'Tagline_Writer', arguments: { topic: 'Tea' } },
        undefined,
        {
          onprogress: (note) => notes.push(note),
        },
      );
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify(TAGLINE_OUTPUTS) }],
        structuredContent: TAGLINE_OUTPUTS,
        isError: false,
      });
      expect(notes).toEqual(TAGLINE_NODES.map((node, index) => ({ progress: index + 1, message: node })));
    } finally {
      await client.close();
    }
  });

  it('the Slow Report runs as a task: created at once, its stage as the status message, its result fetched later', async () => {
    const client = await sdkClient(urlOf('Slow Report'));
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: 'Slow_Report', arguments: { topic: 'tides', seconds: 3 } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      const created = (await stream.next()).value as {
        type: string;
        task: { taskId: string; status: string };
      };
      expect(created).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
      const { taskId } = created.task;
      await expect
        .poll(async () => (await client.experimental.tasks.getTask(taskId)).statusMessage, {
          timeout: 10_000,
        })
        .toMatch(/^stage [1-5] of 5: /);
      const messages = [];
      for await (const message of stream) messages.push(message);
      const { _meta, ...result } = (messages.at(-1) as { result: Record<string, unknown> }).result;
      expect(result).toEqual(slowReportResult('tides'));
      expect(_meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    } finally {
      await client.close();
    }
  });

  it('the FAQ Bot answers a follow-up from the previous question of the same conversation', async () => {
    const client = await sdkClient(urlOf('FAQ Bot'));
    try {
      const first = await client.callTool({
        name: 'FAQ_Bot',
        arguments: { query: 'What are your opening hours?' },
      });
      const hours = 'We are open Monday to Friday, 9:00 to 17:00.';
      expect(first).toEqual(conversationAnswer(hours));
      const { conversation_id: conversationId } = first.structuredContent as { conversation_id: string };

      const followUp = await client.callTool({
        name: 'FAQ_Bot',
        arguments: { query: 'and on weekends?', conversation_id: conversationId },
      });
      expect(followUp).toEqual(answeredInConversation(hours, conversationId));
      // The same words in a new conversation have no topic to go on.
      expect(await client.callTool({ name: 'FAQ_Bot', arguments: { query: 'and on weekends?' } })).toEqual(
        conversationAnswer("I don't know that yet."),
      );
    } finally {
      await client.close();
    }
  });

  it('the MCP Inspector CLI lists the tool and calls it', { timeout: 120_000 }, async () => {
    const url = urlOf('Text Stats');
    // The command the start output prints, as printed, on this Node.
    const listed = await runPrintedInspector(inspectorCommands(app.output())[0]!, process.execPath, home);
    expect(listed.code, listed.output).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ tools: [DEMO_CASES[0]!.tool] });

    const called = await inspector(
      home,
      url,
      '--method',
      'tools/call',
      '--tool-name',
      'Text_Stats',
      '--tool-arg',
      'text=the cat and the hat',
      'top_n=2',
    );
    expect(called.code, called.output).toBe(0);
    const outputs = { word_count: 5, char_count: 19, top_words: ['the', 'and'] };
    expect(JSON.parse(called.stdout)).toEqual({
      content: [{ type: 'text', text: JSON.stringify(outputs) }],
      structuredContent: outputs,
      isError: false,
    });

    const refused = await inspector(
      home,
      urlOf('Calculator Agent'),
      '--method',
      'tools/call',
      '--tool-name',
      'Calculator_Agent',
      '--tool-arg',
      'query=1/0',
    );
    // The Inspector prints the error result, and exits with its code for "the tool returned isError".
    expect(refused.code, refused.output).toBe(5);
    expect(JSON.parse(refused.stdout)).toEqual(failure('division by zero'));
  });

  it('mcp-remote, spawned as Claude Desktop spawns it, bridges initialize, tools/list and tools/call', {
    timeout: 120_000,
  }, async () => {
    const url = urlOf('Calculator Agent');
    const remote = mcpRemote(home, url);
    const initialized = await remote.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'claude-ai', version: '0.1.0' },
    });
    expect(initialized).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: false } },
        serverInfo: SERVER_INFO,
        instructions: DEMO_CASES[3]!.tool.description,
      },
    });
    remote.notify('notifications/initialized');
    expect(await remote.request(2, 'tools/list', {})).toEqual({
      jsonrpc: '2.0',
      id: 2,
      // 2025-06-18 has no tasks: the tool carries no `execution`.
      result: { tools: [withoutExecution(DEMO_CASES[3]!.tool)] },
    });
    expect(
      await remote.request(3, 'tools/call', {
        name: 'Calculator_Agent',
        arguments: { query: '(2 + 3) * 4.5' },
      }),
    ).toEqual({ jsonrpc: '2.0', id: 3, result: answer('22.5') });
    expect(
      await remote.request(4, 'tools/call', { name: 'Calculator_Agent', arguments: { query: '2 +' } }),
    ).toEqual({ jsonrpc: '2.0', id: 4, result: failure('invalid expression') });
    remote.run.child.stdin!.end();
    process.kill(-remote.run.child.pid!, 'SIGTERM');
    await remote.run.exited;
  });

  it('the console answers 401 without the bearer token and shows the server with it', async () => {
    const path = `${base()}/console/api/apps/title-case/server`;
    const refused = await fetch(path);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: { code: 'unauthorized', message: 'Authentication required' },
    });

    const response = await fetch(path, { headers: { Authorization: `Bearer ${CONSOLE_TOKEN}` } });
    expect(response.status).toBe(200);
    const server = (await response.json()) as ConsoleServerJson;
    expect(server).toEqual({
      id: expect.any(String),
      name: 'Title Case',
      server_code: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
      description: 'Rewrites a text in Title Case.',
      status: 'active',
      auth_mode: 'code',
      task_support: 'optional',
      parameters: {},
      annotations: READ_ONLY,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      url: `/mcp/server/${server.server_code}/mcp`,
    });
    expect(`${base()}${server.url}`).toBe(urlOf('Title Case'));
  });

  it('the tool provider console shows the provider Remote Text Stats calls, masked, and tries its tool', async () => {
    const auth = { Authorization: `Bearer ${CONSOLE_TOKEN}` };
    const refused = await fetch(`${base()}/console/api/tool-providers`);
    expect(refused.status).toBe(401);

    const response = await fetch(`${base()}/console/api/tool-providers`, { headers: auth });
    expect(response.status).toBe(200);
    const providers = (await response.json()) as { id: string }[];
    expect(providers).toEqual([
      {
        id: expect.any(String),
        name: 'Text Stats (this server)',
        server_url: `http://127.0.0.1:${port}/******`,
        headers: {},
        timeout_ms: 30_000,
        call_timeout_ms: 300_000,
        tools: [withoutExecution(DEMO_CASES[0]!.tool)],
        tools_updated_at: expect.any(Number),
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      },
    ]);

    const tried = await fetch(
      `${base()}/console/api/tool-providers/${providers[0]!.id}/tools/Text_Stats/call`,
      {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ arguments: { text: 'the cat and the hat' } }),
      },
    );
    expect(tried.status).toBe(200);
    expect(await tried.json()).toMatchObject({
      isError: false,
      variables: TEXT_STATS_OUTPUTS,
      json: [],
      files: [],
    });
  });

  it('a code rotated in the console stops working at once; the new one works', async () => {
    const auth = { Authorization: `Bearer ${CONSOLE_TOKEN}` };
    const current = (await (
      await fetch(`${base()}/console/api/apps/title-case/server`, { headers: auth })
    ).json()) as ConsoleServerJson;
    const rotated = await fetch(`${base()}/console/api/apps/${current.id}/server/refresh`, {
      method: 'POST',
      headers: auth,
    });
    expect(rotated.status).toBe(200);
    const server = (await rotated.json()) as ConsoleServerJson;
    expect(server.server_code).not.toBe(current.server_code);

    const old = await fetch(urlOf('Title Case'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(old.status).toBe(404);
    expect(old.headers.get('content-type')).toBe('application/json');
    expect(await old.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'MCP server not found' },
    });

    started.urls.set('Title Case', `${base()}${server.url}`);
    const client = await sdkClient(urlOf('Title Case'));
    try {
      expect(await client.callTool({ name: 'Title_Case', arguments: { text: 'hello world' } })).toEqual(
        answer('Hello World'),
      );
    } finally {
      await client.close();
    }
  });

  it('SIGTERM closes the server and the database: npm start exits 0 and the port is free', async () => {
    process.kill(started.pid, 'SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output()).toContain('SIGTERM received: closing the HTTP server and the database…');
    expect(app.output()).toContain('Stopped.');
    expect(await portIsFree(port)).toBe(true);
  });

  it('started again on the same database, it keeps every server and its code; Ctrl-C stops it', async () => {
    // `npm start` built dist/ above; a container would run the server like this, without npm.
    expect(existsSync(join(ROOT, 'dist', 'index.js'))).toBe(true);
    const again = launch(process.execPath, ['example-app/server.js'], {
      PORT: String(port),
      DATABASE_URL: database.url,
      CONSOLE_TOKEN,
    });
    await waitFor(again, READY);
    expect(parseStartup(again.output()).urls).toEqual(started.urls);
    // And the "oauth" demo server, Who Am I (test/example-app.oauth.test.ts).
    expect(await database.countServers()).toBe(DEMO_CASES.length + 1);

    // Ctrl-C in a terminal signals the whole process group.
    process.kill(-again.child.pid!, 'SIGINT');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    expect(again.output()).toContain('SIGINT received: closing the HTTP server and the database…');
    expect(await portIsFree(port)).toBe(true);
  });
});
