/**
 * `onCall`: one event per finished `tools/call` of a server's tool, with who, what and how it
 * ended, never the server code; and, with `@opentelemetry/api` present, one span per call in which
 * the app's own spans nest (checked with the SDK's in-memory exporter), none while no tracer
 * provider is registered.
 */
import { context, ProxyTracer, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Package from '../../src/index.js';
import type { CallEvent, McpServerOptions, RunApp } from '../../src/index.js';
import { createWorld, FAQ_BOT, STORE_FAILURE, TENANT, TEXT_STATS, type World } from '../helpers/apps.js';
import { type Host, type HostVariant, hostVariants, loadWorld, startHost } from '../helpers/hosts.js';
import {
  expectRpcError,
  expectRpcReply,
  expectRpcResult,
  notification,
  request,
  rpcResult,
} from '../helpers/rpc.js';
import { failure } from '../helpers/tool-call.js';

const variant = hostVariants[0] as HostVariant;
const V = (version: string) => ({ 'mcp-protocol-version': version });

const callTool = (id: number | string, name: string, args: Record<string, unknown>) =>
  request(id, 'tools/call', { name, arguments: args });

/** The world's apps, plus a FAQ bot that fails on demand: "refuse" → AppRunError, "crash" → a bug. */
function failingOnDemand(world: World, pkg: typeof Package): RunApp {
  const runApp = world.options().runApp;
  return (run) => {
    // The AppRunError of the package instance that serves the host.
    if (run.query === 'refuse') throw new pkg.AppRunError('I will not');
    if (run.query === 'crash') throw new TypeError('cannot read properties of undefined');
    return runApp(run);
  };
}

/** A world of servers in a memory store, served with the options `overrides` makes for it. */
async function startObservedHost(
  overrides: (world: World, pkg: typeof Package) => Partial<McpServerOptions>,
) {
  const { pkg, world } = await loadWorld(variant, createWorld);
  const host = await startHost(variant, pkg, world.options(overrides(world, pkg)));
  return { world, host };
}

describe('onCall', () => {
  let world: World;
  let host: Host;
  const events: CallEvent[] = [];

  beforeAll(async () => {
    ({ world, host } = await startObservedHost((world, pkg) => ({
      runApp: failingOnDemand(world, pkg),
      callTimeoutMs: 300,
      onCall: (event) => {
        events.push(event);
      },
    })));
  });
  afterAll(async () => {
    await host?.close();
  });
  beforeEach(() => {
    events.length = 0;
    world.reports.length = 0;
  });

  const textStats = () => ({
    serverId: world.servers.textStats.id,
    tenantId: TENANT,
    appId: TEXT_STATS.id,
    tool: 'Text_Stats',
  });
  const faqBot = () => ({
    serverId: world.servers.faqBot.id,
    tenantId: TENANT,
    appId: FAQ_BOT.id,
    tool: 'FAQ_Bot',
  });
  const endUserOf = (serverIndex: number) => ({
    id: world.runs[serverIndex]?.endUser.id ?? expect.any(String),
    name: expect.any(String),
  });

  it('a successful call: one event with server, app, tool, end user, version, duration and "ok"', async () => {
    const reply = await host.post(
      world.codes.textStats,
      callTool(7, 'Text_Stats', { text: 'one two' }),
      V('2025-06-18'),
    );
    expect(reply.status).toBe(200);
    const run = world.runs.at(-1)!;
    expect(events).toEqual([
      {
        ...textStats(),
        endUser: run.endUser,
        protocolVersion: '2025-06-18',
        requestId: 7,
        durationMs: expect.any(Number),
        outcome: 'ok',
      },
    ]);
    expect(events[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('never carries the server code', async () => {
    await host.post(world.codes.faqBot, callTool('a', 'FAQ_Bot', { query: 'hours?' }), V('2025-11-25'));
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(world.codes.faqBot);
    expect(events[0]).toEqual({
      ...faqBot(),
      endUser: endUserOf(world.runs.length - 1),
      protocolVersion: '2025-11-25',
      requestId: 'a',
      durationMs: expect.any(Number),
      outcome: 'ok',
    });
  });

  it('invalid arguments are "invalid_arguments", as an error result (2025-11-25) and as -32602 (before)', async () => {
    const runs = world.runs.length;
    const asResult = await host.post(world.codes.textStats, callTool(1, 'Text_Stats', {}), V('2025-11-25'));
    expectRpcResult(asResult, 1, failure('Invalid arguments for tool Text_Stats: text is required'));
    const asError = await host.post(world.codes.textStats, callTool(2, 'Text_Stats', {}), V('2025-06-18'));
    expect(asError.status).toBe(200);
    expect((asError.json as { error: { code: number } }).error.code).toBe(-32602);
    expect(world.runs).toHaveLength(runs);
    expect(
      events.map(({ requestId, protocolVersion, outcome }) => ({ requestId, protocolVersion, outcome })),
    ).toEqual([
      { requestId: 1, protocolVersion: '2025-11-25', outcome: 'invalid_arguments' },
      { requestId: 2, protocolVersion: '2025-06-18', outcome: 'invalid_arguments' },
    ]);
    // Nothing ran, so nothing is attributed to an end user (arguments refused need none).
    expect(events.every((event) => event.endUser === undefined)).toBe(true);
  });

  it('an AppRunError is "app_error"; any other exception is "failed", its cause to onError only', async () => {
    await host.post(world.codes.faqBot, callTool(1, 'FAQ_Bot', { query: 'refuse' }), V('2025-11-25'));
    await host.post(world.codes.faqBot, callTool(2, 'FAQ_Bot', { query: 'crash' }), V('2025-11-25'));
    expect(events.map((event) => [event.requestId, event.outcome])).toEqual([
      [1, 'app_error'],
      [2, 'failed'],
    ]);
    expect(world.reports.map((report) => report.context)).toEqual([
      { phase: 'run', serverId: world.servers.faqBot.id, appId: FAQ_BOT.id },
    ]);
  });

  it('a run that outlives callTimeoutMs is "timeout"; a cancelled one is "cancelled"', async () => {
    const timedOut = await host.post(world.codes.slow, callTool(1, 'Slow', {}), V('2025-11-25'));
    expectRpcResult(timedOut, 1, failure('the app did not finish within 300 ms'));
    const cancelled = host.post(world.codes.slow, callTool(2, 'Slow', {}), V('2025-11-25'));
    await world.nextSlowRun(); // the first run's, stopped by its timeout
    await world.nextSlowRun();
    await host.post(world.codes.slow, notification('notifications/cancelled', { requestId: 2 }));
    expect((await cancelled).status).toBe(200);
    expect(events.map((event) => [event.requestId, event.tool, event.outcome])).toEqual([
      [1, 'Slow', 'timeout'],
      [2, 'Slow', 'cancelled'],
    ]);
  });

  it('a failure before the run (the end user cannot be stored) is "failed", without an end user', async () => {
    const reply = await host.post(world.codes.storeFails, callTool(3, 'Store_Fails', { query: 'hi' }));
    expectRpcError(reply, 500, 3, -32603, 'Internal error');
    expect(events).toEqual([
      {
        serverId: world.servers.storeFails.id,
        tenantId: TENANT,
        appId: 'store-fails',
        tool: 'Store_Fails',
        protocolVersion: '2025-03-26',
        requestId: 3,
        durationMs: expect.any(Number),
        outcome: 'failed',
      },
    ]);
    expect(world.reports.map((report) => report.error)).toEqual([STORE_FAILURE]);
  });

  it('a 2026-07-28 call has its event too', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const reply = await host.post(
      world.codes.faqBot,
      request(9, 'tools/call', { name: 'FAQ_Bot', arguments: { query: 'price?' }, _meta: meta }),
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'FAQ_Bot' },
    );
    expect(reply.status).toBe(200);
    expect(events.map((event) => [event.requestId, event.protocolVersion, event.outcome])).toEqual([
      [9, '2026-07-28', 'ok'],
    ]);
  });

  it('no event for anything but a call of the tool: tools/list, ping, an unknown tool', async () => {
    await host.post(world.codes.textStats, request(1, 'tools/list'));
    await host.post(world.codes.textStats, request(2, 'ping'));
    const unknown = await host.post(world.codes.textStats, callTool(3, 'Nope', {}));
    expectRpcError(unknown, 200, 3, -32602, 'Unknown tool: Nope');
    expect(events).toEqual([]);
  });
});

describe('onCall that fails', () => {
  let world: World;
  let host: Host;

  beforeAll(async () => {
    let calls = 0;
    ({ world, host } = await startObservedHost(() => ({
      // Throws on odd calls, rejects on even ones.
      onCall: () => {
        calls++;
        if (calls % 2 === 1) throw new Error('the audit log is full');
        return Promise.reject(new Error('the metrics backend is down'));
      },
    })));
  });
  afterAll(async () => {
    await host?.close();
  });

  it('changes nothing for the client; the failure goes to onError with phase "onCall"', async () => {
    for (const id of [1, 2]) {
      const reply = await host.post(
        world.codes.faqBot,
        callTool(id, 'FAQ_Bot', { query: 'hours?' }),
        V('2025-06-18'),
      );
      expectRpcResult(reply, id, {
        content: [{ type: 'text', text: 'You asked: hours?' }],
        structuredContent: { answer: 'You asked: hours?' },
        isError: false,
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(world.reports.map(({ error, context }) => [(error as Error).message, context])).toEqual([
      ['the audit log is full', { phase: 'onCall' }],
      ['the metrics backend is down', { phase: 'onCall' }],
    ]);
  });
});

describe('OpenTelemetry, with @opentelemetry/api present', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let world: World;
  let host: Host;
  /** The span that was active while the app ran, per run. */
  const activeInRun: (string | undefined)[] = [];

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    ({ world, host } = await startObservedHost((world, pkg) => {
      const runApp = failingOnDemand(world, pkg);
      return {
        runApp: (run) => {
          // The host's own tracing inside its app: a child span of the call's.
          trace.getTracer('host-app').startActiveSpan('host engine', (span) => span.end());
          activeInRun.push(trace.getActiveSpan()?.spanContext().spanId);
          return runApp(run);
        },
      };
    }));
  });
  afterAll(async () => {
    await host?.close();
    trace.disable();
    context.disable();
  });
  beforeEach(() => {
    exporter.reset();
    activeInRun.length = 0;
  });

  it('a call is a server span "tools/call <tool>" with the MCP attributes; the app runs inside it', async () => {
    await host.post(world.codes.textStats, callTool(5, 'Text_Stats', { text: 'a b' }), V('2025-06-18'));
    const spans = exporter.getFinishedSpans();
    const call = spans.find((span) => span.name === 'tools/call Text_Stats');
    const engine = spans.find((span) => span.name === 'host engine');
    expect(spans).toHaveLength(2);
    expect({
      kind: call?.kind,
      status: call?.status,
      attributes: call?.attributes,
      scope: call?.instrumentationScope.name,
    }).toEqual({
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'Text_Stats',
        'mcp.protocol.version': '2025-06-18',
        'jsonrpc.request.id': '5',
        'express_app_mcp.server.id': world.servers.textStats.id,
        'express_app_mcp.app.id': TEXT_STATS.id,
        'express_app_mcp.end_user.id': world.runs.at(-1)!.endUser.id,
      },
      scope: 'express-app-mcp',
    });
    expect(engine?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
    expect(activeInRun).toEqual([call?.spanContext().spanId]);
    expect(JSON.stringify(call?.attributes)).not.toContain(world.codes.textStats);
  });

  it('a call that does not succeed ends its span with an error status and error.type', async () => {
    await host.post(world.codes.faqBot, callTool(6, 'FAQ_Bot', { query: 'refuse' }), V('2025-11-25'));
    await host.post(world.codes.textStats, callTool(7, 'Text_Stats', {}), V('2025-11-25'));
    const calls = exporter.getFinishedSpans().filter((span) => span.name.startsWith('tools/call '));
    expect(calls.map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
      ['tools/call FAQ_Bot', { code: SpanStatusCode.ERROR, message: 'app_error' }, 'app_error'],
      [
        'tools/call Text_Stats',
        { code: SpanStatusCode.ERROR, message: 'invalid_arguments' },
        'invalid_arguments',
      ],
    ]);
  });
});

describe('OpenTelemetry, with @opentelemetry/api present and no tracer provider registered', () => {
  let world: World;
  let host: Host;
  const started = vi.spyOn(ProxyTracer.prototype, 'startSpan');

  beforeAll(async () => {
    ({ world, host } = await startObservedHost(() => ({})));
  });
  afterAll(async () => {
    await host?.close();
    trace.disable();
    started.mockRestore();
  });

  it('a call makes no span; a provider registered later gets the next call’s span', async () => {
    const call = () =>
      host.post(world.codes.textStats, callTool(1, 'Text_Stats', { text: 'a b' }), V('2025-11-25'));
    const untraced = await call();
    expect(untraced.status).toBe(200);
    expect(untraced.json).toEqual(
      rpcResult(
        1,
        expect.objectContaining({
          isError: false,
          structuredContent: expect.objectContaining({ word_count: 2 }),
        }),
      ),
    );
    expect(started).not.toHaveBeenCalled();

    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    // The same reply, whole: tracing changes nothing for the client.
    expectRpcReply(await call(), 200, untraced.json);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['tools/call Text_Stats']);
  });
});
