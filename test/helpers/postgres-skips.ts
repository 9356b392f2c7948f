/**
 * A reporter for runs without PostgreSQL: the PostgreSQL suites are then registered skipped, with
 * `POSTGRES_SKIPPED` in their titles (`postgres.ts`), and this reporter counts them in one line
 * after the summary, with the reason and what to set to run them.
 *
 * It imports nothing of the test runtime, so that `vitest.config.ts` can load it.
 */
import type { Reporter, TestModule } from 'vitest/node';

export const POSTGRES_SKIP_REASON = 'TEST_POSTGRES_URL is not set';
/** The mark a PostgreSQL suite's title carries when it is skipped. */
export const POSTGRES_SKIPPED = `(skipped: ${POSTGRES_SKIP_REASON})`;

export class PostgresSkips implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        if (test.fullName.includes(POSTGRES_SKIPPED)) skipped++;
      }
    }
    if (skipped === 0) return;
    process.stdout.write(
      `${skipped} PostgreSQL tests skipped: ${POSTGRES_SKIP_REASON}. ` +
        'Set TEST_POSTGRES_URL=postgres://user:password@host:5432/database to run them.\n',
    );
  }
}
