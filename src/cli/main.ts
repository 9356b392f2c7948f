#!/usr/bin/env node
/**
 * `npx express-app-mcp migrate | rollback | status | hash-codes --database-url <url> [--table-prefix p]`:
 * the package's migrations, the same as `migrate(knex)`, and the conversion of stored server codes
 * to hashes (docs/keys.md), run without writing code (docs/cli.md).
 * Exit status: 0 done, 1 the command failed, 2 the command line is wrong.
 */
import { parseArgs } from 'node:util';
import { migrateOptionsSchema } from '../store/store-options.js';
import { PACKAGE_VERSION } from '../versions.js';
import { COMMANDS, type Command, runCommand } from './commands.js';
import { parseDatabaseUrl, UsageError } from './database-url.js';

const USAGE = `Usage: express-app-mcp <command> --database-url <url> [--table-prefix <prefix>]

Commands:
  migrate    create or update the package's tables (the same as migrate(knex))
  rollback   undo the last batch of the package's migrations (--all: every one)
  status     list the package's migrations, done and pending
  hash-codes replace every stored server code by its SHA-256, in place; URLs keep working
             (run migrate first; idempotent)

Options:
  --database-url <url>     postgres://user:password@host:5432/database or sqlite:path/to/file.sqlite
                           (default: the DATABASE_URL environment variable)
  --table-prefix <prefix>  the tablePrefix given to the stores (default: none)
  --all                    rollback: undo every migration of the package
  -h, --help               print this help
  -v, --version            print the package's version
`;

async function main(args: string[]): Promise<number> {
  const { values, positionals } = readArgs(args);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return 0;
  }
  const [command, ...extra] = positionals;
  if (command === undefined) throw new UsageError(`a command is needed: ${COMMANDS.join(', ')}`);
  if (!isCommand(command)) {
    throw new UsageError(`unknown command "${command}"; the commands are ${COMMANDS.join(', ')}`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (values.all && command !== 'rollback') throw new UsageError('--all is an option of rollback only');

  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (url === undefined || url === '') {
    throw new UsageError('--database-url is required (or the DATABASE_URL environment variable)');
  }
  const prefix = migrateOptionsSchema.safeParse({ tablePrefix: values['table-prefix'] });
  if (!prefix.success) throw new UsageError(`--table-prefix ${prefix.error.issues[0]!.message}`);

  const lines = await runCommand(command, {
    database: parseDatabaseUrl(url, process.cwd()),
    tablePrefix: prefix.data.tablePrefix,
    all: values.all ?? false,
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function readArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        'database-url': { type: 'string' },
        'table-prefix': { type: 'string' },
        all: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    // parseArgs names the unknown option or the one that lacks its value.
    throw new UsageError((error as Error).message);
  }
}

const isCommand = (value: string): value is Command => (COMMANDS as readonly string[]).includes(value);

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`express-app-mcp: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      // A `CommandFailure`, or anything else that went wrong: its message, and status 1.
      process.stderr.write(`express-app-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
