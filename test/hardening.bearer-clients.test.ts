/**
 * The README's recipes for the code in a header, run for real: the MCP Inspector CLI with
 * `--header "Authorization: Bearer <code>"`, and `mcp-remote` with `--header`, as Claude Desktop
 * spawns it, against `POST /mcp/server/mcp`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp } from '../src/index.js';
import { type AppsHost, startAppsHost } from './helpers/one-app-host.js';
import { INSPECTOR, NODE_22, ROOT } from './helpers/tools.js';

const ECHO: HostApp = {
  id: 'echo',
  name: 'Echo',
  mode: 'completion',
  inputForm: [{ type: 'text-input', variable: 'text', required: true }],
};

let apps: AppsHost;
let home: string;
let url: string;
let header: string;
beforeAll(async () => {
  apps = await startAppsHost([ECHO]);
  home = await mkdtemp(join(tmpdir(), 'bearer-clients-'));
  url = `http://localhost:${apps.host.port}/mcp/server/mcp`;
  header = `Authorization: Bearer ${apps.codes.echo}`;
});
afterAll(async () => {
  await apps.close();
  await rm(home, { recursive: true, force: true });
});

const env = () => {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete childEnv.NODE_OPTIONS;
  return childEnv;
};

const echoed = (text: string) => ({
  content: [{ type: 'text', text: JSON.stringify({ query: '', inputs: { text } }) }],
  structuredContent: { answer: JSON.stringify({ query: '', inputs: { text } }) },
  isError: false,
});

describe('clients that send the code as a bearer header', () => {
  it('the MCP Inspector CLI with --header', { timeout: 120_000 }, async () => {
    const { stdout } = await promisify(execFile)(
      NODE_22,
      [
        INSPECTOR,
        '--cli',
        url,
        '--transport',
        'http',
        '--header',
        header,
        '--method',
        'tools/call',
        '--tool-name',
        'Echo',
        '--tool-arg',
        'text=hello',
      ],
      { cwd: ROOT, env: env() },
    );
    expect(JSON.parse(stdout)).toEqual(echoed('hello'));
  });

  it('mcp-remote with --header, spawned as Claude Desktop spawns it', { timeout: 120_000 }, async () => {
    // Its own process group, so that npx and the mcp-remote it starts stop together.
    // As the README's Claude Desktop config: the header without a space, the code in the environment.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands `${MCP_AUTH}` itself.
    const child = spawn('npx', ['mcp-remote', url, '--header', 'Authorization:${MCP_AUTH}'], {
      cwd: ROOT,
      env: { ...env(), MCP_AUTH: `Bearer ${apps.codes.echo}` },
      stdio: 'pipe',
      detached: true,
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const replies = new Map<number, (message: unknown) => void>();
      createInterface({ input: child.stdout }).on('line', (line) => {
        try {
          const message = JSON.parse(line) as { id?: unknown };
          if (typeof message.id === 'number') replies.get(message.id)?.(message);
        } catch {
          // not a JSON-RPC line
        }
      });
      const ask = (id: number, method: string, params: Record<string, unknown>) => {
        const reply = new Promise((resolve) => replies.set(id, resolve));
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        return reply;
      };
      const initialized = (await ask(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'claude-ai', version: '0.1.0' },
      })) as { result?: { protocolVersion?: string } };
      expect(initialized.result?.protocolVersion).toBe('2025-06-18');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      expect(await ask(2, 'tools/call', { name: 'Echo', arguments: { text: 'hi' } })).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: echoed('hi'),
      });
    } finally {
      child.stdin.end();
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  });
});
