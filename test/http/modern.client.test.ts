/**
 * docs/http-contract.md, "The 2026-07-28 era", as a 2026-07-28 client sees it: the official v2 client (`@modelcontextprotocol/client`)
 * pinned to 2026-07-28 and in `auto` mode, against a real host on 127.0.0.1. The client's fetch is
 * wrapped so the tests also see the wire: the headers of every request and the raw results, which
 * the client itself hides (it strips `resultType`).
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_VERSION, SUPPORTED_VERSIONS } from '../../src/versions.js';
import { createWorld, DESCRIPTIONS, type World } from '../helpers/apps.js';
import { type Host, type HostVariant, hostVariants, startWorldHost, worldHostFor } from '../helpers/hosts.js';

const MODERN = '2026-07-28';
const SERVER_INFO = { name: 'express-app-mcp', version: PACKAGE_VERSION };
const CLIENT_INFO = { name: 'modern-test-client', version: '2.4.0' };

interface Exchange {
  method: string;
  headers: { protocolVersion: string | null; method: string | null; name: string | null };
  meta: Record<string, unknown> | undefined;
  status: number;
  /** The parsed reply body, when it is JSON. */
  reply: { result?: Record<string, unknown>; error?: unknown } | undefined;
}

/** A fetch that records every exchange, for the assertions on the wire. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const headers = new Headers(init?.headers);
    const type = response.headers.get('content-type') ?? '';
    exchanges.push({
      method: body?.method,
      headers: {
        protocolVersion: headers.get('mcp-protocol-version'),
        method: headers.get('mcp-method'),
        name: headers.get('mcp-name'),
      },
      meta: body?.params?._meta,
      status: response.status,
      reply: type.startsWith('application/json')
        ? ((await response.clone().json()) as Exchange['reply'])
        : undefined,
    });
    return response;
  };
}

describe('the official v2 client on protocol 2026-07-28', () => {
  const variant = hostVariants[0] as HostVariant;
  let world: World;
  let host: Host;
  let legacyTools: unknown;
  /** The same, as 2025-11-25 lists it: with `execution.taskSupport`. */
  let handshakeTools: unknown;
  const clients: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ world, host } = await startWorldHost(variant, createWorld));
    // The 2025-11-25 view of the same tool, through the v1 client's handshake.
    const legacy = new LegacyClient({ name: 'legacy-client', version: '1.0.0' });
    await legacy.connect(new LegacyTransport(endpoint(world.codes.textStats)));
    // 2026-07-28 tools carry no `execution` (SEP-2663: the server decides which calls become tasks).
    handshakeTools = (await legacy.listTools()).tools;
    legacyTools = (handshakeTools as { execution?: unknown }[]).map(({ execution: _, ...tool }) => tool);
    await legacy.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await host?.close();
  });

  const endpoint = (code: string) => new URL(host.path(code), host.url);

  async function connect(mode: 'auto' | { pin: string }, code = world.codes.textStats) {
    const exchanges: Exchange[] = [];
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode } });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(endpoint(code), { fetch: recordingFetch(exchanges) }),
    );
    return { client, exchanges };
  }

  describe.each([
    ['pinned to 2026-07-28', { pin: MODERN }],
    ['in auto mode', 'auto'],
  ] as const)('%s', (_name, mode) => {
    it('connects with server/discover, without an initialize handshake', async () => {
      const { client, exchanges } = await connect(mode);

      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
      expect(client.getInstructions()).toBe(DESCRIPTIONS.textStats);
      expect(exchanges.map((exchange) => exchange.method)).toEqual(['server/discover']);
      expect(exchanges[0]?.status).toBe(200);
      expect(exchanges[0]?.reply?.result).toEqual({
        resultType: 'complete',
        supportedVersions: [...SUPPORTED_VERSIONS],
        capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
        instructions: DESCRIPTIONS.textStats,
        ttlMs: 60_000,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    });

    it('lists the tool as a 2025-11-25 client sees it, with cache hints', async () => {
      const { client, exchanges } = await connect(mode);

      const listed = await client.listTools();

      expect(listed.tools).toEqual(legacyTools);
      expect(listed.tools.map((tool) => tool.name)).toEqual(['Text_Stats']);
      const reply = exchanges.at(-1)?.reply?.result;
      expect(reply).toEqual({
        resultType: 'complete',
        tools: legacyTools,
        ttlMs: 60_000,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    });

    it('lists the same tools in the same order on every request', async () => {
      const { client } = await connect(mode);

      const names = [];
      for (let i = 0; i < 3; i++) names.push((await client.listTools()).tools.map((tool) => tool.name));

      expect(names).toEqual([['Text_Stats'], ['Text_Stats'], ['Text_Stats']]);
    });

    it('calls the tool: structured content, and the app runs at protocol 2026-07-28', async () => {
      const { client, exchanges } = await connect(mode);
      const runsBefore = world.runs.length;

      const result = await client.callTool({ name: 'Text_Stats', arguments: { text: 'a b c d', top_n: 2 } });

      const outputs = { word_count: 4, top_words: ['a', 'b'] };
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        structuredContent: outputs,
        isError: false,
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
      expect(exchanges.at(-1)?.reply?.result).toEqual({
        resultType: 'complete',
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        structuredContent: outputs,
        isError: false,
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
      const run = world.runs[runsBefore];
      expect(world.runs.length).toBe(runsBefore + 1);
      expect(run?.protocolVersion).toBe(MODERN);
      expect(run?.inputs).toEqual({ text: 'a b c d', top_n: 2 });
    });

    it('sends the standard headers and the _meta envelope, and every result says resultType complete', async () => {
      const { client, exchanges } = await connect(mode);
      await client.listTools();
      await client.callTool({ name: 'Text_Stats', arguments: { text: 'hello' } });

      expect(exchanges.map(({ method, headers, status }) => ({ method, headers, status }))).toEqual([
        {
          method: 'server/discover',
          headers: { protocolVersion: MODERN, method: 'server/discover', name: null },
          status: 200,
        },
        {
          method: 'tools/list',
          headers: { protocolVersion: MODERN, method: 'tools/list', name: null },
          status: 200,
        },
        {
          method: 'tools/call',
          headers: { protocolVersion: MODERN, method: 'tools/call', name: 'Text_Stats' },
          status: 200,
        },
      ]);
      for (const exchange of exchanges) {
        expect(exchange.meta?.['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
        expect(exchange.meta?.['io.modelcontextprotocol/clientCapabilities']).toBeTypeOf('object');
        expect(exchange.reply?.result?.resultType).toBe('complete');
      }
    });

    it('arguments that fail the form come back as an error result the model can act on (SEP-1303)', async () => {
      const { client } = await connect(mode);
      const runsBefore = world.runs.length;

      const result = await client.callTool({ name: 'Text_Stats', arguments: { top_n: 'many' } });

      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: expect.stringMatching(/^Invalid arguments for tool Text_Stats: .*text.*top_n/),
          },
        ],
        isError: true,
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
      expect(world.runs.length).toBe(runsBefore);
    });

    it('an unknown tool is a JSON-RPC invalid-params error', async () => {
      const { client } = await connect(mode);

      const failure = await client.callTool({ name: 'nope', arguments: {} }).then(
        () => null,
        (error: unknown) => error,
      );

      expect(failure).toBeInstanceOf(ProtocolError);
      expect(failure).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: nope') });
    });
  });

  it('auto mode settles on 2026-07-28 from one discover, which also lists the 2025 versions', async () => {
    const { exchanges } = await connect('auto');

    expect(exchanges.map((exchange) => [exchange.method, exchange.status])).toEqual([
      ['server/discover', 200],
    ]);
    const supported = exchanges[0]?.reply?.result?.supportedVersions;
    expect(supported).toContain(MODERN);
    expect(supported).toContain('2025-11-25');
  });

  it('the first call of a server creates its end user, named after the _meta clientInfo', async () => {
    const { client } = await connect({ pin: MODERN }, world.codes.faqBot);
    const runsBefore = world.runs.length;

    const result = await client.callTool({ name: 'FAQ_Bot', arguments: { query: 'hours?' } });

    expect(result).toMatchObject({ content: [{ type: 'text', text: 'You asked: hours?' }], isError: false });
    expect(world.runs[runsBefore]?.endUser.name).toBe(`${CLIENT_INFO.name}@${CLIENT_INFO.version}`);
  });

  it('a client pinned to a version this server does not speak fails to connect with -32022', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: '2099-01-01' } } });

    const failure = await client
      .connect(new StreamableHTTPClientTransport(endpoint(world.codes.textStats)))
      .then(
        () => null,
        (error: unknown) => error,
      );

    expect(failure).toMatchObject({ code: -32022 });
    await client.close();
  });

  it('the v2 client in its default legacy mode still gets the 2025-11-25 handshake', async () => {
    const exchanges: Exchange[] = [];
    const client = new Client(CLIENT_INFO);
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(endpoint(world.codes.textStats), {
        fetch: recordingFetch(exchanges),
      }),
    );

    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await client.listTools()).tools).toEqual(handshakeTools);
    expect(exchanges[0]?.method).toBe('initialize');
    expect(exchanges.at(-1)?.reply?.result).toEqual({ tools: handshakeTools });
  });
});

