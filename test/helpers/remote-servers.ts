/**
 * Remote MCP servers for the client-direction suites, each on 127.0.0.1 and a free port:
 * - `startSdkServer`: the official SDK's `McpServer` over Streamable HTTP with sessions, as the SDK's
 *   own examples serve it, with a set of tools covering every kind of result;
 * - `startSseServer`: the same tools over the 2024-11-05 HTTP+SSE transport (`SSEServerTransport`);
 * - `startRawServer`: a hand-written `node:http` server, for servers that bend the rules.
 * Every server records the requests it received (method, path, headers, parsed JSON body).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Request, type Response } from 'express';
import { expect } from 'vitest';
import { z } from 'zod';
import { RemoteMcpError } from '../../src/index.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, when there was one. */
  body: unknown;
}

export interface RemoteServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The URL a client connects to. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The JSON-RPC methods received by POST, in order. */
  methods(): string[];
  close(): Promise<void>;
}

/** What the tools of the SDK servers saw happen. */
export interface ToolEvents {
  /** The `slow` tool's runs whose signal fired (the client cancelled them). */
  cancelled: number;
}

/** A 1×1 transparent PNG. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const TONE_WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

/** The tools every SDK server here offers. */
function toolServer(events: ToolEvents): McpServer {
  const server = new McpServer({ name: 'remote-test-server', version: '3.1.4' });
  server.registerTool(
    'weather',
    {
      title: 'Weather',
      description: 'The weather in a city',
      inputSchema: { city: z.string() },
      outputSchema: { temperature: z.number(), conditions: z.string() },
    },
    async ({ city }) => {
      const outputs = { temperature: city === 'Oslo' ? -3 : 21, conditions: 'clear' };
      return { content: [{ type: 'text', text: JSON.stringify(outputs) }], structuredContent: outputs };
    },
  );
  server.registerTool(
    'inventory',
    { description: 'Answers in JSON texts, without an output schema', inputSchema: {} },
    async () => ({
      content: [
        { type: 'text', text: 'Two items in stock:' },
        { type: 'text', text: '{"items":[{"sku":"A-1","count":2}]}' },
        { type: 'text', text: ' [{"sku":"A-1"},{"sku":"B-2"}] ' },
        { type: 'text', text: '42' },
      ],
    }),
  );
  server.registerTool(
    'stats',
    { description: 'Structured content without an output schema', inputSchema: {} },
    async () => ({
      content: [
        { type: 'text', text: '{"mean":2.5,"count":4}' },
        { type: 'text', text: 'mean of 4 values' },
      ],
      structuredContent: { mean: 2.5, count: 4 },
    }),
  );
  server.registerTool(
    'media',
    { description: 'Returns a file of every kind', inputSchema: {} },
    async () => ({
      content: [
        { type: 'text', text: 'Here are your files.' },
        { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
        { type: 'audio', data: TONE_WAV, mimeType: 'audio/wav' },
        {
          type: 'resource_link',
          uri: 'https://files.example.com/reports/q3%20report.pdf',
          name: 'Q3 report',
          mimeType: 'application/pdf',
          size: 48213,
        },
        {
          type: 'resource',
          resource: { uri: 'file:///exports/data.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
        },
        {
          type: 'resource',
          resource: { uri: 'memo://notes/todo.md', mimeType: 'text/markdown', text: '# To do' },
        },
      ],
    }),
  );
  server.registerTool(
    'countdown',
    { description: 'Reports progress on the way', inputSchema: { from: z.number() } },
    async ({ from }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= from; step++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: from, message: `${from - step} to go` },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { content: [{ type: 'text', text: 'liftoff' }] };
    },
  );
  server.registerTool(
    'slow',
    { description: 'Takes `ms` milliseconds, unless cancelled', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) =>
      new Promise((resolve) => {
        const timer = setTimeout(
          () => resolve({ content: [{ type: 'text', text: `done after ${ms} ms` }] }),
          ms,
        );
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          events.cancelled++;
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
      }),
  );
  server.registerTool('broken', { description: 'Always fails', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'the database is down' }],
    isError: true,
  }));
  return server;
}

function recorder(requests: RecordedRequest[]) {
  return (req: Request, _res: Response, next: () => void) => {
    requests.push({ method: req.method, path: req.path, headers: req.headers, body: req.body });
    next();
  };
}

function listen(app: http.RequestListener, path: string, requests: RecordedRequest[]): Promise<RemoteServer> {
  const server = http.createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        origin,
        url: `${origin}${path}`,
        requests,
        methods: () =>
          requests
            .filter((request) => request.method === 'POST')
            .map((request) => (request.body as { method?: string } | undefined)?.method ?? '(none)'),
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * An Express app with the SDK's tools behind `route`, listening; closing it closes every session's
 * transport first.
 */
async function serveSdk<T extends { close(): Promise<void> }>(
  path: string,
  route: (app: express.Express, sessions: Map<string, T>, events: ToolEvents) => void,
): Promise<RemoteServer & { events: ToolEvents }> {
  const events: ToolEvents = { cancelled: 0 };
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, T>();
  const app = express();
  app.use(express.json(), recorder(requests));
  route(app, sessions, events);
  const server = await listen(app, path, requests);
  return {
    ...server,
    events,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await server.close();
    },
  };
}

/**
 * The official SDK server over Streamable HTTP at `path`, with sessions: one transport per
 * `initialize`, found again by its `Mcp-Session-Id`, removed on DELETE.
 */
export function startSdkServer(path = '/mcp'): Promise<RemoteServer & { events: ToolEvents }> {
  return serveSdk<StreamableHTTPServerTransport>(path, (app, sessions, events) => {
    app.all(path, async (req, res) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || req.body?.method !== 'initialize') {
          res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session' } });
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await toolServer(events).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, req.body);
    });
  });
}

