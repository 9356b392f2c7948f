/**
 * A task whose run asks a person, in the 2026-07-28 era (the tasks extension, SEP-2663), in raw
 * HTTP: what the run asks within the grace window is an `input_required` result before any task
 * (MCP 2026-07-28 multi round-trip requests); the retry that answers it becomes a task; what the
 * run asks then is the task's `inputRequests` (`tasks/get`), and `tasks/update` answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, SERVER_INFO, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcResult } from '../helpers/rpc.js';
import { startTaskHost, type TaskWorld } from '../helpers/tasks.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ASKS = { [CLIENT_CAPABILITIES]: { elicitation: {}, extensions: { [TASKS]: {} } } };
/** What every state of a task says of its times, whatever its status. */
const TIMES = {
  createdAt: expect.stringMatching(ISO),
  lastUpdatedAt: expect.stringMatching(ISO),
  ttlMs: 3_600_000,
  pollIntervalMs: 1000,
};
const MONTH_SCHEMA = {
  type: 'object',
  properties: { month: { type: 'string', title: 'Month', enum: ['May', 'June'] } },
  required: ['month'],
};

describe('a task that asks a person, 2026-07-28, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost());
  });
  afterAll(() => close?.());

  const send = (id: number, method: string, params: Record<string, unknown>, meta: object = ASKS) => {
    const name = method === 'tools/call' ? (params.name as string) : (params.taskId as string);
    return host.post(
      world.codes.asking,
      request(id, method, { _meta: envelope(meta as Record<string, unknown>), ...params }),
      standardHeaders(method, name),
    );
  };
  const resultOf = (reply: { json: unknown }) => (reply.json as { result: Record<string, unknown> }).result;
  const get = async (taskId: string) => resultOf(await send(9, 'tasks/get', { taskId }));

  it('asks before the task, then as the task: input_required with inputRequests, tasks/update resumes the run', async () => {
    const first = await send(1, 'tools/call', { name: 'Asking_Report', arguments: {} });
    const { requestState } = resultOf(first);
    expectRpcReply(
      first,
      200,
      rpcResult(1, {
        resultType: 'input_required',
        inputRequests: {
          'question-1': {
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Which month?', requestedSchema: MONTH_SCHEMA },
          },
        },
        requestState: expect.any(String),
        _meta: SERVER_INFO,
      }),
    );
    const retry = await send(2, 'tools/call', {
      name: 'Asking_Report',
      arguments: {},
      inputResponses: { 'question-1': { action: 'accept', content: { month: 'May' } } },
      requestState,
    });
    // The run goes on past the grace window: the retry's reply is the task.
    const answered = await world.nextAnswer();
    expect(answered.answer).toEqual({ action: 'accept', values: { month: 'May' } });
    const created = resultOf(retry);
    const taskId = created.taskId as string;
    expect(created).toEqual({
      resultType: 'task',
      taskId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      status: 'working',
      ...TIMES,
      _meta: SERVER_INFO,
    });

    // A task's run asks: the task waits on it, and says what it asks.
    const asked = answered.run.ask({
      key: 'send',
      message: 'Send it to Ana?',
      fields: [{ checkbox: { variable: 'send', label: 'Send', required: true } }],
    });
    await expect.poll(async () => (await get(taskId)).status).toBe('input_required');
    expect(await get(taskId)).toEqual({
      resultType: 'complete',
      taskId,
      status: 'input_required',
      statusMessage: 'Send it to Ana?',
      ...TIMES,
      inputRequests: {
        send: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Send it to Ana?',
            requestedSchema: {
              type: 'object',
              properties: { send: { type: 'boolean', title: 'Send' } },
              required: ['send'],
            },
          },
        },
      },
      _meta: SERVER_INFO,
    });

    // An answer for a key the task does not wait on is ignored; the ack comes once the answer is taken.
    const update = await send(3, 'tasks/update', {
      taskId,
      inputResponses: { send: { action: 'accept', content: { send: true } }, other: { ignored: true } },
    });
    expectRpcReply(update, 200, rpcResult(3, { resultType: 'complete', _meta: SERVER_INFO }));
    expect(await get(taskId)).toEqual({
      resultType: 'complete',
      taskId,
      status: 'working',
      ...TIMES,
      _meta: SERVER_INFO,
    });
    expect(await asked).toEqual({ action: 'accept', values: { send: true } });
    answered.finish();
    await expect.poll(async () => (await get(taskId)).status).toBe('completed');
    expect((await get(taskId)).result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: '{"text":"report for May"}' }],
      structuredContent: { text: 'report for May' },
      isError: false,
    });
  });

  it('a client that declared the extension but not elicitation cannot be asked: canAsk is false, the call says why', async () => {
    const reply = await send(
      1,
      'tools/call',
      { name: 'Asking_Report', arguments: {} },
      {
        [CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} } },
      },
    );
    expect(world.canAsk.at(-1)).toBe(false);
    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        resultType: 'complete',
        content: [
          {
            type: 'text',
            text: "the app needs a person's answer, and this client cannot ask one (it did not declare the elicitation capability)",
          },
        ],
        isError: true,
        _meta: SERVER_INFO,
      }),
    );
  });
});
