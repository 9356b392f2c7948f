#!/usr/bin/env node
/**
 * The heavy tools only some scripts and tests use, installed on first use rather than by `npm ci`:
 * the MCP Inspector CLI, the MCP conformance suite, `mcp-remote`, autocannon (the bench's load
 * generator), a Node 22 binary for the first two (they need Node 22.19 or later; the package itself
 * runs on Node 20), and Biome (the linter, a 96 MB binary: `npm run lint` runs it through here).
 * Each is pinned here and installed from the npm registry into its own folder under `.tools/`
 * (git-ignored), once; later uses find it there.
 *
 *   node scripts/tools.mjs [install] [name...]   installs the named tools (default: all), prints where
 *   node scripts/tools.mjs run <name> [args...]  runs a tool's command, installing it first if needed
 *
 * Scripts and tests import `toolEntry(name)`, `importTool(name)` and `node22()` from this file.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TOOLS_FOLDER = join(ROOT, '.tools');

/** The Inspector CLI's floor (its `engines`); the conformance suite needs Node 22 as well. */
const NODE_22_MIN = [22, 19];

/** Every tool: its npm package, pinned, and the script its command line runs. */
export const TOOLS = {
  inspector: {
    package: '@modelcontextprotocol/inspector',
    version: '2.12.0',
    entry: 'clients/launcher/build/index.js',
  },
  conformance: {
    package: '@modelcontextprotocol/conformance',
    version: '0.2.0-alpha.12',
    entry: 'dist/index.js',
  },
  'mcp-remote': { package: 'mcp-remote', version: '0.15.1', entry: 'dist/proxy.js' },
  autocannon: { package: 'autocannon', version: '9.0.0', entry: 'autocannon.js' },
  // Keep the version in step with the `$schema` of biome.json.
  biome: { package: '@biomejs/biome', version: '2.6.8', entry: 'bin/biome' },
  // The `node` binaries of npm's node-<platform>-<arch> packages; the newest 22.x this platform has.
  node22: { package: `node-${process.platform}-${process.arch}`, version: '>=22.19.0 <23', entry: null },
};

/** The installed package folder of a tool, installing it first if needed. */
export async function installTool(name) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool ${name}; the tools are ${Object.keys(TOOLS).join(', ')}`);
  const folder = join(TOOLS_FOLDER, name);
  const packageFolder = join(folder, 'node_modules', ...tool.package.split('/'));
  if (existsSync(join(folder, 'installed.json'))) return packageFolder;

  // Installed in a scratch folder and renamed into place: a test and a script that need the same
  // tool at the same moment each install it, and one of the two identical folders stays.
  const scratch = join(TOOLS_FOLDER, `.${name}-${randomBytes(4).toString('hex')}`);
  await mkdir(scratch, { recursive: true });
  try {
    await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: `tool-${name}`, private: true }));
    await npmInstall(scratch, `${tool.package}@${tool.version}`);
    const installed = JSON.parse(
      await readFile(join(scratch, 'node_modules', ...tool.package.split('/'), 'package.json'), 'utf8'),
    );
    await writeFile(join(scratch, 'installed.json'), JSON.stringify({ [tool.package]: installed.version }));
    try {
      await rename(scratch, folder);
    } catch (error) {
      if (!existsSync(join(folder, 'installed.json'))) throw error;
    }
    return packageFolder;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The script a tool's command runs (run it with `node22()` for the Inspector and the suite). */
export async function toolEntry(name) {
  const folder = await installTool(name);
  return join(folder, TOOLS[name].entry);
}

/** A tool used as a library (autocannon), loaded from its own folder. */
export async function importTool(name) {
  const folder = await installTool(name);
  const require = createRequire(join(folder, 'package.json'));
  return import(pathToFileURL(require.resolve(folder)).href).then((module) => module.default ?? module);
}

/** A Node binary of version 22.19 or later: this one when it is, else the tool's. */
export async function node22() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > NODE_22_MIN[0] || (major === NODE_22_MIN[0] && minor >= NODE_22_MIN[1]))
    return process.execPath;
  const folder = await installTool('node22');
  const binary = ['bin/node', 'bin/node.exe', 'node.exe'].map((path) => join(folder, path)).find(existsSync);
  if (!binary) throw new Error(`no node binary in ${folder}`);
  return binary;
}

/** `npm install` in `folder`, without the settings of an npm command that may have started us. */
function npmInstall(folder, spec) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_OPTIONS') env[key] = value;
  }
  const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', spec];
  return new Promise((done, fail) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
      cwd: folder,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      shell: process.platform === 'win32',
    });
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    child.once('error', fail);
    child.once('close', (code) =>
      code === 0 ? done() : fail(new Error(`npm install ${spec} failed (exit ${code}):\n${errors}`)),
    );
  });
}

/** Runs a tool's command with these arguments; resolves with its exit code. */
export async function runTool(name, args) {
  const node = name === 'inspector' || name === 'conformance' ? await node22() : process.execPath;
  const entry = await toolEntry(name);
  return new Promise((done, fail) => {
    const child = spawn(node, [entry, ...args], { stdio: 'inherit' });
    child.once('error', fail);
    child.once('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === 'run') {
    const [, name, ...rest] = args;
    process.exit(await runTool(name, rest));
  }
  if (args[0] === 'install') args.shift();
  const names = args.length > 0 ? args : Object.keys(TOOLS);
  for (const name of names) {
    if (name === 'node22') console.log(`node22: ${await node22()}`);
    else console.log(`${name}: ${await installTool(name)}`);
  }
}
