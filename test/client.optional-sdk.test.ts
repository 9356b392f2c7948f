/**
 * The official MCP client SDK is an optional peer dependency, loaded only by `connectMcpServer`:
 * the built package (ES module and CommonJS) imports it lazily, and in a project without it the MCP
 * endpoint works while `connectMcpServer` says what to install.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SDK = '@modelcontextprotocol/sdk';

const smoke = (load: string) => `${load}
async function main() {
  const { mcpServer, memoryServerStore, connectMcpServer } = pkg;
  const store = memoryServerStore();
  const app = { id: 'echo', name: 'Echo', mode: 'completion', inputForm: [{ type: 'text-input', variable: 'text', required: true }] };
  const server = await store.createServer({ tenantId: 't', appId: 'echo', name: 'Echo', description: '', parameters: {} });
  const host = express();
  host.use(mcpServer({ resolveServer: store.resolver(() => app), runApp: async (run) => ({ answer: 'echo: ' + run.inputs.text }) }));
  const listening = host.listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  const url = 'http://127.0.0.1:' + listening.address().port + '/mcp/server/' + server.serverCode + '/mcp';
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Echo', arguments: { text: 'hi' } } }),
  });
  const called = (await response.json()).result.content[0].text;
  const client = await connectMcpServer(url).then(() => 'connected', (error) => error.name + ' ' + error.code + ': ' + error.message);
  listening.close();
  console.log(JSON.stringify({ called, client }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

describe('the client SDK is optional', () => {
  let work: string;
  let dist: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-no-sdk-'));
    dist = join(work, 'project', 'node_modules', 'express-app-mcp', 'dist');
    await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out-dir', dist], { cwd: ROOT });
    const project = join(work, 'project');
    await cp(join(ROOT, 'package.json'), join(project, 'node_modules', 'express-app-mcp', 'package.json'));
    // The runtime dependencies and the express peer, but not the SDK. Linked packages resolve their
    // own dependencies from where they really are; the package itself is a copy, so it cannot.
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    for (const name of ['express', ...Object.keys(manifest.dependencies)]) {
      await symlink(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'no-sdk', private: true }));
    await writeFile(
      join(project, 'smoke.mjs'),
      smoke("import * as pkg from 'express-app-mcp';\nimport express from 'express';"),
    );
    await writeFile(
      join(project, 'smoke.cjs'),
      smoke("const pkg = require('express-app-mcp');\nconst express = require('express');"),
    );
  }, 180_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the builds load the SDK only with a dynamic import(), in one module', async () => {
    const files = (await readdir(dist, { recursive: true })).filter((file) => /\.(c?js)$/.test(file));
    // Every way a module can name another: static import/export, require(), import().
    const reference =
      /(\bimport\s*\(|\brequire\s*\(|\bfrom\s*|\bimport\s+)(["'])(@modelcontextprotocol\/sdk[^"']*)\2/g;
    const mentions: Record<string, string[]> = {};
    for (const file of files) {
      const code = await readFile(join(dist, file), 'utf8');
      const found = [...code.matchAll(reference)].map(
        ([, how, , specifier]) => `${how!.replace(/\s+/g, '')}${specifier}`,
      );
      if (found.length > 0) mentions[file] = found;
    }
    const lazily = (path: string) => `import(${SDK}/${path}`;
    const expected = [
      lazily('client/index.js'),
      lazily('client/streamableHttp.js'),
      lazily('client/sse.js'),
      lazily('types.js'),
    ];
    expect(mentions).toEqual({ 'cjs/index.cjs': expected, 'client/sdk.js': expected });
  });

  it.each([
    ['an ES module', 'smoke.mjs'],
    ['CommonJS', 'smoke.cjs'],
  ])(
    'from %s without the SDK: the endpoint works, connectMcpServer says what to install',
    async (_kind, script) => {
      const { stdout } = await run(process.execPath, [script], { cwd: join(work, 'project') });

      expect(JSON.parse(stdout)).toEqual({
        called: 'echo: hi',
        client: `ConfigurationError missing_peer_dependency: connectMcpServer needs the optional peer dependency ${SDK}: npm install ${SDK}`,
      });
    },
  );

  it('package.json declares the SDK as an optional peer', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));

    expect(manifest.peerDependencies[SDK]).toMatch(/^\^1\./);
    expect(manifest.peerDependenciesMeta[SDK]).toEqual({ optional: true });
    expect(manifest.dependencies[SDK]).toBeUndefined();
  });
});
