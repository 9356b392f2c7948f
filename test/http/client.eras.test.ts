/**
 * The `protocol` option of `connectMcpServer` (README, "Calling remote MCP servers from your apps"):
 * `auto` asks `server/discover` first and speaks 2026-07-28 with a server that offers it; anything
 * else short of an outage is spoken to in the 2025 era, with the same results as `protocol: '2025'`.
 * `'2026-07-28'` speaks that revision or fails, with the same `RemoteMcpError`s as the 2025 era.
 */
import type http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, connectMcpServer } from '../../src/index.js';
import { type DemoHost, startDemoHost, textStats } from '../helpers/apps.js';
import { expectEachCallItsFailure, htmlPageThenTruncated } from '../helpers/client-failures.js';
import { SERVER_INFO } from '../helpers/demo-cases.js';
import {
  abortDuringListing,
  answerModernRequest,
  answerRequest,
  closedPort,
  expectListsAndEchoes,
  failure,
  type RemoteServer,
  startRawServer,
  startSdkServer,
  startSseServer,
  structuredResult,
  type ToolEvents,
} from '../helpers/remote-servers.js';

const MODERN = '2026-07-28';

/** The JSON-RPC method of each POST a server received after the first `from`. */
const postedSince = (server: RemoteServer, from: number) =>
  server.requests
    .slice(from)
    .filter((request) => request.method === 'POST')
    .map((request) => (request.body as { method?: string } | undefined)?.method);

describe('auto against a server of the 2025 era only (the official SDK 1.x server)', () => {
  let remote: RemoteServer & { events: ToolEvents };

  beforeAll(async () => {
    remote = await startSdkServer('/mcp');
  });
  afterAll(async () => {
    await remote?.close();
  });

  it('server/discover is refused, so the 2025 handshake follows: the same tools and results as protocol 2025', async () => {
    const legacy = await connectMcpServer(remote.url, { protocol: '2025' });
    const legacyTools = await legacy.listTools();
    await legacy.close();
    const before = remote.requests.length;

    const connection = await connectMcpServer(remote.url);
    const tools = await connection.listTools();
    const result = await connection.callTool('weather', { city: 'Oslo' });
    await connection.close();

    expect(connection.protocolVersion).toBe('2025-11-25');
    expect(connection.transport).toBe('streamable-http');
    expect(connection.serverInfo).toEqual({ name: 'remote-test-server', version: '3.1.4' });
    expect(tools).toEqual(legacyTools);
    expect(tools.map((tool) => tool.name)).toContain('weather');
    expect(result).toEqual(structuredResult({ temperature: -3, conditions: 'clear' }));
    expect(postedSince(remote, before)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
    // The probe is a request of the 2026-07-28 era; the handshake after it is a plain 2025 one.
    const [probe, initialize] = remote.requests.slice(before);
    expect(probe?.headers['mcp-protocol-version']).toBe(MODERN);
    expect(initialize?.headers['mcp-protocol-version']).toBeUndefined();
    expect(remote.requests.at(-1)?.method).toBe('DELETE');
  });

  it('protocol 2026-07-28 does not fall back: the HTTP status of the refusal, after one request', async () => {
    const before = remote.requests.length;

    const error = await failure(connectMcpServer(remote.url, { protocol: MODERN, timeoutMs: 2000 }));

    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: 'http',
      status: 400,
      // The official SDK server's own words for a request it refuses.
      message: `MCP server ${remote.url}: answered HTTP 400: No session`,
    });
    expect(postedSince(remote, before)).toEqual(['server/discover']);
  });
});

