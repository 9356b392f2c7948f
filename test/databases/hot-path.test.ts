/**
 * The hot path is tuned (one controller per call, envelopes recognised without zod, cached codes
 * answered without the database). These tests hold the behaviour those shortcuts must keep: every
 * way of stopping a call still stops it with the right words, the shortcut accepts exactly what
 * the schema accepts, and a cached code really costs no query.
 */
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../src/errors/mcp-error.js';
import * as pkg from '../../src/index.js';
import {
  type AppRun,
  type HostApp,
  knexServerStore,
  type McpServerOptions,
  memoryServerStore,
  migrate,
  type ServerStore,
} from '../../src/index.js';
import { MessageSchema } from '../../src/protocol/messages.js';
import { parseMessage } from '../../src/protocol/parse.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { hostVariants, startHost } from '../helpers/hosts.js';
import { untilListening } from '../helpers/stores.js';

const ECHO: HostApp = {
  id: 'echo',
  name: 'Echo',
  mode: 'workflow',
  description: 'Echoes its text back',
  inputForm: [{ type: 'text-input', variable: 'text', required: true, description: 'The text to echo' }],
  outputs: [{ variable: 'text', type: 'string' }],
};

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

interface Running {
  url: (code: string) => string;
  /** Resolves once every connection open now has closed on the server's side. */
  allConnectionsClosed: () => Promise<void>;
  close: () => Promise<void>;
}

async function listen(store: ServerStore, options: Partial<McpServerOptions>): Promise<Running> {
  const host = await startHost(hostVariants[0]!, pkg, {
    resolveServer: store.resolver((appId) => (appId === ECHO.id ? ECHO : null)),
    runApp: async ({ inputs }) => ({ outputs: { text: inputs.text } }),
    ...options,
  });
  return {
    url: (code) => `${host.url}${host.path(code)}`,
    allConnectionsClosed: () => host.allConnectionsClosed(),
    close: () => host.close(),
  };
}

const call = (id: number | string, text = 'hello') => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'Echo', arguments: { text } },
});

async function post(url: string, body: unknown, signal?: AbortSignal) {
  const response = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** A `runApp` whose runs wait until their signal fires; it records each run's signal. */
function waitingRunApp() {
  const signals: AbortSignal[] = [];
  let started: () => void = () => {};
  const runApp = (run: AppRun) => {
    signals.push(run.signal);
    started();
    return new Promise<never>((_, reject) => {
      run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true });
    });
  };
  const nextStart = () => new Promise<void>((resolve) => (started = resolve));
  return { runApp, signals, nextStart };
}

const errorResult = (id: number | string, text: string) => ({
  status: 200,
  contentType: 'application/json',
  body: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } },
});

describe('stopping a tools/call', () => {
  let store: ServerStore;
  let code: string;
  let running: Running | undefined;

  beforeAll(async () => {
    store = memoryServerStore();
    const server = await store.createServer({
      tenantId: 't',
      appId: ECHO.id,
      name: ECHO.name,
      description: '',
      parameters: {},
    });
    code = server.serverCode;
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('notifications/cancelled aborts the running call, which answers that it was cancelled', async () => {
    const app = waitingRunApp();
    running = await listen(store, { runApp: app.runApp });
    const started = app.nextStart();
    const pending = post(running.url(code), call('call-1'));
    await started;
    const cancelled = await post(running.url(code), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'call-1' },
    });
    expect(cancelled).toEqual({ status: 202, contentType: null, body: undefined });
    expect(await pending).toEqual(errorResult('call-1', 'the call was cancelled'));
    expect(app.signals[0]?.aborted).toBe(true);
  });

  it('a cancel names its call exactly: the integer id 7 does not stop the call with the string id "7"', async () => {
    const app = waitingRunApp();
    running = await listen(store, { runApp: app.runApp, callTimeoutMs: 300 });
    const started = app.nextStart();
    const pending = post(running.url(code), call('7'));
    await started;
    await post(running.url(code), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7 },
    });
    expect(await pending).toEqual(errorResult('7', 'the app did not finish within 300 ms'));
  });

  it('a call that outlives callTimeoutMs is aborted and says how long it was given', async () => {
    const app = waitingRunApp();
    running = await listen(store, { runApp: app.runApp, callTimeoutMs: 50 });
    expect(await post(running.url(code), call(3))).toEqual(
      errorResult(3, 'the app did not finish within 50 ms'),
    );
    expect(app.signals[0]?.aborted).toBe(true);
  });

  it('a 2025 client that goes away mid-call does not cancel the run (only 2026-07-28 makes a disconnect a cancellation)', async () => {
    const app = waitingRunApp();
    const server = await listen(store, { runApp: app.runApp });
    running = server;
    const started = app.nextStart();
    const client = new AbortController();
    const pending = post(server.url(code), call(4), client.signal).catch((error: unknown) => error);
    await started;
    const signal = app.signals[0] as AbortSignal;
    client.abort();
    expect(await pending).toBeInstanceOf(Error);
    await server.allConnectionsClosed();
    expect(signal.aborted).toBe(false);
    // The run is still registered: an explicit cancel reaches it.
    await post(server.url(code), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4 },
    });
    expect(signal.aborted).toBe(true);
  });

  it('a finished call leaves nothing behind: the same id runs again, and a late cancel stops nothing', async () => {
    running = await listen(store, {});
    const ok = {
      status: 200,
      contentType: 'application/json',
      body: {
        jsonrpc: '2.0',
        id: 5,
        result: {
          content: [{ type: 'text', text: '{"text":"again"}' }],
          isError: false,
          structuredContent: { text: 'again' },
        },
      },
    };
    expect(await post(running.url(code), call(5, 'again'))).toEqual(ok);
    await post(running.url(code), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 5 },
    });
    expect(await post(running.url(code), call(5, 'again'))).toEqual(ok);
  });
});

