/**
 * The test command on a machine without PostgreSQL (README, the tests): the PostgreSQL suites are
 * skipped, with the reason printed and their number counted, and the run passes, even for a file
 * whose suites are all PostgreSQL ones; with `REQUIRE_POSTGRES=1`, as CI sets it, the same run
 * fails instead. Each case runs the test runner on `farm.instances.test.ts`, whose suites are all
 * PostgreSQL ones, in an environment without `TEST_POSTGRES_URL`. CI always has PostgreSQL, so a
 * suite that iterates the database kinds with a plain `describe.each` (whose `beforeAll` then fails
 * on a machine without it) is caught here, by reading the suites.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/packed.js';

const POSTGRES_ONLY = 'test/processes/farm.instances.test.ts';

interface Run {
  code: number | null;
  output: string;
}

/** The test runner on `POSTGRES_ONLY`, without `TEST_POSTGRES_URL` and with `extra` in its environment. */
function vitest(extra: Record<string, string>): Promise<Run> {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' };
  for (const [key, value] of Object.entries(process.env)) {
    // This run's own runner variables would make the child think it is a worker of this run.
    if (!/^(VITEST|TEST_POSTGRES_URL$|REQUIRE_POSTGRES$|FORCE_COLOR$|NODE_OPTIONS$)/.test(key))
      env[key] = value;
  }
  Object.assign(env, extra);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', POSTGRES_ONLY],
      { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('the PostgreSQL suites without TEST_POSTGRES_URL', () => {
  // The two runs at once: each is a test runner of its own, mostly waiting for its worker.
  let runs: Promise<[Run, Run]>;
  beforeAll(() => {
    runs = Promise.all([vitest({}), vitest({ REQUIRE_POSTGRES: '1' })]);
  });

  it('are skipped, counted and explained, and the run passes', async () => {
    const [run] = await runs;
    expect(run.output).not.toContain('No test suite found');
    // The last line: every skip, by reason, with what to set to run them.
    const lines = run.output.trimEnd().split('\n');
    const counted = lines
      .at(-1)
      ?.match(
        /^(\d+) tests skipped: (\d+) because TEST_POSTGRES_URL is not set \(set TEST_POSTGRES_URL=postgres:\/\/user:password@host:5432\/database to run them\)\.$/,
      );
    expect(counted, run.output).not.toBeNull();
    const skipped = Number(counted?.[1]);
    expect(skipped).toBeGreaterThan(0);
    expect(Number(counted?.[2])).toBe(skipped);
    // Every test of the file is one of them: none ran, none failed.
    expect(run.output).toMatch(new RegExp(`Tests\\s+${skipped} skipped \\(${skipped}\\)`));
    expect(run.code, run.output).toBe(0);
  }, 150_000);

  it('fail the run when REQUIRE_POSTGRES=1, with the reason', async () => {
    const [, run] = await runs;
    expect(run.output).toContain(
      'REQUIRE_POSTGRES=1 but TEST_POSTGRES_URL is not set: the PostgreSQL suites cannot run',
    );
    expect(run.output).not.toMatch(/tests skipped/);
    expect(run.output).toMatch(/Test Files\s+1 failed \(1\)/);
    expect(run.code).toBe(1);
  }, 150_000);
});

describe('the suites on database kinds', () => {
  it('register them through describeEach, which skips a kind this run does not have', () => {
    const suites = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(ROOT, 'test', name));
    expect(suites.length).toBeGreaterThan(100);
    const plain = suites.filter((file) =>
      /describe\.each\((databases|postgres)\b/.test(readFileSync(file, 'utf8')),
    );
    expect(plain.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('give every other skip its reason, in the title the last line reads it from', () => {
    const suites = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(ROOT, 'test', name));
    const unexplained = suites.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return (
        /\b(?:it|test|describe)\.(?:skip|skipIf|runIf|todo)\b/.test(text) && !text.includes('skippedTitle(')
      );
    });
    expect(unexplained.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
