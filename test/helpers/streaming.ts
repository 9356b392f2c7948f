/**
 * What the streaming suites share: a host whose apps the test drives event by event, and a plain
 * `node:http` client that reads a reply as it arrives, one server-sent event at a time, so a test
 * can act between two events and see the exact bytes of the stream.
 */
import http from 'node:http';
import { createGunzip } from 'node:zlib';
import { expect } from 'vitest';
import type { AppEvent, AppRun, HostApp, McpServerOptions, ServerStore } from '../../src/index.js';
import type { ErrorContext } from '../../src/protocol/report.js';
import { AsyncQueue } from './async-queue.js';
import { sleep } from './common.js';
import { CLIENT_HEADERS, type Headers } from './hosts.js';

const TENANT = 'tenant-streaming';

/** A workflow whose runs the test drives: it emits what the test says, when the test says it. */
export const REPORT_APP: HostApp = {
  id: 'report',
  name: 'Report',
  mode: 'workflow',
  description: 'Builds a report in stages',
  inputForm: [],
};

/** A workflow that reports two stages at once and finishes: it has nothing to say before its result. */
export const QUICK_APP: HostApp = {
  id: 'quick',
  name: 'Quick',
  mode: 'workflow',
  inputForm: [],
};

/** A workflow that waits `ms` milliseconds without a word, then answers; it stops when told to. */
export const SLEEPER_APP: HostApp = {
  id: 'sleeper',
  name: 'Sleeper',
  mode: 'workflow',
  inputForm: [{ type: 'number', variable: 'ms', label: 'How long to sleep', required: true }],
};

/**
 * The fixture tool of the official conformance scenario `tools-call-with-progress`: progress 0, 50
 * and 100 of 100, about 50 ms apart, then a text.
 */
export const PROGRESS_FIXTURE_APP: HostApp = {
  id: 'progress-fixture',
  name: 'test_tool_with_progress',
  mode: 'workflow',
  inputForm: [],
};

const APPS = [REPORT_APP, QUICK_APP, SLEEPER_APP, PROGRESS_FIXTURE_APP];

/** Something the app throws, queued among its events. */
class Failure {
  constructor(readonly error: unknown) {}
}

/** One run of the Report app, as the test drives it. */
export interface ScriptedRun {
  run: AppRun;
  /** The app emits this event now. */
  emit(event: AppEvent): void;
  /** The app finishes with these outputs. */
  finish(outputs?: Record<string, unknown>): void;
  /** The app throws this error. */
  fail(error: unknown): void;
  /** Settles when the run's signal aborts, with its reason. */
  aborted: Promise<unknown>;
}

export interface StreamingWorld {
  codes: { report: string; quick: string; sleeper: string; progressFixture: string };
  reports: { error: unknown; context: ErrorContext }[];
  /** The next run of the Report app, once it has started. */
  nextRun(): Promise<ScriptedRun>;
  options(overrides?: Partial<McpServerOptions>): McpServerOptions;
}

export async function createStreamingWorld(store: ServerStore): Promise<StreamingWorld> {
  const publish = (app: HostApp) =>
    store.createServer({ tenantId: TENANT, appId: app.id, name: app.name, description: '', parameters: {} });
  const [report, quick, sleeper, progressFixture] = await Promise.all(APPS.map(publish));
  const reports: StreamingWorld['reports'] = [];
  const started = new AsyncQueue<ScriptedRun>();

  function scripted(run: AppRun): AsyncIterable<AppEvent> {
    const events = new AsyncQueue<AppEvent | Failure>();
    started.push({
      run,
      emit: (event) => events.push(event),
      finish: (outputs = { done: true }) => {
        events.push({ event: 'workflow_finished', outputs });
        events.end();
      },
      fail: (error) => events.push(new Failure(error)),
      aborted: new Promise((resolve) => {
        run.signal.addEventListener('abort', () => resolve(run.signal.reason), { once: true });
      }),
    });
    return (async function* () {
      for await (const item of events) {
        if (item instanceof Failure) throw item.error;
        yield item;
      }
    })();
  }

  async function* quickEvents(): AsyncIterable<AppEvent> {
    yield { event: 'progress', progress: 1, total: 2, message: 'first half' };
    yield { event: 'progress', progress: 2, total: 2, message: 'second half' };
    yield { event: 'workflow_finished', outputs: { done: true } };
  }

  async function* progressFixtureEvents(signal: AbortSignal): AsyncIterable<AppEvent> {
    yield { event: 'progress', progress: 0, total: 100 };
    await sleep(50, signal);
    yield { event: 'progress', progress: 50, total: 100 };
    await sleep(50, signal);
    yield { event: 'progress', progress: 100, total: 100 };
    yield { event: 'workflow_finished', outputs: { text: 'test_tool_with_progress ran' } };
  }

  const runApp: McpServerOptions['runApp'] = async (run) => {
    switch (run.app.id) {
      case REPORT_APP.id:
        return scripted(run);
      case QUICK_APP.id:
        return quickEvents();
      case SLEEPER_APP.id:
        await sleep(Number(run.inputs.ms), run.signal);
        return { outputs: { slept: run.inputs.ms } };
      case PROGRESS_FIXTURE_APP.id:
        return progressFixtureEvents(run.signal);
      default:
        throw new Error(`no such app: ${run.app.id}`);
    }
  };

  const loadApp = (appId: string, tenantId: string) =>
    tenantId === TENANT ? (APPS.find((app) => app.id === appId) ?? null) : null;
  return {
    codes: {
      report: report!.serverCode,
      quick: quick!.serverCode,
      sleeper: sleeper!.serverCode,
      progressFixture: progressFixture!.serverCode,
    },
    reports,
    nextRun: async () => {
      const next = await started.next();
      return next.value as ScriptedRun;
    },
    options: (overrides = {}) => ({
      resolveServer: store.resolver(loadApp),
      runApp,
      onError: (error, context) => {
        reports.push({ error, context });
      },
      ...overrides,
    }),
  };
}

