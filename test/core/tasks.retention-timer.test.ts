/**
 * The timer that ends the tasks an instance runs once their ttl passes (docs/tasks.md, "How long
 * a task is kept"), against the memory task store: it ends what is due, follows a change that moved
 * a task's end, leaves a released task alone, and tries again when the store fails.
 */
import { describe, expect, it } from 'vitest';
import { TaskRetention } from '../../src/protocol/tasks/retention.js';
import { memoryTaskStore } from '../../src/store/tasks/memory-store.js';
import { type TaskStore, TTL_PASSED } from '../../src/store/tasks/types.js';

const owner = { serverId: 'server-1', caller: 'caller-1' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retentionOn(store: TaskStore) {
  const ended: string[] = [];
  const reports: unknown[] = [];
  const retention = new TaskRetention({
    store,
    instance: 'instance-a',
    onEnded: (ids) => ended.push(...ids),
    report: (error) => reports.push(error),
  });
  const make = (ttlMs: number) =>
    store.create({ ...owner, ttlMs, pollIntervalMs: 1000, ownerInstance: 'instance-a', leaseMs: 60_000 });
  return { retention, ended, reports, make };
}

describe('the retention of the tasks an instance runs', () => {
  it('ends a due task, after a change that moved its end, and never a released one', async () => {
    const store = memoryTaskStore();
    const { retention, ended, make } = retentionOn(store);
    const moved = await make(150);
    const released = await make(50);
    retention.hold(moved.id, moved.expiresAt);
    retention.hold(released.id, released.expiresAt);
    retention.release(released.id);
    await sleep(100);
    // A change moves its end 150 ms on from now.
    expect(await store.progress(moved.id, { statusMessage: 'still going' })).toBe(true);
    await sleep(100);
    expect(ended).toEqual([]);
    expect((await store.get(released.id, owner))?.status).toBe('working');
    await expect.poll(() => ended).toEqual([moved.id]);
    expect(await store.get(moved.id, owner)).toMatchObject({ status: 'failed', statusMessage: TTL_PASSED });
    retention.close();
  });

  it('a store that fails is reported, and asked again a second later', async () => {
    const inner = memoryTaskStore();
    let failures = 1;
    const store: TaskStore = {
      ...inner,
      expire: (...args) =>
        failures-- > 0 ? Promise.reject(new Error('database down')) : inner.expire(...args),
    };
    const { retention, ended, reports, make } = retentionOn(store);
    const task = await make(20);
    retention.hold(task.id, task.expiresAt);
    await expect.poll(() => reports).toEqual([new Error('database down')]);
    expect(ended).toEqual([]);
    await expect.poll(() => ended, { timeout: 3000 }).toEqual([task.id]);
    retention.close();
  });
});
