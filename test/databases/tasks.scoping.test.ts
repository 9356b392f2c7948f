import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';
import { startTaskHost, type TaskWorld } from '../helpers/tasks.js';

const V = { 'mcp-protocol-version': '2025-11-25' };
const NOT_FOUND = (id: number) => rpcError(id, -32602, 'Failed to retrieve task: Task not found');
const WITH_TASKS = { [CLIENT_CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

describe('whose task it is, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost(async (made) => {
      await made.store.updateServer(made.serverIds.quick, { authMode: 'oauth' });
      return {
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

  const legacy = (code: string, id: number, method: string, params: Record<string, unknown>, user?: string) =>
    host.post(code, request(id, method, params), {
      ...V,
      ...(user ? { authorization: `Bearer ${user}` } : {}),
    });
  const modern = (code: string, id: number, method: string, params: Record<string, unknown>, user: string) =>
    host.post(code, request(id, method, { _meta: envelope(WITH_TASKS), ...params }), {
      ...standardHeaders(method, (params.name ?? params.taskId) as string),
      authorization: `Bearer ${user}`,
    });
  const taskIdOf = (reply: { json: unknown }) =>
    (reply.json as { result: { task: { taskId: string } } }).result.task.taskId;
  const listOf = async (reply: Promise<{ json: unknown }>) =>
    ((await reply).json as { result: { tasks: { taskId: string }[] } }).result.tasks.map(
      (task) => task.taskId,
    );

  /** Waits for the task's run to end (`tasks/result` answers once it has), so that its status is final. */
  const ended = async (code: string, taskId: string, user?: string) => {
    const reply = await legacy(code, 4, 'tasks/result', { taskId }, user);
    expect(reply.status).toBe(200);
    expect((reply.json as { result?: unknown }).result).toBeDefined();
  };

  /** get, result, cancel and list of `taskId` as `user` on `code`, as if the task did not exist. */
  const expectNotThere = async (code: string, taskId: string, user?: string) => {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expectRpcReply(await legacy(code, 9, method, { taskId }, user), 200, NOT_FOUND(9));
    }
    expect(await listOf(legacy(code, 10, 'tasks/list', {}, user))).not.toContain(taskId);
  };

  it('a task of one server does not exist on another', async () => {
    const call = request(1, 'tools/call', { name: 'Refusing_Report', arguments: {}, task: {} });
    const taskId = taskIdOf(await host.post(world.codes.refusing, call, V));
    await expectNotThere(world.codes.crashing, taskId);
    // Its own server still has it, as it was: the other server's answers changed nothing.
    expect(await listOf(legacy(world.codes.refusing, 2, 'tasks/list', {}))).toContain(taskId);
    await ended(world.codes.refusing, taskId);
    expect((await legacy(world.codes.refusing, 3, 'tasks/get', { taskId })).json).toMatchObject({
      result: { taskId, status: 'failed' },
    });
  });

  it('on an "oauth" server, a task of one user does not exist for another (2025-11-25)', async () => {
    const call = request(1, 'tools/call', { name: 'Quick_Report', arguments: {}, task: {} });
    const reply = await host.post(world.codes.quick, call, { ...V, authorization: 'Bearer alice' });
    const taskId = taskIdOf(reply);
    await expectNotThere(world.codes.quick, taskId, 'bob');
    expect(await listOf(legacy(world.codes.quick, 2, 'tasks/list', {}, 'alice'))).toEqual([taskId]);
    await ended(world.codes.quick, taskId, 'alice');
    expect((await legacy(world.codes.quick, 3, 'tasks/get', { taskId }, 'alice')).json).toMatchObject({
      result: { taskId, status: 'completed' },
    });
  });

  it('on an "oauth" server, a task of one user does not exist for another (2026-07-28)', async () => {
    world.support.set(world.codes.quick, 'required');
    try {
      const created = await modern(
        world.codes.quick,
        1,
        'tools/call',
        { name: 'Quick_Report', arguments: {} },
        'carol',
      );
      const taskId = (created.json as { result: { taskId: string } }).result.taskId;
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        expectRpcReply(
          await modern(world.codes.quick, 2, method, { taskId, inputResponses: {} }, 'dave'),
          200,
          NOT_FOUND(2),
        );
      }
      await expect
        .poll(
          async () =>
            (
              (await modern(world.codes.quick, 3, 'tasks/get', { taskId }, 'carol')).json as {
                result: { status: string };
              }
            ).result.status,
        )
        .toBe('completed');
    } finally {
      world.support.clear();
    }
  });
});
