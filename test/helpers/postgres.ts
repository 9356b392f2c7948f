/**
 * Whether the PostgreSQL suites run here. They need `TEST_POSTGRES_URL`; without it they are still
 * registered, skipped, with the reason in their titles (`describeEach`), so a file whose suites are
 * all PostgreSQL ones still reports them, and the run ends with a line counting them
 * (`postgres-skips.ts`). With `REQUIRE_POSTGRES=1` (CI) a missing URL fails every file that
 * imports this module instead.
 */
import { describe } from 'vitest';
import { POSTGRES_SKIP_REASON, skippedTitle } from './postgres-skips.js';

export const postgresUrl: string | undefined = process.env.TEST_POSTGRES_URL || undefined;

if (!postgresUrl && process.env.REQUIRE_POSTGRES === '1') {
  throw new Error('REQUIRE_POSTGRES=1 but TEST_POSTGRES_URL is not set: the PostgreSQL suites cannot run');
}

/** Why the PostgreSQL suites are skipped in this run, or `undefined` when they run. */
export const postgresSkipped: string | undefined = postgresUrl ? undefined : POSTGRES_SKIP_REASON;

/** Something a suite runs on (a database, a store), which this run may have to skip. */
export interface Skippable {
  name: string;
  /** Why suites on it are skipped here; absent when they run. */
  skipped?: string;
}

/**
 * `describe.each(kinds)` where a kind may be unavailable: its suite is registered all the same,
 * skipped, the reason appended to its title; the titles are otherwise `describe.each`'s own.
 */
export function describeEach<K extends Skippable>(kinds: readonly K[]) {
  return (title: string, body: (kind: K) => void): void => {
    for (const kind of kinds) {
      if (kind.skipped) describe.skip.each([kind])(skippedTitle(title, kind.skipped), body);
      else describe.each([kind])(title, body);
    }
  };
}