/**
 * The official SDK server over the 2024-11-05 HTTP+SSE transport: `GET ssePath` opens the event
 * stream, whose `endpoint` event points at `ssePath + '/messages'`. Nothing answers a POST to
 * `ssePath` itself, as on the servers of that era (the host's plain 404 page).
 */
export function startSseServer(ssePath: string): Promise<RemoteServer & { events: ToolEvents }> {
  const messagesPath = `${ssePath}/messages`;
  return serveSdk<SSEServerTransport>(ssePath, (app, sessions, events) => {
    app.get(ssePath, async (_req, res) => {
      const transport = new SSEServerTransport(messagesPath, res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      await toolServer(events).connect(transport);
    });
    app.post(messagesPath, async (req, res) => {
      const transport = sessions.get(String(req.query.sessionId));
      if (!transport) {
        res.status(404).send('unknown session');
        return;
      }
      await transport.handlePostMessage(req, res, req.body);
    });
  });
}

export type RawHandler = (
  message: { method?: string; id?: unknown; params?: unknown } | undefined,
  res: http.ServerResponse,
  req: http.IncomingMessage,
  body: string,
) => void;

/** A hand-written server: `handle` answers every request, with its JSON body parsed when it has one. */
export async function startRawServer(handle: RawHandler, path = '/mcp'): Promise<RemoteServer> {
  const requests: RecordedRequest[] = [];
  const app: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let message: Parameters<RawHandler>[0];
      try {
        message = body ? JSON.parse(body) : undefined;
      } catch {
        message = undefined;
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: message });
      handle(message, res, req, body);
    });
  };
  return listen(app, path, requests);
}

/** A minimal, well-behaved answer to the requests a client sends, for hand-written servers. */
export function answerRequest(
  message: { method?: string; id?: unknown } | undefined,
  res: http.ServerResponse,
): boolean {
  if (!message || message.id === undefined) return false;
  const results: Record<string, unknown> = {
    initialize: {
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'hand-written', version: '0.0.1' },
    },
    'tools/list': {
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} } }],
    },
    'tools/call': { content: [{ type: 'text', text: 'echoed' }] },
  };
  const result = results[message.method ?? ''];
  if (result === undefined) return false;
  replyResult(res, message.id, result);
  return true;
}

/**
 * Lists the tools of a connection to a server `answerRequest` answers for, calls `echo` with
 * `args`, closes it, and checks both: the one echo tool, and its answer as the client gives it.
 */
export async function expectListsAndEchoes(
  connection: {
    listTools(): Promise<unknown>;
    callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
    close(): Promise<void>;
  },
  args?: Record<string, unknown>,
): Promise<void> {
  const tools = await connection.listTools();
  const result = await connection.callTool('echo', args);
  await connection.close();
  expect(tools).toEqual([
    { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} } },
  ]);
  expect(result).toEqual({
    isError: false,
    text: 'echoed',
    json: [],
    variables: {},
    files: [],
    raw: { content: [{ type: 'text', text: 'echoed' }] },
  });
}

/** A JSON reply carrying the JSON-RPC result of request `id`. */
export function replyResult(res: http.ServerResponse, id: unknown, result: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

/**
 * Calls `echo` on a connection that has not listed the tools yet, and aborts the call after 100 ms,
 * while the server holds the listing that comes first: what the call rejected with, and how long it took.
 */
export async function abortDuringListing(connection: {
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal }): Promise<unknown>;
}): Promise<{ reason: Error; error: unknown; waited: number }> {
  const controller = new AbortController();
  const reason = new Error('the user stopped the run');
  const started = Date.now();
  setTimeout(() => controller.abort(reason), 100);
  const error = await connection
    .callTool('echo', {}, { signal: controller.signal })
    .catch((caught) => caught);
  return { reason, error, waited: Date.now() - started };
}

/** `answer` (`answerRequest` by default), and an empty 202 for what it does not answer: notifications, responses. */
export function answerOrAccept(
  message: { method?: string; id?: unknown } | undefined,
  res: http.ServerResponse,
  answer = answerRequest,
): void {
  if (answer(message, res)) return;
  res.writeHead(202);
  res.end();
}

/**
 * The same as `answerRequest` in the 2026-07-28 era (docs/http-contract.md, "The 2026-07-28 era"):
 * `server/discover` instead of `initialize`, and every result says `resultType: "complete"`.
 */
export function answerModernRequest(
  message: { method?: string; id?: unknown } | undefined,
  res: http.ServerResponse,
): boolean {
  if (!message || message.id === undefined) return false;
  const results: Record<string, unknown> = {
    'server/discover': {
      supportedVersions: ['2025-11-25', '2026-07-28'],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hand-written', version: '0.0.2' } },
    },
    'tools/list': {
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} } }],
      ttlMs: 0,
      cacheScope: 'private',
    },
    'tools/call': { content: [{ type: 'text', text: 'echoed' }] },
  };
  const result = results[message.method ?? ''];
  if (result === undefined) return false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } }));
  return true;
}

/** A port nothing listens on: bound once to learn a free one, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What `callTool` gives for a tool that returns `outputs` as structured content and as its JSON text. */
export function structuredResult(outputs: Record<string, unknown>, raw: Record<string, unknown> = {}) {
  const content = [{ type: 'text', text: JSON.stringify(outputs) }];
  return {
    isError: false,
    text: JSON.stringify(outputs),
    json: [],
    variables: outputs,
    files: [],
    raw: { content, structuredContent: outputs, ...raw },
  };
}

/** The `RemoteMcpError` a request fails with; a request that succeeds fails the test. */
export async function failure(promise: Promise<unknown>): Promise<RemoteMcpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RemoteMcpError);
  return error as RemoteMcpError;
}