/** A reply read as it arrives. */
export interface LiveReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /**
   * The next block of the body: an SSE event or comment, as its raw text without the blank line
   * that ends it; `null` once the body has ended. A JSON body comes as one block.
   */
  next(): Promise<string | null>;
  /** Every block still to come, once the body has ended. */
  rest(): Promise<string[]>;
  /** The client goes away: the connection is destroyed. */
  close(): void;
}

/**
 * POSTs a payload and returns as soon as the status and headers are in; the body is then read
 * block by block. A gzip body (behind `compression()`) is inflated as it comes.
 */
export function postLive(
  baseUrl: string,
  path: string,
  payload: unknown,
  headers: Headers = {},
): Promise<LiveReply> {
  const url = new URL(path, baseUrl);
  const body = JSON.stringify(payload);
  const sent: Record<string, string> = { 'content-length': String(Buffer.byteLength(body)) };
  for (const [name, value] of Object.entries({ ...CLIENT_HEADERS, ...headers })) {
    if (value !== undefined) sent[name.toLowerCase()] = value;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: sent,
        agent: false,
      },
      (res) => {
        const blocks = new AsyncQueue<string>();
        const isStream = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
        const source = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
        source.setEncoding('utf8');
        let buffered = '';
        source.on('data', (chunk: string) => {
          buffered += chunk;
          if (!isStream) return;
          let end = buffered.indexOf('\n\n');
          while (end !== -1) {
            blocks.push(buffered.slice(0, end));
            buffered = buffered.slice(end + 2);
            end = buffered.indexOf('\n\n');
          }
        });
        const finish = () => {
          if (buffered !== '') blocks.push(buffered);
          buffered = '';
          blocks.end();
        };
        source.on('end', finish);
        source.on('error', finish);
        res.on('aborted', finish);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          next: async () => {
            const next = await blocks.next();
            return next.done ? null : next.value;
          },
          rest: async () => {
            const rest: string[] = [];
            for await (const block of blocks) rest.push(block);
            return rest;
          },
          close: () => {
            req.destroy();
            finish();
          },
        });
      },
    );
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

/** The headers every stream must have, and the ones it must not. */
export function expectStreamHeaders(reply: LiveReply): void {
  expect({
    status: reply.status,
    contentType: reply.headers['content-type'],
    cacheControl: reply.headers['cache-control'],
    accelBuffering: reply.headers['x-accel-buffering'],
    contentLength: reply.headers['content-length'],
    transferEncoding: reply.headers['transfer-encoding'],
    session: reply.headers['mcp-session-id'],
  }).toEqual({
    status: 200,
    contentType: 'text/event-stream',
    cacheControl: 'no-cache',
    accelBuffering: 'no',
    contentLength: undefined,
    transferEncoding: 'chunked',
    session: undefined,
  });
}

/** The JSON-RPC message of an SSE event block (`data: {...}`). */
export function dataOf(block: string | null): Record<string, unknown> {
  if (block === null || !block.startsWith('data: ')) throw new Error(`not a data event: ${block}`);
  return JSON.parse(block.slice('data: '.length));
}

/** The block of an SSE event that carries this message, exactly as the server should write it. */
export const event = (message: unknown) => `data: ${JSON.stringify(message)}`;

/** The SSE comment line a heartbeat without a progress token writes. */
export const KEEP_ALIVE_COMMENT = ': keep-alive';

/** A `notifications/progress` message. */
export const progress = (params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params,
});

/** A `tools/call` request, with a progress token when one is given. */
export function callRequest(id: number | string, name: string, token?: string | number, meta = {}) {
  const params: Record<string, unknown> = { name, arguments: {} };
  if (token !== undefined || Object.keys(meta).length > 0) {
    params._meta = token === undefined ? meta : { ...meta, progressToken: token };
  }
  return { jsonrpc: '2.0', id, method: 'tools/call', params };
}
