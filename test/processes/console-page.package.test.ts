/**
 * The console page from the published package: packed with `npm pack`, installed into a new
 * project with its peer express, and served by the example of docs/console.md run as written (an
 * ES module), and from CommonJS (`require`). The page's files come from the package itself, with
 * no build step in the host.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, installedVersion, npm, packedPackage, ROOT } from '../helpers/packed.js';

const SETUP_TIMEOUT_MS = 300_000;
const ASSETS = join(ROOT, 'src', 'console', 'page', 'assets');

/** The first `js` code block of the guide: what a reader copies. */
async function guideExample(): Promise<string> {
  const guide = await readFile(join(ROOT, 'docs', 'console.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(guide)?.[1];
  if (!block) throw new Error('docs/console.md has no js example');
  return block;
}

const CJS_HOST = `'use strict';
const express = require('express');
const { mcpConsole, memoryServerStore } = require('express-app-mcp');
const app = express();
app.use('/admin', mcpConsole({
  store: memoryServerStore(),
  loadApp: () => null,
  listApps: () => [],
  authorize: () => null,
  page: { title: 'From CommonJS' },
}));
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('Console page: ready'));
`;

const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a host in the consumer project and waits until it says it listens. */
async function startHost(cwd: string, script: string, port: number): Promise<void> {
  const child = spawn(process.execPath, [script], { cwd, env: { ...cleanEnv(), PORT: String(port) } });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 30_000;
  while (!output.includes('Console page: ')) {
    if (child.exitCode !== null) throw new Error(`${script} exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${script} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function bytes(url: string) {
  const response = await fetch(url);
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

describe('the console page from the packed package', () => {
  let work: string;
  let consumer: string;
  let packed: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-page-'));
    const { tarball, files } = await packedPackage();
    packed = files;
    consumer = join(work, 'consumer');
    await mkdir(consumer);
    await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await npm(
      consumer,
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      await installedVersion('express'),
    );
    await writeFile(join(consumer, 'console.mjs'), await guideExample());
    await writeFile(join(consumer, 'console.cjs'), CJS_HOST);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill();
        await once(child, 'exit');
      }
    }
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("ships the page's files in the build", async () => {
    const names = (await readdir(ASSETS)).sort();
    expect(packed.filter((file) => file.startsWith('dist/console/page/assets/'))).toEqual(
      names.map((name) => `dist/console/page/assets/${name}`),
    );
  });

  it("the guide's example, run as written, serves the page and its files from the package", async () => {
    const port = await freePort();
    await startHost(consumer, 'console.mjs', port);
    const root = `http://localhost:${port}/console/api/`;
    const page = await bytes(root);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(page.body.toString()).toContain('<title>MCP servers</title>');
    for (const name of await readdir(ASSETS)) {
      if (name === 'index.html') continue;
      const file = await bytes(`${root}page/${name}`);
      expect(file.status, name).toBe(200);
      expect(Buffer.compare(file.body, await readFile(join(ASSETS, name))), name).toBe(0);
    }
    // And the API behind it, with the example's token.
    const apps = await fetch(`${root}apps`, { headers: { authorization: 'Bearer let-me-in' } });
    expect(apps.status).toBe(200);
    expect(await apps.json()).toEqual([
      {
        id: 'echo',
        name: 'Echo',
        mode: 'completion',
        description: 'Says back what it is given.',
        inputs: [
          { variable: 'text', label: 'Text', type: 'text-input', required: true, defaultDescription: 'Text' },
        ],
        server: null,
      },
    ]);
  });

  it('from CommonJS (require), the page and its files are served too', async () => {
    const port = await freePort();
    await startHost(consumer, 'console.cjs', port);
    const page = await bytes(`http://127.0.0.1:${port}/admin/`);
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('<title>From CommonJS</title>');
    const script = await bytes(`http://127.0.0.1:${port}/admin/page/main.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.compare(script.body, await readFile(join(ASSETS, 'main.js')))).toBe(0);
  });
});
