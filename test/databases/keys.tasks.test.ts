/**
 * Tasks on a `"key"` server belong to the key that made them (docs/keys.md, docs/tasks.md): another
 * key of the same server sees none of them, in either era, as tasks of one OAuth user are hidden
 * from another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';
import { startTaskHost, type TaskWorld } from '../helpers/tasks.js';

const V = { 'mcp-protocol-version': '2025-11-25' };
const NOT_FOUND = (id: number) => rpcError(id, -32602, 'Failed to retrieve task: Task not found');
const WITH_TASKS = { [CLIENT_CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

describe('whose task it is on a "key" server, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost(async (made) => {
      await made.store.updateServer(made.serverIds.quick, { authMode: 'key' });
      for (const name of ['alice', 'bob', 'carol', 'dave']) {
        secrets[name] = (await made.store.keys!.create(made.serverIds.quick, { name })).secret;
      }
      return {};
    }));
  });
  afterAll(async () => {
    await close?.();
  });

  const legacy = (id: number, method: string, params: Record<string, unknown>, key: string) =>
    host.post(world.codes.quick, request(id, method, params), {
      ...V,
      authorization: `Bearer ${secrets[key]}`,
    });
  const modern = (id: number, method: string, params: Record<string, unknown>, key: string) =>
    host.post(world.codes.quick, request(id, method, { _meta: envelope(WITH_TASKS), ...params }), {
      ...standardHeaders(method, (params.name ?? params.taskId) as string),
      authorization: `Bearer ${secrets[key]}`,
    });
  const listOf = async (reply: Promise<{ json: unknown }>) =>
    ((await reply).json as { result: { tasks: { taskId: string }[] } }).result.tasks.map(
      (task) => task.taskId,
    );

  it('a task of one key does not exist for another key of the same server (2025-11-25)', async () => {
    const call = { name: 'Quick_Report', arguments: {}, task: {} };
    const made = await legacy(1, 'tools/call', call, 'alice');
    const taskId = (made.json as { result: { task: { taskId: string } } }).result.task.taskId;
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expectRpcReply(await legacy(9, method, { taskId }, 'bob'), 200, NOT_FOUND(9));
    }
    expect(await listOf(legacy(10, 'tasks/list', {}, 'bob'))).toEqual([]);
    expect(await listOf(legacy(2, 'tasks/list', {}, 'alice'))).toEqual([taskId]);
    const result = await legacy(3, 'tasks/result', { taskId }, 'alice');
    expect((result.json as { result?: unknown }).result).toBeDefined();
    expect((await legacy(4, 'tasks/get', { taskId }, 'alice')).json).toMatchObject({
      result: { taskId, status: 'completed' },
    });
    // Each key's runs are its own end user's, named by the key.
    expect(world.runs.at(-1)?.caller).toMatchObject({ kind: 'key', name: 'alice' });
    expect(world.runs.at(-1)?.endUser.name).toBe('alice');
  });

  it('a task of one key does not exist for another key of the same server (2026-07-28)', async () => {
    world.support.set(world.codes.quick, 'required');
    try {
      const created = await modern(1, 'tools/call', { name: 'Quick_Report', arguments: {} }, 'carol');
      const taskId = (created.json as { result: { taskId: string } }).result.taskId;
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        expectRpcReply(await modern(2, method, { taskId, inputResponses: {} }, 'dave'), 200, NOT_FOUND(2));
      }
      await expect
        .poll(
          async () =>
            ((await modern(3, 'tasks/get', { taskId }, 'carol')).json as { result: { status: string } })
              .result.status,
        )
        .toBe('completed');
    } finally {
      world.support.clear();
    }
  });
});
