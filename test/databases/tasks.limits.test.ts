/**
 * How many running tasks one caller may hold on one server (`maxActiveTasks`, docs/tasks.md,
 * "Limits"): past it a new task is refused at once with a JSON-RPC error that names the limit;
 * another caller still creates tasks, and the running ones are untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';
import { startTaskHost, type TaskWorld } from '../helpers/tasks.js';

const V = { 'mcp-protocol-version': '2025-11-25' };
const LIMIT = 2;
const TOO_MANY = `Too many active tasks: this caller already has ${LIMIT} running on this server (the maxActiveTasks limit); wait for one to end, or cancel one`;
const WITH_TASKS = { [CLIENT_CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

describe('maxActiveTasks, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost(async (made) => {
      await made.store.updateServer(made.serverIds.gated, { authMode: 'oauth' });
      return {
        maxActiveTasks: LIMIT,
        // Each bearer token is its own user: enough to tell callers apart.
        auth: {
          verifyToken: (token) => ({ subject: token, scopes: [] }),
          authorizationServers: ['https://auth.example.com'],
        },
      };
    }));
  });
  afterAll(async () => {
    await close?.();
  });

  const legacy = (id: number, method: string, params: Record<string, unknown>, user: string) =>
    host.post(world.codes.gated, request(id, method, params), { ...V, authorization: `Bearer ${user}` });
  const createTask = (id: number, user: string) =>
    legacy(id, 'tools/call', { name: 'Gated_Report', arguments: {}, task: { ttl: 60_000 } }, user);
  const working = (id: number) =>
    rpcResult(id, {
      task: {
        taskId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        status: 'working',
        createdAt: ISO,
        lastUpdatedAt: ISO,
        ttl: 60_000,
        pollInterval: 1000,
      },
    });
  const taskIdOf = (reply: { json: unknown }) =>
    (reply.json as { result: { task: { taskId: string } } }).result.task.taskId;

  it('the limit-th + 1 task of a caller is refused at once, naming the limit; another caller is not', async () => {
    const held: string[] = [];
    for (const id of [1, 2]) {
      const reply = await createTask(id, 'alice');
      expectRpcReply(reply, 200, working(id));
      held.push(taskIdOf(reply));
    }
    // Both runs have begun.
    await world.nextGatedRun();
    await world.nextGatedRun();
    const runsBefore = world.runs.length;
    expectRpcReply(await createTask(3, 'alice'), 200, rpcError(3, -32000, TOO_MANY));
    // Refused before its run: no app started for it (one would have begun by the next reply).
    const bob = await createTask(4, 'bob');
    expectRpcReply(bob, 200, working(4));
    await world.nextGatedRun();
    expect(world.runs.length).toBe(runsBefore + 1);

    // Alice's tasks run on, untouched.
    for (const taskId of held) {
      const got = await legacy(5, 'tasks/get', { taskId }, 'alice');
      expect(got.json).toMatchObject({ result: { taskId, status: 'working' } });
    }
    // One of them ends: she may create one again.
    expect((await legacy(6, 'tasks/cancel', { taskId: held[0] }, 'alice')).json).toMatchObject({
      result: { taskId: held[0], status: 'cancelled' },
    });
    const again = await createTask(7, 'alice');
    expectRpcReply(again, 200, working(7));
    for (const taskId of [held[1]!, taskIdOf(again), taskIdOf(bob)]) {
      const user = taskId === taskIdOf(bob) ? 'bob' : 'alice';
      await legacy(8, 'tasks/cancel', { taskId }, user);
    }
  });

  it('in the 2026-07-28 era too: the task the server would make past the limit is the same error', async () => {
    const modern = (id: number, user: string) =>
      host.post(
        world.codes.gated,
        request(id, 'tools/call', { name: 'Gated_Report', arguments: {}, _meta: envelope(WITH_TASKS) }),
        { ...standardHeaders('tools/call', 'Gated_Report'), authorization: `Bearer ${user}` },
      );
    const made: string[] = [];
    for (const id of [11, 12]) {
      const reply = await modern(id, 'carol');
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({
        id,
        result: { resultType: 'task', status: 'working', _meta: SERVER_INFO },
      });
      made.push((reply.json as { result: { taskId: string } }).result.taskId);
    }
    const aborted = world.aborted;
    expectRpcReply(await modern(13, 'carol'), 200, rpcError(13, -32000, TOO_MANY));
    // The run the refused call had started (its grace window) is stopped.
    await expect.poll(() => world.aborted).toBe(aborted + 1);
    for (const taskId of made) {
      const got = await legacy(14, 'tasks/get', { taskId }, 'carol');
      expect(got.json).toMatchObject({ result: { taskId, status: 'working' } });
      await legacy(15, 'tasks/cancel', { taskId }, 'carol');
    }
  });
});
