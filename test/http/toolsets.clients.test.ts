/**
 * A toolset as the official clients see it (docs/toolsets.md): the v1 client at 2025-11-25 and
 * the v2 client pinned to 2026-07-28 list several tools behind one code, call them by name, answer
 * a question one of them asks, and run one as a task. The v2 client has no API for the 2026-07-28
 * tasks extension (it refuses `tasks/get` toward a 2026-07-28 peer before sending it), so that
 * task is driven in raw HTTP, as a client of the extension sends it.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, standardHeaders } from '../helpers/modern.js';
import { request } from '../helpers/rpc.js';
import {
  ASKING_APP,
  connectV1,
  GATED_APP,
  QUICK_APP,
  startTaskHost,
  TASK_TENANT,
  type TaskWorld,
} from '../helpers/tasks.js';

const TOOLS = ['Quick_Report', 'month_report', 'Gated_Report'];
const TASKS = 'io.modelcontextprotocol/tasks';

describe('a toolset through the official clients, on the Knex store on SQLite', () => {
  let world: TaskWorld;
  let host: Host;
  let close: () => Promise<void>;
  let code: string;
  let url: string;

  beforeAll(async () => {
    ({ world, host, close } = await startTaskHost());
    const toolset = await world.store.toolsets!.create({
      tenantId: TASK_TENANT,
      name: 'Report tools',
      description: 'Reports, one tool each',
      allPublished: false,
      members: [
        { appId: QUICK_APP.id, annotations: { readOnlyHint: true } },
        { appId: ASKING_APP.id, toolName: 'month_report', description: 'Asks for a month' },
        { appId: GATED_APP.id, taskSupport: 'optional' },
      ],
    });
    code = toolset.serverCode;
    url = `${host.url}${host.path(code)}`;
  });
  afterAll(() => close?.());

  /** The asking report, answered May, once its run has its answer. */
  const answerMay = async () => {
    const answered = await world.nextAnswer();
    expect(answered.answer).toEqual({ action: 'accept', values: { month: 'May' } });
    expect(answered.run.app.id).toBe(ASKING_APP.id);
    expect(answered.run.server).toMatchObject({ kind: 'toolset', name: 'Report tools', serverCode: code });
    answered.finish();
  };

  it('the v1 client lists the tools in member order, calls two, answers a question and runs one as a task', async () => {
    const client: Client = await connectV1(url, () => ({ action: 'accept', content: { month: 'May' } }));
    try {
      expect(client.getServerVersion()).toEqual({ name: 'Report tools', version: expect.any(String) });
      expect(client.getInstructions()).toBe('Reports, one tool each');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
      expect(tools[0]).toMatchObject({
        annotations: { readOnlyHint: true },
        execution: { taskSupport: 'optional' },
      });
      expect(tools[1]).toMatchObject({ title: 'Asking Report', description: 'Asks for a month' });

      expect(await client.callTool({ name: 'Quick_Report', arguments: {} })).toEqual({
        content: [{ type: 'text', text: '{"text":"quick report"}' }],
        structuredContent: { text: 'quick report' },
        isError: false,
      });
      const asking = client.callTool({ name: 'month_report', arguments: {} });
      await answerMay();
      expect(await asking).toEqual({
        content: [{ type: 'text', text: '{"text":"report for May"}' }],
        structuredContent: { text: 'report for May' },
        isError: false,
      });

      const stream = client.experimental.tasks.callToolStream(
        { name: 'Gated_Report', arguments: {} },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      const created = (await stream.next()).value as {
        type: string;
        task: { taskId: string; status: string };
      };
      expect(created).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
      const gated = await world.nextGatedRun();
      expect(gated.run.server.kind).toBe('toolset');
      expect(gated.run.app.id).toBe(GATED_APP.id);
      gated.finish('gated report');
      const messages = [];
      for await (const message of stream) messages.push(message);
      expect(messages.at(-1)).toEqual({
        type: 'result',
        result: {
          content: [{ type: 'text', text: '{"text":"gated report"}' }],
          structuredContent: { text: 'gated report' },
          isError: false,
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: created.task.taskId } },
        },
      });
      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.map((task) => task.taskId)).toContain(created.task.taskId);
    } finally {
      await client.close();
    }
  });

  it('the v2 client at 2026-07-28 lists the tools, calls one and answers the question another asks', async () => {
    const client = new ClientV2(
      { name: 'toolset-test-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { month: 'May' },
    }));
    await client.connect(new TransportV2(new URL(url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
      // 2026-07-28 tools carry no `execution`: the server decides which calls become tasks.
      expect(tools.some((tool) => 'execution' in tool)).toBe(false);
      expect(await client.callTool({ name: 'Quick_Report', arguments: {} })).toEqual({
        content: [{ type: 'text', text: '{"text":"quick report"}' }],
        structuredContent: { text: 'quick report' },
        isError: false,
        _meta: expect.any(Object),
      });
      const asking = client.callTool({ name: 'month_report', arguments: {} });
      await answerMay();
      expect(await asking).toMatchObject({ structuredContent: { text: 'report for May' }, isError: false });
      await expect(client.callTool({ name: 'Text_Stats', arguments: {} })).rejects.toThrow(
        'Unknown tool: Text_Stats',
      );
    } finally {
      await client.close();
    }
  });

  it('at 2026-07-28 with the tasks extension, a toolset tool still running after the grace window becomes the toolset’s task', async () => {
    const meta = envelope({ [CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} } } });
    const send = (id: number, method: string, params: Record<string, unknown>, name?: string) =>
      host.post(code, request(id, method, { _meta: meta, ...params }), standardHeaders(method, name));
    const reply = await send(1, 'tools/call', { name: 'Gated_Report', arguments: {} }, 'Gated_Report');
    const gated = await world.nextGatedRun();
    const created = (reply.json as { result: Record<string, unknown> }).result;
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'Report tools', version: expect.any(String) } },
    });
    gated.finish('modern report');
    const taskId = created.taskId as string;
    const get = async () =>
      (await send(2, 'tasks/get', { taskId }, taskId)).json as { result: Record<string, unknown> };
    await expect.poll(async () => (await get()).result.status).toBe('completed');
    expect((await get()).result.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: '{"text":"modern report"}' }],
      structuredContent: { text: 'modern report' },
      isError: false,
    });
  });
});
