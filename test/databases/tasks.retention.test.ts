/**
 * How long a task is kept while its run goes on (docs/tasks.md, "How long a task is kept"): a
 * running task never expires, so its owner can always get, list and cancel it; once its ttl has
 * passed since its last change, the instance that runs it stops the run (its signal aborts) and
 * records the end. A ttl below a second, 0 too, is raised to one. On every store tasks live in,
 * and in a farm of two instances on one PostgreSQL.
 * Measured before: a task of ttl 1000 was "not found" after 1.5 s while its run went on, forever.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore } from '../../src/store/index.js';
import { TTL_PASSED } from '../../src/store/tasks/types.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';
import { createTaskWorld, type TaskWorld } from '../helpers/tasks.js';

const V = { 'mcp-protocol-version': '2025-11-25' };
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const sqlite = databases.find((kind) => kind.name === 'sqlite')!;
const postgres = databases.find((kind) => kind.name === 'postgres')!;

interface Setting {
  name: string;
  skipped?: string;
  /** Where the servers are kept, and the task store of each of the two hosts (`undefined`: in memory). */
  database: typeof sqlite;
  farm: boolean;
  memory: boolean;
}

const settings: Setting[] = [
  { name: 'memory', database: sqlite, farm: false, memory: true },
  { name: 'sqlite', database: sqlite, farm: false, memory: false },
  {
    name: 'postgres',
    ...(postgres.skipped ? { skipped: postgres.skipped } : {}),
    database: postgres,
    farm: false,
    memory: false,
  },
  {
    name: 'a farm of two instances on postgres',
    ...(postgres.skipped ? { skipped: postgres.skipped } : {}),
    database: postgres,
    farm: true,
    memory: false,
  },
];

describeEach(settings)('a task whose run outlives its ttl, on $name', (setting) => {
  let db: TestDatabase;
  let world: TaskWorld;
  /** `runs` starts the tasks; `reads` answers for them (another instance in a farm). */
  let runs: Host;
  let reads: Host;
  const stores: KnexServerStore[] = [];

  beforeAll(async () => {
    const made = await createMigrated(setting.database);
    db = made.db;
    world = await createTaskWorld(knexServerStore(made.knex));
    const pkg = await loadPackage(5);
    const start = async () => {
      const store = knexServerStore(db.connect());
      stores.push(store);
      // Tasks live in the store's database, or, without one, in the process.
      const options = world.options(
        setting.memory ? { taskLeaseMs: 60_000 } : { store, taskLeaseMs: 60_000 },
      );
      if (setting.memory) delete (options as { store?: unknown }).store;
      return startHost(hostVariants[0]!, pkg, options);
    };
    runs = await start();
    reads = setting.farm ? await start() : runs;
  });
  afterAll(async () => {
    await runs?.close();
    if (reads !== runs) await reads?.close();
    await Promise.all(stores.map((store) => store.close()));
    await db?.destroy();
  });

  const post = (host: Host, id: number, method: string, params: Record<string, unknown>) =>
    host.post(world.codes.gated, request(id, method, params), V);
  const createTask = (ttl: number) =>
    post(runs, 1, 'tools/call', { name: 'Gated_Report', arguments: {}, task: { ttl } });
  const task = (taskId: string, status: string, extra: Record<string, unknown> = {}) => ({
    taskId,
    status,
    ...extra,
    createdAt: ISO,
    lastUpdatedAt: ISO,
    ttl: 1000,
    pollInterval: 1000,
  });

  it('is visible while it runs, and once its ttl passes its run is stopped and its end recorded: never gone while running', async () => {
    const created = await createTask(1000);
    const taskId = (created.json as { result: { task: { taskId: string } } }).result.task.taskId;
    expectRpcReply(created, 200, rpcResult(1, { task: task(taskId, 'working') }));
    const gated = await world.nextGatedRun();
    // Polled past its ttl: each answer is the running task, or its recorded end once the run stopped.
    const deadline = Date.now() + 10_000;
    for (;;) {
      // The end is stored before the run is stopped: a run stopped before the read reads as ended.
      const stoppedBefore = gated.run.signal.aborted;
      const got = await post(reads, 2, 'tasks/get', { taskId });
      const listed = await post(reads, 3, 'tasks/list', {});
      const status = (got.json as { result?: { status?: string } }).result?.status;
      if (status === 'working') {
        expect(stoppedBefore).toBe(false);
        expectRpcReply(got, 200, rpcResult(2, task(taskId, 'working')));
        expect(listed.json).toMatchObject({
          result: { tasks: expect.arrayContaining([expect.objectContaining({ taskId })]) },
        });
      } else {
        expectRpcReply(got, 200, rpcResult(2, task(taskId, 'failed', { statusMessage: TTL_PASSED })));
        break;
      }
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The run was stopped, on the instance that ran it.
    await expect.poll(() => gated.run.signal.aborted).toBe(true);
    expectRpcReply(await post(reads, 4, 'tasks/result', { taskId }), 200, rpcError(4, -32603, TTL_PASSED));
    const cancel = await post(reads, 5, 'tasks/cancel', { taskId });
    expect(cancel.json).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it('a ttl of 0 is raised to a second: the task is there at once, and its owner can cancel it', async () => {
    const created = await createTask(0);
    const taskId = (created.json as { result: { task: { taskId: string } } }).result.task.taskId;
    expectRpcReply(created, 200, rpcResult(1, { task: task(taskId, 'working') }));
    const gated = await world.nextGatedRun();
    expectRpcReply(await post(reads, 2, 'tasks/get', { taskId }), 200, rpcResult(2, task(taskId, 'working')));
    expectRpcReply(
      await post(reads, 3, 'tasks/cancel', { taskId }),
      200,
      rpcResult(3, task(taskId, 'cancelled')),
    );
    await expect.poll(() => gated.run.signal.aborted).toBe(true);
  });

  it('a task whose run keeps reporting progress lives on past its ttl, each change moving its end', async () => {
    // Status messages are written at most once a second: a ttl of 2 s leaves room for each.
    const created = await createTask(2000);
    const taskId = (created.json as { result: { task: { taskId: string } } }).result.task.taskId;
    const gated = await world.nextGatedRun();
    for (let step = 0; step < 7; step++) {
      gated.progress(`step ${step} ${randomUUID()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // 3.5 s after it was made, past its ttl of 2 s, it still runs.
    expect(gated.run.signal.aborted).toBe(false);
    expect((await post(reads, 2, 'tasks/get', { taskId })).json).toMatchObject({
      result: { taskId, status: 'working' },
    });
    gated.finish('the report');
    await expect
      .poll(
        async () =>
          ((await post(reads, 3, 'tasks/get', { taskId })).json as { result: { status: string } }).result
            .status,
      )
      .toBe('completed');
  });
});
