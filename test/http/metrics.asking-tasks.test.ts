import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp, RunApp } from '../../src/index.js';
import { mcpMetrics } from '../../src/metrics/index.js';
import { sample, startMetricsHost } from '../helpers/metrics.js';

const APPROVAL: HostApp = {
  id: 'approval',
  name: 'Approval',
  mode: 'workflow',
  description: 'Asks a person for a decision.',
  inputForm: [],
};
const REPORT: HostApp = {
  id: 'report',
  name: 'Report',
  mode: 'workflow',
  description: 'Writes a report.',
  inputForm: [],
};

describe('mcpMetrics, fed by runs that ask a person and by tasks', () => {
  let url: string;
  let close: () => Promise<void>;
  let codes: Record<string, string>;
  const metrics = mcpMetrics({ registry: new Registry() });

  const runApp: RunApp = async (run) => {
    if (run.app.id === 'approval') {
      const answer = await run.ask({
        message: 'Approve?',
        fields: [
          {
            select: {
              variable: 'decision',
              label: 'Decision',
              options: ['approve', 'reject'],
              required: true,
            },
          },
        ],
      });
      return { outputs: { answer } };
    }
    return { outputs: { report: 'done' } };
  };

  beforeAll(async () => {
    const apps = [APPROVAL, REPORT];
    let servers: { serverCode: string }[];
    ({ url, close, servers } = await startMetricsHost(apps, metrics, { runApp }));
    codes = Object.fromEntries(apps.map((app, i) => [app.id, servers[i]!.serverCode]));
  });

  afterAll(async () => {
    await close?.();
  });

  const scrape = async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };

  async function connect(code: string, client: Client): Promise<Client> {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/server/${code}/mcp`)));
    return client;
  }

  it('a run waiting for a person counts in mcp_runs_waiting_for_input until the answer comes', async () => {
    expect(sample(await scrape(), 'mcp_runs_waiting_for_input')).toBe(0);
    let seenWhileWaiting: number | undefined;
    const client = new Client(
      { name: 'metrics-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => {
      seenWhileWaiting = sample(await scrape(), 'mcp_runs_waiting_for_input');
      return { action: 'accept', content: { decision: 'approve' } };
    });
    await connect(codes.approval as string, client);
    try {
      const result = await client.callTool({ name: 'Approval', arguments: {} });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toEqual({
        answer: { action: 'accept', values: { decision: 'approve' } },
      });
    } finally {
      await client.close();
    }
    expect(seenWhileWaiting).toBe(1);
    expect(sample(await scrape(), 'mcp_runs_waiting_for_input')).toBe(0);
  });

  it('a task moves mcp_tasks from working to completed', async () => {
    const client = await connect(
      codes.report as string,
      new Client({ name: 'metrics-test', version: '1.0.0' }),
    );
    try {
      const messages: { type: string }[] = [];
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'Report', arguments: {} },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        messages.push(message as { type: string });
      }
      // Whether the client polled a status between depends on timing; the first and the last do not.
      expect(messages[0]?.type).toBe('taskCreated');
      expect(messages.at(-1)?.type).toBe('result');
    } finally {
      await client.close();
    }
    await expect
      .poll(async () => sample(await scrape(), 'mcp_tasks', 'status="completed"'), { timeout: 5_000 })
      .toBe(1);
    const text = await scrape();
    expect(sample(text, 'mcp_tasks', 'status="working"')).toBe(0);
  });
});
