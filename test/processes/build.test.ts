/**
 * `scripts/build.mjs` skips a build whose inputs have not changed since the last build into the
 * same folder (docs/developing.md, "How long the tests take"): `npm start` and the suites that need
 * `dist/` then wait for one build, not one each.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, buildPackage, ROOT } from '../helpers/built.js';

const run = promisify(execFile);

describe('scripts/build.mjs', () => {
  it('says dist/ is up to date, and builds nothing, when nothing it reads has changed', {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    await buildPackage();
    const started = Date.now();
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], {
      cwd: ROOT,
    });
    expect(stdout).toBe('');
    expect(stderr).toBe('dist/ is up to date (ES module, CommonJS and declarations)\n');
    // A build runs tsc and esbuild for many seconds; reading the inputs takes a fraction of one.
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const entry of ['index.js', 'cjs/index.cjs', 'cli/main.js'])
      expect(existsSync(join(ROOT, 'dist', entry))).toBe(true);
  });
});
