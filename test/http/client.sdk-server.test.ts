/**
 * `connectMcpServer` in the 2025 era (`protocol: '2025'`) against the official SDK's server over
 * Streamable HTTP (with sessions): the tool list, results read as Dify reads them (variables, JSON,
 * text, files), progress, a slow tool, cancellation, and the session's end.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerConnection, RemoteMcpError } from '../../src/index.js';
import {
  PIXEL_PNG,
  type RemoteServer,
  startSdkServer,
  structuredResult,
  TONE_WAV,
  type ToolEvents,
} from '../helpers/remote-servers.js';

describe('connectMcpServer against an official SDK server over Streamable HTTP', () => {
  let remote: RemoteServer & { events: ToolEvents };
  const open: McpServerConnection[] = [];

  beforeAll(async () => {
    remote = await startSdkServer('/mcp');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.close()));
  });
  afterAll(async () => {
    await remote?.close();
  });

  async function connect(options: Parameters<typeof connectMcpServer>[1] = {}) {
    const connection = await connectMcpServer(remote.url, { protocol: '2025', ...options });
    open.push(connection);
    return connection;
  }

  it('connects over Streamable HTTP and lists every tool with its schemas', async () => {
    const connection = await connect();

    expect(connection.transport).toBe('streamable-http');
    expect(connection.serverInfo).toEqual({ name: 'remote-test-server', version: '3.1.4' });
    const tools = await connection.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'weather',
      'inventory',
      'stats',
      'media',
      'countdown',
      'slow',
      'broken',
    ]);
    expect(tools[0]).toEqual({
      name: 'weather',
      title: 'Weather',
      description: 'The weather in a city',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      outputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { temperature: { type: 'number' }, conditions: { type: 'string' } },
        required: ['temperature', 'conditions'],
        additionalProperties: false,
      },
    });
    expect(tools[1]).toEqual({
      name: 'inventory',
      description: 'Answers in JSON texts, without an output schema',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
    });
  });

  it('sends the configured headers with every request', async () => {
    const before = remote.requests.length;
    const connection = await connect({
      headers: { Authorization: 'Bearer remote-secret', 'X-Tenant': 't1' },
    });
    await connection.listTools();
    await connection.close();

    const sent = remote.requests.slice(before);
    expect(sent.map((request) => request.method)).toEqual(['POST', 'POST', 'POST', 'DELETE']);
    for (const request of sent) {
      expect(request.headers.authorization).toBe('Bearer remote-secret');
      expect(request.headers['x-tenant']).toBe('t1');
    }
  });

  it('a tool with an output schema: structured content becomes variables, its JSON text is not repeated in json', async () => {
    const connection = await connect();
    await connection.listTools();

    const result = await connection.callTool('weather', { city: 'Oslo' });

    expect(result).toEqual(structuredResult({ temperature: -3, conditions: 'clear' }));
  });

  it('calling before listing lists the tools first, so the output schema is known', async () => {
    const before = remote.requests.length;
    const connection = await connect();

    const result = await connection.callTool('weather', { city: 'Lyon' });

    expect(result.variables).toEqual({ temperature: 21, conditions: 'clear' });
    expect(remote.methods().slice(-4)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
    expect(remote.requests.length - before).toBe(4);
  });

  it('texts that are JSON objects or arrays are parsed into json; all texts are in text', async () => {
    const connection = await connect();

    const result = await connection.callTool('inventory');

    expect(result).toEqual({
      isError: false,
      text: 'Two items in stock:\n{"items":[{"sku":"A-1","count":2}]}\n [{"sku":"A-1"},{"sku":"B-2"}] \n42',
      json: [{ items: [{ sku: 'A-1', count: 2 }] }, [{ sku: 'A-1' }, { sku: 'B-2' }]],
      variables: {},
      files: [],
      raw: expect.objectContaining({ content: expect.any(Array) }),
    });
  });

  it('structured content without an output schema goes to json once, not again from its JSON text', async () => {
    const connection = await connect();

    const result = await connection.callTool('stats');

    expect(result.json).toEqual([{ mean: 2.5, count: 4 }]);
    expect(result.variables).toEqual({});
    expect(result.text).toBe('{"mean":2.5,"count":4}\nmean of 4 values');
  });

  it('image, audio, resource and resource_link blocks become files', async () => {
    const connection = await connect();

    const result = await connection.callTool('media');

    expect(result.text).toBe('Here are your files.');
    expect(result.files).toEqual([
      { data: PIXEL_PNG, mimeType: 'image/png', size: Buffer.from(PIXEL_PNG, 'base64').length },
      { data: TONE_WAV, mimeType: 'audio/wav', size: Buffer.from(TONE_WAV, 'base64').length },
      {
        url: 'https://files.example.com/reports/q3%20report.pdf',
        name: 'Q3 report',
        mimeType: 'application/pdf',
        size: 48213,
      },
      { data: 'AAEC', mimeType: 'application/octet-stream', name: 'data.bin', size: 3 },
      {
        data: Buffer.from('# To do').toString('base64'),
        mimeType: 'text/markdown',
        name: 'todo.md',
        size: 7,
      },
    ]);
  });

  it('passes progress notifications to onProgress, in order', async () => {
    const connection = await connect();
    const seen: unknown[] = [];

    const result = await connection.callTool('countdown', { from: 3 }, { onProgress: (p) => seen.push(p) });

    expect(result.text).toBe('liftoff');
    expect(seen).toEqual([
      { progress: 1, total: 3, message: '2 to go' },
      { progress: 2, total: 3, message: '1 to go' },
      { progress: 3, total: 3, message: '0 to go' },
    ]);
  });

  it("a tool's own failure is a result with isError, not an exception", async () => {
    const connection = await connect();

    const result = await connection.callTool('broken');

    expect(result).toEqual({
      isError: true,
      text: 'the database is down',
      json: [],
      variables: {},
      files: [],
      raw: { content: [{ type: 'text', text: 'the database is down' }], isError: true },
    });
  });

  it('a slow tool finishes within callTimeoutMs', async () => {
    const connection = await connect({ callTimeoutMs: 5_000 });

    const result = await connection.callTool('slow', { ms: 300 });

    expect(result.text).toBe('done after 300 ms');
  });

  it('a tool slower than callTimeoutMs: a timeout error naming the server, and the server is told to stop', async () => {
    const connection = await connect({ callTimeoutMs: 200 });
    const cancelledBefore = remote.events.cancelled;

    const error = await connection.callTool('slow', { ms: 10_000 }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RemoteMcpError);
    expect(error).toMatchObject({
      kind: 'timeout',
      server: remote.url,
      message: `MCP server ${remote.url}: no answer to tools/call within 200 ms`,
    });
    await expect.poll(() => remote.events.cancelled).toBe(cancelledBefore + 1);
    // The connection is still usable.
    expect((await connection.callTool('slow', { ms: 1 })).text).toBe('done after 1 ms');
  });

  it("aborting the caller's signal cancels the call and rejects with the signal's reason", async () => {
    const connection = await connect();
    const cancelledBefore = remote.events.cancelled;
    const controller = new AbortController();
    const reason = new Error('the user went away');

    const call = connection.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);

    await expect(call).rejects.toBe(reason);
    await expect.poll(() => remote.events.cancelled).toBe(cancelledBefore + 1);
    const cancel = remote.requests
      .filter((request) => (request.body as { method?: string })?.method === 'notifications/cancelled')
      .at(-1);
    expect(cancel?.body).toMatchObject({ params: { reason: 'Error: the user went away' } });
  });

  it('an unknown tool is an error result from this server', async () => {
    const connection = await connect();

    const result = await connection.callTool('no_such_tool');

    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/no_such_tool/);
  });

  it('close() ends the session with DELETE, once, however often it is called', async () => {
    const connection = await connectMcpServer(remote.url, { protocol: '2025' });
    const before = remote.requests.length;

    await Promise.all([connection.close(), connection.close()]);
    await connection.close();

    const sent = remote.requests.slice(before);
    expect(sent.map((request) => request.method)).toEqual(['DELETE']);
    expect(sent[0]?.headers['mcp-session-id']).toEqual(expect.any(String));
  });
});
