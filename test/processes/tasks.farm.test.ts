/**
 * Tasks in a farm: instances, each a process of its own, on one PostgreSQL. Any instance
 * answers for a task: its result is fetched from the instance that did not run it, a cancel
 * reaches the instance that runs it, and the task of an instance that stops dead fails within two
 * leases instead of staying `working` forever.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { knexServerStore, migrate } from '../../src/store/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { bundleInstance, type FarmProcess, startInstance, stopInstance } from '../helpers/farm-processes.js';
import { type Reply, send } from '../helpers/hosts.js';
import { CLIENT_CAPABILITIES, envelope, standardHeaders } from '../helpers/modern.js';
import { request } from '../helpers/rpc.js';
import { ofTask } from '../helpers/tasks.js';
import { success } from '../helpers/tool-call.js';

/** A short lease for the instance that stops, so that its task fails within the suite's patience. */
const LEASE_MS = 1000;
/** A lease too long to matter for the others: a cancel that reaches its run did so through PostgreSQL. */
const LONG_LEASE_MS = 60_000;
const V = { 'mcp-protocol-version': '2025-11-25' };

describeEach(databases.filter((kind) => kind.name === 'postgres'))(
  'tasks across instances on $name',
  (kind) => {
    let db: TestDatabase;
    let knex: Knex;
    let a: FarmProcess;
    let b: FarmProcess;
    /** The instance that stops dead, with a short lease. */
    let c: FarmProcess;
    const codes: Record<string, string> = {};

    beforeAll(async () => {
      db = await kind.create();
      knex = db.connect();
      await migrate(knex);
      const writer = knexServerStore(knex);
      for (const appId of ['wait', 'ticker', 'ask']) {
        const server = await writer.createServer({
          tenantId: 't',
          appId,
          name: appId,
          description: '',
          parameters: {},
        });
        codes[appId] = server.serverCode;
      }
      const bundle = await bundleInstance();
      const schema = (knex.client.config as { searchPath: string[] }).searchPath[0] as string;
      const env = {
        DATABASE_URL: process.env.TEST_POSTGRES_URL as string,
        DATABASE_SCHEMA: schema,
        RATE_LIMIT_REQUESTS: '10000',
        RESOLVE_TIMEOUT_MS: '5000',
        TASK_LEASE_MS: String(LONG_LEASE_MS),
      };
      [a, b, c] = await Promise.all([
        startInstance(bundle, env),
        startInstance(bundle, env),
        startInstance(bundle, { ...env, TASK_LEASE_MS: String(LEASE_MS) }),
      ]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([a, b, c].map((instance) => instance && stopInstance(instance)));
      await db?.destroy();
    });

    const post = (instance: FarmProcess, app: string, payload: unknown): Promise<Reply> =>
      send(instance.url, { path: `/mcp/server/${codes[app]}/mcp`, body: payload, headers: V });
    const resultOf = (reply: Reply) => (reply.json as { result: Record<string, unknown> }).result;
    /** Starts `app` as a task on `instance`; its tag names the run in `/runs`. */
    const startTask = async (instance: FarmProcess, app: string, tag: string) => {
      const reply = await post(
        instance,
        app,
        request(1, 'tools/call', { name: app, arguments: { tag }, task: { ttl: 60_000 } }),
      );
      return (resultOf(reply).task as { taskId: string }).taskId;
    };
    const runsOf = async (instance: FarmProcess) =>
      (await (await fetch(`${instance.url}/runs`)).json()) as { tag: string; event: string }[];

    it('tasks/result on the other instance waits for the end the owner stores, and gives the result', async () => {
      const tag = randomUUID();
      const taskId = await startTask(a, 'ticker', tag);
      const result = await post(b, 'ticker', request(2, 'tasks/result', { taskId }));
      expect(resultOf(result)).toEqual(
        ofTask(taskId, success(JSON.stringify({ tag, ticks: 6 }), { tag, ticks: 6 })),
      );
      expect((await runsOf(a)).filter((run) => run.tag === tag).map((run) => run.event)).toEqual(['started']);
      expect((await runsOf(b)).some((run) => run.tag === tag)).toBe(false);
      const listed = resultOf(await post(b, 'ticker', request(3, 'tasks/list', {})));
      expect(
        (listed.tasks as { taskId: string; status: string }[]).find((task) => task.taskId === taskId),
      ).toMatchObject({
        status: 'completed',
      });
    });

    it('tasks/cancel on the other instance stops the run where it runs, through PostgreSQL', async () => {
      const tag = randomUUID();
      const taskId = await startTask(a, 'wait', tag);
      await expect.poll(async () => (await runsOf(a)).some((run) => run.tag === tag)).toBe(true);
      const cancelled = await post(b, 'wait', request(2, 'tasks/cancel', { taskId }));
      expect(resultOf(cancelled)).toMatchObject({ taskId, status: 'cancelled' });
      await expect
        .poll(async () => (await runsOf(a)).filter((run) => run.tag === tag).map((run) => run.event), {
          timeout: 5000,
        })
        .toEqual(['started', 'aborted']);
      expect(resultOf(await post(a, 'wait', request(3, 'tasks/get', { taskId }))).status).toBe('cancelled');
    });

    it('2026-07-28: tasks/update on the other instance answers the run where it runs, before its ack', async () => {
      const tag = randomUUID();
      const caps = {
        [CLIENT_CAPABILITIES]: { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      };
      const modern = (instance: FarmProcess, id: number, method: string, params: Record<string, unknown>) =>
        send(instance.url, {
          path: `/mcp/server/${codes.ask}/mcp`,
          body: request(id, method, { _meta: envelope(caps), ...params }),
          headers: standardHeaders(method, (params.taskId ?? params.name) as string),
        });
      const created = resultOf(await modern(a, 1, 'tools/call', { name: 'ask', arguments: { tag } }));
      const taskId = created.taskId as string;
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const get = async () => resultOf(await modern(b, 2, 'tasks/get', { taskId }));
      await expect.poll(async () => (await get()).status, { timeout: 5000 }).toBe('input_required');
      expect((await get()).inputRequests).toEqual({
        go: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Go on?',
            requestedSchema: {
              type: 'object',
              properties: { go: { type: 'boolean', title: 'Go' } },
              required: ['go'],
            },
          },
        },
      });
      const update = await modern(b, 3, 'tasks/update', {
        taskId,
        inputResponses: { go: { action: 'accept', content: { go: true } } },
      });
      expect(resultOf(update)).toMatchObject({ resultType: 'complete' });
      expect(await get()).not.toHaveProperty('inputRequests');
      await expect.poll(async () => (await get()).status, { timeout: 5000 }).toBe('completed');
      expect(((await get()).result as { structuredContent: unknown }).structuredContent).toEqual({
        tag,
        answer: { action: 'accept', values: { go: true } },
      });
      expect((await runsOf(b)).some((run) => run.tag === tag)).toBe(false);
    });

    it('the task of an instance that stops dead fails, saying so, within two leases', async () => {
      const tag = randomUUID();
      const taskId = await startTask(c, 'wait', tag);
      await expect.poll(async () => (await runsOf(c)).some((run) => run.tag === tag)).toBe(true);
      const stoppedAt = Date.now();
      await stopInstance(c, true);
      await expect
        .poll(async () => resultOf(await post(b, 'wait', request(2, 'tasks/get', { taskId }))).status, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe('failed');
      const failed = resultOf(await post(b, 'wait', request(3, 'tasks/get', { taskId })));
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'the instance running this task stopped',
      });
      // The bound the lease promises, read from the task's own clock: when it was marked failed.
      expect(Date.parse(failed.lastUpdatedAt as string) - stoppedAt).toBeLessThanOrEqual(2 * LEASE_MS);
      const error = await post(b, 'wait', request(4, 'tasks/result', { taskId }));
      expect(error.json).toEqual({
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32603, message: 'the instance running this task stopped' },
      });
    });
  },
);
