/**
 * The package as a user gets it: built and packed with `npm pack`, installed from the
 * tarball into an empty project together with its peer `express`, then imported from an ES module
 * and with `require()` from CommonJS, on the Node that runs the tests (Node 20, the oldest the
 * package supports) and on Node 22, and type-checked from both kinds of module.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22 } from '../../scripts/tools.mjs';
import { cleanEnv, installedVersion, npm, packedPackage, ROOT, run } from '../helpers/packed.js';

/** Node 22 too, installed on first use by scripts/tools.mjs when the tests run on Node 20. */
const NODE_22 = await node22();
const SETUP_TIMEOUT_MS = 300_000;

const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

/** One smoke run: mounts `mcpServer` in a real Express app and calls a tool over HTTP. */
const smokeBody = `
async function smoke(pkg, express) {
  const { mcpServer, memoryServerStore, AppRunError } = pkg;
  const store = memoryServerStore();
  const app = {
    id: 'echo', name: 'Echo', mode: 'completion', description: 'Echoes its text',
    inputForm: [{ type: 'text-input', variable: 'text', required: true }],
  };
  const server = await store.createServer({ tenantId: 't', appId: 'echo', name: 'Echo', description: '', parameters: {} });
  const host = express();
  host.use(mcpServer({
    resolveServer: store.resolver(() => app),
    runApp: async (run) => {
      if (run.inputs.text === 'fail') throw new AppRunError('asked to fail');
      return { answer: 'echo: ' + run.inputs.text };
    },
  }));
  const listening = host.listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  const url = 'http://127.0.0.1:' + listening.address().port + '/mcp/server/' + server.serverCode + '/mcp';
  const call = (id, text) => fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Echo', arguments: { text } } }),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const ok = await call(1, 'hi');
  const failed = await call(2, 'fail');
  await new Promise((resolve) => listening.close(resolve));
  console.log(JSON.stringify({ node: process.versions.node, exports: Object.keys(pkg).sort(), ok, failed }));
}
`;

const ESM_SMOKE = `import * as pkg from 'express-app-mcp';
import express from 'express';
${smokeBody}
await smoke(pkg, express);
`;

const CJS_SMOKE = `'use strict';
const pkg = require('express-app-mcp');
const express = require('express');
${smokeBody}
smoke(pkg, express).catch((error) => { console.error(error); process.exit(1); });
`;

/** Type-level use from an ES module; each `@ts-expect-error` proves the types are real, not `any`. */
const ESM_TYPES = `import express from 'express';
import { type HostApp, mcpServer, type RunApp, memoryServerStore, AppRunError } from 'express-app-mcp';

const app: HostApp = { id: 'a', name: 'A', mode: 'chat', inputForm: [] };
const runApp: RunApp = async (run) => {
  if (!run.query) throw new AppRunError('a question is needed');
  return { answer: run.query };
};
express().use(mcpServer({ resolveServer: memoryServerStore().resolver(() => app), runApp }));

// @ts-expect-error: not a mode
const wrong: HostApp = { id: 'b', name: 'B', mode: 'chatbot', inputForm: [] };
// @ts-expect-error: runApp is required
mcpServer({ resolveServer: async () => null });
export { wrong };
`;

const CJS_TYPES = `import express = require('express');
import mcp = require('express-app-mcp');

const app: mcp.HostApp = { id: 'a', name: 'A', mode: 'workflow', inputForm: [] };
const runApp: mcp.RunApp = async () => ({ outputs: { ok: true } });
express().use(mcp.mcpServer({ resolveServer: mcp.memoryServerStore().resolver(() => app), runApp }));

// @ts-expect-error: not a mode
const wrong: mcp.HostApp = { id: 'b', name: 'B', mode: 'chatbot', inputForm: [] };
// @ts-expect-error: runApp is required
mcp.mcpServer({ resolveServer: async () => null });
export = wrong;
`;

describe('the packed package, installed into a new project', () => {
  let work: string;
  let consumer: string;
  let tarball: string;
  let packed: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-consumer-'));
    ({ tarball, files: packed } = await packedPackage());

    consumer = join(work, 'consumer');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2),
    );
    const peers = await Promise.all(
      ['express', 'knex', '@types/express', '@types/node', 'typescript'].map((name) =>
        installedVersion(name),
      ),
    );
    await npm(consumer, 'install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...peers);
    await writeFile(join(consumer, 'smoke.mjs'), ESM_SMOKE);
    await writeFile(join(consumer, 'smoke.cjs'), CJS_SMOKE);
    await writeFile(join(consumer, 'esm.mts'), ESM_TYPES);
    await writeFile(join(consumer, 'cjs.cts'), CJS_TYPES);
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['esm.mts', 'cjs.cts'],
      }),
    );
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the tarball holds the builds, their declarations, the sources their maps name, and the documents', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'src/index.ts']),
    );
    for (const entry of ['dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.cjs', 'dist/cjs/index.d.cts']) {
      expect(packed).toContain(entry);
    }
    const unexpected = packed.filter(
      (path) =>
        !path.startsWith('dist/') &&
        !path.startsWith('src/') &&
        !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path),
    );
    expect(unexpected).toEqual([]);
  });

  it('installs with its peer express, and without running anything of its own', async () => {
    const installed = JSON.parse(
      await readFile(join(consumer, 'node_modules', 'express-app-mcp', 'package.json'), 'utf8'),
    );
    expect({ name: installed.name, version: installed.version }).toEqual({
      name: manifest.name,
      version: manifest.version,
    });
    expect(
      installed.scripts?.preinstall ?? installed.scripts?.install ?? installed.scripts?.postinstall,
    ).toBeUndefined();
    expect(existsSync(join(consumer, 'node_modules', 'express', 'package.json'))).toBe(true);
  });

  const runtimes = [{ label: `Node ${process.versions.node}`, node: process.execPath }];
  if (NODE_22 !== process.execPath) runtimes.push({ label: 'Node 22', node: NODE_22 });

  describe.each(runtimes)('on $label', ({ node }) => {
    const expectedExports = async () => Object.keys(await import('../../src/index.js')).sort();

    it.each([
      ['an ES module (import)', 'smoke.mjs'],
      ['CommonJS (require)', 'smoke.cjs'],
    ])('from %s: every export is there and a tool call works', async (_kind, script) => {
      const { stdout } = await run(node, [script], { cwd: consumer, env: cleanEnv() });
      const report = JSON.parse(stdout);
      expect(report.exports).toEqual(await expectedExports());
      expect(report.ok).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 1,
          result: {
            content: [{ type: 'text', text: 'echo: hi' }],
            structuredContent: { answer: 'echo: hi' },
            isError: false,
          },
        },
      });
      // AppRunError from the same build as mcpServer: its message reaches the client.
      expect(report.failed).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 2,
          result: { content: [{ type: 'text', text: 'asked to fail' }], isError: true },
        },
      });
    });
  });

  it('type-checks from an ES module and from CommonJS (import = require) with TypeScript', {
    timeout: 180_000,
  }, async () => {
    const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  });
});
