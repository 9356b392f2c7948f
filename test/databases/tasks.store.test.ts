/**
 * The task store contract, on every store tasks can live in: this process (`memory`) and the Knex
 * store on each test database (`sqlite` on a real file, `postgres` when `TEST_POSTGRES_URL` is set).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, migrate, rollback } from '../../src/store/index.js';
import { memoryTaskStore } from '../../src/store/tasks/memory-store.js';
import { INSTANCE_STOPPED, type NewTask, type TaskStore, TTL_PASSED } from '../../src/store/tasks/types.js';
import { databaseFor, databases, describeEach } from '../helpers/databases.js';

interface TaskStoreKind {
  name: string;
  skipped?: string;
  open(): Promise<{ store: TaskStore; close(): Promise<void> }>;
}

const kinds: TaskStoreKind[] = [
  { name: 'memory', open: async () => ({ store: memoryTaskStore(), close: async () => {} }) },
  ...databases.map((database) => ({
    name: database.name,
    ...(database.skipped ? { skipped: database.skipped } : {}),
    async open() {
      const db = await database.create();
      const knex = db.connect();
      await migrate(knex);
      const tasks = knexServerStore(knex).tasks;
      if (!tasks) throw new Error('the Knex store has no task store');
      return { store: tasks, close: () => db.destroy() };
    },
  })),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEach(kinds)('the task store on $name', (kind) => {
  let store: TaskStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await kind.open());
  });
  afterAll(() => close?.());

  const owner = () => ({ serverId: randomUUID(), caller: `caller-${randomUUID()}` });
  const newTask = (overrides: Partial<NewTask> = {}): NewTask => ({
    ...owner(),
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    ownerInstance: 'instance-a',
    leaseMs: 30_000,
    ...overrides,
  });

  it('create stores a working task with an unguessable id, held by its instance', async () => {
    const input = newTask();
    const before = Date.now();
    const task = await store.create(input);
    expect(task).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      serverId: input.serverId,
      caller: input.caller,
      status: 'working',
      statusMessage: null,
      result: null,
      error: null,
      inputRequests: null,
      ttlMs: 60_000,
      pollIntervalMs: 1000,
      createdAt: expect.any(Number),
      updatedAt: task.createdAt,
      expiresAt: task.createdAt + 60_000,
      ownerInstance: 'instance-a',
      leaseExpiresAt: task.createdAt + 30_000,
    });
    expect(task.createdAt).toBeGreaterThanOrEqual(before);
    expect(await store.get(task.id, input)).toEqual(task);
    const ids = new Set(
      await Promise.all(Array.from({ length: 20 }, async () => (await store.create(newTask())).id)),
    );
    expect(ids.size).toBe(20);
  });

  it('a task does not exist for another server or another caller', async () => {
    const input = newTask();
    const task = await store.create(input);
    expect(await store.get(task.id, { serverId: randomUUID(), caller: input.caller })).toBeNull();
    expect(await store.get(task.id, { serverId: input.serverId, caller: 'someone-else' })).toBeNull();
    expect(await store.get('no-such-task', input)).toBeNull();
    expect((await store.list({ serverId: input.serverId, caller: 'someone-else' }, 10)).tasks).toEqual([]);
  });

  it('progress changes a running task; finish ends it once, with its result, and nothing changes it after', async () => {
    const input = newTask();
    const task = await store.create(input);
    expect(await store.progress(task.id, { statusMessage: 'halfway' })).toBe(true);
    expect(
      await store.progress(task.id, { status: 'input_required', inputRequests: { ok: { method: 'x' } } }),
    ).toBe(true);
    expect(await store.get(task.id, input)).toMatchObject({
      status: 'input_required',
      statusMessage: 'halfway',
      inputRequests: { ok: { method: 'x' } },
    });
    const result = { content: [{ type: 'text', text: 'done' }], isError: false };
    expect(
      await store.finish(task.id, {
        status: 'completed',
        statusMessage: null,
        resultJson: JSON.stringify(result),
      }),
    ).toBe(true);
    const done = await store.get(task.id, input);
    expect(done).toMatchObject({
      status: 'completed',
      statusMessage: null,
      result,
      error: null,
      inputRequests: null,
      leaseExpiresAt: null,
    });
    expect(done?.expiresAt).toBe((done?.updatedAt ?? 0) + 60_000);
    expect(await store.finish(task.id, { status: 'cancelled' })).toBe(false);
    expect(await store.progress(task.id, { statusMessage: 'late' })).toBe(false);
    expect(await store.get(task.id, input)).toEqual(done);
  });

  it('a task can fail with a JSON-RPC error instead of a result', async () => {
    const input = newTask();
    const task = await store.create(input);
    await store.finish(task.id, {
      status: 'failed',
      statusMessage: 'boom',
      error: { code: -32603, message: 'boom' },
    });
    expect(await store.get(task.id, input)).toMatchObject({
      status: 'failed',
      statusMessage: 'boom',
      result: null,
      error: { code: -32603, message: 'boom' },
    });
  });

  it('list gives the caller’s tasks newest first, a page at a time', async () => {
    const mine = owner();
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await store.create(newTask(mine)));
      await sleep(2);
    }
    await store.create(newTask());
    const first = await store.list(mine, 2);
    expect(first.tasks.map((task) => task.id)).toEqual([made[4]?.id, made[3]?.id]);
    expect(first.next).toBeDefined();
    const second = await store.list(mine, 2, first.next);
    expect(second.tasks.map((task) => task.id)).toEqual([made[2]?.id, made[1]?.id]);
    const last = await store.list(mine, 2, second.next);
    expect(last).toEqual({ tasks: [expect.objectContaining({ id: made[0]?.id })] });
  });

  it('renew extends the leases of running tasks and names those that no longer run', async () => {
    const input = newTask({ leaseMs: 1000 });
    const running = await store.create(input);
    const cancelled = await store.create(newTask({ ...input }));
    await store.finish(cancelled.id, { status: 'cancelled' });
    const gone = await store.renew('instance-a', [running.id, cancelled.id], 60_000);
    expect(gone).toEqual([cancelled.id]);
    const renewed = await store.get(running.id, input);
    expect(renewed?.leaseExpiresAt).toBeGreaterThanOrEqual(running.createdAt + 60_000);
  });

  it('a running task whose lease lapsed fails, saying its instance stopped; an ended one keeps its end', async () => {
    const input = newTask({ leaseMs: 20 });
    const lapsing = await store.create(input);
    const held = await store.create(newTask({ ...input, leaseMs: 60_000 }));
    const ended = await store.create(newTask({ ...input, leaseMs: 20 }));
    await store.finish(ended.id, { status: 'completed', resultJson: '{"content":[],"isError":false}' });
    await sleep(50);
    const failed = await store.failLapsed();
    expect(failed).toContain(lapsing.id);
    expect(failed).not.toContain(held.id);
    expect(failed).not.toContain(ended.id);
    expect(await store.get(lapsing.id, input)).toMatchObject({
      status: 'failed',
      statusMessage: INSTANCE_STOPPED,
      error: { code: -32603, message: INSTANCE_STOPPED },
      leaseExpiresAt: null,
    });
    expect((await store.get(held.id, input))?.status).toBe('working');
    expect((await store.get(ended.id, input))?.status).toBe('completed');
  });

  it('an expired task no longer exists, and purge deletes it once it is over; a running one stays', async () => {
    const input = newTask({ ttlMs: 30 });
    const ended = await store.create(input);
    await store.finish(ended.id, { status: 'completed', resultJson: '{"content":[],"isError":false}' });
    const running = await store.create(newTask({ ...input, ttlMs: 30 }));
    await sleep(60);
    expect(await store.get(ended.id, input)).toBeNull();
    // A task still running is never expired: its owner still reads and lists it.
    expect(await store.get(running.id, input)).toEqual(running);
    expect((await store.list(input, 10)).tasks).toEqual([running]);
    expect(await store.purge()).toBeGreaterThanOrEqual(1);
    expect(await store.get(running.id, input)).toEqual(running);
    // Nor purged: its instance still holds it, and ends it.
    expect(await store.finish(running.id, { status: 'cancelled' })).toBe(true);
  });

  it("expire ends the instance's running tasks whose retention passed, and tells when the others expire", async () => {
    const input = newTask({ ttlMs: 30 });
    const due = await store.create(input);
    const later = await store.create(newTask({ ...input, ttlMs: 60_000 }));
    const elsewhere = await store.create(newTask({ ...input, ownerInstance: 'instance-b' }));
    const over = await store.create(newTask({ ...input, ttlMs: 60_000 }));
    await store.finish(over.id, { status: 'completed', resultJson: '{"content":[],"isError":false}' });
    await sleep(60);
    const now = Date.now();
    const check = await store.expire('instance-a', [due.id, later.id, elsewhere.id, over.id], now);
    expect(check).toEqual({
      ended: [due.id],
      over: [over.id],
      running: [
        { id: later.id, expiresAt: later.expiresAt },
        { id: elsewhere.id, expiresAt: elsewhere.expiresAt },
      ],
    });
    expect(await store.get(due.id, input)).toEqual({
      ...due,
      status: 'failed',
      statusMessage: TTL_PASSED,
      error: { code: -32603, message: TTL_PASSED },
      updatedAt: now,
      // The end is kept for the task's ttl, as any end is.
      expiresAt: now + 30,
      leaseExpiresAt: null,
    });
    expect(await store.expire('instance-a', [], now)).toEqual({ ended: [], over: [], running: [] });
    // Asked again, it is still told as ended by its retention; an unknown id is over.
    expect(await store.expire('instance-a', [due.id, 'unknown'], Date.now())).toEqual({
      ended: [due.id],
      over: ['unknown'],
      running: [],
    });
  });

  it("countActive counts the owner's running tasks on every instance, and nobody else's", async () => {
    const input = newTask();
    await store.create(input);
    await store.create(newTask({ ...input, ownerInstance: 'instance-b' }));
    const over = await store.create(newTask({ ...input }));
    await store.finish(over.id, { status: 'cancelled' });
    await store.create(newTask({ serverId: input.serverId }));
    expect(await store.countActive(input)).toBe(2);
    expect(await store.countActive(owner())).toBe(0);
  });
});

describeEach(databases)('the tasks migration on $name', (database) => {
  const fresh = databaseFor(database);

  it('creates the tasks table, and its down drops it', async () => {
    await migrate(fresh.knex, { tablePrefix: 'tk_' });
    expect(await fresh.knex.schema.hasTable('tk_mcp_tasks')).toBe(true);
    expect(await rollback(fresh.knex, { tablePrefix: 'tk_', all: true })).toContain('0009_create_tasks');
    expect(await fresh.knex.schema.hasTable('tk_mcp_tasks')).toBe(false);
  });
});
