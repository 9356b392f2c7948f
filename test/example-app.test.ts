/**
 * The newcomer's path, end to end (issue 6): the example app started the way the README says
 * (`npm start` with `PORT` and `DATABASE_URL`), then driven by three independent real clients: the
 * official MCP SDK client, the MCP Inspector CLI, and `mcp-remote` spawned as Claude Desktop spawns
 * it. Runs on SQLite always, and on PostgreSQL when `TEST_POSTGRES_URL` is set (a fresh schema).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22, toolEntry } from '../scripts/tools.mjs';
import { PACKAGE_VERSION } from '../src/version.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The Inspector CLI (it needs Node 22.19 or later, and so a Node 22 binary on Node 20) and
 * `mcp-remote` are installed on first use by scripts/tools.mjs, not by npm ci.
 */
const NODE_22 = await node22();
const INSPECTOR = await toolEntry('inspector');
const MCP_REMOTE = await toolEntry('mcp-remote');
const CONSOLE_TOKEN = 'e2e-console-token';
const READY = 'Press Ctrl-C to stop.';
const START_TIMEOUT_MS = 240_000;
const SERVER_INFO = { name: 'express-app-mcp', version: PACKAGE_VERSION };

// --- what every demo app must show and answer (SPEC §8) ------------------------------------------

const QUERY = { type: 'string', description: 'User Input/Question content' };
const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

interface Call {
  arguments: Record<string, unknown>;
  result: { content: { type: 'text'; text: string }[]; structuredContent?: unknown; isError: boolean };
}

interface DemoCase {
  appId: string;
  name: string;
  mode: string;
  tool: Record<string, unknown> & { name: string; description: string };
  valid: Call[];
  invalid: Call[];
}

const answer = (text: string): Call['result'] => ({
  content: [{ type: 'text', text }],
  structuredContent: { answer: text },
  isError: false,
});
const failure = (text: string): Call['result'] => ({ content: [{ type: 'text', text }], isError: true });

const TEXT_STATS_OUTPUTS = { word_count: 5, char_count: 19, top_words: ['the', 'and', 'cat'] };

