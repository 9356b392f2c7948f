/**
 * SQLite and a lock held by another process (README, "SQLite: one process, and locks"). better-sqlite3
 * waits for a lock synchronously, freezing the whole process for up to its busy timeout (5 s by
 * default). The recommended setup keeps the endpoint out of that wait: in WAL mode a code lookup
 * never waits for a writer, and with a short `busy_timeout` a lookup that still meets a lock
 * (rollback-journal mode) fails at once and answers 503 with Retry-After.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { knexServerStore, migrate } from '../../src/store/index.js';
import type { ServerRecord } from '../../src/types/index.js';
import { TEXT_STATS } from '../helpers/apps.js';
import { hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** Another process that takes an exclusive lock on the file and keeps it until it reads a line. */
async function holdLock(filename: string): Promise<ChildProcess> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require(${JSON.stringify(BETTER_SQLITE3)}))(${JSON.stringify(filename)});
       db.exec('BEGIN EXCLUSIVE');
       db.prepare("update mcp_servers set name = name").run();
       console.log('locked');
       process.stdin.once('data', () => { db.exec('COMMIT'); console.log('released'); process.exit(0); });`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await new Promise((resolve) => holder.stdout!.once('data', resolve));
  return holder;
}

describe('SQLite with a lock held by another process', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function database(
    journalMode: 'wal' | 'delete',
  ): Promise<{ knex: Knex; filename: string; server: ServerRecord }> {
    const folder = await mkdtemp(join(tmpdir(), 'express-app-mcp-busy-'));
    const filename = join(folder, 'app.sqlite');
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      // The README's setup: the journal mode under test, and a short busy timeout.
      pool: {
        afterCreate(connection: { pragma(sql: string): unknown }, done: (error: Error | null) => void) {
          connection.pragma(`journal_mode = ${journalMode}`);
          connection.pragma('busy_timeout = 100');
          done(null);
        },
      },
    });
    cleanups.push(async () => {
      await knex.destroy();
      await rm(folder, { recursive: true, force: true });
    });
    await migrate(knex);
    const server = await knexServerStore(knex).createServer({
      tenantId: 't',
      appId: TEXT_STATS.id,
      name: TEXT_STATS.name,
      description: '',
      parameters: {},
    });
    return { knex, filename, server };
  }

  async function host(knex: Knex) {
    const pkg = await loadPackage(5);
    const store = knexServerStore(knex, { cacheTtlMs: 0 });
    const started = await startHost(hostVariants[0]!, pkg, {
      resolveServer: store.resolver(() => TEXT_STATS),
      runApp: () => ({ outputs: {} }),
      onError: () => {},
    });
    cleanups.push(() => started.close());
    return started;
  }

  /** Runs `work` while another process holds an exclusive lock on the file, then lets it go. */
  async function whileLocked(filename: string, work: () => Promise<void>): Promise<void> {
    const holder = await holdLock(filename);
    const released = new Promise((resolve) => holder.once('exit', resolve));
    try {
      await work();
      expect(holder.exitCode).toBeNull(); // the lock was held all along
    } finally {
      holder.stdin!.write('release\n');
      await released;
    }
  }

  it('in WAL mode a lookup is answered while another process holds the write lock', async () => {
    const { knex, filename, server } = await database('wal');
    const endpoint = await host(knex);
    await whileLocked(filename, async () => {
      expectRpcReply(await endpoint.post(server.serverCode, request(1, 'ping')), 200, rpcResult(1, {}));
    });
  });

  it('in rollback-journal mode a lookup that meets the lock answers 503 with Retry-After', async () => {
    const { knex, filename, server } = await database('delete');
    const endpoint = await host(knex);
    await whileLocked(filename, async () => {
      const reply = await endpoint.post(server.serverCode, request(2, 'ping'));
      expectRpcReply(reply, 503, rpcError(2, -32603, 'MCP server temporarily unavailable: try again later'));
      expect(reply.headers['retry-after']).toBe('5');
    });
    expectRpcReply(await endpoint.post(server.serverCode, request(3, 'ping')), 200, rpcResult(3, {}));
  });
});
