import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';
import { startTaskHost, type TaskWorld } from '../helpers/tasks.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WITH_TASKS = { [CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} } } };
const MISSING = (id: number, what: string) =>
  rpcError(id, -32021, `Missing required client capability: ${what} needs the ${TASKS} extension`, {
    requiredCapabilities: { extensions: { [TASKS]: {} } },
  });

describe('tasks in the 2026-07-28 era, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost());
  });
  afterAll(async () => {
    await close?.();
  });
  afterEach(() => {
    world.support.clear();
  });

  /** A 2026-07-28 request with its headers; `tasks` declares the extension in `_meta`. */
  const send = (code: string, id: number, method: string, params: Record<string, unknown>, tasks = true) => {
    const name = method === 'tools/call' ? (params.name as string) : (params.taskId as string | undefined);
    return host.post(
      code,
      request(id, method, { _meta: envelope(tasks ? WITH_TASKS : {}), ...params }),
      standardHeaders(method, name),
    );
  };
  const call = (code: string, id: number, name: string, tasks = true) =>
    send(code, id, 'tools/call', { name, arguments: {} }, tasks);
  const resultOf = (reply: { json: unknown }) => (reply.json as { result: Record<string, unknown> }).result;
  /** Calls the gated report as a task and waits for its run. */
  const startGated = async (id: number) => {
    const reply = await call(world.codes.gated, id, 'Gated_Report');
    const gated = await world.nextGatedRun();
    return { reply, gated, taskId: resultOf(reply).taskId as string };
  };

  it('server/discover declares the extension, and no 2025 tasks capability', async () => {
    const reply = await send(world.codes.quick, 1, 'server/discover', {});
    expect(resultOf(reply).capabilities).toEqual({ tools: {}, extensions: { [TASKS]: {} } });
  });

  it('a run still going after the grace window becomes a task: a flat CreateTaskResult, answered while it runs', async () => {
    const { reply, gated, taskId } = await startGated(1);
    expect(gated.run.signal.aborted).toBe(false);
    const created = resultOf(reply);
    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        resultType: 'task',
        taskId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        status: 'working',
        createdAt: expect.stringMatching(ISO),
        lastUpdatedAt: created.createdAt,
        ttlMs: 3_600_000,
        pollIntervalMs: 1000,
        _meta: SERVER_INFO,
      }),
    );
    // The response is over, its connection closed: a task is not cancelled by that (SEP-2663).
    await host.allConnectionsClosed();
    expect(gated.run.signal.aborted).toBe(false);
    gated.progress('counting the rows');
    await expect
      .poll(async () => resultOf(await send(world.codes.gated, 2, 'tasks/get', { taskId })).statusMessage)
      .toBe('counting the rows');
    gated.finish('the report');
    await expect
      .poll(async () => resultOf(await send(world.codes.gated, 3, 'tasks/get', { taskId })).status)
      .toBe('completed');
    expectRpcReply(
      await send(world.codes.gated, 4, 'tasks/get', { taskId }),
      200,
      rpcResult(4, {
        resultType: 'complete',
        taskId,
        // The progress message is over with the run.
        status: 'completed',
        createdAt: created.createdAt,
        lastUpdatedAt: expect.stringMatching(ISO),
        ttlMs: 3_600_000,
        pollIntervalMs: 1000,
        // Inlined, without the related-task metadata.
        result: {
          resultType: 'complete',
          content: [{ type: 'text', text: '{"text":"the report"}' }],
          structuredContent: { text: 'the report' },
          isError: false,
        },
        _meta: SERVER_INFO,
      }),
    );
  });

  it('a run that ends within the grace window answers as a plain call; so does a client without the extension', async () => {
    const plain = {
      resultType: 'complete',
      content: [{ type: 'text', text: '{"text":"quick report"}' }],
      structuredContent: { text: 'quick report' },
      isError: false,
      _meta: SERVER_INFO,
    };
    expectRpcReply(await call(world.codes.quick, 1, 'Quick_Report'), 200, rpcResult(1, plain));
    expectRpcReply(await call(world.codes.quick, 2, 'Quick_Report', false), 200, rpcResult(2, plain));
    // The 2025 `task` param is not part of this era: ignored.
    const withParam = await send(
      world.codes.quick,
      3,
      'tools/call',
      { name: 'Quick_Report', arguments: {}, task: { ttl: 1 } },
      false,
    );
    expectRpcReply(withParam, 200, rpcResult(3, plain));
  });

  it('a required tool is always a task, and refuses a client without the extension with -32021', async () => {
    world.support.set(world.codes.quick, 'required');
    const tasked = await call(world.codes.quick, 1, 'Quick_Report');
    expect(resultOf(tasked)).toMatchObject({ resultType: 'task', status: 'working' });
    expectRpcReply(
      await call(world.codes.quick, 2, 'Quick_Report', false),
      400,
      MISSING(2, 'this tool runs only as a task, and'),
    );
    world.support.set(world.codes.gated, 'forbidden');
    const forbidden = call(world.codes.gated, 3, 'Gated_Report');
    const gated = await world.nextGatedRun();
    gated.finish('never a task');
    expect(resultOf(await forbidden)).toMatchObject({ resultType: 'complete', isError: false });
  });

  it('the task methods refuse a client without the extension, before looking the task up', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expectRpcReply(
        await send(world.codes.quick, 1, method, { taskId: 'gate-test', inputResponses: {} }, false),
        400,
        MISSING(1, method),
      );
    }
  });

  it('an app that crashes fails its task with a JSON-RPC error; an error result completes it', async () => {
    const crashed = resultOf(await call(world.codes.crashing, 1, 'Crashing_Report'));
    const refused = resultOf(await call(world.codes.refusing, 2, 'Refusing_Report'));
    // Both end within the grace window: plain calls, as their clients would get without tasks.
    expect(crashed).toMatchObject({ resultType: 'complete', isError: true });
    expect(refused).toMatchObject({ resultType: 'complete', isError: true });
    world.support.set(world.codes.crashing, 'required');
    world.support.set(world.codes.refusing, 'required');
    const crashTask = resultOf(await call(world.codes.crashing, 3, 'Crashing_Report')).taskId as string;
    const refuseTask = resultOf(await call(world.codes.refusing, 4, 'Refusing_Report')).taskId as string;
    const get = (code: string, taskId: string) => send(code, 5, 'tasks/get', { taskId });
    await expect.poll(async () => resultOf(await get(world.codes.crashing, crashTask)).status).toBe('failed');
    const failed = resultOf(await get(world.codes.crashing, crashTask));
    expect(failed).toMatchObject({
      status: 'failed',
      statusMessage: 'the app failed to run',
      error: { code: -32603, message: 'the app failed to run' },
    });
    expect(failed).not.toHaveProperty('result');
    await expect
      .poll(async () => resultOf(await get(world.codes.refusing, refuseTask)).status)
      .toBe('completed');
    expect(resultOf(await get(world.codes.refusing, refuseTask)).result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'the report has no data for this month' }],
      isError: true,
    });
  });

  it('tasks/cancel answers an empty ack, stops the run, and acks again once the task is over', async () => {
    const { gated, taskId } = await startGated(1);
    const ack = rpcResult(2, { resultType: 'complete', _meta: SERVER_INFO });
    expectRpcReply(await send(world.codes.gated, 2, 'tasks/cancel', { taskId }), 200, ack);
    expect(resultOf(await send(world.codes.gated, 3, 'tasks/get', { taskId })).status).toBe('cancelled');
    await expect.poll(() => gated.run.signal.aborted).toBe(true);
    expectRpcReply(await send(world.codes.gated, 2, 'tasks/cancel', { taskId }), 200, ack);
  });

  it('tasks/update acks; an unknown task is -32602 for get, update and cancel', async () => {
    const { gated, taskId } = await startGated(1);
    expectRpcReply(
      await send(world.codes.gated, 2, 'tasks/update', {
        taskId,
        inputResponses: { 'unknown-key': { ignored: true } },
      }),
      200,
      rpcResult(2, { resultType: 'complete', _meta: SERVER_INFO }),
    );
    gated.finish('done');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expectRpcReply(
        await send(world.codes.gated, 3, method, {
          taskId: 'tasks-conformance-nonexistent-12345',
          inputResponses: {},
        }),
        200,
        rpcError(3, -32602, 'Failed to retrieve task: Task not found'),
      );
    }
  });

  it('Mcp-Name must name the task; tasks/result and tasks/list are not methods of this era', async () => {
    const reply = await host.post(
      world.codes.quick,
      request(1, 'tasks/get', { _meta: envelope(WITH_TASKS), taskId: 'task-a' }),
      standardHeaders('tasks/get', 'task-b'),
    );
    expectRpcReply(
      reply,
      400,
      rpcError(1, -32020, 'Header mismatch: Mcp-Name header task-b does not match the task id task-a', {
        header: 'Mcp-Name',
        received: 'task-b',
        expected: 'task-a',
      }),
    );
    for (const method of ['tasks/result', 'tasks/list']) {
      expectRpcReply(
        await send(world.codes.quick, 2, method, { taskId: 'x' }),
        404,
        rpcError(2, -32601, `Method not found: ${method}`),
      );
    }
  });
});
