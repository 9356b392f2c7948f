/**
 * `jose` is an optional peer dependency, loaded only by `jwtVerifier` when it first checks a
 * token: in a project without it, both builds load, `"code"` servers work, and an `"oauth"` server
 * checked by `jwtVerifier` fails closed while `onError` says what to install. The same project has
 * no `rate-limiter-flexible`: a router with `rateLimit` serves without a limit and says so. Both
 * say it with the one error for a missing peer (`ConfigurationError`, `missing_peer_dependency`).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const smoke = (load: string) => `${load}
async function main() {
  const { jwtVerifier, mcpServer, memoryServerStore } = pkg;
  const store = memoryServerStore();
  const app = { id: 'echo', name: 'Echo', mode: 'completion', inputForm: [] };
  const open = await store.createServer({ tenantId: 't', appId: 'echo', name: 'Echo', description: '', parameters: {} });
  const guarded = await store.createServer({ tenantId: 't', appId: 'other', name: 'Echo', description: '', parameters: {}, authMode: 'oauth' });
  const errors = [];
  const host = express();
  host.use(mcpServer({
    resolveServer: store.resolver(() => app),
    runApp: async () => ({ answer: 'hi' }),
    onError: (error) => errors.push(error.name + ' ' + error.code + ': ' + error.message),
    auth: { verifyToken: jwtVerifier({ issuer: 'http://127.0.0.1:9' }), authorizationServers: ['http://127.0.0.1:9'] },
  }));
  const listening = host.listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  const post = (code) => fetch('http://127.0.0.1:' + listening.address().port + '/mcp/server/' + code + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer some.jwt.token' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const statuses = [(await post(open.serverCode)).status, (await post(guarded.serverCode)).status];
  listening.close();
  // rate-limiter-flexible is not installed either: rateLimit is reported, requests go on.
  const limitErrors = [];
  const limited = express();
  limited.use(mcpServer({
    resolveServer: store.resolver(() => app),
    runApp: async () => ({ answer: 'hi' }),
    onError: (error) => limitErrors.push(error.name + ' ' + error.code + ': ' + error.message),
    rateLimit: { requests: 1, windowMs: 60000 },
  }));
  const limitedListening = limited.listen(0, '127.0.0.1');
  await new Promise((resolve) => limitedListening.once('listening', resolve));
  const ping = () => fetch('http://127.0.0.1:' + limitedListening.address().port + '/mcp/server/' + open.serverCode + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const limitedStatuses = [(await ping()).status, (await ping()).status];
  limitedListening.close();
  console.log(JSON.stringify({ statuses, errors, limitedStatuses, limitErrors }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

describe('jose is optional', () => {
  let work: string;
  const project = () => join(work, 'project');

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-no-jose-'));
    const installed = join(project(), 'node_modules', 'express-app-mcp');
    await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out-dir', join(installed, 'dist')], {
      cwd: ROOT,
    });
    await cp(join(ROOT, 'package.json'), join(installed, 'package.json'));
    // The runtime dependencies and the express peer, not jose. Linked packages resolve their own
    // dependencies from where they really are; the package itself is a copy, so it cannot see jose.
    await mkdir(join(project(), 'node_modules'), { recursive: true });
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    for (const name of ['express', ...Object.keys(manifest.dependencies)]) {
      await symlink(join(ROOT, 'node_modules', name), join(project(), 'node_modules', name), 'dir');
    }
    await writeFile(join(project(), 'package.json'), JSON.stringify({ name: 'no-jose', private: true }));
    await writeFile(
      join(project(), 'smoke.mjs'),
      smoke("import * as pkg from 'express-app-mcp';\nimport express from 'express';"),
    );
    await writeFile(
      join(project(), 'smoke.cjs'),
      smoke("const pkg = require('express-app-mcp');\nconst express = require('express');"),
    );
  }, 180_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it.each([
    ['an ES module', 'smoke.mjs'],
    ['CommonJS', 'smoke.cjs'],
  ])(
    'from %s without jose: "code" servers work, an "oauth" server fails closed and onError says what to install; the same for rateLimit',
    async (_kind, script) => {
      const { stdout } = await run(process.execPath, [script], { cwd: project() });
      expect(JSON.parse(stdout)).toEqual({
        statuses: [200, 500],
        errors: [
          'ConfigurationError missing_peer_dependency: jwtVerifier: needs the optional peer dependency jose, which is not installed: npm install jose',
        ],
        limitedStatuses: [200, 200],
        limitErrors: [
          'ConfigurationError missing_peer_dependency: mcpServer: the rateLimit option needs the optional peer dependency rate-limiter-flexible, which is not installed: npm install rate-limiter-flexible',
        ],
      });
    },
  );

  it('package.json declares jose as an optional peer', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.peerDependencies.jose).toBe('^6.0.0');
    expect(manifest.peerDependenciesMeta.jose).toEqual({ optional: true });
    expect(manifest.dependencies.jose).toBeUndefined();
  });
});