describe('a tools/list reply serialized once per tool and version', () => {
  let running: Running;
  let code: string;

  beforeAll(async () => {
    const store = memoryServerStore();
    code = (
      await store.createServer({
        tenantId: 't',
        appId: ECHO.id,
        name: ECHO.name,
        description: '',
        parameters: {},
      })
    ).serverCode;
    running = await listen(store, {});
  });
  afterAll(async () => {
    await running?.close();
  });

  const tool = {
    name: 'Echo',
    title: 'Echo',
    description: 'Echoes its text back',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to echo' } },
      required: ['text'],
    },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  };

  it.each([0, 42, -7, '', 'list-1', 'quote " backslash \\ line\u2028separator', '日本'])(
    'is exactly the JSON text of its body for the id %j',
    async (id) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
      const response = await fetch(running.url(code), { method: 'POST', headers: HEADERS, body });
      const text = await response.text();
      expect({ status: response.status, contentType: response.headers.get('content-type') }).toEqual({
        status: 200,
        contentType: 'application/json',
      });
      expect(text).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [tool] } }));
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    },
  );

  it('follows the version: 2025-03-26 lists the tool without title and output schema', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { ...HEADERS, 'mcp-protocol-version': '2025-03-26' };
    const response = await fetch(running.url(code), { method: 'POST', headers, body });
    const { name, description, inputSchema } = tool;
    expect(await response.text()).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name, description, inputSchema }] } }),
    );
  });
});

describe('the envelope shortcut accepts exactly what the schema accepts', () => {
  const payloads: unknown[] = [
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 0, method: 'ping', params: {} },
    { jsonrpc: '2.0', id: 'abc', method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } },
    { jsonrpc: '2.0', id: null, method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true },
    { jsonrpc: '2.0', id: -0, method: 'ping' },
    { jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER, method: 'ping' },
    { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: true, method: 'ping' },
    { jsonrpc: '2.0', id: {}, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: 1 },
    { jsonrpc: '1.0', id: 1, method: 'ping' },
    { jsonrpc: 2, id: 1, method: 'ping' },
    { id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: Object.create(null) },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: new Date(0) },
    JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"a":1},"b":2}}'),
    null,
    'ping',
    42,
    [],
  ];

  it.each(payloads.map((payload) => [JSON.stringify(payload) ?? String(payload), payload]))(
    '%s',
    (_, payload) => {
      const parsed = MessageSchema.safeParse(payload);
      let message: ReturnType<typeof parseMessage> | McpError;
      try {
        message = parseMessage(payload);
      } catch (error) {
        message = error as McpError;
      }
      if (!parsed.success) {
        expect(message).toBeInstanceOf(McpError);
        expect((message as McpError).kind).toBe('invalidRequest');
        return;
      }
      expect(message).not.toBeInstanceOf(McpError);
      const { jsonrpc, method, id, params } = message as ReturnType<typeof parseMessage>;
      expect({ jsonrpc, method, id, params: params === undefined ? undefined : { ...params } }).toEqual({
        jsonrpc: parsed.data.jsonrpc,
        method: parsed.data.method,
        id: parsed.data.id,
        params: parsed.data.params,
      });
    },
  );
});

describeEach(databases)('a cached code on $name', (kind) => {
  let database: TestDatabase;
  let knex: Knex;
  let queries: string[];

  beforeAll(async () => {
    database = await kind.create();
    knex = database.connect();
    await migrate(knex);
    queries = [];
    knex.on('query', (query: { sql: string }) => queries.push(query.sql));
  });
  afterAll(async () => {
    await database?.destroy();
  });

  async function serve(cacheTtlMs: number) {
    const store = knexServerStore(knex, { cacheTtlMs });
    const server = await store.createServer({
      tenantId: `t-${cacheTtlMs}`,
      appId: ECHO.id,
      name: ECHO.name,
      description: '',
      parameters: {},
    });
    return { store, running: await listen(store, {}), code: server.serverCode };
  }

  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  it('answers tools/list and tools/call without a database query once the code and end user are known', async () => {
    const { store, running, code } = await serve(60_000);
    try {
      const first = await post(running.url(code), call(1));
      expect(first.body.result.structuredContent).toEqual({ text: 'hello' });
      // Once the store hears the other instances, it reads the code once more (see untilListening).
      await untilListening(store);
      expect((await post(running.url(code), list)).status).toBe(200);
      queries.length = 0;
      for (let i = 0; i < 5; i++) {
        expect((await post(running.url(code), list)).body.result.tools[0].name).toBe('Echo');
        expect((await post(running.url(code), call(i))).body.result.structuredContent).toEqual({
          text: 'hello',
        });
      }
      expect(queries).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('with the cache off, every request looks its code up', async () => {
    const { running, code } = await serve(0);
    try {
      await post(running.url(code), call(1));
      queries.length = 0;
      expect((await post(running.url(code), list)).status).toBe(200);
      expect((await post(running.url(code), call(2))).status).toBe(200);
      expect(queries.filter((sql) => sql.includes('server_code'))).toHaveLength(2);
    } finally {
      await running.close();
    }
  });
});