describe("auto against this package's own server", () => {
  let host: DemoHost;

  beforeAll(async () => {
    host = await startDemoHost({ apps: [textStats] });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('settles on 2026-07-28: the run is of that era, the result the same as in the 2025 era', async () => {
    const runsBefore = host.runs.length;
    const connection = await connectMcpServer(host.endpointOf(textStats));
    const result = await connection.callTool('Text_Stats', { text: 'the cat and the hat', top_n: 1 });
    await connection.close();

    expect(connection.protocolVersion).toBe(MODERN);
    expect(connection.serverInfo).toEqual(SERVER_INFO);
    const outputs = { word_count: 5, char_count: 19, top_words: ['the'] };
    expect(result).toEqual(
      structuredResult(outputs, {
        isError: false,
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      }),
    );
    expect(host.runs.slice(runsBefore).map((run) => run.protocolVersion)).toEqual([MODERN]);
  });
});

type Reply = (res: http.ServerResponse, body: string) => void;

const reply =
  (status: number, type: string | undefined, text: string): Reply =>
  (res) => {
    res.writeHead(status, type ? { 'content-type': type } : {});
    res.end(text);
  };

/** How servers of the 2025 era answer a method they do not know, before any handshake. */
const REFUSALS: [string, Reply][] = [
  [
    '400 with a JSON-RPC error, as the official SDK 1.x server',
    reply(
      400,
      'application/json',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No session"}}',
    ),
  ],
  ['404 with an HTML page', reply(404, 'text/html', '<h1>Not Found</h1>')],
  ['405 without a body', reply(405, undefined, '')],
  ['500 with an HTML page', reply(500, 'text/html', '<h1>Internal Server Error</h1>')],
  [
    '200 with a JSON-RPC "method not found" error',
    (res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const { id } = JSON.parse(body) as { id: unknown };
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
    },
  ],
  ['200 with {}', reply(200, 'application/json', '{}')],
  ['200 with an empty body', reply(200, 'application/json', '')],
  ['202 with an empty body', reply(202, undefined, '')],
  ['204 with Content-Type text/html', reply(204, 'text/html', '')],
];

describe('auto: whatever a 2025 server answers server/discover, the 2025 handshake follows', () => {
  let server: RemoteServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each(REFUSALS)('%s: connects in the 2025 era, lists and calls', async (_name, refuse) => {
    server = await startRawServer((message, res, _req, body) => {
      if (message?.method === 'server/discover') refuse(res, body);
      else if (!answerRequest(message, res)) reply(202, undefined, '')(res, body);
    });

    const connection = await connectMcpServer(server.url, { timeoutMs: 2000 });
    await expectListsAndEchoes(connection);

    expect(connection.protocolVersion).toBe('2025-06-18');
    expect(server.methods()).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
  });

  it.each<[string, Reply]>([
    ['200 with the request sent back', (res, body) => reply(200, 'application/json', body)(res, body)],
    ['an event stream that ends without a reply', reply(200, 'text/event-stream', ': nothing\n\n')],
  ])('%s: no reply to server/discover is silence, a timeout within timeoutMs', async (_name, refuse) => {
    server = await startRawServer((message, res, _req, body) => {
      if (message?.method === 'server/discover') refuse(res, body);
      else if (!answerRequest(message, res)) reply(202, undefined, '')(res, body);
    });

    const error = await failure(connectMcpServer(server.url, { timeoutMs: 300 }));

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'timeout',
      message: `MCP server ${server.url}: no answer to server/discover within 300 ms`,
    });
    expect(server.methods()).toEqual(['server/discover']);
  });

  it('a server whose server/discover offers only 2025 revisions: auto falls back, 2026-07-28 is refused', async () => {
    server = await startRawServer((message, res, _req, body) => {
      if (message?.method !== 'server/discover') {
        if (!answerRequest(message, res)) reply(202, undefined, '')(res, body);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const result = { resultType: 'complete', supportedVersions: ['2025-11-25'], capabilities: {} };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });

    const connection = await connectMcpServer(server.url, { timeoutMs: 2000 });
    await connection.close();
    const error = await failure(connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 2000 }));

    expect(connection.protocolVersion).toBe('2025-06-18');
    expect({ kind: error.kind, rpcCode: error.rpcCode }).toEqual({ kind: 'rpc', rpcCode: -32022 });
    expect(error.message).toBe(
      `MCP server ${server.url}: refused server/discover: Unsupported protocol version: ${MODERN} (JSON-RPC error -32022)`,
    );
  });

  it('an /sse path: no server/discover, the 2024-11-05 event stream at once', async () => {
    server = await startSseServer('/sse');

    const connection = await connectMcpServer(server.url);
    await connection.close();

    expect(connection).toMatchObject({ transport: 'sse', protocolVersion: '2025-11-25' });
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'GET /sse',
      'POST /sse/messages',
      'POST /sse/messages',
    ]);
  });
});

