/**
 * Long runs as real clients see them: the official TypeScript v1 client (`@modelcontextprotocol/sdk`)
 * and the v2 client (`@modelcontextprotocol/client`, pinned to 2026-07-28 and in auto mode) get
 * the app's progress through `onprogress`, and with `resetTimeoutOnProgress` a call that runs longer
 * than the client's `timeout` still succeeds, kept alive by heartbeats. Also the progress scenario
 * of the official conformance suite, against the tool it expects.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Progress,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Host, type HostVariant, hostVariants, startHost, startWorldHost } from '../helpers/hosts.js';
import {
  callRequest,
  createStreamingWorld,
  dataOf,
  postLive,
  type StreamingWorld,
} from '../helpers/streaming.js';

/** The run outlasts the client's timeout more than twice; heartbeats come three times per timeout. */
const RUN_MS = 1500;
const CLIENT_TIMEOUT_MS = 600;
const HEARTBEAT_MS = 200;

const sleeperResult = (ms: number) => ({
  content: [{ type: 'text', text: JSON.stringify({ slept: ms }) }],
  isError: false,
  structuredContent: { slept: ms },
});

const variant = hostVariants[0] as HostVariant;
let world: StreamingWorld;
/** Heartbeats every HEARTBEAT_MS, for the long calls. */
let host: Host;
/** Heartbeats off, so that only the app's progress reaches `onprogress`. */
let quiet: Host;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  const started = await startWorldHost(variant, createStreamingWorld, { heartbeatMs: HEARTBEAT_MS });
  ({ world, host } = started);
  quiet = await startHost(variant, started.pkg, world.options({ heartbeatMs: 0 }));
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});
afterAll(async () => {
  await Promise.all([host?.close(), quiet?.close()]);
});

const endpoint = (code: string, on = host) => new URL(on.path(code), on.url);

/** Heartbeats before the app reports anything: strictly increasing, between 0 and 1, no total. */
function expectHeartbeats(notes: Progress[]): void {
  expect(notes.length).toBeGreaterThanOrEqual(2);
  for (const [index, note] of notes.entries()) {
    expect(note).toEqual({ progress: note.progress });
    expect(note.progress > (index === 0 ? 0 : notes[index - 1]!.progress) && note.progress < 1).toBe(true);
  }
}

describe('the official v1 client (2025-11-25)', () => {
  async function connect(code: string, on = host): Promise<Client> {
    const client = new Client({ name: 'streaming-test', version: '1.0.0' });
    closers.push(client);
    await client.connect(new StreamableHTTPClientTransport(endpoint(code, on)));
    return client;
  }

  it("receives the app's progress through onprogress, then the result", async () => {
    const client = await connect(world.codes.report, quiet);
    const notes: Progress[] = [];
    const pending = client.callTool({ name: 'Report', arguments: {} }, undefined, {
      onprogress: (note) => notes.push(note),
    });
    const run = await world.nextRun();
    run.emit({ event: 'progress', progress: 1, total: 3, message: 'collecting figures' });
    run.emit({ event: 'progress', progress: 2, total: 3, message: 'drawing charts' });
    run.emit({ event: 'progress', progress: 3, total: 3, message: 'writing the summary' });
    run.finish({ pages: 12 });

    expect(await pending).toEqual({
      content: [{ type: 'text', text: '{"pages":12}' }],
      isError: false,
      structuredContent: { pages: 12 },
    });
    expect(notes).toEqual([
      { progress: 1, total: 3, message: 'collecting figures' },
      { progress: 2, total: 3, message: 'drawing charts' },
      { progress: 3, total: 3, message: 'writing the summary' },
    ]);
  });

  it('with resetTimeoutOnProgress, a call longer than its timeout succeeds thanks to heartbeats', async () => {
    const client = await connect(world.codes.sleeper);
    const notes: Progress[] = [];

    const result = await client.callTool({ name: 'Sleeper', arguments: { ms: RUN_MS } }, undefined, {
      timeout: CLIENT_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (note) => notes.push(note),
    });

    expect(result).toEqual(sleeperResult(RUN_MS));
    expectHeartbeats(notes);
  });

  it('without resetTimeoutOnProgress, the same call times out: the heartbeats are what keep it alive', async () => {
    const client = await connect(world.codes.sleeper);

    const failure = await client
      .callTool({ name: 'Sleeper', arguments: { ms: RUN_MS } }, undefined, {
        timeout: CLIENT_TIMEOUT_MS,
        onprogress: () => {},
      })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(ErrorCode.RequestTimeout);
  });
});

