/**
 * The guides start with an example that runs: each self-contained one (a `node x.mjs` script on a
 * memory store) is taken from its guide as written, run against the packed package on a free port,
 * and its servers are listed with the official MCP SDK client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, packedPackage, ROOT, run } from '../helpers/packed.js';

/** Inside the repository, so that the scripts find its express and jose; the package is the packed one. */
const WORK = join(ROOT, 'node_modules', '.cache', `express-app-mcp-guides-${randomBytes(4).toString('hex')}`);

/** The first code block of a guide, its language and code. */
async function firstExample(guide: string): Promise<{ language: string; code: string }> {
  const text = await readFile(join(ROOT, 'docs', guide), 'utf8');
  const match = /```(\w*)\n([\s\S]*?)```/.exec(text);
  if (!match) throw new Error(`docs/${guide} has no code block`);
  return { language: match[1]!, code: match[2]! };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  port: number;
  /** The MCP URLs the script printed. */
  urls: string[];
}

const children: ChildProcess[] = [];

/** Runs a guide's example on a free port, and waits until it listens and has printed `urls` URLs. */
async function start(guide: string, urls: number, env: Record<string, string> = {}): Promise<Started> {
  const { language, code } = await firstExample(guide);
  expect(language).toBe('js');
  const port = await freePort();
  const script = join(WORK, guide.replace(/\.md$/, '.mjs'));
  await writeFile(script, code.replaceAll('3000', String(port)));
  const child = spawn(process.execPath, [script], { cwd: WORK, env: { ...cleanEnv(), ...env } });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const printed = () => output.match(/http:\/\/localhost:\d+\/mcp\/server\/\w+\/mcp/g) ?? [];
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`docs/${guide}'s example exited:\n${output}`);
    const listening = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (listening && printed().length >= urls) break;
    if (tries > 200) throw new Error(`docs/${guide}'s example did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port, urls: printed() };
}

async function toolsOf(url: string): Promise<string[]> {
  const client = new Client({ name: 'guides-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  const { tarball } = await packedPackage();
  await mkdir(join(WORK, 'node_modules'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(WORK, 'node_modules')]);
  await run('mv', [join(WORK, 'node_modules', 'package'), join(WORK, 'node_modules', 'express-app-mcp')]);
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(WORK, { recursive: true, force: true });
});

describe("each guide's first example runs as written", () => {
  it.each([
    ['apps.md', ['Summarize', 'Help_Desk']],
    ['files.md', ['Thumbnail']],
    ['long-runs.md', ['Slow_Report']],
    ['options.md', ['Echo']],
    ['observe.md', ['Echo']],
  ])('docs/%s: its servers list their tools', async (guide, tools) => {
    const { urls } = await start(guide, tools.length);
    expect(await Promise.all(urls.map(toolsOf))).toEqual(tools.map((tool) => [tool]));
  });

  it('docs/oauth.md: its "oauth" server asks for a token, naming its metadata', async () => {
    const { urls } = await start('oauth.md', 1, { ISSUER: 'https://idp.example.com/realms/acme' });
    const response = await fetch(urls[0]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer scope="mcp:tools", resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource\/mcp\/server\/\w+\/mcp"$/,
    );
  });

  it('docs/security.md: its console refuses a request without the token, and takes one with it', async () => {
    const { port } = await start('security.md', 0, { CONSOLE_TOKEN: 'guide-token' });
    const console = `http://127.0.0.1:${port}/console/api/apps/echo/server`;
    expect((await fetch(console)).status).toBe(401);
    const answer = await fetch(console, { headers: { authorization: 'Bearer guide-token' } });
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: null });
  });
});
