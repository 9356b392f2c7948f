/**
 * The last line of a test run (`test/helpers/postgres-skips.ts`): every skipped test counted by
 * the reason its title carries, the PostgreSQL reason with what to set to run them.
 */
import { describe, expect, it } from 'vitest';
import { POSTGRES_SKIPPED, skipLine, skippedTitle, skipReason } from '../helpers/postgres-skips.js';

describe('the skip report', () => {
  it('reads the reason of the innermost suite, then a skip note, else says there is none', () => {
    const nginx = skippedTitle('behind nginx', 'nginx is not installed (apt-get install nginx)');
    expect(skipReason(`${nginx} > streams`)).toBe('nginx is not installed (apt-get install nginx)');
    expect(skipReason(`store on postgres ${POSTGRES_SKIPPED} > a > b`)).toBe('TEST_POSTGRES_URL is not set');
    expect(skipReason(`${skippedTitle('outer', 'one')} > ${skippedTitle('inner', 'two')}`)).toBe('two');
    expect(skipReason('a plain title', 'no network')).toBe('no network');
    expect(skipReason('a plain title')).toBe('no reason given');
  });

  it('counts the skips by reason, the most first, with how to run the PostgreSQL ones', () => {
    const reasons = [
      'no Chromium',
      'TEST_POSTGRES_URL is not set',
      'TEST_POSTGRES_URL is not set',
      'TEST_POSTGRES_URL is not set',
      'no reason given',
    ];
    expect(skipLine(reasons)).toBe(
      '5 tests skipped: 3 because TEST_POSTGRES_URL is not set ' +
        '(set TEST_POSTGRES_URL=postgres://user:password@host:5432/database to run them); ' +
        '1 because no Chromium; 1 because no reason given.',
    );
    expect(skipLine(['no Chromium'])).toBe('1 test skipped: 1 because no Chromium.');
    expect(skipLine([])).toBeNull();
  });
});