describe.each([
  ['pinned to 2026-07-28', { pin: '2026-07-28' }],
  ['in auto mode', 'auto'],
] as const)('the official v2 client %s', (_name, mode) => {
  async function connect(code: string, on = host): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'streaming-test', version: '2.0.0' },
      { versionNegotiation: { mode } },
    );
    closers.push(client);
    await client.connect(new ModernTransport(endpoint(code, on)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    return client;
  }

  it("receives the app's progress through onprogress, then the result", async () => {
    const client = await connect(world.codes.report, quiet);
    const notes: Progress[] = [];
    const pending = client.callTool(
      { name: 'Report', arguments: {} },
      { onprogress: (note) => notes.push(note) },
    );
    const run = await world.nextRun();
    expect(run.run.protocolVersion).toBe('2026-07-28');
    run.emit({ event: 'progress', progress: 1, total: 2, message: 'collecting figures' });
    run.emit({ event: 'progress', progress: 2, total: 2, message: 'writing the summary' });
    run.finish({ pages: 7 });

    expect(await pending).toEqual({
      content: [{ type: 'text', text: '{"pages":7}' }],
      isError: false,
      structuredContent: { pages: 7 },
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'express-app-mcp' }) },
    });
    expect(notes).toEqual([
      { progress: 1, total: 2, message: 'collecting figures' },
      { progress: 2, total: 2, message: 'writing the summary' },
    ]);
  });

  it('with resetTimeoutOnProgress, a call longer than its timeout succeeds thanks to heartbeats', async () => {
    const client = await connect(world.codes.sleeper);
    const notes: Progress[] = [];

    const result = await client.callTool(
      { name: 'Sleeper', arguments: { ms: RUN_MS } },
      { timeout: CLIENT_TIMEOUT_MS, resetTimeoutOnProgress: true, onprogress: (note) => notes.push(note) },
    );

    expect(result).toEqual({ ...sleeperResult(RUN_MS), _meta: expect.any(Object) });
    expectHeartbeats(notes);
  });

  it('without resetTimeoutOnProgress, the same call times out', async () => {
    const client = await connect(world.codes.sleeper);

    const failure = await client
      .callTool(
        { name: 'Sleeper', arguments: { ms: RUN_MS } },
        { timeout: CLIENT_TIMEOUT_MS, onprogress: () => {} },
      )
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SdkError);
    expect((failure as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
  });
});

describe('the conformance scenario tools-call-with-progress, against its tool test_tool_with_progress', () => {
  const TOKEN = 'progress-test-1';
  const expected = [0, 50, 100].map((value) => ({ progressToken: TOKEN, progress: value, total: 100 }));

  it('2025-11-25: the v1 client, with the token in _meta and its own progress handler, as the suite calls it', async () => {
    const client = new Client({ name: 'conformance-test-client', version: '1.0.0' });
    closers.push(client);
    await client.connect(new StreamableHTTPClientTransport(endpoint(world.codes.progressFixture, quiet)));
    const notes: unknown[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, (note) => {
      notes.push(note.params);
    });

    const result = await client.request(
      {
        method: 'tools/call',
        params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: TOKEN } },
      },
      CallToolResultSchema,
    );

    expect(notes).toEqual(expected);
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: '{"text":"test_tool_with_progress ran"}' }]);
  });

  it('2026-07-28: the stream carries the three notifications, then the complete result', async () => {
    const modern = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const reply = await postLive(
      quiet.url,
      quiet.path(world.codes.progressFixture),
      callRequest(1, 'test_tool_with_progress', TOKEN, modern),
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'test_tool_with_progress',
      },
    );
    const messages = (await reply.rest()).map(dataOf);

    expect(messages.slice(0, 3)).toEqual(
      expected.map((params) => ({ jsonrpc: '2.0', method: 'notifications/progress', params })),
    );
    expect(messages[3]).toEqual(
      expect.objectContaining({
        id: 1,
        result: expect.objectContaining({ resultType: 'complete', isError: false }),
      }),
    );
    expect(messages).toHaveLength(4);
  });
});