const DEMO_CASES: DemoCase[] = [
  {
    appId: 'text-stats',
    name: 'Text Stats',
    mode: 'workflow',
    tool: {
      name: 'Text_Stats',
      title: 'Text Stats',
      description: 'Counts the words and characters of a text and finds its most frequent words.',
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', maxLength: 10000, description: 'The text to analyse' },
          top_n: {
            type: 'number',
            description: 'How many of the most frequent words to return',
            default: 3,
          },
          language: {
            type: 'string',
            enum: ['en', 'fr', 'de'],
            description: 'The language of the text; it decides the alphabetical order of tied words',
          },
        },
        required: ['text'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          word_count: { type: 'number', description: 'How many words the text has' },
          char_count: { type: 'number', description: 'How many characters (code points) the text has' },
          top_words: {
            type: 'array',
            description: 'The most frequent words, most frequent first; ties in alphabetical order',
          },
        },
        required: ['word_count', 'char_count', 'top_words'],
      },
    },
    valid: [
      {
        arguments: { text: 'the cat and the hat' },
        result: {
          content: [{ type: 'text', text: JSON.stringify(TEXT_STATS_OUTPUTS) }],
          structuredContent: TEXT_STATS_OUTPUTS,
          isError: false,
        },
      },
      {
        arguments: { text: "Don't panic. DON'T! Zoë’s café 👋", top_n: '2', language: 'fr' },
        result: {
          content: [
            {
              type: 'text',
              text: JSON.stringify({ word_count: 5, char_count: 32, top_words: ["don't", 'café'] }),
            },
          ],
          structuredContent: { word_count: 5, char_count: 32, top_words: ["don't", 'café'] },
          isError: false,
        },
      },
    ],
    invalid: [
      {
        arguments: { top_n: 'many', language: 'es' },
        result: failure(
          'Invalid arguments for tool Text_Stats: text is required; top_n must be a number; language must be one of en, fr, de',
        ),
      },
      {
        arguments: { text: 'the cat', top_n: -1 },
        result: failure('top_n must be a whole number, 0 or more'),
      },
    ],
  },
  {
    appId: 'faq-bot',
    name: 'FAQ Bot',
    mode: 'chat',
    tool: {
      name: 'FAQ_Bot',
      title: 'FAQ Bot',
      description: 'Answers questions about opening hours, prices and refunds.',
      inputSchema: {
        type: 'object',
        properties: {
          query: QUERY,
          tone: {
            type: 'string',
            enum: ['plain', 'friendly'],
            description: 'plain, or friendly for a warmer answer',
          },
        },
        required: ['query'],
      },
      outputSchema: ANSWER_SCHEMA,
    },
    valid: [
      {
        arguments: { query: 'What are your opening hours?', tone: 'friendly' },
        result: answer('Happy to help! We are open Monday to Friday, 9:00 to 17:00.'),
      },
      {
        arguments: { query: 'Can I get a refund?' },
        result: answer('You can ask for a full refund within 30 days of your purchase.'),
      },
      { arguments: { query: 'Where is your office?' }, result: answer("I don't know that yet.") },
    ],
    invalid: [
      {
        arguments: { tone: 'grumpy' },
        result: failure(
          'Invalid arguments for tool FAQ_Bot: query is required; tone must be one of plain, friendly',
        ),
      },
    ],
  },
  {
    appId: 'support-desk',
    name: 'Support Desk',
    mode: 'advanced-chat',
    tool: {
      name: 'Support_Desk',
      title: 'Support Desk',
      description: "Files a support request and confirms it, tagged with the customer's tier.",
      inputSchema: {
        type: 'object',
        properties: {
          query: QUERY,
          customer_tier: {
            type: 'string',
            enum: ['free', 'pro'],
            description: "The customer's plan: free or pro",
          },
        },
        required: ['query', 'customer_tier'],
      },
      outputSchema: ANSWER_SCHEMA,
    },
    valid: [
      {
        arguments: { query: 'My printer is on fire', customer_tier: 'pro' },
        result: answer('[pro] We received: My printer is on fire'),
      },
    ],
    invalid: [
      {
        arguments: { query: 'Help', customer_tier: 'gold' },
        result: failure('Invalid arguments for tool Support_Desk: customer_tier must be one of free, pro'),
      },
      {
        arguments: {},
        result: failure(
          'Invalid arguments for tool Support_Desk: query is required; customer_tier is required',
        ),
      },
    ],
  },
  {
    appId: 'calc-agent',
    name: 'Calculator Agent',
    mode: 'agent-chat',
    tool: {
      name: 'Calculator_Agent',
      title: 'Calculator Agent',
      description:
        'Evaluates an arithmetic expression with + - * /, parentheses and decimals, e.g. "(2 + 3) * 4.5".',
      inputSchema: { type: 'object', properties: { query: QUERY }, required: ['query'] },
      outputSchema: ANSWER_SCHEMA,
    },
    valid: [
      { arguments: { query: '(2 + 3) * 4.5' }, result: answer('22.5') },
      { arguments: { query: '2 + 3 * -4' }, result: answer('-10') },
      { arguments: { query: '0.1 + 0.2' }, result: answer('0.30000000000000004') },
    ],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Calculator_Agent: query is required') },
      { arguments: { query: '1 / (2 - 2)' }, result: failure('division by zero') },
      { arguments: { query: 'two plus two' }, result: failure('invalid expression') },
    ],
  },
  {
    appId: 'title-case',
    name: 'Title Case',
    mode: 'completion',
    tool: {
      name: 'Title_Case',
      title: 'Title Case',
      description: 'Rewrites a text in Title Case.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 200, description: 'The text to rewrite' } },
        required: ['text'],
      },
      outputSchema: ANSWER_SCHEMA,
    },
    valid: [{ arguments: { text: 'the QUICK brown fox' }, result: answer('The Quick Brown Fox') }],
    invalid: [
      {
        arguments: { text: 'x'.repeat(201) },
        result: failure('Invalid arguments for tool Title_Case: text must be at most 200 characters'),
      },
    ],
  },
];

// --- processes -------------------------------------------------------------------------------------

