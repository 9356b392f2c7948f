#!/usr/bin/env node
/**
 * Updates the console page's screenshots in docs/images/ (docs/console.md): runs the browser test
 * that takes them with `UPDATE_SCREENSHOTS=1`. A plain `npm test` writes them to a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/processes/console-page.browser.test.ts'],
  { cwd: root, stdio: 'inherit', env: { ...process.env, UPDATE_SCREENSHOTS: '1' } },
);
process.exit(run.status ?? 1);
