/**
 * Tasks in the 2025 era (MCP 2025-11-25, experimental): the official v1 client's tasks API
 * (`client.experimental.tasks`) against the Knex store on a real SQLite file, and raw HTTP where the
 * timing or the exact reply matters.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, McpError as SdkError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult, SERVER_CAPABILITIES } from '../helpers/rpc.js';
import { connectV1, ofTask, startTaskHost, type TaskWorld } from '../helpers/tasks.js';
import { failure, success } from '../helpers/tool-call.js';

const V = { 'mcp-protocol-version': '2025-11-25' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('tasks in the 2025 era, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost(() => ({ maxTaskResultBytes: 1000 })));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await close?.();
  });
  afterEach(() => {
    world.support.clear();
  });

  const connect = async (code: string) => {
    const client = await connectV1(`${host.url}${host.path(code)}`);
    clients.push(client);
    return client;
  };
  const toolOf = async (client: Client) => (await client.listTools()).tools[0]!;
  /** A client of `code`'s server, and the stream of a call of its tool as a task. */
  const streamTask = async (code: string) => {
    const client = await connect(code);
    const tool = await toolOf(client);
    const stream = client.experimental.tasks.callToolStream(
      { name: tool.name, arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    return { client, stream };
  };

  it('initialize declares tasks for tools/call, and the tool says it may run as one', async () => {
    const client = await connect(world.codes.quick);
    expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
    expect((await toolOf(client)).execution).toEqual({ taskSupport: 'optional' });
  });

  it('callToolStream: the task is created at once, its progress is its status message, and its result comes when the run ends', async () => {
    const { client, stream } = await streamTask(world.codes.gated);
    const first = await stream.next();
    expect(first.value).toEqual({
      type: 'taskCreated',
      task: {
        taskId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        status: 'working',
        createdAt: expect.stringMatching(ISO),
        lastUpdatedAt: expect.stringMatching(ISO),
        ttl: 60_000,
        pollInterval: 1000,
      },
    });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    const gated = await world.nextGatedRun();
    gated.progress('drafting the summary');
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(taskId)).statusMessage)
      .toBe('drafting the summary');
    expect((await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toContain(taskId);
    gated.finish('the report');
    const rest = [];
    for await (const message of stream) rest.push(message);
    const last = rest.at(-1);
    expect(last).toEqual({
      type: 'result',
      result: ofTask(taskId, success('{"text":"the report"}', { text: 'the report' })),
    });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    expect(await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).toEqual(
      (last as { result: unknown }).result,
    );
  });

  it('cancelTask stops the run, the task stays cancelled, and cancelling it again is -32602', async () => {
    const { client, stream } = await streamTask(world.codes.gated);
    const created = (await stream.next()).value as { task: { taskId: string } };
    const gated = await world.nextGatedRun();
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    await expect.poll(() => gated.run.signal.aborted).toBe(true);
    gated.finish('too late');
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({
      status: 'cancelled',
    });
    await expect(client.experimental.tasks.cancelTask(created.task.taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Cannot cancel task: it is already cancelled'),
    });
    await stream.return(undefined);
  });

  it('a run that returns an error result fails its task, and tasks/result still gives that result', async () => {
    const { client, stream } = await streamTask(world.codes.refusing);
    const messages = [];
    for await (const message of stream) messages.push(message);
    expect(messages[0]).toMatchObject({ type: 'taskCreated' });
    expect(messages.at(-1)).toMatchObject({ type: 'error' });
    const taskId = (messages[0] as { task: { taskId: string } }).task.taskId;
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'the report has no data for this month',
    });
    expect(await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).toEqual(
      ofTask(taskId, failure('the report has no data for this month')),
    );
  });

  it('a result larger than maxTaskResultBytes fails the task with a message that says so', async () => {
    const { client, stream } = await streamTask(world.codes.big);
    const created = (await stream.next()).value as { task: { taskId: string } };
    for await (const _ of stream);
    const message = expect.stringMatching(
      /^the result of \d+ bytes is larger than the 1000 bytes a task may keep$/,
    );
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: message,
    });
    const error = await client.experimental.tasks
      .getTaskResult(created.task.taskId, CallToolResultSchema)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({ code: -32603, message: expect.stringContaining('bytes a task may keep') });
  });

  it('answers CreateTaskResult while the run is still going, and the request id’s cancellation does not stop it', async () => {
    const reply = await host.post(
      world.codes.gated,
      request(7, 'tools/call', { name: 'Gated_Report', arguments: {}, task: { ttl: 5000 } }),
      V,
    );
    const gated = await world.nextGatedRun();
    // The reply is out and the run has neither ended nor been stopped.
    expect(gated.run.signal.aborted).toBe(false);
    const task = (reply.json as { result: { task: { taskId: string; createdAt: string } } }).result.task;
    expectRpcReply(
      reply,
      200,
      rpcResult(7, {
        task: {
          taskId: task.taskId,
          status: 'working',
          createdAt: task.createdAt,
          lastUpdatedAt: task.createdAt,
          ttl: 5000,
          pollInterval: 1000,
        },
      }),
    );
    await host.post(
      world.codes.gated,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
      V,
    );
    const got = await host.post(world.codes.gated, request(8, 'tasks/get', { taskId: task.taskId }), V);
    expect((got.json as { result: { status: string } }).result.status).toBe('working');
    expect(gated.run.signal.aborted).toBe(false);
    gated.finish('done');
    const result = await host.post(world.codes.gated, request(9, 'tasks/result', { taskId: task.taskId }), V);
    expectRpcReply(
      result,
      200,
      rpcResult(9, ofTask(task.taskId, success('{"text":"done"}', { text: 'done' }))),
    );
  });

  it('a forbidden tool refuses task, a required one refuses a plain call, and older revisions cannot call it', async () => {
    world.support.set(world.codes.quick, 'forbidden');
    const withTask = await host.post(
      world.codes.quick,
      request(1, 'tools/call', { name: 'Quick_Report', arguments: {}, task: {} }),
      V,
    );
    expectRpcReply(
      withTask,
      200,
      rpcError(1, -32601, 'Method not found: this tool does not run as a task; call it without "task"'),
    );
    world.support.set(world.codes.quick, 'required');
    const refused = rpcError(
      2,
      -32601,
      'Method not found: Quick_Report runs only as a task; call it with "task" (MCP 2025-11-25 tasks)',
    );
    const plain = request(2, 'tools/call', { name: 'Quick_Report', arguments: {} });
    expectRpcReply(await host.post(world.codes.quick, plain, V), 200, refused);
    expectRpcReply(
      await host.post(world.codes.quick, plain, { 'mcp-protocol-version': '2025-06-18' }),
      200,
      refused,
    );
    const listed = await host.post(world.codes.quick, request(3, 'tools/list'), {
      'mcp-protocol-version': '2025-06-18',
    });
    expect(
      (listed.json as { result: { tools: { description: string }[] } }).result.tools[0]?.description,
    ).toBe(
      'Quick Report for tasks\n\nThis tool runs only as a task (MCP tasks, protocol 2025-11-25 or later); this client cannot call it.',
    );
  });

  it('tasks/get, tasks/result and tasks/cancel of an unknown task are -32602; before 2025-11-25 tasks/* do not exist', async () => {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expectRpcReply(
        await host.post(world.codes.quick, request(1, method, { taskId: 'no-such-task' }), V),
        200,
        rpcError(1, -32602, 'Failed to retrieve task: Task not found'),
      );
    }
    expectRpcReply(
      await host.post(world.codes.quick, request(2, 'tasks/list', { cursor: 'not-ours' }), V),
      200,
      rpcError(2, -32602, 'Invalid params: the cursor is not valid'),
    );
    expectRpcReply(
      await host.post(world.codes.quick, request(3, 'tasks/get', { taskId: 'x' }), {
        'mcp-protocol-version': '2025-06-18',
      }),
      200,
      rpcError(3, -32601, 'Method not found: tasks/get'),
    );
  });
});
