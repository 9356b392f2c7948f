/**
 * The README's quick start, as a new user meets it: each flavour under `examples/` (ES modules
 * with Express 5, CommonJS with Express 4, strict TypeScript) is copied into a new folder, installed
 * with the package from its packed tarball, started as written, published through its console,
 * and driven with the official MCP clients (v1 on the 2025 handshake, v2 on 2026-07-28). The README's
 * code blocks must be these files, byte for byte: each server, and the `package.json` and
 * `tsconfig.json` it needs to run as written.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/versions.js';
import { freePort } from '../helpers/common.js';
import { cleanEnv, installedVersion, npm, packedPackage, ROOT, run } from '../helpers/packed.js';

const EXAMPLES = join(ROOT, 'examples');
const CONSOLE_TOKEN = 'quickstart-test-token';
const SETUP_TIMEOUT_MS = 300_000;

interface Flavour {
  folder: string;
  /** The copy of Express this repository tests that major with, installed under its own name. */
  expressAs: string;
  /** The file `node` starts, after `tsc` for TypeScript. */
  entry: string;
  typescript?: boolean;
}

const FLAVOURS: Flavour[] = [
  { folder: 'quickstart-esm', expressAs: 'express', entry: 'server.js' },
  { folder: 'quickstart-cjs', expressAs: 'express4', entry: 'server.js' },
  { folder: 'quickstart-ts', expressAs: 'express', entry: 'dist/server.js', typescript: true },
];

/** The example's own manifest, with the package from the tarball and the peers this repository tests with. */
async function projectManifest(flavour: Flavour, tarball: string) {
  const manifest = JSON.parse(await readFile(join(EXAMPLES, flavour.folder, 'package.json'), 'utf8'));
  const pin = async (deps: Record<string, string> | undefined) => {
    for (const name of Object.keys(deps ?? {})) {
      if (name === 'express-app-mcp') deps![name] = `file:${tarball}`;
      else {
        const spec = await installedVersion(name, name === 'express' ? flavour.expressAs : name);
        deps![name] = spec.slice(spec.lastIndexOf('@') + 1);
      }
    }
  };
  await pin(manifest.dependencies);
  await pin(manifest.devDependencies);
  return manifest;
}

/**
 * Installs a flavour into a new folder. Install scripts are skipped: the only one, better-sqlite3's,
 * compiles SQLite for minutes; the addon this repository built for the same version and Node is
 * copied in instead.
 */
async function install(flavour: Flavour, tarball: string, work: string): Promise<string> {
  const project = join(work, flavour.folder);
  await mkdir(project, { recursive: true });
  for (const file of await readdir(join(EXAMPLES, flavour.folder))) {
    if (file !== 'package.json') await copyFile(join(EXAMPLES, flavour.folder, file), join(project, file));
  }
  const manifest = await projectManifest(flavour, tarball);
  await writeFile(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  await npm(project, 'install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund');
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  await mkdir(join(project, addon, '..'), { recursive: true });
  await copyFile(join(ROOT, addon), join(project, addon));
  return project;
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Starts the quick start as its first comment says, and waits for what it prints once it listens. */
async function start(project: string, entry: string, port: number): Promise<Started> {
  const child = spawn(process.execPath, [entry], {
    cwd: project,
    env: { ...cleanEnv(), PORT: String(port), CONSOLE_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after 60 s:\n${text}`)), 60_000);
    child.stdout!.on('data', () => {
      if (/Listening on[\s\S]*curl .*\n/.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the quick start exited with ${code}:\n${text}`));
    });
  });
  return { child, output: () => text };
}

async function stop({ child }: Started): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface ConsoleServerJson {
  server_code: string;
  url: string;
  [key: string]: unknown;
}

/** The `tools/list` entry of a quick start app: its name and title, its inputs, its outputs. */
const quickStartTool = (
  title: string,
  description: string,
  inputs: { properties: Record<string, unknown>; required: string[] },
  outputSchema: Record<string, unknown>,
) => ({
  name: title.replace(/ /g, '_'),
  execution: { taskSupport: 'optional' },
  title,
  description,
  inputSchema: { type: 'object', ...inputs },
  outputSchema,
});

const SUMMARIZE_TOOL = quickStartTool(
  'Summarize',
  'Shortens a text to its first sentence.',
  { properties: { text: { type: 'string', maxLength: 10000, description: 'Text' } }, required: ['text'] },
  { type: 'object' },
);

