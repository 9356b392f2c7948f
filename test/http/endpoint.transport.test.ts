/**
 * docs/http-contract.md, rows 1 and 4 to 8: what the endpoint answers before it looks at any server. Every reply is a
 * JSON-RPC envelope (or a 202), never the host's HTML 404 page or error handler, on Express 4 and 5,
 * with and without a global `express.json()` mounted before the router.
 *
 * How a host should mount the router relative to `express.json()`: mount `mcpServer()` BEFORE a
 * global `express.json()` (or give the parser only the host's own routes). The router then reads
 * the body itself: `maxBodyBytes` governs every body, chunked or not, and a body that is not JSON is
 * a JSON-RPC parse error. Mounted after a global parser, the router still works, taking the body
 * the parser produced; but the parser runs first and answers its own failures through the host's
 * error handler, which no router mounted after it can intercept (Express skips every non-error
 * middleware while an error is pending): bad JSON, a JSON scalar (strict mode), a body over the
 * parser's `limit` (100 kB by default) or in another charset never reach the router. A chunked
 * body is then measured by the parser's `limit` only, and an empty chunked body arrives as `{}`.
 */
import express5, { type NextFunction, type Request, type Response } from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from '../helpers/apps.js';
import {
  HOST_ERROR_PAGE,
  HOST_NOT_FOUND_PAGE,
  type Host,
  hostVariants,
  loadPackage,
  type Reply,
  serveApp,
  startHost,
  worldHostFor,
} from '../helpers/hosts.js';
import {
  expectRpcError,
  expectRpcReply,
  expectRpcResult,
  pingOfSize,
  request,
  rpcError,
} from '../helpers/rpc.js';

const MAX_BODY_BYTES = 1024;

/** What the test host's own error handler writes: the reply of a host parser that failed before the router. */
function expectHostErrorPage(reply: Reply): void {
  expect({ status: reply.status, contentType: reply.headers['content-type'], text: reply.text }).toEqual({
    status: 500,
    contentType: 'text/html; charset=utf-8',
    text: HOST_ERROR_PAGE,
  });
}

