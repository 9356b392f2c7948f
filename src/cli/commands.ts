import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { CodesNotReady, hashStoredCodes } from '../store/hash-codes.js';
import { migrate, migrationStatus, rollback } from '../store/migrations.js';
import { isModuleNotFound } from '../util/missing-peer.js';
import { redactSecret } from '../util/redact-secret.js';
import type { Database } from './database-url.js';

export const COMMANDS = ['migrate', 'rollback', 'status', 'hash-codes'] as const;
export type Command = (typeof COMMANDS)[number];

export interface CommandOptions {
  database: Database;
  tablePrefix: string;
  /** `rollback` only: undo every migration of the package, not only the last batch. */
  all: boolean;
}

/** A failure the command reports in one message, and exits with status 1. */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
}

/** Runs one command on the database and returns what to print, a line per element. */
export async function runCommand(command: Command, options: CommandOptions): Promise<string[]> {
  const { database } = options;
  // SQLite creates a missing file on connection: only `migrate` may do that.
  if (database.kind === 'sqlite' && command !== 'migrate' && !existsSync(database.filename)) {
    throw new CommandFailure(`there is no SQLite file at ${database.filename}`);
  }
  const knex = await connect(database);
  try {
    return await perform(knex, command, options);
  } catch (error) {
    if (error instanceof CodesNotReady)
      throw new CommandFailure(`${command} failed on ${database.where}: ${error.message}`);
    const scrubbed = database.kind === 'postgres' ? redactSecret(error, database.password, '***') : error;
    throw new CommandFailure(`${command} failed on ${database.where}: ${describe(scrubbed)}`, {
      cause: scrubbed,
    });
  } finally {
    await knex.destroy();
  }
}

async function perform(knex: Knex, command: Command, options: CommandOptions): Promise<string[]> {
  const { tablePrefix } = options;
  switch (command) {
    case 'migrate': {
      const ran = await migrate(knex, { tablePrefix });
      return ran.length === 0
        ? ['Already up to date: no migration to run.']
        : [`Ran ${count(ran.length)}:`, ...ran.map((name) => `  ${name}`)];
    }
    case 'rollback': {
      const undone = await rollback(knex, { tablePrefix, all: options.all });
      return undone.length === 0
        ? ['Nothing to roll back.']
        : [`Rolled back ${count(undone.length)}:`, ...undone.map((name) => `  ${name}`)];
    }
    case 'status': {
      const { completed, pending } = await migrationStatus(knex, { tablePrefix });
      return [
        ...completed.map((name) => `done     ${name}`),
        ...pending.map((name) => `pending  ${name}`),
        `${completed.length} done, ${pending.length} pending.`,
      ];
    }
    case 'hash-codes': {
      const hashed = await hashStoredCodes(knex, { tablePrefix });
      return hashed === 0
        ? ['No server code left to hash: every code is stored hashed.']
        : [
            `Hashed ${hashed} server code${hashed === 1 ? '' : 's'}: their URLs keep working; the console now shows each only as a hint.`,
            'Create the store with knexServerStore(knex, { hashCodes: true }) so that new and rotated codes are hashed too.',
          ];
    }
  }
}

const count = (n: number) => `${n} migration${n === 1 ? '' : 's'}`;

/**
 * Knex and the driver are the host's (optional peers of the package): loaded here, so that a missing
 * one is named with the command that installs it, rather than with a module-resolution stack.
 */
async function connect(database: Database): Promise<Knex> {
  const knexFactory = await peer<{ default: (config: Knex.Config) => Knex }>('knex', 'knex');
  await peer(database.driver, `the driver for ${database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'}`);
  const config: Knex.Config =
    database.kind === 'postgres'
      ? { client: 'pg', connection: database.url }
      : { client: 'better-sqlite3', connection: { filename: database.filename }, useNullAsDefault: true };
  return knexFactory.default({
    ...config,
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 15_000,
    log: { warn: knexLog, error: knexLog, deprecate: knexLog, debug: () => {} },
  });
}

/**
 * Knex writes its warnings to standard output, which is the command's report: they go to standard
 * error instead. A failed connection is left out, since the command reports its failure itself.
 */
function knexLog(message: unknown): void {
  const text = typeof message === 'string' ? message : String(message);
  if (!text.startsWith('Acquire connection error')) process.stderr.write(`knex: ${text}\n`);
}

async function peer<T>(name: string, what: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    // Quoted as the loader quotes it, so that a missing `pg-protocol` is not taken for `pg`.
    if (!isModuleNotFound(error, `'${name}'`)) throw error;
    throw new CommandFailure(`${what} is not installed: npm install ${name}`);
  }
}

/**
 * The driver's words. A connection refused on every address of a host name is an `AggregateError`
 * whose own message is empty: its errors say what happened.
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.map(describe).join('; ');
  return (error as { code?: string }).code ?? error.name;
}
