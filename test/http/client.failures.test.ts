/**
 * Servers that cannot be used: nobody listening, an HTML error page, garbage, silence. Each gives a
 * `RemoteMcpError` that names the server by its URL without credentials or query, within the time
 * allowed; never a hang, never an unhandled rejection (the test runner fails on one). The same in
 * the 2025 era and in `auto`, whose `server/discover` comes first: whatever it gets short of an
 * outage, the 2025 handshake follows and says what is wrong.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, connectMcpServer } from '../../src/index.js';
import { expectEachCallItsFailure, htmlPageThenTruncated } from '../helpers/client-failures.js';
import {
  abortDuringListing,
  answerOrAccept,
  closedPort,
  failure,
  type RemoteServer,
  replyResult,
  startRawServer,
} from '../helpers/remote-servers.js';

const HTML_ERROR_PAGE =
  '<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1><p>nginx</p></body></html>';

describe.each(['2025', 'auto'] as const)('remote servers that fail (protocol %s)', (protocol) => {
  let server: RemoteServer | undefined;
  const connect = (url: string, options: Parameters<typeof connectMcpServer>[1] = {}) =>
    connectMcpServer(url, { protocol, ...options });
  /** The first request a client sends. */
  const opening = protocol === 'auto' ? 'server/discover' : 'initialize';

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('nobody listening: unreachable, with the reason', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp`;

    const error = await failure(connect(url, { timeoutMs: 2000 }));

    expect({ kind: error.kind, server: error.server, message: error.message }).toEqual({
      kind: 'unreachable',
      server: url,
      message: `MCP server ${url}: could not be reached (ECONNREFUSED)`,
    });
  });

  it('nobody listening at a neutral path: both transports tried, one clear error', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/`;

    const error = await failure(connect(url, { timeoutMs: 2000 }));

    expect(error.message).toBe(`MCP server ${url}: could not be reached (ECONNREFUSED)`);
  });

  it('the error names the server without credentials, query or fragment', async () => {
    const port = await closedPort();

    const error = await failure(
      connect(`http://admin:hunter2@127.0.0.1:${port}/mcp?api_key=s3cr3t#frag`, { timeoutMs: 2000 }),
    );

    expect(error.server).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(error.message).not.toMatch(/admin|hunter2|api_key|s3cr3t|frag/);
  });

  it('an HTML error page: the status, described, never quoted', async () => {
    server = await startRawServer((_message, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(HTML_ERROR_PAGE);
    });

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: 'http',
      status: 500,
      message: `MCP server ${server.url}: answered HTTP 500 with an HTML page`,
    });
  });

  it("a JSON-RPC error with an HTTP error status: the status and the server's message", async () => {
    server = await startRawServer((message, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message?.id ?? null,
          error: { code: -32600, message: 'MCP server not found' },
        }),
      );
    });

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect({
      kind: error.kind,
      status: error.status,
      rpcCode: error.rpcCode,
      message: error.message,
    }).toEqual({
      kind: 'http',
      status: 404,
      rpcCode: -32600,
      message: `MCP server ${server.url}: answered HTTP 404: MCP server not found`,
    });
  });

  it("the server's message is quoted on one line, without control characters, and cut when long", async () => {
    const long = `line one\n\u001b[31mline two\u0007 ${'x'.repeat(400)}`;
    server = await startRawServer((message, res) => {
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: message?.id ?? null, error: { code: -32600, message: long } }),
      );
    });

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    const quoted = `line one [31mline two ${'x'.repeat(400)}`.slice(0, 300);
    expect(error.message).toBe(`MCP server ${server.url}: answered HTTP 400: ${quoted}…`);
  });

  it('a JSON body that is no JSON-RPC error, with an HTTP error status: the status alone', async () => {
    server = await startRawServer((_message, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'maintenance', message: 'back soon' }));
    });

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: 'http',
      status: 503,
      message: `MCP server ${server.url}: answered HTTP 503`,
    });
  });

  it('an HTML error page on the event stream of an /sse server', async () => {
    server = await startRawServer((_message, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(HTML_ERROR_PAGE);
    }, '/sse');

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect({ kind: error.kind, status: error.status, message: error.message }).toEqual({
      kind: 'http',
      status: 502,
      message: `MCP server ${server.url}: answered HTTP 502 with an HTML page`,
    });
  });

  it.each([
    [
      'JSON that does not parse',
      'application/json',
      '{"jsonrpc":"2.0",',
      'answered initialize with a body that is not JSON',
    ],
    [
      'JSON that is not JSON-RPC',
      'application/json',
      '{"status":"ok"}',
      'answered initialize with a message that does not follow the MCP schema',
    ],
    [
      'plain text',
      'text/plain',
      'Welcome to my server!',
      'answered initialize with content type text/plain, neither JSON nor an event stream',
    ],
  ])('garbage (%s): an invalid reply', async (_name, contentType, body, reason) => {
    server = await startRawServer((_message, res) => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    });

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'invalid-reply',
      message: `MCP server ${server.url}: ${reason}`,
    });
  });

  it('a protocol version the client does not speak: an invalid reply that says so', async () => {
    server = await startRawServer((message, res) =>
      replyResult(res, message?.id, {
        protocolVersion: '1999-01-01',
        capabilities: {},
        serverInfo: { name: 'old', version: '0' },
      }),
    );

    const error = await failure(connect(server.url, { timeoutMs: 2000 }));

    expect(error.message).toBe(
      `MCP server ${server.url}: speaks protocol version 1999-01-01, which the client does not support`,
    );
  });

  it('never answers: a timeout after timeoutMs, for the first request', async () => {
    server = await startRawServer(() => {
      // Keeps the request open, never writes.
    });

    const error = await failure(connect(server.url, { timeoutMs: 300 }));

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'timeout',
      message: `MCP server ${server.url}: no answer to ${opening} within 300 ms`,
    });
  });

  it('an /sse server that never opens its event stream: a timeout too', async () => {
    server = await startRawServer(() => {}, '/sse');

    const error = await failure(connect(server.url, { timeoutMs: 300 }));

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'timeout',
      message: `MCP server ${server.url}: no answer to initialize within 300 ms`,
    });
  });

  it('an /sse server whose stream never names its endpoint: a timeout', async () => {
    server = await startRawServer((_message, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
    }, '/sse');

    const error = await failure(connect(server.url, { timeoutMs: 300 }));

    expect(error.kind).toBe('timeout');
  });

  it('connects, then never answers tools/list: a timeout for tools/list', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/list') return;
      answerOrAccept(message, res);
    });
    const connection = await connect(server.url, { timeoutMs: 300 });

    const error = await failure(connection.listTools());
    await connection.close();

    expect(error.message).toBe(`MCP server ${server.url}: no answer to tools/list within 300 ms`);
  });

  it('aborting a call while it lists the tools first rejects with the reason at once', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/list') return;
      answerOrAccept(message, res);
    });
    const connection = await connect(server.url, { timeoutMs: 20_000 });
    const { reason, error, waited } = await abortDuringListing(connection);
    await connection.close();

    expect(error).toBe(reason);
    expect(waited).toBeLessThan(10_000); // well before timeoutMs
    // The listing is abandoned on the server too, and no call follows it.
    expect(
      server.methods().filter((method) => method.startsWith('tools/') || method.endsWith('cancelled')),
    ).toEqual(['tools/list', 'notifications/cancelled']);
  });

  /**
   * How listing the tools fails on a server whose n-th `tools/list` reply is `page(n)`: the error's
   * kind and message, the server's URL, and how many pages it served.
   */
  const listingFailure = async (page: (n: number) => unknown) => {
    let listed = 0;
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/list') {
        return replyResult(res, message.id, page(++listed));
      }
      answerOrAccept(message, res);
    });
    const connection = await connect(server.url, { timeoutMs: 2000 });
    const error = await failure(connection.listTools());
    await connection.close();
    return { error: { kind: error.kind, message: error.message }, url: server.url, listed };
  };

  it('a tool list that does not follow the MCP schema: an invalid reply for tools/list', async () => {
    const { error, url } = await listingFailure(() => ({ tools: 'all of them' }));

    expect(error).toEqual({
      kind: 'invalid-reply',
      message: `MCP server ${url}: answered tools/list with a message that does not follow the MCP schema`,
    });
  });

  it('a failure belongs to its request: after an HTML error page, a truncated reply is called so', async () => {
    const answer = htmlPageThenTruncated();
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/call') answer(res, message.id);
      else answerOrAccept(message, res);
    });
    await expectEachCallItsFailure(await connect(server.url, { timeoutMs: 2000 }), server.url);
  });

  it.each([
    [
      'gives the same cursor again',
      (_page: number) => ({
        tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
        nextCursor: 'again',
      }),
      'answered tools/list with a cursor it had given before, which would page for ever',
      2,
    ],
    [
      'lists a name twice',
      (page: number) => ({
        tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
        ...(page === 1 ? { nextCursor: 'p2' } : {}),
      }),
      'answered tools/list with two tools named "echo"',
      2,
    ],
    [
      'pages on and on',
      (page: number) => ({
        tools: [{ name: `tool_${page}`, inputSchema: { type: 'object' } }],
        nextCursor: `p${page + 1}`,
      }),
      'answered tools/list with more than 100 pages, more than the client reads',
      100,
    ],
  ])(
    'a tool list that %s: an invalid reply, never a repeated or cut list',
    async (_name, page, reason, pages) => {
      const { error, url, listed } = await listingFailure(page);

      expect(error).toEqual({ kind: 'invalid-reply', message: `MCP server ${url}: ${reason}` });
      expect(listed).toBe(pages);
    },
  );

  describe('a reply that ends without the response fails the call at once, not after callTimeoutMs', () => {
    /**
     * A server whose `tools/call` gets `answer`, and a GET that resumes a stream `resume`; the GET
     * stream a client may open without resuming is refused (405). A call waits at most 20 s.
     */
    const calling = async (
      answer: (res: http.ServerResponse, id: unknown) => void,
      resume?: (res: http.ServerResponse) => void,
    ) => {
      server = await startRawServer((message, res, req) => {
        if (req.method === 'GET') {
          if (resume && req.headers['last-event-id']) return resume(res);
          res.writeHead(405);
          return res.end();
        }
        if (message?.method === 'tools/call') answer(res, message.id);
        else answerOrAccept(message, res);
      });
      return connect(server.url, { timeoutMs: 2000, callTimeoutMs: 20_000 });
    };
    /** The failure of a call of `echo` once the tools are listed: its kind and message, well before callTimeoutMs. */
    const callFailure = async (connection: Awaited<ReturnType<typeof calling>>) => {
      await connection.listTools();
      const started = Date.now();
      const error = await failure(connection.callTool('echo'));
      const waited = Date.now() - started;
      await connection.close();
      expect(waited).toBeLessThan(10_000); // well before callTimeoutMs
      return { kind: error.kind, message: error.message };
    };
    /** The Last-Event-ID of each GET the server got. */
    const resumptions = () =>
      server?.requests.filter((request) => request.method === 'GET').map((r) => r.headers['last-event-id']);
    /** An event id and no message (MCP 2025-11-25 transports: the event that makes a stream resumable), then a short retry. */
    const PRIMING = 'retry: 10\nid: call-1.0\ndata: \n\n';
    const PROGRESS =
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n';

    it.each([
      [
        'an event stream that ends without it',
        (res: http.ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(PROGRESS);
        },
        'closed',
        'ended the event stream of tools/call without its response',
      ],
      [
        'an event stream whose connection drops',
        (res: http.ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(PROGRESS, () => res.destroy());
        },
        'closed',
        'closed the connection during tools/call',
      ],
      [
        'a complete JSON reply to another request',
        (res: http.ServerResponse, id: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: `${id}-other`, result: { content: [] } }));
        },
        'invalid-reply',
        'answered tools/call with JSON that is not its response',
      ],
    ])('%s', async (_name, answer, kind, reason) => {
      expect(await callFailure(await calling(answer))).toEqual({
        kind,
        message: `MCP server ${server?.url}: ${reason}`,
      });
    });

    it('a stream that carried event ids is resumed first, and its response read', async () => {
      let call: unknown;
      const connection = await calling(
        (res, id) => {
          call = id;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(PRIMING);
        },
        (res) => {
          const response = {
            jsonrpc: '2.0',
            id: call,
            result: { content: [{ type: 'text', text: 'resumed' }] },
          };
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`id: call-1.1\ndata: ${JSON.stringify(response)}\n\n`);
        },
      );

      const result = await connection.callTool('echo');
      await connection.close();

      expect(result.text).toBe('resumed');
      expect(resumptions()).toEqual(['call-1.0']);
    });

    it('a stream that carried event ids and cannot be resumed: closed, once the client gives up', async () => {
      const connection = await calling(
        (res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(PRIMING);
        },
        (res) => {
          res.writeHead(404, { 'content-type': 'text/html' });
          res.end('<h1>Not Found</h1>');
        },
      );
      expect(await callFailure(connection)).toEqual({
        kind: 'closed',
        message: `MCP server ${server?.url}: closed the event stream during tools/call, and it could not be resumed`,
      });
      // As many resumptions as the SDK tries, each for the events after the last one.
      expect(resumptions()).toEqual(['call-1.0', 'call-1.0']);
    });
  });

  it('a JSON-RPC error from the server: the code and the server’s message', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32602, message: 'Unknown tool: nope' },
          }),
        );
        return;
      }
      answerOrAccept(message, res);
    });
    const connection = await connect(server.url, { timeoutMs: 2000 });

    const error = await failure(connection.callTool('nope'));
    await connection.close();

    expect({ kind: error.kind, rpcCode: error.rpcCode, message: error.message }).toEqual({
      kind: 'rpc',
      rpcCode: -32602,
      message: `MCP server ${server.url}: refused tools/call: Unknown tool: nope (JSON-RPC error -32602)`,
    });
  });

  it('output schemas are not enforced, as in Dify: an odd schema or a result that strays from it is still read', async () => {
    server = await startRawServer((message, res) => {
      const results: Record<string, unknown> = {
        'tools/list': {
          tools: [
            {
              name: 'forecast',
              inputSchema: { type: 'object' },
              outputSchema: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] },
            },
            // A schema no validator compiles must not cost the other tools.
            {
              name: 'odd',
              inputSchema: { type: 'object' },
              outputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
            },
          ],
        },
        // Neither structured content for the schema, nor the right type in the second call.
        'tools/call': (message?.params as { arguments?: { wrong?: boolean } })?.arguments?.wrong
          ? { content: [], structuredContent: { t: 'warm' } }
          : { content: [{ type: 'text', text: 'sunny' }] },
      };
      const result = results[message?.method ?? ''];
      if (result === undefined) {
        answerOrAccept(message, res);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message?.id, result }));
    });
    const connection = await connect(server.url, { timeoutMs: 2000 });

    const tools = await connection.listTools();
    const textOnly = await connection.callTool('forecast', {});
    const mistyped = await connection.callTool('forecast', { wrong: true });
    await connection.close();

    expect(tools.map((tool) => tool.name)).toEqual(['forecast', 'odd']);
    expect(textOnly).toMatchObject({ isError: false, text: 'sunny', variables: {} });
    expect(mistyped).toMatchObject({ isError: false, text: '', variables: { t: 'warm' } });
  });

  it('the server goes away between connecting and calling: unreachable', async () => {
    server = await startRawServer((message, res) => {
      answerOrAccept(message, res);
    });
    const connection = await connect(server.url, { timeoutMs: 2000 });
    await connection.listTools();
    await server.close();
    const url = server.url;
    server = undefined;

    const error = await failure(connection.callTool('echo'));
    await connection.close();

    // A refused new connection, or the kept-alive one found closed: either way, nobody answers.
    expect(error.message).toMatch(/: could not be reached \((ECONNREFUSED|UND_ERR_SOCKET)\)$/);
    expect(error.message.startsWith(`MCP server ${url}: `)).toBe(true);
  });

  it('credentials in the URL are sent as HTTP Basic authentication, and named nowhere', async () => {
    server = await startRawServer((message, res) => {
      answerOrAccept(message, res);
    });
    const url = server.url.replace('http://', 'http://ada:p%40ss@');

    const connection = await connect(url, { timeoutMs: 2000 });
    await connection.close();

    const basic = `Basic ${Buffer.from('ada:p@ss').toString('base64')}`;
    const requests = protocol === 'auto' ? 3 : 2; // server/discover, initialize, notifications/initialized
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(
      Array(requests).fill(basic),
    );
  });

  it('a URL that is not http(s) is a configuration error, before anything is sent', async () => {
    await expect(connect('ftp://127.0.0.1/mcp')).rejects.toThrow(
      new ConfigurationError('invalid_url', 'connectMcpServer: the server URL must be an http or https URL'),
    );
    await expect(connect('not a url')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(connect('not a url')).rejects.toMatchObject({
      code: 'invalid_url',
      message: 'connectMcpServer: the server URL is not a valid URL',
    });
  });

  it('credentials that are not valid percent-encoding: a configuration error that quotes neither them nor the URL', async () => {
    const error = await connect('http://ada:s3cr%E0%A4%A@127.0.0.1:1/mcp').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({
      code: 'invalid_url',
      message: 'connectMcpServer: the user name or password in the server URL is not valid percent-encoding',
    });
  });

  it('bad options are a configuration error naming the option', async () => {
    await expect(
      connect('http://127.0.0.1:1/mcp', { timeoutMs: -1, headers: { 'Bad Header': 'x' } }),
    ).rejects.toThrow(ConfigurationError);
    await expect(
      connect('http://127.0.0.1:1/mcp', { headers: { 'X-Key': 'a\r\nInjected: yes' } }),
    ).rejects.toThrow(/headers\.X-Key/);
  });
});
