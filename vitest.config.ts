import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SkipReport } from './test/helpers/postgres-skips.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most test files spend their time waiting (on servers, child processes, a browser, nginx), so
    // more files run at once than there are cores; vitest's default (cores - 1) would run them one
    // by one on a 2-core machine (docs/developing.md, "How long the tests take").
    maxWorkers: Math.max(3, availableParallelism()),
    // Every skipped test carries its reason (without TEST_POSTGRES_URL, the PostgreSQL suites);
    // the last line counts them by reason.
    reporters: ['default', new SkipReport()],
  },
});