describe.each(hostVariants)('the endpoint transport on $name', (variant) => {
  const suite = worldHostFor(variant, createWorld, { maxBodyBytes: MAX_BODY_BYTES });

  const ping = (headers: Record<string, string | undefined> = {}, id: string | number = 1) =>
    suite.host.post(suite.world.codes.textStats, request(id, 'ping'), headers);

  describe('row 1: only POST is served', () => {
    it.each(['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'])(
      '%s answers 405 with Allow: POST and a JSON-RPC error',
      async (method) => {
        const reply = await suite.host.send({
          method,
          path: suite.host.path(suite.world.codes.textStats),
          headers: { accept: 'text/event-stream', 'content-type': undefined },
        });
        expectRpcError(reply, 405, null, -32600, `Method not allowed: ${method}; use POST`);
        expect(reply.headers.allow).toBe('POST');
      },
    );

    it('HEAD answers 405 with Allow: POST and no body', async () => {
      const reply = await suite.host.send({
        method: 'HEAD',
        path: suite.host.path(suite.world.codes.textStats),
      });
      expect({
        status: reply.status,
        allow: reply.headers.allow,
        contentType: reply.headers['content-type'],
        text: reply.text,
      }).toEqual({ status: 405, allow: 'POST', contentType: 'application/json', text: '' });
    });

    it('a code with a malformed percent-escape answers 404 with a JSON-RPC error, not the host error page', async () => {
      const reply = await suite.host.send({
        path: suite.host.path('%ZZnotacode'),
        body: request(1, 'ping'),
        headers: { 'mcp-protocol-version': '2025-11-25' },
      });
      expectRpcError(reply, 404, null, -32600, 'MCP server not found');
    });

    it('a GET for an unknown server code is still 405, not the host 404 page', async () => {
      const reply = await suite.host.send({
        method: 'GET',
        path: suite.host.path('nope'),
        headers: { 'content-type': undefined },
      });
      expectRpcError(reply, 405, null, -32600, 'Method not allowed: GET; use POST');
    });
  });

  describe('row 4: the body must be JSON', () => {
    const unsupported = rpcError(
      null,
      -32600,
      'Unsupported Media Type: Content-Type must be application/json',
    );

    it.each([
      ['text/plain', 'text/plain'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['no Content-Type at all', undefined],
    ])('%s answers 415', async (_label, contentType) => {
      const reply = await ping({ 'content-type': contentType });
      expectRpcReply(reply, 415, unsupported);
    });

    if (!variant.globalJson) {
      it('application/json in another charset than UTF-8 answers 415 (JSON is UTF-8)', async () => {
        const reply = await ping({ 'content-type': 'application/json; charset=iso-8859-1' });
        expectRpcReply(reply, 415, unsupported);
      });
    } else {
      it("application/json in another charset is refused by the host's own parser", async () => {
        expectHostErrorPage(await ping({ 'content-type': 'application/json; charset=iso-8859-1' }));
      });
    }

    it.each([
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
      'application/json ; charset="utf-8"',
    ])('%s is accepted', async (contentType) => {
      expectRpcResult(await ping({ 'content-type': contentType }), 1, {});
    });
  });

  describe('row 5: the client must accept JSON or an event stream', () => {
    it.each([
      'text/html',
      'application/xml, text/html;q=0.9',
      'application/json;q=0',
      'application/json; q=0.000, text/event-stream;q=0',
    ])('Accept: %s answers 406', async (accept) => {
      const reply = await ping({ accept });
      expectRpcError(
        reply,
        406,
        null,
        -32600,
        'Not Acceptable: the client must accept application/json or text/event-stream',
      );
    });

    it.each([
      ['absent', undefined],
      ['application/json', 'application/json'],
      ['text/event-stream alone', 'text/event-stream'],
      ['*/*', '*/*'],
      ['application/*', 'application/*'],
      ['with weights and other types', 'text/html, application/json;q=0.5'],
      ['in capitals', 'APPLICATION/JSON'],
    ])('Accept %s is served', async (_label, accept) => {
      expectRpcResult(await ping({ accept }), 1, {});
    });
  });

  describe('row 6: bodies larger than maxBodyBytes', () => {
    const tooLarge = (limit: number) =>
      rpcError(null, -32600, `Payload Too Large: the body exceeds ${limit} bytes`);

    it('a body of exactly maxBodyBytes is served', async () => {
      const body = pingOfSize(MAX_BODY_BYTES);
      expectRpcResult(await suite.host.post(suite.world.codes.textStats, body), 1, {});
    });

    it('a body one byte over maxBodyBytes with a Content-Length answers 413 and closes the connection', async () => {
      const reply = await suite.host.post(suite.world.codes.textStats, pingOfSize(MAX_BODY_BYTES + 1));
      expectRpcReply(reply, 413, tooLarge(MAX_BODY_BYTES));
      expect(reply.headers.connection).toBe('close');
    });

    it('a chunked body of exactly maxBodyBytes is served', async () => {
      const body = pingOfSize(MAX_BODY_BYTES);
      const reply = await suite.host.send({
        path: suite.host.path(suite.world.codes.textStats),
        chunks: [body.slice(0, 100), body.slice(100)],
      });
      expectRpcResult(reply, 1, {});
    });

    if (!variant.globalJson) {
      it('a chunked body one byte over maxBodyBytes, without Content-Length, answers 413', async () => {
        const body = pingOfSize(MAX_BODY_BYTES + 1);
        const reply = await suite.host.send({
          path: suite.host.path(suite.world.codes.textStats),
          chunks: [body.slice(0, 600), body.slice(600)],
        });
        expectRpcReply(reply, 413, tooLarge(MAX_BODY_BYTES));
        expect(reply.headers.connection).toBe('close');
      });
    } else {
      // The host's parser read the chunked body before the router ran; only its own limit measured it.
      it('a chunked body over maxBodyBytes but within the host parser limit is served', async () => {
        const body = pingOfSize(MAX_BODY_BYTES + 1);
        const reply = await suite.host.send({
          path: suite.host.path(suite.world.codes.textStats),
          chunks: [body.slice(0, 600), body.slice(600)],
        });
        expectRpcResult(reply, 1, {});
      });

      it("a body over the host parser's own limit is refused by the parser, through the host's error handler", async () => {
        const body = pingOfSize(100 * 1024 + 1); // express.json() default limit: 100 kB
        const reply = await suite.host.send({
          path: suite.host.path(suite.world.codes.textStats),
          chunks: [body.slice(0, 50_000), body.slice(50_000)],
        });
        expectHostErrorPage(reply);
      });
    }
  });

  describe('row 7: a body that is not JSON', () => {
    /** The whole reply to a body that is not JSON: 400, -32700, id null. */
    const expectParseError = (reply: Reply, message: string) =>
      expectRpcError(reply, 400, null, -32700, `Parse error: ${message}`);

    it('an empty body answers 400 with -32700 and id null', async () => {
      expectParseError(await suite.host.post(suite.world.codes.textStats, ''), 'the body is empty');
    });

    it('a body that starts with a UTF-8 byte order mark is read as JSON', async () => {
      const reply = await suite.host.post(
        suite.world.codes.textStats,
        `\uFEFF${JSON.stringify(request(7, 'ping'))}`,
      );
      expectRpcResult(reply, 7, {});
    });

    const notJson = [
      ['broken JSON', '{"jsonrpc":"2.0","id":1,"method":"ping"'],
      ['two JSON values', '{"jsonrpc":"2.0","id":1,"method":"ping"} {}'],
      ['single quotes', "{'jsonrpc':'2.0','id':1,'method':'ping'}"],
    ];

    if (!variant.globalJson) {
      it.each(notJson)('%s answers 400 with -32700 and id null', async (_label, body) => {
        const reply = await suite.host.post(suite.world.codes.textStats, body);
        expectParseError(reply, 'the body is not valid JSON');
      });

      it('only whitespace answers 400 with -32700', async () => {
        expectParseError(await suite.host.post(suite.world.codes.textStats, ' \n '), 'the body is empty');
      });

      it('an empty chunked body answers 400 with -32700', async () => {
        const reply = await suite.host.send({
          path: suite.host.path(suite.world.codes.textStats),
          chunks: [''],
        });
        expectParseError(reply, 'the body is empty');
      });
    } else {
      it.each([...notJson, ['only whitespace', ' \n ']])(
        "%s is refused by the host's own parser, through the host's error handler",
        async (_label, body) => {
          expectHostErrorPage(await suite.host.post(suite.world.codes.textStats, body));
        },
      );

      it('an empty chunked body arrives from the parser as {} and is an invalid request', async () => {
        const reply = await suite.host.send({
          path: suite.host.path(suite.world.codes.textStats),
          chunks: [''],
        });
        expectRpcError(
          reply,
          400,
          null,
          -32600,
          'Invalid request: jsonrpc: jsonrpc must be "2.0"; method: method must be a string',
          {
            issues: [
              { path: 'jsonrpc', message: 'jsonrpc must be "2.0"' },
              { path: 'method', message: 'method must be a string' },
            ],
          },
        );
      });
    }
  });

  describe('row 8: a JSON body that is not an object', () => {
    const invalid = (id: string | number | null, text: string, issues: { path: string; message: string }[]) =>
      rpcError(id, -32600, `Invalid request: ${text}`, { issues });

    const scalars = [
      ['a number', '42'],
      ['a string', '"ping"'],
      ['null', 'null'],
    ];
    if (!variant.globalJson) {
      it.each(scalars)('a JSON body that is %s answers 400 -32600 with id null', async (_label, body) => {
        const reply = await suite.host.post(suite.world.codes.textStats, body);
        expectRpcReply(
          reply,
          400,
          invalid(null, 'a JSON-RPC message must be a JSON object', [
            { path: '', message: 'a JSON-RPC message must be a JSON object' },
          ]),
        );
      });
    } else {
      it.each(scalars)(
        "a JSON body that is %s is refused by the host's strict parser, through the host's error handler",
        async (_label, body) => {
          expectHostErrorPage(await suite.host.post(suite.world.codes.textStats, body));
        },
      );
    }
  });

  it('the router also serves a trailing slash and leaves other paths to the host', async () => {
    const reply = await suite.host.send({
      path: `${suite.host.path(suite.world.codes.textStats)}/extra`,
      body: request(1, 'ping'),
    });
    expect({ status: reply.status, contentType: reply.headers['content-type'] }).toEqual({
      status: 404,
      contentType: 'text/html; charset=utf-8',
    });
  });

  it('a router mounted under a path answers there, and only there', async () => {
    const pkg = await loadPackage(variant.major);
    const mounted = await startHost(variant, pkg, suite.world.options(), { mountPath: '/api/v1' });
    try {
      expectRpcResult(await mounted.post(suite.world.codes.textStats, request(1, 'ping')), 1, {});
      const root = await mounted.send({
        path: `/mcp/server/${suite.world.codes.textStats}/mcp`,
        body: request(1, 'ping'),
      });
      expect({ status: root.status, text: root.text }).toEqual({ status: 404, text: HOST_NOT_FOUND_PAGE });
    } finally {
      await mounted.close();
    }
  });

  it('other paths of the host are left to the host', async () => {
    const reply = await suite.host.send({ path: '/mcp/server', body: request(1, 'ping') });
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 404, text: HOST_NOT_FOUND_PAGE });
  });
});

