/**
 * docs/cli.md shows what `migrate` then `status` print on a new database: every migration of the
 * package, in order, read here from the migrations themselves (`src/store/migrations.ts`), so the
 * page cannot fall behind a new migration.
 */
import { readFileSync } from 'node:fs';
import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';
import { migrationStatus } from '../../src/store/migrations.js';

describe('docs/cli.md', () => {
  it('lists every migration of the package, in order, as migrate and status print them', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    const { pending: names } = await migrationStatus(knex);
    await knex.destroy();
    expect(names.length).toBeGreaterThan(10);
    const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const shown = /```\n(Ran \d+ migrations:\n[\s\S]*?)```/.exec(page)?.[1];
    const expected = [
      `Ran ${names.length} migrations:`,
      ...names.map((name) => `  ${name}`),
      ...names.map((name) => `done     ${name}`),
      `${names.length} done, 0 pending.`,
      '',
    ].join('\n');
    expect(shown, 'docs/cli.md: its sample output must list every migration of src/store/migrations.ts').toBe(
      expected,
    );
  });
});
