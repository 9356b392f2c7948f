/**
 * The example app as a process, started the way the README says, and the real clients that drive it
 * (the MCP SDK client, the MCP Inspector CLI, `mcp-remote`), with the databases it runs on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import knexFactory from 'knex';
import { node22, toolEntry } from '../../scripts/tools.mjs';
import { postgresSkipped, postgresUrl } from './postgres.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The Inspector CLI (it needs Node 22.19 or later, and so a Node 22 binary on Node 20) and
 * `mcp-remote` are installed on first use by scripts/tools.mjs, not by npm ci.
 */
export const NODE_22 = await node22();
export const INSPECTOR = await toolEntry('inspector');
const MCP_REMOTE = await toolEntry('mcp-remote');
export const CONSOLE_TOKEN = 'e2e-console-token';
export const READY = 'Press Ctrl-C to stop.';
export const START_TIMEOUT_MS = 240_000;

export interface Launched {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they came. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const launched: Launched[] = [];

/** Starts a command in its own process group (as a terminal does), collecting what it prints. */
export function launch(command: string, args: string[], env: Record<string, string>): Launched {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(command, args, { cwd: ROOT, env: childEnv, detached: true, stdio: 'pipe' });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const run = { child, output: () => output, stdout: () => stdout, stderr: () => stderr, exited };
  launched.push(run);
  return run;
}

export async function waitFor(run: Launched, text: string, timeoutMs = START_TIMEOUT_MS): Promise<void> {
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

export async function stopAll(): Promise<void> {
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

/** Whether something may listen on the port again, i.e. the example app let go of it. */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface Started {
  pid: number;
  /** App name → its MCP URL, as the start-up message prints them. */
  urls: Map<string, string>;
  /** App name → its mode, as printed. */
  modes: Map<string, string>;
}

export function parseStartup(output: string): Started {
  const pid = Number(/pid (\d+)\)/.exec(output)?.[1]);
  const urls = new Map<string, string>();
  const modes = new Map<string, string>();
  for (const match of output.matchAll(/^ {2}(\S.*?) \(([a-z-]+)\)[^\n]*\n {4}(http:\/\/\S+)$/gm)) {
    modes.set(match[1]!, match[2]!);
    urls.set(match[1]!, match[3]!);
  }
  return { pid, urls, modes };
}

/** A server as the console shows it (README, "Console API"). */
export interface ConsoleServerJson {
  id: string;
  server_code: string;
  url: string;
}

// --- the clients -----------------------------------------------------------------------------------

export async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: 'example-app-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Runs the Inspector CLI once and returns what it printed on stdout (one JSON document). */
export async function inspector(home: string, url: string, ...args: string[]) {
  const run = launch(NODE_22, [INSPECTOR, '--cli', url, '--transport', 'http', ...args], { HOME: home });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}

/**
 * `mcp-remote` spawned as Claude Desktop spawns it (`npx mcp-remote <url> [args]`, here its pinned
 * copy run by this Node), JSON-RPC on stdio; `env` adds to its environment (what a config's `env`
 * block sets).
 */
export function mcpRemote(home: string, url: string, args: string[] = [], env: Record<string, string> = {}) {
  const run = launch(process.execPath, [MCP_REMOTE, url, ...args], { ...env, HOME: home });
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
  function request(id: number, method: string, params: Record<string, unknown>) {
    const reply = new Promise<Record<string, unknown>>((resolve) => replies.set(id, resolve));
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return reply;
  }
  return {
    run,
    notify(method: string) {
      run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    request,
    /**
     * The handshake Claude Desktop makes: `initialize` (id 1) at 2025-06-18, then
     * `notifications/initialized`; the protocol version the server answered.
     */
    async handshake(): Promise<string | undefined> {
      const initialized = await request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'claude-ai', version: '0.1.0' },
      });
      run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      return (initialized.result as { protocolVersion?: string } | undefined)?.protocolVersion;
    },
    /** Stops it: mcp-remote runs in its own process group, so npx and the mcp-remote it starts stop together. */
    async stop() {
      const { child, exited } = run;
      child.stdin?.end();
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

export interface ExampleDatabase {
  name: 'sqlite' | 'postgres';
  url: string;
  /** How many one-app servers the example wrote into the database (its toolsets are rows too, of kind `toolset`). */
  countServers(): Promise<number>;
  destroy(): Promise<void>;
}

export interface ExampleDatabaseKind {
  name: 'sqlite' | 'postgres';
  /** Why this run skips the example on this database (no `TEST_POSTGRES_URL`). */
  skipped?: string;
  create(): Promise<ExampleDatabase>;
}

export const databaseKinds: ExampleDatabaseKind[] = [
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
            const [row] = await knex('mcp_servers').where({ kind: 'app' }).count({ n: '*' });
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

const postgres = (connection: string): ExampleDatabaseKind => ({
  name: 'postgres',
  async create() {
    // A fresh schema, made the connection's search_path through the URL, as a host could do.
    const schema = `example_${randomBytes(6).toString('hex')}`;
    const admin = knexFactory({ client: 'pg', connection, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    const url = new URL(connection);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      name: 'postgres',
      url: url.href,
      async countServers() {
        const [row] = await admin
          .withSchema(schema)
          .table('mcp_servers')
          .where({ kind: 'app' })
          .count({ n: '*' });
        return Number(row?.n);
      },
      async destroy() {
        await admin.raw('drop schema ?? cascade', [schema]);
        await admin.destroy();
      },
    };
  },
});

databaseKinds.push(
  postgresUrl
    ? postgres(postgresUrl)
    : {
        name: 'postgres',
        skipped: postgresSkipped as string,
        create: () => Promise.reject(new Error(`the PostgreSQL suites are skipped: ${postgresSkipped}`)),
      },
);
