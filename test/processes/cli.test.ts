/**
 * The command line as a user runs it: the `bin` of the packed package, started as a process on a
 * real SQLite file and on PostgreSQL. It runs the same migrations as `migrate(knex)`: the tables it
 * makes are compared with the library's, made under another prefix in the same database.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knexServerStore, migrate, rollback } from '../../src/store/index.js';
import { databaseFor, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { cleanEnv, packedPackage, ROOT, run } from '../helpers/packed.js';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The packed package, unpacked inside the repository so that its imports find the repository's knex and drivers. */
let unpacked: string;
let bin: string;

beforeAll(async () => {
  const { tarball } = await packedPackage();
  unpacked = join(ROOT, 'node_modules', '.cache', `express-app-mcp-cli-${randomBytes(4).toString('hex')}`);
  await mkdir(unpacked, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
  const manifest = JSON.parse(await readFile(join(unpacked, 'package', 'package.json'), 'utf8'));
  bin = join(unpacked, 'package', manifest.bin['express-app-mcp']);
}, 300_000);

afterAll(async () => {
  if (unpacked) await rm(unpacked, { recursive: true, force: true });
});

function cli(args: string[], options: { cwd?: string; bin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env = { ...cleanEnv(), ...options.env };
  if (!options.env || !('DATABASE_URL' in options.env)) delete env.DATABASE_URL;
  return new Promise<Outcome>((resolve) => {
    execFile(
      process.execPath,
      [options.bin ?? bin, ...args],
      { cwd: options.cwd ?? tmpdir(), env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** The package's tables in a database, named without `prefix`, each with its columns; indexes by name. */
async function schemaOf(knex: Knex, kind: TestDatabase['name'], prefix: string) {
  const tables: string[] =
    kind === 'sqlite'
      ? (await knex('sqlite_master').where({ type: 'table' }).select('name')).map((row) => row.name)
      : (
          await knex('information_schema.tables')
            .whereRaw('table_schema = current_schema()')
            .select('table_name as name')
        ).map((row) => row.name);
  const ours = tables.filter((name) => name.startsWith(prefix) && !name.endsWith('_lock')).sort();
  const described: Record<string, unknown> = {};
  for (const table of ours) {
    const columns = await knex(table).columnInfo();
    described[table.slice(prefix.length)] = columns;
  }
  const indexes =
    kind === 'sqlite'
      ? (await knex('sqlite_master').where({ type: 'index' }).select('name', 'sql')).map(
          (row) => `${row.name} ${row.sql}`,
        )
      : (await knex('pg_indexes').whereRaw('schemaname = current_schema()').select('indexdef')).map(
          (row) => row.indexdef,
        );
  const ourIndexes = indexes.filter((line) => line.startsWith(prefix) || line.includes(` ${prefix}`)).sort();
  // Names (of sequences, constraints, indexes) differ by their prefix only.
  return JSON.parse(
    JSON.stringify({ tables: described, indexes: ourIndexes }).replaceAll(prefix, '<prefix>'),
  );
}

describeEach(databases)("the command line on '$name'", (kind) => {
  const fresh = databaseFor(kind);

  it('status lists every migration as pending on a database the package never touched, and creates nothing', async () => {
    const library = await migrate(fresh.knex, { tablePrefix: 'lib_' });
    await rollback(fresh.knex, { tablePrefix: 'lib_', all: true });
    await fresh.knex.schema.dropTable('lib_mcp_migrations');
    await fresh.knex.schema.dropTableIfExists('lib_mcp_migrations_lock');

    const status = await cli(['status', '--database-url', fresh.db.url, '--table-prefix', 'cli_']);
    expect(status).toEqual({
      code: 0,
      stdout: `${library.map((name) => `pending  ${name}\n`).join('')}0 done, ${library.length} pending.\n`,
      stderr: '',
    });
    expect(await fresh.knex.schema.hasTable('cli_mcp_migrations')).toBe(false);
  });

  it('migrate runs the same migrations as migrate(knex), making the same tables and indexes', async () => {
    const outcome = await cli(['migrate', '--database-url', fresh.db.url, '--table-prefix', 'cli_']);
    const library = await migrate(fresh.knex, { tablePrefix: 'lib_' });
    expect(library.length).toBeGreaterThan(0);
    expect(outcome).toEqual({
      code: 0,
      stdout: `Ran ${library.length} migrations:\n${library.map((name) => `  ${name}\n`).join('')}`,
      stderr: '',
    });
    const made = await schemaOf(fresh.knex, kind.name, 'cli_');
    expect(Object.keys(made.tables)).toContain('mcp_servers');
    expect(made).toEqual(await schemaOf(fresh.knex, kind.name, 'lib_'));
  });

  it('a store with the same prefix works on the tables the command made', async () => {
    const store = knexServerStore(fresh.knex, { tablePrefix: 'cli_' });
    const server = await store.createServer({
      tenantId: 't1',
      appId: 'a1',
      name: 'From the command line',
      description: '',
      parameters: {},
    });
    try {
      expect(await store.getServerByCode(server.serverCode)).toEqual(server);
    } finally {
      await store.close();
    }
  });

  it('migrate again has nothing to do, and status lists every migration as done', async () => {
    expect(await cli(['migrate', '--database-url', fresh.db.url, '--table-prefix', 'cli_'])).toEqual({
      code: 0,
      stdout: 'Already up to date: no migration to run.\n',
      stderr: '',
    });
    const names = (await fresh.knex('cli_mcp_migrations').orderBy('id').select('name')).map(
      (row) => row.name,
    );
    expect(await cli(['status', '--database-url', fresh.db.url, '--table-prefix', 'cli_'])).toEqual({
      code: 0,
      stdout: `${names.map((name) => `done     ${name}\n`).join('')}${names.length} done, 0 pending.\n`,
      stderr: '',
    });
  });

  it('rollback undoes the last batch and drops the tables; the library migrations of another prefix stay', async () => {
    const names = (await fresh.knex('cli_mcp_migrations').orderBy('id').select('name')).map(
      (row) => row.name,
    );
    expect(await cli(['rollback', '--database-url', fresh.db.url, '--table-prefix', 'cli_'])).toEqual({
      code: 0,
      stdout: `Rolled back ${names.length} migrations:\n${[...names]
        .reverse()
        .map((name) => `  ${name}\n`)
        .join('')}`,
      stderr: '',
    });
    expect(await fresh.knex.schema.hasTable('cli_mcp_servers')).toBe(false);
    expect(await fresh.knex.schema.hasTable('lib_mcp_servers')).toBe(true);
    expect(
      await cli(['rollback', '--all', '--database-url', fresh.db.url, '--table-prefix', 'cli_']),
    ).toEqual({
      code: 0,
      stdout: 'Nothing to roll back.\n',
      stderr: '',
    });
  });

  it('hash-codes hashes the stored codes in place, twice without harm, and the codes still resolve', async () => {
    await migrate(fresh.knex, { tablePrefix: 'hash_' });
    const plain = knexServerStore(fresh.knex, { tablePrefix: 'hash_' });
    const server = await plain.createServer({
      tenantId: 't1',
      appId: 'a1',
      name: 'Old',
      description: '',
      parameters: {},
    });
    await plain.close();
    const args = ['hash-codes', '--database-url', fresh.db.url, '--table-prefix', 'hash_'];
    expect(await cli(args)).toEqual({
      code: 0,
      stdout:
        'Hashed 1 server code: their URLs keep working; the console now shows each only as a hint.\n' +
        'Create the store with knexServerStore(knex, { hashCodes: true }) so that new and rotated codes are hashed too.\n',
      stderr: '',
    });
    expect(await cli(args)).toEqual({
      code: 0,
      stdout: 'No server code left to hash: every code is stored hashed.\n',
      stderr: '',
    });
    const [row] = await fresh.knex('hash_mcp_servers').select('server_code', 'code_hint');
    expect(row).toEqual({
      server_code: expect.stringMatching(/^[0-9a-f]{64}$/),
      code_hint: server.serverCode.slice(0, 4),
    });
    const hashing = knexServerStore(fresh.knex, { tablePrefix: 'hash_', hashCodes: true });
    try {
      expect(await hashing.getServerByCode(server.serverCode)).toMatchObject({
        id: server.id,
        serverCode: server.serverCode,
      });
    } finally {
      await hashing.close();
    }
  });

  it('hash-codes on a database without the migrations it needs says to migrate first', async () => {
    expect(
      await cli(['hash-codes', '--database-url', fresh.db.url, '--table-prefix', 'none_']),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'lacks the migration 0014_hashed_server_codes: run the migrate command first',
      ),
    });
  });

  it('takes the URL from DATABASE_URL when --database-url is not given', async () => {
    const outcome = await cli(['migrate', '--table-prefix', 'env_'], { env: { DATABASE_URL: fresh.db.url } });
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toMatch(/^Ran \d+ migrations:\n/);
    expect(await fresh.knex.schema.hasTable('env_mcp_servers')).toBe(true);
  });
});

describe('the command line: mistakes and what it says about them', () => {
  it('--help prints the usage and exits 0', async () => {
    const outcome = await cli(['--help']);
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toMatch(/^Usage: express-app-mcp <command> --database-url <url>/);
    expect(outcome.stdout).toContain('migrate');
  });

  it.each([
    [[], 'a command is needed: migrate, rollback, status, hash-codes'],
    [
      ['upgrade', '--database-url', 'sqlite:x'],
      'unknown command "upgrade"; the commands are migrate, rollback, status, hash-codes',
    ],
    [['migrate'], '--database-url is required (or the DATABASE_URL environment variable)'],
    [['migrate', '--all', '--database-url', 'sqlite:x'], '--all is an option of rollback only'],
    [
      ['migrate', '--database-url', 'sqlite:x', '--table-prefix', 'a-b'],
      '--table-prefix must be at most 32 letters, digits or underscores',
    ],
    [
      ['migrate', '--database-url', 'sqlite://data/app.sqlite'],
      '--database-url: write sqlite:relative/path.sqlite or sqlite:/absolute/path.sqlite, without "//"',
    ],
    [
      ['status', '--database-url', 'mysql://admin:s3cret@db.example/app'],
      '--database-url: the scheme mysql: is not supported; expected postgres://user:password@host:5432/database or sqlite:path/to/file.sqlite',
    ],
    [
      ['status', '--database-url', 'not a url'],
      '--database-url: not a URL; expected postgres://user:password@host:5432/database or sqlite:path/to/file.sqlite',
    ],
  ])('%j exits 2 with a message and the usage', async (args, message) => {
    const { stdout: usage } = await cli(['--help']);
    expect(await cli(args)).toEqual({
      code: 2,
      stdout: '',
      stderr: `express-app-mcp: ${message}\n\n${usage}`,
    });
  });

  it('a refused URL is never repeated, since it may carry a password', async () => {
    const outcome = await cli(['status', '--database-url', 'mysql://admin:s3cret@db.example/app']);
    expect(outcome.stderr).not.toContain('s3cret');
  });

  it('status and rollback on a SQLite file that does not exist fail and create no file', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'express-app-mcp-cli-'));
    try {
      for (const command of ['status', 'rollback']) {
        expect(await cli([command, '--database-url', 'sqlite:missing.sqlite'], { cwd: folder })).toEqual({
          code: 1,
          stdout: '',
          stderr: `express-app-mcp: there is no SQLite file at ${join(folder, 'missing.sqlite')}\n`,
        });
      }
      expect(existsSync(join(folder, 'missing.sqlite'))).toBe(false);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('a PostgreSQL server that refuses the connection is named, without the password', async () => {
    // Port 1 on the loopback address: nothing listens there.
    const outcome = await cli(['status', '--database-url', 'postgres://admin:s3cret@127.0.0.1:1/app']);
    expect(outcome).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'express-app-mcp: status failed on PostgreSQL at 127.0.0.1:1, database app: connect ECONNREFUSED 127.0.0.1:1\n',
    });
  });

  describe('in a project without knex, or without the driver', () => {
    let project: string;
    let projectBin: string;

    beforeAll(async () => {
      // Outside the repository, so that nothing it has installed is found: only what is linked here.
      project = await mkdtemp(join(tmpdir(), 'express-app-mcp-cli-project-'));
      const installed = join(project, 'node_modules', 'express-app-mcp');
      await cp(join(unpacked, 'package'), installed, { recursive: true });
      await symlink(join(ROOT, 'node_modules', 'zod'), join(project, 'node_modules', 'zod'), 'dir');
      projectBin = join(installed, 'dist', 'cli', 'main.js');
    });

    afterAll(async () => {
      if (project) await rm(project, { recursive: true, force: true });
    });

    it('without knex: says to install it', async () => {
      expect(
        await cli(['migrate', '--database-url', 'sqlite:app.sqlite'], { cwd: project, bin: projectBin }),
      ).toEqual({
        code: 1,
        stdout: '',
        stderr: 'express-app-mcp: knex is not installed: npm install knex\n',
      });
    });

    it('with knex but without the driver the URL needs: names the driver to install', async () => {
      await symlink(join(ROOT, 'node_modules', 'knex'), join(project, 'node_modules', 'knex'), 'dir');
      const options = { cwd: project, bin: projectBin };
      expect(await cli(['migrate', '--database-url', 'postgres://u:p@127.0.0.1:1/app'], options)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'express-app-mcp: the driver for PostgreSQL is not installed: npm install pg\n',
      });
      expect(await cli(['migrate', '--database-url', 'sqlite:app.sqlite'], options)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'express-app-mcp: the driver for SQLite is not installed: npm install better-sqlite3\n',
      });
      expect(existsSync(join(project, 'app.sqlite'))).toBe(false);
    });
  });
});