const HELP_DESK_TOOL = quickStartTool(
  'Help Desk',
  'Answers questions about our product.',
  {
    properties: {
      query: { type: 'string', description: 'User Input/Question content' },
      tone: { type: 'string', enum: ['plain', 'friendly'], description: 'Tone', default: 'plain' },
    },
    required: ['query'],
  },
  { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
);

const answer = (text: string) => ({
  content: [{ type: 'text', text }],
  structuredContent: { answer: text },
  isError: false,
});

describe.each(FLAVOURS)('the quick start $folder, installed from the packed tarball', (flavour) => {
  let work: string;
  let project: string;
  let started: Started;
  let base: string;
  const servers: Record<string, ConsoleServerJson> = {};
  const clients: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    const { tarball } = await packedPackage();
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-quickstart-'));
    project = await install(flavour, tarball, work);
    if (flavour.typescript) {
      const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
      const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
      // Strict mode (tsconfig.json): the README's TypeScript compiles without a single complaint.
      expect(compiled).toEqual({ code: 0, stdout: '' });
    }
    const port = await freePort();
    base = `http://localhost:${port}`;
    started = await start(project, flavour.entry, port);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    if (started) await stop(started);
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'quickstart-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  it('prints how to publish an app, with its console token', () => {
    expect(started.output()).toContain(
      `curl -X POST ${base}/console/api/apps/summarize/server -H "Authorization: Bearer ${CONSOLE_TOKEN}"`,
    );
  });

  it('refuses the console without the token (401)', async () => {
    const response = await fetch(`${base}/console/api/apps/summarize/server`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 'unauthorized', message: 'Authentication required' },
    });
  });

  it('publishes both apps through the console; each reply carries the full MCP URL', async () => {
    for (const appId of ['summarize', 'helpdesk']) {
      const response = await fetch(`${base}/console/api/apps/${appId}/server`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CONSOLE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ parameters: {} }),
      });
      expect(response.status).toBe(201);
      const server = (await response.json()) as ConsoleServerJson;
      expect(server.url).toBe(`${base}/mcp/server/${server.server_code}/mcp`);
      servers[appId] = server;
    }
  });

  it('the official client lists and calls the workflow app', async () => {
    const client = await connect(servers.summarize!.url);
    expect(await client.listTools()).toEqual({ tools: [SUMMARIZE_TOOL] });
    const outputs = { summary: 'MCP is a protocol.' };
    expect(
      await client.callTool({ name: 'Summarize', arguments: { text: 'MCP is a protocol. It has tools.' } }),
    ).toEqual({
      content: [{ type: 'text', text: JSON.stringify(outputs) }],
      structuredContent: outputs,
      isError: false,
    });
    // Its own form: `text` is required, and this app has no `query`.
    expect(await client.callTool({ name: 'Summarize', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool Summarize: text is required' }],
      isError: true,
    });
  });

  it('the official client lists and calls the chat app, with its own form and an AppRunError', async () => {
    const client = await connect(servers.helpdesk!.url);
    expect(await client.listTools()).toEqual({ tools: [HELP_DESK_TOOL] });
    expect(
      await client.callTool({ name: 'Help_Desk', arguments: { query: 'Opening hours?', tone: 'friendly' } }),
    ).toEqual(answer('Happy to help! You asked: Opening hours?'));
    expect(await client.callTool({ name: 'Help_Desk', arguments: { query: 'My password?' } })).toEqual({
      content: [{ type: 'text', text: 'I cannot help with passwords.' }],
      isError: true,
    });
  });

  it('the official v2 client calls it on protocol 2026-07-28', async () => {
    const client = new ModernClient(
      { name: 'quickstart-test', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    clients.push(client);
    await client.connect(new ModernTransport(new URL(servers.helpdesk!.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await client.callTool({ name: 'Help_Desk', arguments: { query: 'Price?' } })).toEqual({
      ...answer('You asked: Price?'),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'express-app-mcp', version: PACKAGE_VERSION } },
    });
  });
});

describe("the README's quick start", () => {
  it('shows each example file exactly, in a code block right after a comment naming it', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/<!-- (examples\/[^\s]+) -->\n```\w*\n([\s\S]*?)```\n/g)];
    const shown = Object.fromEntries(blocks.map(([, path, code]) => [path, code]));
    const files = [
      'quickstart-esm/package.json',
      'quickstart-esm/server.js',
      'quickstart-esm/your-apps.js',
      'quickstart-cjs/package.json',
      'quickstart-cjs/server.js',
      'quickstart-ts/package.json',
      'quickstart-ts/tsconfig.json',
      'quickstart-ts/server.ts',
    ];
    expect(Object.keys(shown).sort()).toEqual(files.map((file) => `examples/${file}`).sort());
    for (const file of files) {
      expect(shown[`examples/${file}`]).toBe(await readFile(join(EXAMPLES, file), 'utf8'));
    }
  });
});
