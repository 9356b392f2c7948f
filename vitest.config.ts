import { defineConfig } from 'vitest/config';
import { PostgresSkips } from './test/helpers/postgres-skips.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Without TEST_POSTGRES_URL the PostgreSQL suites are skipped; the last line counts them.
    reporters: ['default', new PostgresSkips()],
  },
});