describe('protocol 2026-07-28 against hand-written servers', () => {
  let server: RemoteServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A 2026-07-28 server that answers `method` its own way. */
  const serve = (method: string, answer: (res: http.ServerResponse, id: unknown) => void) =>
    startRawServer((message, res) => {
      if (message?.method === method) answer(res, message.id);
      else if (!answerModernRequest(message, res)) reply(202, undefined, '')(res, '');
    });

  it('stateless requests with the configured headers, the version and the method on each', async () => {
    server = await startRawServer((message, res) => {
      if (!answerModernRequest(message, res)) reply(202, undefined, '')(res, '');
    });
    const url = server.url.replace('http://', 'http://ada:p%40ss@');

    const connection = await connectMcpServer(url, { protocol: MODERN, headers: { 'X-Tenant': 't1' } });
    await expectListsAndEchoes(connection, { loud: true });

    expect(connection).toMatchObject({
      transport: 'streamable-http',
      protocolVersion: MODERN,
      serverInfo: { name: 'hand-written', version: '0.0.2' },
    });
    const basic = `Basic ${Buffer.from('ada:p@ss').toString('base64')}`;
    expect(
      server.requests.map(({ method, headers, body }) => ({
        method,
        rpc: (body as { method?: string } | undefined)?.method,
        authorization: headers.authorization,
        tenant: headers['x-tenant'],
        version: headers['mcp-protocol-version'],
        name: headers['mcp-name'],
        meta: (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[
          'io.modelcontextprotocol/protocolVersion'
        ],
      })),
    ).toEqual(
      ['server/discover', 'tools/list', 'tools/call'].map((rpc) => ({
        method: 'POST',
        rpc,
        authorization: basic,
        tenant: 't1',
        version: MODERN,
        name: rpc === 'tools/call' ? 'echo' : undefined,
        meta: MODERN,
      })),
    );
  });

  it('nobody listening: unreachable, as in the 2025 era', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;

    const error = await failure(connectMcpServer(url, { protocol: MODERN, timeoutMs: 2000 }));

    expect(error.message).toBe(`MCP server ${url}: could not be reached (ECONNREFUSED)`);
  });

  it('never answers server/discover: a timeout after timeoutMs', async () => {
    server = await startRawServer(() => {});

    const error = await failure(connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 300 }));

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'timeout',
      message: `MCP server ${server.url}: no answer to server/discover within 300 ms`,
    });
  });

  it('a tool list that does not follow the MCP schema: an invalid reply for tools/list', async () => {
    server = await serve('tools/list', (res, id) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', tools: 'all' } }));
    });
    const connection = await connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 2000 });

    const error = await failure(connection.listTools());
    await connection.close();

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'invalid-reply',
      message: `MCP server ${server.url}: answered tools/list with a message that does not follow the MCP schema`,
    });
  });

  it('an HTML error page for a call: the status, described, never quoted', async () => {
    server = await serve('tools/call', (res) => reply(502, 'text/html', '<h1>Bad Gateway</h1>')(res, ''));
    const connection = await connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 2000 });

    const error = await failure(connection.callTool('echo'));
    await connection.close();

    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: 'http',
      status: 502,
      message: `MCP server ${server.url}: answered HTTP 502 with an HTML page`,
    });
  });

  it('a failure belongs to its request: after an HTML error page, a truncated reply is called so', async () => {
    server = await serve('tools/call', htmlPageThenTruncated());
    const connection = await connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 2000 });
    await expectEachCallItsFailure(connection, server.url);
  });

  it('aborting a call while it lists the tools first rejects with the reason at once', async () => {
    server = await serve('tools/list', () => {});
    const connection = await connectMcpServer(server.url, { protocol: MODERN, timeoutMs: 20_000 });
    const { reason, error, waited } = await abortDuringListing(connection);
    await connection.close();

    expect(error).toBe(reason);
    expect(waited).toBeLessThan(10_000); // well before timeoutMs
    expect(postedSince(server, 0)).toEqual(['server/discover', 'tools/list']);
  });

  it('a call answered with 202 and no reply fails at once, not after callTimeoutMs', async () => {
    server = await serve('tools/call', (res) => reply(202, undefined, '')(res, ''));
    const connection = await connectMcpServer(server.url, {
      protocol: MODERN,
      timeoutMs: 2000,
      callTimeoutMs: 60_000,
    });

    const error = await failure(connection.callTool('echo'));
    await connection.close();

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'invalid-reply',
      message: `MCP server ${server.url}: answered tools/call with HTTP 202 and no reply`,
    });
  });

  it.each([
    [
      'an event stream that ends without the response',
      (res: http.ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(': working\n\n');
      },
      'closed',
      'ended the event stream of tools/call without its response',
    ],
    [
      'an event stream whose connection drops',
      (res: http.ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': working\n\n', () => res.destroy());
      },
      'closed',
      'closed the connection during tools/call',
    ],
    [
      'a complete JSON reply to another request',
      (res: http.ServerResponse, id: unknown) =>
        reply(
          200,
          'application/json',
          JSON.stringify({ jsonrpc: '2.0', id: `${id}-other`, result: {} }),
        )(res, ''),
      'invalid-reply',
      'answered tools/call with JSON that is not its response',
    ],
  ])('%s fails the call at once, not after callTimeoutMs', async (_name, answer, kind, reason) => {
    server = await serve('tools/call', answer);
    const connection = await connectMcpServer(server.url, {
      protocol: MODERN,
      timeoutMs: 2000,
      callTimeoutMs: 20_000,
    });
    await connection.listTools();
    const started = Date.now();

    const error = await failure(connection.callTool('echo'));
    const waited = Date.now() - started;
    await connection.close();

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind,
      message: `MCP server ${server.url}: ${reason}`,
    });
    expect(waited).toBeLessThan(10_000); // well before callTimeoutMs
  });

  it('with transport "sse": a configuration error, before anything is sent', async () => {
    await expect(
      connectMcpServer('http://127.0.0.1:1/sse', { protocol: MODERN, transport: 'sse' }),
    ).rejects.toThrow(
      new ConfigurationError(
        'invalid_options',
        `connectMcpServer: invalid option "transport": cannot be 'sse' with protocol '2026-07-28', which runs over Streamable HTTP only`,
      ),
    );
  });
});
