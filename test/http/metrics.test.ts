/**
 * `express-app-mcp/metrics`: Prometheus metrics mounted in two lines, scraped over HTTP after real
 * calls of the official MCP SDK client: the call counter and the duration histogram move, the
 * in-flight and open-stream gauges rise while a streamed call runs and fall when it ends. The
 * waiting-for-input and task gauges follow their events.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppRunError,
  ConfigurationError,
  type ErrorContext,
  type HostApp,
  type McpEvent,
  mcpServer,
  memoryServerStore,
  type RunApp,
  type ServerRecord,
} from '../../src/index.js';
import { type McpMetrics, mcpMetrics } from '../../src/metrics/index.js';
import { sample, startMetricsHost } from '../helpers/metrics.js';

const ECHO: HostApp = {
  id: 'echo',
  name: 'Echo',
  mode: 'workflow',
  description: 'Echoes its text, or fails when asked to.',
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true, max_length: 100 }],
};
const SLOW: HostApp = {
  id: 'slow',
  name: 'Slow',
  mode: 'workflow',
  description: 'Reports progress, then waits until the test lets it finish.',
  inputForm: [],
};

describe('mcpMetrics, mounted with mcpServer and scraped over HTTP', () => {
  let url: string;
  let close: () => Promise<void>;
  let metrics: McpMetrics;
  let code: { echo: string; slow: string };
  let ids: { echo: string; slow: string };
  /** Lets the slow run finish. */
  let release: () => void = () => {};
  let progressed: () => void = () => {};
  const reports: ErrorContext[] = [];

  const runApp: RunApp = ({ app, inputs }) => {
    if (app.id === 'echo') {
      if (inputs.text === 'refuse') throw new AppRunError('I will not');
      return { outputs: { text: inputs.text } };
    }
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return (async function* () {
      yield { event: 'progress' as const, progress: 1, total: 2, message: 'halfway' };
      progressed();
      await gate;
      yield { event: 'workflow_finished' as const, outputs: { done: true } };
    })();
  };

  beforeAll(async () => {
    // The two lines of the guide.
    metrics = mcpMetrics();
    const started = await startMetricsHost([ECHO, SLOW], metrics, {
      runApp,
      onError: (_error, context) => reports.push(context),
    });
    ({ url, close } = started);
    const [echo, slow] = started.servers as [ServerRecord, ServerRecord];
    code = { echo: echo.serverCode, slow: slow.serverCode };
    ids = { echo: echo.id, slow: slow.id };
  });

  afterAll(async () => {
    release();
    await close?.();
  });

  const scrape = async () => {
    const response = await fetch(`${url}/metrics`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };

  /** A scrape once `mcp_streams_open` reads `open`, or the last of a second of tries. */
  const scrapeWithStreams = async (open: number) => {
    let scraped = await scrape();
    for (let tries = 0; tries < 50 && sample(scraped.text, 'mcp_streams_open') !== open; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      scraped = await scrape();
    }
    return scraped;
  };

  const connect = async (serverCode: string) => {
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/server/${serverCode}/mcp`)));
    return client;
  };

  it('before any call: every metric is there, at zero', async () => {
    const { status, type, text } = await scrape();
    expect({ status, type }).toEqual({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' });
    expect({
      calls: text.includes('mcp_tool_calls_total{'),
      count: sample(text, 'mcp_tool_call_duration_seconds_count'),
      inFlight: sample(text, 'mcp_tool_calls_in_flight'),
      streams: sample(text, 'mcp_streams_open'),
      waiting: sample(text, 'mcp_runs_waiting_for_input'),
      working: sample(text, 'mcp_tasks', 'status="working"'),
    }).toEqual({ calls: false, count: 0, inFlight: 0, streams: 0, waiting: 0, working: 0 });
    expect(text).toContain('# TYPE mcp_tool_calls_total counter');
    expect(text).toContain('# TYPE mcp_tool_call_duration_seconds histogram');
  });

  it('after calls: the counter by server id and outcome, and the histogram, moved; nothing is left in flight', async () => {
    const client = await connect(code.echo);
    try {
      expect(await client.callTool({ name: 'Echo', arguments: { text: 'one' } })).toMatchObject({
        isError: false,
      });
      expect(await client.callTool({ name: 'Echo', arguments: { text: 'two' } })).toMatchObject({
        isError: false,
      });
      expect(await client.callTool({ name: 'Echo', arguments: { text: 'refuse' } })).toMatchObject({
        isError: true,
      });
      expect(await client.callTool({ name: 'Echo', arguments: {} })).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
    const { text } = await scrape();
    const server = `server="${ids.echo}"`;
    expect({
      ok: sample(text, 'mcp_tool_calls_total', `${server},outcome="ok"`),
      appError: sample(text, 'mcp_tool_calls_total', `${server},outcome="app_error"`),
      invalid: sample(text, 'mcp_tool_calls_total', `${server},outcome="invalid_arguments"`),
      count: sample(text, 'mcp_tool_call_duration_seconds_count'),
      inFlight: sample(text, 'mcp_tool_calls_in_flight'),
      streams: sample(text, 'mcp_streams_open'),
    }).toEqual({ ok: 2, appError: 1, invalid: 1, count: 4, inFlight: 0, streams: 0 });
    expect(sample(text, 'mcp_tool_call_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(text, 'mcp_tool_call_duration_seconds_bucket', 'le="+Inf"')).toBe(4);
    // The label is the server's id; its code, a secret, is nowhere.
    expect(text).not.toContain(code.echo);
  });

  it('while a streamed call runs: one call in flight and one stream open; both back to zero once it ends', async () => {
    const client = await connect(code.slow);
    try {
      const ready = new Promise<void>((resolve) => {
        progressed = resolve;
      });
      const call = client.callTool({ name: 'Slow', arguments: {} }, undefined, { onprogress: () => {} });
      await ready;
      // The progress is out, so the reply is a stream; the run waits at its gate.
      const during = await scrapeWithStreams(1);
      expect({
        inFlight: sample(during.text, 'mcp_tool_calls_in_flight'),
        streams: sample(during.text, 'mcp_streams_open'),
      }).toEqual({ inFlight: 1, streams: 1 });

      release();
      expect(await call).toEqual({
        content: [{ type: 'text', text: JSON.stringify({ done: true }) }],
        structuredContent: { done: true },
        isError: false,
      });
    } finally {
      await client.close();
    }
    // The stream's response closes just after the client has read the result.
    const after = await scrapeWithStreams(0);
    expect({
      inFlight: sample(after.text, 'mcp_tool_calls_in_flight'),
      streams: sample(after.text, 'mcp_streams_open'),
      ok: sample(after.text, 'mcp_tool_calls_total', `server="${ids.slow}",outcome="ok"`),
    }).toEqual({ inFlight: 0, streams: 0, ok: 1 });
    expect(reports).toEqual([]);
  });
});

describe('mcpMetrics: the gauges of runs waiting for a person and of tasks follow their events', () => {
  it('input.waiting and input.settled move mcp_runs_waiting_for_input', async () => {
    const metrics = mcpMetrics();
    const events: McpEvent[] = [
      { type: 'input.waiting', serverId: 's1' },
      { type: 'input.waiting', serverId: 's2' },
      { type: 'input.settled', serverId: 's1' },
    ];
    for (const event of events) metrics.onEvent(event);
    expect(sample(await metrics.registry.metrics(), 'mcp_runs_waiting_for_input')).toBe(1);
  });

  it('task.status moves a task from one status to the next, from creation to removal', async () => {
    const metrics = mcpMetrics();
    const events: McpEvent[] = [
      { type: 'task.status', serverId: 's1', taskId: 'a', from: null, to: 'working' },
      { type: 'task.status', serverId: 's1', taskId: 'b', from: null, to: 'working' },
      { type: 'task.status', serverId: 's1', taskId: 'a', from: 'working', to: 'input_required' },
      { type: 'task.status', serverId: 's1', taskId: 'b', from: 'working', to: 'completed' },
      { type: 'task.status', serverId: 's1', taskId: 'c', from: null, to: 'failed' },
      { type: 'task.status', serverId: 's1', taskId: 'c', from: 'failed', to: null },
    ];
    for (const event of events) metrics.onEvent(event);
    const text = await metrics.registry.metrics();
    const byStatus = Object.fromEntries(
      ['working', 'input_required', 'completed', 'failed', 'cancelled'].map((status) => [
        status,
        sample(text, 'mcp_tasks', `status="${status}"`),
      ]),
    );
    expect(byStatus).toEqual({ working: 0, input_required: 1, completed: 1, failed: 0, cancelled: 0 });
  });
});

describe('mcpMetrics: options', () => {
  it('registers into the registry it is given, with a prefix and without the server label', async () => {
    const registry = new Registry();
    const metrics = mcpMetrics({ registry, prefix: 'acme_', serverLabel: false, durationBuckets: [1, 10] });
    metrics.onEvent({
      type: 'call.finished',
      serverId: 'secretive',
      tenantId: 't',
      appId: 'a',
      tool: 'A',
      protocolVersion: '2025-11-25',
      requestId: 1,
      durationMs: 2500,
      outcome: 'timeout',
    });
    const text = await registry.metrics();
    expect(metrics.registry).toBe(registry);
    expect(sample(text, 'acme_mcp_tool_calls_total', 'outcome="timeout"')).toBe(1);
    expect(text).not.toContain('secretive');
    expect(sample(text, 'acme_mcp_tool_call_duration_seconds_bucket', 'le="1"')).toBe(0);
    expect(sample(text, 'acme_mcp_tool_call_duration_seconds_bucket', 'le="10"')).toBe(1);
  });

  it.each([
    [{ registery: new Registry() }, 'mcpMetrics: unknown option "registery"'],
    [
      { prefix: '1x' },
      'mcpMetrics: invalid option "prefix": must be letters, digits, "_" or ":", not starting with a digit',
    ],
    [
      { durationBuckets: [5, 1] },
      'mcpMetrics: invalid option "durationBuckets": must be increasing positive numbers of seconds',
    ],
    [{ registry: {} }, 'mcpMetrics: invalid option "registry": must be a prom-client Registry'],
  ])('%j is a ConfigurationError naming the option', (options, message) => {
    expect(() => mcpMetrics(options as never)).toThrow(new ConfigurationError('invalid_options', message));
  });

  it('mcpServer refuses a metrics option that is not a sink', () => {
    expect(() =>
      mcpServer({ resolveServer: async () => null, runApp: () => ({ answer: '' }), metrics: {} as never }),
    ).toThrow(
      new ConfigurationError(
        'invalid_options',
        'mcpServer: invalid option "metrics": metrics must be mcpMetrics() from express-app-mcp/metrics, or an object with onEvent(event)',
      ),
    );
  });
});

describe('a metrics sink that throws', () => {
  it('goes to onError (phase "metrics") and never fails the call', async () => {
    const store = memoryServerStore();
    const server = await store.createServer({
      tenantId: 't',
      appId: 'echo',
      name: 'Echo',
      description: '',
      parameters: {},
    });
    const reports: { error: unknown; context: ErrorContext }[] = [];
    const seen: string[] = [];
    const app = express();
    app.use(
      mcpServer({
        resolveServer: store.resolver(() => ECHO),
        runApp: ({ inputs }) => ({ outputs: { text: inputs.text } }),
        metrics: {
          onEvent(event) {
            seen.push(event.type);
            throw new Error('the sink is broken');
          },
        },
        onError: (error, context) => reports.push({ error, context }),
      }),
    );
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const port = (listening.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/mcp/server/${server.serverCode}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'Echo', arguments: { text: 'hi' } },
        }),
      });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 1,
          result: {
            content: [{ type: 'text', text: JSON.stringify({ text: 'hi' }) }],
            structuredContent: { text: 'hi' },
            isError: false,
          },
        },
      });
      expect(seen).toEqual(['call.started', 'call.finished']);
      expect(reports.map(({ error, context }) => [(error as Error).message, context.phase])).toEqual([
        ['the sink is broken', 'metrics'],
        ['the sink is broken', 'metrics'],
      ]);
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });
});
