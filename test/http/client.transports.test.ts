/**
 * Which transport `connectMcpServer` uses in the 2025 era (`protocol: '2025'`; the 2026-07-28
 * revision has Streamable HTTP only): the path decides for `…/mcp` (Streamable HTTP) and
 * `…/sse` (the 2024-11-05 HTTP+SSE transport); any other path tries Streamable HTTP first and falls
 * back to HTTP+SSE on 400, 404 or 405 (MCP 2025-03-26 transports, "Backwards Compatibility").
 */
import type http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, RemoteMcpError } from '../../src/index.js';
import {
  answerModernRequest,
  answerOrAccept,
  answerRequest,
  type RemoteServer,
  startRawServer,
  startSdkServer,
  startSseServer,
} from '../helpers/remote-servers.js';

const ERA = { protocol: '2025' } as const;

describe.each([
  ['at an /sse path', '/sse'],
  ['at a neutral path', '/events'],
])('a legacy HTTP+SSE server (the SDK’s SSEServerTransport) %s', (_name, path) => {
  let remote: RemoteServer;

  beforeAll(async () => {
    remote = await startSseServer(path);
  });
  afterAll(async () => {
    await remote?.close();
  });

  it('connects, lists the tools and calls one, with the configured headers on every request', async () => {
    const connection = await connectMcpServer(remote.url, {
      ...ERA,
      headers: { Authorization: 'Bearer sse-secret' },
    });
    try {
      expect(connection.transport).toBe('sse');
      expect(connection.serverInfo).toEqual({ name: 'remote-test-server', version: '3.1.4' });
      expect((await connection.listTools()).map((tool) => tool.name)).toContain('weather');
      const result = await connection.callTool('weather', { city: 'Oslo' });
      expect(result.variables).toEqual({ temperature: -3, conditions: 'clear' });
    } finally {
      await connection.close();
    }
    for (const request of remote.requests) expect(request.headers.authorization).toBe('Bearer sse-secret');
  });

  it(
    path === '/sse'
      ? 'goes straight to the event stream: no POST to the /sse path'
      : 'tries Streamable HTTP first, then opens the event stream when the POST answers 404',
    async () => {
      const before = remote.requests.length;
      const connection = await connectMcpServer(remote.url, ERA);
      await connection.close();

      const sent = remote.requests.slice(before).map(({ method, path: at }) => `${method} ${at}`);
      const handshake = [
        `GET ${path}`,
        `POST ${path}/messages`, // initialize
        `POST ${path}/messages`, // notifications/initialized
      ];
      expect(sent).toEqual(path === '/sse' ? handshake : [`POST ${path}`, ...handshake]);
    },
  );

  it('progress notifications arrive over the event stream', async () => {
    const connection = await connectMcpServer(remote.url, ERA);
    const seen: number[] = [];
    try {
      await connection.callTool(
        'countdown',
        { from: 2 },
        { onProgress: ({ progress }) => seen.push(progress) },
      );
    } finally {
      await connection.close();
    }
    expect(seen).toEqual([1, 2]);
  });
});

