import { defineConfig } from 'vitest/config';
import { SkipReport } from './test/helpers/postgres-skips.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every skipped test carries its reason (without TEST_POSTGRES_URL, the PostgreSQL suites);
    // the last line counts them by reason.
    reporters: ['default', new SkipReport()],
  },
});
