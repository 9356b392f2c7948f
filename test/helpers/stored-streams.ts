/**
 * What the resumable-stream suites share (docs/http-contract.md, "Resumable streams"): the Ticker
 * app, its calls and its reply, hosts that store their streams in a Knex store on a fresh database,
 * and the `GET` with `Last-Event-ID` that resumes a stream.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import type { AppEvent, HostApp, McpServerOptions, RunApp, ServerRecord } from '../../src/index.js';
import { knexServerStore } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import { publishApp } from './apps.js';
import { sleep } from './common.js';
import { createMigrated, type DatabaseKind, type TestDatabase } from './databases.js';
import { type Host, suiteHosts } from './hosts.js';
import { openSse } from './sse.js';

export const TICKER: HostApp = { id: 'ticker', name: 'Ticker', mode: 'workflow', inputForm: [] };

/** `ticks` progress events, `ms` apart, then the outputs. */
export async function* ticks(count: number, ms = 0): AsyncIterable<AppEvent> {
  for (let i = 1; i <= count; i++) {
    if (ms > 0) await sleep(ms);
    yield { event: 'progress', progress: i, total: count };
  }
  yield { event: 'workflow_finished', outputs: { ticks: count } };
}

/** A call of the Ticker tool; with a progress token its stream carries the progress events too. */
export const tickerCall = (id: string, progressToken?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'Ticker', arguments: {}, ...(progressToken ? { _meta: { progressToken } } : {}) },
});

/** The reply of a Ticker call whose app answered `{ ticks }`. */
export const tickerResult = (id: string, count: number) => ({
  jsonrpc: '2.0',
  id,
  result: {
    content: [{ type: 'text', text: `{"ticks":${count}}` }],
    structuredContent: { ticks: count },
    isError: false,
  },
});

/**
 * Hosts whose streams `store()` keeps, serving `apps` with `runApp`; any error reported fails the
 * suite. `start(overrides)` starts one more; `close` them after the suite.
 */
export function storedStreamHosts(store: () => KnexServerStore, apps: HostApp[], runApp: RunApp) {
  const suite = suiteHosts();
  const start = (overrides: Partial<McpServerOptions> = {}): Promise<Host> =>
    suite.start({
      resolveServer: store().resolver((appId) => apps.find((app) => app.id === appId) ?? null),
      runApp,
      store: store(),
      onError: (error) => {
        throw error;
      },
      ...overrides,
    });
  return { start, close: suite.close };
}

/** Resumes a stream of the server `code` after `lastEventId`, as an event stream. */
export const resumeSse = (host: Host, code: string, lastEventId: string, comments = false) =>
  openSse(host.url, {
    method: 'GET',
    path: host.path(code),
    headers: { 'last-event-id': lastEventId, accept: 'text/event-stream' },
    comments,
  });

/** The same `GET`, read as a plain reply: for the ones that answer an error. */
export const resumeReply = (host: Host, code: string, lastEventId: string) =>
  host.send({ method: 'GET', path: host.path(code), headers: { 'last-event-id': lastEventId } });

/**
 * For the `describe` it is called in: a fresh migrated database of `kind` and a Knex store on it,
 * `apps` published there before the tests (`servers`, in order), and `storedStreamHosts` on that
 * store; hosts, store and database are closed after the tests. `post`, `resume` and `resumeReply`
 * speak to the first app's server, whose code is `code`.
 */
export function storedStreamsOn(kind: DatabaseKind, apps: HostApp[], runApp: RunApp) {
  let db: TestDatabase | undefined;
  let knex: Knex;
  let store: KnexServerStore | undefined;
  const servers: ServerRecord[] = [];
  const hosts = storedStreamHosts(() => store!, apps, runApp);
  const code = () => servers[0]!.serverCode;
  beforeAll(async () => {
    ({ db, knex } = await createMigrated(kind));
    store = knexServerStore(knex);
    for (const app of apps) servers.push(await publishApp(store, app));
  });
  afterAll(async () => {
    await hosts.close();
    await store?.close();
    await db?.destroy();
  });
  return {
    start: hosts.start,
    servers,
    get knex() {
      return knex;
    },
    get store() {
      return store!;
    },
    get code() {
      return code();
    },
    /** POSTs `body`, read as an event stream (with its comment lines when `comments`). */
    post: (host: Host, body: unknown, version = '2025-06-18', comments = false) =>
      openSse(host.url, {
        path: host.path(code()),
        headers: { 'mcp-protocol-version': version },
        body,
        comments,
      }),
    resume: (host: Host, lastEventId: string, comments = false) =>
      resumeSse(host, code(), lastEventId, comments),
    resumeReply: (host: Host, lastEventId: string) => resumeReply(host, code(), lastEventId),
  };
}