interface Launched {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they came. */
  output(): string;
  stdout(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const launched: Launched[] = [];

/** Starts a command in its own process group (as a terminal does), collecting what it prints. */
function launch(command: string, args: string[], env: Record<string, string>): Launched {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(command, args, { cwd: ROOT, env: childEnv, detached: true, stdio: 'pipe' });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const run = { child, output: () => output, stdout: () => stdout, exited };
  launched.push(run);
  return run;
}

async function waitFor(run: Launched, text: string, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  run.exited.then(() => {
    exited = true;
  });
  while (!run.output().includes(text)) {
    if (exited) throw new Error(`the process exited before printing "${text}":\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopAll(): Promise<void> {
  for (const run of launched) {
    if (run.child.exitCode === null && run.child.signalCode === null && run.child.pid) {
      try {
        process.kill(-run.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something may listen on the port again, i.e. the example app let go of it. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface Started {
  pid: number;
  /** App name → its MCP URL, as the start-up message prints them. */
  urls: Map<string, string>;
  /** App name → its mode, as printed. */
  modes: Map<string, string>;
}

function parseStartup(output: string): Started {
  const pid = Number(/pid (\d+)\)/.exec(output)?.[1]);
  const urls = new Map<string, string>();
  const modes = new Map<string, string>();
  for (const match of output.matchAll(/^ {2}(\S.*?) \(([a-z-]+)\)[^\n]*\n {4}(http:\/\/\S+)$/gm)) {
    modes.set(match[1]!, match[2]!);
    urls.set(match[1]!, match[3]!);
  }
  return { pid, urls, modes };
}

/** A server as the console shows it (SPEC §7). */
interface ConsoleServerJson {
  id: string;
  server_code: string;
  url: string;
}

// --- the clients -----------------------------------------------------------------------------------

async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: 'example-app-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Runs the Inspector CLI once and returns what it printed on stdout (one JSON document). */
async function inspector(home: string, url: string, ...args: string[]) {
  const run = launch(NODE_22, [INSPECTOR, '--cli', url, '--transport', 'http', ...args], { HOME: home });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

/**
 * `mcp-remote` spawned as Claude Desktop spawns it (`npx mcp-remote <url>`, here its pinned copy run
 * by this Node), JSON-RPC on stdio.
 */
function mcpRemote(home: string, url: string) {
  const run = launch(process.execPath, [MCP_REMOTE, url], { HOME: home });
  const replies = new Map<number, (message: Record<string, unknown>) => void>();
  const lines = createInterface({ input: run.child.stdout! });
  lines.on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a JSON-RPC line
    }
    if (typeof message.id === 'number') replies.get(message.id)?.(message);
  });
  return {
    run,
    notify(method: string) {
      run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    request(id: number, method: string, params: Record<string, unknown>) {
      const reply = new Promise<Record<string, unknown>>((resolve) => replies.set(id, resolve));
      run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return reply;
    },
  };
}

// --- the databases -----------------------------------------------------------------------------------

interface ExampleDatabase {
  name: 'sqlite' | 'postgres';
  url: string;
  /** How many servers the example wrote into the database. */
  countServers(): Promise<number>;
  destroy(): Promise<void>;
}

const databaseKinds: { name: 'sqlite' | 'postgres'; create(): Promise<ExampleDatabase> }[] = [
  {
    name: 'sqlite',
    async create() {
      const folder = await mkdtemp(join(tmpdir(), 'example-app-e2e-'));
      const file = join(folder, 'example.sqlite');
      return {
        name: 'sqlite',
        url: file,
        async countServers() {
          const knex = knexFactory({
            client: 'better-sqlite3',
            connection: { filename: file },
            useNullAsDefault: true,
          });
          try {
            const [row] = await knex('mcp_servers').count({ n: '*' });
            return Number(row?.n);
          } finally {
            await knex.destroy();
          }
        },
        destroy: () => rm(folder, { recursive: true, force: true }),
      };
    },
  },
];

const postgresUrl = process.env.TEST_POSTGRES_URL;
if (postgresUrl) {
  databaseKinds.push({
    name: 'postgres',
    async create() {
      // A fresh schema, made the connection's search_path through the URL, as a host could do.
      const schema = `example_${randomBytes(6).toString('hex')}`;
      const admin = knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 1 } });
      await admin.raw('create schema ??', [schema]);
      const url = new URL(postgresUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return {
        name: 'postgres',
        url: url.href,
        async countServers() {
          const [row] = await admin.withSchema(schema).table('mcp_servers').count({ n: '*' });
          return Number(row?.n);
        },
        async destroy() {
          await admin.raw('drop schema ?? cascade', [schema]);
          await admin.destroy();
        },
      };
    },
  });
} else if (process.env.REQUIRE_POSTGRES === '1') {
  throw new Error(
    'REQUIRE_POSTGRES=1 but TEST_POSTGRES_URL is not set: the example app cannot be run on PostgreSQL',
  );
}

afterAll(stopAll);

// --- the tests -------------------------------------------------------------------------------------

describe.each(databaseKinds)('the example app on $name, started with npm start', (kind) => {
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
    expect(output).toContain(
      `npx @modelcontextprotocol/inspector --cli ${first} --transport http --method tools/list`,
    );
    expect(output).toContain(`"command": "npx", "args": ["mcp-remote", "${first}"]`);
    expect(output).toContain(`Authorization: Bearer $CONSOLE_TOKEN`);
    expect(output).not.toContain(CONSOLE_TOKEN);
  });

  it('seeded one server per demo app in the database it was given', async () => {
    expect(await database.countServers()).toBe(DEMO_CASES.length);
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
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
      expect(client.getInstructions()).toBe(demo.tool.description);
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

  it('the MCP Inspector CLI lists the tool and calls it', { timeout: 120_000 }, async () => {
    const url = urlOf('Text Stats');
    const listed = await inspector(home, url, '--method', 'tools/list');
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
      result: { tools: [DEMO_CASES[3]!.tool] },
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
      parameters: {},
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      url: `/mcp/server/${server.server_code}/mcp`,
    });
    expect(`${base()}${server.url}`).toBe(urlOf('Title Case'));
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
    expect(await database.countServers()).toBe(DEMO_CASES.length);

    // Ctrl-C in a terminal signals the whole process group.
    process.kill(-again.child.pid!, 'SIGINT');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    expect(again.output()).toContain('SIGINT received: closing the HTTP server and the database…');
    expect(await portIsFree(port)).toBe(true);
  });
});