describe.each(hostVariants)('client disconnect cancels the run on $name', (variant) => {
  const suite = worldHostFor(variant, createWorld);

  const fired = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });

  it('aborting the HTTP request of a modern tools/call fires the run’s AbortSignal', async () => {
    const disconnect = new AbortController();
    const call = fetch(new URL(suite.host.path(suite.world.codes.slow), suite.host.url), {
      method: 'POST',
      signal: disconnect.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'Slow',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'Slow',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const slow = await suite.world.nextSlowRun();
    expect(slow.run.signal.aborted).toBe(false);

    disconnect.abort();

    await expect(call).rejects.toThrow();
    await fired(slow.run.signal);
    expect(slow.run.signal.aborted).toBe(true);
    expect(slow.run.protocolVersion).toBe(MODERN);
    expect(suite.world.reports).toEqual([]);
  });

  it('a v2 client that abandons a call fires the run’s AbortSignal', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(suite.host.path(suite.world.codes.slow), suite.host.url)),
    );
    const abandon = new AbortController();
    const call = client.callTool({ name: 'Slow', arguments: {} }, { signal: abandon.signal });
    const slow = await suite.world.nextSlowRun();

    abandon.abort();

    await expect(call).rejects.toThrow();
    await fired(slow.run.signal);
    expect(slow.run.signal.aborted).toBe(true);
    await client.close();
  });

  it('a run that finishes before the client goes away is not aborted', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(suite.host.path(suite.world.codes.slow), suite.host.url)),
    );
    const call = client.callTool({ name: 'Slow', arguments: {} });
    const slow = await suite.world.nextSlowRun();

    slow.release('done');

    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'done' }], isError: false });
    await client.close();
    expect(slow.run.signal.aborted).toBe(false);
  });
});
