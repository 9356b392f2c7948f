/**
 * The official MCP client SDKs are optional peer dependencies, loaded only by `connectMcpServer`:
 * `@modelcontextprotocol/sdk` for the 2025 era, `@modelcontextprotocol/client` for the 2026-07-28
 * era. The built package (ES module and CommonJS) imports them lazily. In a project without them
 * the MCP endpoint works while `connectMcpServer` says what to install; in a project with the SDK
 * alone, the 2025 era works as it always did (`auto` included) and only the 2026-07-28 era asks
 * for the client package.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SDK = '@modelcontextprotocol/sdk';
const CLIENT = '@modelcontextprotocol/client';
const missing = (name: string) =>
  `ConfigurationError missing_peer_dependency: connectMcpServer: needs the optional peer dependency ${name}, which is not installed: npm install ${name}`;

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
  const failed = (error) => error.name + ' ' + error.code + ': ' + error.message;
  const tryProtocol = (protocol) =>
    connectMcpServer(url, protocol ? { protocol } : {}).then(async (remote) => {
      const { text } = await remote.callTool('Echo', { text: 'there' });
      await remote.close();
      return remote.protocolVersion + ' ' + text;
    }, failed);
  const client = await tryProtocol();
  const modern = await tryProtocol('2026-07-28');
  listening.close();
  listening.closeAllConnections();
  console.log(JSON.stringify({ called, client, modern }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

describe('the client SDKs are optional', () => {
  let work: string;
  let dist: string;

  /** A project with the package, its runtime dependencies, express and `peers`, and the smoke scripts. */
  async function project(name: string, peers: string[]): Promise<string> {
    const root = join(work, name);
    const installed = join(root, 'node_modules', 'express-app-mcp');
    await cp(dist, join(installed, 'dist'), { recursive: true });
    await cp(join(ROOT, 'package.json'), join(installed, 'package.json'));
    // Linked packages resolve their own dependencies from where they really are; the package
    // itself is a copy, so it cannot: it finds only what the project has.
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    for (const linked of ['express', ...Object.keys(manifest.dependencies), ...peers]) {
      await mkdir(dirname(join(root, 'node_modules', linked)), { recursive: true });
      await symlink(join(ROOT, 'node_modules', linked), join(root, 'node_modules', linked), 'dir');
    }
    await writeFile(join(root, 'package.json'), JSON.stringify({ name, private: true }));
    await writeFile(
      join(root, 'smoke.mjs'),
      smoke("import * as pkg from 'express-app-mcp';\nimport express from 'express';"),
    );
    await writeFile(
      join(root, 'smoke.cjs'),
      smoke("const pkg = require('express-app-mcp');\nconst express = require('express');"),
    );
    return root;
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-no-sdk-'));
    dist = join(work, 'build', 'dist');
    await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out-dir', dist], { cwd: ROOT });
    await project('no-sdk', []);
    await project('sdk-only', [SDK]);
  }, 180_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the builds load each SDK only with a dynamic import(), in one module', async () => {
    const files = (await readdir(dist, { recursive: true })).filter((file) => /\.(c?js)$/.test(file));
    // Every way a module can name another: static import/export, require(), import().
    const reference =
      /(\bimport\s*\(|\brequire\s*\(|\bfrom\s*|\bimport\s+)(["'])(@modelcontextprotocol\/(?:sdk|client)[^"']*)\2/g;
    const mentions: Record<string, string[]> = {};
    for (const file of files) {
      const code = await readFile(join(dist, file), 'utf8');
      const found = [...code.matchAll(reference)].map(
        ([, how, , specifier]) => `${how!.replace(/\s+/g, '')}${specifier}`,
      );
      if (found.length > 0) mentions[file] = found;
    }
    const lazily = (path: string) => `import(${SDK}/${path}`;
    const sdk = [
      lazily('client/index.js'),
      lazily('client/streamableHttp.js'),
      lazily('client/sse.js'),
      lazily('types.js'),
    ];
    const client = [`import(${CLIENT}`];
    expect(mentions).toEqual({
      'cjs/index.cjs': [...client, ...sdk],
      'client/sdk.js': sdk,
      'client/modern-sdk.js': client,
    });
  });

  /** The two ways a host loads the package: the smoke script of each. */
  const MODULE_KINDS = [
    ['an ES module', 'smoke.mjs'],
    ['CommonJS', 'smoke.cjs'],
  ];
  /** What a smoke script prints, run in the project `folder`. */
  const printed = async (script: string, folder: string) =>
    JSON.parse((await run(process.execPath, [script], { cwd: join(work, folder) })).stdout);

  it.each(MODULE_KINDS)(
    'from %s without either SDK: the endpoint works, connectMcpServer says what to install',
    async (_kind, script) => {
      expect(await printed(script, 'no-sdk')).toEqual({
        called: 'echo: hi',
        client: missing(SDK),
        modern: missing(CLIENT),
      });
    },
  );

  it.each(MODULE_KINDS)(
    'from %s with the SDK alone: the 2025 era works by default, the 2026-07-28 era asks for the client package',
    async (_kind, script) => {
      expect(await printed(script, 'sdk-only')).toEqual({
        called: 'echo: hi',
        client: '2025-11-25 echo: there',
        modern: missing(CLIENT),
      });
    },
  );

  it('package.json declares both SDKs as optional peers', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));

    expect(manifest.peerDependencies[SDK]).toMatch(/^\^1\./);
    expect(manifest.peerDependencies[CLIENT]).toMatch(/^\^2\./);
    for (const name of [SDK, CLIENT]) {
      expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(manifest.dependencies[name]).toBeUndefined();
    }
  });
});