describe.each([4, 5] as const)('Express %i host that mounts express.json() after the router', (major) => {
  let world: World;
  let host: Host;

  beforeAll(async () => {
    const pkg = await loadPackage(major);
    world = await createWorld(pkg.memoryServerStore());
    const express = major === 4 ? express4 : express5;
    const app = express();
    app.use(pkg.mcpServer(world.options({ maxBodyBytes: MAX_BODY_BYTES })));
    app.use(express.json());
    app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).type('html').send(HOST_ERROR_PAGE);
    });
    host = await serveApp(app, { name: `Express ${major}`, major, globalJson: false });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('bad JSON is a JSON-RPC parse error', async () => {
    const reply = await host.post(world.codes.textStats, '{"jsonrpc":');
    expectRpcError(reply, 400, null, -32700, 'Parse error: the body is not valid JSON');
  });

  it('a chunked body over maxBodyBytes answers 413', async () => {
    const body = pingOfSize(MAX_BODY_BYTES + 1);
    const reply = await host.send({
      path: host.path(world.codes.textStats),
      chunks: [body.slice(0, 9), body.slice(9)],
    });
    expectRpcError(reply, 413, null, -32600, `Payload Too Large: the body exceeds ${MAX_BODY_BYTES} bytes`);
  });

  it('a valid request is served', async () => {
    expectRpcResult(await host.post(world.codes.textStats, request('p', 'ping')), 'p', {});
  });
});

it("the Express 4 hosts get Express 4's own Router, as a real Express 4 backend would", async () => {
  const shape = async (major: 4 | 5) => {
    const { mcpServer } = await loadPackage(major);
    const router = mcpServer({ resolveServer: async () => null, runApp: () => ({ answer: '' }) });
    return '_params' in router; // Express 4's Router keeps `router.param(fn)` callbacks there; Express 5's has none
  };
  expect({ 4: await shape(4), 5: await shape(5) }).toEqual({ 4: true, 5: false });
});