describe('the transport option and the path rules', () => {
  let sdkAtRoot: RemoteServer;
  let sdkAtMcp: RemoteServer;
  let notFound: RemoteServer;

  beforeAll(async () => {
    sdkAtRoot = await startSdkServer('/');
    sdkAtMcp = await startSdkServer('/mcp');
    notFound = await startRawServer((_message, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><title>Not Found</title><h1>Not Found</h1>');
    }, '/');
  });
  afterAll(async () => {
    await Promise.all([sdkAtRoot?.close(), sdkAtMcp?.close(), notFound?.close()]);
  });

  it('a Streamable HTTP server at a neutral path is used as such, with no SSE attempt', async () => {
    const connection = await connectMcpServer(sdkAtRoot.url, ERA);
    await connection.close();

    expect(connection.transport).toBe('streamable-http');
    expect(sdkAtRoot.requests.map((request) => request.method)).toEqual(['POST', 'POST', 'DELETE']);
  });

  it('a trailing slash after /mcp still means Streamable HTTP', async () => {
    const server = await startRawServer((message, res) => {
      answerOrAccept(message, res);
    }, '/mcp/');
    try {
      const connection = await connectMcpServer(server.url, ERA);
      await connection.close();
      expect(connection.transport).toBe('streamable-http');
    } finally {
      await server.close();
    }
  });

  it('transport "sse" against a Streamable HTTP server: a clear error, no fallback', async () => {
    const error = await connectMcpServer(sdkAtMcp.url, { ...ERA, transport: 'sse', timeoutMs: 2000 }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(RemoteMcpError);
    expect(error).toMatchObject({ kind: 'http', status: 400, server: sdkAtMcp.url });
    expect(sdkAtMcp.requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('a path that serves neither transport: the error names what each transport got', async () => {
    const error = await connectMcpServer(`${notFound.url}tools`, { ...ERA, timeoutMs: 2000 }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(RemoteMcpError);
    expect((error as RemoteMcpError).message).toBe(
      `MCP server ${notFound.url}tools: answered HTTP 404 with an HTML page over Streamable HTTP, and answered HTTP 404 with an HTML page over HTTP+SSE`,
    );
    expect(error).toMatchObject({ kind: 'http', status: 404 });
    expect(notFound.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
  });
});

describe.each(['2025', 'auto', '2026-07-28'] as const)(
  'a server that redirects /mcp to /mcp/ (protocol %s)',
  (protocol) => {
    let server: RemoteServer | undefined;

    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    const answerInEra = protocol === '2026-07-28' ? answerModernRequest : answerRequest;

    /** Answers at `/mcp/`; every request to `/mcp` is sent there, or to `elsewhere`, with `status`. */
    const redirecting = (status: number, elsewhere?: string) =>
      startRawServer((message, res, req) => {
        if (req.url === '/mcp') {
          res.writeHead(status, { location: elsewhere ?? '/mcp/', 'content-type': 'text/html' });
          res.end('<a href="/mcp/">Moved</a>');
          return;
        }
        answerOrAccept(message, res, answerInEra);
      });

    it.each([307, 308])('a %i to the same origin is followed: connects, lists and calls', async (status) => {
      server = await redirecting(status);
      const url = `${server.origin}/mcp`;

      const connection = await connectMcpServer(url, { protocol, timeoutMs: 2000 });
      const tools = await connection.listTools();
      const result = await connection.callTool('echo');
      await connection.close();

      expect(connection.transport).toBe('streamable-http');
      expect(tools.map((tool) => tool.name)).toEqual(['echo']);
      expect(result.text).toBe('echoed');
      // Each request is sent to /mcp, then again to /mcp/ with the same method and body.
      const posted = server.requests.filter((request) => request.method === 'POST');
      expect(posted.length % 2).toBe(0);
      for (let i = 0; i < posted.length; i += 2) {
        expect([posted[i]?.path, posted[i + 1]?.path]).toEqual(['/mcp', '/mcp/']);
        expect(posted[i + 1]?.body).toEqual(posted[i]?.body);
      }
    });

    it('a redirect followed is no failure: a truncated reply after it is called so', async () => {
      server = await startRawServer((message, res, req) => {
        if (req.url === '/mcp') {
          res.writeHead(307, { location: '/mcp/' });
          res.end();
          return;
        }
        if (message?.method === 'tools/call') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{`);
          return;
        }
        answerOrAccept(message, res, answerInEra);
      });
      const url = `${server.origin}/mcp`;
      const connection = await connectMcpServer(url, { protocol, timeoutMs: 2000 });

      const error = await connection.callTool('echo').catch((caught: unknown) => caught);
      await connection.close();

      expect(error).toBeInstanceOf(RemoteMcpError);
      expect(error).toMatchObject({
        kind: 'invalid-reply',
        message: `MCP server ${url}: answered tools/call with a body that is not JSON`,
      });
    });

    it('a redirect to another origin is not followed: the status, and that it was not followed', async () => {
      server = await redirecting(307);
      const elsewhere = server.origin.replace('127.0.0.1', 'localhost');
      await server.close();
      server = await redirecting(307, `${elsewhere}/mcp/`);
      const url = `${server.origin}/mcp`;

      const error = await connectMcpServer(url, { protocol, timeoutMs: 2000 }).catch(
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(RemoteMcpError);
      expect(error).toMatchObject({
        kind: 'http',
        status: 307,
        message: `MCP server ${url}: answered HTTP 307, a redirect the client does not follow`,
      });
    });
  },
);

describe('a 2024-11-05 event stream that ends and cannot be opened again', () => {
  let server: RemoteServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('fails the calls still waiting for their response at once, not after callTimeoutMs', async () => {
    let stream: http.ServerResponse | undefined;
    server = await startRawServer((message, res, req) => {
      if (req.method === 'GET') {
        if (stream) {
          res.writeHead(404, { 'content-type': 'text/html' });
          return res.end('<h1>Not Found</h1>');
        }
        stream = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.write('retry: 10\n\nevent: endpoint\ndata: /sse/messages\n\n');
      }
      res.writeHead(202);
      res.end();
      // The responses come over the event stream; a call's never does, the stream ends instead.
      if (message?.method === 'tools/call') return stream?.end();
      const answer = { writeHead: () => {}, end: (text: string) => stream?.write(`data: ${text}\n\n`) };
      answerRequest(message, answer as unknown as http.ServerResponse);
    }, '/sse');
    const connection = await connectMcpServer(server.url, { ...ERA, timeoutMs: 2000, callTimeoutMs: 20_000 });
    await connection.listTools();
    const started = Date.now();

    const error = await connection.callTool('echo').catch((caught: unknown) => caught);
    const waited = Date.now() - started;
    await connection.close();

    expect(connection.transport).toBe('sse');
    expect(error).toBeInstanceOf(RemoteMcpError);
    expect(error).toMatchObject({
      kind: 'closed',
      message: `MCP server ${server.url}: closed the event stream during tools/call, and it could not be opened again`,
    });
    expect(waited).toBeLessThan(10_000); // well before callTimeoutMs
    expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(2);
  });
});
