/**
 * A task whose run asks a person, in the 2025 era (MCP 2025-11-25 "Tasks", input required): the
 * official v1 client's experimental tasks API with its elicitation handler, against the Knex store
 * on a real SQLite file. The task becomes `input_required` with the question as its status message,
 * `tasks/result` carries the `elicitation/create` request tied to the task, and the client's
 * answer (POSTed, 202) resumes the run.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  type ElicitRequest,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEvent } from '../../src/index.js';
import type { Host } from '../helpers/hosts.js';
import { connectV1, ofTask, RELATED_TASK, startTaskHost, type TaskWorld } from '../helpers/tasks.js';
import { failure, success } from '../helpers/tool-call.js';

describe('a task that asks a person, 2025 era, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;
  const events: McpEvent[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const metrics = { onEvent: (event: McpEvent) => void events.push(event) };
    // A task's run has no call timeout, before its question or after it.
    ({ world, host, close } = await startTaskHost(() => ({ metrics, callTimeoutMs: 200 })));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await close?.();
  });

  const connect = async (
    ask?: (request: ElicitRequest) => { action: 'accept'; content: Record<string, string> },
  ) => {
    const client = await connectV1(`${host.url}${host.path(world.codes.asking)}`, ask);
    clients.push(client);
    return client;
  };

  it('input_required with the question, the elicitation on tasks/result’s stream, the answer resumes the run, notifications/tasks/status tells it', async () => {
    const asked: ElicitRequest['params'][] = [];
    const client = await connect((request) => {
      asked.push(request.params);
      return { action: 'accept', content: { month: 'June' } };
    });
    const notified: unknown[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      notified.push(notification.params);
    });
    const stream = client.experimental.tasks.callToolStream(
      { name: 'Asking_Report', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const messages: unknown[] = [];
    const collected = (async () => {
      for await (const message of stream) messages.push(message);
    })();
    const answered = await world.nextAnswer();
    expect(answered.answer).toEqual({ action: 'accept', values: { month: 'June' } });
    expect(world.canAsk.at(-1)).toBe(true);
    const taskId = (messages[0] as { task: { taskId: string } }).task.taskId;
    expect(messages).toContainEqual({
      type: 'taskStatus',
      task: expect.objectContaining({ taskId, status: 'input_required', statusMessage: 'Which month?' }),
    });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Which month?',
        requestedSchema: {
          type: 'object',
          properties: { month: { type: 'string', title: 'Month', enum: ['May', 'June'] } },
          required: ['month'],
        },
        _meta: { [RELATED_TASK]: { taskId } },
      },
    ]);
    // Answered: the task works again, the question gone from its status.
    const working = {
      taskId,
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttl: 60_000,
      pollInterval: 1000,
    };
    await expect.poll(async () => await client.experimental.tasks.getTask(taskId)).toEqual(working);
    // tasks/result, waiting on its stream, tells the change of status; the end is its result.
    await expect.poll(() => notified).toEqual([working]);
    // Longer than callTimeoutMs after the answer: the run is not stopped.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(answered.run.signal.aborted).toBe(false);
    answered.finish();
    await collected;
    expect(notified).toHaveLength(1);
    expect(messages.at(-1)).toEqual({
      type: 'result',
      result: ofTask(taskId, success('{"text":"report for June"}', { text: 'report for June' })),
    });
    const statuses = events.filter((event) => event.type === 'task.status' && event.taskId === taskId);
    expect(statuses.map((event) => (event.type === 'task.status' ? [event.from, event.to] : []))).toEqual([
      [null, 'working'],
      ['working', 'input_required'],
      ['input_required', 'working'],
      ['working', 'completed'],
    ]);
  });

  it('a client that did not declare elicitation cannot be asked: canAsk is false, and the task fails with why', async () => {
    const client = await connect();
    const messages: unknown[] = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'Asking_Report', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    ))
      messages.push(message);
    expect(world.canAsk.at(-1)).toBe(false);
    const taskId = (messages[0] as { task: { taskId: string } }).task.taskId;
    expect(messages.at(-1)).toMatchObject({ type: 'error' });
    const text =
      "the app needs a person's answer, and this client cannot ask one (it did not declare the elicitation capability)";
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({
      status: 'failed',
      statusMessage: text,
    });
    expect(await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).toEqual(
      ofTask(taskId, failure(text)),
    );
  });
});
