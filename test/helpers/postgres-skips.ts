/**
 * A reporter that accounts for every skipped test in one line after the summary: each skip
 * carries its reason in its title (`skippedTitle`: a suite this machine cannot run, such as the
 * PostgreSQL suites without `TEST_POSTGRES_URL`, `postgres.ts`, or the browser and nginx suites
 * without Chromium or nginx), and the line counts them by reason, with what to set or install to
 * run them. A skip without a reason is counted as such, so that it shows.
 *
 * It imports nothing of the test runtime, so that `vitest.config.ts` can load it.
 */
import type { Reporter, TestModule } from 'vitest/node';

export const POSTGRES_SKIP_REASON = 'TEST_POSTGRES_URL is not set';
/** The mark a PostgreSQL suite's title carries when it is skipped. */
export const POSTGRES_SKIPPED = `(skipped: ${POSTGRES_SKIP_REASON})`;

/** What the last line adds to a reason: how to run the tests it skipped. */
const REMEDIES: Record<string, string> = {
  [POSTGRES_SKIP_REASON]: 'set TEST_POSTGRES_URL=postgres://user:password@host:5432/database to run them',
};

/** A suite's title with the reason it is skipped on this machine, which the reporter reads back. */
export function skippedTitle(title: string, reason: string): string {
  return `${title} (skipped: ${reason})`;
}

const MARK = /\(skipped: ([^()]*(?:\([^()]*\)[^()]*)*)\)/;

/** The reason a skipped test's title carries (the innermost suite's), or its `skip(note)`. */
export function skipReason(fullName: string, note?: string): string {
  const marks = [...fullName.matchAll(new RegExp(MARK, 'g'))];
  return marks.at(-1)?.[1] ?? note ?? 'no reason given';
}

/** The line: `N tests skipped: n1 because <reason> (<remedy>); n2 because …`, or `null` for none. */
export function skipLine(reasons: readonly string[]): string | null {
  if (reasons.length === 0) return null;
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const parts = [...counts]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([reason, count]) => {
      const remedy = REMEDIES[reason];
      return `${count} because ${reason}${remedy ? ` (${remedy})` : ''}`;
    });
  const total = reasons.length;
  return `${total} ${total === 1 ? 'test' : 'tests'} skipped: ${parts.join('; ')}.`;
}

export class SkipReport implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const reasons: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result() as { note?: string };
        reasons.push(skipReason(test.fullName, result.note));
      }
    }
    const line = skipLine(reasons);
    if (line) process.stdout.write(`${line}\n`);
  }
}
